"""What the table service tells about itself, read at once (the operator's metrics and
/healthz: :mod:`bot.metrics`): the tables it drives, their outboxes, its REST budget, the
settlements still being retried and its leases."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .budget import Budget
from .core import Core
from .leases import Leases
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
    budget: Budget  # the bot's share of Discord's global limit: its rate, fill and what it granted
    settlements_pending: int  # games over whose settlement is still being retried
    leases: Leases  # the leases held (epochs), adopted and lost (PostgreSQL)


def gauges(core: Core) -> Gauges:
    tables = list(core.tables.values())
    counts: dict[tuple[str, str], int] = {}
    for table in tables:
        counts[table.game, table.status] = counts.get((table.game, table.status), 0) + 1
    return Gauges(tables=counts, games=tuple(sorted(core.uis)), outboxes=outboxes(tables), budget=core.budget,
                  settlements_pending=len(core.unsettled), leases=core.leases)


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
