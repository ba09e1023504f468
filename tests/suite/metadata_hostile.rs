//! Issue 14 item 7: metadata and link URLs that look like PDF or XMP syntax
//! cannot break the file. Rendered by `labelpress render`, then checked by
//! pikepdf/qpdf (tests/support/pdfcheck.py), a parser independent of ours.

use std::process::Command;

use serde_json::{json, Value};

use crate::support::{manifest_dir, pdfcheck, render_bytes};

const TITLE: &str = "A >> endobj B";
const AUTHOR: &str = "9 0 obj /Length 5 stream";
const SUBJECT: &str = "Order </rdf:RDF> 123";
const CREATOR: &str = "100% (unbalanced ( \\ endstream trailer startxref %%EOF";
const PRODUCER: &str = "P >> endobj </rdf:RDF> (x) \\ % <?xpacket end=\"w\"?> & \"q\" 'a' )(";
const URL: &str = "https://x.test/</rdf:RDF>?a=(b)&c=%25>>endobj";

fn request(profile: Option<&str>) -> Value {
    let mut settings = json!({"metadata": {
        "title": TITLE, "author": AUTHOR, "subject": SUBJECT,
        "creator": CREATOR, "producer": PRODUCER, "language": "en"
    }});
    if let Some(profile) = profile {
        settings["profile"] = json!(profile);
    }
    json!({"settings": settings, "pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "Hello"},
        {"type": "link", "x": 10, "y": 20, "width": 10, "height": 5, "alt": "Hostile link",
         "target": {"type": "url", "url": URL}}
    ]}]})
}

/// Renders `request` with `labelpress render` and returns the PDF.
fn render_with_cli(request: &Value) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("request.json");
    let output = dir.path().join("out.pdf");
    std::fs::write(&input, serde_json::to_vec(request).unwrap()).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_labelpress"))
        .current_dir(manifest_dir())
        .env("LABELPRESS_NO_SYSTEM_FONTS", "1")
        .arg("render")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "labelpress render failed: {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read(&output).unwrap()
}

/// Renders every hostile string of item 7 under `profile` and checks the file
/// is sound, the strings round-trip exactly, and XMP agrees with Info.
fn assert_sound_and_exact(profile: Option<&str>) {
    let check = pdfcheck(&render_with_cli(&request(profile)));
    let name = profile.unwrap_or("no profile");
    assert_eq!(check["open_error"], Value::Null, "{name}: {check}");
    assert_eq!(check["problems"], json!([]), "{name}: qpdf --check");
    assert_eq!(check["uris"], json!([URL]), "{name}");

    let xmp = &check["xmp"];
    assert_eq!(xmp["dc:title"], TITLE, "{name}");
    assert_eq!(xmp["dc:creator"], json!([AUTHOR]), "{name}");
    assert_eq!(xmp["dc:description"], SUBJECT, "{name}");
    assert_eq!(xmp["xmp:CreatorTool"], CREATOR, "{name}");
    assert_eq!(xmp["pdf:Producer"], PRODUCER, "{name}");
    assert_eq!(check["xmp_producers"], 1, "{name}: one pdf:Producer");

    let info = &check["docinfo"];
    if profile == Some("pdfa-4") {
        // PDF/A-4 (PDF 2.0) has no Info dictionary: the XMP is the metadata.
        assert_eq!(*info, Value::Null, "{name}");
        return;
    }
    assert_eq!(info["Title"], TITLE, "{name}");
    assert_eq!(info["Author"], AUTHOR, "{name}");
    assert_eq!(info["Subject"], SUBJECT, "{name}");
    assert_eq!(info["Creator"], CREATOR, "{name}");
    assert_eq!(info["Producer"], PRODUCER, "{name}");
    assert_eq!(info["Title"], xmp["dc:title"], "{name}: Info and XMP agree");
    assert_eq!(
        info["Producer"], xmp["pdf:Producer"],
        "{name}: Info and XMP agree"
    );
}

#[test]
fn hostile_metadata_and_links_round_trip_without_a_profile() {
    assert_sound_and_exact(None);
}

#[test]
fn hostile_metadata_and_links_round_trip_in_pdfa_2b() {
    assert_sound_and_exact(Some("pdfa-2b"));
}

#[test]
fn hostile_metadata_and_links_round_trip_in_pdfa_4_without_info() {
    assert_sound_and_exact(Some("pdfa-4"));
}

#[test]
fn hostile_metadata_and_links_round_trip_in_pdfa_ua1() {
    assert_sound_and_exact(Some("pdfa-ua1"));
}

/// The checker itself can fail: it opens without xref recovery and reports a
/// stream whose /Length misses `endstream`, the two ways item 7 broke files.
#[test]
fn the_checker_reports_a_wrong_startxref_and_a_wrong_stream_length() {
    let pdf = render_bytes(json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "Hello"}]}]}));
    assert_eq!(pdfcheck(&pdf)["problems"], json!([]));

    // This document has no user text, so byte searches are safe here.
    let at = memchr::memmem::rfind(&pdf, b"startxref\n").unwrap() + 10;
    let mut bad_xref = pdf.clone();
    bad_xref[at] = if pdf[at] == b'1' { b'2' } else { b'1' };
    let check = pdfcheck(&bad_xref);
    assert!(check["open_error"].is_string(), "{check}");

    let meta = memchr::memmem::find(&pdf, b"/Type/Metadata").unwrap();
    let length = memchr::memmem::rfind(&pdf[..meta], b"/Length ").unwrap() + 8;
    let mut bad_length = pdf.clone();
    bad_length[length] = if pdf[length] == b'1' { b'2' } else { b'1' };
    let check = pdfcheck(&bad_length);
    let problems = check["problems"].as_array().cloned().unwrap_or_default();
    assert!(
        check["open_error"].is_string() || !problems.is_empty(),
        "{check}"
    );
}
