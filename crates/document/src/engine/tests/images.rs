//! Image elements through the whole validation: each refusal is one
//! violation on the element's `data` path (API-002), never a panic; the
//! decoding budget is one per document.

use base64::Engine as _;
use serde_json::json;

use super::ENGINE;
use crate::config::RuntimeConfig;
use crate::engine::fonts::FontOptions;
use crate::engine::Engine;
use crate::validate::test_images::{at, encoded, fixture, gif, png_chunk, png_header};
use crate::validate::{check_image, RequestError, Violation};

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The violations of a one-page request whose fourth element is an image
/// with this `data`.
fn violations(data: &str) -> Vec<Violation> {
    let rect = json!({"type": "rect", "x": 1, "y": 1, "width": 2, "height": 2});
    let body = json!({"pages": [{"size": "a6", "elements": [
        rect, rect, rect,
        {"type": "image", "x": 1, "y": 1, "width": 20, "height": 20, "data": data}
    ]}]});
    match ENGINE.validate(body.to_string().as_bytes()) {
        Ok(_) => Vec::new(),
        Err(RequestError::Invalid(violations)) => violations,
        Err(e) => panic!("not a validation error: {e}"),
    }
}

/// Asserts one violation, on the image's `data`, saying `says`.
fn assert_refused(data: &str, says: &str) {
    let found = violations(data);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "pages[0].elements[3].data");
    assert!(found[0].message.contains(says), "{}", found[0].message);
}

#[test]
fn valid_images_validate_in_every_form() {
    let png = encoded(image::ImageFormat::Png, 10, 10);
    assert_eq!(violations(&base64(&png)), []);
    assert_eq!(
        violations(&format!("data:image/png;base64,{}", base64(&png))),
        []
    );
    let svg = "data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%2210%22 height=%2210%22/%3E";
    assert_eq!(violations(svg), []);
}

#[test]
fn the_issue_percent_encoded_data_uri_is_refused_not_a_panic() {
    // Issue 14 item 8: this panicked in percent decoding (a 500).
    assert_refused(
        "data:image/svg+xml,%aé<svg xmlns='http://www.w3.org/2000/svg'/>",
        "not a PNG, JPEG, GIF, WebP or SVG",
    );
}

#[test]
fn a_corrupt_png_names_the_element() {
    let mut png = png_header(40, 40);
    png.extend(png_chunk(b"IDAT", b"\x78\x9c not deflate"));
    png.extend(png_chunk(b"IEND", b""));
    assert_refused(&base64(&png), "the PNG data is corrupt");
}

#[test]
fn a_gif_frame_larger_than_its_screen_names_the_element() {
    let gif = gif((1, 1), at(0, 0, 60_000, 60_000));
    assert_refused(&base64(&gif), "does not fit its 1x1 screen");
}

#[test]
fn a_hostile_svg_names_the_element() {
    let deep = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>{}{}",
        "<svg width='10' height='10'>".repeat(700),
        "</svg>".repeat(701)
    );
    assert_refused(
        &format!("data:image/svg+xml;base64,{}", base64(deep.as_bytes())),
        "nests deeper than 64 levels",
    );
    let leak = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><image href='file:///etc/passwd' width='1' height='1'/></svg>";
    assert_refused(
        &base64(leak.as_bytes()),
        "the <image> at line 1, column 64: the SVG refers to `file:///etc/passwd`",
    );
}

#[test]
fn distinct_images_share_one_decoding_budget_per_document_and_repeats_count_once() {
    let dot = format!("data:image/png;base64,{}", base64(&fixture("dot.png")));
    let each = {
        let found = check_image(fixture("dot.png"), &crate::config::Limits::default()).unwrap();
        found.decoded_bytes
    };
    // Room for two distinct images' pixels, not three.
    let mut config = RuntimeConfig::default();
    config.limits.images_decoded_bytes = 2 * each + each / 2;
    let engine = Engine::new(config, &FontOptions::EMBEDDED, None);
    let image = |data: &str| json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": data});
    // The same picture three times decodes once.
    let same =
        json!({"pages": [{"size": "a6", "elements": [image(&dot), image(&dot), image(&dot)]}]});
    assert!(engine.validate(same.to_string().as_bytes()).is_ok());
    // Three distinct ones (the same pixels, different bytes) do not fit.
    let distinct_pngs: Vec<String> = (0..3)
        .map(|i| {
            let mut bytes = fixture("dot.png");
            // A distinct file: an extra text chunk before IEND.
            let at = bytes.len() - 12;
            bytes.splice(at..at, png_chunk(b"tEXt", format!("k\0{i}").as_bytes()));
            format!("data:image/png;base64,{}", base64(&bytes))
        })
        .collect();
    let distinct = json!({"pages": [{"size": "a6", "elements":
        distinct_pngs.iter().map(|d| image(d)).collect::<Vec<_>>()}]});
    match engine.validate(distinct.to_string().as_bytes()) {
        Err(RequestError::Invalid(found)) => {
            assert_eq!(found.len(), 1, "{found:?}");
            assert_eq!(found[0].path, "pages[0].elements[2].data");
            assert!(
                found[0].message.contains("decode to more than"),
                "{}",
                found[0].message
            );
        }
        other => panic!("expected the budget violation, got {other:?}"),
    }
}
