#!/usr/bin/env python3
"""Rasterises every page of a PDF (PyMuPDF) at a printer resolution and
decodes the barcodes on it with zxing-cpp, each from its own crop.

Usage: pdfdecode.py FILE.pdf DPI [x0,y0,x1,y1 ...]   (boxes in mm, page 1)
Prints JSON: one list of decoded symbols per box (all of page 1 without boxes):
  [[{"format", "text", "symbology_identifier"}], ...]
"""
import json
import sys

try:
    import numpy as np
    import pymupdf
    import zxingcpp
except ImportError as e:  # reported to the Rust test
    sys.stderr.write(f"pdfdecode.py: missing Python package: {e}; pip install -r tests/support/requirements.txt\n")
    sys.exit(3)

MM = 72.0 / 25.4


def main(path, dpi, boxes):
    page = pymupdf.open(path)[0]
    if not boxes:
        boxes = [(0, 0, page.rect.width / MM, page.rect.height / MM)]
    out = []
    for (x0, y0, x1, y1) in boxes:
        # A white margin around each crop gives the decoder its quiet zone.
        clip = pymupdf.Rect((x0 - 4) * MM, (y0 - 4) * MM, (x1 + 4) * MM, (y1 + 4) * MM)
        pix = page.get_pixmap(dpi=dpi, clip=clip, colorspace=pymupdf.csGRAY, alpha=False)
        img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)
        found = zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.Plain)
        out.append([{"format": str(b.format).split(".")[-1], "text": b.text,
                     "symbology_identifier": b.symbology_identifier} for b in found])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    boxes = [tuple(float(v) for v in b.split(",")) for b in sys.argv[3:]]
    main(sys.argv[1], int(sys.argv[2]), boxes)
