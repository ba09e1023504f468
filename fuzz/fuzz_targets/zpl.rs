//! ZPL output's new inputs on arbitrary bytes: the render route's `Accept`
//! and query (what picks ZPL, its dpi and sheet) must parse or be refused,
//! never panic; and the ZPL writer must write any sheet of dots as labels
//! whose graphic fields decode back to exactly those dots.
//!
//! Input layout: byte 0 picks the part. Even: the rest is split on 0xFF
//! into an `Accept` value and a query string (each lossily UTF-8), given to
//! `output::negotiate` and `output::Query` as the route gives them. Odd: the
//! next two bytes are the sheet's width in pixels (1 to 512) and the rest
//! its RGBA pixels, drawn as one label.

#![no_main]

use std::io::Read;

use base64::Engine as _;
use labelpress::config::Limits;
use labelpress::engine::zpl::{write_label, Dots};
use labelpress::http::output::{negotiate, Query};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    if pick % 2 == 0 {
        let mut fields = rest.split(|&b| b == 0xFF).map(String::from_utf8_lossy);
        let accept = fields.next().unwrap_or_default();
        let query = fields.next().unwrap_or_default();
        let limits = Limits::default();
        if let Ok(query) = Query::parse(Some(&query), &limits) {
            if let Ok(format) = query.format(Some(&accept)) {
                let _ = query.output(format);
            }
        }
        let _ = negotiate(Some(&accept));
        return;
    }
    let [a, b, pixels @ ..] = rest else {
        return;
    };
    let width = usize::from(u16::from_le_bytes([*a, *b]) % 512) + 1;
    let rows = pixels.len() / 4 / width;
    let dots = Dots::from_rgba(&pixels[..rows * width * 4], width);
    let mut zpl = String::new();
    write_label(&dots, &[], 1, &mut zpl);
    // Every field's data is its rows of the sheet, exactly.
    let mut covered = vec![0u8; dots.bits.len()];
    for field in zpl.split("^FO0,").skip(1) {
        let (y, rest) = field.split_once("^GFA,").expect("a graphic field");
        let parts: Vec<&str> = rest.trim_end_matches("^FS\n").splitn(4, ',').collect();
        let (b64, _crc) = parts[3]
            .strip_prefix(":Z64:")
            .and_then(|d| d.split("^FS").next()?.rsplit_once(':'))
            .expect("Z64 data");
        let zlib = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
        let mut bits = Vec::new();
        flate2::read::ZlibDecoder::new(&zlib[..]).read_to_end(&mut bits).unwrap();
        let start = y.parse::<usize>().unwrap() * dots.row_bytes;
        assert_eq!(bits[..], dots.bits[start..start + bits.len()]);
        covered[start..start + bits.len()].copy_from_slice(&bits);
    }
    // Bands left out are blank.
    assert_eq!(covered, dots.bits);
});
