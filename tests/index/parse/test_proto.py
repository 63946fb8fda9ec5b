"""The .proto extractor: the whole ProtoFile of realistic files, broken files, hostile input."""

from __future__ import annotations

import textwrap

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import (
    Definition,
    FileFacts,
    Import,
    ProtoField,
    ProtoFile,
    ProtoMessage,
    ProtoMethod,
    ProtoService,
)
from mesh.index.parse import _proto, extract


def facts(source: str) -> FileFacts:
    return _proto.extract(textwrap.dedent(source).lstrip("\n").encode())


def field(name: str, type_: str, number: int, line: int, label: str = "") -> ProtoField:
    return ProtoField(name=name, type=type_, number=number, label=label, line=line)


def value(name: str, number: int, line: int) -> ProtoField:
    return ProtoField(name=name, type="", number=number, label="", line=line)


ORDERS = """
    // Orders API.
    syntax = "proto3";

    package acme.orders.v1;

    import "acme/common/money.proto";
    import public "google/protobuf/empty.proto";
    import weak "acme/legacy.proto";

    option go_package = "github.com/acme/orders/gen;orders";
    option (acme.file_meta) = { owner: "team-orders" tags: ["a", "b"] nested { x: 1 } };

    /* An order,
       as stored. */
    message Order {
      string id = 1 [deprecated = true, json_name = "orderId"];
      repeated Item items = 2;
      map<string, .acme.common.Money> totals = 3;
      oneof payment {
        option (acme.required) = true;
        string card_token = 4;
        Iban iban = 5;
      }
      optional google.protobuf.Timestamp placed_at = 6;
      reserved 7, 9 to 11;
      reserved "legacy";

      message Item {
        string sku = 1;
        uint32 quantity = 2 [(acme.min) = 1];
        message Options { bool gift = 1; }
      }

      enum Status {
        option allow_alias = true;
        STATUS_UNSPECIFIED = 0;
        STATUS_OPEN = 1;
        STATUS_ALIAS = 1 [deprecated = true];
        STATUS_BROKEN = -1;
        reserved 5 to max;
      }
    }

    message Iban { string value = 1; }

    service OrderService {
      option (acme.service_meta) = "orders";

      // Unary.
      rpc GetOrder (GetOrderRequest) returns (Order);
      rpc WatchOrders (stream WatchRequest) returns (stream Order) {
        option (google.api.http) = { get: "/v1/orders:watch" };
      }
      rpc Ping(google.protobuf.Empty) returns (.google.protobuf.Empty) {}
      rpc Upload(stream .acme.common.Chunk) returns (UploadReply);
    }
"""


def test_a_full_proto3_file() -> None:
    result = facts(ORDERS)
    assert result.proto == ProtoFile(
        package="acme.orders.v1",
        imports=("acme/common/money.proto", "google/protobuf/empty.proto", "acme/legacy.proto"),
        services=(
            ProtoService(
                name="OrderService",
                methods=(
                    ProtoMethod("GetOrder", "GetOrderRequest", "Order", False, False, 50),
                    ProtoMethod("WatchOrders", "WatchRequest", "Order", True, True, 51),
                    ProtoMethod("Ping", "google.protobuf.Empty", ".google.protobuf.Empty", False, False, 54),
                    ProtoMethod("Upload", ".acme.common.Chunk", "UploadReply", True, False, 55),
                ),
                line=46,
                end_line=56,
            ),
        ),
        messages=(
            ProtoMessage(
                name="Order",
                kind="message",
                fields=(
                    field("id", "string", 1, 16),
                    field("items", "Item", 2, 17, "repeated"),
                    field("totals", "map<string,.acme.common.Money>", 3, 18, "map"),
                    field("card_token", "string", 4, 21),
                    field("iban", "Iban", 5, 22),
                    field("placed_at", "google.protobuf.Timestamp", 6, 24, "optional"),
                ),
                line=15,
                end_line=42,
            ),
            ProtoMessage(
                name="Order.Item",
                kind="message",
                fields=(field("sku", "string", 1, 29), field("quantity", "uint32", 2, 30)),
                line=28,
                end_line=32,
            ),
            ProtoMessage(
                name="Order.Item.Options", kind="message", fields=(field("gift", "bool", 1, 31),), line=31, end_line=31
            ),
            ProtoMessage(
                name="Order.Status",
                kind="enum",
                fields=(
                    value("STATUS_UNSPECIFIED", 0, 36),
                    value("STATUS_OPEN", 1, 37),
                    value("STATUS_ALIAS", 1, 38),
                    value("STATUS_BROKEN", -1, 39),
                ),
                line=34,
                end_line=41,
            ),
            ProtoMessage(name="Iban", kind="message", fields=(field("value", "string", 1, 44),), line=44, end_line=44),
        ),
        errors=(),
        options=(("go_package", "github.com/acme/orders/gen;orders"),),  # the (acme.file_meta) aggregate is not kept
    )
    assert result.definitions == (
        Definition("Order", "message", "", 15, 42),
        Definition("Item", "message", "Order", 28, 32),
        Definition("Options", "message", "Order.Item", 31, 31),
        Definition("Status", "enum", "Order", 34, 41),
        Definition("Iban", "message", "", 44, 44),
        Definition("OrderService", "service", "", 46, 56),
        Definition("GetOrder", "method", "OrderService", 50, 50),
        Definition("WatchOrders", "method", "OrderService", 51, 53),
        Definition("Ping", "method", "OrderService", 54, 54),
        Definition("Upload", "method", "OrderService", 55, 55),
    )
    assert result.imports == (
        Import("acme/common/money.proto", 6),
        Import("google/protobuf/empty.proto", 7),
        Import("acme/legacy.proto", 8),
    )
    assert result.language == "proto"
    assert result.error == ""


def test_dispatch_by_suffix_gives_the_same_facts() -> None:
    source = textwrap.dedent(ORDERS).lstrip("\n").encode()
    assert extract("api/orders/v1/orders.proto", source) == _proto.extract(source)


def test_proto2_groups_required_extensions_and_extend() -> None:
    result = facts(
        """
        syntax = "proto2";
        package legacy;

        message Search {
          required string query = 1;
          optional int32 page = 2 [default = 10];
          repeated group Result = 3 {
            required string url = 4;
            optional string title = 5;
          }
          extensions 100 to 199;
          extend Other { optional int32 bar = 126; }
        }

        extend google.protobuf.FieldOptions {
          optional string label = 50001;
        }
        """
    )
    assert result.proto is not None
    assert result.proto.messages == (
        ProtoMessage(
            name="Search",
            kind="message",
            fields=(
                field("query", "string", 1, 5, "required"),
                field("page", "int32", 2, 6, "optional"),
                field("result", "Result", 3, 7, "repeated"),
            ),
            line=4,
            end_line=13,
        ),
        ProtoMessage(
            name="Search.Result",
            kind="message",
            fields=(field("url", "string", 4, 8, "required"), field("title", "string", 5, 9, "optional")),
            line=7,
            end_line=10,
        ),
    )
    assert result.proto.package == "legacy"
    assert result.error == ""


def test_editions_syntax_and_odd_numbers() -> None:
    result = facts(
        """
        edition = "2023";
        package p;
        import option "google/protobuf/cpp_features.proto";
        enum E { A = 0x0; B = 017; C = 0X1f; }
        message M { string stream = 1; stream.v1.Event event = 2; int32 max = 536870911; }
        """
    )
    assert result.proto == ProtoFile(
        package="p",
        imports=("google/protobuf/cpp_features.proto",),
        services=(),
        messages=(
            ProtoMessage("E", "enum", (value("A", 0, 4), value("B", 15, 4), value("C", 31, 4)), 4, 4),
            ProtoMessage(
                "M",
                "message",
                (
                    field("stream", "string", 1, 5),
                    field("event", "stream.v1.Event", 2, 5),
                    field("max", "int32", 536870911, 5),
                ),
                5,
                5,
            ),
        ),
        errors=(),
    )


def test_a_broken_file_keeps_what_was_read_and_resynchronises_at_the_next_top_level_keyword() -> None:
    result = facts(
        """
        syntax = "proto3";
        package shop;

        message Cart {
          string id = 1;
          repeated string skus = ;
          int32 lost = 3;
        }

        message Sku { string code = 1; }

        service Carts {
          rpc Get(Cart) returns Cart;
          rpc Lost(Cart) returns (Cart);
        }

        enum Kind { KIND_UNSPECIFIED = 0; }
        """
    )
    assert result.proto == ProtoFile(
        package="shop",
        imports=(),
        services=(ProtoService("Carts", (), 12, 15),),
        messages=(
            ProtoMessage("Cart", "message", (field("id", "string", 1, 5),), 4, 8),
            ProtoMessage("Sku", "message", (field("code", "string", 1, 10),), 10, 10),
            ProtoMessage("Kind", "enum", (value("KIND_UNSPECIFIED", 0, 17),), 17, 17),
        ),
        errors=(
            "line 6: expected a number for field skus, got ';'",
            "line 13: expected '(', got 'Cart'",
        ),
    )
    assert result.error == "line 6: expected a number for field skus, got ';'"
    assert result.definitions == (
        Definition("Cart", "message", "", 4, 8),
        Definition("Sku", "message", "", 10, 10),
        Definition("Carts", "service", "", 12, 15),
        Definition("Kind", "enum", "", 17, 17),
    )


def test_an_unclosed_message_ends_at_the_last_line() -> None:
    result = facts(
        """
        message Open {
          string a = 1;
          message Inner { int32 b = 2; }
        """
    )
    assert result.proto is not None
    assert result.proto.errors == ("line 3: expected '}' to close message Open, got end of file",)
    assert result.definitions == (
        Definition("Open", "message", "", 1, 3),
        Definition("Inner", "message", "Open", 3, 3),
    )


def test_an_error_in_a_nested_block_closes_the_open_blocks_as_their_braces_go_by() -> None:
    result = facts(
        """
        message A {
          message B {
            oneof o { string x = 1; ??? }
            string y = 2;
          }
          string z = 3;
        }
        message C {}
        """
    )
    assert result.proto is not None
    assert result.proto.errors == ("line 3: expected a field type or '}', got '?'",)
    assert result.definitions == (
        Definition("A", "message", "", 1, 7),
        Definition("B", "message", "A", 2, 5),
        Definition("C", "message", "", 8, 8),
    )
    assert result.proto.messages[1].fields == (field("x", "string", 1, 3),)


def test_unterminated_comment_and_string() -> None:
    result = facts("message A {}\n/* never closed\nmessage B {}\n")
    assert result.proto is not None
    assert result.proto.errors == ("line 2: expected '*/' to close the comment, got end of file",)
    assert [d.name for d in result.definitions] == ["A"]
    result = facts('import "acme/x.proto\nmessage B {}\n')
    assert result.error == 'line 1: expected an import path, got "acme/x.proto'
    assert [d.name for d in result.definitions] == ["B"]


def test_file_options_with_a_plain_value_are_kept_in_order_the_first_of_a_name_winning() -> None:
    result = facts(
        """
        syntax = "proto3";
        option java_package = "com.acme" ".orders";
        option java_multiple_files = true;
        option (acme.meta) = { owner: "x" };
        option optimize_for = SPEED;
        option java_package = "ignored.second";
        option cc_enable_arenas = -1;
        option go_package = "example.com/acme/orders;ordersv1"
        package acme.orders;
        message Order { option deprecated = true; string id = 1; }
        option java_outer_classname = "OrdersProto";
        """
    )
    assert result.proto is not None
    assert result.proto.options == (
        ("java_package", "com.acme.orders"),
        ("java_multiple_files", "true"),
        ("optimize_for", "SPEED"),
        ("java_outer_classname", "OrdersProto"),
    )  # a message's own option is not the file's; one missing its ';' is skipped up to the next ';', as before
    assert result.proto.errors == ()
    assert [m.name for m in result.proto.messages] == ["Order"]


def test_string_escapes_and_concatenation_in_imports() -> None:
    result = _proto.extract(b'import "acme/" "x\\x2eproto";\nimport \'a\\\\b.proto\';\n')
    assert result.imports == (Import("acme/x.proto", 1), Import("a\\b.proto", 2))


def test_nesting_is_limited() -> None:
    depth = _proto.MAX_DEPTH + 10
    result = _proto.extract(b"message M { " * depth + b"}" * depth + b"\nmessage After {}")
    assert result.proto is not None
    assert result.proto.errors == (f"line 1: expected at most {_proto.MAX_DEPTH} levels of nesting, got more",)
    assert len(result.proto.messages) == _proto.MAX_DEPTH + 1
    assert result.proto.messages[-1].name == "After"
    assert result.proto.messages[_proto.MAX_DEPTH - 1].end_line == 1


def test_hostile_inputs() -> None:
    for source in (b"{" * 50_000, b"}" * 20_000, b"message " * 10_000, b"/*" * 20_000, b"\xff\xfe\x00" * 1000):
        result = _proto.extract(source)
        assert result.proto is not None
        assert 0 < len(result.proto.errors) <= _proto.MAX_ERRORS
        assert result.error == result.proto.errors[0]
        assert not result.error.startswith("internal error")


def test_empty_and_comment_only_files() -> None:
    empty = FileFacts(language="proto", proto=ProtoFile("", (), (), (), ()))
    assert _proto.extract(b"") == empty
    assert _proto.extract(b"// nothing\n/* here */\n\n") == empty


_VOCABULARY = st.sampled_from(
    [
        "message", "enum", "service", "rpc", "returns", "stream", "oneof", "map", "<", ">", ",", "option",
        "reserved", "extend", "extensions", "to", "max", "group", "repeated", "optional", "required", "syntax",
        "import", "package", "public", "=", ";", "{", "}", "(", ")", "[", "]", ".", "-", "1", "0x1F", "2.5",
        '"a.proto"', '"unterminated', "'x'", "Foo", "bar", "a.b.C", "//c\n", "/*c*/", "/*", "\n", " ", "\u00e9",
    ]
)  # fmt: skip


def check_invariants(result: FileFacts, source: bytes) -> None:
    assert result.proto is not None
    assert not result.error.startswith("internal error"), result.error
    assert result.error == (result.proto.errors[0] if result.proto.errors else "")
    last = max(1, source.count(b"\n") + (0 if source.endswith(b"\n") else 1))
    for definition in result.definitions:
        assert 1 <= definition.line <= definition.end_line <= last
    for message in result.proto.messages:
        assert all(message.line <= f.line <= message.end_line for f in message.fields)
    assert result == _proto.extract(source)


@given(st.binary(max_size=500))
@example(b"message A { map<string,")
@example(b"service S { rpc M(stream) returns (stream .x.Y) {")
def test_never_raises_on_bytes(source: bytes) -> None:
    check_invariants(_proto.extract(source), source)


@given(st.lists(_VOCABULARY, max_size=60).map(" ".join))
def test_never_raises_on_token_soup(text: str) -> None:
    source = text.encode()
    check_invariants(_proto.extract(source), source)
