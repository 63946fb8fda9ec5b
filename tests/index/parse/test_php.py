"""The PHP extractor: namespaces, classes, functions, use/require, and grpc evidence followed through the file."""

from __future__ import annotations

import textwrap

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import Definition, FileFacts, Import
from mesh.index.parse import _php, extract
from tests.support.facts import call, client, handler, server


def facts(source: str) -> FileFacts:
    return _php.extract(textwrap.dedent(source).lstrip("\n").encode())


def test_declarations_nest_in_namespaces_and_classes() -> None:
    result = facts(
        """
        <?php
        declare(strict_types=1);

        namespace Acme\\Billing;

        interface Payable
        {
            public function amount(): int;
        }

        trait Audited
        {
            protected function audit(string $event): void {}
        }

        enum State: string
        {
            case Open = 'open';

            public function label(): string
            {
                return ucfirst($this->value);
            }
        }

        final class Invoice implements Payable
        {
            use Audited;

            public function amount(): int
            {
                $total = fn(array $lines) => array_sum($lines);
                return $total([1, 2]);
            }
        }

        function format_amount(int $cents): string
        {
            return sprintf('%.2f', $cents / 100);
        }

        if (!function_exists('Acme\\Billing\\helper')) {
            function helper() {}
        }

        namespace Acme\\Tax;

        abstract class Rate {}
        """
    )
    assert result.definitions == (
        Definition("Acme.Billing", "module", "", 4, 44),
        Definition("Payable", "interface", "Acme.Billing", 6, 9),
        Definition("amount", "method", "Acme.Billing.Payable", 8, 8),
        Definition("Audited", "trait", "Acme.Billing", 11, 14),
        Definition("audit", "method", "Acme.Billing.Audited", 13, 13),
        Definition("State", "enum", "Acme.Billing", 16, 24),
        Definition("Open", "constant", "Acme.Billing.State", 18, 18),
        Definition("label", "method", "Acme.Billing.State", 20, 23),
        Definition("Invoice", "class", "Acme.Billing", 26, 35),
        Definition("amount", "method", "Acme.Billing.Invoice", 30, 34),
        Definition("format_amount", "function", "Acme.Billing", 37, 40),
        Definition("helper", "function", "Acme.Billing", 43, 43),
        Definition("Acme.Tax", "module", "", 46, 48),
        Definition("Rate", "class", "Acme.Tax", 48, 48),
    )
    assert result.imports == ()
    assert result.grpc == ()
    assert result.error == ""
    assert result.language == "php"


def test_braced_namespaces_and_global_code() -> None:
    result = facts(
        """
        <?php
        namespace Legacy\\Reports {
            use Acme\\Orders\\OrdersClient;

            class Report {}
        }

        namespace {
            function main() {}
        }
        """
    )
    assert result.definitions == (
        Definition("Legacy.Reports", "module", "", 2, 6),
        Definition("Report", "class", "Legacy.Reports", 5, 5),
        Definition("main", "function", "", 9, 9),
    )
    assert result.imports == (Import("Acme\\Orders\\OrdersClient", 3),)


def test_use_and_require_include() -> None:
    result = facts(
        """
        <?php
        namespace App;

        use Acme\\Orders\\OrdersClient;
        use Acme\\Orders\\{GetOrderRequest, Sub\\Item as LineItem};
        use function Acme\\Support\\retry;
        use const Acme\\Support\\TIMEOUT;
        use Monolog\\Logger, Psr\\Log\\LoggerInterface;

        require_once __DIR__ . '/../vendor/autoload.php';
        require 'config.php';
        include_once("helpers/strings.php");
        include "templates/$name.php";

        function boot(): void
        {
            require_once 'bootstrap/app.php';
            $config = require 'config/app.php';
        }

        return require 'routes.php';
        """
    )
    assert result.imports == (
        Import("Acme\\Orders\\OrdersClient", 4),
        Import("Acme\\Orders", 5, ("GetOrderRequest", "Sub\\Item")),
        Import("Acme\\Support\\retry", 6),
        Import("Acme\\Support\\TIMEOUT", 7),
        Import("Monolog\\Logger", 8),
        Import("Psr\\Log\\LoggerInterface", 8),
        Import("config.php", 11),
        Import("helpers/strings.php", 12),
        Import("bootstrap/app.php", 17),
        Import("config/app.php", 18),
        Import("routes.php", 21),
    )


def test_clients_followed_through_variables_properties_and_parameters() -> None:
    result = facts(
        """
        <?php
        namespace App\\Checkout;

        use Acme\\Orders\\OrdersClient;
        use Acme\\Orders\\GetOrderRequest;
        use Grpc\\ChannelCredentials;

        final class Checkout
        {
            private OrdersClient $orders;

            public function __construct(string $host, private \\Acme\\Billing\\PaymentsClient $payments)
            {
                $this->orders = new OrdersClient($host, [
                    'credentials' => ChannelCredentials::createInsecure(),
                ]);
            }

            public function fetch(int $id): Order
            {
                [$reply, $status] = $this->orders->GetOrder(new GetOrderRequest(['id' => $id]))->wait();
                $this->payments
                    ->Charge($reply)
                    ->wait();
                $this->orders->close();
                return $reply;
            }
        }

        function watch(OrdersClient $client, int $id): void
        {
            $call = $client->WatchOrder(new GetOrderRequest(['id' => $id]));
            foreach ($call->responses() as $event) {
                echo $event->getState();
            }
        }

        $client = new \\Acme\\Inventory\\InventoryClient('localhost:50051', ['credentials' => null]);
        $client->Reserve($req)->wait();
        $client = new ArrayObject([]);
        $client->count();
        """
    )
    assert result.grpc == (
        client("Orders", 14, "App.Checkout.Checkout.__construct", "Acme\\Orders"),
        call("Orders", "GetOrder", 21, "App.Checkout.Checkout.fetch", "Acme\\Orders"),
        call("Payments", "Charge", 23, "App.Checkout.Checkout.fetch", "Acme\\Billing"),
        call("Orders", "WatchOrder", 32, "App.Checkout.watch", "Acme\\Orders"),
        client("Inventory", 38, "", "Acme\\Inventory"),
        call("Inventory", "Reserve", 39, "", "Acme\\Inventory"),
    )


def test_in_file_base_stub_aliases_accessors_and_credentials() -> None:
    result = facts(
        """
        <?php
        namespace Acme\\Orders;

        use Acme\\Billing\\PaymentsClient as Payments;

        class OrdersClient extends \\Grpc\\BaseStub
        {
            public function GetOrder($argument, $metadata = [], $options = [])
            {
                return $this->_simpleRequest('/acme.orders.Orders/GetOrder', $argument, ['\\Acme\\Orders\\Order', 'decode'], $metadata, $options);
            }
        }

        class Service
        {
            private ?OrdersClient $client = null;

            private function client(): OrdersClient
            {
                return $this->client ??= new OrdersClient(getenv('ORDERS_ADDR'), []);
            }

            public function run(): void
            {
                $this->client()->GetOrder($req)->wait();
                $payments = new Payments('billing:50051', ['credentials' => null]);
                $payments->Refund($r)->wait();
                $ledger = new LedgerClient('ledger:50051', ['credentials' => \\Grpc\\ChannelCredentials::createInsecure()]);
                $ledger->Post($entry)->wait();
            }
        }
        """
    )
    assert result.grpc == (
        client("Orders", 20, "Acme.Orders.Service.client", "Acme\\Orders"),
        call("Orders", "GetOrder", 25, "Acme.Orders.Service.run", "Acme\\Orders"),
        client("Payments", 26, "Acme.Orders.Service.run", "Acme\\Billing"),
        call("Payments", "Refund", 27, "Acme.Orders.Service.run", "Acme\\Billing"),
        client("Ledger", 28, "Acme.Orders.Service.run", "Acme\\Orders"),
        call("Ledger", "Post", 29, "Acme.Orders.Service.run", "Acme\\Orders"),
    )


def test_clients_passed_to_functions_and_methods_of_the_file() -> None:
    result = facts(
        """
        <?php
        require dirname(__FILE__) . '/vendor/autoload.php';

        function runGetFeature($client, $point)
        {
            list($feature, $status) = $client->GetFeature($point)->wait();
            return $feature;
        }

        function runRouteChat($other, $client)
        {
            $call = $client->RouteChat();
            $other->count();
        }

        class Runner
        {
            public function run(string $host): void
            {
                $stub = new \\Routeguide\\RouteGuideClient($host, []);
                $this->record(stub: $stub);
            }

            private function record($stub): void
            {
                $stub->RecordRoute()->wait();
            }
        }

        $client = new Routeguide\\RouteGuideClient($hostname, [
            'credentials' => Grpc\\ChannelCredentials::createInsecure(),
        ]);
        runGetFeature($client, $point);
        runRouteChat(new ArrayObject(), $client);
        (new Runner())->run($client);
        """
    )
    assert result.grpc == (
        call("RouteGuide", "GetFeature", 6, "runGetFeature", "Routeguide"),
        call("RouteGuide", "RouteChat", 12, "runRouteChat", "Routeguide"),
        client("RouteGuide", 20, "Runner.run", "Routeguide"),
        call("RouteGuide", "RecordRoute", 26, "Runner.record", "Routeguide"),
        client("RouteGuide", 30, "", "Routeguide"),
    )


def test_roadrunner_service_implementing_generated_interface() -> None:
    result = facts(
        """
        <?php
        declare(strict_types=1);

        namespace App\\Grpc;

        use Acme\\Orders\\OrdersInterface;
        use Acme\\Orders\\GetOrderRequest;
        use Acme\\Orders\\Order;
        use Psr\\Log\\LoggerInterface;
        use Spiral\\RoadRunner\\GRPC;

        class OrdersService implements OrdersInterface
        {
            public function __construct(private LoggerInterface $logger) {}

            public function GetOrder(GRPC\\ContextInterface $ctx, GetOrderRequest $in): Order
            {
                return new Order(['id' => $in->getId()]);
            }

            function ListOrders(GRPC\\ContextInterface $ctx, ListRequest $in): OrderList
            {
                return new OrderList();
            }

            private function load(int $id): ?Order
            {
                return null;
            }

            public static function create(): self
            {
                return new self(new NullLogger());
            }
        }

        class Quiet implements LoggerInterface, \\Countable, \\Acme\\Billing\\PaymentsInterface
        {
            public function log($level, $message, array $context = []): void {}
            public function Charge(GRPC\\ContextInterface $ctx, ChargeRequest $in): Receipt {}
        }
        """
    )
    assert result.grpc == (
        server("Orders", 12, "App.Grpc.OrdersService", "Acme\\Orders"),
        handler("Orders", "GetOrder", 16, "App.Grpc.OrdersService.GetOrder", "Acme\\Orders"),
        handler("Orders", "ListOrders", 21, "App.Grpc.OrdersService.ListOrders", "Acme\\Orders"),
        server("Payments", 37, "App.Grpc.Quiet", "Acme\\Billing"),
        handler("Payments", "log", 39, "App.Grpc.Quiet.log", "Acme\\Billing"),
        handler("Payments", "Charge", 40, "App.Grpc.Quiet.Charge", "Acme\\Billing"),
    )


def test_no_grpc_facts_for_look_alikes() -> None:
    result = facts(
        """
        <?php
        namespace App;

        use Aws\\S3\\S3Client;
        use GuzzleHttp\\Client;
        use Psr\\Log\\LoggerInterface;

        class Uploader implements LoggerInterface
        {
            public function __construct(private S3Client $s3, private HttpClient $http) {}

            public function log($level, $message, array $context = []): void {}

            public function upload(): void
            {
                $this->s3->putObject(['Bucket' => 'b']);
                $guzzle = new Client(['base_uri' => 'https://x']);
                $guzzle->get('/');
                $soap = new \\SoapClient($wsdl, []);
                $soap->Call();
                $local = new OrdersClient($host, []);
                $local->GetOrder($req);
                $map = new \\ArrayObject();
                $map->offsetGet('x');
            }
        }
        """
    )
    assert result.grpc == ()


def test_syntax_error_keeps_what_was_read() -> None:
    result = facts(
        """
        <?php
        use Acme\\Util;

        class Good {}

        function broken( {
        }

        function after() {}
        """
    )
    assert result.error.startswith("syntax error at line ")
    assert result.imports == (Import("Acme\\Util", 2),)
    assert Definition("Good", "class", "", 4, 4) in result.definitions


def test_dispatch_by_suffix() -> None:
    assert extract("src/x.php", b"<?php function f() {}\n").definitions == (Definition("f", "function", "", 1, 1),)


_TOKENS = ["<?php", "namespace", "use", "class", "function", "new", "implements", "extends", "{", "}", "(", ")"]
_TOKENS += [";", "$c", "$this", "->", "=", "??=", "\\", "A", "AClient", "AInterface", "return", "'x'", "[", "]", "\n"]


@given(st.binary(max_size=400))
@example(b"\xff\xfe\x00<?php class \x80{")
@example(b"<?php " + b"namespace A { " * 2000)
@example(b"<?php " + b"if (1) { " * 2000)
@example(b"<?php use A\\BClient; class X { function f() { $c = new BClient('h', []); $c->" * 40)
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    assert _php.extract(data).language == "php"


@given(st.lists(st.sampled_from(_TOKENS), max_size=120).map(" ".join) | st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    assert _php.extract(text.encode()).language == "php"


def sample(units: int = 34) -> bytes:
    """A realistic ~2,000-line PHP gRPC application (used for the speed measurement too)."""
    parts = ["<?php\ndeclare(strict_types=1);\n\nnamespace App\\Orders;\n\n"]
    parts.append("use Acme\\Orders\\OrdersClient;\nuse Acme\\Orders\\OrdersInterface;\nuse Spiral\\RoadRunner\\GRPC;\n")
    parts.append("use Grpc\\ChannelCredentials;\nuse Psr\\Log\\LoggerInterface;\n\nrequire_once 'bootstrap.php';\n")
    for i in range(units):
        parts.append(
            f"""
/**
 * Serves and forwards the orders of shard {i}.
 */
final class OrdersService{i} implements OrdersInterface
{{
    private OrdersClient $peer;

    public function __construct(private LoggerInterface $logger, private Repository{i} $repo)
    {{
        $this->peer = new OrdersClient(getenv('PEER_{i}'), [
            'credentials' => ChannelCredentials::createInsecure(),
        ]);
    }}

    public function GetOrder(GRPC\\ContextInterface $ctx, GetOrderRequest $in): Order
    {{
        $order = $this->repo->find($in->getId());
        if ($order === null) {{
            [$reply, $status] = $this->peer->GetOrder($in)->wait();
            if ($status->code !== \\Grpc\\STATUS_OK) {{
                throw new GRPC\\Exception\\NotFoundException("order {{$in->getId()}}");
            }}
            return $reply;
        }}
        return $order->toProto();
    }}

    public function PlaceOrder(GRPC\\ContextInterface $ctx, PlaceOrderRequest $in): Order
    {{
        $total = 0;
        foreach ($in->getLines() as $line) {{
            $total += $line->getQuantity() * $line->getPrice();
        }}
        $this->logger->info('placed', ['total' => $total]);
        return $this->repo->create($in->getId(), $total)->toProto();
    }}

    private function audit(string $event): void
    {{
        $this->logger->debug($event);
    }}
}}

final class Repository{i}
{{
    /** @var array<int, OrderRecord> */
    private array $orders = [];

    public function find(int $id): ?OrderRecord
    {{
        return $this->orders[$id] ?? null;
    }}

    public function create(int $id, int $total): OrderRecord
    {{
        return $this->orders[$id] = new OrderRecord($id, $total, 'open');
    }}
}}
"""
        )
    return "".join(parts).encode()


def test_realistic_sample() -> None:
    source = sample()
    assert source.count(b"\n") > 1900
    result = _php.extract(source)
    assert result.error == ""
    assert len(result.definitions) == 1 + 34 * 8
    assert len(result.imports) == 6
    roles = [f.role for f in result.grpc]
    counts = (roles.count("server"), roles.count("handler"), roles.count("client"), roles.count("call"))
    assert counts == (34, 68, 34, 34)
