//! Templates on arbitrary bytes: filling a template from data must never
//! panic, never read a value twice, and stay within its bounds; a filled
//! template either validates or is refused with paths under `template`.
//!
//! Input layout: the bytes up to the first 0xFF are the template (JSON),
//! the rest the data (JSON). Inputs that are not both JSON are skipped.

#![no_main]

use labelpress::config::Limits;
use labelpress::template::fill;
use labelpress::validate::RequestError;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn strings_len(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items.iter().map(strings_len).sum(),
        Value::Object(map) => map.values().map(strings_len).sum(),
        _ => 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0xFF).unwrap_or(data.len());
    let (Ok(template), Ok(values)) = (
        serde_json::from_slice::<Value>(&data[..split]),
        serde_json::from_slice::<Value>(data.get(split + 1..).unwrap_or(b"{}")),
    ) else {
        return;
    };
    // Small bounds, so that growth past them is found quickly.
    let limits = Limits {
        body_bytes: 64 * 1024,
        table_cells: 1_000,
        ..Limits::default()
    };
    match fill(template, &values, &limits) {
        Ok(filled) => assert!(strings_len(&filled) <= limits.body_bytes),
        Err(RequestError::Invalid(violations)) => {
            assert!(!violations.is_empty());
            for v in &violations {
                assert!(v.path.starts_with("template"), "{}", v.path);
            }
        }
        Err(e) => panic!("filling refused with a JSON error: {e}"),
    }
});
