"""Hand images: PNG validity, selection, marks, wrapping, text, async."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from rendering import render_hand, render_hand_async
from rendering.compose import THEME, plan_cards
from rendering.fonts import has_vietnamese, strip_diacritics
from rendering.hand import HAND_THEME, hand_image, hand_plan
from rendering.sprites import get_deck
from rendering.text import text_line
from tests.support.uploads import assert_close_upload

HAND = [["3H", "4H", "5H"], ["7C", "7D", "7S"], ["2S", "KD", "AC", "TD"]]
DECK = get_deck("french")
INNER = THEME.max_width - 2 * THEME.padding


def _pixels(img: Image.Image) -> list:
    get = getattr(img, "get_flattened_data", None) or img.getdata  # Pillow 12.1+ / older
    return list(get())


def _felt(px, tol: int = 12) -> bool:
    """Background, possibly under a soft card shadow."""
    return all(abs(a - b) <= tol for a, b in zip(px, THEME.background))


def _open(png: bytes) -> Image.Image:
    """The upload decoded, in RGB (it is a palette PNG)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(png))
    img.load()
    assert img.mode == "P"
    return img.convert("RGB")


def test_valid_png_of_expected_size():
    png = render_hand(HAND, title="Your hand — your turn", caption="Leftover 16 points")
    img = _open(png)
    assert_close_upload(png, hand_image(HAND, title="Your hand — your turn", caption="Leftover 16 points"))
    assert len(png) < 12_000  # 8 KB; the RGB PNG was 25 KB
    w, h = img.size
    assert 400 <= w <= HAND_THEME.max_width
    assert 150 <= h <= 320
    # the corner pixel is felt (the palette's felt: within a level or two)
    assert _felt(img.getpixel((1, 1)), tol=2)


def test_render_is_deterministic():
    assert render_hand(HAND, selected=[2]) == render_hand(HAND, selected=[2])


def _strip(slot_index: int, groups=HAND):
    plan = hand_plan(groups, DECK)
    slot = next(s for s in plan.slots if s.index == slot_index)
    x0 = HAND_THEME.padding + slot.x
    return x0 + 6, x0 + slot.visible - 6


def test_selected_card_is_raised():
    plain = _open(render_hand(HAND))
    sel = _open(render_hand(HAND, selected=[4]))
    assert plain.size == sel.size            # the image does not jump when selecting
    x0, x1 = _strip(4)
    pad, lift = HAND_THEME.padding, HAND_THEME.raise_px
    band = (x0, pad + 3, x1, pad + lift - 3)  # above the unraised card top
    assert all(_felt(px) for px in _pixels(plain.crop(band)))
    raised = _pixels(sel.crop(band))
    assert sum(1 for px in raised if min(px) > 200) > 0.8 * len(raised)   # white card face
    # nothing else moved: the left groups are identical
    lx0, _ = _strip(0)
    assert plain.crop((0, 0, x0 - 30, plain.height)).tobytes() == \
        sel.crop((0, 0, x0 - 30, sel.height)).tobytes()


def test_marked_card_gets_a_highlight_bar():
    img = _open(render_hand(HAND, marked=[1]))
    x0, x1 = _strip(1)
    bar_y = HAND_THEME.padding + HAND_THEME.raise_px + DECK.card_size[1] + HAND_THEME.bar_gap + 1
    px = img.getpixel(((x0 + x1) // 2, bar_y))
    assert px == pytest.approx(THEME.marked, abs=30)
    other = img.getpixel(((sum(_strip(0))) // 2, bar_y))
    assert _felt(other)


def test_zero_to_25_cards():
    codes = DECK.codes()
    for n in range(0, 26):
        img = _open(render_hand([codes[:n]], selected=[n - 1] if n else ()))
        assert HAND_THEME.min_width <= img.width <= HAND_THEME.max_width


def test_25_card_hand_wraps_within_width_limit():
    codes = DECK.codes()
    one_group = _open(render_hand([codes[:25]]))
    singles = _open(render_hand([[c] for c in codes[:25]], title="t", caption="c"))
    assert one_group.width <= HAND_THEME.max_width
    assert singles.width <= HAND_THEME.max_width
    assert singles.height > one_group.height + DECK.card_size[1]  # a second row at least
    plan = plan_cards([[c] for c in codes[:25]], DECK, INNER, THEME.group_gap)
    assert plan.rows >= 2
    assert [s.index for s in plan.slots] == list(range(25))
    assert max(s.x for s in plan.slots) + DECK.card_size[0] <= INNER


def test_21_cards_in_groups_fit_one_row():
    codes = DECK.codes()
    groups = [codes[0:4], codes[13:18], codes[26:29], codes[39:45], codes[45:48]]
    plan = plan_cards(groups, DECK, INNER, THEME.group_gap)
    assert plan.rows == 1 and len(plan.slots) == 21


def test_long_group_splits_across_rows():
    codes = DECK.codes()
    plan = plan_cards([codes[:40]], DECK, INNER, THEME.group_gap)
    assert plan.rows == 2
    assert plan.width <= INNER


def test_vietnamese_caption_renders():
    png = render_hand(HAND, title="Bài của Đức — lượt bạn",
                      caption="Móm · 55 điểm · Phỏm ăn chốt · ù đền · 7♥ 8♦ 9♠ T♣")
    _open(png)


@pytest.mark.skipif(not has_vietnamese(), reason="Noto Sans (rendering/assets/noto) missing")
def test_vietnamese_glyphs_are_real_glyphs():
    # with a font lacking them, each accented letter would draw the same .notdef box
    masks = {text_line(ch, 20, False, (255, 255, 255)).layers[0][1].tobytes()
             for ch in "óỏđểĐứăù"}
    assert len(masks) == 8


def test_strip_diacritics_fallback():
    assert strip_diacritics("Móm · 55 điểm — Đức") == "Mom · 55 diem - Duc"


def test_fallback_font_renders_without_the_font_package():
    code = ("from rendering import render_hand; from rendering.fonts import has_vietnamese;"
            "assert not has_vietnamese();"
            "png = render_hand([['AS','TD']], caption='Móm · 55 điểm', title='Đức');"
            "assert png[:4] == b'\\x89PNG'")
    env = dict(os.environ, CHIEU_RENDER_FONT="default")
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=root, timeout=60)


def test_invalid_card_raises():
    with pytest.raises(ValueError):
        render_hand([["AS", "ZZ"]])


def test_renders_in_parallel_threads_agree():
    expected = render_hand(HAND, selected=[1], caption="x")
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: render_hand(HAND, selected=[1], caption="x"), range(8)))
    assert all(r == expected for r in results)


async def test_async_returns_same_bytes():
    kwargs = dict(marked=[1], selected=[3], caption="Leftover 16 points", title="Your hand")
    assert await render_hand_async(HAND, **kwargs) == render_hand(HAND, **kwargs)
