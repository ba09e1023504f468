#!/usr/bin/env python3
"""Reference images of the examples gallery (tests/suite/gallery.rs).

Every page is rasterised by PyMuPDF at GALLERY_DPI in grayscale; the pinned
PyMuPDF version (tests/support/requirements.txt) keeps the pixels the same
on every machine, and the examples use only the embedded DejaVu Sans.

Usage (one process does all a test needs: importing PyMuPDF takes seconds):
  gallery.py FILE.pdf [--bless PREFIX | --compare PREFIX DIFF_DIR] [--decode DPI [BOX ...]]

`--bless` writes PREFIX-p1.png, PREFIX-p2.png, ... and removes references
of pages the document no longer has; `--compare` compares each page with
PREFIX-pN.png; `--decode` decodes the barcodes of every page. Prints JSON
{"blessed": [paths], "comparison": ..., "decoded": ...} with the parts asked
for.

The comparison is {"pages", "references", "results": [{"page",
"reference", "changed", "differing", "pixels", "ok", "reason", "diff"}]}.
Both images are smoothed by a 3x3 mean first, which spreads a sub-pixel
move of an edge (glyphs snap to different sub-pixel positions) below
PIXEL_THRESHOLD, while an element moved by half a pixel or more stays
above it. A page passes when at most MAX_DIFFERING_FRACTION of its pixels
differ by more than PIXEL_THRESHOLD levels; `changed` counts the pixels
that differ at all before smoothing. A failing page gets a diff image in
DIFF_DIR: the reference faded, differing pixels in red.

The decoding is {"pages": [[symbol, ...] per page], "boxes": [[symbol,
...] per BOX]}, each symbol {"format", "text", "symbology_identifier",
"hri"}: `text` as the symbol carries it (GS1 separators as GS), `hri` in
zxing-cpp's human-readable form ("(01)..."). A BOX is x0,y0,x1,y1 in mm,
decoded on every page from its own crop: zxing-cpp finds MaxiCode only as
a "pure" symbol, alone in the image, never on a whole page.
"""
import glob
import json
import os
import sys

try:
    import numpy as np
    import pymupdf
    import zxingcpp
except ImportError as e:  # reported to the Rust test
    sys.stderr.write(f"gallery.py: missing Python package: {e}; pip install -r tests/support/requirements.txt\n")
    sys.exit(3)

GALLERY_DPI = 72
# Levels (of 255) a smoothed pixel may differ before it counts. Measured on
# examples/label.json's 7 pt order reference at 72 dpi: moved by 0.1 mm at
# most 28 levels; by 0.2 mm 25 pixels exceed 32, by 1 mm 167 do.
PIXEL_THRESHOLD = 32
# 12 pixels of a 100 x 150 mm label, 50 of an A4 page.
MAX_DIFFERING_FRACTION = 0.0001


def raster(page):
    """A page as a 2-D uint8 array (grayscale, no alpha) at GALLERY_DPI."""
    pix = page.get_pixmap(dpi=GALLERY_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    return pix, np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)


def smoothed(image):
    """The 3x3 mean of each pixel (edges repeated), as int32 x 9."""
    padded = np.pad(image.astype(np.int32), 1, mode="edge")
    h, w = image.shape
    return sum(padded[i:i + h, j:j + w] for i in range(3) for j in range(3))


def reference_path(prefix, number):
    return f"{prefix}-p{number}.png"


def bless(pdf_path, prefix):
    doc = pymupdf.open(pdf_path)
    os.makedirs(os.path.dirname(prefix) or ".", exist_ok=True)
    # References of pages the document no longer has would never be checked.
    for stale in glob.glob(f"{glob.escape(prefix)}-p*.png"):
        os.remove(stale)
    written = []
    for number, page in enumerate(doc, start=1):
        pix, _ = raster(page)
        path = reference_path(prefix, number)
        pix.save(path)
        written.append(path)
    return written


def diff_image(reference, differing, path):
    """The reference faded to a light gray, differing pixels in red."""
    faded = (255 - (255 - reference.astype(np.uint16)) * 3 // 10).astype(np.uint8)
    rgb = np.stack([faded, faded, faded], axis=-1)
    rgb[differing] = (255, 0, 0)
    h, w = reference.shape
    pymupdf.Pixmap(pymupdf.csRGB, w, h, np.ascontiguousarray(rgb).tobytes(), False).save(path)


def compare(pdf_path, prefix, diff_dir):
    doc = pymupdf.open(pdf_path)
    references = sorted(glob.glob(f"{glob.escape(prefix)}-p*.png"))
    results = []
    for number, page in enumerate(doc, start=1):
        path = reference_path(prefix, number)
        result = {"page": number, "reference": path, "differing": None, "pixels": None,
                  "ok": False, "reason": "", "diff": None, "changed": None}
        results.append(result)
        if not os.path.exists(path):
            result["reason"] = "no reference image"
            continue
        _, actual = raster(page)
        ref_pix = pymupdf.Pixmap(path)
        if ref_pix.n != 1:
            ref_pix = pymupdf.Pixmap(pymupdf.csGRAY, ref_pix)
        reference = np.frombuffer(ref_pix.samples, dtype=np.uint8).reshape(ref_pix.height, ref_pix.width)
        if reference.shape != actual.shape:
            result["reason"] = f"size {actual.shape[1]}x{actual.shape[0]} px, reference {reference.shape[1]}x{reference.shape[0]} px"
            continue
        result["changed"] = int((actual != reference).sum())
        differing = np.abs(smoothed(actual) - smoothed(reference)) > PIXEL_THRESHOLD * 9
        count = int(differing.sum())
        result["differing"] = count
        result["pixels"] = int(differing.size)
        result["ok"] = count <= MAX_DIFFERING_FRACTION * differing.size
        if not result["ok"]:
            result["reason"] = (f"{count} of {differing.size} pixels differ by more than {PIXEL_THRESHOLD} "
                                f"levels after 3x3 smoothing (at most {MAX_DIFFERING_FRACTION:.2%} may)")
            os.makedirs(diff_dir, exist_ok=True)
            diff = os.path.join(diff_dir, f"{os.path.basename(prefix)}-p{number}-diff.png")
            diff_image(reference, differing, diff)
            result["diff"] = diff
    return {"pages": len(doc), "references": len(references), "results": results}


def read(pix):
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width)
    plain = zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.Plain)
    hri = zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.HRI)
    return [{"format": str(p.format).split(".")[-1], "text": p.text,
             "symbology_identifier": p.symbology_identifier, "hri": h.text}
            for p, h in zip(plain, hri)]


def decode(pdf_path, dpi, boxes):
    mm = 72.0 / 25.4
    doc = pymupdf.open(pdf_path)
    pages = [read(page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)) for page in doc]
    found = []
    for (x0, y0, x1, y1) in boxes:
        # 2 mm around the box: the symbol's quiet zone, but not the rules
        # a label draws a few mm away, which a pure symbol must not touch.
        clip = pymupdf.Rect((x0 - 2) * mm, (y0 - 2) * mm, (x1 + 2) * mm, (y1 + 2) * mm)
        found.append([symbol for page in doc
                      for symbol in read(page.get_pixmap(dpi=dpi, clip=clip, colorspace=pymupdf.csGRAY, alpha=False))])
    return {"pages": pages, "boxes": found}


def main(argv):
    if not argv or argv[0].startswith("--"):
        raise SystemExit(__doc__)
    pdf_path, rest, out = argv[0], argv[1:], {}
    while rest:
        option = rest.pop(0)
        if option == "--bless" and rest:
            out["blessed"] = bless(pdf_path, rest.pop(0))
        elif option == "--compare" and len(rest) >= 2:
            out["comparison"] = compare(pdf_path, rest.pop(0), rest.pop(0))
        elif option == "--decode" and rest:
            dpi = int(rest.pop(0))
            boxes = []
            while rest and not rest[0].startswith("--"):
                boxes.append(tuple(float(v) for v in rest.pop(0).split(",")))
            out["decoded"] = decode(pdf_path, dpi, boxes)
        else:
            raise SystemExit(f"gallery.py: unexpected {option!r}\n{__doc__}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
