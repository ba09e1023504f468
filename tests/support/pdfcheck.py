#!/usr/bin/env python3
"""Checks a PDF's structure and reads its metadata with pikepdf (qpdf), a
parser independent of typst, krilla and crates/document/src/pdf/, and prints JSON.

Usage: pdfcheck.py FILE.pdf

The file is opened without xref recovery, so a broken cross-reference table
is an error rather than silently repaired. Output:
  {"problems": [...],          # qpdf --check: warnings and errors, [] when clean
   "version": "1.7",
   "docinfo": {"Title": ...} | null,   # null when the trailer has no /Info
   "xmp": {"dc:title", "dc:creator", "dc:description", "pdf:Producer", "xmp:CreatorTool"},
   "xmp_producers": N,         # pdf:Producer elements and attributes in the packet
   "uris": [...],              # /URI of every link annotation, in page order
   "alts": [...],              # /Alt of every object that has one (structure elements)
   "link_contents": [[...]],   # per page, /Contents of each link annotation (null: none), /Annots order
   "link_structure_alts": [...],  # /Alt of every Link structure element
   "image_streams": N}          # image XObject streams in the file (each object once)
or {"open_error": "..."} when qpdf cannot open the file at all.
"""
import json
import sys
import xml.etree.ElementTree as ET

import pikepdf

PDF_NS = "{http://ns.adobe.com/pdf/1.3/}"
XMP_KEYS = ["dc:title", "dc:creator", "dc:description", "pdf:Producer", "xmp:CreatorTool"]


def problems(pdf):
    # pikepdf >= 9 has check_pdf_syntax (qpdf --check step by step); older has check.
    check = getattr(pdf, "check_pdf_syntax", None) or pdf.check
    return [str(p) for p in check()]


def docinfo(pdf):
    if "/Info" not in pdf.trailer:
        return None
    return {str(k)[1:]: str(v) for k, v in pdf.trailer.Info.items() if isinstance(v, pikepdf.String)}


def xmp(pdf):
    meta = pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False)
    out = {}
    for key in XMP_KEYS:
        value = meta.get(key)
        out[key] = list(value) if isinstance(value, (list, set)) else value
    return out


def xmp_producers(pdf):
    if "/Metadata" not in pdf.Root:
        return 0
    root = ET.fromstring(pdf.Root.Metadata.read_bytes())
    elements = sum(1 for _ in root.iter(PDF_NS + "Producer"))
    attributes = sum(1 for e in root.iter() if PDF_NS + "Producer" in e.attrib)
    return elements + attributes


def uris(pdf):
    found = []
    for page in pdf.pages:
        for annot in page.get("/Annots", []):
            action = annot.get("/A")
            if action is not None and "/URI" in action:
                found.append(str(action.URI))
    return found


def alts(pdf):
    return [str(obj.Alt) for obj in pdf.objects
            if isinstance(obj, pikepdf.Dictionary) and "/Alt" in obj]


def link_contents(pdf):
    return [[str(a.Contents) if "/Contents" in a else None
             for a in page.get("/Annots", []) if a.get("/Subtype") == "/Link"]
            for page in pdf.pages]


def link_structure_alts(pdf):
    return [str(o.Alt) for o in pdf.objects
            if isinstance(o, pikepdf.Dictionary) and o.get("/S") == "/Link" and "/Alt" in o]


def image_streams(pdf):
    return sum(1 for o in pdf.objects
               if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image")


def main(path):
    try:
        pdf = pikepdf.open(path, attempt_recovery=False)
    except pikepdf.PdfError as e:
        print(json.dumps({"open_error": str(e)}))
        return
    with pdf:
        out = {
            "problems": problems(pdf),
            "version": pdf.pdf_version,
            "docinfo": docinfo(pdf),
            "xmp": xmp(pdf),
            "xmp_producers": xmp_producers(pdf),
            "uris": uris(pdf),
            "alts": alts(pdf),
            "link_contents": link_contents(pdf),
            "link_structure_alts": link_structure_alts(pdf),
            "image_streams": image_streams(pdf),
        }
        out["problems"] += ["WARNING: " + w for w in pdf.get_warnings()]
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1])
