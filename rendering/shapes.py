"""Vector shapes drawn with ImageDraw: the four French suits, the four Spanish suits, a star,
rounded-card masks.

Shapes are defined in a unit box and drawn supersampled, then reduced, so they come out
anti-aliased at any size. Everything here returns fresh images or cached ``L`` masks that
callers must not modify.
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter

__all__ = [
    "SUIT_CHARS",
    "draw_suit",
    "draw_spanish_suit",
    "SPANISH_SUIT_ASPECT",
    "draw_star",
    "suit_mask",
    "rounded_mask",
    "outline_mask",
    "shadow_mask",
]

#: Unicode suit characters (filled and outlined) -> suit letter of the notation.
SUIT_CHARS = {
    "♠": "S", "♤": "S",
    "♥": "H", "♡": "H",
    "♦": "D", "♢": "D",
    "♣": "C", "♧": "C",
}

_LOCK = threading.Lock()
_SS = 8  # supersampling factor for masks made at final size


def _tangent_point(cx: float, cy: float, r: float, px: float, py: float, side: int):
    """Point where a line from (px, py) touches the circle; ``side`` picks one of the two."""
    dx, dy = cx - px, cy - py
    d = math.hypot(dx, dy)
    base = math.atan2(-dy, -dx)  # direction from centre to the outside point
    alpha = math.acos(r / d)
    a = base + side * alpha
    return cx + r * math.cos(a), cy + r * math.sin(a)


def _heart_parts(flip: bool, top: float = 0.0, bottom: float = 1.0):
    """Two lobes and the point of a heart (``flip``: point up, as in a spade)."""
    h = bottom - top
    r = 0.255
    lobe_y = top + 0.29 * h if not flip else bottom - 0.29 * h
    tip_y = top + 0.98 * h if not flip else bottom - 0.98 * h
    left = (0.265, lobe_y)
    right = (0.735, lobe_y)
    tip = (0.5, tip_y)
    side = 1 if not flip else -1
    t_left = _tangent_point(*left, r, *tip, side=side)
    t_right = _tangent_point(*right, r, *tip, side=-side)
    return r, left, right, tip, t_left, t_right


def draw_suit(draw: ImageDraw.ImageDraw, suit: str, box: tuple[float, float, float, float],
              fill) -> None:
    """Draw suit ``S``/``H``/``D``/``C`` filling ``box`` (x0, y0, x1, y1) on ``draw``."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0

    def P(u: float, v: float) -> tuple[float, float]:
        return (x0 + u * w, y0 + v * h)

    def circle(cx: float, cy: float, r: float) -> None:
        (ax, ay), (bx, by) = P(cx - r, cy - r), P(cx + r, cy + r)
        draw.ellipse((ax, ay, bx, by), fill=fill)

    suit = suit.upper()
    if suit == "D":
        # slightly concave sides
        pts = []
        n = 12
        corners = [(0.5, 0.0), (0.92, 0.5), (0.5, 1.0), (0.08, 0.5)]
        for i in range(4):
            (ax, ay), (bx, by) = corners[i], corners[(i + 1) % 4]
            for k in range(n):
                t = k / n
                mx, my = ax + (bx - ax) * t, ay + (by - ay) * t
                bulge = -0.035 * math.sin(math.pi * t)
                # pull towards the centre
                cx, cy = 0.5 - mx, 0.5 - my
                norm = math.hypot(cx, cy) or 1.0
                pts.append(P(mx - bulge * cx / norm, my - bulge * cy / norm))
        draw.polygon(pts, fill=fill)
    elif suit == "H":
        r, left, right, tip, tl, tr = _heart_parts(flip=False)
        circle(*left, r)
        circle(*right, r)
        draw.polygon([P(*tl), P(*left), P(0.5, left[1] + 0.05), P(*right), P(*tr), P(*tip)],
                     fill=fill)
    elif suit == "S":
        r, left, right, tip, tl, tr = _heart_parts(flip=True, top=0.0, bottom=0.8)
        circle(*left, r)
        circle(*right, r)
        draw.polygon([P(*tl), P(*left), P(0.5, left[1] - 0.05), P(*right), P(*tr), P(*tip)],
                     fill=fill)
        _stem(draw, P, fill)
    elif suit == "C":
        r = 0.215
        circle(0.5, 0.245, r)
        circle(0.265, 0.56, r)
        circle(0.735, 0.56, r)
        draw.polygon([P(0.5, 0.3), P(0.3, 0.55), P(0.5, 0.66), P(0.7, 0.55)], fill=fill)
        _stem(draw, P, fill)
    else:
        raise ValueError(f"unknown suit {suit!r}")


def _stem(draw: ImageDraw.ImageDraw, P, fill) -> None:
    pts = [P(0.5, 0.55)]
    # concave flanks down to a flat foot
    n = 10
    for k in range(n + 1):
        t = k / n
        pts.append(P(0.5 - 0.17 * t ** 1.8, 0.55 + 0.45 * t))
    for k in range(n, -1, -1):
        t = k / n
        pts.append(P(0.5 + 0.17 * t ** 1.8, 0.55 + 0.45 * t))
    draw.polygon(pts, fill=fill)


def draw_star(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill,
              points: int = 5, inner: float = 0.42) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 + (y1 - y0) * 0.04
    R = min(x1 - x0, y1 - y0) / 2
    pts = []
    for k in range(points * 2):
        a = -math.pi / 2 + k * math.pi / points
        rr = R if k % 2 == 0 else R * inner
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    draw.polygon(pts, fill=fill)


@lru_cache(maxsize=256)
def _suit_mask(suit: str, width: int, height: int) -> Image.Image:
    big = Image.new("L", (width * _SS, height * _SS), 0)
    draw_suit(ImageDraw.Draw(big), suit, (0, 0, width * _SS, height * _SS), 255)
    mask = big.resize((width, height), Image.Resampling.LANCZOS)
    mask.load()
    return mask


def suit_mask(suit: str, width: int, height: int | None = None) -> Image.Image:
    """Anti-aliased ``L`` mask of a suit, ``width`` x ``height`` px (cached, do not modify)."""
    with _LOCK:
        return _suit_mask(suit.upper(), width, height if height is not None else width)


def _rounded(size: tuple[int, int], radius: int, inset: float = 0.0, width: int = 0) -> Image.Image:
    w, h = size
    big = Image.new("L", (w * _SS, h * _SS), 0)
    d = ImageDraw.Draw(big)
    i = inset * _SS
    box = (i, i, w * _SS - 1 - i, h * _SS - 1 - i)
    if width:
        d.rounded_rectangle(box, radius=radius * _SS, outline=255, width=width * _SS)
    else:
        d.rounded_rectangle(box, radius=radius * _SS, fill=255)
    mask = big.resize((w, h), Image.Resampling.BOX)
    mask.load()
    return mask


@lru_cache(maxsize=32)
def _rounded_cached(size, radius, inset, width):
    return _rounded(size, radius, inset, width)


def rounded_mask(size: tuple[int, int], radius: int) -> Image.Image:
    """Filled rounded rectangle mask of ``size`` (cached)."""
    with _LOCK:
        return _rounded_cached(tuple(size), radius, 0.0, 0)


def outline_mask(size: tuple[int, int], radius: int, width: int = 2) -> Image.Image:
    """Rounded-rectangle outline mask of ``size`` with stroke ``width`` (cached)."""
    with _LOCK:
        return _rounded_cached(tuple(size), radius, 0.0, width)


@lru_cache(maxsize=32)
def _shadow(size, radius, blur, strength):
    w, h = size
    m = blur * 2
    mask = Image.new("L", (w + 2 * m, h + 2 * m), 0)
    mask.paste(_rounded(size, radius), (m, m))
    mask = mask.filter(ImageFilter.GaussianBlur(blur))
    mask = mask.point(lambda v: v * strength // 255)
    mask.load()
    return mask


def shadow_mask(size: tuple[int, int], radius: int, blur: int = 3,
                strength: int = 110) -> tuple[Image.Image, int]:
    """Blurred card-shaped mask and its margin (the mask is larger than ``size`` by 2*margin)."""
    with _LOCK:
        return _shadow(tuple(size), radius, blur, strength), blur * 2


# ---------------------------------------------------------------------------- Spanish suits

#: Width / height of each Spanish suit shape: fit a box of this aspect for undistorted pips.
SPANISH_SUIT_ASPECT = {"O": 1.0, "C": 0.78, "E": 0.34, "B": 0.38}


def draw_spanish_suit(draw: ImageDraw.ImageDraw, suit: str,
                      box: tuple[float, float, float, float], fill, detail) -> None:
    """Draw Spanish suit ``O``/``C``/``E``/``B`` filling ``box``, in two colours.

    Oros: a coin (``fill`` disc, ``detail`` rim, inner ring and boss). Copas: a chalice
    (``detail`` lip and knop). Espadas: a sword, point up (``detail`` hilt). Bastos: a
    knotted club, thick end up (``detail`` cut branches). ``box`` should have the aspect of
    :data:`SPANISH_SUIT_ASPECT` or the shape is stretched.
    """
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0

    def P(u: float, v: float) -> tuple[float, float]:
        return (x0 + u * w, y0 + v * h)

    def oval(u0: float, v0: float, u1: float, v1: float, colour) -> None:
        draw.ellipse((*P(u0, v0), *P(u1, v1)), fill=colour)

    suit = suit.upper()
    if suit == "O":
        oval(0.0, 0.0, 1.0, 1.0, detail)
        oval(0.09, 0.09, 0.91, 0.91, fill)
        ring = max(1, round(w * 0.045))
        draw.ellipse((*P(0.24, 0.24), *P(0.76, 0.76)), outline=detail, width=ring)
        oval(0.41, 0.41, 0.59, 0.59, detail)
    elif suit == "C":
        # bowl: the lower half of an ellipse under a flat lip
        bowl = [P(0.5 + 0.5 * math.cos(t), 0.07 + 0.5 * math.sin(t))
                for t in (math.pi * k / 24 for k in range(25))]
        draw.polygon(bowl, fill=fill)
        draw.polygon([P(0.38, 0.5), P(0.62, 0.5), P(0.56, 0.84), P(0.44, 0.84)], fill=fill)
        draw.polygon([P(0.44, 0.82), P(0.56, 0.82), P(0.86, 0.95), P(0.86, 1.0),
                      P(0.14, 1.0), P(0.14, 0.95)], fill=fill)
        oval(0.0, 0.0, 1.0, 0.14, detail)
        oval(0.33, 0.6, 0.67, 0.72, detail)
    elif suit == "E":
        guard_v = 0.7
        draw.polygon([P(0.5, 0.0), P(0.8, 0.1), P(0.72, guard_v), P(0.28, guard_v),
                      P(0.2, 0.1)], fill=fill)
        draw.rounded_rectangle((*P(0.0, guard_v - 0.015), *P(1.0, guard_v + 0.055)),
                               radius=h * 0.035, fill=detail)
        draw.rectangle((*P(0.36, guard_v + 0.05), *P(0.64, 0.93)), fill=detail)
        oval(0.22, 0.88, 0.78, 1.0, detail)
    elif suit == "B":
        # a tapering club with a round head; cut-off branches stick out left, right, left
        oval(0.12, 0.0, 0.88, 0.26, fill)
        draw.polygon([P(0.12, 0.13), P(0.88, 0.13), P(0.66, 0.96), P(0.34, 0.96)], fill=fill)
        oval(0.34, 0.92, 0.66, 1.0, fill)
        for v, side in ((0.4, -1), (0.6, 1), (0.8, -1)):
            tip = 0.5 + side * 0.48
            draw.polygon([P(0.5, v - 0.03), P(tip, v - 0.075), P(tip, v + 0.005),
                          P(0.5, v + 0.07)], fill=fill)
            oval(tip - 0.1, v - 0.075, tip + 0.1, v + 0.005, detail)
    else:
        raise ValueError(f"unknown Spanish suit {suit!r}")
