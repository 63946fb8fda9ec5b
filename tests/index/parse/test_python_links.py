"""Python links: HTTP routes, HTTP calls, messaging and link constants (``parse/_python_links.py``).

One test per framework or library, each with realistic snippets and the look-alikes that must give
nothing; then prefixes and mounts, addresses traced through the file, computed URLs, constants, and
the properties (determinism, source order, INV-LINKS-1).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Constant, FileFacts, HttpCall, HttpRoute, MessageFact
from mesh.index.parse import _python, extract


def facts(source: str) -> FileFacts:
    result = _python.extract(textwrap.dedent(source).lstrip("\n").encode())
    assert not result.error, result.error
    return result


def route(method: str, path: str, line: int, handler: str = "", symbol: str = "", framework: str = "") -> HttpRoute:
    return HttpRoute(method, path, line, handler, symbol, framework)


def mount(path: str, line: int, module: str, handler: str = "", framework: str = "", symbol: str = "") -> HttpRoute:
    return HttpRoute("*", path, line, handler, symbol, framework, module)


def http(
    method: str,
    path: str,
    line: int,
    symbol: str = "",
    host: str = "",
    address: str = "",
    client: str = "requests",
    computed: bool = False,
) -> HttpCall:
    return HttpCall(method, path, line, symbol, host, address, client, computed)


def produce(
    broker: str, name: str, line: int, kind: str, client: str, symbol: str = "", address: str = ""
) -> MessageFact:
    return MessageFact("produce", broker, name, line, kind, symbol, address, client, not (name or address))


def consume(
    broker: str, name: str, line: int, kind: str, client: str, symbol: str = "", address: str = ""
) -> MessageFact:
    return MessageFact("consume", broker, name, line, kind, symbol, address, client, not (name or address))


# -- HTTP servers ---------------------------------------------------------------------------------


def test_flask_routes_blueprint_prefixes_and_mounts() -> None:
    result = facts(
        """
        from flask import Flask, Blueprint, jsonify
        from .orders import orders_bp
        from . import payments
        from .admin.views import bp as admin_bp

        app = Flask(__name__)
        api = Blueprint("api", __name__, url_prefix="/api/v1")
        nested = Blueprint("nested", __name__, url_prefix="/nested")

        @app.route("/health")
        def health():
            return "ok"

        @api.route("/orders/<int:order_id>", methods=["GET", "DELETE"])
        def order(order_id):
            return jsonify({})

        @api.post("/orders")
        def create_order():
            return jsonify({})

        @nested.get("/files/<path:rest>")
        def files(rest):
            pass

        class OrderView:
            def get(self): pass
            def post(self): pass

        def legacy(): pass

        api.add_url_rule("/legacy", "legacy", legacy)
        app.add_url_rule("/view", view_func=OrderView.as_view("orders"))
        api.register_blueprint(nested, url_prefix="/n")
        app.register_blueprint(api)
        app.register_blueprint(orders_bp, url_prefix="/orders")
        app.register_blueprint(payments.bp, url_prefix="/payments")
        app.register_blueprint(admin_bp)

        cache = {}
        cache.get("/x")
        """
    )
    assert result.http_routes == (
        route("GET", "/health", 10, "health", "health", "flask"),
        route("GET", "/api/v1/orders/{order_id}", 14, "order", "order", "flask"),
        route("DELETE", "/api/v1/orders/{order_id}", 14, "order", "order", "flask"),
        route("POST", "/api/v1/orders", 18, "create_order", "create_order", "flask"),
        # a registration's url_prefix replaces the blueprint's own, after its parent's
        route("GET", "/api/v1/n/files/{*rest}", 22, "files", "files", "flask"),
        route("GET", "/api/v1/legacy", 32, "legacy", "", "flask"),
        route("GET", "/view", 33, "OrderView", "", "flask"),
        route("POST", "/view", 33, "OrderView", "", "flask"),
        mount("/orders", 36, ".orders", "orders_bp", "flask"),
        mount("/payments", 37, ".payments", "bp", "flask"),
        mount("/", 38, ".admin.views", "bp", "flask"),
    )
    assert result.http_calls == ()


def test_flask_routes_of_an_app_made_in_another_module_and_restx_resources() -> None:
    result = facts(
        """
        from flask_restx import Api, Namespace, Resource
        from .app import app
        from .extensions import api

        ns = Namespace("todos", description="TODO operations")
        cats = api.namespace("cats")

        @app.route("/ping")
        def ping():
            return "pong"

        @ns.route("/<int:id>")
        class Todo(Resource):
            def get(self, id): ...
            def delete(self, id): ...
            def helper(self): ...

        class CatList(Resource):
            def get(self): ...
            def post(self): ...

        api.add_resource(CatList, "/cats", "/felines")
        """
    )
    assert result.http_routes == (
        route("GET", "/ping", 8, "ping", "ping", "flask-restx"),
        route("GET", "/todos/{id}", 12, "Todo.get", "Todo.get", "flask-restx"),
        route("DELETE", "/todos/{id}", 12, "Todo.delete", "Todo.delete", "flask-restx"),
        route("GET", "/cats", 22, "CatList.get", "", "flask-restx"),
        route("POST", "/cats", 22, "CatList.post", "", "flask-restx"),
        route("GET", "/felines", 22, "CatList.get", "", "flask-restx"),
        route("POST", "/felines", 22, "CatList.post", "", "flask-restx"),
    )


def test_fastapi_routers_prefixes_and_mounts() -> None:
    result = facts(
        """
        from fastapi import FastAPI, APIRouter
        from app.routers import items, users
        from .internal import admin

        app = FastAPI()
        router = APIRouter(prefix="/orders", tags=["orders"])
        sub = APIRouter()

        @router.get("")
        async def list_orders(): ...

        @router.get("/{order_id}")
        async def get_order(order_id: int): ...

        @router.api_route("/{order_id}/events", methods=["GET", "POST"])
        async def events(order_id): ...

        @sub.put("/items/{item_id:path}")
        def put_item(item_id): ...

        @app.websocket("/ws")
        async def ws(websocket): ...

        router.include_router(sub, prefix="/sub")
        app.include_router(router, prefix="/api")
        app.include_router(items.router, prefix="/items")
        app.include_router(users.router)
        app.include_router(admin.router, prefix="/admin", dependencies=[])
        app.add_api_route("/ping", lambda: "pong", methods=["HEAD"])
        """
    )
    assert result.http_routes == (
        route("GET", "/api/orders", 9, "list_orders", "list_orders", "fastapi"),
        route("GET", "/api/orders/{order_id}", 12, "get_order", "get_order", "fastapi"),
        route("GET", "/api/orders/{order_id}/events", 15, "events", "events", "fastapi"),
        route("POST", "/api/orders/{order_id}/events", 15, "events", "events", "fastapi"),
        route("PUT", "/api/orders/sub/items/{*item_id}", 18, "put_item", "put_item", "fastapi"),
        mount("/items", 26, "app.routers.items", "router", "fastapi"),
        mount("/", 27, "app.routers.users", "router", "fastapi"),
        mount("/admin", 28, ".internal.admin", "router", "fastapi"),
        route("HEAD", "/ping", 29, "", "", "fastapi"),
    )


def test_django_urls_includes_and_drf_router() -> None:
    result = facts(
        r"""
        from django.urls import path, re_path, include
        from django.conf.urls import url
        from rest_framework import routers
        from . import views
        from orders.api import urls as api_urls

        router = routers.DefaultRouter()
        router.register(r"users", views.UserViewSet, basename="user")
        router.register("accounts/(?P<account_id>[^/.]+)/orders", views.OrderViewSet)

        extra = [
            path("reports/", views.reports),
            path("reports/<int:year>/", views.report_year, name="year"),
        ]

        urlpatterns = [
            path("", views.index, name="index"),
            path("orders/<uuid:pk>/", views.OrderDetail.as_view(), name="order-detail"),
            re_path(r"^articles/(?P<year>[0-9]{4})/$", views.year_archive),
            url(r"^legacy/(\d+)/$", views.legacy),
            path("api/", include(router.urls)),
            path("shop/", include("shop.urls", namespace="shop")),
            path("more/", include(extra)),
            path("v2/", include([path("ping/", views.ping), path("deep/", include("deep.urls"))])),
            path("orders-api/", include(api_urls)),
        ]
        """
    )
    assert result.http_routes == (
        route("*", "/api/users/", 8, "views.UserViewSet", "", "drf"),
        route("*", "/api/users/{pk}/", 8, "views.UserViewSet", "", "drf"),
        route("*", "/api/accounts/{account_id}/orders/", 9, "views.OrderViewSet", "", "drf"),
        route("*", "/api/accounts/{account_id}/orders/{pk}/", 9, "views.OrderViewSet", "", "drf"),
        route("*", "/more/reports/", 12, "views.reports", "", "django"),
        route("*", "/more/reports/{year}/", 13, "views.report_year", "", "django"),
        route("*", "/", 17, "views.index", "", "django"),
        route("*", "/orders/{pk}/", 18, "views.OrderDetail", "", "django"),
        route("*", "/articles/{year}/", 19, "views.year_archive", "", "django"),
        route("*", "/legacy/{}/", 20, "views.legacy", "", "django"),
        mount("/shop/", 22, "shop.urls", "", "django"),
        route("*", "/v2/ping/", 24, "views.ping", "", "django"),
        mount("/v2/deep/", 24, "deep.urls", "", "django"),
        mount("/orders-api/", 25, "orders.api.urls", "", "django"),
    )


def test_django_look_alikes_are_no_routes() -> None:
    result = facts(
        """
        from pathlib import Path
        import os.path

        path = Path("/srv")
        url = "http://example.com"
        Path("/orders/").exists()
        os.path.join("/a", "b")

        def path(x, y): ...
        path("orders/", y=1)

        from django.urls import path as route
        urlpatterns = [route("real/", view)]
        """
    )
    assert result.http_routes == (route("*", "/real/", 13, "view", "", "django"),)


def test_aiohttp_route_tables_routers_and_subapps() -> None:
    result = facts(
        r"""
        from aiohttp import web
        from .admin import admin_app

        routes = web.RouteTableDef()

        @routes.get("/items/{id}")
        async def get_item(request): ...

        @routes.route("PATCH", "/items/{id:\d+}")
        async def patch_item(request): ...

        @routes.view("/things")
        class Things(web.View):
            async def get(self): ...

        async def health(request): ...

        def make_app():
            app = web.Application()
            api = web.Application()
            api.add_routes(routes)
            api.router.add_get("/status", health)
            app.router.add_route("*", "/any", health)
            app.add_routes([web.get("/health", health), web.post("/events", health)])
            app.add_subapp("/api/", api)
            app.add_subapp("/admin", admin_app)
            return app
        """
    )
    assert result.http_routes == (
        route("GET", "/api/items/{id}", 6, "get_item", "get_item", "aiohttp"),
        route("PATCH", "/api/items/{id}", 9, "patch_item", "patch_item", "aiohttp"),
        route("GET", "/api/things", 12, "Things.get", "Things.get", "aiohttp"),
        route("GET", "/api/status", 22, "health", "make_app", "aiohttp"),
        route("*", "/any", 23, "health", "make_app", "aiohttp"),
        route("GET", "/health", 24, "health", "make_app", "aiohttp"),
        route("POST", "/events", 24, "health", "make_app", "aiohttp"),
        mount("/admin", 26, ".admin", "admin_app", "aiohttp", "make_app"),
    )


def test_starlette_routes_and_mounts() -> None:
    result = facts(
        """
        from starlette.applications import Starlette
        from starlette.routing import Route, Mount
        from starlette.endpoints import HTTPEndpoint
        from .users import users_app

        async def homepage(request): ...

        class User(HTTPEndpoint):
            async def get(self, request): ...
            async def put(self, request): ...

        routes = [
            Route("/", homepage),
            Route("/submit", homepage, methods=["POST"]),
            Mount("/users", routes=[
                Route("/{username}", User),
                Mount("/deep", routes=[Route("/x", endpoint=homepage)]),
            ]),
            Mount("/ext", app=users_app),
        ]
        app = Starlette(routes=routes)
        """
    )
    assert result.http_routes == (
        route("GET", "/", 13, "homepage", "", "starlette"),
        route("POST", "/submit", 14, "homepage", "", "starlette"),
        route("GET", "/users/{username}", 16, "User", "", "starlette"),
        route("PUT", "/users/{username}", 16, "User", "", "starlette"),
        route("GET", "/users/deep/x", 17, "homepage", "", "starlette"),
        mount("/ext", 19, ".users", "users_app", "starlette"),
    )


def test_sanic_routes_blueprints_and_mounts() -> None:
    result = facts(
        """
        from sanic import Sanic, Blueprint
        from .other import other_bp

        app = Sanic("orders")
        bp = Blueprint("orders", url_prefix="/orders")

        @app.route("/tag/<tag:str>", methods=["GET", "POST"])
        async def tag(request, tag): ...

        @bp.get("/<order_id:int>")
        async def order(request, order_id): ...

        async def handler(request): ...
        app.add_route(handler, "/add", methods=["PUT"])
        app.blueprint(bp)
        app.blueprint(other_bp, url_prefix="/other")
        """
    )
    assert result.http_routes == (
        route("GET", "/tag/{tag}", 7, "tag", "tag", "sanic"),
        route("POST", "/tag/{tag}", 7, "tag", "tag", "sanic"),
        route("GET", "/orders/{order_id}", 10, "order", "order", "sanic"),
        route("PUT", "/add", 14, "handler", "", "sanic"),
        mount("/other", 16, ".other", "other_bp", "sanic"),
    )


def test_tornado_handler_lists() -> None:
    result = facts(
        r"""
        import tornado.web
        from tornado.web import url

        class MainHandler(tornado.web.RequestHandler):
            def get(self): ...

        class StoryHandler(tornado.web.RequestHandler):
            def get(self, story_id): ...
            def delete(self, story_id): ...

        def make_app():
            return tornado.web.Application([
                (r"/", MainHandler),
                (r"/story/([0-9]+)", StoryHandler, dict(db=None)),
                url(r"/named/(?P<name>\w+)", MainHandler, name="named"),
                (r"/static/(.*)", tornado.web.StaticFileHandler, {"path": "/tmp"}),
            ])

        class App(tornado.web.Application):
            def __init__(self):
                handlers = [(r"/a", MainHandler), ("not a route", MainHandler)]
                super().__init__(handlers)
        """
    )
    assert result.http_routes == (
        route("GET", "/", 13, "MainHandler", "make_app", "tornado"),
        route("GET", "/story/{}", 14, "StoryHandler", "make_app", "tornado"),
        route("DELETE", "/story/{}", 14, "StoryHandler", "make_app", "tornado"),
        route("GET", "/named/{name}", 15, "MainHandler", "make_app", "tornado"),
        route("*", "/static/{}", 16, "tornado.web.StaticFileHandler", "make_app", "tornado"),
        route("GET", "/a", 21, "MainHandler", "App.__init__", "tornado"),
    )


def test_falcon_pyramid_and_litestar_routes() -> None:
    falcon = facts(
        """
        import falcon

        class Things:
            def on_get(self, req, resp): ...
            def on_post(self, req, resp): ...

        app = falcon.App()
        app.add_route("/things/{thing_id}", Things())
        """
    )
    assert falcon.http_routes == (
        route("GET", "/things/{thing_id}", 8, "Things", "", "falcon"),
        route("POST", "/things/{thing_id}", 8, "Things", "", "falcon"),
    )
    pyramid = facts(
        """
        from pyramid.config import Configurator

        def main():
            config = Configurator()
            config.add_route("order", "/orders/{id}", request_method="GET")
            config.add_route("home", "/")
        """
    )
    assert pyramid.http_routes == (
        route("GET", "/orders/{id}", 5, "", "main", "pyramid"),
        route("*", "/", 6, "", "main", "pyramid"),
    )
    litestar = facts(
        """
        from litestar import Controller, get, post

        class OrderController(Controller):
            path = "/orders"

            @get("/{order_id:int}")
            async def get_order(self, order_id: int): ...

            @post()
            async def create(self, data): ...
        """
    )
    assert litestar.http_routes == (
        route("GET", "/orders/{order_id}", 6, "get_order", "OrderController.get_order", "litestar"),
        route("POST", "/orders", 9, "create", "OrderController.create", "litestar"),
    )


def test_route_decorators_need_a_web_framework_or_a_project_app() -> None:
    result = facts(
        """
        import functools
        from cachetools import cache

        @cache.get("/not/a/route")
        def cached(): ...

        @functools.lru_cache()
        def pure(): ...

        @app.get("/unknown-app")
        def unknown(): ...

        @router.post("relative")
        def relative(): ...

        from .main import api_router

        @api_router.delete("/orders/{id}")
        def project_router(id): ...
        """
    )
    # an object imported from the project and named like an app or router still declares routes
    assert result.http_routes == (route("DELETE", "/orders/{id}", 18, "project_router", "project_router"),)


# -- HTTP clients ---------------------------------------------------------------------------------


def test_requests_module_functions_and_url_spellings() -> None:
    result = facts(
        """
        import os
        import requests
        from requests import get as fetch
        from urllib.parse import urljoin

        ORDERS = os.environ.get("ORDERS_SERVICE_URL", "http://orders:8080")
        BILLING_HOST = os.getenv("BILLING_HOST")
        BILLING_PORT = os.getenv("BILLING_PORT", "80")
        SHIPPING = os.environ["SHIPPING_ADDR"]

        def a(order_id):
            requests.get(f"{ORDERS}/orders/{order_id}")
            requests.post(ORDERS + "/orders", json={})
            requests.put("%s/orders/%s" % (ORDERS, order_id))
            requests.delete("{}/orders/{}".format(ORDERS, order_id))
            requests.request("PATCH", f"{ORDERS}/orders/{order_id}?force=1")
            requests.get(f"http://{BILLING_HOST}:{BILLING_PORT}/invoices")
            requests.get("http://" + SHIPPING + "/shipments?x=1")
            requests.get(urljoin(ORDERS, "/health"))
            fetch("http://catalog:8000/items/%(id)s" % {"id": order_id})
            requests.request(method, "http://inventory/stock")
            requests.api.head(url="http://inventory/ping")
        """
    )
    orders = {"host": "orders", "address": "env:ORDERS_SERVICE_URL"}
    assert result.http_calls == (
        http("GET", "/orders/{order_id}", 12, "a", **orders),
        http("POST", "/orders", 13, "a", **orders),
        http("PUT", "/orders/{order_id}", 14, "a", **orders),
        http("DELETE", "/orders/{order_id}", 15, "a", **orders),
        http("PATCH", "/orders/{order_id}", 16, "a", **orders),
        http("GET", "/invoices", 17, "a", address="env:BILLING_HOST"),
        http("GET", "/shipments", 18, "a", address="env:SHIPPING_ADDR"),
        http("GET", "/health", 19, "a", **orders),
        http("GET", "/items/{order_id}", 20, "a", host="catalog"),
        http("*", "/stock", 21, "a", host="inventory"),
        http("HEAD", "/ping", 22, "a", host="inventory"),
    )


def test_client_objects_sessions_and_base_urls() -> None:
    result = facts(
        """
        import os
        import aiohttp
        import httpx
        import requests

        INVENTORY_URL = "http://inventory:8080"
        billing = httpx.Client(base_url="http://billing:9000/v2/")

        class Users:
            def __init__(self, base_url=os.environ.get("USERS_URL")):
                self.base_url = base_url
                self.session = requests.Session()

            def user(self, uid):
                return self.session.get(f"{self.base_url}/users/{uid}")

        async def stock(item):
            async with httpx.AsyncClient() as client:
                return await client.get(f"{INVENTORY_URL}/stock/{item}")

        async def audit(client: httpx.AsyncClient, event):
            await client.post("/audit", json=event)

        def charge(order):
            return billing.post(f"invoices/{order.id}")

        async def upload(session, item):
            async with session.put(INVENTORY_URL + "/items", json=item) as resp:
                return resp.status

        async def main():
            async with aiohttp.ClientSession() as session:
                await upload(session, {})
            requests.Session().delete("http://carts/carts/1")
        """
    )
    assert result.http_calls == (
        http("GET", "/users/{uid}", 15, "Users.user", address="env:USERS_URL"),
        http("GET", "/stock/{item}", 19, "stock", host="inventory", client="httpx"),
        http("POST", "/audit", 22, "audit", client="httpx"),
        http("POST", "/v2/invoices/{}", 25, "charge", host="billing", client="httpx"),
        http("PUT", "/items", 28, "upload", host="inventory", client="aiohttp"),
        http("DELETE", "/carts/1", 34, "main", host="carts"),
    )


def test_hosts_built_from_the_environment_with_domains_and_ports() -> None:
    # istio bookinfo's productpage: host, domain suffix and port each from the environment
    result = facts(
        """
        import os
        import requests

        servicesDomain = "" if (os.environ.get("SERVICES_DOMAIN") is None) else "." + os.environ.get("SERVICES_DOMAIN")
        detailsHostname = "details" if (os.environ.get("DETAILS_HOSTNAME") is None) else os.environ.get("DETAILS_HOSTNAME")
        detailsPort = "9080" if (os.environ.get("DETAILS_SERVICE_PORT") is None) else os.environ.get("DETAILS_SERVICE_PORT")
        details = {"name": "http://{0}{1}:{2}".format(detailsHostname, servicesDomain, detailsPort), "endpoint": "details"}

        def product(product_id, port, ns):
            requests.get(details["name"] + "/" + details["endpoint"] + "/" + str(product_id))
            requests.get("http://localhost:" + port + "/health")
            requests.get(f"http://orders.{ns}.svc.cluster.local:8080/orders")
            requests.get(f"http://{detailsHostname}{servicesDomain}:{detailsPort}")
        """
    )
    assert result.http_calls == (
        http("GET", "/details/{product_id}", 10, "product", host="details", address="env:DETAILS_HOSTNAME"),
        http("GET", "/health", 11, "product", host="localhost"),
        http("GET", "/orders", 12, "product", host="orders"),
        http("GET", "/", 13, "product", host="details", address="env:DETAILS_HOSTNAME"),
    )


def test_names_follow_python_scoping() -> None:
    result = facts(
        """
        import requests

        url = "http://a/module"
        BASE = "http://orders:80"

        def loop(urls):
            for url in urls:
                requests.get(url)

        def module_level():
            requests.get(url)

        def grown(uid):
            url = BASE
            url += "/orders/"
            url += str(uid)
            requests.post(url)

        def shadowed(url="http://b/default"):
            requests.get(url)
        """
    )
    assert result.http_calls == (
        http("GET", "", 8, "loop", computed=True),
        http("GET", "/module", 11, "module_level", host="a"),
        http("POST", "/orders/{uid}", 17, "grown", host="orders"),
        http("GET", "/default", 20, "shadowed", host="b"),
    )


def test_clients_made_by_factories_dependencies_and_annotations() -> None:
    result = facts(
        """
        from typing import Optional
        import httpx
        import redis
        from fastapi import Depends, FastAPI
        from kafka import KafkaProducer

        def get_redis():
            return redis.Redis(host="redis")

        def make():
            return httpx.Client(base_url="http://billing")

        class Service:
            client: httpx.AsyncClient

            def _http(self):
                return httpx.Client()

            async def go(self, producer: Optional[KafkaProducer], cache: "redis.Redis"):
                self._http().get("http://catalog/items")
                make().post("/invoices")
                get_redis().publish("events", "x")
                await self.client.get("/y")
                producer.send("audit", b"x")
                cache.publish("cache-events", "x")

        app = FastAPI()

        @app.post("/orders")
        def create(r=Depends(get_redis)):
            r.publish("orders", "x")
        """
    )
    assert result.http_calls == (
        http("GET", "/items", 20, "Service.go", host="catalog", client="httpx"),
        http("POST", "/invoices", 21, "Service.go", host="billing", client="httpx"),
        http("GET", "/y", 23, "Service.go", client="httpx"),
    )
    assert result.messages == (
        produce("redis", "events", 22, "channel", "redis-py", "Service.go"),
        produce("kafka", "audit", 24, "topic", "kafka-python", "Service.go"),
        produce("redis", "cache-events", 25, "channel", "redis-py", "Service.go"),
        produce("redis", "orders", 31, "channel", "redis-py", "create"),
    )


def test_fastapi_mounts_and_drf_routers_without_trailing_slash() -> None:
    result = facts(
        """
        from fastapi import FastAPI
        from fastapi.staticfiles import StaticFiles
        from rest_framework.routers import SimpleRouter
        from .v2 import app as v2_app

        app = FastAPI()
        v1 = FastAPI()

        @v1.get("/items")
        def items(): ...

        app.mount("/v1", v1)
        app.mount("/v2", v2_app)
        app.mount("/static", StaticFiles(directory="static"), name="static")
        router = SimpleRouter(trailing_slash=False)
        router.register("things", ThingViewSet)
        """
    )
    assert result.http_routes == (
        route("GET", "/v1/items", 9, "items", "items", "fastapi"),
        mount("/v2", 13, ".v2", "app", "fastapi"),
        route("*", "/things", 16, "ThingViewSet", "", "drf"),
        route("*", "/things/{pk}", 16, "ThingViewSet", "", "drf"),
    )


def test_urllib_urllib3_and_tornado_clients() -> None:
    result = facts(
        """
        import urllib.request
        import urllib3
        from urllib.request import urlopen, Request
        from tornado.httpclient import AsyncHTTPClient

        def f(body):
            urlopen("http://metrics:9090/api/v1/query")
            urllib.request.urlopen(Request("http://auth:8000/token", data=body))
            req = Request("http://auth:8000/refresh", method="PUT")
            urlopen(req)
            urlopen("http://auth:8000/login", body)
            pool = urllib3.PoolManager()
            pool.request("GET", "http://search:9200/_search")

        async def g():
            client = AsyncHTTPClient()
            await client.fetch("http://search:9200/stories", method="POST", body="{}")
        """
    )
    assert result.http_calls == (
        http("GET", "/api/v1/query", 7, "f", host="metrics", client="urllib"),
        http("POST", "/token", 8, "f", host="auth", client="urllib"),
        http("PUT", "/refresh", 10, "f", host="auth", client="urllib"),
        http("POST", "/login", 11, "f", host="auth", client="urllib"),
        http("GET", "/_search", 13, "f", host="search", client="urllib3"),
        http("POST", "/stories", 17, "g", host="search", client="tornado"),
    )


def test_locust_users_and_task_functions() -> None:
    result = facts(
        """
        from locust import HttpUser, TaskSet, task

        def index(l):
            l.client.get("/")

        class Shopper(HttpUser):
            @task
            def cart(self):
                self.client.post("/cart", {"id": 1})

        class NotLocust:
            def f(self):
                self.client.get("/nope")
        """
    )
    assert result.http_calls == (
        http("GET", "/", 4, "index", client="locust"),
        http("POST", "/cart", 9, "Shopper.cart", client="locust"),
    )


def test_get_and_post_of_other_objects_are_no_calls() -> None:
    result = facts(
        """
        import requests
        from flask import Flask
        from fastapi.testclient import TestClient
        from sqlalchemy.orm import Session

        app = Flask(__name__)
        cache = {}

        def f(session, db: Session, user_id):
            cache.get("/orders")
            session.get("/orders")
            db.get(User, user_id)
            app.test_request_context("/orders").get("/orders")
            app.test_cli_runner().invoke(args=["/orders"])
            TestClient(app).websocket_connect("/orders")
            requests.codes.get("ok")
            requests.exceptions.HTTPError("x")
            requests.get("http://real/x")
        """
    )
    assert result.http_calls == (http("GET", "/x", 18, "f", host="real"),)


def test_computed_urls_are_reported_never_guessed() -> None:
    result = facts(
        """
        import os
        import requests

        def callback(redirect_uri, token, urls):
            requests.post(url=redirect_uri, data={"t": token})
            requests.get(os.environ["WEBHOOK_URL"])
            for url in urls:
                requests.get(url)
            requests.get(f"{redirect_uri}/status")
            requests.get(build_url())
        """
    )
    assert result.http_calls == (
        http("POST", "", 5, "callback", computed=True),
        http("GET", "", 6, "callback", address="env:WEBHOOK_URL", computed=True),
        http("GET", "", 8, "callback", computed=True),
        http("GET", "/status", 9, "callback"),
        http("GET", "", 10, "callback", computed=True),
    )


def test_flask_config_assigned_from_the_environment_is_followed() -> None:
    # bank-of-anthos' frontend: the URI is assigned to app.config in the same file, from an env var
    result = facts(
        """
        import os
        import requests
        from flask import Flask, current_app

        def create_app():
            app = Flask(__name__)

            def _submit(data):
                return requests.post(url=app.config["TRANSACTIONS_URI"], data=data)

            def _add_contact(user):
                url = '{}/{}'.format(app.config["CONTACTS_URI"], user)
                return requests.post(url=url)

            app.config["TRANSACTIONS_URI"] = 'http://{}/transactions'.format(
                os.environ.get('TRANSACTIONS_API_ADDR'))
            app.config["CONTACTS_URI"] = 'http://{}/contacts'.format(os.environ.get('CONTACTS_API_ADDR'))
            return app

        def other():
            return requests.get(current_app.config.get("LEDGER_URI") + "/ledger")
        """
    )
    assert result.http_calls == (
        http("POST", "/transactions", 9, "create_app._submit", address="env:TRANSACTIONS_API_ADDR"),
        http("POST", "/contacts/{user}", 13, "create_app._add_contact", address="env:CONTACTS_API_ADDR"),
        http("GET", "/ledger", 21, "other", address="config:LEDGER_URI"),
    )


def test_settings_objects_and_constants_of_other_files_are_addresses() -> None:
    result = facts(
        """
        import requests
        from django.conf import settings
        from app.core.config import settings as app_settings
        from .config import API_BASE, Services
        import config

        def f():
            requests.get(f"{settings.PAYMENTS_URL}/charges")
            requests.get(app_settings.catalog_url + "/items")
            requests.get(f"{API_BASE}/x")
            requests.get(Services.CATALOG + "/items")
            requests.get(Services.CATALOG.value + "/items")
            requests.get(config.INVENTORY_URL + "/stock")
        """
    )
    assert [(c.path, c.address) for c in result.http_calls] == [
        ("/charges", "config:PAYMENTS_URL"),
        ("/items", "config:catalog_url"),
        ("/x", "const:API_BASE"),
        ("/items", "const:Services.CATALOG"),
        ("/items", "const:Services.CATALOG"),
        ("/stock", "const:INVENTORY_URL"),
    ]


# -- in-process test clients ----------------------------------------------------------------------


def test_flask_test_clients_of_test_cases_fixtures_and_helpers() -> None:
    # bank-of-anthos' tests: the app comes from a factory of the project, the client from setUp
    result = facts(
        """
        import unittest

        import pytest

        from contacts.contacts import create_app
        from tests.constants import EXAMPLE_USER


        class TestContacts(unittest.TestCase):
            def setUp(self):
                self.flask_app = create_app()
                self.test_app = self.flask_app.test_client()

            def test_contacts(self):
                self.test_app.get("/version")
                self.test_app.post("/contacts/{}".format(EXAMPLE_USER), data="{}")
                self.test_app.open("/contacts", method="PUT")
                self.test_app.get(query_string={"a": 1})
                response = self.test_app.get("http://localhost/ready")
                response.headers.get("/not-a-call")
                self.flask_app.config.get("/not-a-call")


        class TestMore(TestContacts):
            def test_more(self):
                self.test_app.delete(f"/contacts/{EXAMPLE_USER}/1")


        @pytest.fixture
        def app():
            app = create_app({"TESTING": True})
            yield app


        @pytest.fixture
        def client(app):
            return app.test_client()


        @pytest.fixture(name="logged_in")
        def logged_in_fixture(app):
            with app.test_client() as c:
                yield c


        class AuthActions:
            def __init__(self, client):
                self._client = client

            def login(self):
                return self._client.post("/auth/login", data={})


        @pytest.fixture
        def auth(client):
            return AuthActions(client)


        def test_index(client, logged_in, auth):
            client.get("/")
            logged_in.patch("/profile")
            app.test_request_context("/not-a-call").get("/not-a-call")
            app.test_cli_runner().invoke(args=["/not-a-call"])


        def helper(client):
            client.get("/not-a-test")


        def test_without_fixture(session):
            session.get("/unknown-fixture")
        """
    )
    flask = "flask-test"
    assert result.http_calls == (
        http("GET", "/version", 15, "TestContacts.test_contacts", client=flask),
        http("POST", "/contacts/{}", 16, "TestContacts.test_contacts", client=flask),
        http("PUT", "/contacts", 17, "TestContacts.test_contacts", client=flask),
        # no path: werkzeug's default "/"; a URL's host is the test server's, never kept
        http("GET", "/", 18, "TestContacts.test_contacts", client=flask),
        http("GET", "/ready", 19, "TestContacts.test_contacts", client=flask),
        # self.test_app assigned in the setUp of a base class of the file
        http("DELETE", "/contacts/{}/1", 26, "TestMore.test_more", client=flask),
        # a helper class handed the client by a fixture of the file
        http("POST", "/auth/login", 51, "AuthActions.login", client=flask),
        # fixtures of the file returning or yielding a client, one renamed by name=
        http("GET", "/", 60, "test_index", client=flask),
        http("PATCH", "/profile", 61, "test_index", client=flask),
    )
    # conftest.py may make `client` anything: without a sign in this file, nothing is a call
    unknown = facts(
        """
        import requests

        def test_orders(client, session):
            client.get("/orders")
            client.post("/orders", json={})
            session.get("/orders")
        """
    )
    assert unknown.http_calls == ()


def test_starlette_fastapi_and_in_process_httpx_clients() -> None:
    result = facts(
        """
        import httpx
        import pytest
        from fastapi.testclient import TestClient
        from httpx import ASGITransport, AsyncClient
        from mylib.testing import TestClient as OtherClient

        from app.core.config import settings
        from app.main import app

        client = TestClient(app)


        def test_items():
            client.get("/items/42?q=1")
            client.request("PATCH", "http://testserver/items/1")
            client.get(f"{settings.API_V1_STR}/users/")
            with TestClient(app) as c:
                c.post("/login", json={})
                c.websocket_connect("/ws")


        def test_annotated(api: TestClient, item_id):
            api.delete(f"/items/{item_id}")


        @pytest.fixture
        async def ac():
            async with AsyncClient(transport=ASGITransport(app=app), base_url="http://test") as ac:
                yield ac


        async def test_async(ac):
            await ac.get("/ping")


        async def test_httpx_clients():
            async with httpx.AsyncClient(app=app, base_url="http://test") as local:
                await local.put("/orders/1")
            async with httpx.AsyncClient(base_url="http://orders") as remote:
                await remote.get("/orders")
            OtherClient(app).get("/other-library")
        """
    )
    assert result.http_calls == (
        http("GET", "/items/42", 14, "test_items", client="testclient"),
        http("PATCH", "/items/1", 15, "test_items", client="testclient"),
        # full-stack-fastapi-template's spelling: the prefix is a setting
        http("GET", "/users/", 16, "test_items", address="config:API_V1_STR", client="testclient"),
        http("POST", "/login", 18, "test_items", client="testclient"),
        # a parameter annotated TestClient (the fixture lives in conftest.py)
        http("DELETE", "/items/{item_id}", 23, "test_annotated", client="testclient"),
        # httpx wired to the app (ASGITransport, app=) is in-process; base_url's host is no host
        http("GET", "/ping", 33, "test_async", client="testclient"),
        http("PUT", "/orders/1", 38, "test_httpx_clients", client="testclient"),
        http("GET", "/orders", 40, "test_httpx_clients", host="orders", client="httpx"),
    )


def test_django_and_drf_test_clients() -> None:
    result = facts(
        """
        import unittest

        import pytest
        from django.test import Client, RequestFactory, TestCase
        from django.urls import reverse
        from rest_framework.test import APIClient, APIRequestFactory, APITestCase

        from core.tests.base import ProjectTestCase


        class OrdersTest(TestCase):
            def test_orders(self):
                self.client.get("/orders/")
                self.client.post(reverse("orders:list"), {"a": 1})
                self.client.generic("OPTIONS", "/orders/")
                self.async_client.get("/orders/1/")
                self.client.login(username="a", password="b")
                self.client.cookies.get("/not-a-call")
                self.client.session.get("/not-a-call")


        class ApiBase(APITestCase):
            pass


        class OrdersApiTest(ApiBase):
            def test_put(self):
                self.client.put(f"/api/orders/{self.order.pk}/", {})


        class ProjectTest(ProjectTestCase):
            def test_project(self):
                self.client.get("/reports/")


        class StripeTest(TestCase):
            def setUp(self):
                self.client = make_stripe_client()

            def test_stripe(self):
                self.client.get("/not-a-test-client/")


        class PlainTest(unittest.TestCase):
            def test_plain(self):
                self.client.get("/not-a-test-client/")


        @pytest.mark.django_db
        def test_fixtures(client, admin_client, rf):
            client.get("/fn/")
            admin_client.delete("/admin/orders/1/")
            rf.get("/request-factory/")
            RequestFactory().get("/request-factory/")
            APIRequestFactory().post("/request-factory/")
            Client().head("/head/")
            APIClient().patch("/api/orders/1/")
        """
    )
    django = "django-test"
    assert result.http_calls == (
        http("GET", "/orders/", 13, "OrdersTest.test_orders", client=django),
        # reverse() names a route: the path is computed, reported, never guessed
        http("POST", "", 14, "OrdersTest.test_orders", client=django, computed=True),
        http("OPTIONS", "/orders/", 15, "OrdersTest.test_orders", client=django),
        http("GET", "/orders/1/", 16, "OrdersTest.test_orders", client=django),
        # through a base class of the file, and a project's own base test case in a Django test file
        http("PUT", "/api/orders/{}/", 28, "OrdersApiTest.test_put", client=django),
        http("GET", "/reports/", 33, "ProjectTest.test_project", client=django),
        # pytest-django's fixtures, and the clients made directly
        http("GET", "/fn/", 51, "test_fixtures", client=django),
        http("DELETE", "/admin/orders/1/", 52, "test_fixtures", client=django),
        http("HEAD", "/head/", 56, "test_fixtures", client=django),
        http("PATCH", "/api/orders/1/", 57, "test_fixtures", client=django),
    )


def test_aiohttp_test_clients() -> None:
    result = facts(
        """
        import pytest
        from aiohttp import ClientSession, web
        from aiohttp.test_utils import AioHTTPTestCase, TestClient, TestServer

        from shop.app import create_app


        @pytest.fixture
        def cli(event_loop, aiohttp_client):
            app = web.Application()
            return event_loop.run_until_complete(aiohttp_client(app))


        async def test_hello(cli):
            resp = await cli.get("/")
            assert resp.status == 200
            resp.headers.get("/not-a-call")


        async def test_direct(aiohttp_client):
            client = await aiohttp_client(create_app())
            await client.post("/orders", json={})
            await client.request("DELETE", "/orders/1")
            await client.ws_connect("/ws")


        class ShopTestCase(AioHTTPTestCase):
            async def get_application(self):
                return create_app()

            async def test_root(self):
                async with self.client.request("GET", "/") as resp:
                    assert resp.status == 200


        async def test_server():
            async with TestClient(TestServer(create_app())) as client:
                await client.put("/cart/1")
            async with ClientSession() as session:
                await session.get("http://payments/charges")
        """
    )
    aio = "aiohttp-test"
    assert result.http_calls == (
        http("GET", "/", 15, "test_hello", client=aio),
        http("POST", "/orders", 22, "test_direct", client=aio),
        http("DELETE", "/orders/1", 23, "test_direct", client=aio),
        http("GET", "/", 32, "ShopTestCase.test_root", client=aio),
        http("PUT", "/cart/1", 38, "test_server", client=aio),
        http("GET", "/charges", 40, "test_server", host="payments", client="aiohttp"),
    )


def test_sanic_webtest_falcon_tornado_litestar_werkzeug_and_quart_test_clients() -> None:
    result = facts(
        """
        from falcon import testing
        from litestar.testing import TestClient as LitestarClient
        from quart import Quart
        from sanic import Sanic
        from tornado.testing import AsyncHTTPTestCase
        from webtest import TestApp
        from werkzeug.test import Client

        from shop import create_app, wsgi_app

        app = Sanic("shop")


        def test_sanic():
            request, response = app.test_client.get("/sanic")


        def test_webtest():
            TestApp(wsgi_app).post_json("/webtest", {"a": 1})


        def test_falcon():
            testing.TestClient(create_app()).simulate_get("/falcon")


        class FalconTest(testing.TestCase):
            def test_falcon_case(self):
                self.simulate_request(method="POST", path="/falcon-case")


        class TornadoTest(AsyncHTTPTestCase):
            def test_fetch(self):
                self.fetch("/tornado", method="POST", body="")


        def test_litestar():
            with LitestarClient(app=create_app()) as client:
                client.get("/litestar")


        def test_werkzeug():
            Client(wsgi_app).open("/werkzeug", method="PATCH")


        async def test_quart():
            await Quart(__name__).test_client().get("/quart")
        """
    )
    assert result.http_calls == (
        http("GET", "/sanic", 15, "test_sanic", client="sanic-test"),
        http("POST", "/webtest", 19, "test_webtest", client="webtest"),
        http("GET", "/falcon", 23, "test_falcon", client="falcon-test"),
        http("POST", "/falcon-case", 28, "FalconTest.test_falcon_case", client="falcon-test"),
        http("POST", "/tornado", 33, "TornadoTest.test_fetch", client="tornado-test"),
        http("GET", "/litestar", 38, "test_litestar", client="testclient"),
        http("PATCH", "/werkzeug", 42, "test_werkzeug", client="werkzeug-test"),
        http("GET", "/quart", 46, "test_quart", client="quart-test"),
    )


def test_subclasses_of_sessions_and_test_clients_are_clients() -> None:
    result = facts(
        """
        import requests
        from rest_framework.test import APIClient

        class AuthClient(APIClient):
            def force_authenticate(self, user):
                super().force_authenticate(user)

        class BillingSession(requests.Session):
            pass

        class Retrying(BillingSession):
            pass

        def test_me():
            AuthClient().get("/api/me/")
            Retrying().post("http://billing/charges")
        """
    )
    assert result.http_calls == (
        http("GET", "/api/me/", 15, "test_me", client="django-test"),
        http("POST", "/charges", 16, "test_me", host="billing"),
    )


# -- request wrappers ------------------------------------------------------------------------------


def test_request_wrappers_handed_to_a_client_in_the_file_are_calls_where_the_url_is_given() -> None:
    # bank-of-anthos' frontend and api_call.py in one file: the URL is given to ApiRequest, and
    # ApiCall.make_call sends it; app.config["X"] read in an f-string gives the env var and the path
    result = facts(
        """
        import os
        from collections import namedtuple
        from dataclasses import dataclass
        from typing import NamedTuple, Optional

        import httpx
        import requests
        from flask import Flask


        class ApiRequest:
            def __init__(self, url, headers, timeout):
                self.url = url
                self.headers = headers
                self.timeout = timeout


        class ApiCall:
            def __init__(self, display_name, api_request):
                self.display_name = display_name
                self.api_request = api_request

            def make_call(self):
                return requests.get(url=self.api_request.url, headers=self.api_request.headers)


        def create_app():
            app = Flask(__name__)

            @app.route("/home")
            def home(token_data):
                account_id = token_data["acct"]
                return [
                    ApiCall("b", ApiRequest(url=f'{app.config["BALANCES_URI"]}/{account_id}', headers={}, timeout=3)),
                    ApiCall("h", api_request=ApiRequest(f'{app.config["HISTORY_URI"]}/{account_id}', {}, 3)),
                ]

            app.config["BALANCES_URI"] = 'http://{}/balances'.format(os.environ.get("BALANCES_API_ADDR"))
            app.config["HISTORY_URI"] = 'http://{}/transactions'.format(os.environ.get("HISTORY_API_ADDR"))
            return app


        @dataclass
        class Job:
            method: str
            target: str
            body: Optional[dict] = None


        billing = httpx.Client(base_url=os.environ.get("BILLING_URL", "http://billing:8000/api"))


        def send(job: Job):
            return billing.request(job.method, job.target, json=job.body)


        JOBS = [Job("POST", "/invoices"), Job(method="DELETE", target="/invoices/1"), Job("GET", "http://audit/log")]

        Hook = namedtuple("Hook", "name url")


        class Endpoint(NamedTuple):
            url: str


        def fire(hook, endpoint: Endpoint):
            requests.post(hook.url)
            requests.put(endpoint.url)


        def main():
            fire(Hook("audit", "http://hooks:8080/audit"), Endpoint("http://hooks/endpoint"))


        class Logged:
            def __init__(self, url):
                self.url = url


        def log(entry: Logged):
            print(entry.url)


        Logged("http://not-sent/")
        """
    )
    assert result.http_calls == (
        http("GET", "/balances/{account_id}", 34, "create_app.home", address="env:BALANCES_API_ADDR"),
        http("GET", "/transactions/{account_id}", 35, "create_app.home", address="env:HISTORY_API_ADDR"),
        # a dataclass whose method is a field too, sent by a client with a base URL
        http("POST", "/invoices", 57, host="billing", address="env:BILLING_URL", client="httpx"),
        http("DELETE", "/invoices/1", 57, host="billing", address="env:BILLING_URL", client="httpx"),
        http("GET", "/log", 57, host="audit", client="httpx"),
        # a namedtuple() and a NamedTuple class, passed to the helper that sends them
        http("POST", "/audit", 72, "main", host="hooks"),
        http("PUT", "/endpoint", 72, "main", host="hooks"),
    )
    # the hand-off alone (api_call.py): a computed call, where the request is sent
    elsewhere = facts(
        """
        from requests import get


        class ApiRequest:
            def __init__(self, url, headers, timeout):
                self.url = url
                self.headers = headers
                self.timeout = timeout


        class ApiCall:
            def __init__(self, display_name, api_request, logger):
                self.api_request = api_request

            def make_call(self):
                return get(url=self.api_request.url, headers=self.api_request.headers, timeout=self.api_request.timeout)
        """
    )
    assert elsewhere.http_calls == (http("GET", "", 16, "ApiCall.make_call", computed=True),)
    # the constructions alone (frontend.py): the wrapper is imported, its hand-off unseen
    imported = facts(
        """
        import requests
        from flask import Flask
        from api_call import ApiCall, ApiRequest

        app = Flask(__name__)

        @app.route("/home")
        def home():
            return ApiCall("b", ApiRequest(url=f'{app.config["BALANCES_URI"]}/1', headers={}, timeout=3))
        """
    )
    assert imported.http_calls == ()


def test_constructor_arguments_reach_the_init_parameters() -> None:
    result = facts(
        """
        import os
        import requests


        class OrdersClient:
            def __init__(self, base_url, session=None):
                self.base_url = base_url.rstrip("/")

            def order(self, order_id):
                return requests.get(f"{self.base_url}/orders/{order_id}")


        orders = OrdersClient(os.environ["ORDERS_URL"])
        """
    )
    assert result.http_calls == (http("GET", "/orders/{order_id}", 10, "OrdersClient.order", address="env:ORDERS_URL"),)


def test_dapr_service_invocation_and_its_http_api() -> None:
    result = facts(
        """
        import os
        import requests
        from dapr.clients import DaprClient
        from dapr.ext.grpc import App

        base_url = os.getenv('BASE_URL', 'http://localhost') + ':' + os.getenv('DAPR_HTTP_PORT', '3500')
        headers = {'dapr-app-id': 'order-processor', 'content-type': 'application/json'}
        app = App()

        def checkout(order):
            requests.post(url='%s/orders' % (base_url), json=order, headers=headers)
            requests.get(f"{base_url}/v1.0/invoke/inventory/method/stock/{order}")
            with DaprClient() as d:
                d.invoke_method('dapr-post', 'meta', data='{}', http_verb='post')

        @app.method(name='forward')
        def forward(request): ...
        """
    )
    assert result.http_calls == (
        http("POST", "/orders", 11, "checkout", host="order-processor"),
        http("GET", "/stock/{order}", 12, "checkout", host="inventory"),
        http("POST", "/meta", 14, "checkout", host="dapr-post", client="dapr"),
    )
    assert result.http_routes == (route("*", "/forward", 16, "forward", "forward", "dapr"),)


# -- messaging ------------------------------------------------------------------------------------


def test_kafka_python_confluent_and_aiokafka() -> None:
    result = facts(
        """
        import os
        from kafka import KafkaProducer, KafkaConsumer
        from confluent_kafka import Producer, Consumer
        from aiokafka import AIOKafkaProducer, AIOKafkaConsumer
        from .topics import ORDERS_TOPIC, Topics

        PAYMENTS_TOPIC = "payments"
        AUDIT = os.getenv("AUDIT_TOPIC", "audit-events")

        producer = KafkaProducer(bootstrap_servers="kafka:9092")
        producer.send("orders", b"x")
        producer.send(topic=PAYMENTS_TOPIC, value=b"x")
        producer.send(ORDERS_TOPIC, b"x")
        producer.send(Topics.SHIPPED, b"x")
        producer.send(AUDIT, b"x")
        consumer = KafkaConsumer("orders", "refunds", bootstrap_servers="kafka:9092")
        consumer.subscribe(["payments"])
        consumer.subscribe(pattern="^order.*")
        p = Producer({"bootstrap.servers": "kafka"})
        p.produce("invoices", value=b"x")
        c = Consumer({"group.id": "x"})
        c.subscribe(["invoices"])

        class Publisher:
            def __init__(self):
                self._producer = AIOKafkaProducer(bootstrap_servers="k")
            async def publish(self, topic, event):
                await self._producer.send_and_wait(topic, event)

        async def consume():
            consumer = AIOKafkaConsumer("created", bootstrap_servers="k")
        """
    )
    kafka = "kafka-python"
    assert result.messages == (
        produce("kafka", "orders", 11, "topic", kafka),
        produce("kafka", "payments", 12, "topic", kafka),
        produce("kafka", "", 13, "topic", kafka, address="const:ORDERS_TOPIC"),
        produce("kafka", "", 14, "topic", kafka, address="const:Topics.SHIPPED"),
        produce("kafka", "audit-events", 15, "topic", kafka, address="env:AUDIT_TOPIC"),
        consume("kafka", "orders", 16, "topic", kafka),
        consume("kafka", "refunds", 16, "topic", kafka),
        consume("kafka", "payments", 17, "topic", kafka),
        consume("kafka", "", 18, "topic", kafka),
        produce("kafka", "invoices", 20, "topic", "confluent-kafka"),
        consume("kafka", "invoices", 22, "topic", "confluent-kafka"),
        produce("kafka", "", 28, "topic", "aiokafka", "Publisher.publish"),
        consume("kafka", "created", 31, "topic", "aiokafka", "consume"),
    )


def test_kafka_objects_made_elsewhere_are_known_by_name_only_with_kafka_imported() -> None:
    with_kafka = facts(
        """
        from kafka.errors import KafkaError

        class Events:
            def emit(self, event):
                self._producer.send("events", event)
                self.mailer.send("events")
        """
    )
    assert with_kafka.messages == (produce("kafka", "events", 5, "topic", "kafka-python", "Events.emit"),)
    without = facts(
        """
        class Events:
            def emit(self, event):
                self._producer.send("events", event)
        """
    )
    assert without.messages == ()


def test_pika_publish_consume_and_bindings() -> None:
    result = facts(
        """
        import os
        import pika

        connection = pika.BlockingConnection(pika.ConnectionParameters("rabbitmq"))
        channel = connection.channel()
        channel.queue_declare(queue="task_queue", durable=True)
        channel.basic_publish(exchange="", routing_key="task_queue", body="x")
        channel.exchange_declare(exchange="logs", exchange_type="fanout")
        channel.basic_publish(exchange="logs", routing_key="", body="x")
        channel.basic_publish("orders", "order.created", "body")
        result = channel.queue_declare(queue="", exclusive=True)
        queue_name = result.method.queue
        channel.queue_bind(exchange="logs", queue=queue_name)
        channel.queue_bind(queue=queue_name, exchange="topic_logs", routing_key="kern.*")
        def callback(ch, method, properties, body): ...
        channel.basic_consume(queue="task_queue", on_message_callback=callback)
        channel.basic_consume(callback, queue="hello")
        channel.basic_consume(queue=queue_name, on_message_callback=callback, auto_ack=True)
        QUEUE = os.environ.get("QUEUE", "jobs")
        channel.basic_consume(queue=QUEUE, on_message_callback=callback)

        class Publisher:
            EXCHANGE = "robot-shop"
            ROUTING_KEY = "orders"

            def publish(self, msg):
                self._channel.basic_publish(exchange=self.EXCHANGE, routing_key=self.ROUTING_KEY, body=msg)
        """
    )
    assert result.messages == (
        produce("rabbitmq", "task_queue", 7, "queue", "pika"),
        produce("rabbitmq", "logs", 9, "exchange", "pika"),
        produce("rabbitmq", "orders", 10, "exchange", "pika"),
        produce("rabbitmq", "order.created", 10, "routing_key", "pika"),
        consume("rabbitmq", "logs", 13, "exchange", "pika"),
        consume("rabbitmq", "topic_logs", 14, "exchange", "pika"),
        consume("rabbitmq", "task_queue", 16, "queue", "pika"),
        consume("rabbitmq", "hello", 17, "queue", "pika"),
        consume("rabbitmq", "jobs", 20, "queue", "pika", address="env:QUEUE"),
        produce("rabbitmq", "robot-shop", 27, "exchange", "pika", "Publisher.publish"),
        produce("rabbitmq", "orders", 27, "routing_key", "pika", "Publisher.publish"),
    )


def test_aio_pika_exchanges_and_queues() -> None:
    result = facts(
        """
        import aio_pika

        async def main(on_message):
            connection = await aio_pika.connect_robust("amqp://rabbitmq/")
            async with connection:
                channel = await connection.channel()
                exchange = await channel.declare_exchange("events", aio_pika.ExchangeType.TOPIC)
                await exchange.publish(aio_pika.Message(body=b"x"), routing_key="user.created")
                await channel.default_exchange.publish(aio_pika.Message(body=b"x"), routing_key="tasks")
                queue = await channel.declare_queue("notifications", durable=True)
                await queue.bind(exchange, routing_key="user.*")
                await queue.consume(on_message)
        """
    )
    lib = "aio-pika"
    assert result.messages == (
        produce("rabbitmq", "events", 8, "exchange", lib, "main"),
        produce("rabbitmq", "user.created", 8, "routing_key", lib, "main"),
        produce("rabbitmq", "tasks", 9, "queue", lib, "main"),
        consume("rabbitmq", "events", 11, "exchange", lib, "main"),
        consume("rabbitmq", "notifications", 12, "queue", lib, "main"),
    )


def test_kombu_and_celery_named_queues() -> None:
    result = facts(
        """
        from kombu import Connection, Exchange, Queue, Consumer
        from celery import Celery, shared_task

        conn = Connection("amqp://rabbit")
        media = Exchange("media", type="direct")
        video_queue = Queue("video", exchange=media, routing_key="video")
        producer = conn.Producer()
        producer.publish({"x": 1}, exchange=media, routing_key="video", declare=[video_queue])
        with Consumer(conn, queues=[video_queue], callbacks=[print]):
            pass

        app = Celery("tasks", broker="amqp://")

        @app.task(queue="emails")
        def send_email(to): ...

        send_email.apply_async(args=["x"], queue="emails")
        send_email.delay("x")
        app.send_task("tasks.report", queue="reports")

        @shared_task(queue="slow")
        def slow(): ...
        """
    )
    assert result.messages == (
        produce("rabbitmq", "media", 8, "exchange", "kombu"),
        produce("rabbitmq", "video", 8, "routing_key", "kombu"),
        consume("rabbitmq", "video", 9, "queue", "kombu"),
        consume("", "emails", 14, "queue", "celery"),
        produce("", "emails", 17, "queue", "celery"),
        produce("", "reports", 19, "queue", "celery"),
        consume("", "slow", 21, "queue", "celery"),
    )


def test_nats_subjects() -> None:
    result = facts(
        """
        import nats

        async def run():
            nc = await nats.connect("nats://nats:4222")
            await nc.publish("updates", b"x")
            await nc.subscribe("updates", cb=None, queue="workers")
            js = nc.jetstream()
            await js.publish("orders.created", b"x")
            await js.pull_subscribe("orders.*", "durable")
            await nc.request("help", b"x")
        """
    )
    lib = "nats-py"
    assert result.messages == (
        produce("nats", "updates", 5, "subject", lib, "run"),
        consume("nats", "updates", 6, "subject", lib, "run"),
        produce("nats", "orders.created", 8, "subject", lib, "run"),
        consume("nats", "orders.*", 9, "subject", lib, "run"),
        produce("nats", "help", 10, "subject", lib, "run"),
    )


def test_redis_pubsub_and_streams() -> None:
    result = facts(
        """
        import redis

        r = redis.Redis(host="redis")
        r.publish("notifications", "{}")
        ps = r.pubsub()
        ps.subscribe("notifications", "alerts")
        ps.psubscribe("orders.*")
        r.xadd("events-stream", {"a": 1})
        r.xreadgroup("grp", "c1", {"events-stream": ">"})
        r.get("notifications")
        r.set("alerts", 1)
        """
    )
    lib = "redis-py"
    assert result.messages == (
        produce("redis", "notifications", 4, "channel", lib),
        consume("redis", "notifications", 6, "channel", lib),
        consume("redis", "alerts", 6, "channel", lib),
        consume("redis", "", 7, "channel", lib),
        produce("redis", "events-stream", 8, "topic", lib),
        consume("redis", "events-stream", 9, "topic", lib),
    )


def test_redis_channels_from_the_environment() -> None:
    # elgris' microservice-app-example: the log processor subscribes to a channel its env names
    result = facts(
        """
        import os
        import redis

        redis_channel = os.environ["REDIS_CHANNEL"]
        pubsub = redis.Redis(host=os.environ["REDIS_HOST"], port=6379, db=0).pubsub()
        pubsub.subscribe([redis_channel])

        class Cache:
            def __init__(self, redis_client):
                self.redis = redis_client

            def notify(self, event):
                self.redis.publish("notifications", event)
        """
    )
    assert result.messages == (
        consume("redis", "", 6, "channel", "redis-py", address="env:REDIS_CHANNEL"),
        produce("redis", "notifications", 13, "channel", "redis-py", "Cache.notify"),
    )


def test_boto3_sqs_and_sns() -> None:
    result = facts(
        """
        import os
        import boto3

        sqs = boto3.client("sqs")
        QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/orders-queue"
        sqs.send_message(QueueUrl=QUEUE_URL, MessageBody="x")
        sqs.receive_message(QueueUrl=os.environ["JOBS_QUEUE_URL"])
        url = sqs.get_queue_url(QueueName="refunds")["QueueUrl"]
        sqs.send_message(QueueUrl=url, MessageBody="x")
        sns = boto3.client("sns", region_name="us-east-1")
        sns.publish(TopicArn="arn:aws:sns:us-east-1:123456789012:order-events", Message="x")
        resource = boto3.resource("sqs")
        queue = resource.get_queue_by_name(QueueName="inbox")
        queue.send_message(MessageBody="x")
        s3 = boto3.client("s3")
        s3.publish("x")
        """
    )
    assert result.messages == (
        produce("sqs", "orders-queue", 6, "queue", "boto3"),
        consume("sqs", "", 7, "queue", "boto3", address="env:JOBS_QUEUE_URL"),
        produce("sqs", "refunds", 9, "queue", "boto3"),
        produce("sns", "order-events", 11, "topic", "boto3"),
        produce("sqs", "inbox", 14, "queue", "boto3"),
    )


def test_google_pubsub() -> None:
    result = facts(
        """
        from google.cloud import pubsub_v1

        publisher = pubsub_v1.PublisherClient()
        topic_path = publisher.topic_path("my-project", "user-events")
        publisher.publish(topic_path, b"x")
        publisher.publish("projects/p/topics/audit", b"x")
        subscriber = pubsub_v1.SubscriberClient()
        sub_path = subscriber.subscription_path("my-project", "user-events-sub")
        subscriber.subscribe(sub_path, callback=print)
        """
    )
    lib = "google-cloud-pubsub"
    assert result.messages == (
        produce("pubsub", "user-events", 5, "topic", lib),
        produce("pubsub", "audit", 6, "topic", lib),
        consume("pubsub", "user-events-sub", 9, "queue", lib),
    )


def test_dapr_publish_and_subscriptions() -> None:
    result = facts(
        """
        import os
        import requests
        from flask import Flask, jsonify
        from dapr.clients import DaprClient
        from dapr.ext.fastapi import DaprApp

        topicName = os.getenv('TOPIC_NAME', 'sentiment')
        PUBSUB_NAME = 'orderpubsub'
        TOPIC = 'orders'
        dapr_app = DaprApp(None)
        app = Flask(__name__)

        @dapr_app.subscribe(pubsub='orderpubsub', topic=topicName)
        def on_sentiment(event): ...

        @app.route('/dapr/subscribe', methods=['GET'])
        def subscribe():
            return jsonify([{'pubsubname': 'orderpubsub', 'topic': 'A', 'route': 'A'}])

        def publish(order):
            with DaprClient() as client:
                client.publish_event(pubsub_name='orderpubsub', topic_name='orders', data='{}')
                client.publish_event('orderpubsub', TOPIC, '{}')
            requests.post('%s/v1.0/publish/%s/%s' % ('http://localhost:3500', PUBSUB_NAME, TOPIC), json=order)
        """
    )
    assert result.messages == (
        consume("", "sentiment", 13, "topic", "dapr", address="env:TOPIC_NAME"),
        consume("", "A", 18, "topic", "dapr", "subscribe"),
        produce("", "orders", 22, "topic", "dapr", "publish"),
        produce("", "orders", 23, "topic", "dapr", "publish"),
        produce("", "orders", 24, "topic", "dapr", "publish"),
    )
    assert result.http_calls == (http("POST", "/v1.0/publish/orderpubsub/orders", 24, "publish", host="localhost"),)


def test_publish_and_send_of_other_objects_are_no_messages() -> None:
    result = facts(
        """
        import json
        from flask_mail import Mail
        from blinker import signal

        mail = Mail()
        ready = signal("ready")

        def f(events, bus, socket):
            mail.send("hello")
            ready.send("x")
            events.publish("orders", {})
            bus.subscribe("orders", print)
            socket.send(json.dumps({}))
            channel.basic_publish(exchange="", routing_key="real", body="")
        """
    )
    # basic_publish is AMQP's own spelling, whatever made the channel
    assert result.messages == (produce("rabbitmq", "real", 14, "queue", "pika", "f"),)


# -- constants ------------------------------------------------------------------------------------


def test_constants_that_name_links_are_kept_and_secrets_never() -> None:
    result = facts(
        """
        from enum import Enum
        from typing import Final

        ORDERS_TOPIC = "orders"
        API_URL: Final = "http://api:8080/v1"
        PAYMENTS_QUEUE = 'payments'
        API_KEY = "orders-key"
        AUTH_TOKEN_URL = "http://auth/token"
        TIMEOUT = "30"
        GREETING_PATH = "hello world"
        __path__ = "x"
        DB_URL = "postgres://user:hunter2@db/orders"
        LONG_URL = "http://x/" + "y"
        TEMPLATE_URL = f"http://{host}/x"


        class Topics(str, Enum):
            ORDERS = "orders.v1"
            REFUNDS = "refunds.v1"


        class Settings:
            events_channel = "events"
            name = "orders"


        def f():
            LOCAL_URL = "http://local"
        """
    )
    assert result.constants == (
        Constant("ORDERS_TOPIC", "orders", 4),
        Constant("API_URL", "http://api:8080/v1", 5),
        Constant("PAYMENTS_QUEUE", "payments", 6),
        Constant("Topics.ORDERS", "orders.v1", 18),
        Constant("Topics.REFUNDS", "refunds.v1", 19),
        Constant("Settings.events_channel", "events", 23),
    )


def test_files_without_links_only_give_constants() -> None:
    result = facts(
        """
        import json

        ORDERS_URL = "http://orders"

        def f(d):
            return d.get("/x"), json.dumps(d)
        """
    )
    assert (result.http_routes, result.http_calls, result.messages) == ((), (), ())
    assert result.constants == (Constant("ORDERS_URL", "http://orders", 3),)


# -- properties -----------------------------------------------------------------------------------

SAMPLE = """
import os, requests, httpx, pika, redis
from flask import Flask, Blueprint
from fastapi import APIRouter
from kafka import KafkaProducer
from django.urls import path, include

BASE = os.environ.get("ORDERS_URL", "http://orders:8080")
ORDERS_TOPIC = "orders"
app = Flask(__name__)
bp = Blueprint("b", __name__, url_prefix="/api")
router = APIRouter(prefix="/v1")

@bp.route("/orders/<int:id>", methods=["GET", "POST"])
def order(id):
    requests.get(f"{BASE}/orders/{id}?x=1")
    requests.post("%s/x/%s" % (BASE, id))
    return httpx.Client(base_url=BASE).get("/items")

@router.get("/{item_id:path}")
async def item(item_id):
    KafkaProducer().send(ORDERS_TOPIC, b"x")
    redis.Redis().pubsub().subscribe("c")

channel = pika.BlockingConnection().channel()
channel.basic_publish(exchange="ex", routing_key="rk", body="")
app.register_blueprint(bp)
urlpatterns = [path("a/", include("a.urls")), path("b/<int:pk>/", view)]
"""

#: In-process test clients and a request wrapper: fixtures, a test case, a helper sending a field.
CLIENT_SAMPLE = """
import pytest, requests
from django.test import TestCase
from fastapi.testclient import TestClient
from shop import create_app, app


class ApiRequest:
    def __init__(self, url, headers=None):
        self.url = url
        self.headers = headers


def send(req: ApiRequest):
    return requests.get(req.url, headers=req.headers)


@pytest.fixture
def client():
    with create_app().test_client() as c:
        yield c


def test_orders(client, order_id):
    client.get(f"/orders/{order_id}?full=1")
    send(ApiRequest("http://orders:8080/orders/" + order_id))


class OrdersTest(TestCase):
    def test_list(self):
        self.client.post("/orders/", {"a": 1})
        TestClient(app).delete(f"/orders/{self.id}")
"""


def test_verbs_that_are_no_words_are_never_kept_as_written() -> None:
    # found by INV-LINKS-1: a mutated methods=[...] list gave a route whose verb was ""
    result = facts(
        """
        from aiohttp import web
        from flask import Flask

        app = Flask(__name__)

        @app.route("/x", methods=["", "post"])
        def x():
            pass

        routes = [web.route("1", "/y", handler)]
        """
    )
    assert [(r.method, r.path) for r in result.http_routes] == [("POST", "/x"), ("*", "/y")]


def test_facts_are_deterministic_and_in_source_order() -> None:
    first = facts(SAMPLE)
    assert first.http_routes and first.http_calls and first.messages and first.constants
    clients = facts(CLIENT_SAMPLE)
    assert {call.client for call in clients.http_calls} == {"flask-test", "requests", "django-test", "testclient"}
    for sample, found in ((SAMPLE, first), (CLIENT_SAMPLE, clients)):
        assert found == facts(sample)
        for group in (found.http_routes, found.http_calls, found.messages, found.constants):
            lines = [fact.line for fact in group]
            assert lines == sorted(lines)


def test_facts_do_not_depend_on_the_hash_seed() -> None:
    script = (
        "import sys; from mesh.index.parse import _python\n"
        "f = _python.extract(sys.stdin.buffer.read())\n"
        "print(repr((f.http_routes, f.http_calls, f.messages, f.constants)))\n"
    )
    outputs = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=(SAMPLE + CLIENT_SAMPLE).encode(),
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert b"HttpRoute(" in done.stdout and b"HttpCall(" in done.stdout and b"MessageFact(" in done.stdout


def test_speed_on_a_large_file_of_links() -> None:
    unit = textwrap.dedent(
        """
        @bp.route("/orders{n}/<int:id>", methods=["GET", "POST"])
        def order{n}(id):
            url = f"{{BASE}}/orders/{{id}}"
            requests.post(url + "/items", json={{}})
            with httpx.Client(base_url=BASE) as client:
                client.get(f"/items/{{id}}")
            producer.send(ORDERS_TOPIC, b"x")
            return cache.get(url)
        """
    )
    head = SAMPLE.split("@bp.route", 1)[0] + "producer = KafkaProducer()\ncache = {}\n"
    source = (head + "".join(unit.format(n=n) for n in range(300))).encode()
    _python.extract(source)
    start = time.process_time()
    result = _python.extract(source)
    elapsed = time.process_time() - start
    assert len(result.http_routes) == 600 and len(result.http_calls) == 600 and len(result.messages) == 300
    assert elapsed < 3.0


def test_speed_on_a_large_file_of_test_clients_and_wrappers() -> None:
    unit = textwrap.dedent(
        """
        def test_{n}(client, order_id):
            client.get(f"/orders/{{order_id}}/{n}")
            send(ApiRequest("http://orders:8080/orders/{n}"))
            cache.get("/x")

        class Orders{n}Test(TestCase):
            def test_list(self):
                self.client.post("/orders/{n}/", {{"a": 1}})
        """
    )
    head = CLIENT_SAMPLE.split("def test_orders", 1)[0] + "cache = {}\n"
    source = (head + "".join(unit.format(n=n) for n in range(300))).encode()
    _python.extract(source)
    start = time.process_time()
    result = _python.extract(source)
    elapsed = time.process_time() - start
    assert len(result.http_calls) == 900
    assert {call.client for call in result.http_calls} == {"flask-test", "requests", "django-test"}
    assert elapsed < 3.0


@settings(max_examples=150, deadline=None)
@given(st.data())
@example(None)
def test_links_extraction_is_total(data: st.DataObject | None) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception.

    A realistic snippet mutated at random (bytes dropped, replaced, duplicated) always comes back as
    facts, the same twice, each of the contract's shape. The snippets hold routes, calls, messages,
    constants, in-process test clients and a request wrapper."""
    source = SAMPLE.encode()
    if data is not None:
        source = data.draw(st.sampled_from([SAMPLE, CLIENT_SAMPLE])).encode()
        for _ in range(data.draw(st.integers(0, 8))):
            start = data.draw(st.integers(0, len(source)))
            end = data.draw(st.integers(start, min(len(source), start + 40)))
            junk = data.draw(
                st.binary(max_size=12) | st.sampled_from([b"(", b"f'{", b"[", b"'", b'"""', b"\xff", b"%s"])
            )
            source = source[:start] + junk + source[end:]
    found = _python.extract(source)
    assert found == _python.extract(source)
    assert extract("app.py", source) == found
    if data is None:
        assert found.http_routes and found.http_calls and found.messages and found.constants
    for route_fact in found.http_routes:
        assert route_fact.path.startswith("/") and (route_fact.method == "*" or route_fact.method.isupper())
    for call_fact in found.http_calls:
        assert call_fact.computed == (call_fact.path == "") and call_fact.line >= 1
    for message in found.messages:
        assert message.role in ("produce", "consume") and message.line >= 1
