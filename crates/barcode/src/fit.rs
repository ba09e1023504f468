//! A document's barcode: its options read from the element, and its symbol
//! fitted into the element's box in mm. Validation calls these once and keeps
//! the result in the validated element, so the lowering draws what was
//! checked and cannot fail.

use serde_json::{Map, Value};

use super::option_specs::{find, specific};
use super::vector::{vectorize, Bearers, Vector};
use super::{maxi, Options, Symbol, Symbology};

/// Why a barcode element cannot be drawn: the field at fault (relative to the
/// element, `None` for its content) and a message.
pub type FitError = (Option<String>, String);

/// The symbology-specific options of a barcode element (`options` beside
/// `quiet_zone`, `bar_width` and the colours) as the service's [`Options`].
pub fn element_options(
    symbology: Symbology,
    extra: Option<&Map<String, Value>>,
) -> Result<Options, FitError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (key, value) in extra.into_iter().flatten() {
        if find(specific(symbology), key).is_none() {
            return Err((
                Some(format!("options.{key}")),
                format!(
                    "`{key}` is not an option of {}; the element sets size, margins and colours itself",
                    symbology.name()
                ),
            ));
        }
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(v) => v.to_string(),
            _ => {
                return Err((
                    Some(format!("options.{key}")),
                    "must be a string, number or boolean".into(),
                ))
            }
        };
        pairs.push((key.clone(), text));
    }
    Options::from_pairs(
        symbology,
        pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .map_err(|e| (Some("options".into()), e.to_string()))
}

/// The element's box and what constrains the symbol in it (mm).
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub width: f64,
    pub height: f64,
    /// Light margin kept on every side inside the box.
    pub quiet_zone: f64,
    /// The module size asked for (`options.bar_width`).
    pub module: Option<f64>,
    /// Printer resolution: modules are whole dots.
    pub dpi: Option<f64>,
    /// Height kept under 1-D bars for the human-readable text.
    pub text_height: f64,
    /// Thinnest module allowed (`limits.barcode_module_min_mm`).
    pub min_module: f64,
}

/// Where the symbol's geometry lands in the box: `vector` (module units)
/// scaled by `module` with its top left at (`x`, `y`), all mm.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub vector: Vector,
    pub module: f64,
    pub x: f64,
    pub y: f64,
    /// The symbol's size in mm: a whole number of modules across, and for a
    /// 2-D symbol down (0 for a 1-D symbol, whose bars fill the height).
    pub size: (f64, f64),
    /// Where the human-readable text starts below the box top (1-D).
    pub text_top: f64,
}

/// Fits the symbol into the box: quiet zones inside it, the module size from
/// `bar_width` or the box, centred; 1-D bars (and their bearer bars) fill the
/// height above the text. An error names the field at fault when the
/// symbol does not fit or its modules would be thinner than the minimum.
pub fn fit(symbol: &Symbol, options: &Options, frame: &Frame) -> Result<Fitted, FitError> {
    let Frame {
        width: w,
        height: h,
        quiet_zone: quiet,
        ..
    } = *frame;
    let field = Some(
        if frame.module.is_some() {
            "options.bar_width"
        } else {
            "width"
        }
        .to_string(),
    );
    let (inner_w, inner_h) = (w - 2.0 * quiet, h - 2.0 * quiet);
    let bearers = Bearers::of(options);
    let (mw, mh) = match symbol {
        Symbol::Linear { bars } => (bars.len() as f64 + 2.0 * bearers.side, 0.0),
        Symbol::Matrix { .. } => (
            symbol.width_modules() as f64,
            symbol.height_modules().unwrap_or(1) as f64,
        ),
        Symbol::Maxi { .. } => (maxi::WIDTH, maxi::HEIGHT),
    };
    let fits = if mh == 0.0 {
        inner_w / mw
    } else {
        (inner_w / mw).min(inner_h / mh)
    };
    let module = module_size(frame.module, fits, frame.dpi);
    let (sw, sh) = (module * mw, module * mh);
    if sw > inner_w + 1e-6 || sh > inner_h + 1e-6 || module <= 0.0 {
        return Err((field, format!(
            "the symbol needs {sw:.2} x {sh:.2} mm ({mw} x {mh} modules of {module:.3} mm) but the box has {inner_w:.2} x {inner_h:.2} mm inside its quiet zones"
        )));
    }
    // Checked before print-dpi snapping, which could round a module up.
    let unsnapped = frame.module.unwrap_or(fits);
    if unsnapped < frame.min_module {
        let min = frame.min_module;
        return Err((field, match frame.module {
            Some(_) => format!(
                "a module of {unsnapped} mm is below the {min} mm minimum (limits.barcode_module_min_mm)"
            ),
            None => format!(
                "the box fits modules of only {unsnapped:.4} mm ({mw} x {mh} modules), below the {min} mm minimum (limits.barcode_module_min_mm)"
            ),
        }));
    }
    if mh == 0.0 {
        let text_top = h - frame.text_height;
        if text_top <= 0.0 {
            return Err((
                None,
                "the human-readable text leaves no height for the bars".into(),
            ));
        }
        let bars = text_top / module - bearers.above() - bearers.below();
        if bars <= 0.0 {
            return Err((
                Some("options.thickness".into()),
                "the bearer bars and their quiet gaps leave no height for the bars".into(),
            ));
        }
        return Ok(Fitted {
            vector: vectorize(symbol, options, bars),
            module,
            x: (w - sw) / 2.0,
            y: 0.0,
            size: (sw, 0.0),
            text_top,
        });
    }
    Ok(Fitted {
        vector: vectorize(symbol, options, 0.0),
        module,
        x: (w - sw) / 2.0,
        y: (h - sh) / 2.0,
        size: (sw, sh),
        text_top: h,
    })
}

impl Fitted {
    /// The symbol's offsets in its box (`x`, `y`) moved so that its edges
    /// fall on a printer's dot grid: `dot` mm apart, counted from the
    /// sheet's top-left corner. `at` is the box's top-left on the sheet
    /// after a clockwise `quarter_turns` rotation of the `box_size` (w, h)
    /// box. Each offset moves by less than one dot, to the nearer grid line
    /// that keeps the symbol inside its box, else the other one, else not
    /// at all; a 1-D symbol moves only across its bars.
    pub fn on_dot_grid(
        &self,
        box_size: (f64, f64),
        at: (f64, f64),
        quarter_turns: u8,
        dot: f64,
    ) -> (f64, f64) {
        let (w, h) = box_size;
        let (sw, sh) = self.size;
        // Where each local axis runs on the sheet: (sheet origin along it,
        // whether it runs backwards), for u (across) and v (down).
        let (u_axis, v_axis) = match quarter_turns % 4 {
            0 => ((at.0, false), (at.1, false)),
            1 => ((at.1, false), (at.0 + h, true)),
            2 => ((at.0 + w, true), (at.1 + h, true)),
            _ => ((at.1 + w, true), (at.0, false)),
        };
        let x = snap(self.x, sw, w, u_axis, dot);
        let y = if sh > 0.0 {
            snap(self.y, sh, h, v_axis, dot)
        } else {
            self.y
        };
        (x, y)
    }
}

/// `offset` of a symbol `extent` long in a box `room` long, moved so the
/// symbol's leading edge on the sheet lies on the grid (see
/// [`Fitted::on_dot_grid`]).
fn snap(offset: f64, extent: f64, room: f64, (origin, backwards): (f64, bool), dot: f64) -> f64 {
    if !(dot > 0.0) || !origin.is_finite() {
        return offset;
    }
    let edge = if backwards {
        origin - offset - extent
    } else {
        origin + offset
    };
    let grid = edge / dot;
    let (down, up) = (grid.floor() * dot - edge, grid.ceil() * dot - edge);
    let mut moves = [down, up];
    moves.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let fits = |m: f64| {
        let moved = if backwards { offset - m } else { offset + m };
        (moved >= -1e-9 && moved + extent <= room + 1e-9).then_some(moved)
    };
    moves.into_iter().find_map(fits).unwrap_or(offset)
}

/// Module size in mm: the requested one, else the largest that fits; snapped
/// down to whole printer dots when `dpi` is set (never below one dot).
fn module_size(requested: Option<f64>, fits: f64, dpi: Option<f64>) -> f64 {
    let m = requested.unwrap_or(fits);
    match dpi {
        Some(dpi) => {
            let dot = 25.4 / dpi;
            let dots = if requested.is_some() {
                (m / dot).round()
            } else {
                (m / dot).floor()
            };
            dots.max(1.0) * dot
        }
        None => m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Bearer;

    fn frame(width: f64, height: f64) -> Frame {
        Frame {
            width,
            height,
            quiet_zone: 0.0,
            module: None,
            dpi: None,
            text_height: 0.0,
            min_module: 0.1,
        }
    }

    fn linear(n: usize) -> Symbol {
        Symbol::Linear {
            bars: (0..n).map(|i| i % 2 == 0).collect(),
        }
    }

    #[test]
    fn on_the_dot_grid_the_symbol_edges_land_on_whole_dots_inside_the_box() {
        let dot = 25.4 / 203.0;
        // 21 x 21 modules of 2 dots in a 30 mm box: 3.71 mm to spare each way.
        let matrix = Symbol::Matrix {
            width: 21,
            height: 21,
            row_height: 1,
            modules: vec![true; 21 * 21],
        };
        let f = fit(
            &matrix,
            &Options::default(),
            &Frame {
                dpi: Some(203.0),
                ..frame(30.0, 30.0)
            },
        )
        .unwrap();
        let on_grid = |v: f64| ((v / dot) - (v / dot).round()).abs() < 1e-6;
        for turns in 0..4u8 {
            for at in [(10.37, 20.011), (0.05, 7.7), (3.0, 3.0)] {
                let (x, y) = f.on_dot_grid((30.0, 30.0), at, turns, dot);
                assert!(
                    (x - f.x).abs() < dot && (y - f.y).abs() < dot,
                    "moved by less than a dot"
                );
                assert!(x >= 0.0 && x + f.size.0 <= 30.0 && y >= 0.0 && y + f.size.1 <= 30.0);
                // The symbol's top-left on the sheet (square box: the same
                // corner formula for every quarter turn, up to its side).
                let (sx, sy) = match turns {
                    0 => (at.0 + x, at.1 + y),
                    1 => (at.0 + 30.0 - y - f.size.1, at.1 + x),
                    2 => (at.0 + 30.0 - x - f.size.0, at.1 + 30.0 - y - f.size.1),
                    _ => (at.0 + y, at.1 + 30.0 - x - f.size.0),
                };
                assert!(on_grid(sx) && on_grid(sy), "{turns} {at:?}: {sx} {sy}");
            }
        }
        // A 1-D symbol moves only across; one that fills its box stays.
        let bars = fit(
            &linear(40),
            &Options::default(),
            &Frame {
                dpi: Some(203.0),
                ..frame(40.0, 10.0)
            },
        )
        .unwrap();
        let (x, y) = bars.on_dot_grid((40.0, 10.0), (1.234, 5.678), 0, dot);
        assert!(on_grid(1.234 + x) && y == bars.y);
        let full = Fitted {
            x: 0.0,
            size: (40.0, 0.0),
            ..bars.clone()
        };
        assert_eq!(full.on_dot_grid((40.0, 10.0), (1.234, 0.0), 0, dot).0, 0.0);
    }

    #[test]
    fn one_d_bars_fill_the_width_and_the_height_above_the_text() {
        let f = fit(
            &linear(50),
            &Options::default(),
            &Frame {
                text_height: 4.0,
                ..frame(50.0, 20.0)
            },
        )
        .unwrap();
        assert_eq!(f.module, 1.0);
        assert_eq!(f.text_top, 16.0);
        assert_eq!(f.vector.height, 16.0);
    }

    #[test]
    fn bearer_bars_and_their_light_zones_take_room_in_the_box() {
        let options = Options {
            bearer: Some(Bearer::TopBottom),
            thickness: 2,
            quiet: 5,
            ..Options::default()
        };
        let f = fit(&linear(40), &options, &frame(50.0, 30.0)).unwrap();
        assert_eq!(
            f.module, 1.0,
            "40 bars and 2 x 5 light modules across 50 mm"
        );
        assert_eq!(f.vector.height, 30.0);
        assert!(
            f.vector.rects.contains(&[0.0, 0.0, 50.0, 2.0]),
            "top bearer bar"
        );
        assert!(
            f.vector.rects.contains(&[0.0, 28.0, 50.0, 2.0]),
            "bottom bearer bar"
        );
        let bars: Vec<_> = f.vector.rects.iter().filter(|r| r[2] < 50.0).collect();
        assert!(
            bars.iter().all(|r| r[1] == 7.0 && r[3] == 16.0),
            "bars 5 mm clear of each bearer bar: {bars:?}"
        );
    }

    #[test]
    fn bearer_bars_taller_than_the_box_are_an_error_at_thickness() {
        let options = Options {
            bearer: Some(Bearer::TopBottom),
            thickness: 20,
            quiet: 0,
            ..Options::default()
        };
        let e = fit(&linear(40), &options, &frame(40.0, 30.0)).unwrap_err();
        assert_eq!(e.0.as_deref(), Some("options.thickness"));
    }

    #[test]
    fn modules_snap_down_to_printer_dots() {
        let f = fit(
            &linear(30),
            &Options::default(),
            &Frame {
                dpi: Some(203.0),
                ..frame(10.0, 10.0)
            },
        )
        .unwrap();
        let dots = f.module / (25.4 / 203.0);
        assert!((dots - dots.round()).abs() < 1e-9 && f.module * 30.0 <= 10.0);
    }

    #[test]
    fn a_symbol_too_wide_for_its_requested_module_names_bar_width() {
        let e = fit(
            &linear(60),
            &Options::default(),
            &Frame {
                module: Some(1.0),
                ..frame(50.0, 20.0)
            },
        )
        .unwrap_err();
        assert_eq!(e.0.as_deref(), Some("options.bar_width"));
    }
}
