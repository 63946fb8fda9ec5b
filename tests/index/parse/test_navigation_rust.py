"""Code navigation facts of Rust: signatures, doc lines and references (queries/rust/references.scm)."""

from __future__ import annotations

import textwrap

from mesh.index import Definition
from mesh.index.parse import extract


def _facts(source: str):
    return extract("svc/shipping/src/orders.rs", textwrap.dedent(source).lstrip("\n").encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def _described(source: str) -> dict[str, tuple[str, str]]:
    return {d.name: (d.signature, d.doc) for d in _facts(source).definitions}


def test_signatures_of_items_with_generics_where_clauses_and_attributes() -> None:
    described = _described(
        """
        #[derive(Debug, Clone)]
        pub struct Order<T: Clone>
        where
            T: Send,
        {
            pub id: u64,
        }

        pub struct Unit;

        pub(crate) enum Status { Paid, Shipped }

        pub const MAX_ITEMS: usize = 10;
        static NAME: &str = "orders";
        type Res<T> = Result<T, Error>;

        pub trait Store: Send + Sync {
            type Key;
            fn put(&self, key: &Self::Key) -> Result<(), Error>;
        }

        impl<T: Clone> Store for Order<T> {
            #[inline]
            pub async fn find<'a>(
                &'a self,
                id: u64,
            ) -> Option<&'a T> where T: 'a {
                None
            }
        }

        mod inner {}
        """
    )
    assert described["Order"][0] == "pub struct Order<T: Clone> where T: Send,"
    assert described["Unit"][0] == "pub struct Unit"
    assert described["Status"][0] == "pub(crate) enum Status"
    assert described["MAX_ITEMS"][0] == "pub const MAX_ITEMS: usize = 10"
    assert described["NAME"][0] == 'static NAME: &str = "orders"'
    assert described["Res"][0] == "type Res<T> = Result<T, Error>"
    assert described["Store"][0] == "pub trait Store: Send + Sync"
    assert described["Key"][0] == "type Key"
    assert described["put"][0] == "fn put(&self, key: &Self::Key) -> Result<(), Error>"
    assert described["find"][0] == "pub async fn find<'a>( &'a self, id: u64, ) -> Option<&'a T> where T: 'a"
    assert described["inner"][0] == "mod inner"


def test_doc_lines_outer_docs_plain_comments_and_module_inner_docs() -> None:
    described = _described(
        """
        //! The crate: never the doc of what follows.
        pub fn first() {}

        /// An order.
        ///
        /// More about it.
        #[derive(Debug)]
        #[serde(rename_all = "camelCase")]
        pub struct Order;

        /**
         * Reads one order.
         */
        pub fn read() {}

        // A plain comment documents too.
        pub fn plain() {}

        /// Not about apart.

        pub fn apart() {}

        const A: u8 = 1; // documents A's line only
        const B: u8 = 2;

        /// Outer doc of the module.
        mod outer {}

        mod inner {
            //! The inner module's own doc.
            /// Helper doc.
            pub fn helper() {}
        }
        """
    )
    docs = {name: doc for name, (_, doc) in described.items()}
    assert docs == {
        "first": "",
        "Order": "An order.",
        "read": "Reads one order.",
        "plain": "A plain comment documents too.",
        "apart": "",
        "A": "",
        "B": "",
        "outer": "Outer doc of the module.",
        "inner": "The inner module's own doc.",
        "helper": "Helper doc.",
    }


def test_definitions_compare_as_before() -> None:
    (definition,) = _facts("/// Runs.\nfn run() {}\n").definitions
    assert definition == Definition("run", "function", "", 2, 2)
    assert (definition.signature, definition.doc) == ("fn run()", "Runs.")


def test_calls_macros_and_struct_expressions_with_their_qualifier() -> None:
    refs = _refs(
        """
        fn place(&self, cfg: Config) -> Result<Receipt> {
            let client = OrdersClient::connect(addr).await?;
            let order = Order { id: 1, ..Default::default() };
            let paid = pb::Order { id: 2 };
            let status = Status::Shipped { at: now() };
            let page = Page::<u8> { items: vec![] };
            let ids = Vec::<u64>::new();
            self.audit(&order);
            client.get_order(request).await?;
            let total = pricing::total::<f64>(&order);
            let parsed = order.items.iter().map(Item::price).sum::<f64>();
            println!("{}", MAX_ITEMS);
            log::info!("placed");
            Ok(Receipt::from(order))
        }
        """
    )
    assert refs >= {
        ("connect", 2, "call", "OrdersClient"),
        ("OrdersClient", 2, "use", ""),
        ("Order", 3, "new", ""),
        ("default", 3, "call", "Default"),
        ("Order", 4, "new", "pb"),
        ("Shipped", 5, "new", "Status"),
        ("now", 5, "call", ""),
        ("Page", 6, "new", ""),
        ("vec", 6, "call", ""),
        ("new", 7, "call", "Vec"),
        ("audit", 8, "call", "self"),
        ("get_order", 9, "call", "client"),
        ("total", 10, "call", "pricing"),
        ("map", 11, "call", "~"),
        ("sum", 11, "call", "~"),
        ("println", 12, "call", ""),
        ("MAX_ITEMS", 12, "use", ""),
        ("info", 13, "call", "log"),
        ("Ok", 14, "call", ""),
        ("from", 14, "call", "Receipt"),
    }


def test_types_in_every_position_and_attributes() -> None:
    refs = _refs(
        """
        #[tokio::main]
        #[derive(Debug, Serialize)]
        struct Holder<T: Store + Clone> where T: Send {
            inner: Arc<Mutex<T>>,
            client: pb::orders_client::OrdersClient<Channel>,
        }

        impl<T: Store> fmt::Display for Holder<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let boxed: Box<dyn Error + Send> = make();
                let n = value as Count;
                let v = iter.collect::<Vec<Item>>();
                match self { Holder { inner, .. } => {} }
                Self::helper()
            }
        }
        """
    )
    assert refs >= {
        ("main", 1, "type", "tokio"),
        ("Debug", 2, "type", ""),
        ("Serialize", 2, "type", ""),
        ("Store", 3, "type", ""),
        ("Clone", 3, "type", ""),
        ("Send", 3, "type", ""),
        ("Arc", 4, "type", ""),
        ("Mutex", 4, "type", ""),
        ("OrdersClient", 5, "type", "pb.orders_client"),
        ("Channel", 5, "type", ""),
        ("Display", 8, "type", "fmt"),
        ("Holder", 8, "type", ""),
        ("Formatter", 9, "type", "fmt"),
        ("Result", 9, "type", "fmt"),
        ("Box", 10, "type", ""),
        ("Error", 10, "type", ""),
        ("Count", 11, "type", ""),
        ("Vec", 12, "type", ""),
        ("Item", 12, "type", ""),
        ("Holder", 13, "type", ""),
        ("helper", 14, "call", "Self"),
    }
    names = {name for name, *_ in refs}
    assert not names & {"Self", "derive", "u8"}


def test_values_read_constants_variants_and_patterns() -> None:
    refs = _refs(
        """
        fn check(s: Status) -> u32 {
            let limit = config::TIMEOUT + MAX_ITEMS;
            match s {
                Status::Paid | Status::Shipped => Self::BASE,
                Status::Held(reason) => 0,
                None => DEFAULT,
                _ => 1,
            }
        }
        """
    )
    assert refs >= {
        ("TIMEOUT", 2, "use", "config"),
        ("MAX_ITEMS", 2, "use", ""),
        ("Status", 4, "use", ""),
        ("Paid", 4, "use", "Status"),
        ("Shipped", 4, "use", "Status"),
        ("BASE", 4, "use", "Self"),
        ("Held", 5, "use", "Status"),
        ("None", 6, "use", ""),
        ("DEFAULT", 6, "use", ""),
    }


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        extern crate Serde;
        use crate::pb::{Order as Placed, Status};
        use std::fmt::Display;

        pub struct Holder;
        pub enum Color { Red, Green = 2 }
        union Bits { a: u32 }
        pub trait Store { type Key; }
        const MAX: u8 = 1;
        static NAME: u8 = 2;
        type Alias = u8;
        mod Inner {}
        macro_rules! Make { () => {} }

        fn Run<const N: usize>(Input: u8) {
            let Local = Helper;
            let apply = |Arg: u8, Other| 0;
            for Item in items {}
            'Outer: loop { break 'Outer; }
            use self::Inner::Thing;
        }
        """
    )
    assert refs == {("Helper", 16, "use", "")}


def test_a_tree_too_broken_to_query_answers_without_references() -> None:
    assert extract("svc/ok.rs", b"fn f() {\n    g();\n    )\n}\n").references  # errors within reason: queried
    facts = extract("svc/junk.rs", b"fn f() {\n" + b"{(" * 20_000)
    assert facts.error.startswith("syntax error") and facts.references == ()


def test_calls_and_values_inside_a_macros_tokens() -> None:
    refs = _refs(
        """
        fn report(cart: &Cart) {
            println!("{} {}", cart.total(), self.describe());
            assert_eq!(pricing::shipping(1.5), settle(&cart), "{:?}", Status::Paid);
        }
        """
    )
    assert refs >= {
        ("println", 2, "call", ""),
        ("total", 2, "call", "cart"),
        ("describe", 2, "call", "self"),
        ("assert_eq", 3, "call", ""),
        ("shipping", 3, "call", "pricing"),
        ("settle", 3, "call", ""),
        ("Paid", 3, "use", "Status"),
    }


def _binds(source: str) -> set[tuple[str, int, str, str]]:
    """(name, line, qualifier, binds) of every reference that gives its type to something."""
    return {(r.name, r.line, r.qualifier, r.binds) for r in _facts(source).references if r.binds}


def test_enum_variants_are_constants_of_their_enum_and_macros_are_functions() -> None:
    definitions = _facts(
        """
        mod shop {
            /// Lifecycle of an invoice.
            pub enum Status {
                /// Not paid yet.
                Pending,
                Held(String),
                Moved { to: u32 },
                Paid = 3,
            }
        }

        /// Builds a cart.
        #[macro_export]
        macro_rules! cart {
            () => { Cart::new() };
        }
        """
    ).definitions
    assert definitions == (
        Definition("shop", "module", "", 1, 10),
        Definition("Status", "enum", "shop", 3, 9),
        Definition("Pending", "constant", "shop.Status", 5, 5),
        Definition("Held", "constant", "shop.Status", 6, 6),
        Definition("Moved", "constant", "shop.Status", 7, 7),
        Definition("Paid", "constant", "shop.Status", 8, 8),
        Definition("cart", "function", "", 14, 16),
    )
    described = {d.name: (d.signature, d.doc) for d in definitions}
    assert described["Pending"] == ("Pending", "Not paid yet.")
    assert described["Held"] == ("Held(String)", "")
    assert described["Moved"] == ("Moved", "")
    assert described["Paid"] == ("Paid = 3", "")
    assert described["cart"] == ("macro_rules! cart", "Builds a cart.")


def test_declarations_bind_their_names_to_their_types() -> None:
    binds = _binds(
        """
        struct Service {
            orders: OrderService,
            client: pb::OrdersClient<Channel>,
            db: Arc<Db>,
            count: u32,
        }

        fn place(cart: &Cart, mut store: &mut store::Store, doc: &dyn Priced, sink: impl Sink, boxed: Box<dyn Hook>, me: &Self) {
            let ledger: Ledger = open();
            let mut fresh = Fresh::new();
            let raw = pb::Raw::default()?;
            let unwrapped = Conn::from_env().unwrap();
            let built = Built { id: 1 };
            let tuned = Tuned::with_capacity(4);
            let apply = |item: Item| item.price();
            let other = helper::make();
            let loaded = Config::load();
            let n: u32 = 1;
        }
        """
    )
    assert binds == {
        ("OrderService", 2, "", "orders"),
        ("OrdersClient", 3, "pb", "client"),
        ("Db", 4, "", "db"),
        ("Cart", 8, "", "cart"),
        ("Store", 8, "store", "store"),
        ("Priced", 8, "", "doc"),
        ("Sink", 8, "", "sink"),
        ("Hook", 8, "", "boxed"),
        ("Ledger", 9, "", "ledger"),
        ("Fresh", 10, "", "fresh"),
        ("Raw", 11, "pb", "raw"),
        ("Conn", 12, "", "unwrapped"),
        ("Built", 13, "", "built"),
        ("Tuned", 14, "", "tuned"),
        ("Item", 15, "", "item"),
    }
    refs = _facts("fn f(me: &Self, b: Box<u8>) {}\n").references
    assert [(r.name, r.binds) for r in refs] == [("Box", "")]  # Self is no type to navigate to; Box holds no type


def test_a_name_given_two_types_in_the_file_binds_neither() -> None:
    binds = _binds(
        """
        fn get(req: GetRequest, cart: &Cart) {}

        fn put(req: PutRequest) {
            let cart = Cart::new();
        }
        """
    )
    assert binds == {("Cart", 1, "", "cart"), ("Cart", 4, "", "cart")}


def test_paths_passed_as_values_are_uses_of_the_function() -> None:
    refs = _refs(
        """
        fn total(items: &[Item]) -> f64 {
            items.iter().map(Item::price).map(f64::from).sum()
        }
        """
    )
    assert refs >= {("price", 2, "use", "Item"), ("from", 2, "use", "f64")}
