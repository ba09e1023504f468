//! The barcode service's own entry on arbitrary input: any symbology segment,
//! content segment and query string must come back as an SVG or an error,
//! never a panic, an abort or a long stall. It calls what the route
//! `GET /barcode/{symbology}/{content}?{query}` calls, in the same order:
//! `BarcodeRequest::parse` on the raw (percent-encoded) parts, then
//! `etag` and `svg`.
//!
//! Input layout: byte 0 picks the symbology segment (one of the names, or,
//! for the last value, a raw segment read from the input); the rest is
//! split on 0xFF into content, query and that raw segment (each lossily
//! UTF-8). `barcode.dict` lists the parameter names and values.

#![no_main]

use labelpress::barcode::BarcodeRequest;
use labelpress::barcode::Symbology;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Encoders run under `catch_unwind` by design (`barcode::guard`: a panic
    // in rxing or anyd is a 400, never a dead worker); libfuzzer-sys's hook
    // would abort on such a caught panic. A panic that escapes still reaches
    // the harness, which aborts on it.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let mut fields = rest.split(|&b| b == 0xFF).map(String::from_utf8_lossy);
    let content = fields.next().unwrap_or_default();
    let query = fields.next().unwrap_or_default();
    let raw_symbology = fields.next().unwrap_or_default();
    let all = Symbology::all();
    let symbology = match all.get(pick as usize % (all.len() + 1)) {
        Some(s) => s.name(),
        None => &raw_symbology,
    };
    let Ok(request) = BarcodeRequest::parse(symbology, &content, &query) else {
        return;
    };
    assert!(request.etag().starts_with('"'));
    if let Ok(svg) = request.svg() {
        assert!(svg.starts_with("<svg"));
    }
});
