"""An audit retention no date can express (issue 13 item 10).

``[audit] retention_days = 1000000`` put the age limit before the year 1: every retention pass
failed with ``ValueError`` from the date arithmetic (only ``sqlite3.Error`` was caught), retention
stopped, and the log said "row lost" for rows that were committed. mesh.toml now refuses such a
value (see test_hostile_config.py); the log itself survives any limit and any failing pass.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from mesh.audit import AuditLog, read_recent
from tests.test_audit import T0, FakeClock, audit_records, make_row


@pytest.mark.parametrize("days", [1_000_000.0, 1e300, float("inf")])
def test_a_retention_before_the_year_one_keeps_every_row_and_loses_none_INV_AUDIT_3(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, days: float
) -> None:
    """INV-AUDIT-3: an age limit reaching before any date deletes nothing by age; each row is
    committed and counted as recorded, never reported lost, and the row limit still applies."""
    with caplog.at_level(logging.DEBUG, logger="mesh.audit"):
        with AuditLog(tmp_path, retention_rows=3, retention_days=days, clock=FakeClock(), prune_every=1) as audit:
            assert all(audit.record(make_row(index)) for index in range(5))
            assert audit.prune() == 0
            assert (audit.recorded, audit.dropped) == (5, 0)
    assert [row.result_bytes for row in read_recent(tmp_path) or []] == [104, 103, 102]
    assert "lost" not in caplog.text


def test_a_failing_retention_pass_is_not_a_lost_row_INV_AUDIT_3(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """INV-AUDIT-3: whatever breaks a retention pass after the row's commit (here a bug), the row is
    reported recorded and the log says that the pass failed, not that a row was lost."""
    audit = AuditLog(tmp_path, clock=FakeClock(T0), prune_every=1)

    def broken(_connection: object) -> int:
        raise ArithmeticError("a bug in the pass")

    monkeypatch.setattr(audit, "_prune", broken)
    with caplog.at_level(logging.DEBUG, logger="mesh.audit"):
        assert audit.record(make_row(0))
    assert (audit.recorded, audit.dropped) == (1, 0)
    assert "lost" not in caplog.text and "retention pass failed" in caplog.text
    assert audit_records(caplog, logging.WARNING) == []
    audit.close()
    assert len(read_recent(tmp_path) or []) == 1
