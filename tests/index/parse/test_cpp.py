"""The C++ extractor: definitions, ``#include`` lines and grpc++ evidence of realistic snippets, exactly."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import Definition, FileFacts, GrpcRole, Import
from mesh.index.parse import _cpp, extract
from tests.support.facts import call, client, handler, server

D = Definition
I = Import


def cpp(text: str) -> FileFacts:
    return _cpp.extract(textwrap.dedent(text).lstrip("\n").encode())


SERVER = """
#include <grpcpp/grpcpp.h>
#include "acme/orders/v1/orders.grpc.pb.h"

namespace acme::shop {

class OrdersImpl final : public acme::orders::v1::Orders::Service {
 public:
  explicit OrdersImpl(std::shared_ptr<grpc::Channel> channel);
  grpc::Status GetOrder(grpc::ServerContext* context, const GetOrderRequest* request, Order* reply) override;
  grpc::Status PlaceOrder(grpc::ServerContext* context, const PlaceOrderRequest* request, Order* reply) override {
    return grpc::Status::OK;
  }
  void Helper();

 private:
  std::unique_ptr<acme::inventory::v1::Inventory::Stub> inventory_;
};

OrdersImpl::OrdersImpl(std::shared_ptr<grpc::Channel> channel)
    : inventory_(acme::inventory::v1::Inventory::NewStub(channel)) {}

grpc::Status OrdersImpl::GetOrder(grpc::ServerContext* context, const GetOrderRequest* request, Order* reply) {
  grpc::ClientContext ctx;
  ReserveResponse resp;
  grpc::Status status = inventory_->Reserve(&ctx, ReserveRequest(), &resp);
  std::map<std::string, int> counts;
  counts.find("x");
  return status;
}

void OrdersImpl::Helper() {}

template <typename T>
T Clamp(T value, T low, T high) {
  return value < low ? low : (value > high ? high : value);
}

struct Totals {
  int count;
  long sum;
};

}  // namespace acme::shop

int main(int argc, char** argv) {
  auto channel = grpc::CreateChannel("localhost:50051", grpc::InsecureChannelCredentials());
  auto stub = acme::orders::v1::Orders::NewStub(channel);
  grpc::ClientContext context;
  Order order;
  stub->GetOrder(&context, GetOrderRequest(), &order);
  stub->async()->PlaceOrder(&context, nullptr, &order, [](grpc::Status) {});
  acme::orders::v1::Orders::Stub direct(channel);
  direct.GetOrder(&context, GetOrderRequest(), &order);
  return 0;
}
"""


def test_definitions() -> None:
    assert cpp(SERVER).definitions == (
        D("acme.shop", "module", "", 4, 43),
        D("OrdersImpl", "class", "acme.shop", 6, 17),
        # methods declared in the class, then their out-of-line definitions
        D("OrdersImpl", "method", "acme.shop.OrdersImpl", 8, 8),
        D("GetOrder", "method", "acme.shop.OrdersImpl", 9, 9),
        D("PlaceOrder", "method", "acme.shop.OrdersImpl", 10, 12),
        D("Helper", "method", "acme.shop.OrdersImpl", 13, 13),
        D("OrdersImpl", "method", "acme.shop.OrdersImpl", 19, 20),
        D("GetOrder", "method", "acme.shop.OrdersImpl", 22, 29),
        D("Helper", "method", "acme.shop.OrdersImpl", 31, 31),
        # a template starts after template<>
        D("Clamp", "function", "acme.shop", 34, 36),
        D("Totals", "struct", "acme.shop", 38, 41),
        D("main", "function", "", 45, 55),
    )


def test_includes() -> None:
    facts = cpp(SERVER)
    assert facts.imports == (I("grpcpp/grpcpp.h", 1), I("acme/orders/v1/orders.grpc.pb.h", 2))
    assert facts.error == ""
    assert facts.language == "cpp"


def test_server_handlers_stubs_and_calls() -> None:
    orders, inventory = "acme::orders::v1", "acme::inventory::v1"
    assert cpp(SERVER).grpc == (
        server("Orders", 6, "acme.shop.OrdersImpl", orders),
        # the override declarations (not the constructor, not Helper)...
        handler("Orders", "GetOrder", 9, "acme.shop.OrdersImpl.GetOrder", orders),
        handler("Orders", "PlaceOrder", 10, "acme.shop.OrdersImpl.PlaceOrder", orders),
        # a member set in the constructor's initializer list
        client("Inventory", 20, "acme.shop.OrdersImpl.OrdersImpl", inventory),
        # ...and the out-of-line definition of one of them
        handler("Orders", "GetOrder", 22, "acme.shop.OrdersImpl.GetOrder", orders),
        call("Inventory", "Reserve", 25, "acme.shop.OrdersImpl.GetOrder", inventory),
        client("Orders", 47, "main", orders),
        call("Orders", "GetOrder", 50, "main", orders),
        # the callback API: stub->async()->Method
        call("Orders", "PlaceOrder", 51, "main", orders),
        # a stub constructed in place (parsed as a function declaration)
        client("Orders", 52, "main", orders),
        call("Orders", "GetOrder", 53, "main", orders),
    )


CLIENT_AND_VARIANTS = """
#include "orders_client.h"

namespace util {
void Log(const char* message);
}

namespace {
int counter = 0;
void Bump() { ++counter; }
}  // namespace

void util::Log(const char* message) {}

OrdersClient::OrdersClient(std::shared_ptr<grpc::Channel> channel)
    : stub_(Orders::NewStub(channel)), cache_() {}

Order OrdersClient::Get(const std::string& id) {
  grpc::ClientContext context;
  Order order;
  this->stub_->GetOrder(&context, Request(id), &order);
  stub_->AsyncGetOrder(&context, Request(id), &queue_);
  cache_.find(id);
  stub_.get();
  return order;
}

void Watch(std::shared_ptr<acme::Orders::StubInterface> orders, Foo* foo) {
  orders->WatchOrder(nullptr, WatchRequest());
  foo->GetOrder(nullptr);
}

class Callback : public acme::Orders::CallbackService {
  grpc::ServerUnaryReactor* GetOrder(grpc::CallbackServerContext* context, const Request* request, Order* reply) override {
    return nullptr;
  }
  ~Callback() override = default;
};

class AsyncImpl final : public Orders::WithAsyncMethod_GetOrder<Orders::Service> {};

class Plain : public Service {
  void GetOrder() override {}
};

template <typename T>
class Box {
 public:
  T Get() const { return value_; }
 private:
  T value_;
};
"""


def test_namespaces_prototypes_and_templates() -> None:
    assert cpp(CLIENT_AND_VARIANTS).definitions == (
        # the prototype util::Log is defined below: only the definition counts
        D("util", "module", "", 3, 5),
        # an anonymous namespace contains nothing
        D("Bump", "function", "", 9, 9),
        # qualified by a namespace of this file: a function; by anything else: a method
        D("Log", "function", "util", 12, 12),
        D("OrdersClient", "method", "OrdersClient", 14, 15),
        D("Get", "method", "OrdersClient", 17, 25),
        D("Watch", "function", "", 27, 30),
        D("Callback", "class", "", 32, 37),
        D("GetOrder", "method", "Callback", 33, 35),
        D("~Callback", "method", "Callback", 36, 36),
        D("AsyncImpl", "class", "", 39, 39),
        D("Plain", "class", "", 41, 43),
        D("GetOrder", "method", "Plain", 42, 42),
        D("Box", "class", "", 46, 51),
        D("Get", "method", "Box", 48, 48),
    )


def test_members_known_from_out_of_line_code_callback_and_async_services() -> None:
    assert cpp(CLIENT_AND_VARIANTS).grpc == (
        # the class is declared in the header: its member is known from the initializer list
        client("Orders", 15, "OrdersClient.OrdersClient"),
        call("Orders", "GetOrder", 20, "OrdersClient.Get"),
        call("Orders", "AsyncGetOrder", 21, "OrdersClient.Get"),
        # cache_.find, stub_.get(): not RPCs; a StubInterface parameter in a shared_ptr is a stub
        call("Orders", "WatchOrder", 28, "Watch", "acme"),
        server("Orders", 32, "Callback", "acme"),
        handler("Orders", "GetOrder", 33, "Callback.GetOrder", "acme"),
        # a WithAsyncMethod_ wrapper; `public Service` names no generated service
        server("Orders", 39, "AsyncImpl"),
    )


def test_look_alikes_are_not_evidence() -> None:
    facts = cpp(
        """
        #include <memory>

        class Cache {
         public:
          std::unique_ptr<Store> store_;
          void Get() { store_->GetOrder(1); }
        };

        void Run(Orders::Client* client) {
          auto stub = std::make_unique<Backend>();
          stub->GetOrder(2);
          client->GetOrder(3);
          std::unique_ptr<Orders::Stub> empty;
          empty.reset();
        }
        """
    )
    assert facts.grpc == ()


def test_syntax_errors_keep_what_can_be_read() -> None:
    facts = cpp(
        """
        #include <vector>

        int ok() { return 1; }

        int broken( { return 2; }

        struct After { int x; };
        """
    )
    assert facts.imports == (I("vector", 1),)
    assert facts.definitions[0] == D("ok", "function", "", 3, 3)
    # the recovered tree folds `After` into the broken function, but it is still found
    assert [(d.name, d.kind, d.line) for d in facts.definitions[1:]] == [
        ("broken", "function", 5),
        ("After", "struct", 7),
    ]
    assert facts.error == "syntax error at line 5"


def test_dispatch_by_suffix() -> None:
    source = b"int f() { return 0; }\n"
    expected = FileFacts(language="cpp", definitions=(D("f", "function", "", 1, 1),))
    for name in ("a.cc", "a.cpp", "a.cxx", "a.hpp", "a.hh", "a.hxx", "a.h"):
        assert extract(name, source) == expected


HOSTILE = [
    b"",
    b"\xff\xfe\x00\x81garbage",
    b"{" * 20_000,
    b"namespace a{" * 2_000 + b"}" * 2_000,
    b"class A{void m(){" * 300 + b"}}" * 300,
    b"auto s = X::NewStub(c); " + b"f([&]() {" * 500 + b"})" * 500,
    b"class C : public X::Orders::Service { " + b"void M() override {}" * 500 + b"};",
    b"#define X(a) a##a\n#if 1\n#else\n",
]


def test_hostile_inputs() -> None:
    for source in HOSTILE:
        facts = _cpp.extract(source)
        assert facts.language == "cpp"
        assert not facts.error.startswith("extractor failed")
        assert facts == _cpp.extract(source)
    assert len(_cpp.extract(HOSTILE[6]).grpc) == 501


@settings(max_examples=200)
@given(st.binary(max_size=400))
def test_any_bytes(source: bytes) -> None:
    facts = _cpp.extract(source)
    assert not facts.error.startswith("extractor failed")
    assert facts == _cpp.extract(source)


CPP_ALPHABET = st.sampled_from(
    list("abcxyz(){}[];,.=<>/*'\"&~ \n\t:!+-#")
    + ["class ", "struct ", "namespace ", "template <typename T> ", "override", "public ", "auto ", "->",
       "::", "Orders::NewStub(", "Orders::Stub", "Orders::Service", "this->", "#include ", "std::unique_ptr<"]
)  # fmt: skip


@settings(max_examples=200)
@given(st.lists(CPP_ALPHABET, max_size=80).map("".join))
def test_any_text(text: str) -> None:
    facts = _cpp.extract(text.encode())
    assert not facts.error.startswith("extractor failed")


def realistic_sample(copies: int = 28) -> bytes:
    """About 2,000 lines of service-like C++: a namespace per copy, glued into one file."""
    parts = ['#include <map>\n#include <memory>\n#include <grpcpp/grpcpp.h>\n#include "shop.grpc.pb.h"\n']
    for n in range(copies):
        parts.append(
            f"""
namespace shop::part{n} {{

// Orders kept in memory, guarded by a mutex.
class OrderStore{n} {{
 public:
  std::optional<Order> Find(const std::string& id) const {{
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = orders_.find(id);
    if (it == orders_.end()) {{
      return std::nullopt;
    }}
    return it->second;
  }}

  void Save(const Order& order) {{
    std::lock_guard<std::mutex> lock(mutex_);
    orders_[order.id()] = order;
  }}

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Order> orders_;
}};

class OrdersService{n} final : public acme::orders::v1::Orders::Service {{
 public:
  OrdersService{n}(OrderStore{n}* store, std::shared_ptr<grpc::Channel> payments)
      : store_(store), payments_(acme::payments::v1::Payments::NewStub(payments)) {{}}

  grpc::Status GetOrder(grpc::ServerContext* context, const GetOrderRequest* request, Order* reply) override;
  grpc::Status PlaceOrder(grpc::ServerContext* context, const PlaceOrderRequest* request, Order* reply) override;

 private:
  OrderStore{n}* store_;
  std::unique_ptr<acme::payments::v1::Payments::Stub> payments_;
}};

grpc::Status OrdersService{n}::GetOrder(grpc::ServerContext* context, const GetOrderRequest* request, Order* reply) {{
  auto order = store_->Find(request->order_id());
  if (!order) {{
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such order");
  }}
  *reply = *order;
  return grpc::Status::OK;
}}

grpc::Status OrdersService{n}::PlaceOrder(grpc::ServerContext* context, const PlaceOrderRequest* request,
                                         Order* reply) {{
  Order order;
  order.set_id(request->customer_id() + "-" + std::to_string(request->items_size()));
  for (const auto& item : request->items()) {{
    *order.add_items() = item;
  }}
  grpc::ClientContext charge_context;
  ChargeRequest charge;
  charge.set_order_id(order.id());
  ChargeResponse charged;
  grpc::Status status = payments_->Charge(&charge_context, charge, &charged);
  if (!status.ok()) {{
    return status;
  }}
  store_->Save(order);
  *reply = order;
  return grpc::Status::OK;
}}

}}  // namespace shop::part{n}
"""
        )
    return "".join(parts).encode()


def test_realistic_sample() -> None:
    source = realistic_sample()
    assert 1_800 <= source.count(b"\n") <= 2_400
    facts = _cpp.extract(source)
    assert facts.error == ""
    assert len(facts.definitions) == 28 * 10
    roles = [fact.role for fact in facts.grpc]
    assert roles.count(GrpcRole.SERVER) == 28
    assert roles.count(GrpcRole.HANDLER) == 28 * 4
    assert roles.count(GrpcRole.CLIENT) == 28
    assert roles.count(GrpcRole.CALL) == 28
