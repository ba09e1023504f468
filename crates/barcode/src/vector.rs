//! A symbol as one vector description, in module units: dark rectangles,
//! MaxiCode hexagons and bullseye, bearer bars and the light zones they hold.
//! Like zint's `vector.c`, this is the one place that decides the geometry;
//! each output (the service's SVG in `svg.rs`, the document's drawing in
//! `lower::barcode`) only writes it, scaled and placed.

use std::fmt::Write;

use super::{maxi, Options, Symbol};

/// Bearer bar thickness used when `thickness` is 0, in modules.
pub const DEFAULT_BEARER_THICKNESS: u32 = 2;

/// What to draw, with (0, 0) at the top left of the symbol's extent.
#[derive(Debug, Clone, PartialEq)]
pub struct Vector {
    /// Extent in modules: the symbol, the light zones inside bearer bars and
    /// the bearer bars.
    pub width: f64,
    pub height: f64,
    /// Dark rectangles `[x, y, w, h]`: bars or runs of modules, bearer bars.
    pub rects: Vec<[f64; 4]>,
    /// Centres of MaxiCode's dark hexagons (outer radius `maxi::HEX_RADIUS`).
    pub hexagons: Vec<(f64, f64)>,
    /// Centre of MaxiCode's bullseye (rings `maxi::RING_RADII`, stroke `maxi::RING_STROKE`).
    pub bullseye: Option<(f64, f64)>,
}

/// The bearer bars of a 1-D symbol and the light space they keep, in
/// modules; all zeros without bearer bars. `quiet` is the gap between the
/// bars and each bearer bar (above and below), and also the light zone
/// before and after the bars, which the bearer bars span.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Bearers {
    /// Light zone before and after the bars.
    pub side: f64,
    /// Thickness of the top and bottom bearer bar; 0 where there is none.
    pub top: f64,
    pub bottom: f64,
    /// Light space between the bars and each bearer bar that is drawn.
    pub gap: f64,
}

impl Bearers {
    pub fn of(options: &Options) -> Bearers {
        let Some(bearer) = options.bearer else {
            return Bearers::default();
        };
        let thickness = f64::from(match options.thickness {
            0 => DEFAULT_BEARER_THICKNESS,
            t => t,
        });
        Bearers {
            side: f64::from(options.quiet),
            top: if bearer.top() { thickness } else { 0.0 },
            bottom: if bearer.bottom() { thickness } else { 0.0 },
            gap: f64::from(options.quiet),
        }
    }

    /// Height above the bars: the top bearer bar and its gap.
    pub fn above(&self) -> f64 {
        if self.top > 0.0 {
            self.top + self.gap
        } else {
            0.0
        }
    }

    /// Height below the bars: the gap and the bottom bearer bar.
    pub fn below(&self) -> f64 {
        if self.bottom > 0.0 {
            self.bottom + self.gap
        } else {
            0.0
        }
    }
}

/// The symbol's geometry; `bar_height` (modules) is the height of 1-D bars,
/// between the bearer bars when there are any.
pub fn vectorize(symbol: &Symbol, options: &Options, bar_height: f64) -> Vector {
    match symbol {
        Symbol::Linear { bars } => {
            let b = Bearers::of(options);
            let width = bars.len() as f64 + 2.0 * b.side;
            let bars_top = b.above();
            let mut rects: Vec<[f64; 4]> = symbol
                .dark_runs()
                .into_iter()
                .map(|r| [b.side + r.x as f64, bars_top, r.w as f64, bar_height])
                .collect();
            if b.top > 0.0 {
                rects.push([0.0, 0.0, width, b.top]);
            }
            let height = bars_top + bar_height + b.below();
            if b.bottom > 0.0 {
                rects.push([0.0, height - b.bottom, width, b.bottom]);
            }
            Vector {
                width,
                height,
                rects,
                hexagons: Vec::new(),
                bullseye: None,
            }
        }
        Symbol::Matrix { .. } => Vector {
            width: symbol.width_modules() as f64,
            height: symbol.height_modules().unwrap_or(0) as f64,
            rects: symbol
                .dark_runs()
                .into_iter()
                .map(|r| [r.x as f64, r.y as f64, r.w as f64, r.h as f64])
                .collect(),
            hexagons: Vec::new(),
            bullseye: None,
        },
        Symbol::Maxi { .. } => Vector {
            width: maxi::WIDTH,
            height: maxi::HEIGHT,
            rects: Vec::new(),
            hexagons: symbol
                .dark_hexes()
                .into_iter()
                .map(|(col, row)| maxi::hex_center(col, row))
                .collect(),
            bullseye: Some((maxi::BULLSEYE_X, maxi::BULLSEYE_Y)),
        },
    }
}

impl Vector {
    /// The dark rectangles and hexagons as SVG path data, shifted by `origin`.
    pub fn path_data(&self, origin: (f64, f64)) -> String {
        let mut d = String::with_capacity(self.rects.len() * 24 + self.hexagons.len() * 48);
        let (ox, oy) = origin;
        for [x, y, w, h] in &self.rects {
            d.push('M');
            push_num(&mut d, ox + x);
            d.push(' ');
            push_num(&mut d, oy + y);
            d.push('h');
            push_num(&mut d, *w);
            d.push('v');
            push_num(&mut d, *h);
            d.push_str("h-");
            push_num(&mut d, *w);
            d.push('z');
        }
        // A pointy-top hexagon of outer radius 0.5: the top vertex, then the
        // fixed relative outline.
        const OUTLINE: &str = "l.433 .25v.5l-.433 .25l-.433-.25v-.5z";
        for (cx, cy) in &self.hexagons {
            d.push('M');
            push_num(&mut d, ox + cx);
            d.push(' ');
            push_num(&mut d, oy + cy - maxi::HEX_RADIUS);
            d.push_str(OUTLINE);
        }
        d
    }

    /// The bullseye's rings as SVG circles in colour `fg`, shifted by `origin`.
    pub fn rings(&self, origin: (f64, f64), fg: &str) -> String {
        let mut out = String::new();
        if let Some((cx, cy)) = self.bullseye {
            for r in maxi::RING_RADII {
                let _ = write!(
                    out,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{fg}\" stroke-width=\"{}\"/>",
                    num(origin.0 + cx),
                    num(origin.1 + cy),
                    num(r),
                    num(maxi::RING_STROKE)
                );
            }
        }
        out
    }
}

/// Appends `v` with at most 3 decimals and no trailing zeros, without
/// allocating (this runs for every run and hexagon).
pub fn push_num(out: &mut String, v: f64) {
    let milli = (v * 1000.0).round() as i64;
    if milli < 0 {
        out.push('-');
    }
    let milli = milli.unsigned_abs();
    let (int, frac) = (milli / 1000, milli % 1000);
    out.push_str(itoa::Buffer::new().format(int));
    if frac != 0 {
        let digits = [
            (frac / 100) as u8,
            (frac / 10 % 10) as u8,
            (frac % 10) as u8,
        ];
        let len = if digits[2] != 0 {
            3
        } else if digits[1] != 0 {
            2
        } else {
            1
        };
        out.push('.');
        for &digit in &digits[..len] {
            out.push(char::from(b'0' + digit));
        }
    }
}

/// `v` as [`push_num`] writes it.
pub fn num(v: f64) -> String {
    let mut s = String::new();
    push_num(&mut s, v);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Bearer;

    fn linear() -> Symbol {
        Symbol::Linear {
            bars: vec![true, false, true, true],
        }
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(2.0), "2");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(14.435), "14.435");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(-1.25), "-1.25");
        assert_eq!(num(0.1004), "0.1");
    }

    #[test]
    fn bars_are_runs_of_the_bar_height() {
        let v = vectorize(&linear(), &Options::default(), 10.0);
        assert_eq!(v.rects, [[0.0, 0.0, 1.0, 10.0], [2.0, 0.0, 2.0, 10.0]]);
        assert_eq!((v.width, v.height), (4.0, 10.0));
    }

    #[test]
    fn bearer_bars_keep_quiet_modules_of_light_from_the_bars() {
        let options = Options {
            bearer: Some(Bearer::TopBottom),
            thickness: 3,
            quiet: 5,
            ..Options::default()
        };
        let v = vectorize(&linear(), &options, 10.0);
        assert_eq!((v.width, v.height), (14.0, 3.0 + 5.0 + 10.0 + 5.0 + 3.0));
        assert_eq!(
            v.rects[0],
            [5.0, 8.0, 1.0, 10.0],
            "bars inside the light zone, quiet modules below the top bar"
        );
        assert!(v.rects.contains(&[0.0, 0.0, 14.0, 3.0]), "top bar");
        assert!(v.rects.contains(&[0.0, 23.0, 14.0, 3.0]), "bottom bar");
    }

    #[test]
    fn one_bearer_bar_keeps_its_gap_on_its_side_only() {
        let options = Options {
            bearer: Some(Bearer::BottomOnly),
            thickness: 2,
            quiet: 4,
            ..Options::default()
        };
        let v = vectorize(&linear(), &options, 10.0);
        assert_eq!(v.height, 10.0 + 4.0 + 2.0);
        assert_eq!(v.rects[0], [4.0, 0.0, 1.0, 10.0], "bars start at the top");
        assert!(v.rects.contains(&[0.0, 14.0, 12.0, 2.0]), "bottom bar");
    }

    #[test]
    fn a_thickness_of_zero_is_the_default_thickness() {
        let options = Options {
            bearer: Some(Bearer::TopOnly),
            ..Options::default()
        };
        let b = Bearers::of(&options);
        assert_eq!(
            (b.top, b.bottom),
            (f64::from(DEFAULT_BEARER_THICKNESS), 0.0)
        );
    }
}
