#!/usr/bin/env python3
"""Reads a PDF back with PyMuPDF (independent of typst) and prints JSON.

Usage: pdfread.py FILE.pdf

Every length is in millimetres from the page's top-left corner. Output:
  {"page_count", "metadata": {...}, "xmp": "...", "pages": [{
      "width", "height",
      "spans": [{"text", "x0", "y0", "x1", "y1", "origin_x", "origin_y", "size", "font", "color", "dir"}],
      "links": [{"kind", "uri", "page", "to_x", "to_y", "x0", "y0", "x1", "y1"}],
      "drawings": [{"x0", "y0", "x1", "y1", "fill", "stroke", "width", "fill_opacity", "stroke_opacity", "dashes", "even_odd", "items"}],
      "images": [{"x0", "y0", "x1", "y1", "width", "height"}],
      "glyphs": [{"char", "gid", "font", "x"}]}]}  (x: the glyph's origin)
Glyph ids are the font program's (0 is .notdef, the missing-glyph box).
"""
import json
import sys

import pymupdf as fitz

MM = 25.4 / 72.0


def mm(v):
    return round(v * MM, 4)


def colour(c):
    if c is None:
        return None
    if isinstance(c, int):
        return "#%06x" % c
    return "#" + "".join("%02x" % round(v * 255) for v in c[:3])


def rect(r):
    return {"x0": mm(r[0]), "y0": mm(r[1]), "x1": mm(r[2]), "y1": mm(r[3])}


def item(it):
    kind = it[0]
    pts = []
    for p in it[1:]:
        if hasattr(p, "x") and hasattr(p, "y") and not hasattr(p, "x1"):
            pts.append([mm(p.x), mm(p.y)])
        elif hasattr(p, "x0"):
            pts.append([mm(p.x0), mm(p.y0), mm(p.x1), mm(p.y1)])
        elif hasattr(p, "ul"):
            pts.append([mm(p.ul.x), mm(p.ul.y), mm(p.lr.x), mm(p.lr.y)])
    return {"kind": kind, "points": pts}


def main(path):
    doc = fitz.open(path)
    out = {"page_count": doc.page_count, "metadata": doc.metadata, "xmp": doc.get_xml_metadata(), "pages": []}
    for page in doc:
        p = {"width": mm(page.rect.width), "height": mm(page.rect.height), "spans": [], "links": [],
             "drawings": [], "images": [], "glyphs": []}
        for trace in page.get_texttrace():
            for c in trace["chars"]:
                p["glyphs"].append({"char": chr(c[0]) if c[0] >= 0 else "", "gid": c[1],
                                    "font": trace["font"], "x": mm(c[2][0])})
        for block in page.get_text("dict")["blocks"]:
            for line in block.get("lines", []):
                for span in line["spans"]:
                    d = rect(span["bbox"])
                    d.update(text=span["text"], size=round(span["size"], 3), font=span["font"],
                             color=colour(span["color"]), origin_x=mm(span["origin"][0]),
                             origin_y=mm(span["origin"][1]), dir=[round(v, 4) for v in line["dir"]])
                    p["spans"].append(d)
        for link in page.get_links():
            d = rect(link["from"])
            d.update(kind=link["kind"], uri=link.get("uri"), page=link.get("page"))
            to = link.get("to")
            if to is not None:
                d.update(to_x=mm(to.x), to_y=mm(to.y))
            p["links"].append(d)
        for dr in page.get_drawings():
            d = rect(dr["rect"])
            d.update(fill=colour(dr.get("fill")), stroke=colour(dr.get("color")),
                     width=mm(dr["width"]) if dr.get("width") is not None else None,
                     fill_opacity=dr.get("fill_opacity"), stroke_opacity=dr.get("stroke_opacity"),
                     dashes=dr.get("dashes"), even_odd=dr.get("even_odd"),
                     items=[item(i) for i in dr["items"]])
            p["drawings"].append(d)
        for info in page.get_image_info():
            d = rect(info["bbox"])
            d.update(width=info["width"], height=info["height"])
            p["images"].append(d)
        out["pages"].append(p)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
