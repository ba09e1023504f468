//! Arbitrary bytes as a request body: validation, lowering and compile must
//! never panic or hang; a request either renders or is refused with violations.
#![no_main]

use std::sync::LazyLock;

use labelpress::engine::fonts::FontOptions;
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
    if let Ok(doc) = ENGINE.validate(data) {
        match ENGINE.render(&doc) {
            Ok(r) => assert!(r.pdf.starts_with(b"%PDF-")),
            // A valid request the generator cannot express is reported, never a panic;
            // a compile error of generated source is a bug worth a crash report.
            Err(labelpress::RenderError::Compile(e)) => panic!("generated Typst failed: {e}"),
            Err(_) => {}
        }
    }
});
