"""The load benchmark's raw figures: what one process measured, written as JSON by each of
several processes, and their figures merged into one report's (no side effects: unit-tested).
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections import Counter
from dataclasses import dataclass


@dataclass
class Figures:
    """What the processes of one run measured (times in seconds). The figures of one process
    have one entry in ``tables``, ``cpu`` and ``wall``; merged ones, one per process."""

    tables: list[int]
    cpu: list[float]  # process CPU over the measured window
    wall: list[float]  # the measured window
    database: str  # "PostgreSQL" or "SQLite"
    ai_delay: float  # the AI pause asked for
    latencies: list[float]  # click to done, every click
    move_latencies: list[float]
    clicks: Counter[str]  # by kind: quick, move, next, rematch, start, back
    unanswered: int
    games: int  # played to the end by people
    calls: Counter[str]  # REST route -> calls
    kinds: dict[str, str]  # REST route -> GLOBAL or INTERACTION
    uploads: Counter[str]  # REST route -> bytes
    private_answers: int
    refusals: Counter[str]  # private answer's text -> times
    ai_pauses: list[float]  # as they really lasted
    overslept: list[float]  # seconds each of the bot's timed pauses lasted beyond what it asked
    gaps: list[float]  # between two beats of the 1 ms heartbeat
    gc_pauses: dict[int, list[float]]  # by generation
    settled: int
    stuck: int
    unsettled: int
    drain_seconds: float
    playing_on: int  # tables where only AI seats still played after the drain
    errors: list[str]  # "Type: first line" of each error SimCord recorded
    scrapes: int = 0  # of /metrics and /healthz, with --metrics
    ai: str = "normal"  # the AI seats' level

    def to_json(self) -> str:
        # not dataclasses.asdict: it would rebuild each Counter from its items, counting them
        return json.dumps({field.name: getattr(self, field.name) for field in dataclasses.fields(self)})

    @classmethod
    def from_json(cls, text: str) -> Figures:
        data = json.loads(text)
        for name in ("clicks", "calls", "uploads", "refusals"):
            data[name] = Counter(data[name])
        data["gc_pauses"] = {int(generation): pauses for generation, pauses in data["gc_pauses"].items()}
        return cls(**data)

    def of_kind(self, counts: Counter[str], kind: str) -> int:
        """The calls (or bytes uploaded) of the routes of one kind."""
        return sum(n for name, n in counts.items() if self.kinds[name] == kind)

    def simulator_behind(self) -> bool:
        """Whether the bot's pauses lasted clearly longer than asked (the AI's by a fifth at the
        median, or any pause by a quarter of a second at the 95th percentile)."""
        ai_late = bool(self.ai_pauses) and statistics.median(self.ai_pauses) > 1.2 * self.ai_delay
        return ai_late or (bool(self.overslept) and percentile(self.overslept, .95) > 0.25)

    @property
    def processes(self) -> int:
        return len(self.tables)

    @property
    def window(self) -> float:
        """The measured window of the whole run: every process measured in it."""
        return max(self.wall)

    @property
    def table_minutes(self) -> float:
        return sum(tables * wall for tables, wall in zip(self.tables, self.wall)) / 60


def merge(parts: list[Figures]) -> Figures:
    """Several processes' figures as one run's: lists joined, counts added, the longest drain."""
    first = parts[0]
    if any(part.database != first.database or part.ai_delay != first.ai_delay for part in parts):
        raise ValueError("the processes ran on different databases or AI delays")
    return Figures(
        tables=_joined(part.tables for part in parts),
        cpu=_joined(part.cpu for part in parts),
        wall=_joined(part.wall for part in parts),
        database=first.database,
        ai_delay=first.ai_delay,
        latencies=_joined(part.latencies for part in parts),
        move_latencies=_joined(part.move_latencies for part in parts),
        clicks=sum((part.clicks for part in parts), Counter()),
        unanswered=sum(part.unanswered for part in parts),
        games=sum(part.games for part in parts),
        calls=sum((part.calls for part in parts), Counter()),
        kinds={name: kind for part in parts for name, kind in part.kinds.items()},
        uploads=sum((part.uploads for part in parts), Counter()),
        private_answers=sum(part.private_answers for part in parts),
        refusals=sum((part.refusals for part in parts), Counter()),
        ai_pauses=_joined(part.ai_pauses for part in parts),
        overslept=_joined(part.overslept for part in parts),
        gaps=_joined(part.gaps for part in parts),
        gc_pauses={generation: _joined(part.gc_pauses.get(generation, []) for part in parts)
                   for generation in sorted({g for part in parts for g in part.gc_pauses})},
        settled=sum(part.settled for part in parts),
        stuck=sum(part.stuck for part in parts),
        unsettled=sum(part.unsettled for part in parts),
        drain_seconds=max(part.drain_seconds for part in parts),
        playing_on=sum(part.playing_on for part in parts),
        errors=_joined(part.errors for part in parts),
        scrapes=sum(part.scrapes for part in parts),
        ai=first.ai,
    )


def _joined(lists) -> list:
    return [item for values in lists for item in values]


def split_tables(tables: int, processes: int) -> list[int]:
    """The tables of each process, as even as can be."""
    if not 1 <= processes <= tables:
        raise ValueError(f"{tables} tables cannot be shared among {processes} processes")
    share, extra = divmod(tables, processes)
    return [share + (index < extra) for index in range(processes)]


def percentile(values, q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0
