"""Fonts that need nothing from the operating system.

Order of preference:

1. **Noto Sans** from the ``fontpkg-noto-sans`` PyPI package (OFL-1.1, a variable font with
   weight and width axes, full Vietnamese coverage).
2. Pillow's bundled **Aileron** (``ImageFont.load_default(size=...)``), which ships inside the
   Pillow wheel but has no Vietnamese letters (not even ``é``): with it, text goes through
   :func:`strip_diacritics` first ("Móm · 55 điểm" -> "Mom · 55 diem").

System fonts are never consulted, so a machine renders the same pixels whatever it has
installed. Suit symbols are never taken from a font: :mod:`rendering.text` draws them as vector
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

from PIL import ImageFont

__all__ = [
    "FONT_LOCK",
    "cjk_font",
    "font",
    "font_name",
    "has_vietnamese",
    "prepare_text",
    "strip_diacritics",
]

#: Held around every FreeType call (measuring, drawing, loading).
FONT_LOCK = threading.RLock()

# Set CHIEU_RENDER_FONT=default to force the Pillow fallback (used by tests and for checking
# what a machine without the font package would show).
_ENV_FORCE = "CHIEU_RENDER_FONT"


def _noto_path() -> Path | None:
    if os.environ.get(_ENV_FORCE, "").lower() == "default":
        return None
    try:
        import fontpkg_noto_sans  # type: ignore[import-not-found]
    except ImportError:
        return None
    files = Path(fontpkg_noto_sans.__file__).resolve().parent / "files"
    for path in sorted(files.glob("NotoSans*.ttf")):
        if "Italic" not in path.name:
            return path
    return None


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
        axes = []
        for axis in f.get_variation_axes():
            name = axis["name"]
            name = name.decode() if isinstance(name, bytes) else str(name)
            if name.lower().startswith("weight"):
                axes.append(700 if bold else 400)
            elif name.lower().startswith("width"):
                axes.append(75 if condensed else 100)
            else:
                axes.append(axis.get("default", axis["minimum"]))
        f.set_variation_by_axes(axes)
        return f


# The card faces of Chắn and Tứ Sắc need a few dozen Chinese characters (萬 文 索 枝, the
# numerals, the xiangqi pieces). No maintained PyPI package ships a CJK font without
# dragging in matplotlib, so a subset of Noto Sans CJK (OFL-1.1, see assets/README.md for how
# it was made and how to add characters) lives in the repository: 16 KB instead of 16 MB.
CJK_FONT_PATH = Path(__file__).with_name("assets") / "NotoSansCJK-cards.otf"


@lru_cache(maxsize=32)
def cjk_font(size: int) -> ImageFont.FreeTypeFont:
    """The card-face CJK font at ``size`` px; hold :data:`FONT_LOCK` while using it."""
    with FONT_LOCK:
        return ImageFont.truetype(str(CJK_FONT_PATH), size, layout_engine=ImageFont.Layout.BASIC)


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
