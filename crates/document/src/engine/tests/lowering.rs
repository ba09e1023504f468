//! The generated Typst source of whole validated documents.

use serde_json::{json, Value};

use super::ENGINE;

fn source(request: Value) -> String {
    let laid = ENGINE
        .validate(request.to_string().as_bytes())
        .expect("a valid request");
    ENGINE.lower(&laid).source
}

/// Typst parses and evaluates the whole source on every render, so the
/// line box edges every text of the default face and line height shares
/// are set once, in the document's `#set text`, and only a text whose
/// edges differ carries its own.
#[test]
fn texts_carry_line_box_edges_only_where_they_differ_from_the_documents() {
    let text = |y: f64, style: Value| json!({"type": "text", "x": 5, "y": y, "content": format!("at {y}"), "style": style});
    let plain = source(json!({"pages": [{"size": "a6", "elements": [
        text(5.0, json!({})),
        text(15.0, json!({"font_size": 14, "font_weight": "bold"})),
        text(25.0, json!({"line_height": 1.2}))
    ]}]}));
    assert_eq!(plain.matches("top-edge").count(), 1, "{plain}");
    assert_eq!(plain.matches("bottom-edge").count(), 1, "{plain}");
    let set_rule = plain
        .lines()
        .find(|l| l.starts_with("#set text(font:"))
        .unwrap();
    assert!(
        set_rule.contains("top-edge: 0.7598em, bottom-edge: -0.4402em"),
        "{set_rule}"
    );

    let taller = source(json!({"pages": [{"size": "a6", "elements": [
        text(5.0, json!({})),
        text(15.0, json!({"line_height": 2}))
    ]}]}));
    let own: Vec<&str> = taller
        .lines()
        .filter(|l| l.starts_with("place(") && l.contains("bottom-edge"))
        .collect();
    assert_eq!(own.len(), 1, "{taller}");
    assert!(
        own[0].contains("\"at 15\"") && own[0].contains("bottom-edge: -1.2402em"),
        "{}",
        own[0]
    );
}

/// A barcode is one SVG image of exactly its element's box, placed as it
/// is; only a barcode with human-readable text (placed in the same box)
/// keeps a box around both.
#[test]
fn a_barcode_without_text_is_its_image_alone() {
    let barcode = |y: f64, hrt: bool| {
        json!({"type": "barcode", "x": 5, "y": y, "width": 60, "height": 20, "format": "code128",
               "content": format!("Y{y}"), "hrt": {"enabled": hrt}})
    };
    let lowered = source(json!({"pages": [{"size": "a6", "elements": [
        barcode(5.0, false),
        barcode(40.0, true)
    ]}]}));
    let line = |content: &str| {
        lowered
            .lines()
            .find(|l| l.starts_with("place(") && l.contains(content))
            .unwrap_or_else(|| panic!("{content} in {lowered}"))
            .to_string()
    };
    let bare = line("alt: \"Y5\"");
    assert!(
        bare.starts_with("place(dx: 5mm, dy: 5mm, image(\"/img/"),
        "{bare}"
    );
    let with_text = line("alt: \"Y40\"");
    assert!(
        with_text.contains("box(width: 60mm, height: 20mm, { place(image("),
        "{with_text}"
    );
}
