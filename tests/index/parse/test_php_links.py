"""PHP links: Laravel/Lumen/Slim/Symfony routes, Guzzle/Symfony HttpClient/Laravel Http/curl/file_get_contents
calls, php-amqplib/rdkafka/Redis/Laravel queue/SQS messages and link constants, each read from realistic
code (and look-alikes that are none)."""

from __future__ import annotations

import textwrap

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Constant, FileFacts, HttpRoute
from mesh.index.parse import _php


def facts(source: str) -> FileFacts:
    return _php.extract(textwrap.dedent(source).lstrip("\n").encode())


def routes(source: str) -> list[tuple[str, str, str]]:
    return [(r.method, r.path, r.handler) for r in facts(source).http_routes]


def calls(source: str) -> list[tuple[str, str, str, str, str, bool]]:
    return [(c.method, c.path, c.host, c.address, c.client, c.computed) for c in facts(source).http_calls]


def messages(source: str) -> list[tuple[str, str, str, str, str]]:
    return [(m.role, m.broker, m.name, m.kind, m.address) for m in facts(source).messages]


# -- Laravel and Lumen -----------------------------------------------------------------------------------

LARAVEL = """
<?php

use App\\Http\\Controllers\\PhotoController;
use App\\Http\\Controllers\\UserController;
use Illuminate\\Support\\Facades\\Route;

Route::get('/', function () {
    return view('welcome');
});
Route::get('/users/{id}', [UserController::class, 'show'])->name('users.show');
Route::post('/users', 'UserController@store');
Route::match(['get', 'post'], '/search', [SearchController::class, 'run']);
Route::any('/ping', fn () => 'pong');
Route::view('/about', 'about');

Route::prefix('api')->middleware('auth:sanctum')->group(function () {
    Route::get('/orders/{order?}', [OrderController::class, 'show']);
    Route::prefix('v1')->group(function () {
        Route::apiResource('photos', PhotoController::class)->only(['index', 'show']);
    });
    Route::controller(InvoiceController::class)->group(function () {
        Route::get('/invoices', 'index');
    });
});

Route::group(['prefix' => 'admin', 'middleware' => 'auth'], function () {
    Route::resource('photos.comments', CommentController::class)->except(['create', 'edit']);
});

Route::middleware('api')->prefix('api')->group(base_path('routes/api.php'));
"""


def test_laravel_routes_with_groups_and_resources() -> None:
    result = facts(LARAVEL)
    assert [(r.method, r.path, r.handler, r.line) for r in result.http_routes] == [
        ("GET", "/", "", 7),
        ("GET", "/users/{id}", "UserController@show", 10),
        ("POST", "/users", "UserController@store", 11),
        ("GET", "/search", "SearchController@run", 12),
        ("POST", "/search", "SearchController@run", 12),
        ("*", "/ping", "", 13),
        ("GET", "/about", "", 14),
        ("GET", "/api/orders/{order}", "OrderController@show", 17),
        ("GET", "/api/v1/photos", "PhotoController@index", 19),
        ("GET", "/api/v1/photos/{photo}", "PhotoController@show", 19),
        ("GET", "/api/invoices", "InvoiceController@index", 22),
        ("GET", "/admin/photos/{photo}/comments", "CommentController@index", 27),
        ("POST", "/admin/photos/{photo}/comments", "CommentController@store", 27),
        ("GET", "/admin/photos/{photo}/comments/{comment}", "CommentController@show", 27),
        ("PUT", "/admin/photos/{photo}/comments/{comment}", "CommentController@update", 27),
        ("PATCH", "/admin/photos/{photo}/comments/{comment}", "CommentController@update", 27),
        ("DELETE", "/admin/photos/{photo}/comments/{comment}", "CommentController@destroy", 27),
        ("*", "/api", "", 30),
    ]
    assert result.http_routes[-1] == HttpRoute("*", "/api", 30, "", "", "laravel", "routes/api.php")
    assert {r.framework for r in result.http_routes} == {"laravel"}


def test_laravel_resource_gives_the_seven_actions() -> None:
    source = """
    <?php
    Route::resource('orders', OrderController::class);
    """
    assert routes(source) == [
        ("GET", "/orders", "OrderController@index"),
        ("GET", "/orders/create", "OrderController@create"),
        ("POST", "/orders", "OrderController@store"),
        ("GET", "/orders/{order}", "OrderController@show"),
        ("GET", "/orders/{order}/edit", "OrderController@edit"),
        ("PUT", "/orders/{order}", "OrderController@update"),
        ("PATCH", "/orders/{order}", "OrderController@update"),
        ("DELETE", "/orders/{order}", "OrderController@destroy"),
    ]


def test_laravel_chained_registrations() -> None:
    source = """
    <?php
    Route::middleware(['auth:sanctum'])->get('/user', function (Request $request) {
        return $request->user();
    });
    Route::prefix('reports')->get('/daily', [ReportController::class, 'daily']);
    Route::apiResource('songs', SongController::class)
        ->except('update', 'destroy')
        ->where(['song' => Uuid::REGEX]);
    Route::apiResources([
        'products' => ProductController::class,
    ]);
    """
    assert [(r.method, r.path, r.handler, r.line) for r in facts(source).http_routes] == [
        ("GET", "/user", "", 2),
        ("GET", "/reports/daily", "ReportController@daily", 5),
        ("GET", "/songs", "SongController@index", 6),
        ("POST", "/songs", "SongController@store", 6),
        ("GET", "/songs/{song}", "SongController@show", 6),
        ("GET", "/products", "ProductController@index", 10),
        ("POST", "/products", "ProductController@store", 10),
        ("GET", "/products/{product}", "ProductController@show", 10),
        ("PUT", "/products/{product}", "ProductController@update", 10),
        ("PATCH", "/products/{product}", "ProductController@update", 10),
        ("DELETE", "/products/{product}", "ProductController@destroy", 10),
    ]


def test_laravel_11_api_routes_are_a_mount() -> None:
    source = """
    <?php
    return Application::configure(basePath: dirname(__DIR__))
        ->withRouting(
            web: __DIR__.'/../routes/web.php',
            api: __DIR__.'/../routes/api.php',
        )
        ->create();
    """
    assert facts(source).http_routes == (HttpRoute("*", "/api", 5, "", "", "laravel", "../routes/api.php"),)


def test_lumen_routes() -> None:
    source = """
    <?php
    /** @var \\Laravel\\Lumen\\Routing\\Router $router */
    $router->get('/', function () use ($router) {
        return $router->app->version();
    });
    $router->group(['prefix' => 'api/v1', 'middleware' => 'auth'], function () use ($router) {
        $router->get('users', 'UserController@index');
        $router->post('users/{id}', ['uses' => 'UserController@update']);
    });
    """
    assert [(r.method, r.path, r.handler, r.framework) for r in facts(source).http_routes] == [
        ("GET", "/", "", "lumen"),
        ("GET", "/api/v1/users", "UserController@index", "lumen"),
        ("POST", "/api/v1/users/{id}", "UserController@update", "lumen"),
    ]


def test_slim_routes_with_groups() -> None:
    source = """
    <?php
    use Slim\\Factory\\AppFactory;
    use Slim\\Routing\\RouteCollectorProxy;

    $app = AppFactory::create();
    $app->get('/hello/{name}', function ($request, $response, array $args) { return $response; });
    $app->post('/orders', \\App\\Action\\CreateOrder::class);
    $app->map(['GET', 'POST'], '/books', 'BookController:handle');
    $app->group('/api', function (RouteCollectorProxy $group) {
        $group->get('/users/{id:[0-9]+}', [UserController::class, 'show']);
        $group->group('/v2', function (RouteCollectorProxy $g) {
            $g->delete('/users/{id}', UserAction::class . ':delete');
        });
    });
    $request->get('x', 'y');
    $settings->get('app.name', 'Laravel');
    $container->get('settings');
    $cache->get('/users', []);
    $cache->get('/users', 'default');
    $config->get('/x', [$a, $b]);
    """
    assert [(r.method, r.path, r.handler, r.framework) for r in facts(source).http_routes] == [
        ("GET", "/hello/{name}", "", "slim"),
        ("POST", "/orders", "CreateOrder", "slim"),
        ("GET", "/books", "BookController:handle", "slim"),
        ("POST", "/books", "BookController:handle", "slim"),
        ("GET", "/api/users/{id}", "UserController@show", "slim"),
        ("DELETE", "/api/v2/users/{id}", "UserAction:delete", "slim"),
    ]


def test_registration_lookalikes_without_a_router_are_none() -> None:
    source = """
    <?php
    $response = $client->get('/users', ['query' => ['a' => 1]]);
    $value = $request->get('page', 1);
    $map->post('/x', function () {});
    Route::get('/real', [HomeController::class, 'show']);
    """
    assert routes(source) == [("GET", "/real", "HomeController@show")]


# -- Symfony ---------------------------------------------------------------------------------------------

SYMFONY = """
<?php
namespace App\\Controller;

use Symfony\\Component\\Routing\\Attribute\\Route;
use Symfony\\Contracts\\HttpClient\\HttpClientInterface;
use Symfony\\Component\\DependencyInjection\\Attribute\\Autowire;

#[Route('/api/orders', name: 'orders_')]
class OrderController extends AbstractController
{
    public const ORDERS_ENDPOINT = '/orders';

    public function __construct(
        private HttpClientInterface $client,
        #[Autowire(env: 'PAYMENTS_URL')] private string $paymentsUrl,
    ) {}

    #[Route('', name: 'list', methods: ['GET'])]
    public function list(): Response
    {
        $response = $this->client->request('GET', $this->paymentsUrl . '/payments');
        return $this->json([]);
    }

    #[Route('/{id}', name: 'show', methods: ['GET', 'HEAD'])]
    public function show(int $id): Response
    {
        $this->client->request('POST', sprintf('%s/charges/%d', $this->paymentsUrl, $id));
        return $this->json([]);
    }

    /**
     * @Route("/legacy/{id}", name="legacy", methods={"PUT"})
     */
    public function legacy(): Response {}

    public function helper() {}
}
"""


def test_symfony_attributes_annotations_and_http_client() -> None:
    result = facts(SYMFONY)
    assert [(r.method, r.path, r.handler, r.line, r.symbol) for r in result.http_routes] == [
        ("GET", "/api/orders", "OrderController::list", 18, "App.Controller.OrderController.list"),
        ("GET", "/api/orders/{id}", "OrderController::show", 25, "App.Controller.OrderController.show"),
        ("HEAD", "/api/orders/{id}", "OrderController::show", 25, "App.Controller.OrderController.show"),
        ("PUT", "/api/orders/legacy/{id}", "OrderController::legacy", 32, "App.Controller.OrderController.legacy"),
    ]
    assert {r.framework for r in result.http_routes} == {"symfony"}
    assert calls(SYMFONY) == [
        ("GET", "/payments", "", "env:PAYMENTS_URL", "symfony/http-client", False),
        ("POST", "/charges/{id}", "", "env:PAYMENTS_URL", "symfony/http-client", False),
    ]
    assert result.constants == (Constant("OrderController.ORDERS_ENDPOINT", "/orders", 11),)


def test_an_invokable_controller_takes_the_class_route() -> None:
    source = """
    <?php
    use Symfony\\Component\\Routing\\Attribute\\Route;

    #[Route('/health', name: 'health', methods: 'GET')]
    final class HealthController
    {
        public function __invoke(): Response { return new Response('ok'); }
    }
    """
    assert routes(source) == [("GET", "/health", "HealthController::__invoke")]


def test_route_attribute_packages_with_a_prefix() -> None:
    source = """
    <?php
    use Spatie\\RouteAttributes\\Attributes\\Get;
    use Spatie\\RouteAttributes\\Attributes\\Post;
    use Spatie\\RouteAttributes\\Attributes\\Prefix;

    #[Prefix('billing')]
    class InvoiceController
    {
        #[Get('invoices')]
        public function index() {}

        #[Post('invoices/{invoice}/pay')]
        public function pay() {}
    }
    """
    assert routes(source) == [
        ("GET", "/billing/invoices", "InvoiceController::index"),
        ("POST", "/billing/invoices/{invoice}/pay", "InvoiceController::pay"),
    ]
    assert {r.framework for r in facts(source).http_routes} == {"laravel"}


def test_openapi_attributes_document_routes_and_declare_none() -> None:
    source = """
    <?php
    use OpenApi\\Attributes as OA;
    use Symfony\\Component\\Routing\\Attribute\\Route;

    class UserController
    {
        #[OA\\Get(path: '/api/users', summary: 'List users')]
        #[Route('/api/users', methods: ['GET'])]
        public function list() {}

        /**
         * @OA\\Post(path="/api/users")
         */
        public function create() {}
    }
    """
    assert routes(source) == [("GET", "/api/users", "UserController::list")]


# -- HTTP clients ----------------------------------------------------------------------------------------


def test_guzzle_and_laravel_http() -> None:
    source = """
    <?php
    use GuzzleHttp\\Client;
    use Illuminate\\Support\\Facades\\Http;

    class CatalogClient
    {
        private Client $http;

        public function __construct()
        {
            $this->http = new Client(['base_uri' => env('CATALOG_URL', 'http://catalog:8080'), 'timeout' => 2]);
        }

        public function items()
        {
            return $this->http->get('/api/items');
        }

        public function item($id)
        {
            return $this->http->request('GET', "/api/items/{$id}");
        }

        public function laravel($id)
        {
            Http::get('http://inventory/stock');
            Http::withToken($this->token)->post(config('services.billing.url') . '/invoices', []);
            Http::baseUrl('http://users:80/api')->get('/users/' . $id);
        }
    }
    $g = new \\GuzzleHttp\\Client();
    $g->post('http://notify/send', ['json' => []]);
    $g->getAsync($next);
    """
    assert calls(source) == [
        ("GET", "/api/items", "catalog", "env:CATALOG_URL", "guzzle", False),
        ("GET", "/api/items/{id}", "catalog", "env:CATALOG_URL", "guzzle", False),
        ("GET", "/stock", "inventory", "", "laravel-http", False),
        ("POST", "/invoices", "", "config:services.billing.url", "laravel-http", False),
        ("GET", "/api/users/{id}", "users", "", "laravel-http", False),
        ("POST", "/send", "notify", "", "guzzle", False),
        ("GET", "", "", "", "guzzle", True),
    ]


def test_curl_and_file_get_contents() -> None:
    source = """
    <?php
    function rates() {
        $data = file_get_contents('https://api.example.com/v1/rates');
        $local = file_get_contents(__DIR__ . '/data.json');
        $config = file_get_contents($path);
        $ctx = stream_context_create(['http' => ['method' => 'POST', 'content' => $body]]);
        file_get_contents(getenv('AUDIT_URL') . '/events', false, $ctx);
    }
    function ship() {
        $ch = curl_init();
        curl_setopt($ch, CURLOPT_URL, getenv('SHIPPING_URL') . '/shipments');
        curl_setopt($ch, CURLOPT_POST, true);
        curl_exec($ch);
        $search = curl_init("http://search:9200/_search");
        curl_setopt_array($search, [CURLOPT_CUSTOMREQUEST => 'PUT', CURLOPT_RETURNTRANSFER => true]);
    }
    """
    assert calls(source) == [
        ("GET", "/v1/rates", "api.example.com", "", "file_get_contents", False),
        ("POST", "/events", "", "env:AUDIT_URL", "file_get_contents", False),
        ("POST", "/shipments", "", "env:SHIPPING_URL", "curl", False),
        ("PUT", "/_search", "search", "", "curl", False),
    ]


def test_lookalikes_are_no_calls() -> None:
    source = """
    <?php
    use GuzzleHttp\\Client;
    class Repo {
        public function __construct(private CacheInterface $cache, private array $items) {}
        public function find($id) {
            $this->cache->get('/orders/' . $id);
            $this->items->get($id);
            $request->request('GET', '/x');
            return collect($this->items)->get('x');
        }
        public function real() {
            (new Client())->get('http://catalog/items');
        }
    }
    """
    assert calls(source) == [("GET", "/items", "catalog", "", "guzzle", False)]


# -- messaging -------------------------------------------------------------------------------------------


def test_amqp_kafka_redis_queues_and_aws() -> None:
    source = """
    <?php
    use PhpAmqpLib\\Connection\\AMQPStreamConnection;
    use PhpAmqpLib\\Message\\AMQPMessage;
    use Aws\\Sqs\\SqsClient;

    class Publisher {
        const EXCHANGE = 'orders';
        public function send($body) {
            $connection = new AMQPStreamConnection('rabbitmq', 5672, 'guest', 'guest');
            $channel = $connection->channel();
            $channel->queue_declare('hello', false, false, false, false);
            $channel->basic_publish(new AMQPMessage($body), '', 'hello');
            $channel->basic_publish($msg, self::EXCHANGE, 'order.created');
            $channel->basic_consume('task_queue', '', false, false, false, false, $callback);
            $channel->queue_bind($queue_name, 'logs');
        }
    }
    $producer = new RdKafka\\Producer($conf);
    $topic = $producer->newTopic("test");
    $topic->produce(RD_KAFKA_PARTITION_UA, 0, "Message");
    $consumer = new RdKafka\\KafkaConsumer($conf);
    $consumer->subscribe(['orders', 'payments']);
    $redis = new Redis();
    $redis->publish('chat', 'hello');
    Redis::publish('news', json_encode($x));
    ProcessPodcast::dispatch($podcast)->onQueue('processing');
    dispatch(new SendEmail($u))->onConnection('sqs')->onQueue('emails');
    $sqs = new SqsClient([]);
    $sqs->sendMessage(['QueueUrl' => 'https://sqs.us-east-1.amazonaws.com/123/orders-queue', 'MessageBody' => 'x']);
    $list->publish('x');
    $emitter->subscribe('y');
    """
    assert messages(source) == [
        ("produce", "rabbitmq", "hello", "queue", ""),
        ("produce", "rabbitmq", "orders", "exchange", ""),
        ("consume", "rabbitmq", "task_queue", "queue", ""),
        ("consume", "rabbitmq", "logs", "exchange", ""),
        ("produce", "kafka", "test", "topic", ""),
        ("consume", "kafka", "orders", "topic", ""),
        ("consume", "kafka", "payments", "topic", ""),
        ("produce", "redis", "chat", "channel", ""),
        ("produce", "redis", "news", "channel", ""),
        ("produce", "", "processing", "queue", ""),
        ("produce", "sqs", "emails", "queue", ""),
        ("produce", "sqs", "orders-queue", "queue", ""),
    ]


# -- constants -------------------------------------------------------------------------------------------


def test_link_constants() -> None:
    source = """
    <?php
    const ORDERS_TOPIC = 'orders';
    define('BILLING_URL', 'http://billing:8080');
    define('API_SECRET_URL', 'http://x');
    class Queues {
        const AUDIT = 'audit';
    }
    class Settings {
        public const TIMEOUT = '30';
    }
    interface Routes {
        const HOME = '/';
    }
    """
    assert facts(source).constants == (
        Constant("ORDERS_TOPIC", "orders", 2),
        Constant("BILLING_URL", "http://billing:8080", 3),
        Constant("Queues.AUDIT", "audit", 6),
        Constant("Routes.HOME", "/", 12),
    )


def test_a_source_that_is_not_ascii_gives_the_same_facts() -> None:
    """Query predicates read node text as UTF-8: other text, and bytes that are not UTF-8, change nothing."""
    ascii_facts = facts(LARAVEL)
    assert ascii_facts.http_routes
    other = _php.extract(textwrap.dedent(LARAVEL).lstrip("\n").encode() + "\n// naïve café ✓\n$e = \"€\";\n".encode())
    assert (other.http_routes, other.http_calls, other.messages) == (
        ascii_facts.http_routes,
        ascii_facts.http_calls,
        ascii_facts.messages,
    )
    broken = _php.extract(textwrap.dedent(LARAVEL).lstrip("\n").encode() + b"\n$c = new \\GuzzleH\x80ttp\\Client([]);\n")
    assert broken.http_routes[: len(ascii_facts.http_routes)] == ascii_facts.http_routes


# -- totality --------------------------------------------------------------------------------------------

_SNIPPETS = [LARAVEL, SYMFONY, "<?php\n$c = new \\GuzzleHttp\\Client(['base_uri' => getenv('X')]);\n$c->get('/a');\n"]


@settings(max_examples=150)
@given(st.sampled_from(_SNIPPETS), st.lists(st.tuples(st.integers(0, 2000), st.binary(max_size=6)), max_size=8))
@example(LARAVEL, [(60, b"(((")])
@example("<?php\n" + "Route::prefix('a')->group(function () {\n" * 200 + "Route::get('/x', 'C@m');", [])
@example("<?php\n$a = $b;\n$b = $a;\nfile_get_contents($a);\n", [])
@example("<?php\n" + "$x = $x . $x;\n" * 60 + "Http::get($x);\n", [])
@example("<?php\nX::dispatch()->onQueue('a')->onQueue('b');\n", [])
def test_links_never_raise(snippet: str, edits: list[tuple[int, bytes]]) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception."""
    data = bytearray(textwrap.dedent(snippet).encode())
    for at, junk in edits:
        at = min(at, len(data))
        data[at : at + len(junk)] = junk
    result = _php.extract(bytes(data))
    assert result.language == "php"
    if not edits and snippet in _SNIPPETS:
        assert result.http_routes or result.http_calls or result.messages
    assert all(route.path.startswith("/") for route in result.http_routes)
    assert all(call.computed == (call.path == "") for call in result.http_calls)


def test_facts_are_deterministic_and_in_source_order() -> None:
    first, second = facts(SYMFONY), facts(SYMFONY)
    assert first == second
    assert first.http_routes and first.http_calls
    for group in (first.http_routes, first.http_calls):
        lines = [fact.line for fact in group]
        assert lines == sorted(lines)
