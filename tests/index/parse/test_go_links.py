"""Go links: HTTP routes, HTTP calls and messaging facts, and the constants that name them.

Every framework and client library is tried on a realistic snippet, with look-alikes beside the real
thing (a ``Get`` on a cache, a ``Publish`` on a type of the file, a request handed to a handler under
test), the prefixes a file gives (groups, subrouters, closures, mounts) and URLs nothing can read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import Constant, FileFacts, HttpCall, HttpRoute, MessageFact
from mesh.index.parse import _go, extract


def facts(source: str) -> FileFacts:
    result = _go.extract(textwrap.dedent(source).lstrip("\n").encode())
    assert result.error == ""
    return result


def test_net_http_patterns_methods_wildcards_constants_and_strip_prefix_mounts() -> None:
    """Go 1.22 patterns give the method; a host is no part of the path; ``{$}`` ends a path; a mux mounted
    under ``StripPrefix`` gets its prefix; file servers are routes of any method."""
    result = facts(
        """
        package main

        import (
        	"net/http"
        )

        const healthPath = "/healthz"

        func main() {
        	mux := http.NewServeMux()
        	mux.HandleFunc("GET /items/{id}", getItem)
        	mux.HandleFunc("POST /items", createItem)
        	mux.HandleFunc("/files/{path...}", serveFile)
        	mux.HandleFunc("GET /{$}", home)
        	mux.Handle("example.com/docs/", docs)
        	mux.HandleFunc(healthPath, health)
        	api := http.NewServeMux()
        	api.HandleFunc("DELETE /orders/{id}", deleteOrder)
        	mux.Handle("/api/", http.StripPrefix("/api", api))
        	http.HandleFunc("/legacy", legacy)
        	http.Handle("/static/", http.StripPrefix("/static/", http.FileServer(http.Dir("./static"))))
        	http.Handle("/metrics", promhttp.Handler())
        	http.ListenAndServe(":8080", mux)
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("GET", "/items/{id}", 11, "getItem", "main", "net/http"),
        HttpRoute("POST", "/items", 12, "createItem", "main", "net/http"),
        HttpRoute("*", "/files/{*path}", 13, "serveFile", "main", "net/http"),
        HttpRoute("GET", "/", 14, "home", "main", "net/http"),
        HttpRoute("*", "/docs/", 15, "docs", "main", "net/http"),
        HttpRoute("*", "/healthz", 16, "health", "main", "net/http"),
        HttpRoute("DELETE", "/api/orders/{id}", 18, "deleteOrder", "main", "net/http"),
        HttpRoute("*", "/legacy", 20, "legacy", "main", "net/http"),
        HttpRoute(
            "*",
            "/static/",
            21,
            'http.StripPrefix("/static/", http.FileServer(http.Dir("./static")))',
            "main",
            "net/http",
        ),
        HttpRoute("*", "/metrics", 22, "promhttp.Handler()", "main", "net/http"),
    )
    assert result.constants == (
        Constant("healthPath", "/healthz", 7),
    )


def test_a_local_function_registering_its_path_parameter_registers_at_each_call() -> None:
    """emojivoto's ``handle(path, h)``: a route at each call, the handler its argument there."""
    result = facts(
        """
        package web

        import (
        	"net/http"

        	"go.opencensus.io/plugin/ochttp"
        )

        func handle(path string, h func(w http.ResponseWriter, r *http.Request)) {
        	http.Handle(path, &ochttp.Handler{
        		Handler: http.HandlerFunc(h),
        	})
        }

        func StartServer(webApp *WebApp) {
        	handle("/", webApp.indexHandler)
        	handle("/api/list", webApp.listEmojiHandler)
        	handle("/api/vote", webApp.voteEmojiHandler)
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("*", "/", 16, "webApp.indexHandler", "StartServer", "net/http"),
        HttpRoute("*", "/api/list", 17, "webApp.listEmojiHandler", "StartServer", "net/http"),
        HttpRoute("*", "/api/vote", 18, "webApp.voteEmojiHandler", "StartServer", "net/http"),
    )


def test_gorilla_chains_methods_subrouters_and_path_prefixes() -> None:
    """``Methods`` after or before the path, ``PathPrefix(..).Subrouter()`` as a variable or inline."""
    result = facts(
        """
        package main

        import (
        	"net/http"

        	"github.com/gorilla/mux"
        )

        func main() {
        	r := mux.NewRouter()
        	r.HandleFunc("/products/{key}", ProductHandler).Methods(http.MethodGet, "PUT")
        	s := r.PathPrefix("/articles").Subrouter()
        	s.HandleFunc("/{category}/{id:[0-9]+}", ArticleHandler).Methods("GET")
        	s.Path("/new").HandlerFunc(NewArticle).Methods("POST")
        	r.Methods("DELETE").Path("/things/{id}").HandlerFunc(deleteThing)
        	r.PathPrefix("/static/").Handler(http.FileServer(http.Dir(".")))
        	r.PathPrefix("/api").Subrouter().Handle("/orders", ordersHandler{})
        	http.ListenAndServe(":8000", r)
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("GET", "/products/{key}", 11, "ProductHandler", "main", "gorilla/mux"),
        HttpRoute("PUT", "/products/{key}", 11, "ProductHandler", "main", "gorilla/mux"),
        HttpRoute("GET", "/articles/{category}/{id}", 13, "ArticleHandler", "main", "gorilla/mux"),
        HttpRoute("POST", "/articles/new", 14, "NewArticle", "main", "gorilla/mux"),
        HttpRoute("DELETE", "/things/{id}", 15, "deleteThing", "main", "gorilla/mux"),
        HttpRoute("*", "/static/", 16, 'http.FileServer(http.Dir("."))', "main", "gorilla/mux"),
        HttpRoute("*", "/api/orders", 17, "ordersHandler{}", "main", "gorilla/mux"),
    )


def test_chi_routes_closures_groups_and_mounts() -> None:
    """``Route`` closures nest prefixes, ``Group`` adds none, a router built by a local function and
    mounted gets the mount's prefix; one from another package is that package's mount."""
    result = facts(
        """
        package main

        import (
        	"net/http"

        	"github.com/acme/shop/users"
        	"github.com/go-chi/chi/v5"
        	"github.com/go-chi/chi/v5/middleware"
        )

        type Server struct {
        	router chi.Router
        }

        func main() {
        	r := chi.NewRouter()
        	r.Use(middleware.Logger)
        	r.Get("/", index)
        	r.Route("/articles", func(r chi.Router) {
        		r.With(paginate).Get("/", listArticles)
        		r.Post("/", createArticle)
        		r.Route("/{articleID}", func(r chi.Router) {
        			r.Get("/", getArticle)
        			r.Put("/", updateArticle)
        		})
        	})
        	r.Mount("/admin", adminRouter())
        	r.Mount("/users", users.Routes())
        	r.Method("PATCH", "/x/{id:[0-9]+}", http.HandlerFunc(patchX))
        	r.Handle("/static/*", http.FileServer(http.Dir("static")))
        	r.Group(func(r chi.Router) {
        		r.Delete("/sessions", logout)
        	})
        	http.ListenAndServe(":3333", r)
        }

        func adminRouter() chi.Router {
        	r := chi.NewRouter()
        	r.Get("/accounts", adminListAccounts)
        	return r
        }

        func (s *Server) routes() {
        	s.router.Get("/health", s.health)
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("GET", "/", 18, "index", "main", "chi"),
        HttpRoute("GET", "/articles", 20, "listArticles", "main", "chi"),
        HttpRoute("POST", "/articles", 21, "createArticle", "main", "chi"),
        HttpRoute("GET", "/articles/{articleID}", 23, "getArticle", "main", "chi"),
        HttpRoute("PUT", "/articles/{articleID}", 24, "updateArticle", "main", "chi"),
        HttpRoute("*", "/users", 28, "users.Routes()", "main", "chi", "github.com/acme/shop/users"),
        HttpRoute("PATCH", "/x/{id}", 29, "patchX", "main", "chi"),
        HttpRoute("*", "/static/{*}", 30, 'http.FileServer(http.Dir("static"))', "main", "chi"),
        HttpRoute("DELETE", "/sessions", 32, "logout", "main", "chi"),
        HttpRoute("GET", "/admin/accounts", 39, "adminListAccounts", "adminRouter", "chi"),
        HttpRoute("GET", "/health", 44, "s.health", "Server.routes", "chi"),
    )


def test_gin_groups_handlers_static_and_a_group_handed_to_other_code() -> None:
    """The handler is the last argument (middleware first); a group handed to another package is its
    mount; handed to a local function, its prefix reaches that function's routes."""
    result = facts(
        """
        package routes

        import (
        	"github.com/acme/shop/orders"
        	"github.com/gin-gonic/gin"
        )

        func Setup(r *gin.Engine, h *Handler) {
        	v1 := r.Group("/api/v1")
        	{
        		v1.GET("/orders", h.List)
        		v1.GET("/orders/:id", auth(), h.Get)
        		v1.Handle("PATCH", "/orders/:id", h.Patch)
        		v1.Any("/echo", h.Echo)
        	}
        	r.GET("/health", func(c *gin.Context) { c.String(200, "OK") })
        	r.Static("/assets", "./assets")
        	orders.RegisterRoutes(v1.Group("/legacy"))
        	register(v1)
        }

        func register(g *gin.RouterGroup) {
        	g.POST("/things/*path", createThing)
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("GET", "/api/v1/orders", 11, "h.List", "Setup", "gin"),
        HttpRoute("GET", "/api/v1/orders/{id}", 12, "h.Get", "Setup", "gin"),
        HttpRoute("PATCH", "/api/v1/orders/{id}", 13, "h.Patch", "Setup", "gin"),
        HttpRoute("*", "/api/v1/echo", 14, "h.Echo", "Setup", "gin"),
        HttpRoute("GET", "/health", 16, "", "Setup", "gin"),
        HttpRoute("*", "/assets/{*filepath}", 17, "", "Setup", "gin"),
        HttpRoute("*", "/api/v1/legacy", 18, "orders.RegisterRoutes", "Setup", "gin", "github.com/acme/shop/orders"),
        HttpRoute("POST", "/api/v1/things/{*path}", 23, "createThing", "register", "gin"),
    )


def test_echo_routes_groups_match_and_static() -> None:
    """The handler is the argument after the path (middleware after it)."""
    result = facts(
        """
        package main

        import (
        	"net/http"

        	"github.com/labstack/echo/v4"
        	"github.com/labstack/echo/v4/middleware"
        )

        func main() {
        	e := echo.New()
        	e.GET("/users/:id", getUser)
        	e.POST("/users", saveUser, middleware.BasicAuth(nil))
        	admin := e.Group("/admin", middleware.BasicAuth(nil))
        	admin.GET("/stats", stats)
        	v1 := admin.Group("/v1")
        	v1.DELETE("/users/:id", deleteUser)
        	e.Any("/ping", func(c echo.Context) error { return c.String(http.StatusOK, "pong") })
        	e.Match([]string{"GET", "HEAD"}, "/match", matched)
        	e.Static("/assets", "public")
        	e.Logger.Fatal(e.Start(":1323"))
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("GET", "/users/{id}", 12, "getUser", "main", "echo"),
        HttpRoute("POST", "/users", 13, "saveUser", "main", "echo"),
        HttpRoute("GET", "/admin/stats", 15, "stats", "main", "echo"),
        HttpRoute("DELETE", "/admin/v1/users/{id}", 17, "deleteUser", "main", "echo"),
        HttpRoute("*", "/ping", 18, "", "main", "echo"),
        HttpRoute("GET", "/match", 19, "matched", "main", "echo"),
        HttpRoute("HEAD", "/match", 19, "matched", "main", "echo"),
        HttpRoute("*", "/assets/{*}", 20, "", "main", "echo"),
    )


def test_fiber_routes_groups_and_route_closures() -> None:
    """Groups chain, ``Route`` closures prefix, optional parameters are parameters."""
    result = facts(
        """
        package main

        import "github.com/gofiber/fiber/v2"

        func main() {
        	app := fiber.New()
        	app.Get("/", func(c *fiber.Ctx) error { return c.SendString("Hello") })
        	api := app.Group("/api", logger)
        	v1 := api.Group("/v1")
        	v1.Get("/list", list)
        	v1.Post("/user/:name?", createUser)
        	app.Route("/test", func(router fiber.Router) {
        		router.Get("/foo", foo).Name("foo")
        	})
        	app.All("/any", anyHandler)
        	app.Listen(":3000")
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("GET", "/", 7, "", "main", "fiber"),
        HttpRoute("GET", "/api/v1/list", 10, "list", "main", "fiber"),
        HttpRoute("POST", "/api/v1/user/{name}", 11, "createUser", "main", "fiber"),
        HttpRoute("GET", "/test/foo", 13, "foo", "main", "fiber"),
        HttpRoute("*", "/any", 15, "anyHandler", "main", "fiber"),
    )


def test_fiber_apps_mounted_with_use_get_the_prefix() -> None:
    """fiber v3 mounts an app with ``app.Use("/john", micro)``; ``Use`` of a middleware mounts nothing;
    a group path without a slash still starts at ``/``."""
    result = facts(
        """
        package main

        import "github.com/gofiber/fiber/v3"

        func main() {
        	app := fiber.New()
        	micro := fiber.New()
        	app.Use("/john", micro)
        	micro.Get("/doe", func(c fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) })
        	api := app.Group("api")
        	api.Get("/", list)
        	app.Use("/x", logger)
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("GET", "/john/doe", 9, "", "main", "fiber"),
        HttpRoute("GET", "/api", 11, "list", "main", "fiber"),
    )


def test_a_receiver_of_another_file_is_read_by_the_shape_of_the_registration() -> None:
    """Mat Ryer's ``s.router.HandleFunc`` in a routes file importing nothing."""
    result = facts(
        """
        package api

        func (s *server) routes() {
        	s.router.HandleFunc("/api/", s.handleAPI())
        	s.router.HandleFunc("/about", s.handleAbout())
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("*", "/api/", 4, "s.handleAPI()", "server.routes", "net/http"),
        HttpRoute("*", "/about", 5, "s.handleAbout()", "server.routes", "net/http"),
    )


def test_route_look_alikes_are_no_routes() -> None:
    """An event bus's ``Handle``, a cache's ``Get`` with a path-like key, a ``GET`` of a receiver no
    framework import explains, ``http.Error``/``http.Redirect``: none is a route; the real one is."""
    result = facts(
        """
        package store

        import "net/http"

        func run(bus *Bus, cache *Cache, m map[string]int) {
        	bus.Handle("orders.created", onOrder)
        	cache.Get("/users/1", &user)
        	router.GET("/x", h)
        	v := m["/x"]
        	http.Error(w, "bad", http.StatusBadRequest)
        	http.Redirect(w, r, "/login", http.StatusFound)
        	http.HandleFunc("/real", real)
        }
        """
    )
    assert result.http_routes == (HttpRoute("*", "/real", 12, "real", "run", "net/http"),)
    assert result.http_calls == ()


def test_http_calls_and_where_their_base_address_comes_from() -> None:
    """Environment variables (``os.Getenv``, ``LookupEnv``, an ``env`` tag with its default), a flag's
    default host, a viper key, a constant of the file or of another package, fields set by a
    constructor, ``fmt.Sprintf`` templates, ``url.JoinPath``, a host and port put together."""
    result = facts(
        """
        package orders

        import (
        	"context"
        	"flag"
        	"fmt"
        	"net/http"
        	"net/url"
        	"os"
        	"strings"

        	"github.com/acme/shop/config"
        	"github.com/spf13/viper"
        )

        const billingURL = "http://billing:8080"

        var (
        	inventoryAddr = flag.String("inventory", "http://inventory:9000/api", "inventory address")
        	shippingBase  = os.Getenv("SHIPPING_URL")
        )

        type Client struct {
        	http    *http.Client
        	baseURL string
        	users   string `env:"USERS_URL" envDefault:"http://users:8081"`
        }

        func NewClient() *Client {
        	return &Client{http: &http.Client{}, baseURL: strings.TrimSuffix(os.Getenv("CATALOG_URL"), "/")}
        }

        func (c *Client) Product(ctx context.Context, id string) error {
        	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/products/%s", c.baseURL, id), nil)
        	if err != nil {
        		return err
        	}
        	_, err = c.http.Do(req)
        	return err
        }

        func (c *Client) User(id int) {
        	c.http.Get(c.users + "/users/" + fmt.Sprint(id))
        }

        func Charge(orderID string) {
        	http.Post(billingURL+"/charges/"+orderID, "application/json", nil)
        	http.Get(*inventoryAddr + "/stock")
        	http.PostForm(shippingBase+"/shipments", url.Values{})
        	refunds, _ := url.JoinPath(config.PaymentsURL, "refunds", orderID)
        	http.Get(refunds)
        	http.Get(viper.GetString("services.audit.url") + "/events")
        	if v, ok := os.LookupEnv("NOTIFY_URL"); ok {
        		http.Post(v+"/notify", "text/plain", nil)
        	}
        	target := "http://" + os.Getenv("RATING_HOST") + ":" + os.Getenv("RATING_PORT") + "/ratings/" + orderID
        	http.Head(target)
        	http.DefaultClient.Get("https://Example.COM:8443/ping?x=1")
        }
        """
    )
    assert result.http_calls == (
        HttpCall("GET", "/products/{id}", 34, "Client.Product", "", "env:CATALOG_URL", "net/http", False),
        HttpCall("GET", "/users/{}", 43, "Client.User", "users", "env:USERS_URL", "net/http", False),
        HttpCall("POST", "/charges/{orderID}", 47, "Charge", "billing", "", "net/http", False),
        HttpCall("GET", "/api/stock", 48, "Charge", "inventory", "", "net/http", False),
        HttpCall("POST", "/shipments", 49, "Charge", "", "env:SHIPPING_URL", "net/http", False),
        HttpCall("GET", "/refunds/{orderID}", 51, "Charge", "", "const:PaymentsURL", "net/http", False),
        HttpCall("GET", "/events", 52, "Charge", "", "config:services.audit.url", "net/http", False),
        HttpCall("POST", "/notify", 54, "Charge", "", "env:NOTIFY_URL", "net/http", False),
        HttpCall("HEAD", "/ratings/{orderID}", 57, "Charge", "", "env:RATING_HOST", "net/http", False),
        HttpCall("GET", "/ping", 58, "Charge", "example.com", "", "net/http", False),
    )
    assert result.constants == (
        Constant("billingURL", "http://billing:8080", 16),
    )


def test_a_base_address_followed_through_call_sites_defaults_and_dapr_app_ids() -> None:
    """vote-bot's ``shortcodes(webURL)``: the parameter's argument at its one call site; a variable read
    from the environment with a literal fallback; Dapr's ``dapr-app-id`` header names the host."""
    result = facts(
        """
        package main

        import (
        	"fmt"
        	"net/http"
        	"os"
        )

        var client = &http.Client{}

        func main() {
        	webHost := os.Getenv("WEB_HOST")
        	webURL := "http://" + webHost
        	shortcodes(webURL)
        	daprHost := os.Getenv("DAPR_HOST")
        	if daprHost == "" {
        		daprHost = "http://localhost"
        	}
        	port := os.Getenv("DAPR_HTTP_PORT")
        	req, _ := http.NewRequest("POST", daprHost+":"+port+"/orders", nil)
        	req.Header.Add("dapr-app-id", "order-processor")
        	client.Do(req)
        }

        func shortcodes(webURL string) {
        	url := fmt.Sprintf("%s/api/list", webURL)
        	req, _ := http.NewRequest("GET", url, nil)
        	client.Do(req)
        }
        """
    )
    assert result.http_calls == (
        HttpCall("POST", "/orders", 20, "main", "order-processor", "", "net/http", False),
        HttpCall("GET", "/api/list", 27, "shortcodes", "", "env:WEB_HOST", "net/http", False),
    )


def test_urls_built_at_run_time_are_computed_never_guessed() -> None:
    """A parameter no call site here explains, ``os.Args``, the result of a function: reported with an
    empty path, never linked."""
    result = facts(
        """
        package upstream

        import (
        	"bytes"
        	"net/http"
        	"os"
        )

        func call(uri string, content []byte, method string) {
        	httpReq, _ := http.NewRequest(http.MethodGet, uri, nil)
        	if len(content) > 0 {
        		httpReq, _ = http.NewRequest(method, uri, bytes.NewReader(content))
        	}
        	_ = httpReq
        	http.Get(os.Args[1])
        	http.Get(pick() + lookup(uri))
        }
        """
    )
    assert result.http_calls == (
        HttpCall("GET", "", 10, "call", "", "", "net/http", True),
        HttpCall("*", "", 12, "call", "", "", "net/http", True),
        HttpCall("GET", "", 15, "call", "", "", "net/http", True),
        HttpCall("GET", "", 16, "call", "", "", "net/http", True),
    )


def test_http_call_look_alikes_are_no_calls() -> None:
    """A ``Get`` of a cache type of the file, requests handed to a handler under test (``ServeHTTP``),
    a relative URL (no Go client sends one), a request to an ``httptest`` server, a ``fetch`` of a
    row: none is a call; the real one is."""
    result = facts(
        """
        package store

        import (
        	"net/http"
        	"net/http/httptest"
        	"testing"
        )

        type Cache struct{ m map[string]string }

        func (c *Cache) Get(key string) string { return c.m[key] }

        func TestHandler(t *testing.T) {
        	cache := &Cache{}
        	cache.Get("http://not-a-call/x")
        	req, _ := http.NewRequest("GET", "http://example.com/foo", nil)
        	rr := httptest.NewRecorder()
        	handler := http.HandlerFunc(index)
        	handler.ServeHTTP(rr, req)
        	req2, _ := http.NewRequest("POST", "/relative", nil)
        	_ = req2
        	srv := httptest.NewServer(handler)
        	http.Get(srv.URL + "/ping")
        	db.Get("/users/1")
        	row := fetch("http://orders/1")
        	_ = row
        	http.Get("http://orders:8080/orders/1")
        }
        """
    )
    assert result.http_calls == (HttpCall("GET", "/orders/1", 27, "TestHandler", "orders", "", "net/http", False),)


def test_resty_requests_with_a_base_url() -> None:
    """``R()`` chains, a request variable, ``Execute``; a relative path takes the client's ``SetBaseURL``."""
    result = facts(
        """
        package reviews

        import "github.com/go-resty/resty/v2"

        func Fetch(id string) {
        	client := resty.New().SetBaseURL("http://reviews:9080")
        	client.R().SetHeader("Accept", "application/json").Get("/reviews/" + id)
        	resty.New().R().SetBody(map[string]string{}).Post("http://ratings/ratings")
        	req := client.R()
        	req.Execute("DELETE", "/reviews/"+id)
        }
        """
    )
    assert result.http_calls == (
        HttpCall("GET", "/reviews/{id}", 7, "Fetch", "reviews", "", "resty", False),
        HttpCall("POST", "/ratings", 8, "Fetch", "ratings", "", "resty", False),
        HttpCall("DELETE", "/reviews/{id}", 10, "Fetch", "reviews", "", "resty", False),
    )


def test_a_resty_chain_through_a_client_of_another_package() -> None:
    """microservices-demo's load generator: ``config.GetHttpClient().R().Get("/product/" + id)`` in a file
    that does not import resty; an ``R()`` chain whose argument reads as no URL is nothing."""
    result = facts(
        """
        package tasks

        import "github.com/acme/loadgenerator/config"

        func (t *AddToCart) Perform(product string, data any) error {
        	_, err := config.GetHttpClient().R().Get("/product/" + product)
        	_, err = config.GetHttpClient().R().SetBody(data).Post("/cart")
        	_ = store.R().Get("product:" + product)
        	return err
        }
        """
    )
    assert result.http_calls == (
        HttpCall("GET", "/product/{product}", 6, "AddToCart.Perform", "", "", "resty", False),
        HttpCall("POST", "/cart", 7, "AddToCart.Perform", "", "", "resty", False),
    )


def test_dapr_service_invocation_publishing_and_subscriptions() -> None:
    """``InvokeMethod*`` calls the app id as host; ``AddServiceInvocationHandler`` serves ``/name``;
    ``PublishEvent`` produces and a ``Subscription`` consumes the topic."""
    result = facts(
        """
        package main

        import (
        	"context"

        	dapr "github.com/dapr/go-sdk/client"
        	"github.com/dapr/go-sdk/service/common"
        	daprd "github.com/dapr/go-sdk/service/http"
        )

        const topic = "orders"

        var sub = &common.Subscription{PubsubName: "pubsub", Topic: topic, Route: "/orders"}

        func main() {
        	client, _ := dapr.NewClient()
        	client.PublishEvent(context.Background(), "pubsub", topic, []byte("x"))
        	client.InvokeMethodWithContent(context.Background(), "order-processor", "orders", "post", nil)
        	s := daprd.NewService(":8080")
        	s.AddTopicEventHandler(sub, handler)
        	s.AddServiceInvocationHandler("checkout", checkout)
        }
        """
    )
    assert result.http_routes == (
        HttpRoute("*", "/checkout", 21, "checkout", "main", "dapr"),
    )
    assert result.http_calls == (
        HttpCall("POST", "/orders", 18, "main", "order-processor", "", "dapr", False),
    )
    assert result.messages == (
        MessageFact("consume", "eventbus", "orders", 13, "topic", "", "", "dapr", False),
        MessageFact("produce", "eventbus", "orders", 17, "topic", "main", "", "dapr", False),
    )
    assert result.constants == (
        Constant("topic", "orders", 11),
    )


def test_dapr_http_api_publish_is_a_message_and_invoke_reaches_the_app() -> None:
    """Through the sidecar's HTTP API: ``/v1.0/publish/<pubsub>/<topic>`` produces the topic (the call
    stays), ``/v1.0/invoke/<app>/method/<m>`` reaches ``<app>`` at ``/<m>``; the ``/dapr/subscribe``
    answer consumes."""
    result = facts(
        """
        package main

        import (
        	"net/http"
        	"os"
        	"strings"
        )

        const pubsubName = "orderpubsub"
        const pubsubTopic = "orders"

        type sub struct{ PubsubName, Topic, Route string }

        func main() {
        	daprHost := os.Getenv("DAPR_HOST")
        	http.Post(daprHost+"/v1.0/publish/"+pubsubName+"/"+pubsubTopic, "application/json", strings.NewReader("{}"))
        	http.Get("http://localhost:3500/v1.0/invoke/checkout/method/orders/1")
        }

        func subscribe(w http.ResponseWriter, r *http.Request) {
        	subs := []sub{{PubsubName: "orderpubsub", Topic: "refunds", Route: "refunds"}}
        	_ = subs
        }
        """
    )
    assert result.http_calls == (
        HttpCall("POST", "/v1.0/publish/orderpubsub/orders", 16, "main", "", "env:DAPR_HOST", "net/http", False),
        HttpCall("GET", "/orders/1", 17, "main", "checkout", "", "net/http", False),
    )
    assert result.messages == (
        MessageFact("produce", "eventbus", "orders", 16, "topic", "main", "", "dapr", False),
        MessageFact("consume", "eventbus", "refunds", 21, "topic", "subscribe", "", "dapr", False),
    )


def test_kafka_go_writers_messages_and_readers() -> None:
    """A writer's ``Topic`` (a constant of the file), messages carrying theirs (one from the
    environment), readers' ``Topic`` and ``GroupTopics``; a message without a topic adds nothing."""
    result = facts(
        """
        package events

        import (
        	"context"
        	"os"

        	"github.com/segmentio/kafka-go"
        )

        const ordersTopic = "orders.created"

        func Produce(ctx context.Context) error {
        	w := &kafka.Writer{
        		Addr:     kafka.TCP("kafka:9092"),
        		Topic:    ordersTopic,
        		Balancer: &kafka.LeastBytes{},
        	}
        	multi := &kafka.Writer{Addr: kafka.TCP("kafka:9092")}
        	multi.WriteMessages(ctx,
        		kafka.Message{Topic: "audit", Value: []byte("x")},
        		kafka.Message{Topic: os.Getenv("EXTRA_TOPIC"), Value: []byte("y")},
        	)
        	return w.WriteMessages(ctx, kafka.Message{Key: []byte("k"), Value: []byte("v")})
        }

        func Consume() {
        	r := kafka.NewReader(kafka.ReaderConfig{
        		Brokers: []string{"kafka:9092"},
        		GroupID: "billing",
        		Topic:   "payments",
        	})
        	g := kafka.NewReader(kafka.ReaderConfig{GroupTopics: []string{"a", "b"}, GroupID: "x"})
        	_, _ = r, g
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "kafka", "orders.created", 13, "topic", "Produce", "", "kafka-go", False),
        MessageFact("produce", "kafka", "audit", 20, "topic", "Produce", "", "kafka-go", False),
        MessageFact("produce", "kafka", "", 21, "topic", "Produce", "env:EXTRA_TOPIC", "kafka-go", False),
        MessageFact("consume", "kafka", "payments", 27, "topic", "Consume", "", "kafka-go", False),
        MessageFact("consume", "kafka", "a", 32, "topic", "Consume", "", "kafka-go", False),
        MessageFact("consume", "kafka", "b", 32, "topic", "Consume", "", "kafka-go", False),
    )
    assert result.constants == (
        Constant("ordersTopic", "orders.created", 10),
    )


def test_sarama_messages_partitions_and_consumer_groups() -> None:
    """A topic parameter nothing here explains is computed; a group's topics through a variable."""
    result = facts(
        """
        package events

        import (
        	"context"

        	"github.com/IBM/sarama"
        )

        func Produce(producer sarama.SyncProducer, topic string) {
        	msg := &sarama.ProducerMessage{Topic: "inventory", Value: sarama.StringEncoder("x")}
        	producer.SendMessage(msg)
        	producer.SendMessage(&sarama.ProducerMessage{Topic: topic})
        }

        func Consume(ctx context.Context, brokers []string) {
        	consumer, _ := sarama.NewConsumer(brokers, nil)
        	pc, _ := consumer.ConsumePartition("inventory", 0, sarama.OffsetNewest)
        	_ = pc
        	group, _ := sarama.NewConsumerGroup(brokers, "g", nil)
        	topics := []string{"orders", "refunds"}
        	for {
        		group.Consume(ctx, topics, handler{})
        	}
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "kafka", "inventory", 10, "topic", "Produce", "", "sarama", False),
        MessageFact("produce", "kafka", "", 12, "topic", "Produce", "", "sarama", True),
        MessageFact("consume", "kafka", "inventory", 17, "topic", "Consume", "", "sarama", False),
        MessageFact("consume", "kafka", "orders", 22, "topic", "Consume", "", "sarama", False),
        MessageFact("consume", "kafka", "refunds", 22, "topic", "Consume", "", "sarama", False),
    )


def test_confluent_kafka_messages_and_subscriptions() -> None:
    """``TopicPartition{Topic: &topic}`` inside a message; ``SubscribeTopics`` and ``Subscribe``."""
    result = facts(
        """
        package events

        import "github.com/confluentinc/confluent-kafka-go/v2/kafka"

        func Run() {
        	p, _ := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": "localhost"})
        	topic := "purchases"
        	p.Produce(&kafka.Message{
        		TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
        		Value:          []byte("x"),
        	}, nil)
        	c, _ := kafka.NewConsumer(&kafka.ConfigMap{})
        	c.SubscribeTopics([]string{"purchases", "returns"}, nil)
        	c.Subscribe("single", nil)
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "kafka", "purchases", 8, "topic", "Run", "", "confluent-kafka-go", False),
        MessageFact("consume", "kafka", "purchases", 13, "topic", "Run", "", "confluent-kafka-go", False),
        MessageFact("consume", "kafka", "returns", 13, "topic", "Run", "", "confluent-kafka-go", False),
        MessageFact("consume", "kafka", "single", 14, "topic", "Run", "", "confluent-kafka-go", False),
    )


def test_amqp_exchanges_queues_bindings_and_consumers() -> None:
    """The default exchange publishes to the queue its key names (``q.Name`` of ``QueueDeclare``); a
    named exchange is the name; a binding consumes its exchange; a server-named queue has no name."""
    result = facts(
        """
        package events

        import (
        	"context"

        	amqp "github.com/rabbitmq/amqp091-go"
        )

        func Run(ctx context.Context) {
        	conn, _ := amqp.Dial("amqp://guest:guest@rabbitmq:5672/")
        	ch, _ := conn.Channel()
        	q, _ := ch.QueueDeclare("hello", false, false, false, false, nil)
        	ch.PublishWithContext(ctx, "", q.Name, false, false, amqp.Publishing{Body: []byte("x")})
        	ch.ExchangeDeclare("logs", "fanout", true, false, false, false, nil)
        	ch.Publish("logs", "", false, false, amqp.Publishing{})
        	anon, _ := ch.QueueDeclare("", false, false, true, false, nil)
        	ch.QueueBind(anon.Name, "", "logs", false, nil)
        	msgs, _ := ch.Consume(anon.Name, "", true, false, false, false, nil)
        	tasks, _ := ch.Consume("task_queue", "", false, false, false, false, nil)
        	_, _ = msgs, tasks
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "rabbitmq", "hello", 13, "queue", "Run", "", "amqp091-go", False),
        MessageFact("produce", "rabbitmq", "logs", 15, "exchange", "Run", "", "amqp091-go", False),
        MessageFact("consume", "rabbitmq", "logs", 17, "exchange", "Run", "", "amqp091-go", False),
        MessageFact("consume", "rabbitmq", "task_queue", 19, "queue", "Run", "", "amqp091-go", False),
    )


def test_nats_subjects_published_subscribed_requested_and_jetstream() -> None:
    """Core NATS and JetStream, subjects as written (wildcards kept)."""
    result = facts(
        """
        package events

        import "github.com/nats-io/nats.go"

        func Run() {
        	nc, _ := nats.Connect(nats.DefaultURL)
        	nc.Publish("orders.created", []byte("x"))
        	nc.Subscribe("orders.*", func(m *nats.Msg) {})
        	nc.QueueSubscribe("orders.created", "workers", func(m *nats.Msg) {})
        	nc.Request("help", []byte("?"), 0)
        	js, _ := nc.JetStream()
        	js.Publish("ORDERS.new", []byte("x"))
        	js.PullSubscribe("ORDERS.*", "durable")
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "nats", "orders.created", 7, "subject", "Run", "", "nats.go", False),
        MessageFact("consume", "nats", "orders.*", 8, "subject", "Run", "", "nats.go", False),
        MessageFact("consume", "nats", "orders.created", 9, "subject", "Run", "", "nats.go", False),
        MessageFact("produce", "nats", "help", 10, "subject", "Run", "", "nats.go", False),
        MessageFact("produce", "nats", "ORDERS.new", 12, "subject", "Run", "", "nats.go", False),
        MessageFact("consume", "nats", "ORDERS.*", 13, "subject", "Run", "", "nats.go", False),
    )


def test_go_redis_publish_and_subscribe_channels_not_keys() -> None:
    """Channels of ``Publish``, ``Subscribe`` and ``PSubscribe``; ``Get``/``Set`` of a key are nothing."""
    result = facts(
        """
        package events

        import (
        	"context"

        	"github.com/redis/go-redis/v9"
        )

        type Bus struct{ rdb *redis.Client }

        func (b *Bus) Run(ctx context.Context) {
        	b.rdb.Publish(ctx, "notifications", "x")
        	sub := b.rdb.Subscribe(ctx, "notifications", "alerts")
        	_ = sub
        	b.rdb.PSubscribe(ctx, "news.*")
        	b.rdb.Get(ctx, "notifications")
        	b.rdb.Set(ctx, "k", "v", 0)
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "redis", "notifications", 12, "channel", "Bus.Run", "", "go-redis", False),
        MessageFact("consume", "redis", "notifications", 13, "channel", "Bus.Run", "", "go-redis", False),
        MessageFact("consume", "redis", "alerts", 13, "channel", "Bus.Run", "", "go-redis", False),
        MessageFact("consume", "redis", "news.*", 15, "channel", "Bus.Run", "", "go-redis", False),
    )


def test_sqs_and_sns_names_from_queue_urls_and_topic_arns() -> None:
    """The last segment of a literal URL or ARN, the environment variable holding one, and the name a
    ``GetQueueUrl`` asked for."""
    result = facts(
        """
        package events

        import (
        	"context"
        	"os"

        	"github.com/aws/aws-sdk-go-v2/aws"
        	"github.com/aws/aws-sdk-go-v2/service/sns"
        	"github.com/aws/aws-sdk-go-v2/service/sqs"
        )

        func Run(ctx context.Context, client *sqs.Client, topics *sns.Client) {
        	client.SendMessage(ctx, &sqs.SendMessageInput{
        		QueueUrl:    aws.String("https://sqs.us-east-1.amazonaws.com/123456789012/orders-queue"),
        		MessageBody: aws.String("x"),
        	})
        	queueURL := os.Getenv("PAYMENTS_QUEUE_URL")
        	client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &queueURL})
        	res, _ := client.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("refunds")})
        	client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: res.QueueUrl})
        	topics.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:order-events")})
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "sqs", "orders-queue", 13, "queue", "Run", "", "aws-sdk-go", False),
        MessageFact("consume", "sqs", "", 18, "queue", "Run", "env:PAYMENTS_QUEUE_URL", "aws-sdk-go", False),
        MessageFact("produce", "sqs", "refunds", 20, "queue", "Run", "", "aws-sdk-go", False),
        MessageFact("produce", "sns", "order-events", 21, "topic", "Run", "", "aws-sdk-go", False),
    )


def test_google_pubsub_topics_published_and_subscriptions_received() -> None:
    """``client.Topic(name)`` where the file publishes, ``client.Subscription(name)`` where it receives."""
    result = facts(
        """
        package events

        import (
        	"context"

        	"cloud.google.com/go/pubsub"
        )

        func Run(ctx context.Context) {
        	client, _ := pubsub.NewClient(ctx, "project")
        	t := client.Topic("orders")
        	t.Publish(ctx, &pubsub.Message{Data: []byte("x")})
        	sub := client.Subscription("orders-sub")
        	sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {})
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "pubsub", "orders", 11, "topic", "Run", "", "pubsub", False),
        MessageFact("consume", "pubsub", "orders-sub", 13, "queue", "Run", "", "pubsub", False),
    )


def test_messaging_look_alikes_are_no_messages() -> None:
    """``Publish`` on a type of the file (parameter or variable), a ``Subscribe`` shaped like no
    library's: nothing, though the file imports nats.go; the real publish is."""
    result = facts(
        """
        package events

        import (
        	"context"

        	"github.com/nats-io/nats.go"
        )

        type Bus struct{}

        func (b *Bus) Publish(topic string, v any) {}

        func Run(ctx context.Context, bus *Bus, events *Bus) {
        	bus.Publish("order.created", 1)
        	events.Publish("order.paid", 2)
        	var local Bus
        	local.Publish("order.shipped", 3)
        	hub.Subscribe("chat", 1, 2)
        	nc, _ := nats.Connect(nats.DefaultURL)
        	nc.Publish("order.refunded", []byte("x"))
        }
        """
    )
    assert result.messages == (
        MessageFact("produce", "nats", "order.refunded", 20, "subject", "Run", "", "nats.go", False),
    )


def test_link_constants_by_name_never_secrets() -> None:
    """Names that say topic, queue, URL, stream...; no number, no sentence, no secret-looking name
    (``APIKey``, ``AuthTokenPath``) or value (a URL with a password), no constant local to a function."""
    result = facts(
        """
        package config

        const (
        	OrdersTopic   = "orders.created"
        	PaymentsQueue = "payments"
        	APIBaseURL    = "http://gateway:8080/api"
        	RetryCount    = 3
        	Greeting      = "hello world"
        	APIKey        = "abc123"
        	AuthTokenPath = "/auth/token"
        	DatabaseURL   = "postgres://user:pass@db:5432/app"
        	EventsStream  = `events`
        )

        func f() {
        	const localTopic = "local"
        }
        """
    )
    assert result.constants == (
        Constant("OrdersTopic", "orders.created", 4),
        Constant("PaymentsQueue", "payments", 5),
        Constant("APIBaseURL", "http://gateway:8080/api", 6),
        Constant("EventsStream", "events", 12),
    )


_REALISTIC = textwrap.dedent(
    """
    package main

    import (
    	"context"
    	"fmt"
    	"net/http"
    	"os"

    	"github.com/go-chi/chi/v5"
    	"github.com/segmentio/kafka-go"
    )

    const ordersTopic = "orders"

    type api struct {
    	http    *http.Client
    	billing string
    	writer  *kafka.Writer
    }

    func newAPI() *api {
    	return &api{http: &http.Client{}, billing: os.Getenv("BILLING_URL"), writer: &kafka.Writer{Topic: ordersTopic}}
    }

    func (a *api) routes() chi.Router {
    	r := chi.NewRouter()
    	r.Route("/orders", func(r chi.Router) {
    		r.Get("/{id}", a.get)
    		r.Post("/", a.create)
    	})
    	return r
    }

    func (a *api) create(w http.ResponseWriter, r *http.Request) {
    	id := r.URL.Query().Get("id")
    	resp, err := a.http.Post(fmt.Sprintf("%s/charges/%s", a.billing, id), "application/json", nil)
    	if err == nil {
    		resp.Body.Close()
    	}
    	a.writer.WriteMessages(context.Background(), kafka.Message{Value: []byte("created")})
    }
    """
).lstrip("\n")


def test_a_realistic_service_gives_each_kind_in_source_order_through_the_dispatcher() -> None:
    result = extract("orders/main.go", _REALISTIC.encode())
    assert result.http_routes == (
        HttpRoute("GET", "/orders/{id}", 28, "a.get", "api.routes", "chi"),
        HttpRoute("POST", "/orders", 29, "a.create", "api.routes", "chi"),
    )
    assert result.http_calls == (
        HttpCall("POST", "/charges/{id}", 36, "api.create", "", "env:BILLING_URL", "net/http", False),
    )
    assert result.messages == (MessageFact("produce", "kafka", "orders", 22, "topic", "newAPI", "", "kafka-go", False),)
    assert result.constants == (Constant("ordersTopic", "orders", 13),)


def test_facts_do_not_depend_on_the_hash_seed() -> None:
    """Determinism: the same bytes give the same facts under two ``PYTHONHASHSEED``s."""
    program = (
        "import sys; from mesh.index.parse import _go; f = _go.extract(sys.stdin.buffer.read()); "
        "print(repr((f.http_routes, f.http_calls, f.messages, f.constants)))"
    )
    outputs = set()
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", program], input=_REALISTIC.encode(), env=env, capture_output=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert b"/orders/{id}" in outputs.pop()


def _large(units: int) -> bytes:
    head = """package main

import (
	"fmt"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"github.com/nats-io/nats.go"
)

type api struct {
	http *http.Client
	base string
	nc   *nats.Conn
}

func newAPI() *api {
	return &api{http: http.DefaultClient, base: os.Getenv("ITEMS_URL")}
}
"""
    unit = """
func (a *api) handle{n}(w http.ResponseWriter, r *http.Request) {{
	url := fmt.Sprintf("%s/items/{n}/%s", a.base, r.URL.Path)
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, url, nil)
	if err != nil {{
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}}
	resp, err := a.http.Do(req)
	if err != nil {{
		return
	}}
	defer resp.Body.Close()
	a.nc.Publish("items.{n}", []byte(r.URL.Path))
	for k, v := range resp.Header {{
		w.Header()[k] = v
	}}
	w.WriteHeader(resp.StatusCode)
}}
"""
    body = "".join(unit.format(n=n) for n in range(units))
    routes = "".join(f'\tr.Get("/items/{n}/{{id}}", a.handle{n})\n' for n in range(units))
    return (head + body + "\nfunc (a *api) routes(r chi.Router) {\n" + routes + "}\n").encode()


def test_speed_on_a_large_file_of_routes_calls_and_messages() -> None:
    source = _large(110)
    assert source.count(b"\n") > 2000
    _go.extract(source)
    start = time.process_time()
    result = _go.extract(source)
    elapsed = time.process_time() - start
    assert (len(result.http_routes), len(result.http_calls), len(result.messages)) == (110, 110, 110)
    assert result.http_routes[0] == HttpRoute("GET", "/items/0/{id}", 2113, "a.handle0", "api.routes", "chi")
    assert result.http_calls[0] == HttpCall(
        "GET", "/items/0/{}", 24, "api.handle0", "", "env:ITEMS_URL", "net/http", False
    )
    assert result.messages[0] == MessageFact(
        "produce", "nats", "items.0", 34, "subject", "api.handle0", "", "nats.go", False
    )
    assert elapsed < 2.0


_FUZZ_SEEDS = (
    _REALISTIC.encode(),
    textwrap.dedent(
        """
        package main

        import (
        	"net/http"

        	"github.com/gin-gonic/gin"
        	"github.com/gorilla/mux"
        	amqp "github.com/rabbitmq/amqp091-go"
        	"github.com/redis/go-redis/v9"
        )

        func handle(path string, h http.HandlerFunc) { http.Handle(path, h) }

        func main() {
        	handle("/wrapped", index)
        	r := mux.NewRouter()
        	r.PathPrefix("/api").Subrouter().HandleFunc("/x/{id:[0-9]+}", x).Methods("GET")
        	g := gin.Default().Group("/v1")
        	g.POST("/y/:id", y)
        	ch, _ := conn.Channel()
        	q, _ := ch.QueueDeclare("jobs", true, false, false, false, nil)
        	ch.Publish("", q.Name, false, false, amqp.Publishing{})
        	rdb := redis.NewClient(&redis.Options{})
        	rdb.Publish(ctx, "events", "x")
        	http.Get(fmt.Sprintf("http://%s:%d/z/%s", host, port, id))
        }
        """
    )
    .lstrip("\n")
    .encode(),
)

_MUTATION = st.tuples(
    st.sampled_from(["delete", "insert", "duplicate", "replace"]),
    st.integers(min_value=0, max_value=4000),
    st.integers(min_value=0, max_value=64),
    st.binary(max_size=12) | st.sampled_from([b"(", b")", b"{", b"}", b'"', b"`", b".", b"\n", b"/", b"%s", b":="]),
)


def _mutate(source: bytes, mutations: list[tuple[str, int, int, bytes]]) -> bytes:
    for kind, at, width, data in mutations:
        at %= len(source) + 1
        if kind == "delete":
            source = source[:at] + source[at + width :]
        elif kind == "insert":
            source = source[:at] + data + source[at:]
        elif kind == "duplicate":
            source = source[:at] + source[at : at + width] + source[at:]
        else:
            source = source[:at] + data + source[at + len(data) :]
    return source


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(range(len(_FUZZ_SEEDS))), mutations=st.lists(_MUTATION, max_size=8))
@example(seed=0, mutations=[])
@example(seed=1, mutations=[])
def test_link_extraction_is_total_on_mutated_realistic_code(seed: int, mutations: list) -> None:
    """INV-LINKS-1: extractors of links are total: any bytes give facts, never an exception.

    Realistic Go of every kind of link, cut, spliced and garbled: the Go extractor (which lets a bug
    raise) answers, the same way twice, with lines inside the file and routes and paths that start
    with ``/``. Unmutated, each seed gives links of every kind."""
    source = _mutate(_FUZZ_SEEDS[seed], mutations)
    result = _go.extract(source)
    assert result == _go.extract(source)
    lines = source.count(b"\n") + 1
    for fact in (*result.http_routes, *result.http_calls, *result.messages, *result.constants):
        assert 1 <= fact.line <= lines
    for route in result.http_routes:
        assert route.path.startswith("/") and route.method
    for call in result.http_calls:
        assert call.path.startswith("/") or (call.computed and call.path == "")
    if not mutations:
        assert result.http_routes and result.http_calls and result.messages

