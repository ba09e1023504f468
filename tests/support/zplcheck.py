#!/usr/bin/env python3
"""Compares ZPL labels, as an independent renderer drew them
(tests/zpl/render.mjs), with labelpress's own mono PNGs of the same sheets
at the same dpi, and decodes the barcodes of the ZPL's images with
zxing-cpp (tests/suite/zpl.rs).

Usage: zplcheck.py JOBS.json
JOBS.json: [{"theirs": [PNG per label], "ours": [PNG per sheet],
             "dpi": N, "boxes": [[x0, y0, x1, y1] in mm, ...]}, ...]
Prints JSON, one entry per job: {"sheets": [{"theirs": [w, h],
"ours": [w, h], "agreement": fraction of dots both call black or both
white, "black": black dots of ours}], "decoded": {"pages": [[symbol, ...]
per label], "boxes": [[symbol, ...] per box]}, "box_rows": [{"theirs":
[run, ...], "ours": [run, ...]} per box]} with symbols as
tests/support/gallery.py gives them. A box is decoded from its crop on
every label (zxing-cpp finds MaxiCode only alone in an image). A box's
rows are the lengths of the dark and light runs (dark first) along the
middle row of the box on the first label of each, and on the first
sheet.
"""
import json
import sys

try:
    import numpy as np
    import zxingcpp
    from PIL import Image
except ImportError as e:  # reported to the Rust test
    sys.stderr.write(f"zplcheck.py: missing Python package: {e}; pip install -r tests/support/requirements.txt\n")
    sys.exit(3)


def grey(path):
    return np.asarray(Image.open(path).convert("L"), dtype=np.uint8)


def read(img):
    plain = zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.Plain)
    hri = zxingcpp.read_barcodes(img, text_mode=zxingcpp.TextMode.HRI)
    return [{"format": str(p.format).split(".")[-1], "text": p.text,
             "symbology_identifier": p.symbology_identifier, "hri": h.text}
            for p, h in zip(plain, hri)]


def job(spec):
    dots_per_mm = spec["dpi"] / 25.4
    theirs = [grey(p) for p in spec["theirs"]]
    sheets = []
    for t, path in zip(theirs, spec["ours"]):
        o = grey(path)
        entry = {"theirs": [t.shape[1], t.shape[0]], "ours": [o.shape[1], o.shape[0]],
                 "black": int((o < 128).sum())}
        if t.shape == o.shape:
            entry["agreement"] = float(((t < 128) == (o < 128)).mean())
        sheets.append(entry)
    boxes = []
    for (x0, y0, x1, y1) in spec["boxes"]:
        # 2 mm around the box: its quiet zone, not the rules nearby.
        c = [round(v * dots_per_mm) for v in (x0 - 2, y0 - 2, x1 + 2, y1 + 2)]
        boxes.append([s for t in theirs
                      for s in read(np.ascontiguousarray(t[max(c[1], 0):c[3], max(c[0], 0):c[2]]))])
    box_rows = []
    if theirs and spec["ours"]:
        ours = grey(spec["ours"][0])
        for (x0, y0, x1, y1) in spec["boxes"]:
            row = round((y0 + y1) / 2 * dots_per_mm)
            span = slice(max(round(x0 * dots_per_mm), 0), round(x1 * dots_per_mm))
            box_rows.append({"theirs": runs(theirs[0][row, span] < 128),
                             "ours": runs(ours[row, span] < 128)})
    return {"sheets": sheets, "decoded": {"pages": [read(t) for t in theirs], "boxes": boxes},
            "box_rows": box_rows}


def runs(dark):
    """Lengths of the runs of a row of dots, from its first dark dot."""
    out, current, length = [], True, 0
    for d in dark.tolist()[int(np.argmax(dark)):] if dark.any() else []:
        if d == current:
            length += 1
        else:
            out.append(length)
            current, length = d, 1
    if length:
        out.append(length)
    # The light run after the last bar reaches the box's edge: not a space.
    return out[:-1] if not current else out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    with open(sys.argv[1]) as f:
        jobs = json.load(f)
    json.dump([job(j) for j in jobs], sys.stdout)
