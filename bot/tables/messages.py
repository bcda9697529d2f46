"""Discord messages of a table: lobby, public table, private hand, result. Pure builders."""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import discord

from rendering.hand import render_hand_async
from rendering.table_picture import render_table_picture_async

from bot.i18n import _, ngettext, number, pgettext

from bot.ledger import Settlement

from .adapter import GameUI, HandImage, Selection, SelectSpec, chips
from .commands import AI_LEVEL, LANGUAGE
from .controls import ControlId, button, select
from .model import Seat, Table
from .names import safe_name
from .pictures import legend_line
from bot.ai.levels import level_of

COLOUR = discord.Colour.from_rgb(46, 125, 50)


def seat_label(table: Table, index: int) -> str:
    seat = table.seats[index]
    name = safe_name(seat.name)
    if seat.is_ai:
        return f"🤖 {name} · {level_name(table)}"
    return f"💤 {name}" if seat.away else name


def host_name(table: Table) -> str:
    """The host as the table's messages name him: his seat's name (a page that shows no
    mention as a name, such as the local one, still reads a name), else a mention."""
    host = next((seat for seat in table.seats if seat.user_id == table.host_id), None)
    return safe_name(host.name) if host is not None else f"<@{table.host_id}>"


def seat_value(seat: Seat) -> str:
    """A lobby seat as the host's **Remove a seat** select names it (stable while others join
    and leave): a person by his id, an AI by its name."""
    return f"ai:{seat.name}" if seat.user_id is None else str(seat.user_id)


def level_name(table: Table) -> str:
    """The table's AI level as its messages name it ("easy"), in the current language."""
    return option_value(AI_LEVEL, level_of(table.options))


def with_levels(picture: Any, table: Table) -> Any:
    """The table picture with each AI seat's level as the first fact of its box ("AI 2" over
    "easy · 9 cards"): after the name, where a narrow box cuts a long name short."""
    if picture is None or len(picture.seats) != len(table.seats):
        return picture
    level = level_name(table)
    return dataclasses.replace(picture, seats=tuple(
        dataclasses.replace(box, detail=f"{level}\n{box.detail}" if box.detail else level) if seat.is_ai else box
        for box, seat in zip(picture.seats, table.seats)))


def option_value(option: Any, value: Any) -> str:
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if option is LANGUAGE:  # a language is named in its own words
        return option.choice_name(str(value))
    if option is not None and option.choices:
        return pgettext("choice", option.choice_name(str(value)))
    return number(value) if isinstance(value, int) else str(value)


def lobby_embed(table: Table, ui: GameUI, *, note: str | None = None, hands_by_dm: bool = True) -> discord.Embed:
    """The lobby; ``note`` replaces the status line (e.g. why the lobby closed); ``hands_by_dm``
    false: hands are not sent by DM (config), each is seen through the table's **My hand**."""
    game = ui.game
    embed = discord.Embed(title=_("{game} · table #{table}").format(game=game.title, table=table.id), colour=COLOUR)
    status = note or {"lobby": _("Waiting for players"), "cancelled": _("Cancelled"), "playing": _("Playing"),
                      "finished": _("Finished")}[table.status]
    embed.description = "\n".join([
        _("**{status}** · host {host}").format(status=status, host=host_name(table)),
        _("Stake **{chips}** · {seconds} per move · {seats}").format(
            chips=chips(table.stake), seconds=ngettext("{n} second", "{n} seconds", table.turn_seconds).format(
                n=table.turn_seconds),
            seats=ngettext("{taken}/{n} seat taken (needs {min}+)", "{taken}/{n} seats taken (needs {min}+)",
                           table.max_seats).format(taken=len(table.seats), n=table.max_seats, min=game.min_players)),
    ])
    options = {option.name: option for option in (LANGUAGE, *ui.lobby_options)}
    extra = [f"{_(options[key].label) if key in options else key} **{option_value(options.get(key), value)}**"
             # (the AI level is told with each AI seat)
             for key, value in table.options.items() if key not in {"stake", "turn_seconds", "seats", "in_channel",
                                                                     "ai"}]
    if extra:
        embed.description += "\n" + " · ".join(extra)
    lines = [f"{i + 1}. {seat_label(table, i)}" for i in range(len(table.seats))]
    embed.add_field(name=_("Players"), value="\n".join(lines) or "—", inline=False)
    if table.status == "lobby" and not table.closed:  # (a closed lobby invites nobody)
        embed.set_footer(text=_("Join to play · the host starts the game · hands arrive by DM") if hands_by_dm else
                         _("Join to play · the host starts the game · see your hand with “My hand” on the table"))
    return embed


def lobby_view(table: Table, *, cancellable: bool = False) -> discord.ui.View:
    """The lobby's buttons; ``cancellable``: a game started but never shown may still be cancelled."""
    view = discord.ui.View(timeout=None)
    open_ = table.status == "lobby"
    full = len(table.seats) >= table.max_seats
    for key, label, style, enabled in (
        ("join", _("Join"), "success", open_ and not full),
        ("leave", _("Leave"), "secondary", open_),
        ("ai", _("Add AI"), "secondary", open_ and not full),
        ("start", _("Start"), "primary", open_),
        ("cancel", _("Cancel"), "danger", open_ or cancellable),
    ):
        view.add_item(button(ControlId("lobby", table.id, key), label, style=style, enabled=enabled))
    removable = [seat for seat in table.seats if seat.user_id != table.host_id]
    if open_ and removable:  # the host takes back an AI seat, or a person who went quiet
        view.add_item(select(ControlId("lobby", table.id, "remove"), placeholder=_("Remove a seat…"), max_values=1,
                             row=1, options=[discord.SelectOption(label=safe_name(seat.name)[:100], value=seat_value(seat))
                                             for seat in removable]))
    return view


def closed_note(table: Table) -> str:
    """What a table an admin closed says (in the current language): who closed it, and that
    the game in play is void or its chips were recorded before, earlier games staying settled."""
    closed = table.closed or {}
    admin = safe_name(closed["name"]) if closed.get("name") else f"<@{closed.get('by')}>"  # (the page shows names)
    note = _("Closed by an admin, {admin}.").format(admin=admin)
    if closed.get("playing"):
        note += " " + (_("This game is void: no chips move for it.") if closed.get("voided") else
                       _("Its chips were recorded before the close and stay recorded."))
    if closed.get("earlier"):
        note += " " + _("The earlier games of this table stay settled.")
    return note


def next_round_view(table: Table) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(button(ControlId("table", table.id, "next"), _("Next round"), style="primary"))
    return view


def round_embed(table: Table, ui: GameUI, view: dict, names: list[str], index: int) -> discord.Embed:
    """A round's result in a match: what happened (the engine's phrases, with names), each
    seat's points and new total."""
    result = view["round_results"][index]
    embed = discord.Embed(title=_("{game} · table #{table} · round {round} — result").format(
        game=ui.game.title, table=table.id, round=index + 1), colour=COLOUR)
    embed.description = ui.summary_text(result.get("phrases", ()), names)
    embed.add_field(name=_("Points → totals"), value="\n".join(ui.round_lines(view, names, index))[:1024] or "—",
                    inline=False)
    if index == len(view["round_results"]) - 1 and table.pause_until is not None and view.get("outcome") is None:
        embed.set_footer(text=_("The next round starts when everyone still in clicks Next round, "
                                "or after the pause."))
    return embed


def table_view(table: Table, *, rematch: bool = False, lit: bool = True) -> discord.ui.View:
    """The table message's buttons; ``rematch``: a result's (``lit``: the table's latest, whose
    rematch is not open yet; an older result keeps its button greyed)."""
    view = discord.ui.View(timeout=None)
    if rematch:
        view.add_item(button(ControlId("table", table.id, "rematch"), _("Rematch"), style="success", enabled=lit))
        return view
    view.add_item(button(ControlId("table", table.id, "hand"), _("My hand"), style="primary", emoji="🂠"))
    view.add_item(button(ControlId("table", table.id, "back"), _("I'm back"), style="secondary"))
    return view


def shown_view(table: Table, seat: int | None) -> dict:
    """The game's view of ``seat`` (None: the public table) as the table's messages show it.
    Between two rounds of a match (the pause, or a buy-back to decide) it carries
    ``between_rounds``: the engine may already have dealt the next round, but the screens show
    the round that ended (``round_results[-1]``) until the next one starts."""
    view = table.state.view(seat)
    if table.pause_until is not None and view.get("outcome") is None and view.get("round_results"):
        view["between_rounds"] = True
    return view


def table_picture(table: Table, ui: GameUI) -> Any:
    """The game's picture of the public table (a :class:`rendering.table_picture.TablePicture`),
    or None for a game that shows none."""
    return with_levels(ui.table_picture(shown_view(table, None), table.picture_names(), table), table)


async def table_png_bytes(picture: Any) -> bytes:
    """The table picture, rendered off the event loop (attached as ``table.png``)."""
    return await render_table_picture_async(picture)


def table_embed(table: Table, ui: GameUI, *, picture: bool = False) -> discord.Embed:
    """The public table in text (for notifications and screen readers); ``picture``: the
    table's image, attached as ``table.png``, is shown in it."""
    view = shown_view(table, None)
    names = [seat_label(table, i) for i in range(len(table.seats))]
    embed = discord.Embed(title=_("{game} · table #{table} · game {number}").format(
        game=ui.game.title, table=table.id, number=table.game_no), colour=COLOUR)
    if picture:
        embed.set_image(url="attachment://table.png")
        legend = legend_line(table_picture(table, ui))  # what the picture's glyphs mean
        if legend:
            embed.set_footer(text=legend)
    lines = []
    between_rounds = table.pause_until is not None and not ui.deciding(view)
    if view.get("outcome") is None and between_rounds:
        when = f"<t:{int(table.pause_until or 0)}:R>"
        lines.append(_("Round {round} is over · the next round starts {when} (or when everyone clicks "
                       "**Next round**)").format(round=table.rounds_done(), when=when))
    elif view.get("outcome") is None:
        acting = ", ".join(f"**{names[s]}**" for s in view["to_act"])
        if table.deadline is not None and any(not table.seats[s].auto for s in view["to_act"]):
            lines.append(_("Turn: {players} · time runs out {when}").format(
                players=acting, when=f"<t:{int(table.deadline)}:R>"))
        else:
            lines.append(_("Turn: {players}").format(players=acting))
    else:
        lines.append(_("**Game over**"))
    summary = ui.table_summary(view)
    if summary:
        lines.append(summary)
    if view.get("pot") is not None:  # a match played for a pot
        lines.append(_("Stake {stake} · pot **{pot}**").format(stake=chips(table.stake),
                                                                pot=chips(view["pot"] * table.stake)))
    else:
        lines.append(_("Stake {stake}").format(stake=chips(table.stake)))
    embed.description = "\n".join(lines)
    for name, value in ui.table_fields(view, names):
        embed.add_field(name=name, value=value[:1024], inline=False)
    if table.log:
        embed.add_field(name=_("Last moves"), value="\n".join(table.log)[-1024:], inline=False)
    return embed


@dataclass
class HandShown:
    """One seat's private hand as it should look now. ``material`` is what a player needs to
    act (his cards, what he may select and click); ``signature`` adds the words around it."""

    content: str
    view: discord.ui.View
    image: HandImage
    material: tuple
    signature: tuple


#: Discord's limits: five rows of controls, five buttons a row, a select fills its row
ROWS, PER_ROW = 5, 5
#: rows a hand's controls may use: one is always left free
MAX_ROWS = ROWS - 1


def hand_controls(ui: GameUI, view: dict, selection: Selection, arranged: bool,
                  names: Sequence[str] = ()) -> tuple[list, list]:
    """The selects and buttons a seat's hand shows, in the order they are laid out: the selects
    that have options, then the buttons in the game's order, those usable now and the disabled
    ones the game keeps because they teach (``ButtonSpec.teach``: a move of this turn that waits
    for a selection); other disabled buttons are left out. A button keeps its place while cards
    are picked: only whether it is enabled changes. When they would not fit in
    :data:`MAX_ROWS` (with the link: three selects leave one row), the last helpers are left out,
    then the last teaching buttons: the moves keep their places. ``names``: the seats' names, for
    the options that name a seat."""
    selects = [spec for spec in [ui.select(view, selection, arranged),
                                 *ui.extra_selects(view, selection, names=names)]
               if spec is not None and spec.options]
    shown = [b for b in ui.buttons(view, selection) if b.enabled or b.teach]
    room = (MAX_ROWS - len(selects)) * PER_ROW - 1  # the link keeps a place
    for spare in (lambda b: b.key in ui.helper_keys, lambda b: not b.enabled):
        while len(shown) > room and any(spare(b) for b in shown):
            del shown[max(i for i, b in enumerate(shown) if spare(b))]
    return selects, shown


def laid_out(selects: list, buttons: list, control: Callable[[str], ControlId], *, link: str | None) -> list:
    """The items of a hand's controls with their rows: a select a row, then the buttons five a
    row, then (``link``) the "Go to table" link, always the last item of the last row used, then
    the selects that go under the buttons (``SelectSpec.below``)."""
    def select_item(spec: SelectSpec, row: int) -> discord.ui.Item:
        options = [discord.SelectOption(label=o.label[:100], value=o.value, description=(o.description or None)
                                        and o.description[:100], default=o.value in spec.selected)
                   for o in spec.options[:25]]
        return select(control(spec.key), placeholder=spec.placeholder, options=options,
                      max_values=spec.max_values, row=row)

    above = [spec for spec in selects if not spec.below]
    items = [select_item(spec, row) for row, spec in enumerate(above)]
    for i, spec in enumerate(buttons):
        items.append(button(control(spec.key), spec.label, style=spec.style, enabled=spec.enabled,
                            row=len(above) + i // PER_ROW))
    if link is not None:
        items.append(link_button(link, items))
    next_row = max((item_row(item) for item in items), default=-1) + 1
    items += [select_item(spec, next_row + i) for i, spec in enumerate(s for s in selects if s.below)]
    return items


def item_row(item: discord.ui.Item) -> int:
    """The row an item was given (a dynamic item's select answers None for its own)."""
    return getattr(item, "item", item).row or 0


def link_button(url: str, items: Sequence) -> discord.ui.Button:
    """The "Go to table" link after ``items``: last on their last row, or alone on the next row
    when that row is full (or holds a select)."""
    rows: dict[int, int] = {}
    for item in items:
        row = item_row(item)
        rows[row] = rows.get(row, 0) + item.width
    last = max(rows, default=0)
    row = last if rows.get(last, 0) < PER_ROW else last + 1
    return discord.ui.Button(style=discord.ButtonStyle.link, label=_("Go to table"), url=url, row=row)



def hand_shown(table: Table, ui: GameUI, seat: int) -> HandShown:
    """content, picture and controls of one seat's private hand message (nothing rendered)."""
    view = shown_view(table, seat)
    selection = seat_selection(table, ui, view, seat)
    arranged = table.arranged.get(seat, True)
    names = [seat_label(table, i) for i in range(len(table.seats))]
    image = ui.hand_image(view, selection, arranged)
    content = _("**{game} · table #{table}** · {server} · <#{channel}>").format(
        game=ui.game.title, table=table.id, server=table.guild_name or _("a server"),
        channel=table.play_channel_id) + "\n" + ui.hand_status(view, names)
    between_rounds = table.pause_until is not None and not ui.deciding(view)
    if seat in view.get("to_act", ()) and table.deadline is not None and view.get("outcome") is None \
            and not table.seats[seat].auto and not between_rounds:
        content += "\n⏱️ " + _("Time runs out {when}.").format(when=f"<t:{int(table.deadline)}:R>")
    away = table.seats[seat].away
    if away:
        content += "\n💤 " + _("You are marked away: the AI plays for you until you click **I'm back**.")
    if between_rounds and view.get("outcome") is None:
        content += "\n⏸️ " + _("Round {round} is over (its result is in {channel}). The next round starts {when}.").format(
            round=table.rounds_done(), channel=f"<#{table.play_channel_id}>",
            when=f"<t:{int(table.pause_until or 0)}:R>")
    over = view.get("outcome") is not None or between_rounds
    controls = discord.ui.View(timeout=None)
    material: tuple = (image, over, away)
    if not over:
        def control(key: str) -> ControlId:
            return ControlId("play", table.id, key, table.game_no, table.version)

        selects, specs = hand_controls(ui, view, selection, arranged, table.raw_names())
        if away:
            selects, specs = [], []
        for item in laid_out(selects, specs, control, link=None):
            controls.add_item(item)
        if away:  # the AI plays this seat: the one control is coming back
            controls.add_item(button(ControlId("table", table.id, "back"), _("I'm back"), style="success", row=0))
        material += (tuple(selection), tuple(sorted(selection.picks.items())),
                     tuple((b.key, b.enabled, b.label) for b in specs),
                     tuple((s.key, tuple((o.value, o.label) for o in s.options), tuple(s.selected)) for s in selects))
    if table.table_message_id is not None:
        controls.add_item(link_button(table.jump_url, controls.children))
    material += (table.table_message_id is not None,)
    return HandShown(content, controls, image, material, (material, content, table.game_no, table.version))


async def render_hand(image: HandImage, deck: str) -> bytes:
    return await render_hand_async(image.groups, marked=image.marked, selected=image.selected,
                                   caption=image.caption, title=image.title, deck=deck)


def seat_selection(table: Table, ui: GameUI, view: dict, seat: int) -> Selection:
    """The seat's selection as the game sees it: cards it still holds, and its picks in the
    other selects (a pick that is no longer among that select's options drops out)."""
    cards = Selection(ui.keep_selection(view, table.selection.get(seat, [])), table.picks.get(seat, {}))
    if cards.picks:
        valid = {spec.key: {o.value for o in spec.options} for spec in ui.extra_selects(view, cards)}
        cards.picks = {key: value for key, value in cards.picks.items() if value in valid.get(key, ())}
    return cards


def result_embed(table: Table, ui: GameUI, outcome: Any, names: list[str], paid: Settlement) -> discord.Embed:
    """The end of a game: summary (from the engine's phrases and the seats' names), ranking, payments;
    every amount in chips, at the stake the game was played for: each seat's chips as the ledger
    records them (``paid``: :func:`bot.ledger.settlement`)."""
    ui = ui.at_stake(table.stake)
    embed = discord.Embed(title=_("{game} · table #{table} · game {number} — result").format(
        game=ui.game.title, table=table.id, number=table.game_no), colour=COLOUR)
    summary = ui.summary_text(outcome.summary, names)
    embed.description = summary or (_("Drawn game: no payments.") if outcome.is_draw else "")
    won = paid.chips
    lines = []
    for r in sorted(outcome.results, key=lambda r: (r.rank, r.seat)):
        parts = [f"**{r.rank}. {names[r.seat]}**"]
        if r.points is not None:
            parts.append(ngettext("{n} point", "{n} points", abs(r.points)).format(n=number(r.points)))
        parts += [ui.note_text(note) for note in r.notes]
        paid_out = [t for t in outcome.transfers if t.payer == r.seat]
        if r.seat in outcome.winners and paid_out:  # a winner who paid (a chốt): why, next to the total
            parts.append(_("after paying {chips} ({reasons})").format(
                chips=chips(sum(t.units for t in paid_out) * table.stake),
                reasons=", ".join(dict.fromkeys(ui.note_text(t.reason) for t in paid_out))))
        parts.append(f"**{chips(won[r.seat], signed=True)}**")
        if r.ga:
            parts.append(f"{number(r.ga, signed=True)} gà")
        lines.append(" · ".join(parts))
    embed.add_field(name=_("Ranking"), value="\n".join(lines), inline=False)
    if outcome.transfers:
        transfers = [f"{names[t.payer]} → {names[t.payee]}: {chips(t.units * table.stake)} ({ui.note_text(t.reason)})"
                     for t in outcome.transfers]
        embed.add_field(name=_("Payments"), value="\n".join(transfers)[:1024], inline=False)
    embed.set_footer(text=_("Chips record play among friends; they are not money. Rematch keeps the seats."))
    return embed


def png_file(png: bytes, name: str = "hand.png") -> discord.File:
    return discord.File(io.BytesIO(png), filename=name)
