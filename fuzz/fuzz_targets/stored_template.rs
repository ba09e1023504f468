//! Arbitrary bytes as a stored template's upload (`PUT
//! /api/v1/templates/{name}`): the name before the first 0xFF, the body
//! after it. Reading the name must never accept one that climbs, hides or
//! leaves `A-Za-z0-9._-`; checking the body must never panic, refuses with
//! paths from the template's root, and agrees with a render's validation
//! on a body without placeholders or `rows_from` (a plain document is a
//! template with nothing to fill).
#![no_main]

use std::sync::LazyLock;

use labelpress::engine::fonts::FontOptions;
use labelpress::templates::TemplateName;
use labelpress::validate::RequestError;
use labelpress::Engine;
use libfuzzer_sys::fuzz_target;

static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let mut config = labelpress::config::RuntimeConfig::default();
    // Small limits keep each iteration fast; the rules are the same.
    config.limits.sheets = 20;
    config.limits.elements = 200;
    config.limits.table_cells = 2_000;
    Engine::new(config, &FontOptions { system: false, dir: None }, None)
});

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0xFF).unwrap_or(0);
    let (name, body) = (&data[..split], data.get(split + 1..).unwrap_or_default());
    if let Ok(name) = std::str::from_utf8(name) {
        if let Ok(parsed) = TemplateName::parse(name) {
            let name = parsed.as_str();
            assert!(!name.starts_with('.') && !name.is_empty() && name.len() <= 64);
            assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)));
        }
    }
    let checked = ENGINE.validate_template(body);
    match &checked {
        Ok(()) => assert!(serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|v| v.is_object())),
        Err(RequestError::Invalid(violations)) => {
            assert!(!violations.is_empty());
            for v in violations {
                assert!(!v.path.starts_with("template"), "{}", v.path);
            }
        }
        Err(RequestError::Json { .. }) => {}
    }
    let text = String::from_utf8_lossy(body);
    if !text.contains("{{") && !text.contains("rows_from") && !text.contains("\\u") {
        let plain = ENGINE.validate(body);
        if plain.is_err() != checked.is_err() {
            // `template` as a key makes a body a template for a render, not
            // for an upload (where it is an unknown field).
            assert!(text.contains("template"), "upload {:?} vs render {:?}", checked.is_ok(), plain.is_ok());
        }
    }
});
