"""The chaos test of issue #16 on a few seeds (benchmarks/chaos.py runs more): concurrent tables
of all five games under random Discord failures, a full disk, a database lock held past the
bot's busy timeout (first seed only: it costs real seconds) and a restart; afterwards every game
is settled exactly once, sums to zero, shows its result exactly once, and no table is stuck.
See tests/support/chaos.py for the fault model and the invariants."""

from __future__ import annotations

import pytest

from tests.support.chaos import MENU, ChaosConfig, _kind, run_seed

SEEDS = [(1, 6.0), (2, 0.0), (3, 0.0)]  # (seed, seconds the database lock is held)


@pytest.mark.parametrize(("seed", "lock_seconds"), SEEDS, ids=[f"seed{s}" for s, _ in SEEDS])
async def test_chaos(seed, lock_seconds, tmp_path):
    report = await run_seed(ChaosConfig(seed=seed, db_lock_seconds=lock_seconds), tmp_path / "run")
    assert report.stats["clicks"] > 100 and report.stats["restarts"] == 1, report.summary()
    assert not report.violations, report.summary()


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/interactions/1/tok/callback"), ("GET", "/webhooks/1/tok/messages/@original"),
    ("PATCH", "/webhooks/1/tok/messages/@original"), ("DELETE", "/webhooks/1/tok/messages/@original"),
    ("POST", "/webhooks/1/tok"), ("POST", "/users/@me/channels"), ("POST", "/channels/2/messages"),
    ("PATCH", "/channels/2/messages/3"), ("DELETE", "/channels/2/messages/3"), ("GET", "/channels/2/messages/3"),
    ("POST", "/channels/2/messages/3/threads"), ("GET", "/channels/2"), ("PUT", "/channels/2/pins/3")])
def test_every_call_the_bot_makes_has_its_faults(method, path):
    """A call whose kind has no entry would reach the bot as a KeyError, not a Discord error."""
    assert _kind(method, path) in MENU


def test_the_two_process_run_sees_a_call_after_a_takeover(tmp_path):
    """benchmarks/chaos.py --processes 2 checks that no process speaks for a table after another
    took its lease (answers to interactions excepted): its check on a made-up history."""
    from tests.support.chaos_processes import Call, ProcessesChaos, Take

    chaos = ProcessesChaos(ChaosConfig(seed=1, processes=2), tmp_path, server=None, url="")
    chaos.takes = [Take(0, 0.0, "a", 1, None), Take(3, 70.0, "b", 1, "a"), Take(8, 200.0, "a", 1, "b")]
    chaos.calls = [Call(1, 10.0, "a", 1, "edit"), Call(4, 71.0, "b", 1, "post"), Call(5, 72.0, "a", 1, "callback"),
                   Call(6, 73.0, "a", 1, "webhook_edit"), Call(9, 201.0, "a", 1, "edit"),
                   Call(10, 202.0, "b", 2, "edit")]
    (found,) = chaos.check_speech()
    assert found.invariant == "7 silent after takeover" and "webhook_edit call from a at 73.0 s" in found.detail


def test_the_two_process_run_counts_discords_deadline_in_real_time(tmp_path, monkeypatch):
    """SimCord's clock jumps when the harness advances it past a click the bot is still at: an
    answer late by that clock but within 3 s of real time is accepted (Discord's deadline is real
    time); one later than 3 s of real time is a violation that names what sent it."""
    import datetime
    import types

    from tests.support import chaos_processes
    from tests.support.chaos_processes import CountingFaults, ProcessesChaos

    chaos = ProcessesChaos(ChaosConfig(seed=1, processes=2), tmp_path, server=None, url="")
    faults = CountingFaults.__new__(CountingFaults)
    faults.chaos, faults.late_answers, faults.created = chaos, {}, {}
    start = datetime.datetime(2026, 1, 1)
    backend = types.SimpleNamespace(now_iso=lambda: (start + datetime.timedelta(seconds=10)).isoformat(),
                                    iso_after=lambda s: (start + datetime.timedelta(seconds=10 + s)).isoformat())
    deadline = (start + datetime.timedelta(seconds=3)).isoformat()  # 7 simulated seconds ago
    on_time = types.SimpleNamespace(id=1, initial_response_deadline=deadline)
    late = types.SimpleNamespace(id=2, initial_response_deadline=deadline)
    monkeypatch.setattr(chaos_processes.time, "monotonic", lambda: 100.0)
    faults.created = {1: 98.0, 2: 96.5}  # 2 s and 3.5 s of real time ago

    faults.answered_past_the_simulated_deadline(backend, on_time)
    faults.answered_past_the_simulated_deadline(backend, late)

    assert on_time.initial_response_deadline > backend.now_iso() and 1 not in faults.late_answers
    assert chaos.report.stats["answers in time by the real clock, late by the simulated one"] == 1
    assert late.initial_response_deadline == deadline and "3.50 s of real time" in faults.late_answers[2]
