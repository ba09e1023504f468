//! A symbol described independently of any output format: encoders build
//! one, renderers (SVG here, the PDF lowering elsewhere) draw it.

/// An encoded barcode, in module units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Symbol {
    /// A 1-D symbol: one entry per module, `true` = bar. No quiet zone.
    Linear { bars: Vec<bool> },
    /// A 2-D (or stacked) symbol: `width` x `height` cells, row-major,
    /// `true` = dark. Each cell is one module wide and `row_height` modules
    /// tall (1 for square-module codes, 3 for PDF417 rows).
    Matrix {
        width: usize,
        height: usize,
        row_height: usize,
        modules: Vec<bool>,
    },
    /// MaxiCode: the ISO/IEC 16023 grid of 33 rows by 30 hexagons (odd rows
    /// shifted right by half a module and one hexagon shorter), row-major,
    /// `true` = dark. The bullseye is not part of the grid; see [`maxi`].
    Maxi { hexes: Vec<bool> },
}

/// A dark run of a symbol, in modules: `x`, `y` from the top left, `w`, `h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
}

impl Symbol {
    /// Width in modules (for MaxiCode: the hexagon columns, 30).
    pub fn width_modules(&self) -> usize {
        match self {
            Symbol::Linear { bars } => bars.len(),
            Symbol::Matrix { width, .. } => *width,
            Symbol::Maxi { .. } => maxi::COLS,
        }
    }

    /// Height in modules for 2-D symbols (`None` for 1-D: bar height is the
    /// renderer's choice).
    pub fn height_modules(&self) -> Option<usize> {
        match self {
            Symbol::Linear { .. } => None,
            Symbol::Matrix {
                height, row_height, ..
            } => Some(height * row_height),
            Symbol::Maxi { .. } => Some(maxi::ROWS),
        }
    }

    pub fn is_linear(&self) -> bool {
        matches!(self, Symbol::Linear { .. })
    }

    /// Dark runs as rectangles in module units: maximal horizontal runs per
    /// row. A 1-D bar is a run of height 1 (stretch it to the bar height).
    /// Empty for MaxiCode, which is drawn from [`Symbol::dark_hexes`].
    pub fn dark_runs(&self) -> Vec<Run> {
        match self {
            Symbol::Linear { bars } => runs_in_row(bars)
                .map(|(x, w)| Run { x, y: 0, w, h: 1 })
                .collect(),
            Symbol::Matrix {
                width,
                height,
                row_height,
                modules,
            } => {
                let mut out = Vec::new();
                if *width == 0 {
                    return out;
                }
                for (y, row) in modules.chunks(*width).take(*height).enumerate() {
                    out.extend(runs_in_row(row).map(|(x, w)| Run {
                        x,
                        y: y * row_height,
                        w,
                        h: *row_height,
                    }));
                }
                out
            }
            Symbol::Maxi { .. } => Vec::new(),
        }
    }

    /// Dark MaxiCode hexagons as `(column, row)`; empty for other symbols.
    pub fn dark_hexes(&self) -> Vec<(usize, usize)> {
        match self {
            Symbol::Maxi { hexes } => hexes
                .iter()
                .enumerate()
                .filter(|(_, dark)| **dark)
                .map(|(i, _)| (i % maxi::COLS, i / maxi::COLS))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// `(start, len)` of each dark run of one row.
fn runs_in_row(row: &[bool]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut x = 0;
    std::iter::from_fn(move || {
        while x < row.len() && !row[x] {
            x += 1;
        }
        if x >= row.len() {
            return None;
        }
        let start = x;
        while x < row.len() && row[x] {
            x += 1;
        }
        Some((start, x - start))
    })
}

/// MaxiCode geometry in module units (one module = the centre-to-centre
/// distance of neighbouring hexagons in a row), shared by every renderer.
/// The figures follow ISO/IEC 16023 as drawn by zint.
pub mod maxi {
    pub const COLS: usize = 30;
    pub const ROWS: usize = 33;
    /// Vertical distance between row centres: sqrt(3)/2.
    pub const ROW_PITCH: f64 = 0.866_025_403_784_438_6;
    /// Outer radius of a hexagon (centre to vertex), slightly under the
    /// 1/sqrt(3) that would make hexagons touch, so neighbours stay distinct.
    pub const HEX_RADIUS: f64 = 0.5;
    /// Drawing extent of the symbol without quiet zone, in modules.
    pub const WIDTH: f64 = 30.0;
    pub const HEIGHT: f64 = 29.0;
    /// Centre of the bullseye.
    pub const BULLSEYE_X: f64 = 14.5;
    pub const BULLSEYE_Y: f64 = 14.435;
    /// Radii (to the middle of the stroke) of the three dark rings, and the
    /// stroke width; the innermost "ring" nearly closes into the central dot.
    pub const RING_RADII: [f64; 3] = [4.1075, 2.5385, 0.9695];
    pub const RING_STROKE: f64 = 0.7845;

    /// Centre of hexagon `(col, row)`. Odd rows are shifted right by half a
    /// module.
    pub fn hex_center(col: usize, row: usize) -> (f64, f64) {
        let shift = if row % 2 == 1 { 0.5 } else { 0.0 };
        (
            col as f64 + 0.5 + shift,
            row as f64 * ROW_PITCH + 1.0 / 3f64.sqrt(),
        )
    }
}
