//! `check_image` on whole files: the fixtures, bytes it refuses, the SVG
//! limits. engine/tests/images.rs takes image elements through the whole
//! validation (the engine is above this module).

use super::test_images::fixture;
use super::*;
use crate::config::RuntimeConfig;

#[test]
fn the_fixtures_pass_with_their_sizes() {
    let dot = check_image(fixture("dot.png"), &Limits::default()).unwrap();
    assert_eq!(
        (dot.kind, dot.width, dot.height),
        (ImageKind::Png, 4.0, 4.0)
    );
    assert_eq!(dot.decoded_bytes, 4 * 4 * 3);
    let logo = check_image(fixture("logo.svg"), &Limits::default()).unwrap();
    assert_eq!(
        (logo.kind, logo.width, logo.height),
        (ImageKind::Svg, 60.0, 30.0)
    );
}

#[test]
fn an_svg_the_renderer_would_not_recognise_is_refused() {
    // Typst finds an SVG by its namespace in the first 2048 bytes.
    let late = format!(
        "<svg width='10' height='10' data-x='{}' xmlns='http://www.w3.org/2000/svg'/>",
        "x".repeat(2100)
    );
    assert_eq!(
        check_image(late.into_bytes(), &Limits::default()),
        Err(ImageError::SvgNamespaceTooLate)
    );
}

#[test]
fn unknown_bytes_are_refused() {
    assert_eq!(
        check_image(b"hello".to_vec(), &Limits::default()),
        Err(ImageError::UnknownFormat)
    );
    assert_eq!(
        check_image(Vec::new(), &Limits::default()),
        Err(ImageError::UnknownFormat)
    );
}

#[test]
fn the_svg_limits_are_published_and_configurable() {
    let published = serde_json::to_value(RuntimeConfig::default()).unwrap();
    let limits = &published["limits"];
    assert_eq!(limits["svg_depth"], 64);
    assert_eq!(limits["svg_elements"], 100_000);
    assert_eq!(limits["svg_text_chars"], 100_000);
    assert_eq!(limits["svg_text_element_chars"], 10_000);
    assert_eq!(limits["svg_filter_primitives"], 10);
    let config: RuntimeConfig = toml::from_str("[limits]\nsvg_depth = 16\n").unwrap();
    assert_eq!(config.limits.svg_depth, 16);
    // The root and 16 groups: 17 levels.
    let deep = format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>{}{}</svg>",
        "<g>".repeat(16),
        "</g>".repeat(16)
    );
    assert_eq!(
        check_image(deep.into_bytes(), &config.limits),
        Err(ImageError::SvgTooDeep { limit: 16 })
    );
}
