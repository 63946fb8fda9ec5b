"""The Ruby extractor: modules, classes, defs, requires, and grpc gem evidence followed through the file."""

from __future__ import annotations

import textwrap

from hypothesis import example, given
from hypothesis import strategies as st

from mesh.index._facts import Definition, FileFacts, Import
from mesh.index.parse import _ruby, extract
from tests.support.facts import call, client, handler, server


def facts(source: str) -> FileFacts:
    return _ruby.extract(textwrap.dedent(source).lstrip("\n").encode())


def test_modules_classes_and_defs_nest() -> None:
    result = facts(
        """
        module Acme
          module Billing
            class Invoice < ApplicationRecord
              def self.open
                where(state: :open)
              end

              def total
                lines.sum(&:amount)
              end

              class << self
                def build(attrs)
                  new(attrs)
                end
              end

              private

              def lines
                @lines ||= []
              end
            end

            class Acme::Tax::Rate; end
          end
        end

        def helper(x)
          x * 2
        end

        RSpec.describe Acme::Billing::Invoice do
          def fixture
            {}
          end
        end

        module Concern
          included do
            def hook; end
          end
        end
        """
    )
    assert result.definitions == (
        Definition("Acme", "module", "", 1, 27),
        Definition("Billing", "module", "Acme", 2, 26),
        Definition("Invoice", "class", "Acme.Billing", 3, 23),
        Definition("open", "method", "Acme.Billing.Invoice", 4, 6),
        Definition("total", "method", "Acme.Billing.Invoice", 8, 10),
        Definition("build", "method", "Acme.Billing.Invoice", 13, 15),
        Definition("lines", "method", "Acme.Billing.Invoice", 20, 22),
        Definition("Rate", "class", "Acme.Billing.Acme.Tax", 25, 25),
        Definition("helper", "function", "", 29, 31),
        Definition("fixture", "function", "", 34, 36),
        Definition("Concern", "module", "", 39, 43),
        Definition("hook", "method", "Concern", 41, 41),
    )
    assert result.imports == ()
    assert result.grpc == ()
    assert result.error == ""
    assert result.language == "ruby"


def test_require_require_relative_and_load() -> None:
    result = facts(
        """
        require "json"
        require 'grpc'
        require_relative "../lib/orders_services_pb"
        load "tasks/setup.rb"
        require File.expand_path("../config", __dir__)
        require "plugins/#{name}"
        require "optional" if ENV["WITH_OPTIONAL"]

        begin
          require "oj"
        rescue LoadError
          nil
        end

        def lazy
          require "csv"
        end
        """
    )
    assert result.imports == (
        Import("json", 1),
        Import("grpc", 2),
        Import("../lib/orders_services_pb", 3),
        Import("tasks/setup.rb", 4),
        Import("optional", 7),
        Import("oj", 10),
        Import("csv", 16),
    )


def test_service_class_handlers_follow_visibility_and_handle_registers() -> None:
    result = facts(
        """
        require "grpc"
        require_relative "orders_services_pb"

        module Acme
          class OrdersServer < Acme::Orders::OrderService::Service
            def initialize(repo)
              @repo = repo
            end

            def get_order(request, _call)
              @repo.find(request.id)
            end

            def list_orders(request, call)
              @repo.all.each { |o| yield o }
            end

            protected

            def audit(order); end

            public

            def cancel_order(request, _call)
              validate(request)
            end

            private def validate(request)
              true
            end

            def self.build
              new(Repo.new)
            end

            private :list_orders
          end
        end

        def main
          server = GRPC::RpcServer.new
          server.add_http2_port("0.0.0.0:50051", :this_port_is_insecure)
          server.handle(Acme::OrdersServer.new(Repo.new))
          server.handle(OrdersServer)
          server.handle(Other)
          server.run_till_terminated
        end
        """
    )
    assert result.grpc == (
        server("OrderService", 5, "Acme.OrdersServer", "Acme::Orders"),
        handler("OrderService", "get_order", 10, "Acme.OrdersServer.get_order", "Acme::Orders"),
        handler("OrderService", "cancel_order", 24, "Acme.OrdersServer.cancel_order", "Acme::Orders"),
        server("OrderService", 43, "main", "Acme::Orders"),
        server("OrderService", 44, "main", "Acme::Orders"),
    )


def test_stubs_followed_through_locals_ivars_constants_and_accessors() -> None:
    result = facts(
        """
        STUB = Acme::Orders::Orders::Stub.new("orders:50051", :this_channel_is_insecure)

        class Checkout
          def initialize(host)
            @inventory = Inventory::Stub.new(host, :this_channel_is_insecure)
          end

          def place(order)
            @inventory.reserve(order.items)
            reply = STUB.get_order(Acme::Orders::GetOrderRequest.new(id: order.id))
            billing.charge(order)
            self.billing.refund(order)
          end

          def watch(id)
            stub = ::Acme::Orders::Orders::Stub.new(HOST, creds, timeout: 5)
            stub
              .watch_order(id)
              .each { |event| puts event }
            stub.nil?
          end

          private

          def billing
            @billing ||= Billing::Payments::Stub.new(HOST, :this_channel_is_insecure)
          end
        end
        """
    )
    assert result.grpc == (
        client("Orders", 1, "", "Acme::Orders"),
        client("Inventory", 5, "Checkout.initialize"),
        call("Inventory", "reserve", 9, "Checkout.place"),
        call("Orders", "get_order", 10, "Checkout.place", "Acme::Orders"),
        call("Payments", "charge", 11, "Checkout.place", "Billing"),
        call("Payments", "refund", 12, "Checkout.place", "Billing"),
        client("Orders", 16, "Checkout.watch", "Acme::Orders"),
        call("Orders", "watch_order", 18, "Checkout.watch", "Acme::Orders"),
        client("Payments", 26, "Checkout.billing", "Billing"),
    )


def test_endless_accessors_struct_blocks_and_chained_stubs() -> None:
    result = facts(
        """
        Point = Struct.new(:x, :y) do
          def norm = Math.sqrt(x * x + y * y)
        end

        class Reporter
          def inventory = Acme::Inventory::Stub.new(HOST, :this_channel_is_insecure)

          def orders
            @orders ||= Acme::Orders::Stub.new(HOST, :this_channel_is_insecure)
            # memoised
          end

          def report
            inventory.count_items(Empty.new)
            orders.dup.list_orders(Empty.new)
            orders.respond_to?(:list_orders)
          end
        end
        """
    )
    assert Definition("norm", "function", "", 2, 2) in result.definitions
    assert result.grpc == (
        client("Inventory", 6, "Reporter.inventory", "Acme"),
        client("Orders", 9, "Reporter.orders", "Acme"),
        call("Inventory", "count_items", 14, "Reporter.report", "Acme"),
        call("Orders", "list_orders", 15, "Reporter.report", "Acme"),
    )


def test_stubs_passed_to_defs_of_the_file() -> None:
    result = facts(
        """
        require "grpc"
        require "route_guide_services_pb"

        def run_get_feature(stub)
          POINTS.each do |pt|
            resp = stub.get_feature(pt)
            puts resp.name
          end
        end

        def run_record_route(stub, features, deadline: 10)
          stub.record_route(features.each, deadline)
        end

        def run_route_chat(client:)
          client.route_chat(NOTES).each { |r| p r }
        end

        def main
          stub = Routeguide::RouteGuide::Stub.new("localhost:50051", :this_channel_is_insecure)
          run_get_feature(stub)
          run_record_route(stub, load_features)
          run_route_chat(client: stub)
          other = Map.new
          run_get_feature(other)
        end
        """
    )
    assert result.grpc == (
        call("RouteGuide", "get_feature", 6, "run_get_feature", "Routeguide"),
        call("RouteGuide", "record_route", 12, "run_record_route", "Routeguide"),
        call("RouteGuide", "route_chat", 16, "run_route_chat", "Routeguide"),
        client("RouteGuide", 20, "main", "Routeguide"),
    )


def test_locals_are_scoped_to_their_def_and_reassignment_ends_them() -> None:
    result = facts(
        """
        def a
          stub = Orders::Stub.new(HOST, :this_channel_is_insecure)
          stub.get_order(1)
          stub = {}
          stub.fetch(:x)
        end

        def b
          stub.get_order(2)
          Orders::Stub.new(HOST, creds).cancel_order(3)
        end
        """
    )
    assert result.grpc == (
        client("Orders", 2, "a"),
        call("Orders", "get_order", 3, "a"),
        client("Orders", 10, "b"),
        call("Orders", "cancel_order", 10, "b"),
    )


def test_no_grpc_facts_for_look_alikes() -> None:
    result = facts(
        """
        class Api < Sinatra::Base
          def get_order
            cache = {}
            cache.fetch(:x)
            stub = double("Stub")
            stub.get_order
            Stub.new.get_order
          end
        end

        class Worker < GRPC::GenericService
          def run; end
        end

        server.handle(Api)
        """
    )
    assert result.grpc == ()


def test_syntax_error_keeps_what_was_read() -> None:
    result = facts(
        """
        require "json"

        class Good
          def ok; end
        end

        def broken(
          1 +
        end

        def after; end
        """
    )
    assert result.error.startswith("syntax error at line ")
    assert result.imports == (Import("json", 1),)
    assert Definition("Good", "class", "", 3, 5) in result.definitions
    assert Definition("ok", "method", "Good", 4, 4) in result.definitions


def test_dispatch_by_suffix() -> None:
    assert extract("lib/x.rb", b"def f; end\n").definitions == (Definition("f", "function", "", 1, 1),)


_TOKENS = ["class", "module", "def", "end", "self", ".", "::", "<", "<<", "(", ")", "=", "||=", "@stub", "stub"]
_TOKENS += ["Stub", "new", "Service", "A", "handle", "private", "require", '"x"', "do", "|x|", "\n", "#{", "}"]


@given(st.binary(max_size=400))
@example(b"\xff\xfe\x00class \x80<")
@example(b"module A\n" * 3000)
@example(b"def f\n" * 2000 + b"(" * 2000)
@example(b"class X < A::B::Service\n s = A::Stub.new\n s.x(\n" * 40)
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    assert _ruby.extract(data).language == "ruby"


@given(st.lists(st.sampled_from(_TOKENS), max_size=120).map(" ".join) | st.text(max_size=300))
def test_arbitrary_text_never_raises(text: str) -> None:
    assert _ruby.extract(text.encode()).language == "ruby"


def sample(units: int = 33) -> bytes:
    """A realistic ~2,000-line grpc Ruby service (used for the speed measurement too)."""
    parts = [
        '# frozen_string_literal: true\n\nrequire "grpc"\nrequire "json"\nrequire_relative "lib/orders_services_pb"\n'
    ]
    for i in range(units):
        parts.append(
            f"""
module Acme
  module Shard{i}
    # Serves the orders of shard {i}.
    class OrdersServer < Acme::Orders::Orders{i}::Service
      def initialize(repo, logger: Logger.new($stdout))
        @repo = repo
        @logger = logger
        @inventory = Acme::Inventory::Inventory{i}::Stub.new(ENV.fetch("INVENTORY_ADDR"), :this_channel_is_insecure)
      end

      def get_order(request, _call)
        order = @repo.find(request.id)
        raise GRPC::NotFound, "order #{{request.id}}" unless order

        to_proto(order)
      end

      def place_order(request, _call)
        total = request.lines.sum {{ |line| line.quantity * line.price }}
        @inventory.reserve(Acme::Inventory::ReserveRequest.new(items: request.lines.map(&:sku)))
        order = @repo.create(id: request.id, total: total)
        @logger.info("placed #{{order.id}} for #{{total}}")
        to_proto(order)
      end

      private

      def to_proto(order)
        Acme::Orders::Order.new(id: order.id, total: order.total, state: order.state.to_s.upcase.to_sym)
      end
    end

    class Repo
      def initialize
        @orders = {{}}
      end

      def find(id)
        @orders[id]
      end

      def create(attrs)
        @orders[attrs[:id]] = OpenStruct.new(attrs.merge(state: :open))
      end

      def all
        @orders.values.sort_by(&:id)
      end
    end
  end
end

def serve_shard{i}(port)
  server = GRPC::RpcServer.new
  server.add_http2_port("0.0.0.0:#{{port}}", :this_port_is_insecure)
  server.handle(Acme::Shard{i}::OrdersServer.new(Acme::Shard{i}::Repo.new))
  stub = Acme::Orders::Orders{i}::Stub.new("localhost:#{{port}}", :this_channel_is_insecure)
  stub.get_order(Acme::Orders::GetOrderRequest.new(id: {i}))
  server.run_till_terminated_or_interrupted([1, "int", "SIGTERM"])
end
"""
        )
    return "".join(parts).encode()


def test_realistic_sample() -> None:
    source = sample()
    assert source.count(b"\n") > 1900
    result = _ruby.extract(source)
    assert result.error == ""
    assert len(result.definitions) == 33 * 13
    assert len(result.imports) == 3
    roles = [f.role for f in result.grpc]
    counts = (roles.count("server"), roles.count("handler"), roles.count("client"), roles.count("call"))
    assert counts == (66, 66, 66, 66)
