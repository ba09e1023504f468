//! LP-W03 and LP-W04: barcodes a printer or a scanner will not manage.
//!
//! - LP-W03: the module (the narrowest bar or space of a 1-D symbol, a 2-D
//!   symbol's cell, a MaxiCode hexagon's pitch) is narrower than one dot of
//!   the printer, `settings.print_dpi` or [`super::DEFAULT_PRINT_DPI`]. The
//!   printer cannot draw it: bars merge or vanish and the symbol does not
//!   scan. (With `print_dpi` set, modules snap to whole dots, never below
//!   one, so this only warns without it.)
//! - LP-W04: a 1-D symbol's bars are shorter than [`MIN_BAR_HEIGHT_MM`] or
//!   [`MIN_BAR_HEIGHT_RATIO`] of the symbol's width, whichever is greater:
//!   the minimum the ISO/IEC 1-D symbology specifications recommend for
//!   scanning by hand (ISO/IEC 15417 Code 128, 16388 Code 39, 16390
//!   Interleaved 2 of 5: "5.0 mm or 15 % of the symbol width excluding
//!   quiet zones, whichever is greater"). A hand scanner's line must cross
//!   every bar; the shorter the bars relative to the symbol, the closer to
//!   perpendicular the scan must be. Bearer bars and the human-readable
//!   text are not bar height.

use super::{mm, Code, Collector, Path};
use crate::ir::Barcode;
use labelpress_barcode::fit::element_options;
use labelpress_barcode::vector::Bearers;
use labelpress_barcode::Symbology;

/// The least bar height of a 1-D symbol, in mm (see the module docs).
pub const MIN_BAR_HEIGHT_MM: f64 = 5.0;

/// The least bar height of a 1-D symbol as a share of its width without
/// quiet zones (see the module docs).
pub const MIN_BAR_HEIGHT_RATIO: f64 = 0.15;

impl Collector {
    pub(super) fn barcode(&mut self, path: Path, b: &Barcode) {
        let Ok(symbology) = b.spec.format.parse::<Symbology>() else {
            return;
        };
        let fitted = &b.symbol;
        let module = fitted.module;
        let dot = 25.4 / self.dpi;
        // A hair of tolerance: a module of exactly one dot is fine.
        if module < dot * (1.0 - 1e-9) {
            let dpi = if self.dpi_given {
                format!("{} dpi (settings.print_dpi)", mm(self.dpi))
            } else {
                format!(
                    "{} dpi (settings.print_dpi is not set; a thermal label printer's resolution is assumed)",
                    mm(self.dpi)
                )
            };
            let quiet = b
                .spec
                .options
                .as_ref()
                .and_then(|o| o.quiet_zone)
                .unwrap_or(0.0);
            let v = &fitted.vector;
            let fix = if b
                .spec
                .options
                .as_ref()
                .is_some_and(|o| o.bar_width.is_some())
            {
                format!("set `options.bar_width` to at least {} mm", mm(dot))
            } else if symbology.is_linear() {
                format!(
                    "make the box at least {} mm wide or shorten the content",
                    mm((v.width * dot + 2.0 * quiet).max(0.0) + 0.005)
                )
            } else {
                format!(
                    "make the box at least {} x {} mm or shorten the content",
                    mm(v.width * dot + 2.0 * quiet + 0.005),
                    mm(v.height * dot + 2.0 * quiet + 0.005)
                )
            };
            self.push(
                path(),
                Code::ModuleBelowDot,
                format!(
                    "the {} symbol's modules are {} mm, narrower than one printer dot ({} mm at {dpi}): bars and cells merge or vanish and the symbol will not scan; {fix}",
                    symbology.name(),
                    fmt3(module),
                    fmt3(dot),
                ),
            );
        }
        if symbology.is_linear() {
            self.bar_height(path, b, symbology);
        }
    }

    fn bar_height(&mut self, path: Path, b: &Barcode, symbology: Symbology) {
        let fitted = &b.symbol;
        let extra = b.spec.options.as_ref().map(|o| &o.symbology);
        let Ok(options) = element_options(symbology, extra) else {
            return;
        };
        let bearers = Bearers::of(&options);
        let v = &fitted.vector;
        let bars = (v.height - bearers.above() - bearers.below()) * fitted.module;
        let width = (v.width - 2.0 * bearers.side) * fitted.module;
        let least = MIN_BAR_HEIGHT_MM.max(MIN_BAR_HEIGHT_RATIO * width);
        if bars < least - 1e-6 {
            let text = if b.text.is_some() {
                " (the human-readable text takes the rest of the box)"
            } else {
                ""
            };
            self.push(
                path(),
                Code::BarsTooShort,
                format!(
                    "the {} symbol's bars are {} mm tall{text}; a {} mm wide symbol needs at least {} mm (5 mm or 15 % of its width, whichever is greater) to scan by hand: make the box taller by {} mm",
                    symbology.name(),
                    mm(bars),
                    mm(width),
                    mm(least),
                    mm(least - bars + 0.005),
                ),
            );
        }
    }
}

/// Three decimals: module sizes are tenths of a millimetre.
fn fmt3(v: f64) -> String {
    format!("{v:.3}")
}
