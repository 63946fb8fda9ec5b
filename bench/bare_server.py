"""The floor: a bare hand-written MCP stdio loop, no validation, no framework, no threads.

Reads stdin lines, ``orjson.loads``, answers initialize / ping / tools/list / tools/call echo with
``orjson.dumps``, writes and flushes. Benchmark peer only; no real server can be faster than this.
"""

from __future__ import annotations

import sys

import orjson

# The same catalogue mesh-mcp serves with the test tools plugin (same answer size).
TOOLS = orjson.loads(b"""
{
  "tools": [
    {
      "annotations": {
        "readOnlyHint": true
      },
      "description": "Send the text back, repeated.",
      "inputSchema": {
        "additionalProperties": false,
        "properties": {
          "repeat": {
            "description": "How many times",
            "maximum": 100000,
            "minimum": 1,
            "type": "integer"
          },
          "text": {
            "description": "Text to send back",
            "maxLength": 1000000,
            "type": "string"
          }
        },
        "required": [
          "text"
        ],
        "type": "object"
      },
      "name": "echo",
      "title": "Echo"
    },
    {
      "description": "Add two integers.",
      "inputSchema": {
        "additionalProperties": false,
        "properties": {
          "a": {
            "description": "First addend",
            "type": "integer"
          },
          "b": {
            "description": "Second addend",
            "type": "integer"
          }
        },
        "required": [
          "a",
          "b"
        ],
        "type": "object"
      },
      "name": "add"
    },
    {
      "description": "Wait, then answer (stops early when cancelled).",
      "inputSchema": {
        "additionalProperties": false,
        "properties": {
          "ms": {
            "description": "How long to wait",
            "maximum": 60000,
            "minimum": 0,
            "type": "integer"
          }
        },
        "required": [
          "ms"
        ],
        "type": "object"
      },
      "name": "sleep"
    },
    {
      "description": "Fail on purpose.",
      "inputSchema": {
        "additionalProperties": false,
        "properties": {
          "how": {
            "description": "How to fail",
            "enum": [
              "crash",
              "tool-error"
            ],
            "type": "string"
          }
        },
        "type": "object"
      },
      "name": "fail"
    },
    {
      "description": "Say which W3C trace id the call carried.",
      "inputSchema": {
        "additionalProperties": false,
        "properties": {},
        "type": "object"
      },
      "name": "trace"
    }
  ]
}
""")


def main() -> None:
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    while True:
        line = read()
        if not line:
            return
        if not line.strip():
            continue
        msg = orjson.loads(line)
        if "id" not in msg:
            continue  # notification
        method = msg.get("method")
        if method == "ping":
            result: object = {}
        elif method == "tools/list":
            result = TOOLS
        elif method == "tools/call":
            args = msg["params"].get("arguments") or {}
            result = {"content": [{"type": "text", "text": args["text"] * args.get("repeat", 1)}], "isError": False}
        elif method == "initialize":
            result = {
                "protocolVersion": msg["params"].get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "bare", "version": "0"},
            }
        else:
            out.write(orjson.dumps({"jsonrpc": "2.0", "id": msg["id"],
                                    "error": {"code": -32601, "message": "method not found"}}) + b"\n")
            out.flush()
            continue
        out.write(orjson.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
