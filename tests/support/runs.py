#!/usr/bin/env python3
"""Runs of black and white dots inside boxes of 1-bit-looking images, for
tests/suite/zpl.rs's dot-grid check.

Usage: runs.py FILE.png x0,y0,x1,y1 [...]   (boxes in pixels)
Prints JSON: one entry per box, {"rows": [[lengths of the runs along each
of 5 rows spread over the box's middle half], ...], "cols": likewise down 5
columns}; a run list starts at the first black dot and ends at the last,
alternating black and white (a pixel darker than mid-grey is black).
"""
import json
import sys

try:
    import numpy as np
    from PIL import Image
except ImportError as e:  # reported to the Rust test
    sys.stderr.write(f"runs.py: missing Python package: {e}; pip install -r tests/support/requirements.txt\n")
    sys.exit(3)


def runs(line):
    black = np.flatnonzero(line)
    if black.size == 0:
        return []
    line = line[black[0]:black[-1] + 1]
    edges = np.flatnonzero(np.diff(line.astype(np.int8))) + 1
    bounds = np.concatenate(([0], edges, [line.size]))
    return [int(n) for n in np.diff(bounds)]


def main(path, boxes):
    black = np.asarray(Image.open(path).convert("L"), dtype=np.uint8) < 128
    out = []
    for (x0, y0, x1, y1) in boxes:
        crop = black[y0:y1, x0:x1]
        h, w = crop.shape
        rows = [runs(crop[int(h * f)]) for f in (0.3, 0.4, 0.5, 0.6, 0.7)]
        cols = [runs(crop[:, int(w * f)]) for f in (0.3, 0.4, 0.5, 0.6, 0.7)]
        out.append({"rows": rows, "cols": cols})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], [tuple(int(v) for v in b.split(",")) for b in sys.argv[2:]])
