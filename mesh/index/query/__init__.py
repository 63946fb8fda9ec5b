"""Read-only questions over one snapshot of the index: search, gRPC, graphs of services, docs."""
