"""Code navigation facts of Go: signatures, doc lines and references (queries/go/*.scm)."""

from __future__ import annotations

import textwrap

from mesh.index import Definition
from mesh.index.parse import extract


def _facts(source: str):
    return extract("svc/orders/store.go", textwrap.dedent(source).lstrip("\n").encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def _described(source: str) -> dict[str, tuple[str, str]]:
    """name -> (signature, doc) of the first definition of each name."""
    described: dict[str, tuple[str, str]] = {}
    for d in _facts(source).definitions:
        described.setdefault(d.name, (d.signature, d.doc))
    return described


def test_signatures_of_functions_methods_generics_and_specs() -> None:
    described = _described(
        """
        package store

        func Map[K comparable, V any](
            items map[K]V,
            f func(V) V,
        ) (map[K]V, error) {
            return nil, nil
        }

        func (s *Store[T]) Get(ctx context.Context, id ID) (*pb.Order, error) { return nil, nil }

        type Page[T any] struct {
            items []T
        }

        type Reader interface {
            Get(key string) (int, bool)
        }

        type (
            ID      string
            Alias   = pb.Order
            Handler func(w http.ResponseWriter,
                r *http.Request) error
        )

        const MaxSize int = 10

        const (
            minA, minB = 1, 2
        )

        func nanotime() int64
        """
    )
    assert described["Map"][0] == "func Map[K comparable, V any]( items map[K]V, f func(V) V, ) (map[K]V, error)"
    assert described["Get"][0] == "func (s *Store[T]) Get(ctx context.Context, id ID) (*pb.Order, error)"
    assert described["Page"][0] == "type Page[T any] struct"
    assert described["Reader"][0] == "type Reader interface"
    assert described["ID"][0] == "type ID string"
    assert described["Alias"][0] == "type Alias = pb.Order"
    assert described["Handler"][0] == "type Handler func(w http.ResponseWriter, r *http.Request) error"
    assert described["MaxSize"][0] == "const MaxSize int = 10"
    assert described["minA"][0] == described["minB"][0] == "const minA, minB = 1, 2"
    assert described["nanotime"][0] == "func nanotime() int64"


def test_doc_lines_are_the_comments_right_above() -> None:
    described = _described(
        """
        package store

        // Store keeps orders.
        //
        // More about it.
        type Store struct{}

        /*
           Get reads one order.
        */
        func (s *Store) Get() {}

        // Put writes one.
        //go:noinline
        func (s *Store) Put() {}

        //go:generate mockgen -source store.go
        func Generated() {}

        // Not about Apart.

        func Apart() {}

        var x = 1 // not a doc of After
        func After() {}

        // Kinds of order, documenting the group.
        const (
            First = iota
            // Second comes second.
            Second
            Third // a trailing comment documents Third's line
            Fourth
        )

        type (
            // ID names an order.
            ID string
        )
        """
    )
    docs = {name: doc for name, (_, doc) in described.items()}
    assert docs == {
        "Store": "Store keeps orders.",
        "Get": "Get reads one order.",
        "Put": "Put writes one.",
        "Generated": "",
        "Apart": "",
        "After": "",
        "First": "",
        "Second": "Second comes second.",
        "Third": "",
        "Fourth": "",
        "ID": "ID names an order.",
    }


def test_definitions_compare_as_before() -> None:
    (definition,) = _facts("package p\n\n// F does.\nfunc F() {}\n").definitions
    assert definition == Definition("F", "function", "", 4, 4)
    assert (definition.signature, definition.doc) == ("func F()", "F does.")


def test_calls_and_instantiations_with_their_qualifier() -> None:
    refs = _refs(
        """
        package store

        func (s *Store) Place(ctx context.Context) error {
            order := &pb.Order{Id: "1"}
            page := Page[int]{}
            other := NOTEST{}
            item := new(Item)
            raw := new(pb.Raw)
            total := Sum[int](1, 2)
            parsed := strconv.ParseInt("1", 10, 64)
            s.store.Put(ctx, order)
            s.audit()
            build().Run()
            defer s.mu.Unlock()
            go worker(Config{})
            return errors.New("x")
        }
        """
    )
    assert refs >= {
        ("Order", 4, "new", "pb"),
        ("Page", 5, "new", ""),
        ("NOTEST", 6, "new", ""),
        ("Item", 7, "new", ""),
        ("Raw", 8, "new", "pb"),
        ("Sum", 9, "call", ""),
        ("ParseInt", 10, "call", "strconv"),
        ("Put", 11, "call", "s.store"),
        ("audit", 12, "call", "s"),
        ("build", 13, "call", ""),
        ("Run", 13, "call", "~"),
        ("Unlock", 14, "call", "s.mu"),
        ("worker", 15, "call", ""),
        ("Config", 15, "new", ""),
        ("New", 16, "call", "errors"),
    }


def test_types_in_every_position() -> None:
    refs = _refs(
        """
        package store

        type Store struct {
            db    *sql.DB
            cache Cache[Key, *pb.Order]
            Base
            *log.Logger
        }

        type Sink interface {
            io.Writer
            Flush(ctx context.Context) Result
        }

        func (s *Store) Load(v any) (Value, error) {
            if o, ok := v.(*pb.Order); ok {
                return Value(o), nil
            }
            switch v.(type) {
            case Custom, []Item:
            }
            var m map[Key]Value
            var ch chan<- Event
            return nil, nil
        }
        """
    )
    assert refs >= {
        ("DB", 4, "type", "sql"),
        ("Cache", 5, "type", ""),
        ("Key", 5, "type", ""),
        ("Order", 5, "type", "pb"),
        ("Base", 6, "type", ""),
        ("Logger", 7, "type", "log"),
        ("Writer", 11, "type", "io"),
        ("Context", 12, "type", "context"),
        ("Result", 12, "type", ""),
        ("Store", 15, "type", ""),
        ("Value", 15, "type", ""),
        ("Order", 16, "type", "pb"),
        ("Value", 17, "call", ""),
        ("Custom", 20, "type", ""),
        ("Item", 20, "type", ""),
        ("Key", 22, "type", ""),
        ("Value", 22, "type", ""),
        ("Event", 23, "type", ""),
    }
    names = {name for name, *_ in refs}
    assert not names & {"any", "error", "string", "int"}  # predeclared: nothing to navigate to


def test_values_read_constants_package_members_and_literal_elements() -> None:
    refs = _refs(
        """
        package store

        var colors = map[Color]string{Red: "red", pb.Blue: "blue"}
        var all = []Color{Red, Green}

        func f(c Color) Color {
            o := Order{Name: DefaultName, Status: pb.Status_PAID}
            if c == Green || Enabled {
                return Fallback
            }
            log.Println(MaxSize, time.Second, Color.String)
            total := Limit * 2
            return all[Index]
        }
        """
    )
    assert refs >= {
        ("Red", 3, "use", ""),
        ("Blue", 3, "use", "pb"),
        ("Red", 4, "use", ""),
        ("Green", 4, "use", ""),
        ("DefaultName", 7, "use", ""),
        ("Status_PAID", 7, "use", "pb"),
        ("Green", 8, "use", ""),
        ("Enabled", 8, "use", ""),
        ("Fallback", 9, "use", ""),
        ("MaxSize", 11, "use", ""),
        ("Second", 11, "use", "time"),
        ("Color", 11, "use", ""),
        ("String", 11, "use", "Color"),
        ("Limit", 12, "use", ""),
        ("Index", 13, "use", ""),
    }
    assert not any(name in ("Name", "Status") for name, *_ in refs)  # struct literal keys name fields


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        package Store

        import (
            Fmt "fmt"
            "example.com/Pb"
        )

        type Order struct{ ID string }
        type Alias = Order
        type Page[T any] struct{}

        const Max, Min = 1, 2
        var Global int

        func Process[K comparable](In int, Rest ...string) (Out int) {
            Local := 1
            var Other int
            for Key, Val := range items {
            }
            select {
            case Msg := <-ch:
            }
        Loop:
            for {
                break Loop
            }
            return
        }

        type Doer interface{ Do() }
        """
    )
    assert {(name, kind) for name, _, kind, _ in refs} == {("Order", "type")}


def test_a_tree_too_broken_to_query_answers_without_references() -> None:
    assert extract("svc/ok.go", b"package p\nfunc f() {\n\tg()\n\t)\n}\n").references  # errors within reason: queried
    facts = extract("svc/junk.go", b"package p\nfunc f() {\n" + b"{(" * 20_000)
    assert facts.error.startswith("syntax error") and facts.references == ()


def _binds(source: str) -> set[tuple[str, int, str, str]]:
    """(name, line, qualifier, binds) of every reference that gives its type to something."""
    return {(r.name, r.line, r.qualifier, r.binds) for r in _facts(source).references if r.binds}


def test_a_named_interface_declares_methods_with_their_parameters() -> None:
    definitions = _facts(
        """
        package store

        // Priced reports an amount.
        type Priced interface {
            io.Reader
            // Total is the amount due.
            Total(currency string, rounded bool) float64
            ~int | string
        }

        func Use(p interface{ Hidden() }) {}

        type Holder struct {
            sink interface{ Flush() error }
        }
        """
    ).definitions
    methods = [d for d in definitions if d.kind == "method"]
    assert methods == [Definition("Total", "method", "Priced", 7, 7)]
    assert (methods[0].signature, methods[0].doc) == (
        "Total(currency string, rounded bool) float64",
        "Total is the amount due.",
    )


def test_declarations_bind_their_names_to_their_types() -> None:
    binds = _binds(
        """
        package store

        type Service struct {
            store  *Store
            orders pb.OrdersClient
            count  int
        }

        func (s *Service) Place(ctx context.Context, cart *Cart, page Page[int], doc pricing.Priced, n int) {
            var ledger Ledger
            var remote *pb.Remote
            box := &Box{}
            raw := pkg.Raw{}
            gen := Gen[int]{}
            fresh := new(Fresh)
            var kept = &Kept{}
            s.cache = &Cache{}
            conn, ok := value.(*Conn)
            switch v := value.(type) {
            case *Only:
                v.Run()
            }
            a, b := Pair{}, Other{}
            list := []Item{}
        }
        """
    )
    assert binds == {
        ("Store", 4, "", "s.store"),
        ("OrdersClient", 5, "pb", "s.orders"),
        ("Service", 9, "", "s"),
        ("Context", 9, "context", "ctx"),
        ("Cart", 9, "", "cart"),
        ("Page", 9, "", "page"),
        ("Priced", 9, "pricing", "doc"),
        ("Ledger", 10, "", "ledger"),
        ("Remote", 11, "pb", "remote"),
        ("Box", 12, "", "box"),
        ("Raw", 13, "pkg", "raw"),
        ("Gen", 14, "", "gen"),
        ("Fresh", 15, "", "fresh"),
        ("Kept", 16, "", "kept"),
        ("Cache", 17, "", "s.cache"),
        ("Conn", 18, "", "conn"),
        ("Only", 20, "", "v"),
    }
    names = {r.name for r in _facts("package p\n\nfunc f(n int, err error, s string) {}\n").references}
    assert not names  # predeclared types bind nothing and are no references


def test_a_name_given_two_types_in_the_file_binds_neither() -> None:
    binds = _binds(
        """
        package store

        func (s *Server) Start() { s.run() }

        func (s *store) Get(req *GetRequest) {}

        func Put(req *PutRequest, item *Item) {}

        func shape(value any) {
            switch v := value.(type) {
            case *Circle, *Square:
                v.Area()
            }
        }
        """
    )
    assert binds == {("Item", 7, "", "item")}


def test_fields_bind_through_the_receiver_the_methods_name() -> None:
    binds = _binds(
        """
        package store

        type Alone struct {
            db *DB
        }

        type Mixed struct {
            db *DB
        }

        func (m *Mixed) A() {}
        func (x Mixed) B()  {}

        type Blank struct{ log *Logger }

        func (_ *Blank) C() {}
        """
    )
    assert binds == {("Mixed", 11, "", "m"), ("Mixed", 12, "", "x")}  # receivers only: no field binds
    # (no method, two receiver names, a blank receiver: nothing reads the field as <receiver>.<field>)


def test_methods_and_functions_passed_as_values() -> None:
    refs = _refs(
        """
        package store

        func (s *Server) Routes(mux *http.ServeMux) {
            mux.HandleFunc("/", s.handleIndex)
            chain := Middleware{Next: s.serve, Name: "x"}
            register(pb.Handler, s.cfg.timeout)
        }
        """
    )
    assert refs >= {
        ("handleIndex", 4, "use", "s"),
        ("serve", 5, "use", "s"),
        ("Handler", 6, "use", "pb"),
        ("timeout", 6, "use", "s.cfg"),
    }


def test_lower_case_package_names_read_as_values_when_the_file_defines_them() -> None:
    """A package constant or function of the file passed as a value is a use; a local is not."""
    refs = _refs(
        """
        package store

        const componentName = "statestore"

        func helper() int { return 1 }

        func run(client Client, local string) {
            client.Save(componentName, local)
            register(helper)
            name := componentName
            _ = name
        }

        func shadow(helper int) int {
            return use(helper)
        }
        """
    )
    uses = {(name, line) for name, line, kind, _ in refs if kind == "use"}
    assert {("componentName", 8), ("helper", 9), ("componentName", 10)} <= uses
    assert not {name for name, _ in uses} & {"local", "name", "client"}
    assert ("helper", 15) not in uses  # the parameter shadows the function
