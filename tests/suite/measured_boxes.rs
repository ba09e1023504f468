//! Every text box is measured before it is drawn: the content-box rule and
//! stack blocks use the box the text prints in (issue 15's new-user cases),
//! read back from the PDF.

use serde_json::{json, Value};

use crate::support::*;

/// An A6 page with 10 mm margins: a content box of 85 x 128 mm at (10, 10).
fn a6_with_margins(elements: Value) -> Value {
    json!({"pages": [{"size": "A6", "margin": {"top": 10, "right": 10, "bottom": 10, "left": 10},
        "elements": elements}]})
}

const WRAPPING: &str = "Recipient name and a long street address that wraps onto \
    several lines in a forty millimetre box, with a town and a postcode";

#[test]
fn text_without_width_is_as_wide_as_its_line() {
    let ws = "W".repeat(30);
    assert_violation(
        a6_with_margins(json!([{"type": "text", "x": 10, "y": 0, "content": ws,
            "style": {"font_size": 12}}])),
        "pages[0].elements[0]",
        "exceeds the content box",
    );
    // Eight fit: the rule measures the text, it does not refuse all text without a width.
    let pdf = render(a6_with_margins(json!([{"type": "text", "x": 10, "y": 0,
        "content": "W".repeat(8), "style": {"font_size": 12}}])));
    let span = pdf.span(0, "WWWWWWWW");
    assert!(
        f(span, "x1") <= 95.0 + 0.01,
        "printed inside the box: {span}"
    );
    // Turned a quarter turn, the same 30 Ws (about 126 x 5 mm) are tested
    // upright against the 128 mm height and print.
    let pdf = render(a6_with_margins(json!([{"type": "text", "x": 10, "y": 0,
        "content": ws, "rotation": 90, "style": {"font_size": 12}}])));
    assert!(pdf.text(0).contains(&ws));
}

#[test]
fn wrapped_lines_count_towards_the_height() {
    assert_violation(
        a6_with_margins(
            json!([{"type": "text", "x": 0, "y": 110, "content": WRAPPING,
            "style": {"width": 40}}]),
        ),
        "pages[0].elements[0]",
        "exceeds the content box",
    );
    // Higher up it fits, and the lines it prints stay inside the 40 mm.
    let pdf = render(a6_with_margins(json!([{"type": "text", "x": 0, "y": 10,
        "content": WRAPPING, "style": {"width": 40}}])));
    let spans = pdf.spans(0);
    assert!(spans.len() >= 5, "the text wraps: {:?}", pdf.text(0));
    for s in &spans {
        assert!(
            f(s, "x0") >= 10.0 - 0.01 && f(s, "x1") <= 50.0 + 0.01,
            "{s}"
        );
        assert!(f(s, "y1") <= 138.0, "{s}");
    }
}

#[test]
fn the_next_stack_block_starts_below_wrapped_text() {
    let pdf = render(a6_with_margins(json!([{"type": "stack", "children": [
        {"type": "table", "x": 0, "y": 0, "columns": [{"key": "a", "header": "A", "width": {"mode": "fixed", "value": 40}}],
         "rows": [{"a": "one"}]},
        {"type": "block", "elements": [
            {"type": "text", "x": 0, "y": 0, "content": WRAPPING, "style": {"width": 40}}
        ]},
        {"type": "block", "elements": [
            {"type": "text", "x": 0, "y": 0, "content": "NEXT-BLOCK"}
        ]}
    ]}])));
    let wrapped_bottom = pdf
        .spans(0)
        .iter()
        .filter(|s| !s["text"].as_str().unwrap().contains("NEXT-BLOCK"))
        .map(|s| f(s, "y1"))
        .fold(0.0, f64::max);
    let next = pdf.span(0, "NEXT-BLOCK");
    assert!(
        f(next, "y0") >= wrapped_bottom - 0.01,
        "the second block ({}) starts below the wrapped text ({wrapped_bottom})",
        f(next, "y0")
    );
}
