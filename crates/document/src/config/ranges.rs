//! What each setting may be: the range of every numeric key, the form of
//! the colour and family keys, and the rules between keys. A configuration
//! outside them stops the start (exit 2) naming the key, its value and what
//! it may be, so that no deployment starts in a state where every request
//! fails (a zero deadline, a zero body limit) or where a value is silently
//! replaced by another (a zero connection cap read as one).
//!
//! runtime-config publishes [`RANGES`] beside the values (`ranges`), so a
//! client and the OpenAPI document read the same bounds the start enforces.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::RuntimeConfig;
use crate::color::Rgb;

/// The values one numeric key accepts: `minimum` to `maximum`, and 0 as
/// well where 0 turns the feature off (`zero_disables`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Range {
    pub minimum: f64,
    pub maximum: f64,
    /// 0 is accepted too, outside `minimum`..`maximum`, and turns the
    /// feature off (a timeout, a cap).
    pub zero_disables: bool,
}

impl Range {
    fn admits(&self, value: f64) -> bool {
        (self.zero_disables && value == 0.0) || (self.minimum..=self.maximum).contains(&value)
    }
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} to {}", self.minimum, self.maximum)?;
        if self.zero_disables {
            write!(f, ", or 0 to turn it off")?;
        }
        Ok(())
    }
}

/// One numeric key and its range.
pub struct KeyRange {
    pub section: &'static str,
    pub key: &'static str,
    pub range: Range,
}

const fn key(section: &'static str, key: &'static str, minimum: f64, maximum: f64) -> KeyRange {
    KeyRange {
        section,
        key,
        range: Range {
            minimum,
            maximum,
            zero_disables: false,
        },
    }
}

/// A key whose 0 turns its feature off.
const fn or_off(section: &'static str, name: &'static str, minimum: f64, maximum: f64) -> KeyRange {
    let mut k = key(section, name, minimum, maximum);
    k.range.zero_disables = true;
    k
}

const D: &str = "defaults";
const L: &str = "limits";
const GIB: f64 = (1u64 << 30) as f64;

/// Every numeric setting. The bounds keep each feature working: the lower
/// ones so that a request can still pass (a body limit of 0 refused every
/// render), the upper ones so that the process can start and stay within
/// what it can hold (100,000 render slots aborted the start; a default font
/// size of 1e308 failed every text).
pub const RANGES: &[KeyRange] = &[
    key(D, "font_size", 1.0, 1000.0),
    key(D, "min_font_size", 0.5, 1000.0),
    key(D, "line_height", 0.5, 10.0),
    key(D, "line_stroke_width", 0.0, 100.0),
    key(D, "shape_stroke_width", 0.0, 100.0),
    key(D, "marker_size", 0.0, 100.0),
    key(D, "corner_radius", 0.0, 1000.0),
    key(D, "cell_padding_x", 0.0, 100.0),
    key(D, "cell_padding_y", 0.0, 100.0),
    key(D, "png_dpi", 72.0, 4800.0),
    key(L, "body_bytes", 1024.0, GIB),
    key(L, "sheets", 1.0, 100_000.0),
    key(L, "table_cells", 1.0, 100_000_000.0),
    key(L, "elements", 1.0, 10_000_000.0),
    key(L, "text_chars", 1.0, 1e9),
    key(L, "text_line_chars", 1.0, 10_000_000.0),
    key(L, "image_pixels", 1.0, 1e9),
    key(L, "image_bytes", 1.0, GIB),
    key(L, "images_decoded_bytes", 1.0, 1024.0 * GIB),
    // usvg and the PDF writer recurse once per level: 600 levels overflowed
    // a render thread's stack.
    key(L, "svg_depth", 1.0, 256.0),
    key(L, "svg_elements", 1.0, 1e8),
    key(L, "svg_text_chars", 0.0, 1e8),
    key(L, "svg_text_element_chars", 0.0, 1e7),
    key(L, "svg_filter_primitives", 0.0, 10_000.0),
    // PDF's own limit is 14,400 pt.
    key(L, "page_side_mm", 1.0, 5_080.0),
    key(L, "coordinate_mm", 1.0, 1e6),
    key(L, "png_dpi_max", 72.0, 4800.0),
    key(L, "png_pixels", 1.0, 4_294_967_296.0),
    key(L, "zpl_bytes", 1024.0, 4_294_967_296.0),
    key(L, "slice_above_sheets", 0.0, 1_000_000.0),
    key(L, "slice_sheets", 0.0, 1_000_000.0),
    key(L, "batch_documents", 1.0, 100_000.0),
    key(L, "templates_per_account", 1.0, 1_000_000.0),
    key(L, "render_deadline_ms", 100.0, 3_600_000.0),
    // Each slot is a thread with its own worker process.
    key(L, "render_concurrency", 0.0, 128.0),
    key(L, "render_queue", 0.0, 100_000.0),
    key(L, "render_thread_nice", 0.0, 19.0),
    // A worker maps the engine, its fonts and a render stack at start:
    // below this it cannot start at all.
    or_off(L, "render_worker_memory_mb", 1024.0, 1_048_576.0),
    key(L, "auth_cache_ttl_s", 1.0, 86_400.0),
    key(L, "blacklist_recheck_s", 1.0, 86_400.0),
    or_off(L, "lease_s", 1.0, 3600.0),
    key(L, "lease_max_units", 1.0, 1e9),
    key(L, "rate_limit_per_second", 1.0, 1e6),
    key(L, "rate_limit_burst", 1.0, 1e6),
    key(L, "failed_auth_per_second", 1.0, 1e6),
    key(L, "failed_auth_burst", 1.0, 1e6),
    key(L, "outbox_commit_delay_us", 0.0, 1e6),
    key(L, "verify_timeout_ms", 100.0, 600_000.0),
    key(L, "ledger_connections", 1.0, 1000.0),
    key(L, "ledger_timeout_ms", 100.0, 600_000.0),
    key(L, "retry_after_s", 1.0, 3600.0),
    or_off(L, "header_timeout_ms", 100.0, 3_600_000.0),
    or_off(L, "body_timeout_ms", 100.0, 3_600_000.0),
    key(L, "body_min_bytes_per_s", 0.0, GIB),
    or_off(L, "write_timeout_ms", 100.0, 3_600_000.0),
    key(L, "max_connections", 1.0, 1_000_000.0),
    key(L, "barcode_queue", 1.0, 100_000.0),
    key(L, "barcode_module_min_mm", 0.001, 1.0),
];

/// `RANGES` as runtime-config publishes them: section, then key.
pub type PublishedRanges = BTreeMap<&'static str, BTreeMap<&'static str, Range>>;

pub fn published() -> PublishedRanges {
    let mut out = PublishedRanges::new();
    for k in RANGES {
        out.entry(k.section).or_default().insert(k.key, k.range);
    }
    out
}

/// Why a configuration cannot be served.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingError {
    #[error("{key} = {value} is out of range: {range}")]
    OutOfRange {
        key: String,
        value: String,
        range: Range,
    },
    #[error("{key} = {value:?} is not a colour: #RRGGBB or #RGB")]
    NotAColour { key: String, value: String },
    #[error("{key} is empty: name a font family")]
    EmptyFamily { key: String },
    #[error("{low_key} = {low} is above {high_key} = {high}: {why}")]
    Order {
        low_key: &'static str,
        low: f64,
        high_key: &'static str,
        high: f64,
        why: &'static str,
    },
}

impl RuntimeConfig {
    /// Every key on its own: numeric ranges, colours, families.
    pub fn check_each_key(&self) -> Result<(), SettingError> {
        let values = serde_json::to_value(self).unwrap_or(Value::Null);
        for k in RANGES {
            let Some(value) = values[k.section][k.key].as_f64() else {
                continue;
            };
            if !k.range.admits(value) {
                return Err(SettingError::OutOfRange {
                    key: format!("{}.{}", k.section, k.key),
                    value: values[k.section][k.key].to_string(),
                    range: k.range,
                });
            }
        }
        for (name, value) in [
            ("text_color", &self.defaults.text_color),
            ("stroke_color", &self.defaults.stroke_color),
        ] {
            if Rgb::parse(value).is_none() {
                return Err(SettingError::NotAColour {
                    key: format!("defaults.{name}"),
                    value: value.clone(),
                });
            }
        }
        if self.defaults.font_family.trim().is_empty() {
            return Err(SettingError::EmptyFamily {
                key: "defaults.font_family".into(),
            });
        }
        Ok(())
    }

    /// The rules between keys, once every layer is applied (a file may set
    /// one key and the environment the other).
    pub fn check_consistency(&self) -> Result<(), SettingError> {
        let d = &self.defaults;
        let l = &self.limits;
        let rules = [
            (
                "limits.table_cells",
                l.table_cells as f64,
                "the cells limits.render_worker_memory_mb holds",
                super::Limits::table_cells_within(l.render_memory_cap_mb()) as f64,
                "a table inside the limit would exhaust the render worker's memory; raise the cap, or leave table_cells out to derive it from the cap",
            ),
            (
                "defaults.min_font_size",
                d.min_font_size,
                "defaults.font_size",
                d.font_size,
                "shrink_to_fit starts at the font size and stops at the minimum",
            ),
            (
                "defaults.png_dpi",
                d.png_dpi,
                "limits.png_dpi_max",
                f64::from(l.png_dpi_max),
                "every PNG without ?dpi= would be refused",
            ),
            (
                "limits.blacklist_recheck_s",
                l.blacklist_recheck_s as f64,
                "limits.auth_cache_ttl_s",
                l.auth_cache_ttl_s as f64,
                "a recheck after the blacklist entry expired never happens",
            ),
        ];
        for (low_key, low, high_key, high, why) in rules {
            if low > high {
                return Err(SettingError::Order {
                    low_key,
                    low,
                    high_key,
                    high,
                    why,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_inside_their_ranges() {
        let config = RuntimeConfig::default();
        config.check_each_key().unwrap();
        config.check_consistency().unwrap();
    }

    #[test]
    fn every_numeric_key_has_a_range_and_every_range_a_key() {
        let values = serde_json::to_value(RuntimeConfig::default()).unwrap();
        let mut numeric = Vec::new();
        for section in ["defaults", "limits"] {
            for (key, value) in values[section].as_object().unwrap() {
                if value.is_number() {
                    numeric.push(format!("{section}.{key}"));
                }
            }
        }
        let mut ranged: Vec<String> = RANGES
            .iter()
            .map(|k| format!("{}.{}", k.section, k.key))
            .collect();
        numeric.sort();
        ranged.sort();
        assert_eq!(numeric, ranged);
    }

    #[test]
    fn a_value_outside_its_range_names_key_value_and_range() {
        let mut config = RuntimeConfig::default();
        config.limits.render_concurrency = 100_000;
        assert_eq!(
            config.check_each_key().unwrap_err().to_string(),
            "limits.render_concurrency = 100000 is out of range: 0 to 128"
        );
        let mut config = RuntimeConfig::default();
        config.limits.header_timeout_ms = 0;
        config.check_each_key().unwrap();
        config.limits.header_timeout_ms = 5;
        assert_eq!(
            config.check_each_key().unwrap_err().to_string(),
            "limits.header_timeout_ms = 5 is out of range: 100 to 3600000, or 0 to turn it off"
        );
    }

    #[test]
    fn colours_and_key_order_are_checked() {
        let mut config = RuntimeConfig::default();
        config.defaults.text_color = "red".into();
        assert!(matches!(
            config.check_each_key(),
            Err(SettingError::NotAColour { .. })
        ));
        let mut config = RuntimeConfig::default();
        config.defaults.png_dpi = 600.0;
        config.limits.png_dpi_max = 300;
        let message = config.check_consistency().unwrap_err().to_string();
        assert!(
            message.starts_with("defaults.png_dpi = 600 is above limits.png_dpi_max = 300"),
            "{message}"
        );
    }
}
