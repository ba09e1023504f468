#!/usr/bin/env python3
"""Reads a batch's answer back: every page of a PDF rasterised (PyMuPDF)
and its barcodes decoded with zxing-cpp, or the entries of a ZIP archive
(PNG sheets decoded too; JSON entries given back parsed).

Usage: batchdecode.py FILE DPI
Prints JSON:
  a PDF: {"pages": [[{"format", "text"}], ...], "sizes": [[w_mm, h_mm], ...]}
  a ZIP: {"entries": [{"name", "size", "barcodes": [...]} or {"name", "json"}], ...}
"""
import io
import json
import sys
import zipfile

try:
    import numpy as np
    import pymupdf
    import zxingcpp
    from PIL import Image
except ImportError as e:  # reported to the Rust test
    sys.stderr.write(f"batchdecode.py: missing Python package: {e}; pip install -r tests/support/requirements.txt\n")
    sys.exit(3)

MM = 72.0 / 25.4


def decode(gray):
    return [{"format": str(b.format).split(".")[-1], "text": b.text}
            for b in zxingcpp.read_barcodes(gray, text_mode=zxingcpp.TextMode.Plain)]


def pdf(data, dpi):
    doc = pymupdf.open(stream=data, filetype="pdf")
    pages, sizes = [], []
    for page in doc:
        pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
        img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)
        pages.append(decode(img))
        sizes.append([round(page.rect.width / MM, 2), round(page.rect.height / MM, 2)])
    return {"pages": pages, "sizes": sizes}


def archive(data):
    entries = []
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            body = z.read(info.filename)
            entry = {"name": info.filename, "size": len(body)}
            if info.filename.endswith(".json"):
                entry["json"] = json.loads(body)
            elif info.filename.endswith(".png"):
                gray = np.array(Image.open(io.BytesIO(body)).convert("L"))
                entry["barcodes"] = decode(gray)
            entries.append(entry)
    return {"entries": entries}


def main(path, dpi):
    data = open(path, "rb").read()
    if data.startswith(b"%PDF-"):
        json.dump(pdf(data, dpi), sys.stdout)
    else:
        json.dump(archive(data), sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
