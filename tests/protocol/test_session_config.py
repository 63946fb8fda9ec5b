"""``SessionConfig`` checks its bounds when built (the attacks are in tests/adversarial/test_session_config.py)."""

from __future__ import annotations

import pytest

from mesh.protocol import SessionConfig


def test_a_session_that_could_never_serve_is_refused_INV_BOUND_3() -> None:
    """INV-BOUND-3: no call in flight means no call ever served: a ValueError naming the field."""
    with pytest.raises(ValueError, match="SessionConfig.max_in_flight must be a whole number of at least 1, not 0"):
        SessionConfig(max_in_flight=0)
    assert SessionConfig(max_in_flight=1, cache_ttl_ms=0).max_in_flight == 1
