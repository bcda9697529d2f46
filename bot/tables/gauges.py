"""What the table service tells about itself, read at once (the operator's metrics and
/healthz: :mod:`bot.metrics`): the tables it drives, their outboxes, its REST budget, the
settlements still being retried and its leases."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .core import Core
from .model import Table


@dataclass(frozen=True)
class Outboxes:
    """Over every outbox of the tables this process drives: the messages waiting to be shown,
    those being retried, how long the oldest has waited and the oldest has been failing."""

    pending: int = 0
    retrying: int = 0
    waited: float = 0.0
    failing_for: float = 0.0


@dataclass(frozen=True)
class Gauges:
    tables: dict[tuple[str, str], int]  # open tables this process drives, by (game, status)
    games: tuple[str, ...]  # the games registered, sorted
    outboxes: Outboxes
    rest_rate: float  # globally limited calls per second this process may make
    rest_fill: float  # how full the REST budget's bucket is (1: calls wait for their turn)
    rest_calls: int  # globally limited calls the tables spent the budget on
    rest_waits: int  # of those, the calls that waited for their turn
    rest_wait_seconds: float  # seconds the calls waited for their turn in all
    settlements_pending: int  # games over whose settlement is still being retried
    leases_held: int
    leases_adopted: int  # tables adopted from a process that stopped driving them
    leases_lost: int  # tables this process stopped driving: their lease taken or not renewed in time


def gauges(core: Core) -> Gauges:
    tables = list(core.tables.values())
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        counts[table.game, table.status] = counts.get((table.game, table.status), 0) + 1
    budget, leases = core.budget, core.leases
    return Gauges(tables=counts, games=tuple(sorted(core.uis)), outboxes=outboxes(tables),
                  rest_rate=budget.rate, rest_fill=budget.fill(), rest_calls=budget.spent, rest_waits=budget.waited,
                  rest_wait_seconds=budget.waited_seconds, settlements_pending=len(core.unsettled),
                  leases_held=len(leases.epochs), leases_adopted=leases.adopted, leases_lost=leases.lost)


def outboxes(tables: Iterable[Table]) -> Outboxes:
    pending = retrying = 0
    waited = failing = 0.0
    for table in tables:
        presenter = table.presenter
        if presenter is None:
            continue
        now = presenter.now()
        for slot in list(presenter.slots.values()):
            if slot.done or not slot.dirty:
                continue
            pending += 1
            if slot.dirty_since is not None:
                waited = max(waited, now - slot.dirty_since)
            if slot.failing_since is not None:
                retrying += 1
                failing = max(failing, now - slot.failing_since)
    return Outboxes(pending, retrying, waited, failing)
