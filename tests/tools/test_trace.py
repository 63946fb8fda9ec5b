import pytest

from mesh.tools import Meta, trace_id_of

VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_valid_traceparent_gives_its_trace_id_INV_TOOL_2() -> None:
    """INV-TOOL-2."""
    assert trace_id_of(VALID) == "4bf92f3577b34da6a3ce929d0e0e4736"
    # A future version may append fields; version 00 may not.
    assert (
        trace_id_of("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra")
        == "4bf92f3577b34da6a3ce929d0e0e4736"
    )


@pytest.mark.parametrize(
    "value",
    [
        None,
        42,
        "",
        "garbage",
        VALID.upper(),
        VALID + "-extra",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        VALID + "x" * 1000,
    ],
)
def test_invalid_traceparent_gives_none_INV_TOOL_2(value: object) -> None:
    """INV-TOOL-2."""
    assert trace_id_of(value) is None


def test_meta_from_json() -> None:
    assert Meta.from_json({"traceparent": VALID, "tracestate": "a=b", "other": 1}).trace_id == VALID[3:35]
    assert Meta.from_json({"traceparent": 5}) == Meta()
    assert Meta.from_json("nope") == Meta()
