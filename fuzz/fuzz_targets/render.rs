//! Arbitrary bytes as a request body: validation, lowering and compile must
//! never panic or hang; a request either renders or is refused with violations
//! (API-002 from validation, never an error after it).
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
    // Validation owns every refusal: once a request is valid, lowering
    // cannot fail and the generated source must compile, so any error after
    // validation is a bug worth a crash report.
    if let Ok(doc) = ENGINE.validate(data) {
        match ENGINE.render(&doc) {
            Ok(r) => assert!(r.bytes.starts_with(b"%PDF-")),
            Err(e) => panic!("a valid request did not render: {e}"),
        }
    }
});
