//! The examples gallery (`examples/*.json`): each example is rendered by the
//! real binary with only the embedded font, every page is compared with its
//! reference image `examples/gallery/NAME-pN.png`, and every barcode is
//! decoded by zxing-cpp and must carry what the request asks.
//!
//! Rasterising and comparing is tests/support/gallery.py (PyMuPDF, pinned
//! in tests/support/requirements.txt, so the pixels are the same on CI).
//! A failing page writes a diff image (differing pixels in red) under
//! `CARGO_TARGET_TMPDIR/gallery-diff/` and names it in the failure.
//!
//! After an intended change of an example or of the rendering, write the
//! references again and look at them before committing:
//!
//! ```sh
//! LABELPRESS_BLESS=1 cargo test --test suite gallery::
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::server::binary;
use crate::support::*;

/// Barcodes are decoded at a printer's resolution, not the gallery's 72 dpi,
/// where MaxiCode's hexagons and 0.25 mm GS1-128 modules are below a pixel.
const DECODE_DPI: u32 = 300;

fn blessing() -> bool {
    std::env::var("LABELPRESS_BLESS").is_ok_and(|v| v == "1")
}

/// `labelpress render REQUEST -o OUT --no-system-fonts`: the embedded DejaVu
/// Sans only, so the pages look the same whatever fonts the machine has.
fn render_file(request: &Path, out: &Path) {
    let result = Command::new(binary())
        .current_dir(manifest_dir())
        .arg("render")
        .arg(request)
        .arg("-o")
        .arg(out)
        .arg("--no-system-fonts")
        .output()
        .unwrap();
    assert!(
        result.status.success(),
        "render {}: {}{}",
        request.display(),
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    );
}

/// The JSON `gallery.py PDF ARGS...` prints.
fn gallery(pdf: &Path, args: &[String]) -> Value {
    let mut all = vec![pdf.as_os_str()];
    all.extend(args.iter().map(std::ffi::OsStr::new));
    python_json("gallery.py", &all, "PyMuPDF")
}

fn path_arg(path: &Path) -> String {
    path.to_str().expect("UTF-8 paths").to_string()
}

fn reference_prefix(name: &str) -> String {
    path_arg(&manifest_dir().join("examples/gallery").join(name))
}

/// gallery.py's arguments comparing the pages with the references of `name`.
fn compare_args(name: &str, diff_dir: &Path) -> Vec<String> {
    vec![
        "--compare".into(),
        reference_prefix(name),
        path_arg(diff_dir),
    ]
}

/// The failures of a comparison, one line per page (empty when it passes).
fn comparison_failures(report: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    if report["pages"] != report["references"] {
        failures.push(format!(
            "{} pages rendered, {} reference images",
            report["pages"], report["references"]
        ));
    }
    for page in report["results"].as_array().unwrap() {
        if page["ok"] != true {
            let diff = page["diff"]
                .as_str()
                .map(|d| format!("; diff image: {d}"))
                .unwrap_or_default();
            failures.push(format!(
                "page {} ({}): {}{diff}",
                page["page"],
                page["reference"].as_str().unwrap_or("?"),
                page["reason"].as_str().unwrap_or("?")
            ));
        }
    }
    failures
}

/// Every barcode element anywhere in a request (pages, stack blocks).
fn barcode_elements(value: &Value, found: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            if map.get("type").and_then(Value::as_str) == Some("barcode") {
                found.push(value.clone());
            }
            map.values().for_each(|v| barcode_elements(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| barcode_elements(v, found)),
        _ => {}
    }
}

/// zxing-cpp's name of a symbology, for the formats the gallery prints.
fn zxing_format(format: &str) -> &'static str {
    match format {
        "code128" | "gs1_128" => "Code 128",
        "qrcode" | "qr" | "gs1_qr" => "QR Code",
        "datamatrix" | "gs1_datamatrix" => "Data Matrix",
        "maxicode" => "MaxiCode",
        "code39" => "Code 39",
        "itf" | "itf14" => "ITF",
        "ean13" => "EAN-13",
        other => panic!("add zxing-cpp's name of {other} to zxing_format"),
    }
}

/// Whether a decoded symbol carries what the barcode element asks.
fn decodes_to(element: &Value, symbol: &Value) -> bool {
    let format = element["format"].as_str().unwrap();
    let content = element["content"].as_str().unwrap();
    if symbol["format"] != zxing_format(format) {
        return false;
    }
    let text = symbol["text"].as_str().unwrap_or_default();
    match format {
        // GS1 in zxing-cpp's human-readable form, "(01)...(10)...", which
        // only a symbol flagged as GS1 (FNC1 first) decodes to.
        f if f.starts_with("gs1_") => symbol["hri"] == content,
        "maxicode" => {
            let options = &element["options"];
            match options["mode"].as_u64() {
                // Modes 2 and 3: the decoder puts the structured carrier
                // message (postcode, country, service) after the
                // "[)>RS01GS96" header of the secondary message.
                Some(2 | 3) => {
                    let primary = format!(
                        "{}\u{1d}{}\u{1d}{}\u{1d}",
                        options["postcode"].as_str().unwrap(),
                        options["country"].as_str().unwrap(),
                        options["service"].as_str().unwrap()
                    );
                    let header = "[)>\u{1e}01\u{1d}96";
                    let expected = match content.strip_prefix(header) {
                        Some(rest) => format!("{header}{primary}{rest}"),
                        None => format!("{primary}{content}"),
                    };
                    text == expected
                }
                // Mode 4 pads the message up to its capacity.
                _ => text.starts_with(content),
            }
        }
        // Without its check digit, the content is the symbol's first 13.
        "itf14" if content.len() == 13 => text.len() == 14 && text.starts_with(content),
        _ => text == content,
    }
}

/// The box (x0, y0, x1, y1 in mm) of each MaxiCode placed directly on a
/// page of `request`: zxing-cpp reads MaxiCode only from a crop of it.
pub(crate) fn maxicode_boxes(request: &Value) -> Vec<(f64, f64, f64, f64)> {
    let mut boxes = Vec::new();
    for page in request["pages"].as_array().unwrap() {
        let margin = |side: &str| page["margin"][side].as_f64().unwrap_or(0.0);
        for e in page["elements"].as_array().unwrap() {
            if e["type"] == "barcode" && e["format"] == "maxicode" {
                let (mut w, mut h) = (f(e, "width"), f(e, "height"));
                if matches!(e["rotation"].as_u64(), Some(90 | 270)) {
                    (w, h) = (h, w);
                }
                let (x, y) = (f(e, "x") + margin("left"), f(e, "y") + margin("top"));
                boxes.push((x, y, x + w, y + h));
            }
        }
    }
    boxes
}

/// gallery.py's arguments decoding every page (and each MaxiCode's crop).
fn decode_args(request: &Value) -> Vec<String> {
    let mut args = vec!["--decode".to_string(), DECODE_DPI.to_string()];
    for (x0, y0, x1, y1) in maxicode_boxes(request) {
        args.push(format!("{x0},{y0},{x1},{y1}"));
    }
    args
}

/// Checks that each barcode of `request` was decoded (`report`: gallery.py's
/// decoding of `pdf`) once with its content, and nothing else was.
pub(crate) fn check_barcodes(request: &Value, report: &Value, pdf: &Path) {
    let mut expected = Vec::new();
    barcode_elements(request, &mut expected);
    let symbols = |key: &str| -> Vec<Value> {
        report[key]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|list| list.as_array().unwrap().iter().cloned())
            .collect()
    };
    let mut decoded = symbols("pages");
    // A symbol read both on its page and from its crop counts once.
    for symbol in symbols("boxes") {
        if !decoded.contains(&symbol) {
            decoded.push(symbol);
        }
    }
    for element in &expected {
        let at = decoded
            .iter()
            .position(|symbol| decodes_to(element, symbol))
            .unwrap_or_else(|| {
                panic!(
                    "{} {:?} not decoded from {}; zxing-cpp found {decoded:#?}",
                    element["format"],
                    element["content"],
                    pdf.display()
                )
            });
        decoded.remove(at);
    }
    assert!(
        decoded.is_empty(),
        "symbols no barcode element asked for: {decoded:#?}"
    );
}

/// Renders `examples/NAME.json`, compares (or with `LABELPRESS_BLESS=1`
/// writes) its reference images and decodes its barcodes. Returns the PDF.
fn check_example(name: &str) -> Pdf {
    let request_path = manifest_dir().join("examples").join(format!("{name}.json"));
    let request: Value = serde_json::from_slice(&std::fs::read(&request_path).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join(format!("{name}.pdf"));
    render_file(&request_path, &pdf);
    let diff_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gallery-diff");
    let mut args = if blessing() {
        vec!["--bless".into(), reference_prefix(name)]
    } else {
        compare_args(name, &diff_dir)
    };
    args.extend(decode_args(&request));
    let report = gallery(&pdf, &args);
    if blessing() {
        eprintln!("blessed {name}: {}", report["blessed"]);
    } else {
        let failures = comparison_failures(&report["comparison"]);
        assert!(
            failures.is_empty(),
            "examples/{name}.json no longer looks like its reference images \
             (if the change is intended: LABELPRESS_BLESS=1 cargo test --test suite gallery::):\n{}",
            failures.join("\n")
        );
    }
    check_barcodes(&request, &report["decoded"], &pdf);
    read_pdf(std::fs::read(&pdf).unwrap())
}

#[test]
fn shipping_label() {
    let pdf = check_example("label");
    assert_eq!(pdf.page_count(), 1);
}

#[test]
fn carrier_label_4x6_with_maxicode() {
    let pdf = check_example("carrier_label_4x6");
    // label_4_6_in: 101.6 x 152.4 mm.
    approx(f(pdf.page(0), "width"), 101.6, 0.01, "width");
    approx(f(pdf.page(0), "height"), 152.4, 0.01, "height");
}

#[test]
fn parcel_label_with_gs1_128() {
    check_example("parcel_label_gs1");
}

#[test]
fn packing_slip() {
    let pdf = check_example("packing_slip");
    assert_eq!(pdf.page_count(), 1);
    assert!(
        pdf.text(0).contains("NW-CB-0090"),
        "the last item is printed"
    );
}

/// The invoice's table runs over two sheets: the column headers and the
/// page header repeat on the second, and the footer counts the sheets.
#[test]
fn invoice_paginates_with_repeated_header_and_page_numbers() {
    let pdf = check_example("invoice");
    assert_eq!(pdf.page_count(), 2);
    for (page, number) in [(0, "Page 1 of 2"), (1, "Page 2 of 2")] {
        let text = pdf.text(page);
        assert!(text.contains(number), "page {page}: {text}");
        assert!(text.contains("Unit price"), "column headers on page {page}");
        assert!(text.contains("INV-2026-0419"), "page header on page {page}");
    }
    assert!(pdf.text(0).contains("Deep groove ball bearing"));
    assert!(
        pdf.text(1).contains("Total due"),
        "the totals follow the table"
    );
}

#[test]
fn product_label_with_gs1_datamatrix() {
    check_example("product_label");
}

/// The tolerance lets antialiasing noise through but not a moved element:
/// the shipping label with its 7 pt order reference moved by 0.05 mm (a
/// seventh of a 72 dpi pixel, which changes pixels: glyphs snap to other
/// sub-pixel positions) still matches; moved by 1 mm it does not, and the
/// failure leaves a diff image.
#[test]
fn comparison_tolerates_antialiasing_but_not_a_moved_element() {
    if blessing() {
        return; // the references are being rewritten
    }
    let original: Value =
        serde_json::from_slice(&std::fs::read(manifest_dir().join("examples/label.json")).unwrap())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let verdict = |shift_mm: f64| {
        let mut request = original.clone();
        let elements = request["pages"][0]["elements"].as_array_mut().unwrap();
        let reference = elements
            .iter_mut()
            .find(|e| e["content"] == "Ref: ORD-2026-000001")
            .expect("the label has its order reference");
        reference["x"] = (reference["x"].as_f64().unwrap() + shift_mm).into();
        let request_path = dir.path().join(format!("shifted-{shift_mm}.json"));
        std::fs::write(&request_path, serde_json::to_vec(&request).unwrap()).unwrap();
        let pdf = dir.path().join(format!("shifted-{shift_mm}.pdf"));
        render_file(&request_path, &pdf);
        let diff_dir = dir.path().join(format!("diff-{shift_mm}"));
        gallery(&pdf, &compare_args("label", &diff_dir))["comparison"].clone()
    };

    let nudged = verdict(0.05);
    assert!(
        comparison_failures(&nudged).is_empty(),
        "a 0.05 mm nudge is antialiasing noise: {nudged}"
    );
    assert!(
        nudged["results"][0]["changed"].as_u64().unwrap() > 0,
        "the nudge changes pixels: {nudged}"
    );

    let moved = verdict(1.0);
    let failures = comparison_failures(&moved);
    assert_eq!(failures.len(), 1, "{moved}");
    assert!(failures[0].contains("pixels differ"), "{}", failures[0]);
    let diff = moved["results"][0]["diff"].as_str().expect("a diff image");
    let png = std::fs::read(diff).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{diff} is a PNG");
}

/// The barcode check accepts exactly what the element asks: GS1 in the
/// decoder's "(AI)value" form (a plain Code 128 with the same digits is
/// not GS1), MaxiCode mode 2 with its postcode, country and service.
#[test]
fn decoded_symbols_match_only_the_content_asked_for() {
    let symbol = |format: &str, text: &str, hri: &str| serde_json::json!({"format": format, "text": text, "hri": hri});
    let gs1 = serde_json::json!({"format": "gs1_128", "content": "(00)340123450000000024"});
    assert!(decodes_to(
        &gs1,
        &symbol("Code 128", "00340123450000000024", "(00)340123450000000024")
    ));
    assert!(!decodes_to(
        &gs1,
        &symbol("Code 128", "00340123450000000024", "00340123450000000024")
    ));
    assert!(!decodes_to(
        &gs1,
        &symbol("QR Code", "00340123450000000024", "(00)340123450000000024")
    ));

    let maxicode = serde_json::json!({"format": "maxicode",
        "content": "[)>\u{1e}01\u{1d}96NWP1\u{1d}\u{1e}\u{4}",
        "options": {"mode": 2, "postcode": "606011234", "country": "840", "service": "045"}});
    let decoded = "[)>\u{1e}01\u{1d}96606011234\u{1d}840\u{1d}045\u{1d}NWP1\u{1d}\u{1e}\u{4}";
    assert!(decodes_to(&maxicode, &symbol("MaxiCode", decoded, "")));
    let other_service = decoded.replace("045", "001");
    assert!(!decodes_to(
        &maxicode,
        &symbol("MaxiCode", &other_service, "")
    ));
}
