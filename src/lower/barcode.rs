//! Barcode elements: encoded by [`crate::barcode`], drawn as vector paths
//! (one filled `curve` per symbol) that fill the element's box.

use std::fmt::Write;
use std::sync::Arc;

use super::typst::{self as ty, mm};
use super::Ctx;
use crate::barcode::{maxi, Options, Symbol, Symbology};
use crate::model::BarcodeElement;
use crate::style::{merge_text, resolve_text, Rgb};
use crate::validate::{Run, PT_MM};

/// HRT size when the request gives none (pt).
const HRT_FONT_SIZE: f64 = 8.0;

/// Validation hook: encodes the symbol so a bad content or option is API-002,
/// and keeps it for drawing. Returns the offending field and a message.
pub fn check(b: &BarcodeElement) -> Result<(), (Option<String>, String)> {
    let symbology: Symbology = b.format.parse().map_err(|e: crate::barcode::BarcodeError| (Some("format".into()), e.to_string()))?;
    let extra = b.options.as_ref().map(|o| &o.symbology);
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (key, value) in extra.into_iter().flatten() {
        if !crate::barcode::parameters_of(symbology).contains(&key.as_str()) {
            return Err((
                Some(format!("options.{key}")),
                format!("`{key}` is not an option of {}; the element sets size, margins and colours itself", symbology.name()),
            ));
        }
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(v) => v.to_string(),
            _ => return Err((Some(format!("options.{key}")), "must be a string, number or boolean".into())),
        };
        pairs.push((key.clone(), text));
    }
    let options = Options::from_pairs(symbology, pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|e| (Some("options".into()), e.to_string()))?;
    let symbol = crate::barcode::encode(symbology, &b.content, &options).map_err(|e| (None, e.to_string()))?;
    let _ = b.symbol.set(Arc::new(symbol));
    Ok(())
}

/// Module size in mm: the requested one, else the largest that fits; snapped
/// down to whole printer dots when `print_dpi` is set (never below one dot).
fn module_size(requested: Option<f64>, fits: f64, dpi: Option<f64>) -> f64 {
    let m = requested.unwrap_or(fits);
    match dpi {
        Some(dpi) => {
            let dot = 25.4 / dpi;
            let dots = if requested.is_some() { (m / dot).round() } else { (m / dot).floor() };
            dots.max(1.0) * dot
        }
        None => m,
    }
}

/// The symbol as Typst content of exactly the element's (unrotated) box.
pub(crate) fn draw(ctx: &Ctx, b: &BarcodeElement) -> Result<String, String> {
    let symbol = match b.symbol.get() {
        Some(s) => s.clone(),
        None => {
            check(b).map_err(|e| e.1)?;
            b.symbol.get().cloned().ok_or("the symbol could not be encoded")?
        }
    };
    let opts = b.options.clone().unwrap_or_default();
    let fg = opts.color.as_deref().and_then(Rgb::parse).unwrap_or(Rgb::BLACK);
    let bg = opts.background_color.as_deref().and_then(Rgb::parse);
    let quiet = opts.quiet_zone.unwrap_or(0.0);
    let dpi = ctx.doc.settings.print_dpi;
    let (w, h) = (b.width, b.height);
    let inner_w = w - 2.0 * quiet;
    let mut parts = String::new();
    match symbol.as_ref() {
        Symbol::Linear { bars } => {
            let modules = bars.len() as f64;
            let m = module_size(opts.bar_width, inner_w / modules, dpi);
            let sym_w = m * modules;
            if sym_w > inner_w + 1e-6 {
                return Err(format!("the symbol needs {sym_w:.2} mm but the box has {inner_w:.2} mm inside its quiet zones"));
            }
            let x0 = (w - sym_w) / 2.0;
            let hrt = hrt_text(ctx, b);
            let hrt_h = hrt.as_ref().map_or(0.0, |(_, size)| size * 1.2 * PT_MM);
            let bar_h = h - hrt_h;
            let runs: Vec<(f64, f64, f64, f64)> =
                symbol.dark_runs().iter().map(|r| (x0 + r.x as f64 * m, 0.0, r.w as f64 * m, bar_h)).collect();
            parts.push_str(&rect_curve(&runs, fg));
            if let Some((body, _)) = hrt {
                let _ = write!(parts, "; place(dx: 0mm, dy: {}, {body})", mm(bar_h));
            }
        }
        Symbol::Matrix { .. } => {
            let (mw, mh) = (symbol.width_modules() as f64, symbol.height_modules().unwrap_or(1) as f64);
            let fits = (inner_w / mw).min((h - 2.0 * quiet) / mh);
            let m = module_size(opts.bar_width, fits, dpi);
            let (sw, sh) = (m * mw, m * mh);
            if sw > inner_w + 1e-6 || sh > h - 2.0 * quiet + 1e-6 {
                return Err(format!("the symbol needs {sw:.2} x {sh:.2} mm but the box has {:.2} x {:.2} mm inside its quiet zones", inner_w, h - 2.0 * quiet));
            }
            let (x0, y0) = ((w - sw) / 2.0, (h - sh) / 2.0);
            let runs: Vec<(f64, f64, f64, f64)> = symbol
                .dark_runs()
                .iter()
                .map(|r| (x0 + r.x as f64 * m, y0 + r.y as f64 * m, r.w as f64 * m, r.h as f64 * m))
                .collect();
            parts.push_str(&rect_curve(&runs, fg));
        }
        Symbol::Maxi { .. } => {
            let fits = (inner_w / maxi::WIDTH).min((h - 2.0 * quiet) / maxi::HEIGHT);
            let m = module_size(opts.bar_width, fits, dpi);
            let (sw, sh) = (m * maxi::WIDTH, m * maxi::HEIGHT);
            if sw > inner_w + 1e-6 || sh > h - 2.0 * quiet + 1e-6 {
                return Err(format!("the symbol needs {sw:.2} x {sh:.2} mm but the box is smaller"));
            }
            let (x0, y0) = ((w - sw) / 2.0, (h - sh) / 2.0);
            parts.push_str(&maxi_curve(&symbol, x0, y0, m, fg));
        }
    }
    let fill = bg.map(|c| format!(", fill: {}", ty::colour(c, 1.0))).unwrap_or_default();
    Ok(format!("box(width: {}, height: {}{fill}, {{ {parts} }})", mm(w), mm(h)))
}

/// Rectangles (x, y, w, h in mm) as one filled curve.
fn rect_curve(rects: &[(f64, f64, f64, f64)], fg: Rgb) -> String {
    let mut c = format!("place(curve(fill: {}, stroke: none", ty::colour(fg, 1.0));
    for &(x, y, w, h) in rects {
        let _ = write!(
            c,
            ", curve.move(({}, {})), curve.line(({}, {})), curve.line(({}, {})), curve.line(({}, {})), curve.close()",
            mm(x), mm(y), mm(x + w), mm(y), mm(x + w), mm(y + h), mm(x), mm(y + h)
        );
    }
    c.push_str("))");
    c
}

/// MaxiCode hexagons as one filled curve, plus the bullseye rings.
fn maxi_curve(symbol: &Symbol, x0: f64, y0: f64, m: f64, fg: Rgb) -> String {
    let paint = ty::colour(fg, 1.0);
    let mut c = format!("place(curve(fill: {paint}, stroke: none");
    let r = maxi::HEX_RADIUS * m;
    for (col, row) in symbol.dark_hexes() {
        let (cx, cy) = maxi::hex_center(col, row);
        let (cx, cy) = (x0 + cx * m, y0 + cy * m);
        for k in 0..6 {
            // Pointy-top hexagon (as the SVG renderer draws it): first vertex straight up.
            let a = (60.0 * k as f64 - 90.0).to_radians();
            let (px, py) = (cx + r * a.cos(), cy + r * a.sin());
            let op = if k == 0 { "move" } else { "line" };
            let _ = write!(c, ", curve.{op}(({}, {}))", mm(px), mm(py));
        }
        c.push_str(", curve.close()");
    }
    c.push_str("))");
    let (bx, by) = (x0 + maxi::BULLSEYE_X * m, y0 + maxi::BULLSEYE_Y * m);
    for radius in maxi::RING_RADII {
        let rr = radius * m;
        let _ = write!(
            c,
            "; place(dx: {}, dy: {}, circle(radius: {}, fill: none, stroke: {} + {paint}))",
            mm(bx - rr),
            mm(by - rr),
            mm(rr),
            mm(maxi::RING_STROKE * m)
        );
    }
    c
}

/// The human-readable text under 1-D bars, when enabled: (content, size pt).
fn hrt_text(ctx: &Ctx, b: &BarcodeElement) -> Option<(String, f64)> {
    let hrt = b.hrt.as_ref()?;
    if !hrt.enabled.unwrap_or(false) {
        return None;
    }
    let defaults = ctx.doc.settings.defaults.as_ref().and_then(|d| d.text.as_ref());
    let mut merged = merge_text(&[defaults, hrt.style.as_ref()]);
    if hrt.style.as_ref().and_then(|s| s.font_size).is_none() {
        merged.font_size = Some(HRT_FONT_SIZE);
    }
    merged.width = Some(b.width);
    if merged.text_align.is_none() {
        merged.text_align = Some(crate::model::TextAlign::Center);
    }
    let style = resolve_text(&merged, &ctx.config.defaults);
    let content = hrt.content.clone().unwrap_or_else(|| b.content.clone());
    let runs = vec![Run::Text { text: content.replace(['\n', '\r'], " "), bold: false, large: false }];
    Some((ctx.text_body(&runs, &style), style.size))
}
