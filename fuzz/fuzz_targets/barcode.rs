//! Any (symbology, content, options) must come back as an SVG or an error:
//! never a panic, an abort or a long stall.
//!
//! Input layout: byte 0 picks the symbology; the rest is split on the first
//! 0xFF into content and a query string `k=v&k=v` (both lossily UTF-8).

#![no_main]

use labelpress::barcode::{self, Options, Symbology};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let all = Symbology::all();
    let symbology = all[pick as usize % all.len()];
    let (content, query) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let content = String::from_utf8_lossy(content);
    let query = String::from_utf8_lossy(query);
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")));
    let Ok(options) = Options::from_pairs(symbology, pairs) else {
        return;
    };
    if let Ok(symbol) = barcode::encode(symbology, &content, &options) {
        let svg = barcode::svg::render(&symbol, &options);
        assert!(svg.starts_with("<svg"));
    }
});
