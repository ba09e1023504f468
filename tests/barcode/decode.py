#!/usr/bin/env python3
"""Rasterise barcode SVGs and decode them with zxing-cpp.

Usage: decode.py [--zoom Z] FILE.svg...
Prints one JSON object: {path: [{format, text, hri, symbology_identifier,
bytes_hex, ec_level}, ...]}. `text` is zxing-cpp's Plain text mode (GS1 separators stay
as ASCII 29), `hri` its human-readable form ("(01)...").
The test suite needs this to run: an import failure exits with status 3 and
a message, never an empty success.
"""
import io
import json
import sys

try:
    import numpy as np
    import resvg_py
    import zxingcpp
    from PIL import Image, ImageOps
except ImportError as e:  # pragma: no cover - reported to the Rust test
    sys.stderr.write(f"decode.py: missing Python package: {e}; pip install -r tests/barcode/requirements.txt\n")
    sys.exit(3)

BORDER = 40


def load(path, zoom):
    with open(path, encoding="utf-8") as f:
        svg = f.read()
    png = resvg_py.svg_to_bytes(svg_string=svg, zoom=zoom, background="#ffffff")
    img = Image.open(io.BytesIO(bytes(png))).convert("L")
    # Quiet zone for symbols rendered without margin.
    return ImageOps.expand(img, border=BORDER, fill=255)


def decode(path, zoom):
    img = load(path, zoom)
    arr = np.asarray(img)
    out = []
    plain = zxingcpp.read_barcodes(arr, text_mode=zxingcpp.TextMode.Plain)
    hri = zxingcpp.read_barcodes(arr, text_mode=zxingcpp.TextMode.HRI)
    for i, b in enumerate(plain):
        out.append(
            {
                "format": str(b.format).split(".")[-1],
                "text": b.text,
                "hri": hri[i].text if i < len(hri) else None,
                "symbology_identifier": b.symbology_identifier,
                "bytes_hex": bytes(b.bytes).hex(),
                "ec_level": b.ec_level,
            }
        )
    return out


def main(argv):
    zoom = 3.0
    paths = []
    it = iter(argv)
    for a in it:
        if a == "--zoom":
            zoom = float(next(it))
        else:
            paths.append(a)
    if not paths:
        sys.stderr.write(__doc__)
        return 2
    print(json.dumps({p: decode(p, zoom) for p in paths}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
