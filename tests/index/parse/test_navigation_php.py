"""Code navigation facts of PHP: signatures, doc lines and references (queries/php/references.scm)."""

from __future__ import annotations

import textwrap
import time

from mesh.index import Reference
from mesh.index.parse import extract


def _facts(source: str):
    return extract("app/Http/OrderController.php", ("<?php\n" + textwrap.dedent(source)).encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def test_signature_is_the_declaration_up_to_its_body_on_one_line() -> None:
    facts = _facts(
        """
        namespace App\\Http\\Controllers;

        #[Route('/orders', methods: ['GET'])]
        final class OrderController extends Controller implements HasOrders, \\Countable
        {
            public function __construct(private readonly OrderService $service) {}

            public static function show(int $id,
                                        Request|Other $request): ?Order
            {
                return null;
            }

            abstract protected function find(array $ids): array;
        }

        interface HasOrders extends \\Countable { public function orders(): iterable; }
        enum Suit: string { case Hearts = 'H'; }
        function helper(): void {}
        """
    )
    signatures = {d.name: d.signature for d in facts.definitions}
    assert signatures == {
        "App.Http.Controllers": "namespace App\\Http\\Controllers",
        "OrderController": "final class OrderController extends Controller implements HasOrders, \\Countable",
        "__construct": "public function __construct(private readonly OrderService $service)",
        "show": "public static function show(int $id, Request|Other $request): ?Order",
        "find": "abstract protected function find(array $ids): array",
        "HasOrders": "interface HasOrders extends \\Countable",
        "orders": "public function orders(): iterable",
        "Suit": "enum Suit: string",
        "Hearts": "case Hearts = 'H'",
        "helper": "function helper(): void",
    }


def test_doc_line_is_the_first_line_of_the_comment_right_above() -> None:
    facts = _facts(
        """
        /**
         * Places orders.
         *
         * @package App
         */
        #[AsService]
        class OrderService
        {
            // Creates one.
            public function create(array $data): Order
            {
                return Order::create($data);
            }

            private $x = 1; // not a doc
            public function count(): int { return 0; }

            /** Finds one. */
            public function find(int $id): ?Order { return null; }

            # Hash doc.
            public function hash() {}

            /**
             * @param int $id
             * Deletes.
             */
            #[Deprecated]
            public function delete(int $id): void {}

            public function plain() {}
        }
        """
    )
    docs = {d.name: d.doc for d in facts.definitions}
    assert docs == {
        "OrderService": "Places orders.",
        "create": "Creates one.",
        "count": "",
        "find": "Finds one.",
        "hash": "Hash doc.",
        "delete": "Deletes.",
        "plain": "",
    }


def test_references_calls_instantiations_types_and_values_with_their_qualifier() -> None:
    refs = _refs(
        """
        namespace App\\Http;

        #[Route('/orders')]
        class OrderController extends Base\\Controller implements HasOrders, \\Countable
        {
            use Auditable;

            public function store(StoreOrder $request, Mailer|Logger $out): ?Order
            {
                $order = new Order($request->validated());
                $this->audit($order)->flush();
                $order?->total();
                Order::query();
                parent::boot();
                static::make();
                self::LIMIT;
                Status::PAID;
                \\App\\Support\\helper($order);
                helper(name: 1);
                $order instanceof Paid;
                $c = Config::class;
                try { charge(); } catch (NotFound|\\App\\Errors\\Declined $e) { throw new \\RuntimeException('x'); }
                echo PHP_EOL, \\App\\MAX;
                return array_map(fn(Line $l): int => $l->Amount, []);
            }
        }
        """
    )
    assert refs >= {
        ("Route", 5, "type", ""),
        ("Controller", 6, "type", "Base"),
        ("HasOrders", 6, "type", ""),
        ("Countable", 6, "type", ""),
        ("Auditable", 8, "type", ""),
        ("StoreOrder", 10, "type", ""),
        ("Mailer", 10, "type", ""),
        ("Logger", 10, "type", ""),
        ("Order", 10, "type", ""),
        ("Order", 12, "new", ""),
        ("validated", 12, "call", "$request"),
        ("audit", 13, "call", "$this"),
        ("flush", 13, "call", "~"),
        ("total", 14, "call", "$order"),
        ("Order", 15, "use", ""),
        ("query", 15, "call", "Order"),
        ("boot", 16, "call", "parent"),
        ("make", 17, "call", "static"),
        ("LIMIT", 18, "use", "self"),
        ("Status", 19, "use", ""),
        ("PAID", 19, "use", "Status"),
        ("helper", 20, "call", "App.Support"),
        ("helper", 21, "call", ""),
        ("Paid", 22, "type", ""),
        ("Config", 23, "use", ""),
        ("charge", 24, "call", ""),
        ("NotFound", 24, "type", ""),
        ("Declined", 24, "type", "App.Errors"),
        ("RuntimeException", 24, "new", ""),
        ("PHP_EOL", 25, "use", ""),
        ("MAX", 25, "use", "App"),
        ("array_map", 26, "call", ""),
        ("Line", 26, "type", ""),
        ("Amount", 26, "use", "$l"),
    }
    assert ("class", 23) not in {(name, line) for name, line, *_ in refs}


def test_uses_say_what_they_bind_and_calls_their_arity() -> None:
    facts = _facts(
        """
        function f(OrderService $service, ...$rest) {
            $repo = new OrderRepo($a, $b);
            $service->place(...$rest);
        }
        """
    )
    assert facts.references == (
        Reference("OrderService", 3, "type", "", "$service", -1),
        Reference("OrderRepo", 4, "new", "", "$repo", 2),
        Reference("place", 5, "call", "$service", "", -1),
    )


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        declare(strict_types=1);
        namespace App\\Models;
        use Illuminate\\Database\\Eloquent\\Model;
        use App\\Models\\{Order, User as Buyer};
        use function App\\Support\\helper;
        const MAX = 1;
        class Invoice extends Model
        {
            public const LIMIT = 10;
            private $Total;
            public function Place($Order, int ...$Rest) { goto End; End: return; }
        }
        enum Suit { case Hearts; }
        interface Payable {}
        trait Billable {}
        function Helper() {}
        """
    )
    assert refs == {("Model", 9, "type", "")}  # the one use here


def test_a_broken_or_absurdly_deep_file_keeps_its_facts_and_answers_at_once() -> None:
    chain = "$x = (new Builder())" + "->with(1)" * 5_000 + "->get();\n"
    shallow = "<?php $x = (new Builder())" + "->with(1)" * 20 + "->get();\n"
    start = time.process_time()
    deep = _facts("class Deep {\n  function run() {\n    " + chain + "  }\n}\n")
    broken = extract("b.php", b"<?php class Broken { function run( " + b"[(" * 5_000 + b"\n}\n")
    assert time.process_time() - start < 5.0
    assert [d.name for d in deep.definitions] == ["Deep", "run"] and deep.references == ()
    assert broken.error and broken.references == ()
    assert ("get", "~") in {(r.name, r.qualifier) for r in extract("c.php", shallow.encode()).references}


def test_code_inside_a_braced_namespace_has_its_references() -> None:
    refs = _refs(
        """
        namespace App\\Billing {
            use App\\Models\\Order;
            class Invoice extends Document { function f() { return new Order(); } }
        }
        """
    )
    assert refs == {("Document", 5, "type", ""), ("Order", 5, "new", "")}


def test_class_constants_enum_cases_and_global_constants_are_definitions() -> None:
    facts = _facts(
        """
        const VERSION = '1.0';
        enum Status: string
        {
            /** Paid in full. */
            case Paid = 'paid';
        }
        class Pricing
        {
            public const TAX_RATE = 0.2, MAX_ITEMS = 50;
        }
        """
    )
    constants = [(d.name, d.container, d.line, d.signature, d.doc) for d in facts.definitions if d.kind == "constant"]
    assert constants == [
        ("VERSION", "", 3, "const VERSION = '1.0'", ""),
        ("Paid", "Status", 7, "case Paid = 'paid'", "Paid in full."),
        ("TAX_RATE", "Pricing", 11, "public const TAX_RATE = 0.2, MAX_ITEMS = 50", ""),
        ("MAX_ITEMS", "Pricing", 11, "public const TAX_RATE = 0.2, MAX_ITEMS = 50", ""),
    ]


def test_typed_properties_promoted_parameters_and_caught_exceptions_bind() -> None:
    facts = _facts(
        """
        class Checkout {
            private OrderRepo $repo;
            protected ?\\App\\Db $db = null, $other;
            public function __construct(private readonly Mailer $mailer, ?Clock $clock = null) {}
            public function run(): void {
                try { $this->repo->find(1); }
                catch (NotFound $e) { $e->report(); }
                catch (Timeout | Denied $either) {}
            }
        }
        """
    )
    bound = {(r.name, r.binds) for r in facts.references if r.binds}
    assert bound == {("OrderRepo", "repo"), ("Db", "db"), ("Mailer", "mailer"), ("Clock", "$clock"), ("NotFound", "$e")}
    assert Reference("find", 8, "call", "$this.repo", "", 1) in facts.references
