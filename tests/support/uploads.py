"""What every uploaded picture must be: a palette PNG that decodes to its RGB drawing, nearly."""

from __future__ import annotations

import io

from PIL import Image, ImageChops, ImageStat

from rendering import IMAGE_FORMAT

#: Mean absolute difference per channel from the RGB drawing, in levels of 255 (about 1.1 to
#: 1.5 on real pictures: the palette mapping is exact to a level or two).
MEAN_DIFFERENCE = 2.0
#: The 99.9th percentile of each pixel's worst channel difference: about 10, up to 25 in a hand
#: of Spanish cards (scattered anti-aliased pixels of their coloured art). A colour missing from
#: the palette (a wrong deck's palette: over 50) shows here.
RARE_DIFFERENCE = 30


def upload_difference(data: bytes, image: Image.Image) -> tuple[float, int]:
    """(mean absolute difference per channel, 99.9th percentile of the worst channel's
    difference per pixel) between the decoded upload ``data`` and the RGB ``image``."""
    decoded = Image.open(io.BytesIO(data)).convert("RGB")
    assert decoded.size == image.size
    diff = ImageChops.difference(image.convert("RGB"), decoded)
    mean = sum(ImageStat.Stat(diff).mean) / 3
    red, green, blue = diff.split()
    histogram = ImageChops.lighter(ImageChops.lighter(red, green), blue).histogram()
    wanted, seen = 0.999 * image.width * image.height, 0
    for level, count in enumerate(histogram):
        seen += count
        if seen >= wanted:
            return mean, level
    return mean, 255


def assert_close_upload(data: bytes, image: Image.Image) -> Image.Image:
    """``data`` decodes as an 8-bit palette picture of ``image``'s size, close to it. Returns it decoded."""
    decoded = Image.open(io.BytesIO(data))
    decoded.load()
    assert decoded.format == IMAGE_FORMAT and decoded.mode == "P" and decoded.size == image.size
    assert len(decoded.getcolors(256) or ()) > 16  # a real palette, not a few grey levels
    mean, rare = upload_difference(data, image)
    assert mean <= MEAN_DIFFERENCE and rare <= RARE_DIFFERENCE, (mean, rare)
    return decoded
