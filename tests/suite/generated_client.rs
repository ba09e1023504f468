//! A client generated from the contract works without hand edits:
//! openapi-python-client 0.29 (tests/support/requirements.txt) generates a
//! Python package from the `/openapi.json` a running `serve` answers, with
//! `--fail-on-warning` (a body it cannot type, such as a PDF without
//! `format: binary`, is a warning), and tests/support/generated_client.py
//! renders through it: a label as PDF and as PNG (the output chosen by the
//! generated call's `format` argument) and a QR Code as SVG. The bytes are
//! read back by independent readers: PyMuPDF for the PDF's text, Pillow for
//! the PNG's size, zxing-cpp for the barcode.

use serde_json::Value;

use crate::server::{self, SYSTEM};
use crate::support::{python_json, read_pdf};

/// Pixels of `mm` at `dpi`, as the PNG output rounds them.
fn px(mm: f64, dpi: f64) -> u64 {
    (mm / 25.4 * dpi).round() as u64
}

#[tokio::test(flavor = "multi_thread")]
async fn a_generated_python_client_renders_a_label_and_a_barcode_without_edits() {
    let dir = tempfile::tempdir().unwrap();
    let node = server::start(&dir.path().join("data"), &[]);
    let served = server::get(&node.base, "/openapi.json").await;
    assert_eq!(served.status, 200);
    let document = dir.path().join("openapi.json");
    std::fs::write(&document, &served.bytes).unwrap();
    let request = dir.path().join("label.json");
    let label = server::label("Generated client");
    std::fs::write(&request, serde_json::to_vec(&label).unwrap()).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();

    let result = python_json(
        "generated_client.py",
        &[
            document.as_os_str(),
            out.as_os_str(),
            node.base.as_ref(),
            SYSTEM.as_ref(),
            request.as_os_str(),
        ],
        "openapi-python-client, Pillow",
    );

    // The PDF: its magic, and the label's text read back.
    let pdf = std::fs::read(out.join("label.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"), "{result}");
    assert_eq!(result["pdf"]["status"], 200);
    assert!(read_pdf(pdf).text(0).contains("Generated client"));

    // The PNG: A6 (105 x 148 mm) at the 300 dpi asked, 1-bit with mono.
    let png = &result["png"];
    assert_eq!(png["status"], 200, "{result}");
    assert_eq!(png["magic"], "89504e470d0a1a0a");
    assert_eq!(
        (png["width"].as_u64(), png["height"].as_u64()),
        (Some(px(105.0, 300.0)), Some(px(148.0, 300.0))),
        "{result}"
    );
    assert_eq!(png["mode"], "1", "{result}");

    // The SVG of the per-symbology operation decodes to what was sent; a
    // `/` in the content goes through as one path segment.
    let svg_path = out.join("qr.svg");
    assert_eq!(result["svg"]["status"], 200, "{result}");
    let decoded = python_json("../barcode/decode.py", &[svg_path.as_os_str()], "zxing-cpp");
    let symbols = decoded[svg_path.to_str().unwrap()].as_array().unwrap();
    assert_eq!(symbols.len(), 1, "{decoded}");
    assert_eq!(symbols[0]["format"], "QR Code");
    assert_eq!(symbols[0]["text"], "A/B 7");

    // The generated call for a refused request gets the documented error
    // body, parsed into its model.
    assert_eq!(result["error"]["status"], 422, "{result}");
    assert_eq!(result["error"]["code"], "API-002", "{result}");
    assert!(matches!(result["error"]["req_id"], Value::String(_)));
}
