//! A long document is compiled in slices of sheets
//! (`limits.slice_sheets`). As PDF, the slices are joined into one
//! file: read back by PyMuPDF and checked by qpdf (pikepdf), it is the
//! document the whole compile gives, page by page; documents whose pages do
//! not stand alone are compiled whole. As PNG or ZPL, each slice's sheets
//! are drawn in turn, and one sheet asked for is compiled alone: the same
//! dots as from the whole document.

use labelpress_document::config::RuntimeConfig;
use labelpress_document::engine::fonts::FontOptions;
use labelpress_document::engine::Engine;
use serde_json::{json, Value};

use crate::support::{pdfcheck, read_pdf};

/// An engine that compiles a document of more than `slice` sheets `slice`
/// sheets at a time (0: always whole).
fn engine(slice: usize) -> Engine {
    let mut config = RuntimeConfig::default();
    config.limits.slice_sheets = slice;
    config.limits.slice_above_sheets = slice;
    Engine::new(config, &FontOptions::EMBEDDED, None)
}

fn render(engine: &Engine, request: &Value) -> Vec<u8> {
    let laid = engine
        .validate(&serde_json::to_vec(request).unwrap())
        .unwrap();
    let at = time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    engine.render_at(&laid, at).unwrap().bytes
}

/// A table of `rows` rows on A6 sheets, under a header with a filled box,
/// over a footer with the sheet number and a link with an `alt`.
fn long_table(rows: usize) -> Value {
    let rows: Vec<Value> = (0..rows)
        .map(|i| json!({"n": format!("row{i:03}"), "v": format!("{} EUR", i * 7)}))
        .collect();
    json!({
        "settings": {"metadata": {"title": "Sliced", "author": "Suite"}},
        "header": {"height": 18, "elements": [
            {"type": "text", "x": 8, "y": 5, "content": "Acme [B]Supply[/B]"},
            {"type": "rect", "x": 80, "y": 4, "width": 15, "height": 8, "fill": {"color": "#1f4e79"}}
        ]},
        "footer": {"height": 14, "elements": [
            {"type": "text", "x": 8, "y": 4, "content": "Page {page} of {total_pages}"},
            {"type": "link", "x": 60, "y": 3, "width": 30, "height": 6, "alt": "The shop",
             "target": {"type": "url", "url": "https://shop.example/terms"}}
        ]},
        "pages": [{"size": "a6", "elements": [
            {"type": "table", "x": 8, "y": 20, "columns": [
                {"key": "n", "header": "Item", "width": {"mode": "fixed", "value": 40}},
                {"key": "v", "header": "Price", "width": {"mode": "fixed", "value": 30},
                 "cell": {"text": {"text_align": "right"}}}
             ],
             "rows": rows,
             "body": {"alternate_fill": {"color": "#f2f2f2"}},
             "cell": {"padding": {"x": 1, "y": 0.5}, "text": {"font_size": 8}}}
        ]}]
    })
}

/// Each page's size, text spans (text and box, to 0.01 mm) and links.
fn pages(pdf: &Value) -> Vec<Value> {
    let round = |v: &Value| (v.as_f64().unwrap() * 100.0).round() / 100.0;
    pdf["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|page| {
            let spans: Vec<Value> = page["spans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    json!([
                        s["text"],
                        round(&s["x0"]),
                        round(&s["y0"]),
                        round(&s["x1"]),
                        s["size"]
                    ])
                })
                .collect();
            json!({"width": page["width"], "height": page["height"], "spans": spans,
                   "links": page["links"], "drawings": page["drawings"].as_array().unwrap().len()})
        })
        .collect()
}

#[test]
fn a_long_pdf_compiled_in_slices_reads_back_as_the_whole_compile() {
    let request = long_table(260);
    let whole = render(&engine(0), &request);
    let sliced = render(&engine(3), &request);
    assert_ne!(whole, sliced, "three sheets at a time is another path");

    let (whole_pdf, sliced_pdf) = (read_pdf(whole.clone()), read_pdf(sliced.clone()));
    let sheets = whole_pdf.page_count();
    assert!(
        sheets > 7,
        "260 rows on A6 take more than two slices of 3: {sheets}"
    );
    assert_eq!(sliced_pdf.page_count(), sheets);
    let (a, b) = (pages(&whole_pdf.json), pages(&sliced_pdf.json));
    for (i, (a, b)) in a.iter().zip(&b).enumerate() {
        assert_eq!(a, b, "sheet {} differs", i + 1);
    }
    for page in 0..sheets {
        assert!(sliced_pdf
            .text(page)
            .contains(&format!("Page {} of {sheets}", page + 1)));
    }
    assert_eq!(whole_pdf.json["metadata"], sliced_pdf.json["metadata"]);

    let (whole_check, sliced_check) = (pdfcheck(&whole), pdfcheck(&sliced));
    assert_eq!(sliced_check["problems"], json!([]), "qpdf --check");
    for key in ["docinfo", "xmp", "uris", "link_contents", "version"] {
        assert_eq!(whole_check[key], sliced_check[key], "{key}");
    }
    assert_eq!(
        sliced_check["link_contents"].as_array().unwrap().len(),
        sheets,
        "every sheet's footer link keeps its alt"
    );
}

#[test]
fn documents_whose_pages_do_not_stand_alone_compile_whole() {
    let (whole, sliced) = (engine(0), engine(3));
    let mut page_link = long_table(120);
    page_link["footer"]["elements"][1]["target"] =
        json!({"type": "page", "page": 1, "x": 0, "y": 0});
    let mut tagged = long_table(120);
    tagged["settings"]["tagged"] = json!(true);
    let mut archival = long_table(120);
    archival["settings"]["profile"] = json!("pdfa-2b");
    for (what, request) in [
        ("a link to a page", page_link),
        ("tagged", tagged),
        ("PDF/A", archival),
    ] {
        assert_eq!(
            render(&whole, &request),
            render(&sliced, &request),
            "{what}: compiled whole, as without slices"
        );
    }
    // A document of no more sheets than a slice is compiled whole too.
    let short = long_table(10);
    assert_eq!(render(&whole, &short), render(&sliced, &short));
}

#[test]
fn png_and_zpl_of_a_long_document_draw_the_same_dots_a_slice_at_a_time() {
    use labelpress_document::engine::{Output, PngOptions, ZplOptions};
    let (whole, sliced) = (engine(0), engine(3));
    let request = serde_json::to_vec(&long_table(260)).unwrap();
    let draw = |engine: &Engine, output: &Output| {
        let laid = engine.validate(&request).unwrap();
        engine.render_as(&laid, output).unwrap()
    };
    let zpl = Output::Zpl(ZplOptions {
        dpi: Some(152),
        ..ZplOptions::default()
    });
    let (a, b) = (draw(&whole, &zpl), draw(&sliced, &zpl));
    assert!(a.delivered_sheets > 7);
    assert_eq!(
        (a.delivered_sheets, a.bytes == b.bytes),
        (b.delivered_sheets, true),
        "every label, in order, the same dots"
    );
    // One sheet compiles alone: the same PNG as from the whole document.
    for sheet in [1, 5, a.delivered_sheets] {
        let png = Output::Png(PngOptions {
            dpi: Some(100),
            sheet: Some(sheet),
            mono: false,
        });
        let (a, b) = (draw(&whole, &png), draw(&sliced, &png));
        assert_eq!(a.sheets, b.sheets);
        assert!(a.bytes == b.bytes, "sheet {sheet} as PNG");
    }
}

#[test]
fn an_image_every_sheet_shows_is_held_once_in_the_joined_pdf() {
    use base64::Engine as _;
    let png = std::fs::read(crate::support::fixtures().join("dot.png")).unwrap();
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    let mut request = long_table(260);
    request["header"]["elements"].as_array_mut().unwrap().push(
        json!({"type": "image", "x": 100, "y": 4, "width": 8, "height": 8, "data": data, "fit": "stretch"}),
    );
    let (whole, sliced) = (render(&engine(0), &request), render(&engine(3), &request));
    let (whole_check, sliced_check) = (pdfcheck(&whole), pdfcheck(&sliced));
    assert_eq!(sliced_check["problems"], json!([]), "qpdf --check");
    assert!(whole_check["image_streams"].as_u64().unwrap() >= 1);
    assert_eq!(
        sliced_check["image_streams"], whole_check["image_streams"],
        "the image (and its soft mask) once, not once per slice"
    );
    let (a, b) = (read_pdf(whole), read_pdf(sliced));
    for page in 0..a.page_count() {
        assert_eq!(
            a.json["pages"][page]["images"],
            b.json["pages"][page]["images"]
        );
        assert_eq!(b.json["pages"][page]["images"].as_array().unwrap().len(), 1);
    }
}
