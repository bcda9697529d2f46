"""The players' languages: English (the source), Vietnamese and Spanish.

Messages are marked in the code with ``_()`` (``ngettext()`` for plurals, ``pgettext()``
with a context for short words such as command names) and live in gettext catalogs managed
with Babel: ``bot/locale/chieu.pot`` (extracted), ``bot/locale/<lang>/LC_MESSAGES/chieu.po``
(translated). The bot reads the ``.po`` itself, once per language at first use: there is no
compiled ``.mo`` to build or to forget, so every install (``pip install .``, a container, a
checkout) speaks every language. See docs/development.md, "Translations".

Whose language a message speaks is set by whoever builds it, with :func:`language`: a private
reply follows the clicker's Discord locale, a DM its player's language, a table message the
table's language. The setting lives in a context variable, so concurrent tables never mix.
Nothing here imports discord: engines may mark their refusals too.
"""

from __future__ import annotations

import contextlib
import io
import logging
from contextvars import ContextVar
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

log = logging.getLogger(__name__)

DOMAIN = "chieu"
LOCALE_DIR = Path(__file__).with_name("locale")
#: language code -> its own name, as players pick it
LANGUAGES: dict[str, str] = {"en": "English", "vi": "Tiếng Việt", "es": "Español"}
DEFAULT = "en"
#: Discord locales with a translation of their own (Discord's codes)
DISCORD_LOCALES: dict[str, str] = {"vi": "vi", "es-ES": "es", "es-419": "es"}

_current: ContextVar[str] = ContextVar("chieu_language", default=DEFAULT)


def normalize(code: str | None) -> str:
    """A supported language for a Discord locale or language code (``"es-419"`` -> ``"es"``);
    English for anything else."""
    if not code:
        return DEFAULT
    code = str(code)
    if code in LANGUAGES:
        return code
    return DISCORD_LOCALES.get(code) or (code.split("-")[0] if code.split("-")[0] in LANGUAGES else DEFAULT)


@lru_cache(maxsize=None)
def translations(lang: str) -> NullTranslations:
    """The catalog of ``lang``, read from its ``.po`` at first use (English: no catalog, messages
    are their own text). Fuzzy and untranslated entries stay English, as gettext would have them."""
    if lang == DEFAULT:
        return NullTranslations()
    path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    try:
        with path.open("rb") as po:
            catalog = read_po(po, locale=lang, domain=DOMAIN)
    except FileNotFoundError:
        log.warning("no %s catalog at %s: messages stay English", lang, path)
        return NullTranslations()
    # compiled in memory: gettext's own reader then gives the plural rule and the contexts
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def current() -> str:
    return _current.get()


@contextlib.contextmanager
def language(lang: str | None) -> Iterator[str]:
    """Messages built inside speak ``lang``."""
    token = _current.set(normalize(lang))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translations(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the current language (Vietnamese has one
    form, Spanish two); format ``{n}`` yourself."""
    return translations(_current.get()).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` as meant in ``context`` (e.g. ``"command name"``), in the current language."""
    return str(translations(_current.get()).pgettext(context, message))


def N_(message: str) -> str:
    """Marks ``message`` for extraction only: it is translated where it is shown (templates kept
    in tables, button labels defined at import time)."""
    return message


def C_(context: str, message: str) -> str:
    """Marks ``message`` in ``context`` for extraction only (translated with :func:`pgettext`)."""
    return message


def in_language(lang: str, message: str) -> str:
    """``message`` (an English msgid) in ``lang``, whatever the current language."""
    return translations(normalize(lang)).gettext(message)


def number(value: int | float, *, signed: bool = False) -> str:
    """A number as the current language writes it (``1,234`` / ``1.234``); ``signed``: with +/−."""
    text = format_decimal(abs(value) if signed else value, locale=Locale.parse(_current.get()))
    if signed:
        return ("+" if value > 0 else "−" if value < 0 else "±") + text
    return text


def language_name(code: str) -> str:
    """A language's name as the current language writes it in a sentence (``español`` in
    Spanish, ``tiếng Việt`` in Vietnamese, ``Vietnamese`` in English)."""
    name = Locale.parse(normalize(code)).get_display_name(Locale.parse(_current.get())) or code
    # Vietnamese and Spanish write a language's name in lower case inside a sentence
    return name if _current.get() == "en" else name[:1].lower() + name[1:]


def either(items: list[str]) -> str:
    """Alternatives as the current language lists them (``a, b or c`` / ``a, b hoặc c``)."""
    return format_list(items, style="or", locale=Locale.parse(_current.get()))


def when(moment: datetime) -> str:
    """A date and time as the current language writes it, short."""
    return format_datetime(moment, format="short", locale=Locale.parse(_current.get()))


def day(moment: datetime) -> str:
    """A date as the current language writes it, short (``11/28/26``, ``28/11/26``)."""
    return format_date(moment, format="short", locale=Locale.parse(_current.get()))
