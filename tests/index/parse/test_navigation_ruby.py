"""Code navigation facts of Ruby: signatures, doc lines and references (queries/ruby/references.scm)."""

from __future__ import annotations

import textwrap
import time

from mesh.index import Reference
from mesh.index.parse import extract


def _facts(source: str):
    return extract("app/models/order.rb", textwrap.dedent(source).encode())


def _refs(source: str) -> set[tuple[str, int, str, str]]:
    return {(r.name, r.line, r.kind, r.qualifier) for r in _facts(source).references}


def test_signature_is_the_declaration_up_to_its_body_on_one_line() -> None:
    facts = _facts(
        """
        module Billing
          class Orders::Checkout < ApplicationRecord # the checkout
            def place(order,
                      qty = DEFAULT_QTY,
                      key:, **opts, &block)
              order
            end

            def self.build = new
            def empty; end
            def bare # nothing here
            end
          end
        end
        """
    )
    signatures = {d.name: d.signature for d in facts.definitions}
    assert signatures == {
        "Billing": "module Billing",
        "Checkout": "class Orders::Checkout < ApplicationRecord",
        "place": "def place(order, qty = DEFAULT_QTY, key:, **opts, &block)",
        "build": "def self.build",
        "empty": "def empty",
        "bare": "def bare",
    }


def test_doc_line_is_the_first_line_of_the_comments_right_above() -> None:
    facts = _facts(
        """
        # frozen_string_literal: true

        module Billing
          # Places orders for customers.
          #
          # More text.
          class Checkout < ApplicationRecord
            # @param order [Order]
            # Places one order.
            def place(order)
              order
            end

            total = 1 # not a doc
            def total
            end

            # Hidden, yet documented.
            private def audit; end

            =begin
            Block comment doc.
            =end
            def legacy; end

            def plain; end
          end
        end
        """
    )
    docs = {d.name: d.doc for d in facts.definitions}
    assert docs == {
        "Billing": "",
        "Checkout": "Places orders for customers.",
        "place": "Places one order.",
        "total": "",
        "audit": "Hidden, yet documented.",
        "legacy": "Block comment doc.",
        "plain": "",
    }


def test_references_calls_instantiations_types_and_values_with_their_qualifier() -> None:
    refs = _refs(
        """
        class OrdersController < Api::BaseController
          include Pagination
          extend Concerns::Finders

          def create
            order = Order.new(order_params)
            invoice = Billing::Invoice.new(order)
            order.save!
            repo&.store(order, validate: true)
            self.notify
            recalc 1, 2
            audit()
            each_item do |item| item end
            OrderMailer.with(order: order).placed.deliver_later
            render json: order, status: Config::CREATED
            raise ArgumentError, "bad #{Status::PAID}" if MAX_ITEMS < 1
          rescue ActiveRecord::RecordInvalid, Timeout => e
            log e
          end
        end
        """
    )
    assert refs >= {
        ("Api", 2, "use", ""),
        ("BaseController", 2, "type", "Api"),
        ("Pagination", 3, "type", ""),
        ("Finders", 4, "type", "Concerns"),
        ("Order", 7, "new", ""),
        ("Invoice", 8, "new", "Billing"),
        ("Billing", 8, "use", ""),
        ("save!", 9, "call", "order"),
        ("store", 10, "call", "repo"),
        ("notify", 11, "call", "self"),
        ("recalc", 12, "call", ""),
        ("audit", 13, "call", ""),
        ("each_item", 14, "call", ""),
        ("with", 15, "call", "OrderMailer"),
        ("OrderMailer", 15, "use", ""),
        ("deliver_later", 15, "call", "~"),
        ("render", 16, "call", ""),
        ("CREATED", 16, "use", "Config"),
        ("raise", 17, "call", ""),
        ("ArgumentError", 17, "use", ""),
        ("PAID", 17, "use", "Status"),
        ("MAX_ITEMS", 17, "use", ""),
        ("RecordInvalid", 18, "type", "ActiveRecord"),
        ("Timeout", 18, "type", ""),
        ("log", 19, "call", ""),
    }
    names = {name for name, *_ in refs}
    assert "new" not in names  # Order.new is the instantiation of Order, not a call of new


def test_a_bare_identifier_is_a_call_unless_a_local_has_its_name() -> None:
    """Ruby reads a bare name as the method's local when the method has one of that name
    (parameter, assignment, block or loop variable, rescue), else as a call of a method of self."""
    refs = _refs(
        """
        def total(rate, opts = {})
          subtotal
          subtotal + tax(1) + rate
          net = shipping
          [net, opts, weight].sum
          items.each { |item, (a, b)| item + a + fee }
        rescue => error
          error
        end
        count = 3
        puts count, limit
        """
    )
    assert refs == {
        ("subtotal", 3, "call", ""), ("subtotal", 4, "call", ""), ("tax", 4, "call", ""),
        ("shipping", 5, "call", ""), ("weight", 6, "call", ""), ("sum", 6, "call", "~"),
        ("items", 7, "call", ""), ("each", 7, "call", "items"), ("fee", 7, "call", ""),
        ("puts", 12, "call", ""), ("limit", 12, "call", ""),
    }  # fmt: skip


def test_instantiations_say_what_they_bind_and_calls_their_arity() -> None:
    facts = _facts(
        """
        repo = OrderRepo.new
        @client = Billing::Client.new(host, port)
        @client.charge(*amounts)
        """
    )
    assert facts.references == (
        Reference("OrderRepo", 2, "new", "", "repo", -1),
        Reference("Billing", 3, "use", ""),
        Reference("Client", 3, "new", "Billing", "@client", 2),
        Reference("host", 3, "call", "", "", -1),  # no local of the name: methods of self
        Reference("port", 3, "call", "", "", -1),
        Reference("charge", 4, "call", "@client", "", -1),
    )


def test_names_a_declaration_introduces_are_not_references() -> None:
    refs = _refs(
        """
        require "json"
        require_relative "lib/orders"
        module Shop
          class Orders::Checkout
            attr_reader :Total, :items
            attr_accessor :Status
            private :helper
            LIMIT = 3
            TIMEOUT ||= 5
            A, B = 1, 2
            def Place(order, qty = 1, *rest, key:, **opts, &blk)
              items.each { |item| item }
            end
            alias_method :put, :Place
            alias store Place
          end
        end
        """
    )
    # ``items`` is attr_reader's method (no local has the name); ``item`` is the block's variable
    assert {(name, qualifier) for name, _, _, qualifier in refs} == {("Orders", ""), ("each", "items"), ("items", "")}


def test_a_broken_or_absurdly_deep_file_keeps_its_facts_and_answers_at_once() -> None:
    chain = "x = Orders::Client.new(channel)" + ".dup" * 5_000 + ".get_order(request)\n"
    shallow = "x = Orders::Client.new(channel)" + ".dup" * 20 + ".get_order(request)\n"
    start = time.process_time()
    deep = extract("a.rb", ("class Deep\n  def run\n    " + chain + "  end\nend\n").encode())
    broken = extract("b.rb", b"class Broken\n  def run(\n" + b"[(" * 5_000 + b"\nend\n")
    assert time.process_time() - start < 5.0
    assert [d.name for d in deep.definitions] == ["Deep", "run"] and deep.references == ()
    assert broken.error and broken.references == ()
    assert ("get_order", "~") in {(r.name, r.qualifier) for r in extract("c.rb", shallow.encode()).references}


def test_constants_are_definitions_of_their_module() -> None:
    facts = _facts(
        """
        module Pricing
          # The rate.
          TAX_RATE = 0.2
          module Status
            PAID = "paid"
            DEFAULT ||= PAID
          end
          def self.rate
            TAX_RATE
          end
        end
        """
    )
    constants = [(d.name, d.container, d.line, d.signature, d.doc) for d in facts.definitions if d.kind == "constant"]
    assert constants == [
        ("TAX_RATE", "Pricing", 4, "TAX_RATE = 0.2", "The rate."),
        ("PAID", "Pricing.Status", 6, 'PAID = "paid"', ""),
        ("DEFAULT", "Pricing.Status", 7, "DEFAULT ||= PAID", ""),
    ]


def _binds(source: str) -> set[tuple[str, str, str]]:
    return {(r.name, r.qualifier, r.binds) for r in _facts(source).references if r.binds}


def test_every_form_that_gives_a_variable_its_class_binds_it() -> None:
    assert _binds(
        """
        Rules = Pricing
        Store = Shop::Store
        class Checkout
          def initialize(repo = OrderRepo.new, client: Billing::Client.new(1), audit: Audit.new)
            @cache ||= Cache.new
            @mailer ||= Mail::Sender.new
          end

          def run
            go
          rescue Billing::Declined => e
            e.retry
          rescue Timeout => t
            t
          rescue IOError, SocketError => either
            either
          end
        end
        """
    ) == {
        ("Pricing", "", "Rules"),
        ("Store", "Shop", "Store"),
        ("OrderRepo", "", "repo"),
        ("Client", "Billing", "client"),
        ("Audit", "", "audit"),
        ("Cache", "", "@cache"),
        ("Sender", "Mail", "@mailer"),
        ("Declined", "Billing", "e"),
        ("Timeout", "", "t"),
    }  # a rescue of two classes binds neither: its variable may hold either


def test_attribute_readers_are_methods_of_their_class() -> None:
    facts = _facts(
        """
        module Shop
          class Invoice
            attr_reader :number, :status
            attr_accessor :note
            attr_writer :secret
            private attr_reader :token
          end
        end
        attr_reader :outside
        """
    )
    readers = [(d.name, d.kind, d.container, d.line, d.signature) for d in facts.definitions if d.kind == "method"]
    assert readers == [
        ("number", "method", "Shop.Invoice", 4, "attr_reader :number, :status"),
        ("status", "method", "Shop.Invoice", 4, "attr_reader :number, :status"),
        ("note", "method", "Shop.Invoice", 5, "attr_accessor :note"),
        ("token", "method", "Shop.Invoice", 7, "attr_reader :token"),
    ]


def test_a_constant_set_to_a_module_is_another_name_for_it() -> None:
    """``Rules = Pricing``: ``Rules.shipping`` is a call of Pricing's; a constant set to a value
    (``MAX = LIMIT``) is not, nor a name set to two modules."""
    refs = _refs(
        """
        Rules = Pricing
        MAX = LIMIT
        Either = First
        Either = Second
        Rules.shipping(2.0)
        MAX.abs
        Either.run(1)
        """
    )
    assert ("shipping", 6, "call", "Pricing") in refs
    assert ("abs", 7, "call", "MAX") in refs and ("run", 8, "call", "Either") in refs
