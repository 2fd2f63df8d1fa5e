"""Photos as a phone stores them: the sensor's frame, and the EXIF tag saying how to turn
it upright (a portrait photo is stored landscape with "rotate 90", orientation 6)."""

from __future__ import annotations

import io

import cv2
import numpy as np


def with_orientation(pixels: np.ndarray, orientation: int, kind: str = "jpeg",
                     quality: int = 75) -> bytes:
    """``pixels`` (BGR) encoded as stored, with EXIF ``orientation`` (1-8)."""
    from PIL import Image

    image = Image.fromarray(pixels[:, :, ::-1])
    exif = image.getexif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    if kind == "jpeg":
        image.save(out, "JPEG", quality=quality, exif=exif)
    else:
        image.save(out, "PNG", exif=exif)
    return out.getvalue()


def portrait_phone_jpeg(upright: np.ndarray, quality: int = 92) -> bytes:
    """The JPEG a phone stores for the photo shown as ``upright``: turned a quarter, with
    "rotate 90" (orientation 6) to turn it back."""
    return with_orientation(cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE), 6,
                            quality=quality)
