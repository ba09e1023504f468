//! ZPL output's new inputs on arbitrary bytes: the render route's `Accept`
//! and query (what picks ZPL, its dpi and sheet) must parse or be refused,
//! never panic; and the ZPL writer must write any sheet of dots as labels
//! whose graphic fields decode back to exactly those dots.
//!
//! And printer-native Code 128: any bars read back as symbol characters,
//! and any symbol characters written as `^BC` field data, never panic, and
//! field data never holds `^` or `~` (which would end the field or start a
//! command).
//!
//! Input layout: byte 0 picks the part (modulo 3). 0: the rest is split on
//! 0xFF into an `Accept` value and a query string (each lossily UTF-8),
//! given to `output::negotiate` and `output::Query` as the route gives
//! them. 1: the next two bytes are the sheet's width in pixels (1 to 512)
//! and the rest its RGBA pixels, drawn as one label. 2: the rest's bits are
//! a row of modules read as Code 128, and its bytes symbol characters
//! written as field data.

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
    if pick % 3 == 2 {
        let bars: Vec<bool> = rest
            .iter()
            .flat_map(|b| (0..8).map(move |i| b >> i & 1 == 1))
            .collect();
        let _ = labelpress::barcode::code128::symbol_characters(&bars);
        if let Some(data) = labelpress::native_barcode::code128_field_data(rest) {
            assert!(!data.contains(['^', '~']), "{data}");
        }
        return;
    }
    if pick % 3 == 0 {
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
