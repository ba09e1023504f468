#!/usr/bin/env python3
"""Reads a PNG back (Pillow) and decodes its barcodes (zxing-cpp), from the
PNG's own pixels: nothing is re-rendered.

Usage: pngread.py FILE.png [x0,y0,x1,y1 ...]   (boxes in pixels)
Prints JSON:
  {"width", "height", "mode", "dpi": [x, y] or null, "alpha": bool,
   "grey_values": sorted distinct grey levels (luma), "barcodes": [{"format", "text"}],
   "boxes": [mean grey level (0 black .. 255 white) of each box]}
"""
import json
import sys

try:
    import numpy as np
    import zxingcpp
    from PIL import Image
except ImportError as e:  # reported to the Rust test
    sys.stderr.write(f"pngread.py: missing Python package: {e}; pip install -r tests/support/requirements.txt\n")
    sys.exit(3)


def main(path, boxes):
    image = Image.open(path)
    image.load()
    grey = np.asarray(image.convert("L"), dtype=np.uint8)
    found = zxingcpp.read_barcodes(grey, text_mode=zxingcpp.TextMode.Plain)
    dpi = image.info.get("dpi")
    out = {
        "width": image.width,
        "height": image.height,
        "mode": image.mode,
        "dpi": [round(float(d), 1) for d in dpi] if dpi else None,
        "alpha": "A" in image.getbands() or "transparency" in image.info,
        "grey_values": [int(v) for v in np.unique(grey)],
        "barcodes": [{"format": str(b.format).split(".")[-1], "text": b.text} for b in found],
        "boxes": [float(grey[y0:y1, x0:x1].mean()) for (x0, y0, x1, y1) in boxes],
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    boxes = [tuple(int(v) for v in b.split(",")) for b in sys.argv[2:]]
    main(sys.argv[1], boxes)
