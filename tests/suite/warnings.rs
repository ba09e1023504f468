//! Validation warnings (docs/document-request.md, "Warnings"): one test per
//! code with its path, documents and the examples without any, the most
//! reported, the report of an invalid document, and where they appear:
//! `labelpress check`, the render route's `X-Labelpress-Warnings`, and
//! `POST /api/v1/label/check`, which is never charged. Warnings never change
//! the PDF.

use std::process::Command;
use std::time::Duration;

use labelpress::warnings::{check, CheckReport, Code, Warning, MAX_WARNINGS};
use serde_json::{json, Value};

use crate::server::{self, SYSTEM};
use crate::support::*;

fn warnings_of(request: &Value) -> Vec<Warning> {
    let laid = ENGINE
        .validate(&serde_json::to_vec(request).unwrap())
        .unwrap_or_else(|e| panic!("invalid: {e}\n{request}"));
    check(&laid)
}

/// Asserts that `request` has exactly one warning, `code` at `path`, and
/// returns its message.
#[track_caller]
fn only_warning(request: Value, code: Code, path: &str) -> String {
    let found = warnings_of(&request);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        (found[0].code, found[0].path.as_str()),
        (code, path),
        "{found:#?}"
    );
    found[0].message.clone()
}

fn a6(elements: Value) -> Value {
    json!({"pages": [{"size": "a6", "elements": elements}]})
}

/// A text that fits nowhere near its 30 x 5 mm box.
const LONG: &str = "A long text that will certainly not fit into this little box at all";

#[test]
fn w01_an_element_entirely_outside_its_sheet() {
    // The issue's case: x 500 on an A6 page without margins.
    let message = only_warning(
        a6(json!([
            {"type": "text", "x": 10, "y": 10, "content": "Kept"},
            {"type": "text", "x": 500, "y": 10, "content": "Lost"}
        ])),
        Code::OffSheet,
        "pages[0].elements[1]",
    );
    assert!(message.contains("entirely outside"), "{message}");
    // A header element off every page, named at the header.
    only_warning(
        json!({
            "header": {"height": 10, "elements": [{"type": "rect", "x": 2, "y": -20, "width": 10, "height": 5}]},
            "pages": [{"size": "a6", "elements": []}]
        }),
        Code::OffSheet,
        "header.elements[0]",
    );
}

#[test]
fn w02_an_element_cut_by_the_sheet_edge() {
    let message = only_warning(
        a6(
            json!([{"type": "barcode", "x": 80, "y": 10, "format": "qr", "content": "x", "width": 30, "height": 30}]),
        ),
        Code::CutBySheetEdge,
        "pages[0].elements[0]",
    );
    assert!(message.contains("5 mm past the right edge"), "{message}");
    // In a stack block, placed where the flow put it.
    only_warning(
        a6(json!([{"type": "stack", "children": [
            {"type": "table", "x": 5, "y": 10, "columns": [{"key": "a", "header": "A", "width": {"mode": "fixed", "value": 40}}], "rows": [{"a": "1"}]},
            {"type": "block", "elements": [{"type": "rect", "x": 90, "y": 2, "width": 30, "height": 5}]}
        ]}])),
        Code::CutBySheetEdge,
        "pages[0].elements[0].children[1].elements[0]",
    );
    // A table wider than the sheet is cut too.
    only_warning(
        a6(
            json!([{"type": "table", "x": 50, "y": 10, "columns": [{"key": "a", "header": "A", "width": {"mode": "fixed", "value": 80}}], "rows": [{"a": "1"}]}]),
        ),
        Code::CutBySheetEdge,
        "pages[0].elements[0]",
    );
}

#[test]
fn w03_barcode_modules_narrower_than_a_printer_dot() {
    // 75 characters of a URL make a 37-module QR Code (version 5, ecl M):
    // 4 mm / 37 = 0.108 mm, below a 203-dpi dot (0.125 mm).
    let url = "https://example.com/track/0123456789012345678901234567890123456789012345678";
    assert_eq!(url.len(), 75);
    let qr = |h: f64| json!({"type": "barcode", "x": 10, "y": 10, "format": "qr", "content": url, "width": 10, "height": h});
    let message = only_warning(
        a6(json!([qr(4.0)])),
        Code::ModuleBelowDot,
        "pages[0].elements[0]",
    );
    assert!(message.contains("203 dpi"), "{message}");
    assert!(message.contains("0.108 mm"), "{message}");
    // A 600-dpi printer resolves it.
    let at_600 =
        json!({"settings": {"print_dpi": 600}, "pages": [{"size": "a6", "elements": [qr(4.0)]}]});
    assert!(warnings_of(&at_600).is_empty());
    // A requested bar width below the dot, named in the fix.
    let message = only_warning(
        a6(
            json!([{"type": "barcode", "x": 5, "y": 10, "format": "code128", "content": "AB12", "width": 60, "height": 20, "options": {"bar_width": 0.1}}]),
        ),
        Code::ModuleBelowDot,
        "pages[0].elements[0]",
    );
    assert!(message.contains("options.bar_width"), "{message}");
}

#[test]
fn w04_one_d_bars_below_the_scanner_safe_height() {
    // 80 mm of bars need 12 mm (15 %); 8 mm is too short.
    let message = only_warning(
        a6(
            json!([{"type": "barcode", "x": 10, "y": 10, "format": "code128", "content": "ABCDEFGHIJ0123456789", "width": 80, "height": 8}]),
        ),
        Code::BarsTooShort,
        "pages[0].elements[0]",
    );
    assert!(message.contains("8 mm tall"), "{message}");
    // A short symbol needs 5 mm; the human-readable text is not bar height.
    only_warning(
        a6(
            json!([{"type": "barcode", "x": 10, "y": 10, "format": "ean8", "content": "9638507", "width": 25, "height": 7, "hrt": {"enabled": true}}]),
        ),
        Code::BarsTooShort,
        "pages[0].elements[0]",
    );
    assert!(warnings_of(&a6(json!([{"type": "barcode", "x": 10, "y": 10, "format": "ean8", "content": "9638507", "width": 25, "height": 12, "hrt": {"enabled": true}}]))).is_empty());
}

#[test]
fn w05_text_cut_by_clip_or_ellipsis() {
    for overflow in ["clip", "ellipsis"] {
        let message = only_warning(
            a6(
                json!([{"type": "text", "x": 10, "y": 10, "content": LONG, "style": {"width": 30, "height": 5, "text_overflow": overflow}}]),
            ),
            Code::TextCut,
            "pages[0].elements[0]",
        );
        assert!(message.contains(overflow), "{message}");
    }
    // Text that fits is not cut, whatever its overflow.
    assert!(warnings_of(&a6(json!([{"type": "text", "x": 10, "y": 10, "content": "Short", "style": {"width": 30, "height": 5, "text_overflow": "clip"}}]))).is_empty());
    // A table cell cut by its ellipsis, at the cell's path.
    only_warning(
        a6(json!([{"type": "table", "x": 5, "y": 10,
            "columns": [{"key": "sku", "header": "SKU", "width": {"mode": "fixed", "value": 20}},
                        {"key": "name", "header": "Name", "width": {"mode": "fixed", "value": 30}, "cell": {"text": {"text_overflow": "ellipsis"}}}],
            "rows": [{"sku": "1", "name": "Fits"}, {"sku": "2", "name": LONG}]}])),
        Code::TextCut,
        "pages[0].elements[0].rows[1].name",
    );
}

#[test]
fn w06_text_shrunk_to_the_minimum_and_still_too_large() {
    let message = only_warning(
        a6(
            json!([{"type": "text", "x": 10, "y": 10, "content": LONG, "style": {"width": 20, "height": 4, "shrink_to_fit": true, "min_font_size": 6}}]),
        ),
        Code::ShrunkAndStillTooLarge,
        "pages[0].elements[0]",
    );
    assert!(message.contains("6 pt"), "{message}");
    // Shrinking that succeeds is what was asked for.
    assert!(warnings_of(&a6(json!([{"type": "text", "x": 10, "y": 10, "content": "Fits when smaller", "style": {"width": 20, "height": 4, "shrink_to_fit": true, "min_font_size": 3}}]))).is_empty());
}

#[test]
fn w07_overlapping_text_elements() {
    let message = only_warning(
        a6(json!([
            {"type": "text", "x": 12, "y": 100, "content": "Overlap me"},
            {"type": "rect", "x": 10, "y": 98, "width": 40, "height": 10},
            {"type": "text", "x": 14, "y": 101, "content": "Overlapping"}
        ])),
        Code::TextOverlap,
        "pages[0].elements[2]",
    );
    assert!(message.contains("pages[0].elements[0]"), "{message}");
    // A footer text over a page's text, once however many pages.
    let page = json!({"size": "a6", "elements": [{"type": "text", "x": 5, "y": 140, "content": "Body text at the bottom"}]});
    let found = warnings_of(&json!({
        "footer": {"height": 10, "elements": [{"type": "text", "x": 5, "y": 2, "content": "Footer text"}]},
        "pages": [page.clone(), page]
    }));
    let paths: Vec<(&str, Code)> = found.iter().map(|w| (w.path.as_str(), w.code)).collect();
    assert_eq!(
        paths,
        [
            ("footer.elements[0]", Code::TextOverlap),
            ("footer.elements[0]", Code::TextOverlap)
        ],
        "one per page's text: {found:#?}"
    );
    assert!(
        found[1].message.contains("pages[1].elements[0]"),
        "{found:#?}"
    );
}

#[test]
fn a_clean_label_has_no_warnings() {
    let found = warnings_of(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "Hello"},
        {"type": "text", "x": 10, "y": 20, "content": "World", "style": {"width": 80, "text_align": "right"}},
        {"type": "barcode", "x": 10, "y": 40, "format": "code128", "content": "ABC123", "width": 60, "height": 15},
        {"type": "barcode", "x": 10, "y": 60, "format": "qr", "content": "https://example.com", "width": 20, "height": 20}
    ]}]}));
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_right_aligned_text_in_a_wide_box_does_not_collide_with_a_text_left_of_its_line() {
    // The second box covers the first, but its line prints at the right.
    let found = warnings_of(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 5, "y": 10, "content": "Name:"},
        {"type": "text", "x": 5, "y": 10, "content": "Ada", "style": {"width": 90, "text_align": "right"}}
    ]}]}));
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn lines_set_a_little_closer_than_their_line_height_do_not_overlap() {
    // 10 pt at line height 1.2 is a 4.23 mm box; 3.6 mm apart the boxes
    // share 0.63 mm of leading, not glyphs.
    let found = warnings_of(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 5, "y": 10, "content": "First line"},
        {"type": "text", "x": 5, "y": 13.6, "content": "Second line"},
        {"type": "text", "x": 5, "y": 15, "content": "Third line, on the second"}
    ]}]}));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].code, Code::TextOverlap);
    assert_eq!(found[0].path, "pages[0].elements[2]");
    assert!(
        found[0].message.contains("pages[0].elements[1]"),
        "{}",
        found[0].message
    );
}

#[test]
fn checking_stops_at_the_most_warnings_reported() {
    let elements: Vec<_> = (0..150)
        .map(|i| json!({"type": "text", "x": 500 + i, "y": 10, "content": "x"}))
        .collect();
    let found = warnings_of(&json!({"pages": [{"size": "a6", "elements": elements}]}));
    assert_eq!(found.len(), MAX_WARNINGS);
}

#[test]
fn the_report_of_an_invalid_document_lists_its_violations() {
    let outcome = ENGINE.validate(br#"{"pages": [{"size": "a99"}]}"#);
    let report = CheckReport::of(&outcome);
    assert!(!report.valid);
    assert_eq!((report.sheets, report.warnings), (0, 0));
    assert_eq!(report.details[0].code, "API-002");
    assert_eq!(report.details[0].path, "pages[0].size");
    let report = CheckReport::of(&ENGINE.validate(b"{"));
    assert_eq!(report.details[0].code, "API-001");
}

#[test]
fn the_examples_have_no_warnings() {
    let mut checked = 0;
    for entry in std::fs::read_dir(manifest_dir().join("examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        // examples/addresses.json needs the system's Noto fonts.
        let laid = SYSTEM_FONTS_ENGINE
            .validate(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let found = check(&laid);
        assert!(found.is_empty(), "{}: {found:#?}", path.display());
        checked += 1;
    }
    assert!(checked >= 7, "{checked} examples");
}

/// A document with one warning of each of three kinds.
fn doubtful() -> Value {
    a6(json!([
        {"type": "text", "x": 10, "y": 10, "content": "Printed whole"},
        {"type": "text", "x": 90, "y": 20, "content": "Half off the edge"},
        {"type": "text", "x": 10, "y": 30, "content": LONG, "style": {"width": 30, "height": 5, "text_overflow": "ellipsis"}},
        {"type": "barcode", "x": 10, "y": 50, "format": "code128", "content": "ABCDEFGHIJ0123456789", "width": 80, "height": 8}
    ]))
}

#[test]
fn check_prints_warnings_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doubtful.json");
    std::fs::write(&path, serde_json::to_vec(&doubtful()).unwrap()).unwrap();
    let out = Command::new(server::binary())
        .arg("check")
        .arg(&path)
        .arg("--no-system-fonts")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with("pages[0].elements[1]: LP-W02 "),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("pages[0].elements[2]: LP-W05 "),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("pages[0].elements[3]: LP-W04 "),
        "{stdout}"
    );
    // `render` says how many, beside its summary.
    let pdf = dir.path().join("doubtful.pdf");
    let out = Command::new(server::binary())
        .arg("render")
        .arg(&path)
        .arg("-o")
        .arg(&pdf)
        .arg("--no-system-fonts")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("3 warning(s)"), "{stderr}");
}

async fn post(base: &str, path: &str, token: Option<&str>, body: &Value) -> server::Reply {
    let mut request = server::client().post(format!("{base}{path}")).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    server::reply(request.send().await.unwrap()).await
}

#[tokio::test(flavor = "multi_thread")]
async fn the_check_route_lists_warnings_and_is_never_charged() {
    let dir = tempfile::tempdir().unwrap();
    let epoch = [("SOURCE_DATE_EPOCH", "1700000000")];
    let node = server::start_with_env(dir.path(), &[], &epoch);
    let base = &node.base;
    let (id, token) = server::new_token(base, 2, None).await;

    // Valid with warnings: the shape of the answer.
    let reply = post(base, "/api/v1/label/check", Some(&token), &doubtful()).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.bytes)
    );
    let body = reply.json();
    assert_eq!(body["valid"], true);
    assert_eq!(body["sheets"], 1);
    assert_eq!(body["warnings"], 3);
    let details = body["details"].as_array().unwrap();
    assert_eq!(details.len(), 3);
    assert_eq!(details[0]["path"], "pages[0].elements[1]");
    assert_eq!(details[0]["code"], "LP-W02");
    assert!(details[0]["message"]
        .as_str()
        .unwrap()
        .contains("right edge"));
    server::assert_request_id(&reply, reply.header("x-request-id").as_deref().unwrap());

    // Clean: no warnings.
    let reply = post(
        base,
        "/api/v1/label/check",
        Some(&token),
        &server::label("Hello"),
    )
    .await;
    assert_eq!(
        reply.json(),
        json!({"valid": true, "sheets": 1, "warnings": 0, "details": []})
    );

    // Invalid: 200, not valid, the violations with their code.
    let invalid = json!({"pages": [{"size": "a99"}]});
    let body = post(base, "/api/v1/label/check", Some(&token), &invalid)
        .await
        .json();
    assert_eq!(body["valid"], false);
    assert_eq!((&body["sheets"], &body["warnings"]), (&json!(0), &json!(0)));
    assert_eq!(body["details"][0]["path"], "pages[0].size");
    assert_eq!(body["details"][0]["code"], "API-002");
    let reply = server::reply(
        server::client()
            .post(format!("{base}/api/v1/label/check"))
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body("{\"pages\": [")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(reply.json()["details"][0]["code"], "API-001");

    // Authenticated like the render route; the body rules are its too.
    post(base, "/api/v1/label/check", None, &doubtful())
        .await
        .assert_error(401, "API-101");
    post(
        base,
        "/api/v1/label/check",
        Some("lp_no_such_token"),
        &doubtful(),
    )
    .await
    .assert_error(403, "API-102");
    let reply = server::reply(
        server::client()
            .post(format!("{base}/api/v1/label/check"))
            .bearer_auth(&token)
            .header("content-type", "text/plain")
            .body(serde_json::to_vec(&doubtful()).unwrap())
            .send()
            .await
            .unwrap(),
    )
    .await;
    reply.assert_error(415, "API-004");

    // After six checks with it, the token still renders twice, its whole
    // balance; the render route's header counts what the check listed.
    let rendered = server::render(base, &token, &doubtful()).await;
    assert_eq!(rendered.status, 200);
    assert_eq!(
        rendered.header("x-labelpress-warnings").as_deref(),
        Some("3")
    );
    let clean = server::render(base, &token, &server::label("Hello")).await;
    assert_eq!(clean.status, 200);
    assert_eq!(clean.header("x-labelpress-warnings").as_deref(), Some("0"));
    server::render(base, &token, &server::label("Hello"))
        .await
        .assert_error(403, "API-102");
    // The verifier took the two renders and nothing for the checks.
    server::await_balance(base, &id, 0, Duration::from_secs(20)).await;
    let (id, token) = server::new_token(base, 5, None).await;
    for _ in 0..3 {
        let reply = post(base, "/api/v1/label/check", Some(&token), &doubtful()).await;
        assert_eq!(reply.status, 200);
    }
    server::render(base, &token, &server::label("Hello")).await;
    server::await_balance(base, &id, 4, Duration::from_secs(20)).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        server::balance(base, &id).await,
        4,
        "checks are never charged"
    );

    // Warnings never change the PDF: the route's bytes are the CLI's.
    let dir2 = tempfile::tempdir().unwrap();
    let request = dir2.path().join("doubtful.json");
    std::fs::write(&request, serde_json::to_vec(&doubtful()).unwrap()).unwrap();
    let out = Command::new(server::binary())
        .arg("render")
        .arg(&request)
        .args(["-o", "-", "--no-system-fonts"])
        .envs(epoch)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout == rendered.bytes, "the route's PDF is the CLI's");
    let pdf = read_pdf(rendered.bytes);
    let text = pdf.text(0);
    assert!(
        text.contains("Printed whole") && text.contains("Half off"),
        "{text}"
    );

    // The system token checks too, and is not charged either (it never is).
    let reply = post(base, "/api/v1/label/check", Some(SYSTEM), &doubtful()).await;
    assert_eq!(reply.json()["warnings"], 3);
}
