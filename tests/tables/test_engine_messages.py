"""The engines' player-visible messages are translatable (bot/i18n.py, docs/development.md "Translations").

A source scan of ``bot/games/*.py`` (every ``IllegalAction`` message is built with ``_()`` or
``ngettext()``, every marked message is one literal with named placeholders, ``_`` is never
rebound where it is gettext, every ``PHRASES`` template is marked with ``N_()`` and every phrase
key an engine writes has a template), then the refusals at run time: English without a
catalog, and through the current language's catalog when there is one.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest
from babel.support import NullTranslations

from bot import i18n
from bot.games.chan import game as chan
from bot.games.chinchon import game as chinchon
from bot.games.concan import game as concan
from bot.games.phom import game as phom
from bot.games.tusac import game as tusac
from bot.games.base import IllegalAction
from bot.games.french import FULL_DECK
from bot.games.tusac.sets import card_name
from bot.i18n import language

GAMES_DIR = Path(__file__).resolve().parents[2] / "bot" / "games"
ENGINES = {"phom": phom, "chan": chan, "tusac": tusac, "chinchon": chinchon, "concan": concan}

#: functions whose result is a message in the current language
TRANSLATING = {"_", "ngettext", "pgettext"}
#: marker -> the positions of its arguments that must be literal strings (what the extractor reads)
LITERAL_ARGS = {"_": (0,), "ngettext": (0, 1), "N_": (0,), "C_": (0, 1), "pgettext": (0,)}
#: marker -> the positions of its arguments that are messages (their placeholders are checked)
MESSAGE_ARGS = {"_": (0,), "ngettext": (0, 1), "N_": (0,), "C_": (1,), "pgettext": (1,)}
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class Source:
    """One module's syntax tree, with each node's parent."""

    def __init__(self, path: Path, text: str | None = None) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text, str(path))
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node

    def where(self, node: ast.AST) -> str:
        root = GAMES_DIR.parents[1]
        path = self.path.relative_to(root) if self.path.is_relative_to(root) else self.path
        return f"{path}:{node.lineno}"

    def calls(self, *names: str):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and _name(node.func) in names:
                yield node

    def function_of(self, node: ast.AST) -> ast.AST:
        while node in self.parent:
            node = self.parent[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                return node
        return self.tree

    def in_comprehension(self, node: ast.AST) -> bool:
        while node in self.parent:
            node = self.parent[node]
            if isinstance(node, COMPREHENSIONS):
                return True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                return False
        return False

    def translated(self, node: ast.expr, seen: frozenset[str] = frozenset()) -> bool:
        """Is ``node`` a message built in the current language: a call to ``_``/``ngettext``/
        ``pgettext``, its ``.format()``, a choice between such, or a local variable only ever
        assigned such?"""
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if isinstance(node.func, ast.Name) and name in TRANSLATING:
                return True
            if isinstance(node.func, ast.Attribute) and name in ("format", "format_map"):
                return self.translated(node.func.value, seen)
            return False
        if isinstance(node, ast.IfExp):
            return self.translated(node.body, seen) and self.translated(node.orelse, seen)
        if isinstance(node, ast.BoolOp):
            return all(self.translated(v, seen) for v in node.values)
        if isinstance(node, ast.Name) and node.id not in seen:
            values = []
            for sub in ast.walk(self.function_of(node)):
                if isinstance(sub, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id
                                                       for t in sub.targets):
                    values.append(sub.value)
                elif isinstance(sub, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and \
                        isinstance(sub.target, ast.Name) and sub.target.id == node.id and sub.value is not None:
                    values.append(sub.value)
            return bool(values) and all(self.translated(v, seen | {node.id}) for v in values)
        return False

    def imports_gettext(self) -> bool:
        return any(isinstance(node, ast.ImportFrom) and any(alias.name == "_" for alias in node.names)
                   for node in ast.walk(self.tree))


def sources() -> list[Source]:
    return [Source(path) for path in sorted(GAMES_DIR.rglob("*.py"))]


# --------------------------------------------------------------------------------------------
# the checks (each returns its failures as "file:line: what")


def untranslated_refusals(src: Source) -> list[str]:
    """Every ``IllegalAction(...)`` (raised or returned) gets one message built with ``_()``."""
    bad = []
    for call in src.calls("IllegalAction"):
        if len(call.args) != 1 or call.keywords or not src.translated(call.args[0]):
            bad.append(f"{src.where(call)}: IllegalAction({ast.unparse(call)[len('IllegalAction('):-1][:70]}) "
                       "is not built with _() or ngettext()")
    return bad


def bad_markers(src: Source) -> list[str]:
    """Marked messages are literal strings (no f-string, no concatenation, no variable) with
    named placeholders only (no ``{}``, ``{0}`` or ``%s``); both forms of a plural have the same."""
    bad = []
    for call in src.calls(*LITERAL_ARGS):
        if not isinstance(call.func, ast.Name):
            continue
        name = call.func.id
        for pos in LITERAL_ARGS[name]:
            arg = call.args[pos] if pos < len(call.args) else None
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                kind = type(arg).__name__ if arg is not None else "nothing"
                bad.append(f"{src.where(call)}: {name}() needs a literal string, not {kind}")
        fields = []
        for pos in MESSAGE_ARGS[name]:
            arg = call.args[pos] if pos < len(call.args) else None
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                continue
            problem = placeholder_problem(arg.value)
            if problem:
                bad.append(f"{src.where(call)}: {name}({arg.value!r}): {problem}")
            else:
                fields.append({f for _lit, f, _spec, _conv in string.Formatter().parse(arg.value) if f})
        if name == "ngettext" and len(fields) == 2 and fields[0] != fields[1]:
            bad.append(f"{src.where(call)}: the two forms of a plural must use the same placeholders")
    return bad


def placeholder_problem(message: str) -> str | None:
    if re.search(r"%(\(\w+\))?[sdifr]", message):
        return "printf placeholder: use {name}"
    try:
        parsed = list(string.Formatter().parse(message))
    except ValueError as exc:
        return f"not a format string ({exc})"
    for _lit, field, _spec, _conv in parsed:
        if field is not None and not field.isidentifier():
            return f"placeholder {{{field}}}: name every placeholder"
    return None


def rebound_gettext(src: Source) -> list[str]:
    """In a module that imports ``_`` (gettext), ``_`` is never a throwaway name."""
    if not src.imports_gettext():
        return []
    bad = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store) \
                and not src.in_comprehension(node):
            bad.append(f"{src.where(node)}: '_' is gettext here: use another throwaway name")
        if isinstance(node, ast.arg) and node.arg == "_":
            bad.append(f"{src.where(node)}: '_' is gettext here: use another argument name")
    return bad


def unmarked_phrases(src: Source) -> list[str]:
    """Every ``PHRASES`` template is a literal marked with ``N_()``, or ``Nn_()`` for one with
    plural forms. (Not a bare ``(singular, plural, count key)`` tuple: with the extractor's
    keywords, two ``N_()`` marks make two singular messages, which ``ngettext()`` never looks
    up, so the plural would stay English.)"""
    bad = []
    for node in ast.walk(src.tree):
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        if not (isinstance(target, ast.Name) and target.id == "PHRASES" and isinstance(node.value, ast.Dict)):
            continue
        for key, value in zip(node.value.keys, node.value.values):
            if key is None:
                continue  # ``**PHRASES`` of another module (e.g. a game's scoring), which the scan reads too
            if not (isinstance(value, ast.Call) and _name(value.func) in ("N_", "Nn_")):
                bad.append(f"{src.where(value)}: PHRASES[{ast.unparse(key)}] is not marked with N_()")
    return bad


# --------------------------------------------------------------------------------------------
# the scan


@pytest.mark.parametrize("check", [untranslated_refusals, bad_markers, rebound_gettext, unmarked_phrases])
def test_engine_sources(check):
    bad = sorted((line for src in sources() for line in check(src)),
                 key=lambda line: (line.split(":")[0], int(line.split(":")[1])))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_phrase_key_written_has_a_template(game):
    """Each ``"<game>.<key>"`` string of the engine's modules (its package
    ``bot/games/<game>/``: the keys of its phrases) is in its ``PHRASES``, and each template names
    its placeholders."""
    module = ENGINES[game]
    paths = sorted((GAMES_DIR / game).glob("*.py"))
    keys = {node.value for path in paths for node in ast.walk(Source(path).tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and re.fullmatch(rf"{game}\.[a-z0-9_]*[a-z0-9]", node.value)}
    assert keys, "the engine writes no phrase"
    assert keys <= set(module.PHRASES), sorted(keys - set(module.PHRASES))
    for key, template in module.PHRASES.items():
        forms = template[:2] if isinstance(template, tuple) else (template,)
        assert all(isinstance(form, str) and not placeholder_problem(form) for form in forms), key


def test_the_scan_finds_untranslated_messages(tmp_path):
    """The checks above can fail: an f-string, a bare string, a concatenation."""
    path = tmp_path / "engine.py"
    path.write_text(
        "from ..i18n import N_, _\n"
        "PHRASES = {'x.a': N_('{a} wins'), 'x.b': '{b} loses'}\n"
        "def f(card, n):\n"
        "    verb, _, rest = 'a b'.partition(' ')\n"
        "    if n:\n"
        "        raise IllegalAction(f'You do not have {card}.')\n"
        "    if card:\n"
        "        raise IllegalAction('The game is over.')\n"
        "    why = _('fine') if n else 'not translated'\n"
        "    raise IllegalAction(why)\n"
        "def g(card):\n"
        "    raise IllegalAction(_('You do not have ' + card))\n"
        "def h(card):\n"
        "    return IllegalAction(_('You do not have {}.').format(card))\n"
        "def k(card):\n"
        "    msg = _('You do not have {card}.').format(card=card)\n"
        "    return IllegalAction(msg if card else _('Nothing.'))\n",
        encoding="utf-8")
    src = Source(path)
    refusals = untranslated_refusals(src)
    assert sorted(int(line.split(":")[1]) for line in refusals) == [6, 8, 10], refusals
    markers = bad_markers(src)
    assert any(":12:" in line and "literal" in line for line in markers), markers
    assert any(":14:" in line and "name every placeholder" in line for line in markers), markers
    assert [line.split(":")[1] for line in rebound_gettext(src)] == ["4"]
    assert len(unmarked_phrases(src)) == 1 and "'x.b'" in unmarked_phrases(src)[0]


# --------------------------------------------------------------------------------------------
# at run time


class Marking(NullTranslations):
    """A stand-in catalog that shows what went through it: ``⟨message⟩``."""

    def gettext(self, message):
        return f"⟨{message}⟩"

    def ngettext(self, singular, plural, n):
        return f"⟨{singular if n == 1 else plural}⟩"

    def pgettext(self, context, message):
        return f"⟨{message}⟩"


@pytest.fixture
def marking(monkeypatch):
    """Every language but English translates through :class:`Marking`."""
    monkeypatch.setattr(i18n, "translations", lambda lang: NullTranslations() if lang == "en" else Marking())


@pytest.fixture
def no_catalogs(monkeypatch, tmp_path):
    """No catalog at all (a tree without ``bot/locale``)."""
    i18n.translations.cache_clear()
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)
    yield
    i18n.translations.cache_clear()


def refusal(state, seat: int, action: str) -> str:
    with pytest.raises(IllegalAction) as info:
        state.apply(seat, action)
    return str(info.value)


def chinchon_declined():
    """Two seats, target 50: seat 0 closes, seat 1 reaches 58 and declines to buy back."""
    closer, junk = "3H 4H 5H 9C 9D 9S 2S".split(), "KS QD JC TH 8S 6D 4C".split()
    dealt = closer + junk + ["KC", "QC"]
    pack = dealt + [c for c in FULL_DECK if c not in dealt]
    state = chinchon.GAME.new(2, seed=7, decks=[pack], options={"target": 50})
    state.apply(0, "draw")
    state.apply(0, "close QC")
    state.apply(1, "decline")
    assert state.is_over
    return state


def test_refusals_stay_english_without_a_catalog(no_catalogs):
    with language("vi"):
        assert refusal(phom.GAME.new(2, seed=1), 1, "draw") == "It is not your turn."
        assert refusal(phom.GAME.new(2, seed=1), 0, "discard ZZ") == "ZZ is not a card."
        assert refusal(chan.GAME.new(2, seed=1), 1, "draw") == "It is not your turn."
        assert refusal(concan.GAME.new(2, seed=1), 0, "") == "Empty action."
        assert refusal(tusac.GAME.new(2, seed=1), 0, "fold") == "Unknown action 'fold': use eat, draw, pass or discard."
        assert refusal(chinchon_declined(), 1, "buyback") == "You declined to buy back: you are out of the match."
        assert card_name("GC") == "Green Pháo"


def test_refusals_are_written_in_the_language_current_when_refused(marking):
    state = phom.GAME.new(2, seed=1)
    assert refusal(state, 1, "draw") == "It is not your turn."  # English: no catalog needed
    with language("vi"):
        assert refusal(state, 1, "draw") == "⟨It is not your turn.⟩"
        assert refusal(state, 0, "discard ZZ") == "⟨ZZ is not a card.⟩"
        assert refusal(chan.GAME.new(2, seed=1), 0, "discard 2V 3V") == "⟨Name exactly one card.⟩"
        assert refusal(concan.GAME.new(2, seed=1), 0, "draw") == "⟨Your first turn of the round is a discard only.⟩"
        # Tứ Sắc names its cards in the reader's language too (the colour; the piece stays Vietnamese)
        assert card_name("GC") == "⟨⟨Green⟩ Pháo⟩"
        tusac_state = tusac.GAME.new(2, seed=1)
        missing = next(code for code in tusac.CODES if not tusac_state.private[0][code] and code[1] != "K")
        assert refusal(tusac_state, 0, f"discard {missing}") == f"⟨You do not have {card_name(missing)}.⟩"
    # a refusal kept as a reason (Chinchón's buy-back) is written when the seat asks, in its language
    state = chinchon_declined()
    with language("es"):
        assert refusal(state, 1, "buyback") == "⟨You declined to buy back: you are out of the match.⟩"
    assert refusal(state, 1, "buyback") == "You declined to buy back: you are out of the match."


def test_plural_refusals_use_ngettext(marking):
    closer, junk = "3H 4H 5H 9C 9D 9S 2S".split(), "KS QD JC TH 8S 6D 4C".split()
    dealt = closer + junk + ["KC", "QC"]
    state = chinchon.GAME.new(2, seed=7, decks=[dealt + [c for c in FULL_DECK if c not in dealt]])
    state.apply(0, "draw")
    with language("vi"):
        assert refusal(state, 0, "close 9S") == ("⟨You cannot close: 4 unmatched cards (2S, 9D, 9C, QC) — at most "
                                                 "one worth ≤ 5.⟩")


def test_lists_in_refusals_follow_the_language():
    """Concan's joker choices are joined as the current language writes a choice."""
    state = concan.GAME.new(2, seed=1)
    state.hands[0] = concan.Counter(["5H", "6H", "JK", "9C", "2D"])
    state.step = "play"
    assert refusal(state, 0, "open 5H 6H JK") == "Say what the joker stands for: JK=7H or JK=4H."
    with language("vi"):
        assert refusal(state, 0, "open 5H 6H JK").endswith("JK=7H hoặc JK=4H.")
    with language("es"):
        assert refusal(state, 0, "open 5H 6H JK").endswith("JK=7H o JK=4H.")
