//! Unit tests of the pieces; tests/suite/warnings.rs checks each code on
//! whole documents.

use std::sync::LazyLock;

use super::sheet::{placement, Placement};
use super::*;
use crate::engine::fonts::FontOptions;
use crate::engine::Engine;
use crate::ir::Rect;

static ENGINE: LazyLock<Engine> =
    LazyLock::new(|| Engine::new(Default::default(), &FontOptions::EMBEDDED, None));

fn warnings(request: serde_json::Value) -> Vec<Warning> {
    let laid = ENGINE
        .validate(&serde_json::to_vec(&request).unwrap())
        .unwrap_or_else(|e| panic!("invalid: {e}"));
    check(&laid)
}

fn rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
    Rect { x, y, w, h }
}

#[test]
fn a_box_is_inside_outside_or_cut() {
    assert_eq!(
        placement(&rect(0.0, 0.0, 10.0, 10.0), 10.0, 10.0),
        Placement::Inside
    );
    assert_eq!(
        placement(&rect(10.0, 0.0, 5.0, 5.0), 10.0, 10.0),
        Placement::Outside
    );
    assert_eq!(
        placement(&rect(-5.0, 2.0, 5.0, 5.0), 10.0, 10.0),
        Placement::Outside
    );
    assert_eq!(
        placement(&rect(8.0, -1.0, 5.0, 5.0), 10.0, 10.0),
        Placement::Cut([0.0, 1.0, 3.0, 0.0])
    );
    // A line along an edge is on the sheet; one beyond it is not.
    assert_eq!(
        placement(&rect(0.0, 0.0, 10.0, 0.0), 10.0, 10.0),
        Placement::Inside
    );
    assert_eq!(
        placement(&rect(0.0, 10.5, 10.0, 0.0), 10.0, 10.0),
        Placement::Outside
    );
}

#[test]
fn codes_serialise_as_their_names() {
    for code in Code::ALL {
        assert_eq!(
            serde_json::to_value(code).unwrap(),
            serde_json::Value::from(code.as_str())
        );
    }
    let names: std::collections::BTreeSet<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(names.len(), Code::ALL.len());
}

#[test]
fn lengths_in_messages_have_at_most_two_decimals() {
    assert_eq!(mm(105.0), "105");
    assert_eq!(mm(2.5), "2.5");
    assert_eq!(mm(1.23456), "1.23");
    assert_eq!(mm(-0.001), "0");
}

#[test]
fn a_clean_label_has_no_warnings() {
    let found = warnings(serde_json::json!({"pages": [{"size": "a6", "elements": [
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
    let found = warnings(serde_json::json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 5, "y": 10, "content": "Name:"},
        {"type": "text", "x": 5, "y": 10, "content": "Ada", "style": {"width": 90, "text_align": "right"}}
    ]}]}));
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn lines_set_a_little_closer_than_their_line_height_do_not_overlap() {
    // 10 pt at line height 1.2 is a 4.23 mm box; 3.6 mm apart the boxes
    // share 0.63 mm of leading, not glyphs.
    let found = warnings(serde_json::json!({"pages": [{"size": "a6", "elements": [
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
        .map(|i| serde_json::json!({"type": "text", "x": 500 + i, "y": 10, "content": "x"}))
        .collect();
    let found = warnings(serde_json::json!({"pages": [{"size": "a6", "elements": elements}]}));
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
