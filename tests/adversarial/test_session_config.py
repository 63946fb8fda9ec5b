"""A session configuration that could never serve (issue 13 item 20, SessionConfig part).

``SessionConfig(max_in_flight=0)`` was accepted: its session pauses before the first tool call and
never serves one. Every bound of the configuration is checked when it is built.
"""

from __future__ import annotations

import pytest

from mesh.protocol import SessionConfig


@pytest.mark.parametrize(
    "bad",
    [
        {"max_in_flight": 0},
        {"max_in_flight": -1},
        {"max_frame_bytes": 0},
        {"max_batch_items": 0},
        {"tools_page_size": 0},
        {"cache_ttl_ms": -1},
        {"max_in_flight": 1.5},
        {"max_in_flight": True},
        {"max_frame_bytes": "1024"},
    ],
    ids=repr,
)
def test_a_config_that_could_not_serve_is_refused_when_built_INV_BOUND_3(bad: dict[str, object]) -> None:
    """INV-BOUND-3: each bound of a session is a whole number in its range (at least 1 call in
    flight, 1 byte per frame, 1 item per batch, 1 tool per page; a cache time of 0 or more), else
    building the config raises a ValueError naming the field and the value."""
    [(field, value)] = bad.items()
    with pytest.raises(ValueError, match=rf"{field} must be .*, not {value!r}"):
        SessionConfig(**bad)  # type: ignore[arg-type]


def test_the_smallest_configs_that_serve_are_accepted() -> None:
    config = SessionConfig(max_in_flight=1, max_frame_bytes=1, max_batch_items=1, tools_page_size=1, cache_ttl_ms=0)
    assert config.max_in_flight == 1
