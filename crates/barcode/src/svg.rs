//! The barcode service's SVG writer for any [`Symbol`], drawn from its
//! [`Vector`](super::vector::Vector) geometry. The `viewBox` is in modules (a
//! 1-D bar is 25 modules tall, i.e. 50 px at the default 2 px per module); the
//! `width`/`height` attributes carry the pixel size, forced by the options
//! when given. Dark modules are merged into runs and drawn as one `<path>`.

use std::fmt::Write;

use super::vector::{num, vectorize};
use super::{Options, Px, Symbol};

/// Default output scale.
pub const PX_PER_MODULE: f64 = 2.0;
/// Default 1-D bar height in modules (50 px).
pub const BAR_HEIGHT_MODULES: f64 = 25.0;

/// Render `symbol` with the drawing options of `options` (size, rotation,
/// margin, colours, bearer bars).
pub fn render(symbol: &Symbol, options: &Options) -> String {
    let m = f64::from(options.margin);
    let vector = vectorize(symbol, options, BAR_HEIGHT_MODULES);
    let d = vector.path_data((m, m));
    // The unrotated drawing extent in modules.
    let (w, h) = (vector.width + 2.0 * m, vector.height + 2.0 * m);
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
    if vector.bullseye.is_some() {
        let _ = write!(svg, "<path fill=\"{fg}\" d=\"{d}\"/>");
        svg.push_str(&vector.rings((m, m), &fg));
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
