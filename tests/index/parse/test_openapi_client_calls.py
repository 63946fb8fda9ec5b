"""Calls through clients generated from an OpenAPI document, at their call sites, exactly.

Snippets follow the generators' documented usage (OpenAPI Generator's typescript-fetch, typescript-axios,
typescript-node, javascript, python, java and kotlin clients and go; Swagger Codegen; NSwag;
oapi-codegen; openapi-python-client). Every look-alike sits beside a genuine call in the same file (so
each test fails without the rule): a hand-written ``UserApi`` making its own requests, a library's
``...Api`` class, a builder chain, a hand-written Go client, a call missing the documented shape.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mesh.index import FileFacts, Index
from mesh.index._facts import HttpCall, Setting
from mesh.index.parse import _openapi_clients, extract

from ..test_enumerate import make


def facts(path: str, text: str) -> FileFacts:
    return extract(path, textwrap.dedent(text).lstrip("\n").encode())


def operations(path: str, text: str) -> list[HttpCall]:
    return [call for call in facts(path, text).http_calls if call.operation]


def op(
    name: str, line: int, symbol: str, *, host: str = "", address: str = "", client: str = "openapi-generator"
) -> HttpCall:
    return HttpCall("*", "", line, symbol, host, address, client, False, name)


def client_settings(path: str, text: str) -> list[Setting]:
    return [setting for setting in facts(path, text).settings if setting.key.endswith(("Api", "API"))]


# -- the language-neutral part ------------------------------------------------------------------------


def test_what_generators_add_to_an_operations_name_is_stripped() -> None:
    assert _openapi_clients.operation("getPetByIdWithHttpInfo", "jvm") == "getPetById"
    assert _openapi_clients.operation("getPetByIdAsync", "jvm") == "getPetById"
    assert _openapi_clients.operation("getPetByIdAsync", "ecmascript") == "getPetByIdAsync"  # no generator adds it
    assert _openapi_clients.operation("getPetByIdRaw", "ecmascript") == "getPetById"
    assert _openapi_clients.operation("get_pet_by_id_with_http_info", "python") == "get_pet_by_id"
    assert _openapi_clients.operation("get_pet_by_id_without_preload_content", "python") == "get_pet_by_id"
    assert _openapi_clients.oapi_operation("FindPetsWithResponse") == "FindPets"
    assert _openapi_clients.oapi_operation("AddPetWithBodyWithResponse") == "AddPet"
    assert _openapi_clients.oapi_operation("AddPetWithFormdataBody") == "AddPet"
    assert _openapi_clients.oapi_operation("ListPetsWithTags") == "ListPetsWithTags"


def test_the_plumbing_of_an_api_class_is_no_operation() -> None:
    for name, family in (
        ("withMiddleware", "ecmascript"), ("configuration", "ecmascript"), ("_private", "ecmascript"),
        ("getApiClient", "jvm"), ("setApiClient", "jvm"), ("getPetByIdRequestConfig", "jvm"), ("toString", "jvm"),
        ("api_client", "python"), ("_get_pet_by_id_serialize", "python"),
        ("GetPetByIdExecute", "go"), ("getPetById", "go"),
    ):  # fmt: skip
        assert _openapi_clients.operation(name, family) == "", name
    assert _openapi_clients.operation("GetPetById", "go") == "GetPetById"


def test_paths_that_may_hold_a_generated_client() -> None:
    assert _openapi_clients.generated_path("../../clients/orders/api")
    assert _openapi_clients.generated_path("orders_client.api.orders_api")
    assert _openapi_clients.generated_path("./generated", strong=True)
    assert _openapi_clients.generated_path("@acme/petstore-openapi", strong=True)
    assert not _openapi_clients.generated_path("../api", strong=True)
    assert not _openapi_clients.generated_path("./services/users")


# -- TypeScript and JavaScript ----------------------------------------------------------------------

#: retail-store-sample-app's checkout (typescript-node): the generated ``clients/orders`` is not indexed.
RETAIL = """
import { Checkout } from '../models/Checkout';
import { ExistingOrder, OrdersApi } from '../../clients/orders/api';
import { IOrdersService } from './IOrdersService';

export class HttpOrdersService implements IOrdersService {
  private ordersApi: OrdersApi;

  constructor(endpoint: string) {
    this.ordersApi = new OrdersApi(endpoint);
  }

  async create(checkout: Checkout): Promise<ExistingOrder> {
    return this.ordersApi
      .createOrder({
        shippingAddress: checkout.shippingAddress,
        items: checkout.items,
      })
      .then((value) => {
        return value.body;
      });
  }
}
"""


def test_typescript_node_client_of_retail_store() -> None:
    # the base address is the service's constructor argument: whoever makes it registers it
    assert operations("src/checkout/orders/HttpOrdersService.ts", RETAIL) == [
        op("createOrder", 14, "HttpOrdersService.create", address="client:HttpOrdersService")
    ]


TS_FETCH = """
import { Configuration, PetApi, StoreApi } from '../generated';
import { UserApi as Users } from './api/users';

const config = new Configuration({ basePath: process.env.PETSTORE_URL });
const api = new PetApi(config);

export async function show(id: number) {
  const pet = await api.getPetById({ petId: id });
  const raw = await api.getPetByIdRaw({ petId: id });
  const logged = api.withMiddleware(logger);
  return new StoreApi(new Configuration({ basePath: 'http://store:8080/v2' })).placeOrder({ order: {} });
}

class Pets {
  constructor(private readonly users: Users, private petApi?: PetApi) {}
  user() { return this.users.getUserByName({ username: 'x' }); }
  pets() { return this.petApi.findPetsByStatus({ status: [] }); }
}
"""


def test_typescript_fetch_client_with_a_configuration() -> None:
    assert operations("web/src/pets.ts", TS_FETCH) == [
        op("getPetById", 8, "show", address="env:PETSTORE_URL"),
        op("getPetById", 9, "show", address="env:PETSTORE_URL"),  # the Raw variant: the same operation
        op("placeOrder", 11, "show", host="store"),
        op("getUserByName", 16, "Pets.user", address="client:UserApi"),  # imported under another name
        op("findPetsByStatus", 17, "Pets.pets", address="client:PetApi"),  # injected: registered elsewhere
    ]
    # a file making an API class with a base address registers it for the files using the class
    assert client_settings("web/src/pets.ts", TS_FETCH) == [
        Setting("client:PetApi", 5, env="PETSTORE_URL"),
        Setting("client:StoreApi", 11, host="store", path="/v2"),
    ]


TS_AXIOS = """
import { PetApiFactory, PetApi } from './api';
import axios from 'axios';

const instance = axios.create();
const api = new PetApi(undefined, process.env.PET_API_URL, instance);

export const add = () => api.addPet({ name: 'x' });
export const remove = (id: number) => PetApiFactory(undefined, 'http://pets:80').deletePet(id);
"""


def test_typescript_axios_client_and_its_factory() -> None:
    assert operations("src/pets.ts", TS_AXIOS) == [
        op("addPet", 7, "add", address="env:PET_API_URL"),
        op("deletePet", 8, "remove", host="pets"),
    ]


def test_typescript_generator_with_a_server_configuration() -> None:
    text = """
    import { createConfiguration, ServerConfiguration, PetApi } from './generated/petstore';
    const configuration = createConfiguration({ baseServer: new ServerConfiguration(process.env.PETS_URL!, {}) });
    const api = new PetApi(configuration);
    api.getPetByIdWithHttpInfo(1).then(() => {});
    """
    assert operations("src/pets.ts", text) == [op("getPetById", 4, "", address="env:PETS_URL")]


JS_CLIENTS = """
const { PetApi } = require('./clients/petstore');
const OpenApiPetstore = require('openapi-js-client');

const api = new PetApi(process.env.PETSTORE);
api.getPetById(1);
const store = new OpenApiPetstore.StoreApi();
store.getInventory((error, data, response) => {});
"""


def test_javascript_clients_required() -> None:
    assert operations("src/pets.js", JS_CLIENTS) == [
        op("getPetById", 5, "", address="env:PETSTORE"),
        op("getInventory", 7, "", address="client:StoreApi"),
    ]


def test_nswag_and_angular_classes_only_from_a_generated_module() -> None:
    text = """
    import { PetClient } from './generated/petstore-client';
    import { OrdersClient } from './clients/orders';
    import { PetService } from '../openapi/api/pet.service';

    const pets = new PetClient('http://pets:5000');
    pets.getPet(1);
    const orders = new OrdersClient('http://orders');
    orders.getOrder(1);

    export class PetsComponent {
      constructor(private petService: PetService) {}
      load() { return this.petService.findPetsByStatus('available'); }
    }
    """
    assert operations("src/app.ts", text) == [
        op("getPet", 6, "", host="pets", client="nswag"),
        op("findPetsByStatus", 12, "PetsComponent.load", address="client:PetService"),
    ]


def test_typescript_look_alikes_give_their_own_calls_only() -> None:
    text = """
    import { FirebaseApi } from 'firebase-api';
    import { SomeApi } from 'some-sdk';
    import { GraphApi } from './graph';
    import { PetApi } from '../generated';

    class UserApi {
      getUser(id: string) { return fetch(`/api/users/${id}`); }
    }
    const users = new UserApi();
    users.getUser('1');
    new FirebaseApi().getDocument('x');
    const someApi = new SomeApi();
    someApi.get('/x');
    new GraphApi().query('x');
    new PetApi().getPetById({ petId: 1 });
    """
    found = facts("src/app.ts", text).http_calls
    assert [call for call in found if call.operation] == [op("getPetById", 15, "", address="client:PetApi")]
    assert [(call.client, call.path) for call in found if not call.operation] == [("fetch", "/api/users/{id}")]


def test_a_kiota_file_keeps_its_clients_to_kiota() -> None:
    text = """
    import { FetchRequestAdapter } from "@microsoft/kiota-http-fetchlibrary";
    import { PostsClient } from "./generated/postsClient";
    import { PetApi } from "./generated/petstore";
    const client = new PostsClient(adapter);
    client.listPosts();
    new PetApi().getPetById({ petId: 1 });
    """
    assert operations("src/a.ts", text) == [op("getPetById", 6, "", address="client:PetApi")]


# -- Python ----------------------------------------------------------------------------------------

PY_README = """
import os
import openapi_client
from openapi_client.rest import ApiException
from orders_client.api.orders_api import OrdersApi
from orders_client import ApiClient, Configuration

configuration = openapi_client.Configuration(host="http://petstore:8080/v2")


def main():
    with openapi_client.ApiClient(configuration) as api_client:
        api_instance = openapi_client.PetApi(api_client)
        pet = api_instance.get_pet_by_id(1)
        api_instance.get_pet_by_id_with_http_info(1)
        api_instance.api_client.close()


class Orders:
    def __init__(self):
        conf = Configuration(host=os.environ["ORDERS_URL"])
        self.api = OrdersApi(ApiClient(conf))

    def create(self, order):
        return self.api.create_order(order)


def typed(api: OrdersApi):
    return api.list_orders()
"""


def test_python_client_of_openapi_generator() -> None:
    assert operations("shop/app.py", PY_README) == [
        op("get_pet_by_id", 13, "main", host="petstore"),
        op("get_pet_by_id", 14, "main", host="petstore"),
        op("create_order", 24, "Orders.create", address="env:ORDERS_URL"),
        op("list_orders", 28, "typed", address="client:OrdersApi"),
    ]


PY_OPENAPI_PYTHON_CLIENT = """
import os
from my_api_client import Client, AuthenticatedClient
from my_api_client.api.pets import get_pet, list_pets
from my_api_client.models import Pet

client = Client(base_url="http://pets:8000")


def one(pet_id: int) -> Pet:
    return get_pet.sync(client=client, pet_id=pet_id)


async def many():
    async with AuthenticatedClient(base_url=os.getenv("PETS_URL"), token="x") as c:
        return await list_pets.asyncio_detailed(client=c)


def lookalike():
    return get_pet.sync(1)  # not the documented shape: the client is given by keyword
"""


def test_python_endpoint_modules_of_openapi_python_client() -> None:
    client = "openapi-python-client"
    assert operations("shop/pets.py", PY_OPENAPI_PYTHON_CLIENT) == [
        op("get_pet", 10, "one", host="pets", client=client),
        op("list_pets", 15, "many", address="env:PETS_URL", client=client),
    ]


def test_python_client_of_swagger_codegen() -> None:
    text = """
    import swagger_client

    api_instance = swagger_client.PetApi(swagger_client.ApiClient())
    api_instance.add_pet(body)
    """
    assert operations("app.py", text) == [op("add_pet", 4, "", address="client:PetApi", client="swagger-codegen")]


def test_python_look_alikes_give_their_own_calls_only() -> None:
    text = """
    import requests
    from huggingface_hub import HfApi
    from kubernetes.client import CoreV1Api
    from petstore_api import PetApi

    class UserApi:
        def get_user(self, uid):
            return requests.get(f"http://users/api/users/{uid}")

    UserApi().get_user(1)
    HfApi().upload_file(path="x")
    CoreV1Api().list_namespaced_pod("default")
    PetApi().get_pet_by_id(1)
    """
    found = facts("app.py", text).http_calls
    assert [call for call in found if call.operation] == [op("get_pet_by_id", 13, "", address="client:PetApi")]
    assert [(call.client, call.host) for call in found if not call.operation] == [("requests", "users")]


# -- Java and Kotlin --------------------------------------------------------------------------------

JAVA_README = """
package com.acme.shop;

import org.openapitools.client.ApiClient;
import org.openapitools.client.ApiException;
import org.openapitools.client.Configuration;
import org.openapitools.client.api.PetApi;
import com.acme.orders.client.api.OrdersApi;

public class Shop {
    private final OrdersApi ordersApi;

    public Shop(OrdersApi ordersApi) {
        this.ordersApi = ordersApi;
    }

    public void run() throws ApiException {
        ApiClient defaultClient = Configuration.getDefaultApiClient();
        defaultClient.setBasePath(System.getenv("PETSTORE_URL"));
        PetApi apiInstance = new PetApi(defaultClient);
        Pet result = apiInstance.getPetById(1L);
        apiInstance.getPetByIdWithHttpInfo(1L);
        apiInstance.getApiClient();
        ordersApi.createOrder(new Order());
        new PetApi(new ApiClient().setBasePath("http://pets:8080")).addPet(null);
    }
}
"""


def test_java_client_of_openapi_generator() -> None:
    assert operations("shop/src/main/java/com/acme/shop/Shop.java", JAVA_README) == [
        op("getPetById", 20, "Shop.run", address="env:PETSTORE_URL"),
        op("getPetById", 21, "Shop.run", address="env:PETSTORE_URL"),
        op("createOrder", 23, "Shop.run", address="client:OrdersApi"),
        op("addPet", 24, "Shop.run", host="pets"),
    ]


def test_a_spring_bean_making_an_api_class_registers_its_base_address() -> None:
    text = """
    package com.acme.shop;

    import com.acme.orders.client.ApiClient;
    import com.acme.orders.client.api.OrdersApi;
    import org.springframework.beans.factory.annotation.Value;
    import org.springframework.context.annotation.Bean;

    public class ClientsConfig {
        @Bean
        public OrdersApi ordersApi(@Value("${orders.url}") String url) {
            ApiClient client = new ApiClient();
            client.setBasePath(url);
            OrdersApi api = new OrdersApi(client);
            api.ping();
            return api;
        }
    }
    """
    path = "shop/src/main/java/com/acme/shop/ClientsConfig.java"
    assert client_settings(path, text) == [Setting("client:OrdersApi", 13, env="config:orders.url")]
    assert operations(path, text) == [op("ping", 14, "ClientsConfig.ordersApi", address="config:orders.url")]


def test_swagger_codegen_default_package_is_no_library() -> None:
    text = """
    package com.acme;

    import io.swagger.client.api.PetApi;

    class Pets {
        void run(PetApi api) { api.findPetsByStatus(null); }
    }
    """
    assert operations("src/main/java/com/acme/Pets.java", text) == [
        op("findPetsByStatus", 6, "Pets.run", address="client:PetApi", client="swagger-codegen")
    ]


def test_java_feign_library_clients_built_by_the_api_client() -> None:
    text = """
    package com.acme.shop;

    import com.acme.pets.client.ApiClient;
    import com.acme.pets.client.api.PetApi;

    class Pets {
        void run() {
            ApiClient apiClient = new ApiClient();
            apiClient.setBasePath("http://pets:8080/v2");
            var api = apiClient.buildClient(PetApi.class);
            api.getPetById(1L);
        }
    }
    """
    path = "src/main/java/com/acme/shop/Pets.java"
    assert operations(path, text) == [op("getPetById", 11, "Pets.run", host="pets")]
    assert client_settings(path, text) == [Setting("client:PetApi", 10, host="pets", path="/v2")]


def test_java_look_alikes_give_their_own_calls_only() -> None:
    text = """
    package com.acme.shop;

    import org.springdoc.core.models.GroupedOpenApi;
    import org.gitlab4j.api.GitLabApi;
    import io.kubernetes.client.openapi.apis.CoreV1Api;
    import org.springframework.web.client.RestTemplate;
    import com.acme.pets.client.api.PetApi;

    public class Look {
        static class UserApi {
            RestTemplate rest = new RestTemplate();
            User getUser(String id) { return rest.getForObject("http://users/api/users/" + id, User.class); }
        }

        GroupedOpenApi publicApi() { return GroupedOpenApi.builder().group("carts").pathsToMatch("/carts/**").build(); }

        void run(GitLabApi gitLab, CoreV1Api core, PetApi pets) {
            new UserApi().getUser("1");
            gitLab.getProjectApi();
            core.listNamespacedPod("default");
            pets.getPetById(1L);
        }
    }
    """
    found = facts("src/main/java/com/acme/shop/Look.java", text).http_calls
    assert [call for call in found if call.operation] == [op("getPetById", 21, "Look.run", address="client:PetApi")]
    assert [(call.client, call.path) for call in found if not call.operation] == [("RestTemplate", "/api/users/{id}")]


def test_kotlin_client_of_openapi_generator() -> None:
    text = """
    package com.acme.shop

    import org.openapitools.client.apis.PetApi
    import org.openapitools.client.infrastructure.ClientException

    class Pets {
        private val api = PetApi(System.getenv("PETS_URL"))
        fun one(id: Long) = api.getPetById(id)
        fun two(id: Long) = PetApi(basePath = "http://pets:8080").deletePet(id)
        fun three(id: Long) = api.getPetByIdRequestConfig(id)
    }
    """
    path = "src/main/kotlin/com/acme/shop/Pets.kt"
    assert operations(path, text) == [
        op("getPetById", 8, "Pets.one", address="env:PETS_URL"),
        op("deletePet", 9, "Pets.two", host="pets"),
    ]
    assert client_settings(path, text) == [
        Setting("client:PetApi", 7, env="PETS_URL"),
        Setting("client:PetApi", 9, host="pets"),
    ]


# -- Go ---------------------------------------------------------------------------------------------

GO_CLIENTS = """
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	openapiclient "github.com/acme/petstore-client"
	"github.com/acme/shop/internal/ordersapi"
	"github.com/acme/shop/internal/users"
	"github.com/redis/go-redis/v9"
)

type Server struct {
	orders *ordersapi.ClientWithResponses
	users  *users.Client
}

func main() {
	configuration := openapiclient.NewConfiguration()
	configuration.Servers = openapiclient.ServerConfigurations{{URL: os.Getenv("PETSTORE_URL")}}
	apiClient := openapiclient.NewAPIClient(configuration)
	resp, r, err := apiClient.PetAPI.GetPetById(context.Background(), 1).Execute()
	fmt.Println(resp, r, err)
	req := apiClient.PetApi.FindPetsByStatus(context.Background()).Status([]string{"available"})
	req.Execute()
	apiClient.PetApi.GetPetByIdExecute(req)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	resp, err := s.orders.CreateOrderWithResponse(r.Context(), ordersapi.CreateOrderJSONRequestBody{})
	fmt.Println(resp, err)
	s.users.GetUser(r.Context(), "1")
	rdb := redis.NewClient(&redis.Options{})
	rdb.Get(r.Context(), "k")
}

func newOrders() {
	c, _ := ordersapi.NewClientWithResponses("http://orders:8080")
	c.ListOrdersWithResponse(context.TODO())
	c.AddItemWithBodyWithResponse(context.TODO(), "application/json", nil)
	c.ListOrdersWithResponse()
	u := users.NewClient("http://users")
	u.GetUser(context.TODO(), "1")
}
"""


def test_go_clients_of_openapi_generator_and_oapi_codegen() -> None:
    oapi = "oapi-codegen"
    assert operations("shop/main.go", GO_CLIENTS) == [
        op("GetPetById", 24, "main", address="env:PETSTORE_URL"),
        op("FindPetsByStatus", 26, "main", address="env:PETSTORE_URL"),
        op("CreateOrder", 32, "Server.handle", client=oapi),
        op("ListOrders", 41, "newOrders", host="orders", client=oapi),
        op("AddItem", 42, "newOrders", host="orders", client=oapi),
    ]


def test_go_service_of_an_api_client_declared() -> None:
    text = """
    package pets

    import (
    	"context"

    	petstore "github.com/acme/shop/clients/petstore"
    	"github.com/acme/shop/internal/users"
    )

    type Pets struct {
    	svc   *petstore.PetAPIService
    	users *users.UsersService
    }

    func (p *Pets) One(ctx context.Context, id int64) {
    	p.svc.GetPetById(ctx, id).Execute()
    	p.users.GetUser(ctx, id)
    }
    """
    assert operations("pets/pets.go", text) == [op("GetPetById", 16, "Pets.One")]


def test_go_plain_oapi_client_only_from_a_generated_package() -> None:
    text = """
    package main

    import (
    	"context"

    	"github.com/acme/shop/gen/petsapi"
    	"github.com/acme/shop/internal/orders"
    )

    func run(ctx context.Context) {
    	pets, _ := petsapi.NewClient("http://pets")
    	pets.FindPets(ctx, nil)
    	o, _ := orders.NewClient("http://orders")
    	o.GetOrder(ctx, "1")
    }
    """
    assert operations("shop/run.go", text) == [op("FindPets", 12, "run", host="pets", client="oapi-codegen")]


# -- totality ---------------------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "api", ".", "getPetById", "(", ")", "{", "}", ";", "new ", "PetApi", "Configuration", "basePath", ":",
        "'http://x'", ",", "this", "\n", " ", "=", "ctx", "Execute", "PetAPI", "NewAPIClient", "self", "get_pet",
        "sync", "client=", "await ", "[", "]", "\"", "WithResponse", "setBasePath",
    ]
)  # fmt: skip
_BODY = st.lists(_PIECES, max_size=40).map("".join)
_HEADS = (
    ("a.ts", "import { PetApi, Configuration } from './generated';\nconst api = new PetApi();\n"),
    ("a.go", 'package a\nimport "example.com/gen/petstore"\nfunc f() {\napiClient := petstore.NewAPIClient(nil)\n'),
    ("a.py", "import openapi_client\napi = openapi_client.PetApi()\ndef f():\n    "),
    ("A.java", "import org.openapitools.client.api.PetApi;\nclass A { PetApi api; void f() {\n"),
    ("A.kt", "import org.openapitools.client.apis.PetApi\nclass A { val api = PetApi()\nfun f() {\n"),
)


@settings(max_examples=60, deadline=None)
@given(body=_BODY)
def test_any_bytes_give_facts_the_same_each_time(body: str) -> None:
    for path, head in _HEADS:
        first = extract(path, (head + body).encode())
        assert not first.error.startswith("extractor failed"), first.error
        assert extract(path, (head + body).encode()) == first


# -- through the index: the operation gives the call its method, path and target --------------------


def test_an_operation_call_reaches_the_service_declaring_the_operation(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make(
        root,
        {
            "orders/Dockerfile": "FROM scratch\n",
            "orders/package.json": '{"name": "orders"}\n',
            "orders/openapi.yml": textwrap.dedent(
                """\
                openapi: 3.0.1
                info: {title: Orders, version: "1"}
                paths:
                  /orders:
                    post:
                      operationId: createOrder
                      responses: {"201": {description: created}}
                """
            ),
            "orders/src/index.js": "module.exports = {};\n",
            "checkout/Dockerfile": "FROM scratch\n",
            "checkout/package.json": '{"name": "checkout"}\n',
            "checkout/src/checkout/orders/HttpOrdersService.ts": textwrap.dedent(RETAIL).lstrip("\n"),
        },
    )
    index = Index(root, tmp_path / "cache")
    index.refresh()
    with index.store.snapshot() as db:
        rows = db.execute(
            "SELECT method, full_path, target, operation FROM http_calls WHERE operation != ''"
        ).fetchall()
    assert rows == [("POST", "/orders", "orders", "createOrder")]
