//! SVG renderer for any [`Symbol`]. The `viewBox` is in modules (a 1-D bar
//! is 25 modules tall, i.e. 50 px at the default 2 px per module); the
//! `width`/`height` attributes carry the pixel size, forced by the options
//! when given. Dark modules are merged into runs and drawn as one `<path>`.

use std::fmt::Write;

use super::{maxi, Options, Px, Symbol};

/// Default output scale.
pub const PX_PER_MODULE: f64 = 2.0;
/// Default 1-D bar height in modules (50 px).
pub const BAR_HEIGHT_MODULES: f64 = 25.0;
/// Bearer bar thickness used when `thickness` is 0, in modules.
pub const DEFAULT_BEARER_THICKNESS: u32 = 2;

/// Render `symbol` with the drawing options of `options` (size, rotation,
/// margin, colours, bearer bars).
pub fn render(symbol: &Symbol, options: &Options) -> String {
    let m = f64::from(options.margin);
    let mut d = String::new();
    // The unrotated drawing extent in modules.
    let (w, h, hexes) = match symbol {
        Symbol::Linear { bars } => {
            let (quiet, top, bottom) = match options.bearer {
                Some(b) => {
                    let t = match options.thickness {
                        0 => DEFAULT_BEARER_THICKNESS,
                        t => t,
                    };
                    let t = f64::from(t);
                    (
                        f64::from(options.quiet),
                        if b.top() { t } else { 0.0 },
                        if b.bottom() { t } else { 0.0 },
                    )
                }
                None => (0.0, 0.0, 0.0),
            };
            let len = bars.len() as f64;
            let bar_y = m + top;
            for run in symbol.dark_runs() {
                rect(
                    &mut d,
                    m + quiet + run.x as f64,
                    bar_y,
                    run.w as f64,
                    BAR_HEIGHT_MODULES,
                );
            }
            let span = len + 2.0 * quiet;
            if top > 0.0 {
                rect(&mut d, m, m, span, top);
            }
            if bottom > 0.0 {
                rect(&mut d, m, bar_y + BAR_HEIGHT_MODULES, span, bottom);
            }
            (
                span + 2.0 * m,
                top + BAR_HEIGHT_MODULES + bottom + 2.0 * m,
                false,
            )
        }
        Symbol::Matrix { .. } => {
            for run in symbol.dark_runs() {
                rect(
                    &mut d,
                    m + run.x as f64,
                    m + run.y as f64,
                    run.w as f64,
                    run.h as f64,
                );
            }
            let h = symbol.height_modules().unwrap_or(0) as f64;
            (symbol.width_modules() as f64 + 2.0 * m, h + 2.0 * m, false)
        }
        Symbol::Maxi { .. } => {
            for (col, row) in symbol.dark_hexes() {
                let (cx, cy) = maxi::hex_center(col, row);
                hexagon(&mut d, m + cx, m + cy);
            }
            (maxi::WIDTH + 2.0 * m, maxi::HEIGHT + 2.0 * m, true)
        }
    };

    let rotated = matches!(options.rotate, 90 | 270);
    let (vw, vh) = if rotated { (h, w) } else { (w, h) };
    let (px_w, px_h) = pixel_size(symbol.is_linear(), vw, vh, options);
    let transform = match options.rotate {
        90 => format!(" transform=\"translate({} 0) rotate(90)\"", num(h)),
        180 => format!(
            " transform=\"translate({} {}) rotate(180)\"",
            num(w),
            num(h)
        ),
        270 => format!(" transform=\"translate(0 {}) rotate(270)\"", num(w)),
        _ => String::new(),
    };

    let mut svg = String::with_capacity(d.len() + 512);
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\"{}>",
        num(px_w),
        num(px_h),
        num(vw),
        num(vh),
        // A forced 1-D size stretches the bars; 2-D symbols keep square modules.
        if symbol.is_linear() { " preserveAspectRatio=\"none\"" } else { "" },
    );
    let _ = write!(
        svg,
        "<rect width=\"{}\" height=\"{}\" fill=\"{}\"/>",
        num(vw),
        num(vh),
        options.bg.to_hex()
    );
    let fg = options.fg.to_hex();
    let _ = write!(svg, "<g{transform}>");
    if hexes {
        let _ = write!(svg, "<path fill=\"{fg}\" d=\"{d}\"/>");
        for r in maxi::RING_RADII {
            let _ = write!(
                svg,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{fg}\" stroke-width=\"{}\"/>",
                num(m + maxi::BULLSEYE_X),
                num(m + maxi::BULLSEYE_Y),
                num(r),
                num(maxi::RING_STROKE)
            );
        }
    } else {
        let _ = write!(
            svg,
            "<path fill=\"{fg}\" shape-rendering=\"crispEdges\" d=\"{d}\"/>"
        );
    }
    svg.push_str("</g></svg>");
    svg
}

/// The `width`/`height` attributes: forced values win; a single forced
/// value of a 2-D symbol scales the other side with it.
fn pixel_size(linear: bool, vw: f64, vh: f64, o: &Options) -> (f64, f64) {
    let (dw, dh) = (vw * PX_PER_MODULE, vh * PX_PER_MODULE);
    match (o.width.map(Px::get), o.height.map(Px::get)) {
        (Some(w), Some(h)) => (w, h),
        (Some(w), None) if !linear => (w, w * vh / vw),
        (None, Some(h)) if !linear => (h * vw / vh, h),
        (w, h) => (w.unwrap_or(dw), h.unwrap_or(dh)),
    }
}

fn rect(d: &mut String, x: f64, y: f64, w: f64, h: f64) {
    d.push('M');
    push_num(d, x);
    d.push(' ');
    push_num(d, y);
    d.push('h');
    push_num(d, w);
    d.push('v');
    push_num(d, h);
    d.push_str("h-");
    push_num(d, w);
    d.push('z');
}

/// A pointy-top hexagon of outer radius `maxi::HEX_RADIUS` (0.5) centred on
/// (cx, cy): move to the top vertex, then the fixed relative outline.
fn hexagon(d: &mut String, cx: f64, cy: f64) {
    const OUTLINE: &str = "l.433 .25v.5l-.433 .25l-.433-.25v-.5z";
    d.push('M');
    push_num(d, cx);
    d.push(' ');
    push_num(d, cy - maxi::HEX_RADIUS);
    d.push_str(OUTLINE);
}

/// Append `v` with at most 3 decimals and no trailing zeros, without
/// allocating (this runs for every run and hexagon).
fn push_num(out: &mut String, v: f64) {
    let milli = (v * 1000.0).round() as i64;
    if milli < 0 {
        out.push('-');
    }
    let milli = milli.unsigned_abs();
    let (int, frac) = (milli / 1000, milli % 1000);
    let _ = write!(out, "{int}");
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

/// `v` as `push_num` writes it.
fn num(v: f64) -> String {
    let mut s = String::new();
    push_num(&mut s, v);
    s
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(2.0), "2");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(14.435), "14.435");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(-1.25), "-1.25");
        assert_eq!(num(0.1004), "0.1");
    }
}
