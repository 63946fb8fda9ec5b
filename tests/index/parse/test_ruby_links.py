"""Ruby links: Rails/Sinatra/Grape/Hanami routes, Net::HTTP/Faraday/HTTParty/RestClient calls, Bunny/Kafka/
Sneakers/Redis messages and link constants, each read from realistic code (and look-alikes that are none)."""

from __future__ import annotations

import textwrap

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Constant, FileFacts, HttpCall, HttpRoute, MessageFact
from mesh.index.parse import _ruby


def facts(source: str) -> FileFacts:
    return _ruby.extract(textwrap.dedent(source).lstrip("\n").encode())


def routes(source: str) -> list[tuple[str, str, str]]:
    return [(r.method, r.path, r.handler) for r in facts(source).http_routes]


def calls(source: str) -> list[tuple[str, str, str, str, str, bool]]:
    return [(c.method, c.path, c.host, c.address, c.client, c.computed) for c in facts(source).http_calls]


def messages(source: str) -> list[tuple[str, str, str, str, str]]:
    return [(m.role, m.broker, m.name, m.kind, m.address) for m in facts(source).messages]


# -- Rails ---------------------------------------------------------------------------------------------

RAILS = """
Rails.application.routes.draw do
  root 'pages#home'
  get 'photos/:id', to: 'photos#show', as: :photo
  get 'welcome/index'
  get 'old' => 'pages#legacy'
  match 'search', to: 'search#run', via: [:get, :post]
  resources :orders, only: [:index, :show] do
    member do
      post :cancel
    end
    collection do
      get 'search'
    end
    get 'preview', on: :member
    get 'stats'
  end
  resource :profile, except: [:new, :create, :edit]
  namespace :api do
    namespace :v1 do
      resources :users, param: :slug, only: :show
    end
    scope '/v2', module: 'v2' do
      get 'status', to: 'status#show'
    end
  end
  mount Sidekiq::Web => '/sidekiq'
  get '*path', to: 'errors#not_found'
end
"""


def test_rails_routes_file() -> None:
    result = facts(RAILS)
    assert [(r.method, r.path, r.handler, r.line) for r in result.http_routes] == [
        ("GET", "/", "pages#home", 2),
        ("GET", "/photos/{id}", "photos#show", 3),
        ("GET", "/welcome/index", "welcome#index", 4),
        ("GET", "/old", "pages#legacy", 5),
        ("GET", "/search", "search#run", 6),
        ("POST", "/search", "search#run", 6),
        ("GET", "/orders", "orders#index", 7),
        ("GET", "/orders/{id}", "orders#show", 7),
        ("POST", "/orders/{id}/cancel", "orders#cancel", 9),
        ("GET", "/orders/search", "orders#search", 12),
        ("GET", "/orders/{id}/preview", "orders#preview", 14),
        ("GET", "/orders/{order_id}/stats", "orders#stats", 15),
        ("GET", "/profile", "profiles#show", 17),
        ("PATCH", "/profile", "profiles#update", 17),
        ("PUT", "/profile", "profiles#update", 17),
        ("DELETE", "/profile", "profiles#destroy", 17),
        ("GET", "/api/v1/users/{slug}", "api/v1/users#show", 20),
        ("GET", "/api/v2/status", "api/v2/status#show", 23),
        ("*", "/sidekiq", "", 26),
        ("GET", "/{*path}", "errors#not_found", 27),
    ]
    mount = result.http_routes[-2]
    assert mount == HttpRoute("*", "/sidekiq", 26, "", "", "rails", "Sidekiq::Web")
    assert {r.framework for r in result.http_routes} == {"rails"}


def test_rails_resources_give_the_seven_actions_nested_and_shallow() -> None:
    source = """
    Rails.application.routes.draw do
      resources :magazines do
        resources :ads, only: [:index, :show]
      end
      concern :commentable do
        resources :comments, only: :index
      end
      resources :articles, only: [], concerns: :commentable, shallow: true do
        resources :notes, only: [:create, :destroy]
      end
    end
    """
    assert routes(source) == [
        ("GET", "/magazines", "magazines#index"),
        ("POST", "/magazines", "magazines#create"),
        ("GET", "/magazines/new", "magazines#new"),
        ("GET", "/magazines/{id}/edit", "magazines#edit"),
        ("GET", "/magazines/{id}", "magazines#show"),
        ("PATCH", "/magazines/{id}", "magazines#update"),
        ("PUT", "/magazines/{id}", "magazines#update"),
        ("DELETE", "/magazines/{id}", "magazines#destroy"),
        ("GET", "/magazines/{magazine_id}/ads", "ads#index"),
        ("GET", "/magazines/{magazine_id}/ads/{id}", "ads#show"),
        ("GET", "/articles/{article_id}/comments", "comments#index"),
        ("POST", "/articles/{article_id}/notes", "notes#create"),
        ("DELETE", "/notes/{id}", "notes#destroy"),
    ]


def test_rails_scopes_namespaces_and_controllers() -> None:
    source = """
    Rails.application.routes.draw do
      scope module: 'admin' do
        resources :reports, only: :index
      end
      scope path: '/internal', controller: :health do
        get 'ping', action: :ping
      end
      namespace :admin, path: 'backoffice' do
        root to: 'dashboard#index'
      end
      constraints subdomain: 'api' do
        defaults format: :json do
          post 'events', to: 'events#create'
        end
      end
      if Rails.env.development?
        get 'debug', to: 'debug#show'
      end
      mount Blorgh::Engine, at: '/blog'
    end
    """
    assert routes(source) == [
        ("GET", "/reports", "admin/reports#index"),
        ("GET", "/internal/ping", "health#ping"),
        ("GET", "/backoffice", "admin/dashboard#index"),
        ("POST", "/events", "events#create"),
        ("GET", "/debug", "debug#show"),
        ("*", "/blog", ""),
    ]


def test_a_routes_file_drawn_into_routes_rb_is_read_alone() -> None:
    """``draw :api`` in config/routes.rb reads config/routes/api.rb: a file of routes statements only."""
    fragment = """
    # frozen_string_literal: true

    namespace :api, format: false do
      namespace :v1 do
        resources :statuses, only: [:show] do
          scope module: :statuses do
            resource :reblog, only: :create
          end
        end
        get '/@:username', to: 'accounts#show'
      end
    end
    """
    assert routes(fragment) == [
        ("GET", "/api/v1/statuses/{id}", "api/v1/statuses#show"),
        ("POST", "/api/v1/statuses/{status_id}/reblog", "api/v1/statuses/reblogs#create"),
        ("GET", "/api/v1/@{username}", "api/v1/accounts#show"),
    ]
    drawing = """
    Rails.application.routes.draw do
      scope '/admin' do
        draw :admin
      end
      draw :api
    end
    """
    assert facts(drawing).http_routes == (HttpRoute("*", "/admin", 3, "", "", "rails", "routes/admin"),)
    not_routes = """
    namespace :db do
      task migrate: :environment do
      end
    end
    """
    assert facts(not_routes).http_routes == ()


def test_an_engine_routes_file_is_a_routes_file_too() -> None:
    source = """
    Blorgh::Engine.routes.draw do
      resources :posts, only: :index
    end
    """
    assert routes(source) == [("GET", "/posts", "posts#index")]


def test_calls_named_like_routes_outside_a_routes_block_are_none() -> None:
    source = """
    class OrdersControllerTest < ActionDispatch::IntegrationTest
      test 'lists' do
        get '/orders'
        post orders_url, params: { order: {} }
      end
    end
    resources :orders
    routes.each { |r| r.draw }
    Rails.application.routes.draw do
      get 'real', to: 'pages#real'
    end
    """
    assert routes(source) == [("GET", "/real", "pages#real")]


# -- Sinatra, Grape, Hanami ----------------------------------------------------------------------------


def test_sinatra_routes_with_namespaces() -> None:
    source = """
    require 'sinatra/base'
    require 'sinatra/namespace'

    class App < Sinatra::Base
      register Sinatra::Namespace

      get '/health' do
        'ok'
      end

      namespace '/api/v1' do
        get '/orders/:id' do
          json Order.find(params[:id])
        end
        delete '/orders/:id' do
        end
      end

      get %r{/legacy/(\\d+)} do
      end

      def cache
        settings.get('x') { 1 }
      end
    end
    """
    result = facts(source)
    assert result.http_routes == (
        HttpRoute("GET", "/health", 7, "", "App", "sinatra"),
        HttpRoute("GET", "/api/v1/orders/{id}", 12, "", "App", "sinatra"),
        HttpRoute("DELETE", "/api/v1/orders/{id}", 15, "", "App", "sinatra"),
    )


def test_sinatra_classic_top_level_routes_and_an_extension() -> None:
    source = """
    require 'sinatra'

    post '/payments' do
    end

    module Health
      def self.registered(app)
        app.get '/livez' do
          'ok'
        end
      end
    end
    """
    assert routes(source) == [("POST", "/payments", ""), ("GET", "/livez", "")]


def test_get_with_a_block_is_no_route_without_sinatra() -> None:
    source = """
    cache.get('/x') do
      compute
    end
    get '/y' do
    end
    """
    assert facts(source).http_routes == ()
    assert routes("require 'sinatra'\n" + textwrap.dedent(source)) == [("GET", "/y", "")]


def test_grape_api_with_prefix_version_namespaces_and_params() -> None:
    source = """
    module Twitter
      class API < Grape::API
        version 'v1', using: :path
        format :json
        prefix :api

        helpers do
          def current_user; end
        end

        resource :statuses do
          desc 'Return a public timeline.'
          get :public_timeline do
            Status.limit(20)
          end

          params do
            requires :id, type: Integer
          end
          route_param :id do
            get do
              Status.find(params[:id])
            end
            put ':action' do
            end
          end
        end
        mount Twitter::Admin => '/admin'
      end
    end
    """
    result = facts(source)
    assert [(r.method, r.path, r.framework) for r in result.http_routes] == [
        ("GET", "/api/v1/statuses/public_timeline", "grape"),
        ("GET", "/api/v1/statuses/{id}", "grape"),
        ("PUT", "/api/v1/statuses/{id}/{action}", "grape"),
        ("*", "/api/v1/admin", "grape"),
    ]
    assert result.http_routes[-1].mount == "Twitter::Admin"
    assert result.http_routes[0].symbol == "Twitter.API"


def test_grape_header_versioning_adds_no_segment() -> None:
    source = """
    class Api < Grape::API
      version 'v2', using: :header, vendor: 'acme'
      namespace :orders do
        post do
        end
      end
    end
    """
    assert routes(source) == [("POST", "/orders", "")]


def test_hanami_routes() -> None:
    source = """
    module Bookshelf
      class Routes < Hanami::Routes
        root to: "home.index"
        get "/books", to: "books.index"
        get "/books/:id", to: "books.show"
        slice :admin, at: "/admin" do
          post "/books", to: "books.create"
        end
      end
    end
    """
    assert [(r.method, r.path, r.handler, r.framework) for r in facts(source).http_routes] == [
        ("GET", "/", "home.index", "hanami"),
        ("GET", "/books", "books.index", "hanami"),
        ("GET", "/books/{id}", "books.show", "hanami"),
        ("POST", "/admin/books", "books.create", "hanami"),
    ]


# -- HTTP clients ----------------------------------------------------------------------------------------


def test_net_http() -> None:
    source = """
    require 'net/http'

    ORDERS_URL = ENV.fetch('ORDERS_URL', 'http://orders:3000')

    class Gateway
      def order(id)
        uri = URI("#{ORDERS_URL}/orders/#{id}")
        Net::HTTP.get(uri)
      end

      def invoice(payload)
        uri = URI.parse('http://billing:8080/invoices')
        req = Net::HTTP::Post.new(uri)
        Net::HTTP.start(uri.host, uri.port) { |http| http.request(req) }
      end

      def stock
        Net::HTTP.start('inventory', 80) do |http|
          http.get('/stock')
          http.request(Net::HTTP::Delete.new('/stock/1'))
        end
      end

      def form
        Net::HTTP.post_form(URI('http://auth/login'), 'user' => 'x')
      end
    end
    """
    result = facts(source)
    assert [(c.method, c.path, c.host, c.address, c.line, c.symbol) for c in result.http_calls] == [
        ("GET", "/orders/{id}", "orders", "env:ORDERS_URL", 8, "Gateway.order"),
        ("POST", "/invoices", "billing", "", 13, "Gateway.invoice"),
        ("GET", "/stock", "inventory", "", 19, "Gateway.stock"),
        ("DELETE", "/stock/1", "inventory", "", 20, "Gateway.stock"),
        ("POST", "/login", "auth", "", 25, "Gateway.form"),
    ]
    assert {c.client for c in result.http_calls} == {"net/http"}


def test_faraday_connection_with_a_base_from_the_environment() -> None:
    source = """
    require 'faraday'

    class OrdersClient
      def initialize(base_url: ENV['ORDERS_API'])
        @conn = Faraday.new(url: base_url) do |f|
          f.request :json
        end
      end

      def list
        @conn.get('/api/orders')
      end

      def show(id)
        @conn.get("/api/orders/#{id}")
      end

      def create(order)
        connection.post('orders') { |req| req.body = order }
      end

      private

      def connection
        @connection ||= Faraday.new(Rails.configuration.x.shipping_url)
      end
    end
    """
    assert calls(source) == [
        ("GET", "/api/orders", "", "env:ORDERS_API", "faraday", False),
        ("GET", "/api/orders/{id}", "", "env:ORDERS_API", "faraday", False),
        ("POST", "/orders", "", "config:shipping_url", "faraday", False),
    ]


def test_faraday_module_calls_and_a_computed_url() -> None:
    source = """
    require 'faraday'
    Faraday.get('http://catalog:8080/items')
    Faraday.post(some_url)
    conn = Faraday.new('http://search/api')
    conn.get('/q')
    conn.get('q')
    """
    assert calls(source) == [
        ("GET", "/items", "catalog", "", "faraday", False),
        ("POST", "", "", "", "faraday", True),
        ("GET", "/q", "search", "", "faraday", False),
        ("GET", "/api/q", "search", "", "faraday", False),
    ]


def test_httparty_class_with_base_uri() -> None:
    source = """
    class Payments
      include HTTParty
      base_uri 'http://payments:9000/api'

      def self.charge(id)
        post("/charges/#{id}")
      end

      def refund
        self.class.delete('/refunds')
      end
    end

    Payments.get('/status')
    HTTParty.get("#{Settings.users.url}/users")
    """
    assert calls(source) == [
        ("POST", "/api/charges/{id}", "payments", "", "httparty", False),
        ("DELETE", "/api/refunds", "payments", "", "httparty", False),
        ("GET", "/api/status", "payments", "", "httparty", False),
        ("GET", "/users", "", "config:users.url", "httparty", False),
    ]


def test_rest_client_and_http_rb() -> None:
    source = """
    require 'rest-client'
    RestClient.get('http://catalog:8080/items', accept: :json)
    RestClient::Request.execute(method: :put, url: 'http://catalog:8080/items/1')
    res = RestClient::Resource.new(ENV['CATALOG_URL'])
    res['items'].get
    HTTP.headers(accept: 'json').get('http://search/q')
    """
    assert calls(source) == [
        ("GET", "/items", "catalog", "", "rest-client", False),
        ("PUT", "/items/1", "catalog", "", "rest-client", False),
        ("GET", "/items", "", "env:CATALOG_URL", "rest-client", False),
        ("GET", "/q", "search", "", "http.rb", False),
    ]


def test_lookalikes_are_no_calls() -> None:
    source = """
    require 'faraday'
    class Cache
      include Singleton
      def read(key)
        store = {}
        store.get(key)
        params.fetch(:x)
        Rails.cache.fetch('k') { 1 }
        redis.get('x')
        @client.get('/not/known')
        get('/inside/a/class/without/httparty')
        Faraday.new('http://catalog:8080').get('/items')
      end
    end
    """
    assert calls(source) == [("GET", "/items", "catalog", "", "faraday", False)]


# -- messaging -------------------------------------------------------------------------------------------


def test_bunny() -> None:
    source = """
    require 'bunny'

    conn = Bunny.new(ENV['AMQP_URL'])
    conn.start
    ch = conn.create_channel
    q = ch.queue('task_queue', durable: true)
    ch.default_exchange.publish('hello', routing_key: q.name, persistent: true)
    logs = ch.fanout('logs')
    logs.publish(msg)
    events = ch.topic('orders.events', durable: true)
    events.publish(payload, routing_key: 'order.created')
    anon = ch.queue('', exclusive: true)
    anon.bind(logs)
    q.subscribe(manual_ack: true, block: true) do |delivery_info, _props, body|
      ch.ack(delivery_info.delivery_tag)
    end
    """
    result = facts(source)
    assert [(m.role, m.broker, m.name, m.kind, m.line) for m in result.messages] == [
        ("produce", "rabbitmq", "task_queue", "queue", 7),
        ("produce", "rabbitmq", "logs", "exchange", 9),
        ("produce", "rabbitmq", "orders.events", "exchange", 11),
        ("consume", "rabbitmq", "logs", "exchange", 13),
        ("consume", "rabbitmq", "task_queue", "queue", 14),
    ]
    assert {m.client for m in result.messages} == {"bunny"}


def test_sneakers_and_hutch() -> None:
    source = """
    class DownloadWorker
      include Sneakers::Worker
      from_queue 'downloads', ack: true

      def work(msg)
        Sneakers.publish(msg, to_queue: 'downloaded')
        ack!
      end
    end

    class AuditConsumer
      include Hutch::Consumer
      consume 'orders.created'
    end
    Hutch.publish('orders.shipped', id: 1)
    """
    assert messages(source) == [
        ("consume", "rabbitmq", "downloads", "queue", ""),
        ("produce", "rabbitmq", "downloaded", "queue", ""),
        ("consume", "rabbitmq", "orders.created", "routing_key", ""),
        ("produce", "rabbitmq", "orders.shipped", "routing_key", ""),
    ]


def test_kafka_clients() -> None:
    source = """
    require 'kafka'

    class Events
      TOPIC = 'payments'

      def initialize
        @kafka = Kafka.new(['kafka:9092'], client_id: 'orders')
      end

      def run(order)
        @kafka.deliver_message('hi', topic: 'greetings')
        producer = @kafka.producer
        producer.produce(order.to_json, topic: ORDERS_TOPIC)
        consumer = @kafka.consumer(group_id: 'billing')
        consumer.subscribe('orders')
        @kafka.each_message(topic: TOPIC) { |m| }
        rp = Rdkafka::Config.new('bootstrap.servers': 'kafka:9092').producer
        rp.produce(topic: "audit.#{order.kind}", payload: 'x')
      end
    end
    """
    assert messages(source) == [
        ("produce", "kafka", "greetings", "topic", ""),
        ("produce", "kafka", "", "topic", "const:ORDERS_TOPIC"),
        ("consume", "kafka", "orders", "topic", ""),
        ("consume", "kafka", "payments", "topic", ""),
        ("produce", "kafka", "", "topic", ""),
    ]
    assert facts(source).messages[-1].computed


def test_karafka_and_racecar_consumers() -> None:
    source = """
    class KarafkaApp < Karafka::App
      routes.draw do
        topic :orders do
          consumer OrdersConsumer
        end
      end
    end

    class PaymentsConsumer < Racecar::Consumer
      subscribes_to 'payments', 'refunds'
    end
    Karafka.producer.produce_sync(topic: 'shipments', payload: '{}')
    """
    result = facts(source)
    assert [(m.role, m.name, m.client) for m in result.messages] == [
        ("consume", "orders", "karafka"),
        ("consume", "payments", "racecar"),
        ("consume", "refunds", "racecar"),
        ("produce", "shipments", "kafka"),
    ]
    assert result.http_routes == ()


def test_redis_pub_sub_and_lookalikes() -> None:
    source = """
    require 'redis'
    redis = Redis.new(url: ENV['REDIS_URL'])
    redis.publish('chat', 'hi')
    $redis.subscribe('chat', 'presence') do |on|
      on.message { |channel, msg| }
    end
    cache = {}
    cache.publish('x')
    ActiveSupport::Notifications.subscribe('process_action.action_controller') { }
    """
    assert messages(source) == [
        ("produce", "redis", "chat", "channel", ""),
        ("consume", "redis", "chat", "channel", ""),
        ("consume", "redis", "presence", "channel", ""),
    ]


def test_sqs_and_sns() -> None:
    source = """
    require 'aws-sdk-sqs'
    require 'aws-sdk-sns'
    sqs = Aws::SQS::Client.new
    sqs.send_message(queue_url: 'https://sqs.eu-west-1.amazonaws.com/123/orders', message_body: 'x')
    sqs.receive_message(queue_url: ENV['PAYMENTS_QUEUE_URL'])
    Aws::SNS::Client.new.publish(topic_arn: 'arn:aws:sns:eu-west-1:123:order-events', message: 'x')
    """
    assert messages(source) == [
        ("produce", "sqs", "orders", "queue", ""),
        ("consume", "sqs", "", "queue", "env:PAYMENTS_QUEUE_URL"),
        ("produce", "sns", "order-events", "topic", ""),
    ]


# -- constants -------------------------------------------------------------------------------------------


def test_link_constants_only() -> None:
    source = """
    ORDERS_TOPIC = 'orders'.freeze
    module Queues
      PAYMENTS = 'payments'
    end
    API_KEY_HEADER = 'X-Api-Key'
    TIMEOUT = '5'
    BILLING_URL = "http://billing:8080/api"
    SECRET_URL = 'http://user:pass@host'
    GREETING_PATH = 'hello world'
    DB_URL = ENV['DATABASE_URL']
    def f
      LOCAL_PATH = '/x'
    end
    """
    assert facts(source).constants == (
        Constant("ORDERS_TOPIC", "orders", 1),
        Constant("Queues.PAYMENTS", "payments", 3),
        Constant("BILLING_URL", "http://billing:8080/api", 7),
    )


def test_a_source_that_is_not_ascii_gives_the_same_facts() -> None:
    """Query predicates read node text as UTF-8: other text, and bytes that are not UTF-8, change nothing."""
    ascii_facts = facts(RAILS)
    assert ascii_facts.http_routes
    other = _ruby.extract(textwrap.dedent(RAILS).lstrip("\n").encode() + "\n# naïve café ✓\nx = \"\xe2\x82\xac\"\n".encode())
    assert (other.http_routes, other.http_calls, other.messages) == (
        ascii_facts.http_routes,
        ascii_facts.http_calls,
        ascii_facts.messages,
    )
    broken = _ruby.extract(textwrap.dedent(RAILS).lstrip("\n").encode() + b"\nget\x80 '/x' do\nend\n")
    assert broken.http_routes[: len(ascii_facts.http_routes)] == ascii_facts.http_routes


# -- totality --------------------------------------------------------------------------------------------

_SNIPPETS = [
    RAILS,
    "require 'faraday'\nc = Faraday.new(url: ENV['X'])\nc.get('/a')\n",
    "require 'bunny'\nch = Bunny.new.tap(&:start).create_channel\nch.queue('q').subscribe { |_, _, b| }\n",
]


@settings(max_examples=150)
@given(st.sampled_from(_SNIPPETS), st.lists(st.tuples(st.integers(0, 2000), st.binary(max_size=6)), max_size=8))
@example(RAILS, [(40, b"do do do")])
@example(RAILS, [(575, b"\x00")])  # ``module: <not a word>``: once a TypeError
@example("require 'sinatra'\n" + "namespace '/a' do\n" * 300 + "get '/x' do\nend\n", [])
@example("Rails.application.routes.draw do\n" + "scope 'a' do\n" * 200, [])
@example("a = b\nb = a\nFaraday.get(a)\n", [])
@example("x = x + x\n" * 60 + "Net::HTTP.get(x)\n", [])
def test_links_never_raise(snippet: str, edits: list[tuple[int, bytes]]) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception."""
    data = bytearray(textwrap.dedent(snippet).encode())
    for at, junk in edits:
        at = min(at, len(data))
        data[at : at + len(junk)] = junk
    result = _ruby.extract(bytes(data))
    assert result.language == "ruby"
    if not edits and snippet in _SNIPPETS:
        assert result.http_routes or result.http_calls or result.messages
    assert all(route.path.startswith("/") for route in result.http_routes)
    assert all(call.computed == (call.path == "") for call in result.http_calls)


def test_facts_are_deterministic_and_in_source_order() -> None:
    source = RAILS + "\nrequire 'faraday'\nc = Faraday.new(url: ENV['X'])\nc.get('/a')\nRedis.new.publish('x', 1)\n"
    first, second = facts(source), facts(source)
    assert first == second
    assert first.http_routes and first.http_calls and first.messages
    for group in (first.http_routes, first.http_calls, first.messages):
        lines = [fact.line for fact in group]
        assert lines == sorted(lines)
    assert all(isinstance(m, MessageFact) for m in first.messages)
    assert all(isinstance(c, HttpCall) for c in first.http_calls)
