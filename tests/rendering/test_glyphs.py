"""Every character a picture draws has a glyph: in the catalogs, the games' words and symbols,
players' names with emoji, Arabic or Chinese. None is drawn as the font's empty box."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw

from rendering import fonts
from rendering.fonts import FONT_LOCK, font, has_vietnamese, prepare_text
from rendering.shapes import SUIT_CHARS
from rendering.text import text_line
from tests.support.picture_games import CASES, pictures_of_a_game

pytestmark = pytest.mark.skipif(not has_vietnamese(), reason="Noto Sans (rendering/assets/noto) missing")

LOCALE = Path(__file__).resolve().parents[2] / "bot" / "locale"
NAMES = ["🤖 AI 1", "Hòa 🌸", "محمد علي", "李小龍", "Zoë ☕", "👨‍👩‍👧 Family", "Ŋgozi ✨", "Σοφία", "Дмитрий",
         "שרה", "สมชาย", "नेहा", "🇻🇳 Việt", "🃏 Joker"]
# what the code writes besides the catalogs (suits, arrows, markers, the emoji of its lines) and
# the card faces' words
SYMBOLS = "♠♥♦♣ → ← ▶ · — – − × … ≥ “ ” ‘ ’ ★ 🎉 💤 🔴 🏆 🀄 🟢 🟡 🃏 🤖 % # + - / : ( ) [ ] 0123456789 四色牌"
CARD_WORDS = ["A 2 3 4 5 6 7 8 9 10 J Q K", "JK JOKER COMODÍN", "Chi chi", "萬 文 索 枝"]
MISSING = "\U0010fffd"  # a private-use code point: no font has it


def catalog_strings() -> list[str]:
    strings = []
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as handle:
            for message in read_po(handle):
                for text in (message.id if isinstance(message.id, tuple) else (message.id,)):
                    strings.append(text)
                for text in (message.string if isinstance(message.string, tuple) else (message.string,)):
                    strings.append(text or "")
    assert len(strings) > 1000
    return strings


def characters(strings) -> set[str]:
    chars = set()
    for text in strings:
        for ch in prepare_text(text):
            if not ch.isspace() and ch not in SUIT_CHARS and unicodedata.category(ch) != "Cf" \
                    and not "\ufe00" <= ch <= "\ufe0f":
                chars.add(ch)
    return chars


def crop(mask: Image.Image) -> bytes:
    box = mask.getbbox()
    return mask.crop(box).tobytes() if box else b""


def box_mask() -> bytes:
    """The primary font's .notdef glyph (an empty box), drawn as Pillow draws a character the
    font lacks, its ink only."""
    image = Image.new("L", (60, 60), 0)
    with FONT_LOCK:
        ImageDraw.Draw(image).text((10, 40), MISSING, font=font(20), fill=255, anchor="ls")
    return crop(image)


def drawn_mask(ch: str) -> bytes:
    """``ch`` as the pictures' text drawing draws it, its ink only."""
    return crop(text_line(ch, 20, False, (255, 255, 255)).layers[0][1])


def in_cmap(ch: str) -> bool:
    """Whether a face of the chain maps ``ch`` to a glyph, read with fontTools on its own."""
    for path in fonts.CHAIN:
        with TTFont(str(path), lazy=True, fontNumber=0) as face:
            if ord(ch) in (face.getBestCmap() or {}):
                return True
    return False


def assert_every_glyph(strings) -> None:
    chars = sorted(characters(strings))
    box = box_mask()
    # a mark (a Devanagari vowel sign) is drawn over the letter before it, not alone
    boxes = [ch for ch in chars if not unicodedata.category(ch).startswith("M") and drawn_mask(ch) in (box, b"")]
    assert not boxes, "drawn as an empty box, or not at all: " + " ".join(f"{c} U+{ord(c):04X}" for c in boxes)
    missing = [ch for ch in chars if fonts.face_of(ch) is None]
    assert not missing, "no font of the chain draws " + " ".join(f"{c} U+{ord(c):04X}" for c in missing)


def test_the_chain_has_a_symbol_emoji_arabic_and_chinese_face():
    names = " ".join(p.name for p in fonts.CHAIN)
    for wanted in ("NotoSans", "NotoSansSymbols", "NotoSansArabic", "NotoEmoji", "CJK"):
        assert wanted in names, (wanted, names)


def test_every_catalog_string_is_drawn():
    assert_every_glyph(catalog_strings())


def test_every_symbol_and_card_word_is_drawn():
    assert_every_glyph([SYMBOLS] + CARD_WORDS)
    for ch in "→←▶":
        assert in_cmap(ch)


def test_names_with_emoji_arabic_chinese_are_drawn():
    assert_every_glyph(NAMES)
    for ch in characters(NAMES):
        assert in_cmap(ch), ch


def test_each_faces_character_map_is_read_as_fonttools_reads_it():
    """rendering.cmap reads the cmaps itself (fontTools is 30 MB, for the tests only)."""
    for index, path in enumerate(fonts.CHAIN):
        number = fonts._collection_index(path)
        with TTFont(str(path), lazy=True, fontNumber=number) as face:
            notdef = face.getGlyphOrder()[0]
            expected = {point for point, glyph in (face.getBestCmap() or {}).items() if glyph != notdef}
            if path.suffix == ".ttc":
                assert face["name"].getDebugName(1).endswith(" SC"), "Chinese names in Simplified Chinese letters"
        assert fonts.chain_cmap(index) == expected, path.name


def test_the_arrow_is_not_a_box():
    """"→" in the Chắn winner's line and every Chinchón and Concan round row was an empty box."""
    box = box_mask()
    for ch in "→🤖م李":
        assert drawn_mask(ch) not in (box, b""), ch


def test_a_character_no_font_has_is_replaced_legibly():
    assert fonts.face_runs(prepare_text("a\ue000b")) == ((0, "a?b"),)
    assert "".join(piece for _, piece in fonts.face_runs(prepare_text("Lan\u200d"))) == "Lan"  # ZWJ dropped
    assert fonts.face_runs("🤖 AI 1")[1] == (0, " AI 1")  # the space after an emoji is Noto Sans's
    assert drawn_mask(MISSING) == drawn_mask("?")


@pytest.mark.parametrize("game,players", [case for case in CASES if case[1] != 2])
def test_every_string_the_games_draw_is_drawn(game, players):
    """The text of every table, round and result picture of a seeded game: its strings are
    caught as they are drawn."""
    import rendering.text as text

    seen: list[str] = []
    original = text.text_line.__wrapped__

    def spy(line, *args, **kwargs):
        seen.append(line)
        return original(line, *args, **kwargs)

    text.text_line.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as patch:
            for module in ("rendering.text", "rendering.compose", "rendering.layout"):
                patch.setattr(f"{module}.text_line", spy)
            for _ in pictures_of_a_game(game, players):
                pass
    finally:
        text.text_line.cache_clear()
    assert seen
    assert_every_glyph(seen)
