"""The charts /balance and /leaderboard show, from the ledger's running totals: the picture's
data (:class:`rendering.chart.Chart`) in the current language, and its text alternative (what a
screen reader says, Discord's attachment description).

Built inside the asker's :func:`bot.i18n.language`; the picture is drawn later, on the
rendering threads, so the axis numbers are written by a function that carries the language.
"""

from __future__ import annotations

from datetime import datetime

from rendering.chart import Chart, Line

from . import i18n
from .i18n import _, ngettext
from .ledger import Series

#: Players on the leaderboard's chart (the text lists ten; more lines could not be told apart).
CHART_PLAYERS = 5
#: Discord's limit on an attachment's description.
DESCRIPTION_LIMIT = 1024
#: At least this many games before a chart is worth showing (one game is a single step).
MIN_GAMES = 2


def _axis_number(lang: str, signed: bool):
    def write(value: int) -> str:
        with i18n.language(lang):
            return i18n.number(value, signed=signed and value != 0)
    return write


def _dates(series: Series) -> tuple[str, str]:
    """The first and the last game's dates; the last is left out when it is the same day."""
    first, last = (i18n.day(datetime.fromisoformat(series.at[k])) for k in (0, -1))
    return first, last if last != first else ""


def _span(start: str, end: str) -> str:
    return _("{start} to {end}").format(start=start, end=end) if end else start


def _games(series: Series) -> str:
    return ngettext("{n} game", "{n} games", len(series.at)).format(n=i18n.number(len(series.at)))


def balance_chart(series: Series, user_id: int, player: str, shown: str, games: str) -> tuple[Chart, str]:
    """A player's chips after each of his games (``games``: "all games" or the game's name),
    from the 0 he started at; and its text alternative. ``player`` is his name as the picture
    draws it, ``shown`` as message text writes it (:func:`bot.tables.names.safe_name`)."""
    totals = [0, *series.totals[user_id]]
    start, end = _dates(series)
    chart = Chart(title=_("Chips of {player} — {games}").format(player=player, games=games),
                  lines=(Line(player, tuple(totals)),), start=start, end=end, axis=_games(series),
                  number=_axis_number(i18n.current(), True))
    description = _("Line chart of {player}'s chips over {games} ({dates}): now {now}, "
                    "highest {high}, lowest {low}.").format(
        player=shown, games=_games(series), dates=_span(start, end), now=i18n.number(totals[-1], signed=True),
        high=i18n.number(max(totals), signed=True), low=i18n.number(min(totals), signed=True))
    return chart, description[:DESCRIPTION_LIMIT]


def leaderboard_chart(series: Series, players: list[tuple[int, str, str]], title: str,
                      by: str) -> tuple[Chart, str]:
    """The top players' running totals (``players``: their ids, names as drawn and as written,
    best first) of what the ranking counts (``by``: chips, ga or wins); and its text alternative."""
    signed = by != "wins"
    lines, standings = [], []
    for user_id, name, shown in players:
        totals = (0, *series.totals[user_id])
        lines.append(Line(name, totals, note=i18n.number(totals[-1], signed=signed)))
        standings.append(f"{shown} {lines[-1].note}")
    start, end = _dates(series)
    chart = Chart(title=title, lines=tuple(lines), start=start, end=end, axis=_games(series),
                  number=_axis_number(i18n.current(), signed))
    standings = ", ".join(standings)
    description = _("Line chart of the top players' running totals over {games} ({dates}): "
                    "{standings}.").format(games=_games(series), dates=_span(start, end), standings=standings)
    return chart, description[:DESCRIPTION_LIMIT]
