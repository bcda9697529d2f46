"""The load benchmark merges the figures of its processes into one run's."""

from collections import Counter

import pytest

from benchmarks.load.figures import Figures, merge, split_tables


def figures(tables: int, cpu: float, wall: float, **changes) -> Figures:
    values = dict(
        tables=[tables], cpu=[cpu], wall=[wall], database="PostgreSQL", ai_delay=1.0,
        latencies=[0.01, 0.02], move_latencies=[0.02], clicks=Counter(move=1, quick=1), unanswered=0, games=1,
        calls=Counter({"PATCH /channels/:id/messages/:id": 3}),
        kinds={"PATCH /channels/:id/messages/:id": "global"},
        uploads=Counter({"PATCH /channels/:id/messages/:id": 2048}), private_answers=1,
        refusals=Counter({"Not your turn.": 1}), ai_pauses=[1.0], overslept=[0.001], gaps=[0.001, 0.002],
        gc_pauses={0: [0.0001], 1: [], 2: []}, settled=2, stuck=0, unsettled=0, drain_seconds=1.5,
        playing_on=0, errors=[])
    return Figures(**{**values, **changes})


def test_figures_survive_json():
    original = figures(50, 20.0, 30.5, errors=["KeyError: 'x'"])
    copy = Figures.from_json(original.to_json())
    assert copy == original
    assert isinstance(copy.clicks, Counter) and copy.clicks["rematch"] == 0
    assert list(copy.gc_pauses) == [0, 1, 2]


def test_merged_figures_join_lists_add_counts_and_keep_each_process():
    first = figures(50, 20.0, 30.0)
    second = figures(50, 22.0, 31.0, latencies=[0.5], clicks=Counter(move=2, start=1), drain_seconds=4.0,
                     calls=Counter({"POST /interactions/:id/:token/callback": 5}),
                     kinds={"POST /interactions/:id/:token/callback": "interaction"}, stuck=1,
                     gc_pauses={0: [0.0002], 2: [0.01]}, errors=["RuntimeError: boom"])
    merged = merge([first, second])
    assert merged.tables == [50, 50] and merged.cpu == [20.0, 22.0] and merged.processes == 2
    assert merged.window == 31.0
    assert merged.table_minutes == pytest.approx((50 * 30 + 50 * 31) / 60)
    assert sorted(merged.latencies) == [0.01, 0.02, 0.5]
    assert merged.clicks == Counter(move=3, quick=1, start=1)
    assert merged.of_kind(merged.calls, "global") == 3 and merged.of_kind(merged.calls, "interaction") == 5
    assert merged.uploads == Counter({"PATCH /channels/:id/messages/:id": 4096})
    assert merged.gc_pauses == {0: [0.0001, 0.0002], 1: [], 2: [0.01]}
    assert (merged.settled, merged.stuck, merged.games, merged.private_answers) == (4, 1, 2, 2)
    assert merged.drain_seconds == 4.0
    assert merged.errors == ["RuntimeError: boom"]


def test_processes_of_one_run_agree_on_the_database_and_ai_delay():
    with pytest.raises(ValueError):
        merge([figures(1, 1, 1), figures(1, 1, 1, database="SQLite")])


def test_tables_are_shared_as_evenly_as_they_can_be():
    assert split_tables(100, 2) == [50, 50]
    assert split_tables(100, 3) == [34, 33, 33]
    with pytest.raises(ValueError):
        split_tables(2, 3)


def test_the_report_says_when_the_simulator_did_not_keep_up():
    assert not figures(1, 1, 1, ai_pauses=[1.0, 1.01], overslept=[0.001] * 20 + [0.4]).simulator_behind()
    assert figures(1, 1, 1, ai_pauses=[1.5, 1.6]).simulator_behind(), "the AI's pauses ran late"
    assert figures(1, 1, 1, ai_pauses=[], overslept=[0.001] * 10 + [0.9] * 2).simulator_behind(), \
        "frames held far longer than asked"
