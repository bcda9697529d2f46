"""Which characters a font file draws, and its family's name, read from the file itself.

The fallback chain (:mod:`rendering.fonts`) needs to know, for each face, which code points it
maps to a glyph: OpenType's ``cmap`` table. Pillow cannot say, and fontTools (30 MB installed)
was only ever used for this, so the two subtable formats every font of the chain has are read
here: format 4 (the Basic Multilingual Plane) and format 12 (every plane), and the ``name``
table for the family's name (to pick Noto Sans CJK SC out of its collection). A collection
(``.ttc``) holds several fonts; ``index`` says which. Files are mapped, not read: Noto Sans CJK
is 32 MB. tests/rendering/test_glyphs.py checks the result against fontTools for every face.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

__all__ = ["code_points", "collection_names"]

# fontTools' getBestCmap order: Unicode full repertoire first, then the BMP-only subtables
_PREFERRED = ((3, 10), (0, 6), (0, 4), (3, 1), (0, 3), (0, 2), (0, 1), (0, 0))


def _mapped(path: Path):
    with open(path, "rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def _font_starts(data) -> list[int]:
    """Where each font's table directory starts: one font, or each of a collection's."""
    if data[:4] != b"ttcf":
        return [0]
    (count,) = struct.unpack_from(">I", data, 8)
    return list(struct.unpack_from(f">{count}I", data, 12))


def _tables(data, start: int) -> dict[bytes, int]:
    (count,) = struct.unpack_from(">H", data, start + 4)
    found = {}
    for k in range(count):
        tag, _checksum, offset, _length = struct.unpack_from(">4sIII", data, start + 12 + 16 * k)
        found[tag] = offset
    return found


def _format4(data, at: int) -> set[int]:
    (seg_x2,) = struct.unpack_from(">H", data, at + 6)
    segs = seg_x2 // 2
    ends = struct.unpack_from(f">{segs}H", data, at + 14)
    starts_at = at + 16 + seg_x2
    starts = struct.unpack_from(f">{segs}H", data, starts_at)
    deltas = struct.unpack_from(f">{segs}h", data, starts_at + seg_x2)
    range_at = starts_at + 2 * seg_x2
    range_offsets = struct.unpack_from(f">{segs}H", data, range_at)
    points: set[int] = set()
    for k in range(segs):
        start, end, delta, range_offset = starts[k], ends[k], deltas[k], range_offsets[k]
        if start == 0xFFFF:  # the closing segment
            continue
        if range_offset == 0:
            points.update(c for c in range(start, end + 1) if (c + delta) & 0xFFFF)
            continue
        base = range_at + 2 * k + range_offset
        for c in range(start, end + 1):
            (glyph,) = struct.unpack_from(">H", data, base + 2 * (c - start))
            if glyph and (glyph + delta) & 0xFFFF:
                points.add(c)
    return points


def _format12(data, at: int) -> set[int]:
    (groups,) = struct.unpack_from(">I", data, at + 12)
    points: set[int] = set()
    for k in range(groups):
        first, last, glyph = struct.unpack_from(">III", data, at + 16 + 12 * k)
        points.update(range(first + (glyph == 0), last + 1))  # glyph 0 is the empty box
    return points


_READERS = {4: _format4, 12: _format12}


def code_points(path: Path | str, index: int = 0) -> frozenset[int]:
    """The code points font ``index`` of the file maps to a glyph (not to the empty box)."""
    with _mapped(Path(path)) as data:
        cmap = _tables(data, _font_starts(data)[index])[b"cmap"]
        _version, count = struct.unpack_from(">HH", data, cmap)
        subtables = {}
        for k in range(count):
            platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * k)
            subtables.setdefault((platform, encoding), cmap + offset)
        for key in _PREFERRED:
            at = subtables.get(key)
            if at is not None:
                (form,) = struct.unpack_from(">H", data, at)
                if form in _READERS:
                    return frozenset(_READERS[form](data, at))
    return frozenset()


def _family(data, start: int) -> str:
    name = _tables(data, start)[b"name"]
    _form, count, strings = struct.unpack_from(">HHH", data, name)
    found = ""
    for k in range(count):
        platform, _encoding, language, name_id, length, offset = struct.unpack_from(">6H", data, name + 6 + 12 * k)
        if platform == 3 and name_id == 1:
            at = name + strings + offset
            text = bytes(data[at:at + length]).decode("utf-16-be", "replace")
            if language == 0x409:  # English (United States), as fontTools' getDebugName
                return text
            found = found or text
    return found


def collection_names(path: Path | str) -> list[str]:
    """The family name of each font in the file (one for a plain font file)."""
    with _mapped(Path(path)) as data:
        return [_family(data, start) for start in _font_starts(data)]
