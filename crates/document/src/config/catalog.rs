//! What runtime-config publishes beside the settings: read-only catalogs of
//! what this build supports (page sizes, PDF profiles, barcode symbologies
//! and their options) and of what this node has (font families). Each
//! catalog is read from the table validation itself uses, never copied, so
//! what is published is what is enforced (docs/http-api.md).

use serde::Serialize;

use super::{Limits, RuntimeConfig, StyleDefaults};
use crate::profile::{Profile, ProfileInfo};
use labelpress_barcode::option_specs::BarcodeCatalog;

/// A page size preset (`pages[].size`), matched case-insensitively.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PagePreset {
    pub name: &'static str,
    pub width_mm: f64,
    pub height_mm: f64,
}

const fn preset(name: &'static str, width_mm: f64, height_mm: f64) -> PagePreset {
    PagePreset {
        name,
        width_mm,
        height_mm,
    }
}

/// Every page size preset, portrait (width x height in mm).
pub const PAGE_PRESETS: &[PagePreset] = &[
    preset("a4", 210.0, 297.0),
    preset("a6", 105.0, 148.0),
    preset("letter", 215.9, 279.4),
    preset("legal", 215.9, 355.6),
    preset("label_100_100", 100.0, 100.0),
    preset("label_100_150", 100.0, 150.0),
    preset("label_4_6_in", 101.6, 152.4),
];

/// Looks a preset up by name, ignoring case: (width, height) in mm.
pub fn page_preset(name: &str) -> Option<(f64, f64)> {
    PAGE_PRESETS
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .map(|p| (p.width_mm, p.height_mm))
}

/// The body of `GET /v1/doc/runtime-config` and of `labelpress config`:
/// the settings ([`RuntimeConfig`], keys as they are overridden) and the
/// read-only catalogs.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Published {
    pub defaults: StyleDefaults,
    pub fonts: PublishedFonts,
    pub limits: Limits,
    /// Read-only: `pages[].size` presets.
    pub page_sizes: &'static [PagePreset],
    /// Read-only: `settings.profile` values.
    pub profiles: Vec<ProfileInfo>,
    /// Read-only: symbologies (`format` of a barcode element, the barcode
    /// service's path) and their options.
    pub barcodes: BarcodeCatalog,
    /// Read-only: what each numeric setting of `defaults` and `limits` may
    /// be set to (`--config`, `LABELPRESS_<SECTION>__<KEY>`); a value
    /// outside its range stops the start.
    pub ranges: super::ranges::PublishedRanges,
}

/// `fonts`: the configured fallback order and the families this node has.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PublishedFonts {
    /// As configured (`fonts.fallback`); families not installed are
    /// skipped when text is set.
    pub fallback: Vec<String>,
    /// Read-only: every family the font engine indexed at start (embedded,
    /// `--fonts` and system fonts), sorted. A text style's `font_family`
    /// must be one of them.
    pub families: Vec<String>,
}

impl Published {
    /// `config` with the catalogs; `families` from the node's font engine.
    pub fn new(config: &RuntimeConfig, families: Vec<String>) -> Published {
        Published {
            defaults: config.defaults.clone(),
            fonts: PublishedFonts {
                fallback: config.fonts.fallback.clone(),
                families,
            },
            limits: config.limits.clone(),
            page_sizes: PAGE_PRESETS,
            profiles: Profile::catalogue(),
            barcodes: BarcodeCatalog::new(),
            ranges: super::ranges::published(),
        }
    }
}
