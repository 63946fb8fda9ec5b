"""The Go extractor: definitions, import specs and grpc-go evidence followed through the file."""

from __future__ import annotations

import textwrap
import time

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import Definition, FileFacts, Import
from mesh.index.parse import _go, extract
from tests.support.facts import call, client, handler, server


def facts(source: str) -> FileFacts:
    return _go.extract(textwrap.dedent(source).lstrip("\n").encode())


def test_definitions_methods_by_receiver_type_kinds_and_constants() -> None:
    result = facts(
        """
        package store

        type Store struct {
            rows map[string]int
        }

        type Reader interface {
            Get(key string) (int, bool)
        }

        type (
            ID    string
            Alias = Store
            Page[T any] struct{ items []T }
        )

        const (
            pageSize   = 100
            minA, minB = 1, 2
        )

        func New() *Store {
            type entry struct{ key string }
            const limit = 3
            return &Store{}
        }

        func (s *Store) Get(key string) (int, bool) {
            v, ok := s.rows[key]
            return v, ok
        }

        func (p Page[T]) Len() int { return len(p.items) }
        """
    )
    assert result.definitions == (
        Definition("Store", "struct", "", 3, 5),
        Definition("Reader", "interface", "", 7, 9),
        Definition("Get", "method", "Reader", 8, 8),
        Definition("ID", "type", "", 12, 12),
        Definition("Alias", "type", "", 13, 13),
        Definition("Page", "struct", "", 14, 14),
        Definition("pageSize", "constant", "", 18, 18),
        Definition("minA", "constant", "", 19, 19),
        Definition("minB", "constant", "", 19, 19),
        Definition("New", "function", "", 22, 26),
        Definition("entry", "struct", "New", 23, 23),
        Definition("limit", "constant", "New", 24, 24),
        Definition("Get", "method", "Store", 28, 31),
        Definition("Len", "method", "Page", 33, 33),
    )
    assert result.language == "go"
    assert result.error == ""
    assert result.grpc == ()


def test_import_specs_one_each_with_aliases() -> None:
    result = facts(
        """
        package main

        import "fmt"

        import (
            "context"
            pb "github.com/acme/inventory/gen/inventory/v1"
            _ "embed"
            . "strings"
            raw `github.com/acme/raw`
        )
        """
    )
    assert result.imports == (
        Import("fmt", 3),
        Import("context", 6),
        Import("github.com/acme/inventory/gen/inventory/v1", 7, ("pb",)),
        Import("embed", 8, ("_",)),
        Import("strings", 9, (".",)),
        Import("github.com/acme/raw", 10, ("raw",)),
    )


def test_server_by_embedding_and_registration_with_handlers() -> None:
    result = facts(
        """
        package main

        import (
            "context"

            pb "github.com/acme/inventory/gen/inventory/v1"
            "google.golang.org/grpc"
        )

        type server struct {
            pb.UnimplementedInventoryServer
            store map[string]int
        }

        func (s *server) Reserve(ctx context.Context, req *pb.ReserveRequest) (*pb.ReserveResponse, error) {
            return &pb.ReserveResponse{}, nil
        }

        func (s server) ListStock(ctx context.Context, req *pb.ListStockRequest) (*pb.ListStockResponse, error) {
            return nil, nil
        }

        func (s *server) audit() {}

        func main() {
            s := grpc.NewServer()
            pb.RegisterInventoryServer(s, &server{})
        }
        """
    )
    assert result.grpc == (
        server("Inventory", 10, "server", "pb"),
        handler("Inventory", "Reserve", 15, "server.Reserve", "pb"),
        handler("Inventory", "ListStock", 19, "server.ListStock", "pb"),
        server("Inventory", 27, "main", "pb"),
    )


def test_implementing_type_from_the_registered_value() -> None:
    result = facts(
        """
        package main

        type ordersServer struct{ db *sql.DB }

        type paymentsServer struct{}

        type unsafeServer struct {
            pb.UnsafeRefundsServer
        }

        func newPayments() *paymentsServer { return &paymentsServer{} }

        func (o *ordersServer) GetOrder(ctx context.Context, r *pb.GetOrderRequest) (*pb.Order, error) {
            return nil, nil
        }

        func (p *paymentsServer) Charge(ctx context.Context, r *pb.ChargeRequest) (*pb.ChargeResponse, error) {
            return nil, nil
        }

        func (u unsafeServer) Refund(ctx context.Context, r *pb.RefundRequest) (*pb.RefundResponse, error) {
            return nil, nil
        }

        func main() {
            srv := &ordersServer{db: nil}
            pb.RegisterOrdersServer(s, srv)
            pb.RegisterPaymentsServer(s, newPayments())
            pb.RegisterRefundsServer(s, unsafeServer{})
            pb.RegisterHealthServer(s, health.NewServer())
        }
        """
    )
    assert result.grpc == (
        server("Orders", 3, "ordersServer", "pb"),
        server("Payments", 5, "paymentsServer", "pb"),
        server("Refunds", 7, "unsafeServer", "pb"),
        handler("Orders", "GetOrder", 13, "ordersServer.GetOrder", "pb"),
        handler("Payments", "Charge", 17, "paymentsServer.Charge", "pb"),
        handler("Refunds", "Refund", 21, "unsafeServer.Refund", "pb"),
        server("Orders", 27, "main", "pb"),
        server("Payments", 28, "main", "pb"),
        server("Refunds", 29, "main", "pb"),
        server("Health", 30, "main", "pb"),
    )


def test_clients_in_struct_fields_variables_parameters_and_package_vars() -> None:
    result = facts(
        """
        package inventory

        var defaultOrders = orderspb.NewOrdersClient(sharedConn)

        type Service struct {
            orders orderspb.OrdersClient
            pay    paypb.PaymentsClient
            names  []string
        }

        func New(conn *grpc.ClientConn) *Service {
            s := &Service{orders: orderspb.NewOrdersClient(conn)}
            s.pay = paypb.NewPaymentsClient(conn)
            return s
        }

        func (s *Service) Check(ctx context.Context, id string) error {
            _, err := s.orders.GetOrder(ctx, &orderspb.GetOrderRequest{Id: id})
            return err
        }

        func charge(ctx context.Context, svc *Service) {
            svc.pay.
                Charge(ctx, nil)
        }

        func watch(ctx context.Context, c orderspb.OrdersClient) {
            var typed orderspb.OrdersClient = c
            typed.WatchOrder(ctx, nil)
            c.CancelOrder(ctx, nil)
        }

        func fallback(ctx context.Context) {
            defaultOrders.PlaceOrder(ctx, nil)
            local := orderspb.NewOrdersClient(conn)
            alias := local
            alias.GetOrder(ctx, nil)
            var first, second = orderspb.NewOrdersClient(conn), paypb.NewPaymentsClient(conn)
            second.Refund(ctx, nil)
            _ = first
        }
        """
    )
    assert result.grpc == (
        client("Orders", 3, "", "orderspb"),
        client("Orders", 12, "New", "orderspb"),
        client("Payments", 13, "New", "paypb"),
        call("Orders", "GetOrder", 18, "Service.Check", "orderspb"),
        call("Payments", "Charge", 24, "charge", "paypb"),
        call("Orders", "WatchOrder", 29, "watch", "orderspb"),
        call("Orders", "CancelOrder", 30, "watch", "orderspb"),
        call("Orders", "PlaceOrder", 34, "fallback", "orderspb"),
        client("Orders", 35, "fallback", "orderspb"),
        call("Orders", "GetOrder", 37, "fallback", "orderspb"),
        client("Orders", 38, "fallback", "orderspb"),
        client("Payments", 38, "fallback", "paypb"),
        call("Payments", "Refund", 39, "fallback", "paypb"),
    )


def test_no_calls_on_other_things_named_the_same() -> None:
    result = facts(
        """
        package main

        var orders = pb.NewOrdersClient(conn)

        type server struct{ orders pb.OrdersClient }

        type audit struct{ orders Ledger }

        func (a *audit) Record(ctx context.Context) {
            a.orders.Append(ctx, "x")
        }

        func other(ctx context.Context) {
            orders := NewLedger()
            orders.Append(ctx, "y")
            client := &http.Client{}
            client.Do(nil)
            var rdb *redis.ClusterClient
            rdb.Get(ctx, "k")
            fmt.Println("done")
            es, _ := elastic.NewSimpleClient(elastic.SetURL(u), elastic.SetSniff(false))
            es.Search("orders")
            kms, _ := kmsapi.NewKeyManagementClient(ctx)
            kms.Close()
            prometheus.RegisterMetricsServer(reg)
        }

        func (s *server) Ping(ctx context.Context, req *pb.PingRequest) (*pb.PingReply, error) {
            s.orders.String()
            pb.RegisterOrdersServer(grpcServer, /* the one above */ s)
        }
        """
    )
    assert result.grpc == (
        client("Orders", 3, "", "pb"),
        server("Orders", 5, "server", "pb"),
        handler("Orders", "Ping", 28, "server.Ping", "pb"),
        server("Orders", 30, "server.Ping", "pb"),
    )


def test_a_file_without_grpc_words_has_no_grpc_facts() -> None:
    result = facts(
        """
        package util

        func Sum(xs []int) (total int) {
            for _, x := range xs {
                total += x
            }
            return
        }
        """
    )
    assert result.grpc == ()
    assert result.definitions == (Definition("Sum", "function", "", 3, 8),)


def test_syntax_error_keeps_what_was_recovered() -> None:
    result = facts(
        """
        package main

        import "fmt"

        func good() {}

        func broken( {
        }

        type T struct{}
        """
    )
    assert result.error == "syntax error at line 7"
    assert result.imports == (Import("fmt", 3),)
    assert Definition("good", "function", "", 5, 5) in result.definitions
    assert Definition("T", "struct", "", 10, 10) in result.definitions


def test_the_dispatcher_routes_go_here() -> None:
    assert extract("svc/main.go", b"package main\nfunc main() {}\n").definitions == (
        Definition("main", "function", "", 2, 2),
    )


def test_deep_nesting_and_junk_do_not_raise() -> None:
    deep = b"package p\nvar x = " + b"(" * 50_000 + b"1" + b")" * 50_000 + b"\n"
    assert not _go.extract(deep).error.startswith("extractor failed")
    blocks = b"package p\nfunc f() {\n" + b"{" * 5_000 + b"}" * 5_000 + b"\n}\n"
    assert _go.extract(blocks).definitions == (Definition("f", "function", "", 2, 4),)
    assert _go.extract(b"\xff\xfepackage \xc3\nfunc (\x00").error.startswith("syntax error")


_UNIT = """
// {T}Service serves {T} requests and keeps a small cache.
type {t}Server struct {{
	pb.Unimplemented{T}Server
	mu     sync.Mutex
	cache  map[string]*pb.{T}
	orders orderspb.OrdersClient
	log    *zap.Logger
}}

func new{T}Server(conn *grpc.ClientConn, log *zap.Logger) *{t}Server {{
	return &{t}Server{{cache: map[string]*pb.{T}{{}}, orders: orderspb.NewOrdersClient(conn), log: log}}
}}

func (s *{t}Server) Get{T}(ctx context.Context, req *pb.Get{T}Request) (*pb.{T}, error) {{
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.cache[req.GetId()]; ok {{
		return v, nil
	}}
	order, err := s.orders.GetOrder(ctx, &orderspb.GetOrderRequest{{Id: req.GetOrderId()}})
	if err != nil {{
		s.log.Error("get order", zap.Error(err))
		return nil, status.Errorf(codes.Internal, "order %s: %v", req.GetOrderId(), err)
	}}
	out := &pb.{T}{{Id: req.GetId(), Total: order.GetTotal()}}
	for i, item := range order.GetItems() {{
		if item.GetQuantity() <= 0 {{
			continue
		}}
		out.Lines = append(out.Lines, &pb.Line{{Index: int32(i), Sku: item.GetSku()}})
	}}
	s.cache[req.GetId()] = out
	return out, nil
}}

func (s *{t}Server) List{T}s(req *pb.List{T}sRequest, stream pb.{T}Service_List{T}sServer) error {{
	s.mu.Lock()
	items := make([]*pb.{T}, 0, len(s.cache))
	for _, v := range s.cache {{
		items = append(items, v)
	}}
	s.mu.Unlock()
	sort.Slice(items, func(i, j int) bool {{ return items[i].GetId() < items[j].GetId() }})
	for _, item := range items {{
		if err := stream.Send(item); err != nil {{
			return fmt.Errorf("send: %w", err)
		}}
	}}
	return nil
}}

func (s *{t}Server) evict(older time.Duration) int {{
	n := 0
	switch {{
	case older <= 0:
		return 0
	default:
		for k := range s.cache {{
			delete(s.cache, k)
			n++
		}}
	}}
	return n
}}
"""

_HEAD = """package service

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	orderspb "github.com/acme/orders/gen/orders/v1"
	pb "github.com/acme/service/gen/service/v1"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)
"""


def _sample(units: int) -> bytes:
    names = [f"Store{unit}" for unit in range(units)]
    body = "".join(_UNIT.format(T=name, t=name.lower()) for name in names)
    register = "".join(f"\tpb.Register{name}Server(s, new{name}Server(conn, log))\n" for name in names)
    return (
        _HEAD + body + "\nfunc Register(s *grpc.Server, conn *grpc.ClientConn, log *zap.Logger) {\n" + register + "}\n"
    ).encode()


def test_huge_error_nodes_are_not_queried() -> None:
    # A query over an ERROR node costs the square of its width: this would take minutes.
    start = time.process_time()
    assert _go.extract(b"{" * 200_000).error == "syntax error at line 1"
    assert time.process_time() - start < 20.0


def test_speed_on_a_realistic_file() -> None:
    source = _sample(31)
    assert source.count(b"\n") > 1990
    _go.extract(source)
    start = time.process_time()
    result = _go.extract(source)
    elapsed = time.process_time() - start
    assert result.error == ""
    assert len(result.definitions) == 31 * 5 + 1
    assert len(result.grpc) == 31 * 6
    assert elapsed < 2.0


@given(st.binary(max_size=400))
@example(b"package p\ntype s struct{ pb.UnimplementedXServer }\nfunc (s *s) \xffM() {}\n")
def test_arbitrary_bytes_never_raise(source: bytes) -> None:
    result = _go.extract(source)
    assert result.language == "go"
    assert not result.error.startswith("extractor failed")


@given(st.text(max_size=300))
def test_arbitrary_text_never_raises(source: str) -> None:
    assert not _go.extract(source.encode("utf-8", "surrogatepass")).error.startswith("extractor failed")


_PIECES = st.sampled_from(
    [
        "package p\n",
        "type s struct {\n",
        "pb.UnimplementedOrdersServer\n",
        "orders pb.OrdersClient\n",
        "}\n",
        "func (x *s) GetOrder(ctx context.Context) {\n",
        "x.orders.GetOrder(ctx, r)\n",
        "c := pb.NewOrdersClient(conn)\n",
        "c.M(ctx)\n",
        "pb.RegisterOrdersServer(g, &s{orders: c})\n",
        "var v pb.OrdersClient = c\n",
        "a, b := c, 1\n",
        "(",
        ")",
        "func newS() *s { return &s{} }\n",
    ]
)


@given(st.lists(_PIECES, max_size=30).map("".join))
def test_arbitrary_go_ish_text_never_raises(source: str) -> None:
    result = _go.extract(source.encode())
    assert not result.error.startswith("extractor failed")
    for fact in result.grpc:
        assert fact.service and fact.line >= 1
