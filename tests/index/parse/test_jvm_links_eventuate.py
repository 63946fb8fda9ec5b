"""Eventuate's messaging facts in Java and Kotlin (``_jvm_links``, its Eventuate section).

Eventuate Tram names a channel by an aggregate type's qualified name or a string; Eventuate Client
(event sourcing) publishes an aggregate's events to its class's qualified name. One test per shape:
the calls of an aggregate publisher subclass, the event-sourcing repositories and store, their
subscribers, the sagas' reply subscriber and the testing utilities, each with the look-alikes it
must leave alone; then totality and cost.
"""

from __future__ import annotations

import textwrap
import time

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mesh.index._facts import FileFacts, MessageFact
from mesh.index.parse import _java, _kotlin

TRAM = "eventuate-tram"
CLIENT = "eventuate-client"


def java(source: str) -> FileFacts:
    return _java.extract(textwrap.dedent(source).lstrip("\n").encode())


def kotlin(source: str) -> FileFacts:
    return _kotlin.extract(textwrap.dedent(source).lstrip("\n").encode())


def messages(facts: FileFacts) -> list[tuple[str, str, int, str, str, str]]:
    """(role, name, line, symbol, address, client) of each message fact; a computed name is "?"."""
    assert all(fact.broker == "" and fact.kind == "channel" for fact in facts.messages)
    return [
        (fact.role, "?" if fact.computed else fact.name, fact.line, fact.symbol, fact.address, fact.client)
        for fact in facts.messages
    ]


# -- 1. calls of an aggregate publisher subclass ----------------------------------------------------


def test_calls_of_an_aggregate_publisher_name_their_publisher_type_and_the_aggregate_when_readable() -> None:
    facts = java(
        """
        package net.acme.orders.domain;

        import io.eventuate.tram.events.aggregates.ResultWithDomainEvents;
        import io.eventuate.tram.events.aggregates.AbstractAggregateDomainEventPublisher;
        import net.acme.kitchen.domain.Ticket;
        import static net.acme.orders.OrderMother.CHICKEN_ORDER;
        import static org.mockito.Mockito.verify;

        public class OrderService {
            private OrderDomainEventPublisher orderPublisher;
            private TicketDomainEventPublisher ticketPublisher;
            private OrderEvents orderEvents;
            private AbstractAggregateDomainEventPublisher<Order, OrderDomainEvent> basePublisher;
            private OrderEventPublisher notAnAggregatePublisher;

            void create(Order order, ResultWithDomainEvents<Order, OrderDomainEvent> rwe) {
                orderPublisher.publish(order, rwe.events);
                this.orderPublisher.publish(rwe.result, rwe.events);
                orderRepository.findById(1L).map(o -> { orderPublisher.publish(o, events); return o; });
                orderPublisher.publish(CHICKEN_ORDER, events);
                Ticket ticket = new Ticket();
                ticketPublisher.publish(ticket, events);
                orderEvents.publish(order, events);
                orderEvents.publish(lookup(), events);
                basePublisher.publish(lookup(), events);
                verify(orderPublisher).publish(order, events);
                notAnAggregatePublisher.publish(order, events);
                orderPublisher.publish(order);
                new Mailer().publish(order, events); mailer.publish(order, events);
            }
            private Mailer mailer;
        }

        class OrderEvents extends AbstractAggregateDomainEventPublisher<Order, OrderDomainEvent> {
            OrderEvents(DomainEventPublisher p) { super(p, Order.class, Order::getId); }
        }

        class Mailer { void publish(Object to, Object body) { } }
        """
    )
    order, ticket = "net.acme.orders.domain.Order", "net.acme.kitchen.domain.Ticket"
    publisher = "client:OrderDomainEventPublisher"
    assert messages(facts) == [
        ("produce", order, 17, "OrderService.create", publisher, TRAM),
        ("produce", order, 18, "OrderService.create", publisher, TRAM),
        # a lambda's parameter, a static import: the aggregate is not readable here, the class says it
        ("produce", "", 19, "OrderService.create", publisher, TRAM),
        ("produce", "", 20, "OrderService.create", publisher, TRAM),
        ("produce", ticket, 22, "OrderService.create", "client:TicketDomainEventPublisher", TRAM),
        ("produce", order, 23, "OrderService.create", "client:OrderEvents", TRAM),
        # the class is declared here: its aggregate names the call's channel
        ("produce", order, 24, "OrderService.create", "client:OrderEvents", TRAM),
        # the abstract publisher declared with its aggregate: the channel is known, no class to resolve
        ("produce", order, 25, "OrderService.create", "", TRAM),
        # the declaration's own fact stays
        ("produce", order, 34, "OrderEvents", "", TRAM),
    ]
    assert not any(fact.computed for fact in facts.messages)


def test_publisher_calls_without_eventuate_in_the_file_only_where_the_aggregate_is_readable() -> None:
    facts = java(
        """
        package net.acme.orders.domain;

        public class OrderService {
            private OrderDomainEventPublisher orderPublisher;

            void create(Order order) {
                orderPublisher.publish(order, events);
                orders.forEach(o -> orderPublisher.publish(o, events));
            }
        }
        """
    )
    assert messages(facts) == [
        ("produce", "net.acme.orders.domain.Order", 7, "OrderService.create", "client:OrderDomainEventPublisher", TRAM),
    ]


def test_kotlin_calls_of_an_aggregate_publisher() -> None:
    facts = kotlin(
        """
        package net.acme.orders.domain

        import io.eventuate.tram.events.publisher.DomainEventPublisher

        class OrderService(private val orderPublisher: OrderDomainEventPublisher) {
            fun create(order: Order) {
                orderPublisher.publish(order, listOf(OrderCreated()))
                repository.findById(1L).map { orderPublisher.publish(it, events) }
            }
        }
        """
    )
    publisher = "client:OrderDomainEventPublisher"
    assert messages(facts) == [
        ("produce", "net.acme.orders.domain.Order", 7, "OrderService.create", publisher, TRAM),
        ("produce", "", 8, "OrderService.create", publisher, TRAM),
    ]


# -- 2. Eventuate Client's event sourcing ------------------------------------------------------------


def test_event_sourcing_repositories_and_the_aggregate_store_publish_to_the_aggregate_class() -> None:
    facts = java(
        """
        package net.acme.accounting.messaging;

        import io.eventuate.sync.AggregateRepository;
        import io.eventuate.EventuateAggregateStore;
        import net.acme.accounting.domain.*;
        import net.acme.customers.domain.Customer;
        import static io.eventuate.tram.sagas.eventsourcingsupport.UpdatingOptionsBuilder.replyingTo;

        public class AccountingCommandHandler {
            @Autowired
            private AggregateRepository<Account, AccountCommand> accountRepository;
            private final AggregateRepository<Customer, CustomerCommand> customers;
            private EventuateAggregateStore aggregateStore;

            void authorize(CommandMessage<AuthorizeCommand> cm) {
                accountRepository.update(cm.getCommand().getId(), new AuthorizeCommandInternal(), replyingTo(cm).build());
                this.accountRepository.save(new CreateAccountCommand());
                customers.updateWithProvidedCommand(id, a -> Optional.of(command), options);
                var local = new AggregateRepository<>(Invoice.class, aggregateStore);
                local.save(new CreateInvoice());
                aggregateStore.save(Account.class, events, Optional.empty());
                aggregateStore.update(Customer.class, idAndVersion, events);
                aggregateStore.save(clasz, events);
                accountRepository.find(id);
                orderRepository.save(order);
                aggregateStore.find(Account.class, id);
            }
        }
        """
    )
    account, customer = "net.acme.accounting.domain.Account", "net.acme.customers.domain.Customer"
    symbol = "AccountingCommandHandler.authorize"
    assert messages(facts) == [
        # Account comes through the one wildcard import of the application's packages
        ("produce", account, 16, symbol, "", CLIENT),
        ("produce", account, 17, symbol, "", CLIENT),
        ("produce", customer, 18, symbol, "", CLIENT),
        ("produce", "net.acme.accounting.domain.Invoice", 20, symbol, "", CLIENT),
        ("produce", account, 21, symbol, "", CLIENT),
        ("produce", customer, 22, symbol, "", CLIENT),
        ("produce", "?", 23, symbol, "", CLIENT),
    ]


def test_repositories_of_other_libraries_and_files_without_eventuate_give_nothing() -> None:
    other = java(
        """
        package net.acme.orders;

        import com.acme.ddd.AggregateRepository;
        import io.eventuate.tram.events.publisher.DomainEventPublisher;

        class OrderService {
            private AggregateRepository<Order, OrderCommand> orders;
            void f() { orders.save(new CreateOrder()); orders.update(id, new CancelOrder()); }
        }
        """
    )
    unrelated = java(
        """
        package net.acme.orders;

        class OrderService {
            private AggregateRepository<Order, OrderCommand> orders;
            private EventuateAggregateStore store;
            void f() { orders.save(new CreateOrder()); store.save(Order.class, events); }
        }
        """
    )
    own = java(
        """
        package net.acme.orders;

        import io.eventuate.tram.events.publisher.DomainEventPublisher;

        class AggregateRepository<T, C> { void save(C c) { } }
        class OrderService {
            private AggregateRepository<Order, OrderCommand> orders;
            void f() { orders.save(new CreateOrder()); }
        }
        """
    )
    assert other.messages == unrelated.messages == own.messages == ()
    # the same file, importing Eventuate's repository, publishes
    eventuate = java(
        """
        package net.acme.orders;

        import io.eventuate.AggregateRepository;

        class OrderService {
            private AggregateRepository<Order, OrderCommand> orders;
            void f() { orders.save(new CreateOrder()); }
        }
        """
    )
    assert messages(eventuate) == [("produce", "net.acme.orders.Order", 7, "OrderService.f", "", CLIENT)]


def test_kotlin_event_sourcing_repository() -> None:
    facts = kotlin(
        """
        package net.acme.accounting

        import io.eventuate.sync.AggregateRepository
        import net.acme.accounting.domain.Account

        class AccountService(private val repository: AggregateRepository<Account, AccountCommand>) {
            private val invoices = AggregateRepository(Invoice::class.java, store)
            fun open() {
                repository.save(CreateAccountCommand())
                invoices.update(id, PayInvoice())
            }
        }
        """
    )
    assert messages(facts) == [
        ("produce", "net.acme.accounting.domain.Account", 9, "AccountService.open", "", CLIENT),
        ("produce", "net.acme.accounting.Invoice", 10, "AccountService.open", "", CLIENT),
    ]


def test_event_subscribers_consume_the_channel_their_events_entity_names_where_it_is_readable() -> None:
    facts = java(
        """
        package net.acme.orders;

        import io.eventuate.DispatchedEvent;
        import io.eventuate.EventEntity;
        import io.eventuate.EventHandlerContext;
        import io.eventuate.EventHandlerMethod;
        import io.eventuate.EventSubscriber;

        @EventSubscriber(id = "orderWorkflow")
        public class OrderWorkflow {
            @EventHandlerMethod
            public void created(DispatchedEvent<CustomerCreatedEvent> de) { }

            @EventHandlerMethod
            public CompletableFuture<?> reserved(EventHandlerContext<CreditReserved> ctx) { return null; }

            @EventHandlerMethod
            public void shipped(DispatchedEvent<ShipmentEvent> de) { }

            public void notAHandler(DispatchedEvent<CustomerCreatedEvent> de) { }
        }

        class Unsubscribed {
            @EventHandlerMethod
            public void created(DispatchedEvent<CustomerCreatedEvent> de) { }
        }

        @EventEntity(entity = "net.acme.customers.Customer")
        interface CustomerEvent extends Event { }

        class CustomerCreatedEvent implements CustomerEvent { }

        @EventEntity(entity = "net.acme.customers.Customer")
        class CreditReserved implements Event { }
        """
    )
    assert messages(facts) == [
        ("consume", "net.acme.customers.Customer", 11, "OrderWorkflow.created", "", CLIENT),
        ("consume", "net.acme.customers.Customer", 14, "OrderWorkflow.reserved", "", CLIENT),
    ]


# -- 3. sagas and the testing utilities ---------------------------------------------------------------


def test_saga_reply_subscribers_and_class_names_as_channels() -> None:
    facts = java(
        """
        package net.acme.accounting.messaging;

        import io.eventuate.tram.sagas.eventsourcingsupport.SagaReplyRequestedEventSubscriber;
        import io.eventuate.tram.events.subscriber.DomainEventHandlersBuilder;
        import net.acme.accounting.domain.Account;
        import java.util.Collections;

        public class AccountingMessagingConfiguration {
            SagaReplyRequestedEventSubscriber subscriber() {
                return new SagaReplyRequestedEventSubscriber("accountingReplies", Collections.singleton(Account.class.getName()));
            }
            SagaReplyRequestedEventSubscriber two() {
                return new SagaReplyRequestedEventSubscriber("replies", Set.of("net.acme.Ledger", Account.class.getTypeName()));
            }
            SagaReplyRequestedEventSubscriber computed(Set<String> types) {
                return new SagaReplyRequestedEventSubscriber("replies", types);
            }
            DomainEventHandlers handlers() {
                return DomainEventHandlersBuilder.forAggregateType(Account.class.getName())
                    .onEvent(AccountCreated.class, this::created)
                    .andForAggregateType(Account.class.getSimpleName())
                    .build();
            }
        }
        """
    )
    account = "net.acme.accounting.domain.Account"
    assert messages(facts) == [
        ("consume", account, 10, "AccountingMessagingConfiguration.subscriber", "", TRAM),
        ("consume", "net.acme.Ledger", 13, "AccountingMessagingConfiguration.two", "", TRAM),
        ("consume", account, 13, "AccountingMessagingConfiguration.two", "", TRAM),
        ("consume", account, 19, "AccountingMessagingConfiguration.handlers", "", TRAM),
        ("consume", "?", 21, "AccountingMessagingConfiguration.handlers", "", TRAM),
    ]


def test_kotlin_saga_reply_subscriber_and_class_names() -> None:
    facts = kotlin(
        """
        package net.acme.accounting

        import io.eventuate.tram.sagas.eventsourcingsupport.SagaReplyRequestedEventSubscriber
        import net.acme.accounting.domain.Account

        class Config {
            fun replies() = SagaReplyRequestedEventSubscriber("replies", setOf(Account::class.java.name))
            fun more() = SagaReplyRequestedEventSubscriber("more", setOf(Account::class.qualifiedName!!, Ledger::class.java.canonicalName))
        }
        """
    )
    assert [(role, name, line) for role, name, line, *_ in messages(facts)] == [
        ("consume", "net.acme.accounting.domain.Account", 7),
        ("consume", "net.acme.accounting.domain.Account", 8),
        ("consume", "net.acme.accounting.Ledger", 8),
    ]


def test_saga_participant_stubs_and_message_trackers_of_the_testing_support() -> None:
    facts = java(
        """
        package net.acme.orders;

        import io.eventuate.tram.sagas.testing.SagaParticipantStubManager;
        import io.eventuate.tram.testing.MessageTracker;
        import net.acme.kitchen.api.KitchenChannels;
        import static java.util.Collections.singleton;

        public class OrderComponentTest {
            @Autowired
            protected SagaParticipantStubManager sagaParticipantStubManager;

            @Bean
            public MessageTracker messageTracker(MessageConsumer messageConsumer) {
                return new MessageTracker(singleton("net.acme.orders.domain.Order"), messageConsumer);
            }

            @Bean
            public MessageTracker configured(MessageConsumer messageConsumer) {
                return new MessageTracker(new MessageTrackerConfiguration("orderService"), messageConsumer);
            }

            void stubs() {
                sagaParticipantStubManager.
                        forChannel("consumerService")
                        .when(ValidateOrder.class).replyWith(cm -> withSuccess())
                        .forChannel(KitchenChannels.COMMANDS)
                        .when(CreateTicket.class).replyWithSuccess();
                sagaParticipantStubManager.verifyCommandReceived("kitchenService", CreateTicket.class);
                router.forChannel("accountingService");
            }
        }
        """
    )
    assert messages(facts) == [
        ("consume", "net.acme.orders.domain.Order", 14, "OrderComponentTest.messageTracker", "", TRAM),
        ("consume", "consumerService", 24, "OrderComponentTest.stubs", "", TRAM),
        ("consume", "", 26, "OrderComponentTest.stubs", "const:KitchenChannels.COMMANDS", TRAM),
    ]


def test_testing_support_look_alikes_of_other_libraries_give_nothing() -> None:
    facts = java(
        """
        package net.acme.orders;

        import com.acme.metrics.MessageTracker;
        import io.eventuate.tram.events.publisher.DomainEventPublisher;

        class Tracking {
            MessageTracker tracker() { return new MessageTracker(singleton("orders"), registry); }
            void stub(ChannelRouter router) { router.forChannel("orders").to(handler); }
        }
        """
    )
    assert facts.messages == ()
    without_eventuate = java(
        """
        class Tracking {
            MessageTracker tracker() { return new MessageTracker(singleton("orders"), registry); }
            SagaReplyRequestedEventSubscriber s() { return new SagaReplyRequestedEventSubscriber("x", singleton("y")); }
            void stub() { sagaParticipantStubManager.forChannel("orders"); }
        }
        """
    )
    assert without_eventuate.messages == ()
    with_eventuate = java(
        """
        import io.eventuate.tram.testing.MessageTracker;
        class Tracking {
            MessageTracker tracker() { return new MessageTracker(singleton("orders"), registry); }
        }
        """
    )
    assert [fact.name for fact in with_eventuate.messages] == ["orders"]


# -- totality and cost ----------------------------------------------------------------------------------

_SOURCE = textwrap.dedent(
    """
    package net.acme.accounting;

    import io.eventuate.sync.AggregateRepository;
    import io.eventuate.EventSubscriber;
    import io.eventuate.EventHandlerMethod;
    import io.eventuate.EventEntity;
    import io.eventuate.tram.sagas.testing.SagaParticipantStubManager;
    import net.acme.accounting.domain.*;

    @EventSubscriber(id = "x")
    public class Accounting {
        private AggregateRepository<Account, AccountCommand> accounts;
        private OrderDomainEventPublisher orderPublisher;
        private SagaParticipantStubManager stubs;

        void f(Order order) {
            accounts.update(id, new Authorize());
            orderPublisher.publish(order, events);
            stubs.forChannel("kitchenService").when(C.class).replyWithSuccess();
            new SagaReplyRequestedEventSubscriber("r", singleton(Account.class.getName()));
        }

        @EventHandlerMethod
        void on(DispatchedEvent<Created> de) { }
    }

    @EventEntity(entity = "net.acme.Customer")
    class Created { }
    """
).lstrip("\n")

_EDITS = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=len(_SOURCE)),
        st.integers(min_value=0, max_value=2),
        st.sampled_from(["(", ")", "{", "}", '"', "@", ".", "\n", "<", ">", "::", ".class", ".getName()", "new ",
                         "publish(", "save(", "forChannel(", "singleton(", "@EventHandlerMethod ", "\x00", "\udcff"]),
    ),
    max_size=10,
)  # fmt: skip


def _mutate(edits: list[tuple[int, int, str]]) -> bytes:
    data = _SOURCE
    for position, kind, chunk in edits:
        at = position % (len(data) + 1)
        if kind == 0:
            data = data[:at] + chunk + data[at:]
        elif kind == 1:
            data = data[:at] + data[at + len(chunk) :]
        else:
            data = data[:at] + chunk + data[at + len(chunk) :]
    return data.encode("utf-8", "surrogateescape")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_EDITS)
@example([])
def test_eventuate_rules_are_total_and_deterministic(edits: list[tuple[int, int, str]]) -> None:
    """Any edit of a file using every rule gives well-formed facts, the same twice; unedited, all of them."""
    source = _mutate(edits)
    for extract in (_java.extract, _kotlin.extract):
        facts = extract(source)
        assert facts == extract(source)
        assert not facts.error.startswith("extractor failed")
        for fact in facts.messages:
            assert isinstance(fact, MessageFact) and fact.line >= 1 and fact.role in ("produce", "consume")
            assert not (fact.computed and (fact.name or fact.address))
    if not edits:
        assert [(fact.role, fact.name, fact.address) for fact in _java.extract(source).messages] == [
            ("produce", "net.acme.accounting.domain.Account", ""),
            ("produce", "net.acme.accounting.domain.Order", "client:OrderDomainEventPublisher"),
            ("consume", "kitchenService", ""),
            ("consume", "net.acme.accounting.domain.Account", ""),
            ("consume", "net.acme.Customer", ""),
        ]


def test_many_repository_calls_and_long_stub_chains_stay_linear() -> None:
    """5,000 repository calls, a 5,000-link stub chain: the rules cost linear time."""
    start = time.process_time()
    calls = (
        b"import io.eventuate.sync.AggregateRepository;\n"
        b"class A { AggregateRepository<Account, C> repo; void f() {\n" + b"repo.update(id, c);\n" * 5_000 + b"} }"
    )
    assert len(_java.extract(calls).messages) == 5_000
    chain = (
        b"import io.eventuate.tram.sagas.testing.SagaParticipantStubManager;\n"
        b"class A { SagaParticipantStubManager stubs; void f() { stubs"
        + b'.forChannel("c").when(C.class).replyWithSuccess()' * 5_000
        + b"; } }"
    )
    assert len(_java.extract(chain).messages) == 5_000
    assert time.process_time() - start < 10.0
