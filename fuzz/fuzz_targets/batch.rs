//! Arbitrary bytes as a batch body (`POST /api/v1/batch`): reading the
//! batch, filling its template per record, validating every document and
//! rendering the valid ones must never panic; a batch either renders as
//! one file or is refused with violations at paths into the batch. The
//! server's split of a batch into single renders (`BatchDocuments`, for
//! ZPL and PNG) gives JSON bodies, and for a batch the engine accepts, each
//! of them validates alone.
#![no_main]

use std::sync::LazyLock;

use labelpress::engine::fonts::FontOptions;
use labelpress::engine::{BatchDocuments, Format, Output};
use labelpress::validate::RequestError;
use labelpress::{Engine, RenderError};
use libfuzzer_sys::fuzz_target;

static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let mut config = labelpress::config::RuntimeConfig::default();
    // Small limits keep each iteration fast; the rules are the same.
    config.limits.sheets = 20;
    config.limits.elements = 200;
    config.limits.table_cells = 2_000;
    config.limits.batch_documents = 8;
    Engine::new(config, &FontOptions { system: false, dir: None }, None)
});

fuzz_target!(|data: &[u8]| {
    if let Some(documents) = BatchDocuments::read(data) {
        let accepted = !documents.partial() && ENGINE.validate_batch(data, &Output::Pdf).is_ok();
        for i in 0..documents.len() {
            let body = documents.body(i);
            serde_json::from_slice::<serde_json::Value>(&body).expect("a document's body is JSON");
            if accepted {
                if let Err(e) = ENGINE.validate_for(&body, &Output::Pdf) {
                    panic!("document {i} of an accepted batch is refused alone: {e}");
                }
            }
        }
    }
    match ENGINE.render_batch(data, &Output::Pdf) {
        Ok(r) => {
            assert!(r.documents >= 1);
            match r.format {
                Format::Pdf => assert!(r.bytes.starts_with(b"%PDF-")),
                Format::Zip => assert!(r.bytes.starts_with(b"PK")),
                other => panic!("a PDF batch answered {other:?}"),
            }
        }
        Err(RenderError::Request(RequestError::Invalid(violations))) => {
            assert!(!violations.is_empty())
        }
        Err(RenderError::Request(RequestError::Json { .. })) => {}
        Err(e) => panic!("a batch of valid documents did not render: {e}"),
    }
});
