"""Fonts that need nothing from the operating system.

Order of preference:

1. **Noto Sans**, vendored in ``assets/noto/`` (OFL-1.1, a variable font with weight and width
   axes, full Vietnamese coverage).
2. Pillow's bundled **Aileron** (``ImageFont.load_default(size=...)``), which ships inside the
   Pillow wheel but has no Vietnamese letters (not even ``é``): with it, text goes through
   :func:`strip_diacritics` first ("Móm · 55 điểm" -> "Mom · 55 diem").

With Noto Sans, a character it lacks (→, emoji, Arabic, Chinese...) is drawn with the first
face of a fallback chain that has it (:data:`CHAIN`, see below). System fonts are never
consulted, so a machine renders the same pixels whatever it has installed. Suit symbols are never taken from a font: :mod:`rendering.text` draws them as vector
shapes (:mod:`rendering.shapes`).

FreeType faces are not safe to use from two threads at once, so every use of a font object
(measuring or drawing) must hold :data:`FONT_LOCK`.
"""

from __future__ import annotations

import os
import threading
import unicodedata
from functools import lru_cache
from pathlib import Path

from PIL import ImageFont, features

from . import cmap

__all__ = [
    "CHAIN",
    "FONT_LOCK",
    "chain_names",
    "cjk_font",
    "face_font",
    "face_of",
    "face_runs",
    "font",
    "font_name",
    "has_cjk",
    "has_glyph",
    "has_vietnamese",
    "prepare_text",
    "replacement",
    "strip_diacritics",
    "warm_chain",
]

#: Held around every FreeType call (measuring, drawing, loading).
FONT_LOCK = threading.RLock()

# Set CHIEU_RENDER_FONT=default to force the Pillow fallback (used by tests and for checking
# what a machine without the fonts would show); CHIEU_RENDER_FONT=no-cjk renders as an install
# without the ``cjk`` extra does.
_ENV_FORCE = "CHIEU_RENDER_FONT"

#: The Noto fonts the repository ships (OFL-1.1: assets/noto/OFL.txt, README.md there).
NOTO_DIR = Path(__file__).with_name("assets") / "noto"


def _forced() -> str:
    return os.environ.get(_ENV_FORCE, "").lower()


def _noto_path() -> Path | None:
    path = NOTO_DIR / "NotoSans[wdth,wght].ttf"
    return None if _forced() == "default" or not path.is_file() else path


_NOTO: Path | None = _noto_path()


def has_vietnamese() -> bool:
    """True when the Vietnamese-capable font (Noto Sans) is in use."""
    return _NOTO is not None


def font_name() -> str:
    return "Noto Sans" if _NOTO is not None else "Aileron (Pillow default, diacritics stripped)"


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False, condensed: bool = False) -> ImageFont.FreeTypeFont:
    """The font at ``size`` px. ``bold``/``condensed`` only take effect with Noto Sans.

    Cached; callers must hold :data:`FONT_LOCK` while using the returned object.
    """
    with FONT_LOCK:
        if _NOTO is None:
            return ImageFont.load_default(size=size)  # type: ignore[return-value]
        f = ImageFont.truetype(str(_NOTO), size, layout_engine=ImageFont.Layout.BASIC)
        _set_axes(f, bold, condensed)
        return f


# The card faces of Chắn and Tứ Sắc need a few dozen Chinese characters (萬 文 索 枝, the
# numerals, the xiangqi pieces): a subset of Noto Sans CJK (OFL-1.1, see assets/README.md for how
# it was made and how to add characters) lives in the repository: 16 KB instead of 16 MB.
CJK_FONT_PATH = Path(__file__).with_name("assets") / "NotoSansCJK-cards.otf"


@lru_cache(maxsize=32)
def cjk_font(size: int) -> ImageFont.FreeTypeFont:
    """The card-face CJK font at ``size`` px; hold :data:`FONT_LOCK` while using it."""
    with FONT_LOCK:
        return ImageFont.truetype(str(CJK_FONT_PATH), size, layout_engine=ImageFont.Layout.BASIC)


def _set_axes(f: ImageFont.FreeTypeFont, bold: bool, condensed: bool) -> None:
    """Weight 700 or 400 and width 75 or 100, on the axes a variable font has; nothing on a
    static one."""
    try:
        found = f.get_variation_axes()
    except OSError:  # not a variable font
        return
    axes = []
    for axis in found:
        name = axis["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        if name.lower().startswith("weight"):
            axes.append(max(axis["minimum"], min(axis["maximum"], 700 if bold else 400)))
        elif name.lower().startswith("width"):
            axes.append(max(axis["minimum"], min(axis["maximum"], 75 if condensed else 100)))
        else:
            axes.append(axis.get("default", axis["minimum"]))
    f.set_variation_by_axes(axes)


# ---------------------------------------------------------------------------- the fallback chain
#
# Noto Sans has no arrow (→), no emoji, no Arabic, no Chinese. Text is drawn in runs, each
# character with the first face of CHAIN that has it (its cmap, read once: rendering.cmap):
# Noto Sans; Noto Sans Symbols (→ ← ▶ ★...); the Noto Sans of other scripts (Arabic, Hebrew,
# Thai, Devanagari...) and Noto Emoji (monochrome outlines, drawn in the text's colour), all
# vendored in assets/noto; Noto Sans CJK (Chinese, Japanese, Korean names) from the
# ``manimgx-fonts-cjk`` package when the ``cjk`` extra is installed (32 MB: the image has it,
# a plain ``pip install chieu`` does not); the repository's CJK subset of the cards' words. A
# character no face has is drawn as its ASCII transliteration ("ǅ" -> "DZ") or "?", never as
# an empty box (and table pictures leave it out: rendering.table_picture.printable);
# invisible format characters (zero-width joiner, variation selectors) are dropped.

_SYMBOL_STEMS = ("NotoSansSymbols", "NotoSansSymbols2", "NotoSansMath")
_EMOJI_STEMS = ("NotoEmoji",)


def _font_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*")
                  if p.suffix.lower() in (".ttf", ".otf", ".ttc") and "Italic" not in p.name)


#: Noto Sans CJK from Debian's fonts-noto-cjk (the image's, with its licence in the package):
#: used when the ``cjk`` extra is not installed
SYSTEM_CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


def _cjk_files() -> list[Path]:
    """Noto Sans CJK's files, from the ``cjk`` extra, else from Debian's fonts-noto-cjk (none
    when neither is installed)."""
    if _forced() in ("default", "no-cjk"):
        return []
    try:
        import manimgx_fonts_cjk  # type: ignore[import-not-found]
    except ImportError:
        return [SYSTEM_CJK] if SYSTEM_CJK.is_file() else []
    return [p for p in _font_files(Path(manimgx_fonts_cjk.__file__).resolve().parent) if "Mono" not in p.name]


def has_cjk() -> bool:
    """Whether Chinese, Japanese and Korean names are drawn (the ``cjk`` extra is installed)."""
    return any("CJK" in p.name and p != CJK_FONT_PATH for p in CHAIN)


def _stem(path: Path) -> str:
    return path.name.split("[")[0].split("-")[0].split(".")[0]


def _chain_paths() -> tuple[Path, ...]:
    if _NOTO is None:
        return ()
    noto = _font_files(NOTO_DIR)
    by_stem = {_stem(p): p for p in noto}
    symbols = [by_stem[s] for s in _SYMBOL_STEMS if s in by_stem]
    emoji = [by_stem[s] for s in _EMOJI_STEMS if s in by_stem]
    scripts = [p for p in noto if _stem(p) not in (*_SYMBOL_STEMS, *_EMOJI_STEMS, "NotoSans")]
    return (_NOTO, *symbols, *scripts, *emoji, *_cjk_files()[:1], CJK_FONT_PATH)


#: The faces text is drawn with, in order of preference: Noto Sans (:func:`font`) first.
#: Empty with the Pillow fallback.
CHAIN: tuple[Path, ...] = _chain_paths()


@lru_cache(maxsize=None)
def _collection_index(path: Path) -> int:
    """Which font of a collection (``.ttc``) to use: Noto Sans CJK's Simplified Chinese one."""
    if path.suffix.lower() != ".ttc":
        return 0
    return next((i for i, name in enumerate(cmap.collection_names(path)) if name.endswith(" SC")), 0)


@lru_cache(maxsize=None)
def chain_cmap(index: int) -> frozenset[int]:
    """The code points face ``index`` of :data:`CHAIN` has a glyph for."""
    path = CHAIN[index]
    return cmap.code_points(path, _collection_index(path))


def _ignorable(ch: str) -> bool:
    """Invisible characters that only steer shaping (ZWJ, variation selectors, tags...)."""
    return unicodedata.category(ch) == "Cf" or "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef"


@lru_cache(maxsize=8192)
def face_of(ch: str) -> int | None:
    """The index in :data:`CHAIN` of the first face with a glyph for ``ch``; None when no face
    has one, or when there is no chain (the Pillow fallback)."""
    point = ord(ch)
    for index in range(len(CHAIN)):
        if point in chain_cmap(index):
            return index
    return None


def has_glyph(ch: str) -> bool:
    """Whether the text drawing shows ``ch`` as itself: some face has it, or it is a space or
    an invisible format character."""
    if not CHAIN:  # the Pillow fallback: ask the font
        return _default_has(ch)
    return ch.isspace() or _ignorable(ch) or face_of(ch) is not None


@lru_cache(maxsize=4096)
def _default_has(ch: str) -> bool:
    with FONT_LOCK:
        f = font(20)
        missing = f.getmask("\uffff")
        mask = f.getmask(ch)
        return not (mask.size == missing.size and bytes(mask) == bytes(missing))


@lru_cache(maxsize=4096)
def replacement(ch: str) -> str:
    """What is drawn for a character no face has: its ASCII transliteration, else "?"."""
    ascii_ = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return "".join(c for c in ascii_ if c.isprintable()) or "?"


#: Fallback faces are laid out with Raqm (HarfBuzz shaping, FriBiDi ordering: joined Arabic
#: letters, right to left) when Pillow has it; else with the BASIC engine, which sets glyphs
#: left to right, unshaped, so right-to-left runs are reversed first.
_FALLBACK_LAYOUT = (ImageFont.Layout.RAQM if features.check_feature("raqm") else ImageFont.Layout.BASIC)


def _visual(piece: str) -> str:
    """A run of right-to-left letters in the order it is read on screen, for the BASIC engine."""
    if _FALLBACK_LAYOUT == ImageFont.Layout.RAQM:
        return piece
    return piece[::-1] if piece and unicodedata.bidirectional(piece[0]) in ("R", "AL") else piece


@lru_cache(maxsize=2048)
def face_runs(text: str) -> tuple[tuple[int, str], ...]:
    """``text`` (already :func:`prepare_text`-ed) cut into runs of one face each: (index in
    :data:`CHAIN`, piece). Characters no face has are replaced (:func:`replacement`), invisible
    format characters dropped, right-to-left runs put in visual order. Without a chain (the
    Pillow fallback) the whole text is one run of face 0."""
    if not CHAIN:
        return ((0, text),) if text else ()
    faces: list[tuple[int | None, str]] = []  # None: a space, drawn with its neighbours' face
    for ch in text:
        if _ignorable(ch):
            continue
        if ch.isspace():
            faces.append((None, ch))
            continue
        index = face_of(ch)
        if index is not None:
            faces.append((index, ch))
        else:
            faces += [(face_of(sub) or 0, sub) for sub in replacement(ch)]
    runs: list[list] = []
    for k, (face, ch) in enumerate(faces):
        if face is None:  # between two letters of one fallback face (two Arabic words), in it; else Noto Sans
            before = runs[-1][0] if runs else 0
            after = next((f for f, _ in faces[k + 1:] if f is not None), 0)
            face = before if before == after else 0
        if runs and runs[-1][0] == face:
            runs[-1][1] += ch
        else:
            runs.append([face, ch])
    return tuple((face, _visual(piece)) for face, piece in runs)


@lru_cache(maxsize=128)
def face_font(index: int, size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """Face ``index`` of :data:`CHAIN` at ``size`` px (0 is :func:`font`); hold :data:`FONT_LOCK`
    while using it."""
    if index == 0 or not CHAIN:
        return font(size, bold)
    path = CHAIN[index]
    with FONT_LOCK:
        f = ImageFont.truetype(str(path), size, index=_collection_index(path), layout_engine=_FALLBACK_LAYOUT)
        _set_axes(f, bold, False)
        return f


def warm_chain() -> int:
    """Read every face's cmap now (about 15 ms with Noto Sans CJK; fontTools took 0.25 s), e.g.
    at start-up, rather than at the first name that needs a fallback. Returns how many faces."""
    for index in range(len(CHAIN)):
        chain_cmap(index)
    return len(CHAIN)


def chain_names() -> list[str]:
    """The chain's faces by file name (for reports)."""
    return [p.name for p in CHAIN]


_FALLBACK_MAP = str.maketrans({
    "đ": "d", "Đ": "D", "—": "-", "–": "-", "…": "...", "“": '"', "”": '"', "‘": "'", "’": "'",
    "→": "->", "←": "<-", "×": "x",
})


def strip_diacritics(text: str) -> str:
    """ASCII-ish Vietnamese: drop combining marks, đ -> d, fancy dashes -> '-'."""
    text = text.translate(_FALLBACK_MAP)
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def prepare_text(text: str) -> str:
    """Normalise ``text`` for the active font (NFC; stripped when the font lacks Vietnamese).

    NFC matters: the BASIC layout engine draws one glyph per code point, so a decomposed
    "e + combining hook" would put the mark in its own cell.
    """
    text = unicodedata.normalize("NFC", text)
    if _NOTO is None:
        text = strip_diacritics(text)
    return text
