"""Builders of expected gRPC facts, shared by the extractor and fixture tests."""

from __future__ import annotations

from mesh.index import GrpcFact, GrpcRole


def server(service: str, line: int, symbol: str = "", namespace: str = "") -> GrpcFact:
    return GrpcFact(GrpcRole.SERVER, service, "", line, symbol, namespace)


def handler(service: str, method: str, line: int, symbol: str = "", namespace: str = "") -> GrpcFact:
    return GrpcFact(GrpcRole.HANDLER, service, method, line, symbol, namespace)


def client(service: str, line: int, symbol: str = "", namespace: str = "") -> GrpcFact:
    return GrpcFact(GrpcRole.CLIENT, service, "", line, symbol, namespace)


def call(service: str, method: str, line: int, symbol: str = "", namespace: str = "") -> GrpcFact:
    return GrpcFact(GrpcRole.CALL, service, method, line, symbol, namespace)
