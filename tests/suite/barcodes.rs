//! Barcode elements in documents: rasterised at a thermal printer's 203 dpi
//! and decoded with zxing-cpp (tests/support/pdfdecode.py).

use std::process::Command;

use serde_json::{json, Value};

use crate::support::*;

/// Decodes each box (x0, y0, x1, y1 in mm) of page 1 at `dpi`.
fn decode(pdf: &[u8], dpi: u32, boxes: &[(f64, f64, f64, f64)]) -> Vec<Vec<Value>> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.pdf");
    std::fs::write(&path, pdf).unwrap();
    let mut cmd = Command::new("python3");
    cmd.arg(manifest_dir().join("tests/support/pdfdecode.py"))
        .arg(&path)
        .arg(dpi.to_string());
    for (x0, y0, x1, y1) in boxes {
        cmd.arg(format!("{x0},{y0},{x1},{y1}"));
    }
    let out = cmd.output().expect("python3");
    assert!(
        out.status.success(),
        "pdfdecode.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_document_format_decodes_at_203_dpi() {
    let cases = [
        ("code128", "SHIP0000123456789", 70.0, 20.0),
        ("code39", "LABEL-42", 70.0, 20.0),
        ("ean13", "4006381333931", 45.0, 20.0),
        ("ean8", "96385074", 35.0, 20.0),
        ("upca", "036000291452", 45.0, 20.0),
        ("itf", "12345678901231", 60.0, 20.0),
        ("codabar", "A40156B", 50.0, 20.0),
        ("qrcode", "https://example.com/parcel?id=42", 25.0, 25.0),
        ("datamatrix", "DM-0042-XYZ", 20.0, 20.0),
        ("pdf417", "PDF417 label data 0042", 70.0, 25.0),
        ("aztec", "AZTEC 42", 20.0, 20.0),
        ("maxicode", "MAXICODE TEST 42", 30.0, 30.0),
    ];
    let mut elements = Vec::new();
    let mut boxes = Vec::new();
    let mut y = 5.0;
    for (format, content, w, h) in cases {
        elements.push(json!({"type": "barcode", "x": 10, "y": y, "width": w, "height": h, "format": format, "content": content}));
        boxes.push((10.0, y, 10.0 + w, y + h));
        y += h + 10.0;
    }
    let pdf = render_bytes(json!({"pages": [{"width": 100, "height": y, "elements": elements}]}));
    let decoded = decode(&pdf, 203, &boxes);
    for ((format, content, _, _), found) in cases.iter().zip(&decoded) {
        let texts: Vec<&str> = found.iter().filter_map(|b| b["text"].as_str()).collect();
        let ok = texts.iter().any(|t| {
            *t == *content
                // zxing-cpp reports UPC-A as EAN-13 with a leading 0; MaxiCode mode 4 may pad.
                || (*format == "upca" && *t == format!("0{content}"))
                || (*format == "maxicode" && t.starts_with(content))
        });
        assert!(ok, "{format}: expected {content:?}, decoded {found:?}");
    }
}

#[test]
fn barcodes_fill_their_box_and_keep_square_modules_centred() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "barcode", "x": 10, "y": 10, "width": 80, "height": 20, "format": "code128", "content": "ABC123", "options": {"color": "#ff0000"}},
            {"type": "barcode", "x": 10, "y": 40, "width": 40, "height": 20, "format": "qrcode", "content": "square", "options": {"color": "#0000ff"}}
        ]),
    ));
    let d = pdf.drawings(0);
    let bars = d.iter().find(|x| x["fill"] == "#ff0000").expect("bars");
    approx(f(bars, "x0"), 10.0, 0.05, "first bar at the box left");
    approx(f(bars, "x1"), 90.0, 0.05, "last bar at the box right");
    approx(
        f(bars, "y1") - f(bars, "y0"),
        20.0,
        0.05,
        "bars fill the height",
    );
    let qr = d.iter().find(|x| x["fill"] == "#0000ff").expect("qr");
    approx(
        f(qr, "x1") - f(qr, "x0"),
        20.0,
        0.05,
        "square: as wide as high",
    );
    approx((f(qr, "x0") + f(qr, "x1")) / 2.0, 30.0, 0.05, "centred");
}

#[test]
fn bar_width_and_print_dpi_fix_the_module_size() {
    // 0.33 mm modules at 203 dpi snap to 3 dots = 0.3754 mm.
    let pdf = render(
        json!({"settings": {"print_dpi": 203}, "pages": [{"width": 100, "height": 50, "elements": [
            {"type": "barcode", "x": 5, "y": 5, "width": 90, "height": 20, "format": "ean8", "content": "96385074", "options": {"bar_width": 0.33, "color": "#00ff00"}}
        ]}]}),
    );
    let bars = pdf
        .drawings(0)
        .into_iter()
        .find(|x| x["fill"] == "#00ff00")
        .unwrap();
    let module = 3.0 * 25.4 / 203.0;
    approx(
        f(bars, "x1") - f(bars, "x0"),
        67.0 * module,
        0.01,
        "EAN-8 is 67 modules of whole dots",
    );
    let decoded = decode(&pdf.bytes, 203, &[(5.0, 5.0, 95.0, 25.0)]);
    assert_eq!(decoded[0][0]["text"], "96385074");
}

#[test]
fn human_readable_text_sits_under_shortened_bars() {
    let pdf = render(page_with(
        100.0,
        60.0,
        json!([
            {"type": "barcode", "x": 10, "y": 10, "width": 80, "height": 25, "format": "code128", "content": "HRT42", "hrt": {"enabled": true}, "options": {"color": "#ff0000"}}
        ]),
    ));
    let bars = pdf
        .drawings(0)
        .into_iter()
        .find(|x| x["fill"] == "#ff0000")
        .unwrap();
    let text = pdf.span(0, "HRT42");
    assert!(
        f(bars, "y1") <= f(text, "y0") + 0.01,
        "bars end above the text"
    );
    assert!(f(text, "y1") <= 35.2, "text inside the box");
}

#[test]
fn rotated_barcodes_still_decode() {
    let pdf = render_bytes(page_with(
        100.0,
        100.0,
        json!([
            {"type": "barcode", "x": 10, "y": 10, "width": 60, "height": 20, "format": "code128", "content": "TURN90", "rotation": 90}
        ]),
    ));
    let decoded = decode(&pdf, 300, &[(10.0, 10.0, 30.0, 70.0)]);
    assert_eq!(decoded[0][0]["text"], "TURN90");
}

#[test]
fn barcode_errors_are_api_002_with_paths() {
    let bc = |extra: Value| {
        let mut b = json!({"type": "barcode", "x": 1, "y": 1, "width": 50, "height": 20, "format": "code128", "content": "X"});
        b.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        page_with(100.0, 100.0, json!([b]))
    };
    assert_violation(
        bc(json!({"format": "code11"})),
        "pages[0].elements[0].format",
        "code128",
    );
    assert_violation(
        bc(json!({"format": "ean13", "content": "12345"})),
        "pages[0].elements[0].content",
        "",
    );
    assert_violation(
        bc(json!({"format": "qrcode", "options": {"ecl": "Z"}})),
        "pages[0].elements[0].options",
        "ecl",
    );
    assert_violation(
        bc(json!({"options": {"width": 3}})),
        "pages[0].elements[0].options.width",
        "not an option",
    );
    assert_violation(
        bc(json!({"options": {"color": "black"}})),
        "pages[0].elements[0].options.color",
        "not a colour",
    );
    assert_violation(
        bc(
            json!({"format": "ean8", "content": "96385074", "width": 10, "options": {"bar_width": 1}}),
        ),
        "pages[0].elements[0].options.bar_width",
        "needs",
    );
}

#[test]
fn symbology_options_reach_the_encoder() {
    let pdf = render_bytes(page_with(
        100.0,
        100.0,
        json!([
            {"type": "barcode", "x": 10, "y": 10, "width": 40, "height": 40, "format": "qrcode", "content": "ECL H", "options": {"ecl": "H", "version": 5}},
            {"type": "barcode", "x": 10, "y": 60, "width": 40, "height": 20, "format": "datamatrix", "content": "RECT", "options": {"shape": "rect"}}
        ]),
    ));
    let decoded = decode(
        &pdf,
        300,
        &[(10.0, 10.0, 50.0, 50.0), (10.0, 60.0, 50.0, 80.0)],
    );
    assert_eq!(decoded[0][0]["text"], "ECL H");
    assert_eq!(decoded[1][0]["text"], "RECT");
}

/// Horizontal extent (x0, x1) and vertical extent (y0, y1) of each path item.
fn item_extents(drawing: &Value) -> Vec<(f64, f64, f64, f64)> {
    drawing["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            for p in item["points"].as_array().unwrap() {
                let p: Vec<f64> = p
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect();
                for pair in p.chunks(2) {
                    xs.push(pair[0]);
                    ys.push(pair[1]);
                }
            }
            let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (min(&xs), max(&xs), min(&ys), max(&ys))
        })
        .collect()
}

#[test]
fn bearer_bars_and_their_light_zones_are_drawn_in_documents() {
    let request = page_with(
        100.0,
        60.0,
        json!([
            {"type": "barcode", "x": 10, "y": 10, "width": 80, "height": 20, "format": "itf", "content": "12345678901231",
             "options": {"color": "#ff0000", "bearer": "top_bottom", "thickness": 3, "quiet": 10}}
        ]),
    );
    let bytes = render_bytes(request.clone());
    let pdf = read_pdf(bytes.clone());
    let drawing = *pdf
        .drawings(0)
        .iter()
        .find(|x| x["fill"] == "#ff0000")
        .expect("the symbol");
    approx(
        f(drawing, "x0"),
        10.0,
        0.05,
        "bearer bars start at the box left",
    );
    approx(
        f(drawing, "x1"),
        90.0,
        0.05,
        "bearer bars end at the box right",
    );
    approx(
        f(drawing, "y0"),
        10.0,
        0.05,
        "top bearer bar at the box top",
    );
    approx(
        f(drawing, "y1"),
        30.0,
        0.05,
        "bottom bearer bar at the box bottom",
    );
    let extents = item_extents(drawing);
    let wide: Vec<_> = extents.iter().filter(|e| e.1 - e.0 > 79.9).collect();
    assert!(
        wide.iter().any(|e| e.2 < 10.05),
        "a full-width bar at the top: {wide:?}"
    );
    assert!(
        wide.iter().any(|e| e.3 > 29.95),
        "a full-width bar at the bottom: {wide:?}"
    );
    // The bars keep their light zone (10 modules) inside the bearer bars.
    let first_bar = extents
        .iter()
        .filter(|e| e.1 - e.0 < 5.0)
        .map(|e| e.0)
        .fold(f64::INFINITY, f64::min);
    assert!(
        first_bar > 14.0,
        "bars start after the light zone, at {first_bar}"
    );
    let decoded = decode(&bytes, 203, &[(10.0, 10.0, 90.0, 30.0)]);
    let texts: Vec<&str> = decoded[0]
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    assert!(texts.contains(&"12345678901231"), "{decoded:?}");
    // Without the options the same symbol fills the box with no full-width bar.
    let mut plain = request;
    plain["pages"][0]["elements"][0]["options"] = json!({"color": "#ff0000"});
    let pdf = render(plain);
    let drawing = *pdf
        .drawings(0)
        .iter()
        .find(|x| x["fill"] == "#ff0000")
        .unwrap();
    assert!(item_extents(drawing).iter().all(|e| e.1 - e.0 < 79.0));
}

/// A barcode element's modules may not be thinner than
/// `limits.barcode_module_min_mm` (0.01 mm), whether `bar_width` asks for
/// them or the box only fits them: API-002 naming the field.
#[test]
fn barcode_elements_refuse_modules_below_the_minimum() {
    use labelpress::engine::fonts::FontOptions;
    use labelpress::validate::RequestError;
    use labelpress::Engine;

    let engine = Engine::new(Default::default(), &FontOptions::EMBEDDED, None);
    let check = |width: f64, options: serde_json::Value| {
        let request = serde_json::json!({"pages": [{"size": "a6", "elements": [
            {"type": "barcode", "x": 5, "y": 5, "width": width, "height": 10,
             "format": "code128", "content": "LP-1", "options": options}
        ]}]});
        engine.validate(&serde_json::to_vec(&request).unwrap())
    };
    let violation = |width: f64, options: serde_json::Value| match check(width, options) {
        Err(RequestError::Invalid(v)) => v,
        Ok(_) => panic!("width {width}: accepted"),
        Err(e) => panic!("width {width}: {e}"),
    };
    let v = violation(50.0, serde_json::json!({"bar_width": 1e-9}));
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].path, "pages[0].elements[0].options.bar_width");
    assert!(
        v[0].message.contains("below the 0.01 mm minimum"),
        "{}",
        v[0].message
    );
    // A box too narrow for 0.01 mm modules (code128 "LP-1" is 79 modules).
    let v = violation(0.5, serde_json::json!({}));
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].path, "pages[0].elements[0].width");
    assert!(
        v[0].message.contains("below the 0.01 mm minimum"),
        "{}",
        v[0].message
    );
    // At the minimum, and fitted above it, the element is valid.
    assert!(check(50.0, serde_json::json!({"bar_width": 0.01})).is_ok());
    assert!(check(1.0, serde_json::json!({})).is_ok());
}
