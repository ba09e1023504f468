//! Barcode elements: encoded by [`crate::barcode`], drawn as vector paths
//! (one filled `curve` per symbol) that fill the element's box.

use std::fmt::Write;
use std::sync::Arc;

use super::typst::{mm, num, string};
use super::Ctx;
use crate::barcode::{maxi, Options, Symbol, Symbology};
use crate::config::{RuntimeConfig, StyleDefaults};
use crate::layout::{fit_text, Measurer};
use crate::model::{BarcodeElement, Settings};
use crate::style::{merge_text, resolve_text, ResolvedText, Rgb};
use crate::validate::{Run, PT_MM};

/// HRT size when the request gives none (pt).
const HRT_FONT_SIZE: f64 = 8.0;

/// Validation hook: encodes the symbol (kept for drawing) and fits it into
/// its box, so bad content, options or sizes are API-002. Returns the
/// offending field (relative to the element) and a message.
pub fn check(
    b: &BarcodeElement,
    settings: &Settings,
    config: &RuntimeConfig,
) -> Result<(), (Option<String>, String)> {
    let symbol = encode(b)?;
    let hrt_height = hrt_style(settings, &config.defaults, b)
        .as_ref()
        .map_or(0.0, hrt_line_height);
    let field = if b.options.as_ref().is_some_and(|o| o.bar_width.is_some()) {
        "options.bar_width"
    } else {
        "width"
    };
    let min_module = config.limits.barcode_module_min_mm;
    layout(b, &symbol, settings.print_dpi, hrt_height, min_module)
        .map_err(|e| (Some(field.into()), e))?;
    Ok(())
}

/// Encodes the element's symbol once and keeps it on the element.
fn encode(b: &BarcodeElement) -> Result<Arc<Symbol>, (Option<String>, String)> {
    if let Some(symbol) = b.symbol.get() {
        return Ok(symbol.clone());
    }
    let symbology: Symbology = b
        .format
        .parse()
        .map_err(|e: crate::barcode::BarcodeError| (Some("format".into()), e.to_string()))?;
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
            _ => {
                return Err((
                    Some(format!("options.{key}")),
                    "must be a string, number or boolean".into(),
                ))
            }
        };
        pairs.push((key.clone(), text));
    }
    let options = Options::from_pairs(
        symbology,
        pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .map_err(|e| (Some("options".into()), e.to_string()))?;
    let symbol = Arc::new(
        crate::barcode::encode(symbology, &b.content, &options)
            .map_err(|e| (None, e.to_string()))?,
    );
    let _ = b.symbol.set(symbol.clone());
    Ok(symbol)
}

/// Module size in mm: the requested one, else the largest that fits; snapped
/// down to whole printer dots when `print_dpi` is set (never below one dot).
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

/// Where the symbol sits inside the element's box (mm).
struct Layout {
    module: f64,
    x0: f64,
    y0: f64,
    /// Bar height of 1-D symbols (the box height less the HRT line).
    bar_height: f64,
}

/// Fits a symbol into the box: quiet zones on the sides, module size from
/// `bar_width` or the box, centred. An error when the symbol does not fit,
/// or when its modules, requested or fitted, would be thinner than
/// `min_module` mm (`limits.barcode_module_min_mm`).
fn layout(
    b: &BarcodeElement,
    symbol: &Symbol,
    dpi: Option<f64>,
    hrt_height: f64,
    min_module: f64,
) -> Result<Layout, String> {
    let opts = b.options.clone().unwrap_or_default();
    let quiet = opts.quiet_zone.unwrap_or(0.0);
    let (w, h) = (b.width, b.height);
    let (inner_w, inner_h) = (w - 2.0 * quiet, h - 2.0 * quiet);
    let (mw, mh) = match symbol {
        Symbol::Linear { bars } => (bars.len() as f64, 0.0),
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
    let module = module_size(opts.bar_width, fits, dpi);
    let (sw, sh) = (module * mw, module * mh);
    if sw > inner_w + 1e-6 || sh > inner_h + 1e-6 || module <= 0.0 {
        return Err(format!(
            "the symbol needs {sw:.2} x {sh:.2} mm ({mw} x {mh} modules of {module:.3} mm) but the box has {inner_w:.2} x {inner_h:.2} mm inside its quiet zones"
        ));
    }
    // Checked before print-dpi snapping, which could round a module up.
    let unsnapped = opts.bar_width.unwrap_or(fits);
    if unsnapped < min_module {
        return Err(match opts.bar_width {
            Some(_) => format!(
                "a module of {unsnapped} mm is below the {min_module} mm minimum (limits.barcode_module_min_mm)"
            ),
            None => format!(
                "the box fits modules of only {unsnapped:.4} mm ({mw} x {mh} modules), below the {min_module} mm minimum (limits.barcode_module_min_mm)"
            ),
        });
    }
    if mh == 0.0 && h - hrt_height <= 0.0 {
        return Err("the human-readable text leaves no height for the bars".into());
    }
    Ok(Layout {
        module,
        x0: (w - sw) / 2.0,
        y0: (h - sh) / 2.0,
        bar_height: h - hrt_height,
    })
}

/// The symbol as Typst content of exactly the element's (unrotated) box.
///
/// The symbol itself is an SVG (one merged path) handed to Typst as a virtual
/// image file: Typst embeds it as vector paths, and parsing one SVG path is far
/// cheaper than evaluating thousands of Typst `curve` calls.
pub(crate) fn draw(ctx: &mut Ctx, b: &BarcodeElement) -> Result<String, String> {
    let symbol = match b.symbol.get() {
        Some(s) => s.clone(),
        None => {
            encode(b).map_err(|e| e.1)?;
            b.symbol
                .get()
                .cloned()
                .ok_or("the symbol could not be encoded")?
        }
    };
    let opts = b.options.clone().unwrap_or_default();
    let fg = opts
        .color
        .as_deref()
        .and_then(Rgb::parse)
        .unwrap_or(Rgb::BLACK);
    let bg = opts.background_color.as_deref().and_then(Rgb::parse);
    let hrt = hrt_style(&ctx.doc.settings, &ctx.config.defaults, b);
    let hrt_height = hrt.as_ref().map_or(0.0, hrt_line_height);
    let min_module = ctx.config.limits.barcode_module_min_mm;
    let at = layout(
        b,
        &symbol,
        ctx.doc.settings.print_dpi,
        hrt_height,
        min_module,
    )?;
    let m = at.module;
    let (w, h) = (b.width, b.height);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}mm\" height=\"{}mm\">",
        num(w), num(h), num(w), num(h)
    );
    if let Some(c) = bg {
        let _ = write!(
            svg,
            "<rect width=\"{}\" height=\"{}\" fill=\"{}\"/>",
            num(w),
            num(h),
            c.hex()
        );
    }
    // Dark runs in whole module units, scaled by one transform: short, exact,
    // and integers are cheap to write.
    match symbol.as_ref() {
        Symbol::Linear { .. } => {
            let _ = write!(
                svg,
                "<path fill=\"{}\" transform=\"translate({} 0) scale({} {})\" d=\"",
                fg.hex(),
                num(at.x0),
                num(m),
                num(at.bar_height)
            );
            run_rects(&mut svg, &symbol);
        }
        Symbol::Matrix { .. } => {
            let _ = write!(
                svg,
                "<path fill=\"{}\" transform=\"translate({} {}) scale({})\" d=\"",
                fg.hex(),
                num(at.x0),
                num(at.y0),
                num(m)
            );
            run_rects(&mut svg, &symbol);
        }
        Symbol::Maxi { .. } => {
            let _ = write!(svg, "<path fill=\"{}\" d=\"", fg.hex());
            hex_paths(&mut svg, &symbol, at.x0, at.y0, m);
        }
    }
    svg.push_str("\"/>");
    if let Symbol::Maxi { .. } = symbol.as_ref() {
        let (bx, by) = (at.x0 + maxi::BULLSEYE_X * m, at.y0 + maxi::BULLSEYE_Y * m);
        for radius in maxi::RING_RADII {
            let _ = write!(
                svg,
                "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"/>",
                num(bx), num(by), num(radius * m), fg.hex(), num(maxi::RING_STROKE * m)
            );
        }
    }
    svg.push_str("</svg>");
    let index = ctx.images.len();
    ctx.images.push(Arc::new(svg.into_bytes()));
    // The alternative text is the encoded content: the accessible profiles
    // (PDF/UA, PDF/A-*a) require one for every image, and a reader that
    // cannot scan the symbol can read what it says.
    let mut parts = format!(
        "place(image(\"/img/{index}\", format: \"svg\", width: {}, height: {}, fit: \"stretch\", alt: {}))",
        mm(w),
        mm(h),
        string(&b.content.replace(char::is_control, " "))
    );
    if let Some(style) = hrt {
        let content = b
            .hrt
            .as_ref()
            .and_then(|h| h.content.clone())
            .unwrap_or_else(|| b.content.clone());
        let runs = vec![Run::Text {
            text: content.replace(['\n', '\r'], " "),
            bold: false,
            large: false,
        }];
        let _ = write!(
            parts,
            "; place(dx: 0mm, dy: {}, {})",
            mm(at.bar_height),
            ctx.text_body(
                &fit_text(&runs, &style, Some(w), None, &Measurer::new(ctx.fonts)),
                &style
            )
        );
    }
    Ok(format!(
        "box(width: {}, height: {}, {{ {parts} }})",
        mm(w),
        mm(h)
    ))
}

/// Each dark run as a closed rectangle in module units (`M x y h w v h h -w z`;
/// 1-D bars are runs at y 0 of height 1). Thousands of integers per symbol:
/// itoa, not `fmt`.
fn run_rects(d: &mut String, symbol: &Symbol) {
    let (mut int, mut width) = (itoa::Buffer::new(), itoa::Buffer::new());
    for r in symbol.dark_runs() {
        let w = width.format(r.w);
        d.push('M');
        d.push_str(int.format(r.x));
        d.push(' ');
        d.push_str(int.format(r.y));
        d.push('h');
        d.push_str(w);
        d.push('v');
        d.push_str(int.format(r.h));
        d.push_str("h-");
        d.push_str(w);
        d.push('z');
    }
}

/// MaxiCode's dark hexagons (pointy-top, as the SVG renderer draws them) as subpaths.
fn hex_paths(d: &mut String, symbol: &Symbol, x0: f64, y0: f64, m: f64) {
    let r = maxi::HEX_RADIUS * m;
    for (col, row) in symbol.dark_hexes() {
        let (cx, cy) = maxi::hex_center(col, row);
        let (cx, cy) = (x0 + cx * m, y0 + cy * m);
        for k in 0..6 {
            let a = (60.0 * k as f64 - 90.0).to_radians();
            let op = if k == 0 { 'M' } else { 'L' };
            let _ = write!(d, "{op}{} {}", num(cx + r * a.cos()), num(cy + r * a.sin()));
        }
        d.push('z');
    }
}

/// The style of the human-readable text under 1-D bars, when it is enabled.
fn hrt_style(settings: &Settings, sys: &StyleDefaults, b: &BarcodeElement) -> Option<ResolvedText> {
    let hrt = b.hrt.as_ref()?;
    if !hrt.enabled.unwrap_or(false) {
        return None;
    }
    let defaults = settings.defaults.as_ref().and_then(|d| d.text.as_ref());
    let mut merged = merge_text(&[defaults, hrt.style.as_ref()]);
    if hrt.style.as_ref().and_then(|s| s.font_size).is_none() {
        merged.font_size = Some(HRT_FONT_SIZE);
    }
    merged.width = Some(b.width);
    if merged.text_align.is_none() {
        merged.text_align = Some(crate::model::TextAlign::Center);
    }
    Some(resolve_text(&merged, sys))
}

fn hrt_line_height(style: &ResolvedText) -> f64 {
    style.size * style.line_height * PT_MM
}
