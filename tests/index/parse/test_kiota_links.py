"""Kiota request builders at their call sites, in TypeScript, Go and Python, exactly.

Snippets follow Kiota's quickstarts (a posts API: ``GET /posts``, ``GET/PATCH/DELETE /posts/{post-id}``,
``POST /posts``); the look-alikes (a ``Map``'s ``get``, an ORM's ``delete({ where })``, Kubernetes'
clientset, a Docker client, a hand-written client) must give nothing.
"""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import FileFacts
from mesh.index._facts import HttpCall, Setting
from mesh.index.parse import _kiota, extract


def facts(path: str, text: str) -> FileFacts:
    return extract(path, textwrap.dedent(text).lstrip("\n").encode())


def calls(path: str, text: str) -> list[HttpCall]:
    return list(facts(path, text).http_calls)


def kiota(
    method: str, path: str, line: int, symbol: str, root: str = "PostsClient", computed: bool = False
) -> HttpCall:
    return HttpCall(method, path, line, symbol, "", "client:" + root, "kiota", computed)


# -- the language-neutral part ------------------------------------------------------------------------


def test_steps_spell_the_method_and_path() -> None:
    assert _kiota.parameter("byPostId", "ecmascript") == "postId"
    assert _kiota.parameter("ByPostId", "go") == "postId"
    assert _kiota.parameter("by_post_id", "python") == "post_id"
    assert _kiota.parameter("byte", "ecmascript") is None
    assert _kiota.parameter("Bytes", "go") is None
    assert _kiota.parameter("by", "python") is None
    assert _kiota.segment("OrderItems", "go") == "orderItems"
    assert _kiota.segment("orderItems", "ecmascript") == "orderItems"
    assert _kiota.segment("order_items", "python") == "order_items"
    assert _kiota.request([(False, "posts"), (True, "postId")], "Patch") == ("PATCH", "/posts/{postId}")
    assert _kiota.request([(False, "api"), (False, "v1"), (False, "orders")], "get") == ("GET", "/api/v1/orders")


# -- TypeScript -------------------------------------------------------------------------------------

TS_QUICKSTART = """
import { AnonymousAuthenticationProvider } from "@microsoft/kiota-abstractions";
import { FetchRequestAdapter } from "@microsoft/kiota-http-fetchlibrary";
import { createPostsClient } from "./client/postsClient.js";
import { Post } from "./client/models/index.js";

const authProvider = new AnonymousAuthenticationProvider();
const adapter = new FetchRequestAdapter(authProvider);
const client = createPostsClient(adapter);

async function main(): Promise<void> {
  const allPosts = await client.posts.get();
  const specificPost = await client.posts.byPostId(5).get();
  const createdPost = await client.posts.post(newPost);
  const updatedPost = await client.posts
    .byPostId(5)
    .patch(update);
  await client.posts.byPostId(5).delete();
  await client.posts.get({ queryParameters: { userId: 42 } });
  await client.posts.withUrl(next).get();
}
"""


def test_typescript_quickstart() -> None:
    assert calls("src/index.ts", TS_QUICKSTART) == [
        kiota("GET", "/posts", 11, "main"),
        kiota("GET", "/posts/{postId}", 12, "main"),
        kiota("POST", "/posts", 13, "main"),
        kiota("PATCH", "/posts/{postId}", 16, "main"),
        kiota("DELETE", "/posts/{postId}", 17, "main"),
        kiota("GET", "/posts", 18, "main"),
        kiota("GET", "", 19, "main", computed=True),
    ]


TS_SERVICE = """
import type { CatalogClient } from "../clients/catalog/catalogClient";
import { createCartsClient } from "@/clients/carts/cartsClient";

export class CatalogService {
  constructor(private readonly catalog: CatalogClient) {}

  product(id: string) {
    return this.catalog.catalog.products.byProductId(id).get();
  }
}

export class CartsService {
  private carts = createCartsClient(adapter);

  add(customer: string, item: Item) {
    return this.carts.carts.byCustomerId(customer).items.post(item, { headers: { "x-trace": "1" } });
  }
}

export async function tags(client: CatalogClient) {
  const api = client;
  return api.catalog.tags.get();
}

export const size = () => createCartsClient(adapter).carts.size.get();
"""


def test_typescript_roots_typed_or_made_in_a_file_without_kiota_imports() -> None:
    assert calls("src/services.ts", TS_SERVICE) == [
        kiota("GET", "/catalog/products/{productId}", 8, "CatalogService.product", "CatalogClient"),
        kiota("POST", "/carts/{customerId}/items", 16, "CartsService.add", "CartsClient"),
        kiota("GET", "/catalog/tags", 22, "tags", "CatalogClient"),
        kiota("GET", "/carts/size", 25, "size", "CartsClient"),
    ]


def test_typescript_base_url_of_the_adapter_is_the_clients_setting() -> None:
    found = facts(
        "src/catalog.ts",
        """
        import { FetchRequestAdapter } from "@microsoft/kiota-http-fetchlibrary";
        import { createCatalogClient } from "./clients/catalog/catalogClient";

        const adapter = new FetchRequestAdapter(authProvider);
        adapter.baseUrl = process.env.CATALOG_URL || "http://catalog:8080";
        export const catalog = createCatalogClient(adapter);
        const other = createOtherClient(adapter);
        """,
    )
    assert found.settings == (Setting("client:CatalogClient", 6, "catalog", "CATALOG_URL", ""),)


def test_javascript_a_factory_from_require() -> None:
    assert calls(
        "src/posts.js",
        """
        const { createPostsClient } = require("./client/postsClient");

        const client = createPostsClient(adapter);

        async function remove(id) {
          await client.posts.byPostId(id).delete();
        }
        """,
    ) == [kiota("DELETE", "/posts/{postId}", 6, "remove")]


TS_LOOK_ALIKES = """
import { PrismaClient } from "./generated/prisma";
import { ApiClient } from "./api";
import { HttpClient } from "@angular/common/http";
import { createPostsClient } from "./client/postsClient";
import { client as shared } from "./shared";

const cache = new Map<string, string>();
const prisma = new PrismaClient();
const handmade = new ApiClient();
const twoArgs = createPostsClient(adapter, options);
const posts = createPostsClient(adapter);

export class Orders {
  constructor(private http: HttpClient) {}

  async run(id: string) {
    cache.get(id);
    cache.items.get();
    await prisma.user.delete({ where: { id } });
    await handmade.users.get();
    await twoArgs.posts.get();
    await shared.posts.get();
    this.http.get<Order[]>("/api/orders");
    this.http.orders.get("/api/orders");
    await posts.posts.get(id);
    await posts.posts.search(id).get();
    await posts.posts.byPostId(id, 2).get();
    await posts.get();
    await posts.posts.post(a, b, c);
    await posts.posts.byPostId(id).get();
  }
}
"""


def test_typescript_look_alikes_are_no_requests() -> None:
    # the Angular request is one, of its own client; the last line is the one Kiota request
    assert calls("src/orders.ts", TS_LOOK_ALIKES) == [
        HttpCall("GET", "/api/orders", 23, "Orders.run", client="HttpClient"),
        kiota("GET", "/posts/{postId}", 30, "Orders.run"),
    ]


def test_typescript_a_kiota_import_lets_any_workspace_class_be_the_root() -> None:
    assert calls(
        "src/legacy.ts",
        """
        import { FetchRequestAdapter } from "@microsoft/kiota-http-fetchlibrary";
        import { Api } from "./generated/api";
        import axios from "axios";

        const api = new Api(new FetchRequestAdapter(auth));
        const http = axios.create();

        export const load = () => api.orders.byOrderId("1").get();
        export const other = () => http.orders.get();
        """,
    ) == [kiota("GET", "/orders/{orderId}", 8, "load", "Api")]


# -- Go -------------------------------------------------------------------------------------------

GO_QUICKSTART = """
package main

import (
	"context"
	"log"

	"kiota_posts/client"
	"kiota_posts/client/models"

	auth "github.com/microsoft/kiota-abstractions-go/authentication"
	http "github.com/microsoft/kiota-http-go"
)

func main() {
	authProvider := auth.AnonymousAuthenticationProvider{}
	adapter, err := http.NewNetHttpRequestAdapter(&authProvider)
	if err != nil {
		log.Fatalf("Error creating request adapter: %v", err)
	}
	client := client.NewPostsClient(adapter)
	allPosts, err := client.Posts().Get(context.Background(), nil)
	specificPost, err := client.Posts().ByPostId("5").Get(context.Background(), nil)
	createdPost, err := client.Posts().Post(context.Background(), models.NewPost(), nil)
	updatedPost, err := client.Posts().
		ByPostId("5").
		Patch(context.Background(), update, nil)
	_, err = client.Posts().ByPostId("5").Delete(context.Background(), nil)
	_, err = client.Posts().WithUrl(next).Get(context.Background(), nil)
	_ = []any{allPosts, specificPost, createdPost, updatedPost}
}
"""


def test_go_quickstart() -> None:
    assert calls("main.go", GO_QUICKSTART) == [
        kiota("GET", "/posts", 21, "main"),
        kiota("GET", "/posts/{postId}", 22, "main"),
        kiota("POST", "/posts", 23, "main"),
        kiota("PATCH", "/posts/{postId}", 26, "main"),
        kiota("DELETE", "/posts/{postId}", 27, "main"),
        kiota("GET", "", 28, "main", computed=True),
    ]


GO_SERVICE = """
package catalog

import (
	"context"

	catalogclient "github.com/acme/shop/ui/client/catalog"
	"github.com/acme/shop/ui/client/catalog/catalog/products"
)

type Service struct {
	api *catalogclient.CatalogClient
}

func New(adapter Adapter) *Service {
	return &Service{api: catalogclient.NewCatalogClient(adapter)}
}

func (s *Service) Product(ctx context.Context, id string) error {
	config := &products.ProductsRequestBuilderGetRequestConfiguration{}
	_, err := s.api.Catalog().Products().ByProductId(id).Get(ctx, config)
	return err
}

func Tags(ctx context.Context, c *catalogclient.CatalogClient) error {
	_, err := c.Catalog().Tags().Get(ctx, &products.TagsRequestBuilderGetRequestConfiguration{})
	return err
}

func newCatalog(adapter Adapter) (*catalogclient.CatalogClient, error) {
	return catalogclient.NewCatalogClient(adapter), nil
}

func Size(ctx context.Context) {
	c, _ := newCatalog(adapter)
	c.Catalog().Size().Get(ctx, nil)
	catalogclient.NewCatalogClient(adapter).Catalog().Size().Get(ctx, nil)
}
"""


def test_go_roots_in_fields_and_parameters() -> None:
    assert calls("ui/catalog/service.go", GO_SERVICE) == [
        kiota("GET", "/catalog/products/{productId}", 20, "Service.Product", "CatalogClient"),
        kiota("GET", "/catalog/tags", 25, "Tags", "CatalogClient"),
        kiota("GET", "/catalog/size", 35, "Size", "CatalogClient"),
        kiota("GET", "/catalog/size", 36, "Size", "CatalogClient"),
    ]


def test_go_beside_the_libraries_a_file_uses() -> None:
    # a file that also serves routes and sends net/http requests: every kind is read
    assert calls(
        "gateway/main.go",
        """
        package main

        import (
        	"net/http"

        	"github.com/acme/shop/clients/orders"
        )

        func handle(w http.ResponseWriter, r *http.Request) {
        	http.Get("http://catalog:8080/catalog/products")
        	client := orders.NewOrdersClient(adapter)
        	client.Orders().Post(r.Context(), body, nil)
        }
        """,
    ) == [
        HttpCall("GET", "/catalog/products", 10, "handle", "catalog", "", "net/http"),
        kiota("POST", "/orders", 12, "handle", "OrdersClient"),
    ]


GO_LOOK_ALIKES = """
package main

import (
	"context"

	"github.com/acme/shop/store"
	"github.com/acme/shop/users"
	"k8s.io/client-go/kubernetes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func run(ctx context.Context, cs *kubernetes.Clientset, db *store.Store, name string) {
	cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
	cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	cs.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	db.Users().Get(ctx, name)
	db.Users().Get(ctx, nil)
	c := users.NewUsersClient(pool, 3)
	c.Users().Get(ctx, nil)
	u := users.NewUsersClient(pool)
	u.Users().Get(ctx, name)
	u.Users.Get(ctx, nil)
	u.Get(ctx, nil)
	u.Users().Find("x").Get(ctx, nil)
	u.Users().Get("ctx", nil)
	u.Users().ByUserId(name).Get(ctx, nil)
}
"""


def test_go_look_alikes_are_no_requests() -> None:
    # the last line is the one Kiota request
    assert calls("main.go", GO_LOOK_ALIKES) == [kiota("GET", "/users/{userId}", 26, "run", "UsersClient")]


# -- Python ---------------------------------------------------------------------------------------

PY_QUICKSTART = """
import asyncio
from kiota_abstractions.authentication.anonymous_authentication_provider import (
    AnonymousAuthenticationProvider)
from kiota_http.httpx_request_adapter import HttpxRequestAdapter
from client.posts_client import PostsClient
from client.models.post import Post

async def main():
    auth_provider = AnonymousAuthenticationProvider()
    request_adapter = HttpxRequestAdapter(auth_provider)
    client = PostsClient(request_adapter)
    all_posts = await client.posts.get()
    specific_post = await client.posts.by_post_id("5").get()
    created_post = await client.posts.post(new_post)
    updated_post = await (client.posts
        .by_post_id("5")
        .patch(update))
    await client.posts.by_post_id("5").delete()
    await client.posts.get(request_configuration=config)
    await client.posts.with_url(next_link).get()

asyncio.run(main())
"""


def test_python_quickstart() -> None:
    assert calls("main.py", PY_QUICKSTART) == [
        kiota("GET", "/posts", 12, "main"),
        kiota("GET", "/posts/{post_id}", 13, "main"),
        kiota("POST", "/posts", 14, "main"),
        kiota("PATCH", "/posts/{post_id}", 17, "main"),
        kiota("DELETE", "/posts/{post_id}", 18, "main"),
        kiota("GET", "/posts", 19, "main"),
        kiota("GET", "", 20, "main", computed=True),
    ]


PY_SERVICE = """
from typing import Optional

from app.clients.catalog.catalog_client import CatalogClient
from .clients.carts import carts_client


class CatalogService:
    def __init__(self, client: CatalogClient):
        self.client = client

    async def product(self, product_id: str):
        return await self.client.catalog.products.by_product_id(product_id).get()


class CartsService:
    def __init__(self, adapter):
        self._carts = carts_client.CartsClient(adapter)

    async def add(self, customer, item):
        return await self._carts.carts.by_customer_id(customer).items.post(item)


async def tags(client: Optional[CatalogClient] = None):
    return await client.catalog.tags.get()


def catalog() -> "CatalogClient":
    return CatalogClient(build_adapter())


async def size():
    return await catalog().catalog.size.get()


async def size_again():
    client = catalog()
    return await client.catalog.size.get()
"""


def test_python_roots_typed_or_made_in_a_file_without_kiota_imports() -> None:
    assert calls("app/services.py", PY_SERVICE) == [
        kiota("GET", "/catalog/products/{product_id}", 12, "CatalogService.product", "CatalogClient"),
        kiota("POST", "/carts/{customer_id}/items", 20, "CartsService.add", "CartsClient"),
        kiota("GET", "/catalog/tags", 24, "tags", "CatalogClient"),
        kiota("GET", "/catalog/size", 32, "size", "CatalogClient"),
        kiota("GET", "/catalog/size", 37, "size_again", "CatalogClient"),
    ]


def test_python_a_client_module_imported_whole() -> None:
    assert calls(
        "app/carts.py",
        """
        from app.clients import carts_client

        carts = carts_client.CartsClient(adapter)

        async def empty(customer):
            await carts.carts.by_customer_id(customer).delete()
        """,
    ) == [kiota("DELETE", "/carts/{customer_id}", 6, "empty", "CartsClient")]


PY_LOOK_ALIKES = """
import docker
import hvac
import httpx
from app.store import Store
from app.clients import UsersClient
from elasticsearch import Elasticsearch

cache = {}
docker_client = docker.DockerClient(base_url="unix://var/run/docker.sock")
vault = hvac.Client(url="http://vault:8200")
store = Store(pool)
users = UsersClient(pool, retries=3)
one = UsersClient(pool)
http = httpx.Client()


def run(name):
    cache.get(name)
    docker_client.containers.get(name)
    vault.secrets.get()
    store.users.get()
    users.users.get()
    one.users.get(name)
    one.users.delete(index=name)
    one.users.search(name).get()
    one.get()
    http.orders.get()
    one.users.by_user_id(name, 2).get()
    one.users.by_user_id(name).get()
"""


def test_python_look_alikes_are_no_requests() -> None:
    # the last line is the one Kiota request
    assert calls("app/run.py", PY_LOOK_ALIKES) == [kiota("GET", "/users/{user_id}", 29, "run", "UsersClient")]


# -- any bytes --------------------------------------------------------------------------------------

_CHAIN = st.lists(
    st.sampled_from(["client", ".", "posts", "byPostId(", "ByPostId(", "by_post_id(", ")", "get(", "Get(ctx, nil)",
                     "post(", "(", "\n", "await ", "this.", "self.", "x", ",", "{", "}", "Posts()", "create",
                     "Client"]),
    max_size=40,
).map("".join)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(body=_CHAIN)
def test_any_chain_gives_facts_and_never_an_exception(body: str) -> None:
    for path, head in (
        ("a.ts", 'import { createPostsClient } from "./c";\nconst client = createPostsClient(a);\n'),
        ("a.go", 'package a\nimport "example.com/c"\nfunc f() {\nclient := c.NewPostsClient(a)\n'),
        ("a.py", "from c import PostsClient\nclient = PostsClient(a)\ndef f():\n    "),
    ):
        first = extract(path, (head + body).encode())
        assert extract(path, (head + body).encode()) == first
