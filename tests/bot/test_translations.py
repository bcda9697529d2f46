"""The catalogs: every message has its Vietnamese and Spanish translation, keeps its
placeholders, and the catalog template is what the code marks today."""

from __future__ import annotations

import gettext
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot import i18n

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "bot" / "locale"
LANGUAGES = ("vi", "es")
PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")
DISCORD_NAME = re.compile(r"^[-_\w]{1,32}$")


def catalog(path: Path):
    with path.open("rb") as fh:
        return read_po(fh)


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def messages_of(cat):
    return [m for m in cat if m.id]


def test_the_template_is_what_the_code_marks(tmp_path):
    out = tmp_path / "now.pot"
    pybabel = Path(sys.executable).with_name("pybabel")
    subprocess.run([str(pybabel), "-q", "extract", "-F", "babel.cfg", "-k", "_", "-k", "ngettext:1,2",
                    "-k", "pgettext:1c,2", "-k", "N_", "-k", "Nn_:1,2", "-k", "C_:1c,2", "--no-location", "-o", str(out), "."],
                   cwd=ROOT, check=True, capture_output=True)
    now = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)) for m in messages_of(catalog(out))}
    stored = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id))
              for m in messages_of(catalog(LOCALE / "chieu.pot"))}
    assert now == stored, ("run `bash scripts/translations update`: new " + repr(sorted(now - stored, key=str)[:5])
                           + ", gone " + repr(sorted(stored - now, key=str)[:5]))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_translated_with_its_placeholders(lang):
    template = messages_of(catalog(LOCALE / "chieu.pot"))
    translations = {(m.context, m.id if isinstance(m.id, str) else tuple(m.id)): m
                    for m in messages_of(catalog(LOCALE / lang / "LC_MESSAGES" / "chieu.po"))}
    missing, broken = [], []
    for message in template:
        key = (message.context, message.id if isinstance(message.id, str) else tuple(message.id))
        found = translations.get(key)
        strings = [] if found is None else ([found.string] if isinstance(found.string, str) else list(found.string))
        if found is None or found.fuzzy or not strings or not all(strings):
            missing.append(message.id)
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        expected = set().union(*(placeholders(i) for i in ids))
        for text in strings:
            if placeholders(text) - expected or (len(strings) == 1 and placeholders(text) != expected):
                broken.append((message.id, text))
            elif len(strings) > 1 and not placeholders(text) >= placeholders(ids[0]) - {"n"}:
                broken.append((message.id, text))
        if message.context in ("command name", "option name"):
            name = strings[0]
            if not DISCORD_NAME.match(name) or name != name.lower():
                broken.append((message.id, f"{name!r} is not a valid Discord command or option name"))
    assert not missing, f"{len(missing)} messages lack a {lang} translation, e.g. {missing[:5]}"
    assert not broken, f"{len(broken)} {lang} translations change their placeholders, e.g. {broken[:5]}"


def test_plural_forms():
    assert catalog(LOCALE / "vi" / "LC_MESSAGES" / "chieu.po").num_plurals == 1
    assert catalog(LOCALE / "es" / "LC_MESSAGES" / "chieu.po").num_plurals == 2


#: a count written before one of these words is a count of them: "with {points} points"
COUNTED = re.compile(r"\{(\w+)\} (points?|cards?|turns?|tables?|players?|rounds?|games?|minutes?|seconds?|chips?|"
                     r"seats?|moves?)\b")


def test_every_count_goes_through_plural_forms():
    """A message that counts something is a plural entry (ngettext, or Nn_ for an engine's
    phrase): "lan wins with 1 points" is what a single form says for one."""
    singular_counts = [m.id for m in messages_of(catalog(LOCALE / "chieu.pot"))
                       if isinstance(m.id, str) and COUNTED.search(m.id)]
    assert singular_counts == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_bot_serves_every_entry_of_the_po(lang):
    """bot/i18n.py reads the .po itself: each translated entry comes back as written, plurals
    by the language's rule, short words by their context."""
    cat = catalog(LOCALE / lang / "LC_MESSAGES" / "chieu.po")
    rule = gettext.c2py(cat.plural_expr)
    served = i18n.translations(lang)
    checked = 0
    for m in messages_of(cat):
        if m.fuzzy or not m.string or not all(m.string):
            continue
        if m.pluralizable:
            for n in (0, 1, 2, 5, 21):
                got = (served.npgettext(m.context, *m.id, n) if m.context else served.ngettext(*m.id, n))
                assert got == m.string[rule(n)], (m.id, n)
        else:
            got = served.pgettext(m.context, m.id) if m.context else served.gettext(m.id)
            assert got == m.string, m.id
        checked += 1
    assert checked > 300


def test_sibling_names_stay_distinct_in_every_language():
    """Two options of one command must not end up with the same translated name."""
    for lang in LANGUAGES:
        cat = catalog(LOCALE / lang / "LC_MESSAGES" / "chieu.po")
        options = {m.id: m.string for m in messages_of(cat) if m.context == "option name"}
        groups = [("stake", "seats", "turn_seconds", "language", "ga_stake", "chiu", "worst_card_penalty", "deck",
                   "close_limit", "lay_off", "target", "rounds", "open_min", "send"), ("user", "game", "period", "by")]
        for group in groups:
            names = [options[o] for o in group if o in options]
            assert len(names) == len(set(names)), (lang, names)


def test_the_bot_has_one_voice_in_vietnamese():
    """The bot speaks of itself as "bot" (it once said "mình" in one message and "tôi" in
    another); "tôi" is the player's own voice, on the buttons he clicks (My hand, I'm back)."""
    first_person = re.compile(r"\b(mình|tôi)\b", re.IGNORECASE)
    players_voice = {"My hand", "I'm back"}
    for message in messages_of(catalog(LOCALE / "vi" / "LC_MESSAGES" / "chieu.po")):
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        english = message.id if isinstance(message.id, str) else message.id[0]
        if re.search(r"\bI\b", english) and message.id not in players_voice:  # the bot of itself
            said = [re.sub(r"\*\*.+?\*\*", "", s) for s in strings]  # a **button** keeps its words
            assert not any(first_person.search(s) for s in said), (message.id, strings)


def test_a_player_is_nobody_s_he():
    """"The AI plays his seat…; his hand is taken from him": a player is spoken of neutrally."""
    gendered = re.compile(r"\b(he|his|him|himself)\b", re.IGNORECASE)
    said = [m.id for m in messages_of(catalog(LOCALE / "chieu.pot"))
            if any(gendered.search(text) for text in ([m.id] if isinstance(m.id, str) else m.id))]
    assert said == []


def test_vietnamese_says_may_chu_for_a_server():
    """One word for a server in Vietnamese ("máy chủ", never "server" in one message and "máy
    chủ" in the next); the ``{server}`` placeholder is the server's own name."""
    english_word = re.compile(r"(?<!\{)\bserver\b(?!\})", re.IGNORECASE)
    said = [m.id for m in messages_of(catalog(LOCALE / "vi" / "LC_MESSAGES" / "chieu.po"))
            if any(english_word.search(text) for text in ([m.string] if isinstance(m.string, str) else m.string))]
    assert said == []


def test_a_language_is_named_as_a_sentence_writes_it():
    with i18n.language("es"):
        assert i18n.language_name("es") == "español"
    with i18n.language("vi"):
        assert i18n.language_name("vi") == "tiếng Việt"
    with i18n.language("en"):
        assert i18n.language_name("vi") == "Vietnamese"


def test_slash_descriptions_fit_discord_in_every_language():
    """Discord refuses a command or option description over 100 characters, in any of its
    localizations (the Spanish of Phỏm's gửi option first ran to 115)."""
    import importlib

    from bot.app import EXTENSIONS
    from bot.tables.commands import GameCog

    descriptions = set()
    for extension in EXTENSIONS:
        for value in vars(importlib.import_module(extension)).values():
            if isinstance(value, type) and issubclass(value, GameCog) and value is not GameCog:
                ui = value.ui_class()
                descriptions |= {ui.description, ui.new_description, ui.stake_description,
                                 *(option.description for option in ui.lobby_options)}
    for lang in LANGUAGES:
        cat = catalog(LOCALE / lang / "LC_MESSAGES" / "chieu.po")
        for description in descriptions:
            assert len(description) <= 100, description
            assert len(cat.get(description).string) <= 100, (lang, cat.get(description).string)
