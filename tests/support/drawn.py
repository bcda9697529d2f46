"""What a picture draws, caught as it is drawn: each line of text (its words, size, and the box
it is pasted in) and each frame (a rounded rectangle with an outline: a seat's box, a panel),
whatever module of the rendering package draws them."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from PIL import ImageDraw


@dataclass
class Pasted:
    text: str
    size: int
    bold: bool
    x: int
    y: int
    height: int
    width: int = 0

    @property
    def box(self) -> tuple[int, int, int, int]:
        return self.x, self.y, self.x + self.width, self.y + self.height


@dataclass
class Drawn:
    lines: list[Pasted] = field(default_factory=list)
    frames: list[tuple[int, int, int, int]] = field(default_factory=list)  # inside their outline

    def clear(self) -> None:
        self.lines.clear()
        self.frames.clear()

    def frame_of(self, line: Pasted) -> tuple[int, int, int, int] | None:
        """The smallest frame ``line`` starts in, if any."""
        inside = [f for f in self.frames if f[0] <= line.x < f[2] and f[1] <= line.y < f[3]]
        return min(inside, key=lambda f: (f[2] - f[0]) * (f[3] - f[1]), default=None)


def record(monkeypatch, card_sizes: set[tuple[int, int]] = frozenset()) -> Drawn:
    """Record every line of text and frame drawn from now on (``card_sizes``: the outlines of
    those sizes are empty card slots, not frames)."""
    drawn = Drawn()
    made: dict[int, tuple[str, int, bool]] = {}
    keep: list = []
    for name, module in list(sys.modules.items()):  # blocks kept from before hold lines made before
        if name.startswith("rendering."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", "") == name:
                    value.cache_clear()
    for name, module in list(sys.modules.items()):
        if not name.startswith("rendering.") or not hasattr(module, "text_line") or not hasattr(module, "paste_text"):
            continue
        text_line, paste_text = module.text_line, module.paste_text

        def recording_line(text, size, bold, color, *args, _text_line=text_line, **kwargs):
            line = _text_line(text, size, bold, color, *args, **kwargs)
            made[id(line)] = (text, size, bold)
            return line

        def recording_paste(canvas, line, xy, _paste_text=paste_text):
            _paste_text(canvas, line, xy)
            if id(line) in made:
                drawn.lines.append(Pasted(*made[id(line)], xy[0], xy[1], line.height, line.width))

        monkeypatch.setattr(module, "text_line", recording_line)
        monkeypatch.setattr(module, "paste_text", recording_paste)
        if hasattr(module, "crop_line"):  # a cropped line: the same text
            def recording_crop(line, *args, _crop_line=module.crop_line):
                cropped = _crop_line(line, *args)
                if id(line) in made:
                    made[id(cropped)] = made[id(line)]
                keep.append(cropped)  # (its id stays its own while the test runs)
                return cropped

            monkeypatch.setattr(module, "crop_line", recording_crop)
    rounded = ImageDraw.ImageDraw.rounded_rectangle

    def recording_frame(self, xy, radius=0, fill=None, outline=None, width=1, **kwargs):
        rounded(self, xy, radius, fill, outline, width, **kwargs)
        x0, y0, x1, y1 = (int(v) for v in xy)
        # (on the picture: not on a card or a glyph drawn meanwhile, which are RGBA or masks)
        if self.mode == "RGB" and outline is not None and (x1 - x0 + 1, y1 - y0 + 1) not in card_sizes:
            drawn.frames.append((x0 + width, y0 + width, x1 + 1 - width, y1 + 1 - width))

    monkeypatch.setattr(ImageDraw.ImageDraw, "rounded_rectangle", recording_frame)
    return drawn
