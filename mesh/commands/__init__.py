"""One module per one-shot sub-command of ``mesh-mcp`` (index, call, doctor, graph, audit, daemon)."""
