//! Barcode elements: the symbol validation encoded and fitted
//! (labelpress_barcode::fit) written as one SVG image that fills the element's box.

use std::fmt::Write;
use std::sync::Arc;

use super::typst::{mm, num, string};
use super::Ctx;
use crate::ir::Barcode;
use crate::style::Rgb;

/// The symbol as Typst content of exactly the element's (unrotated) box.
///
/// The symbol itself is an SVG (one merged path) handed to Typst as a virtual
/// image file: Typst embeds it as vector paths, and parsing one SVG path is far
/// cheaper than evaluating thousands of Typst `curve` calls.
///
/// With `settings.print_dpi`, the symbol is drawn for that printer's dot
/// grid (see [`on_dot_grid`]). `at` is the placed box's top-left on the sheet.
pub(crate) fn draw(ctx: &mut Ctx, barcode: &Barcode, at: (f64, f64)) -> String {
    let b = &barcode.spec;
    let opts = b.options.clone().unwrap_or_default();
    let fg = opts
        .color
        .as_deref()
        .and_then(Rgb::parse)
        .unwrap_or(Rgb::BLACK)
        .hex();
    let bg = opts.background_color.as_deref().and_then(Rgb::parse);
    let (w, h) = (b.width, b.height);
    // The alternative text is the encoded content: the accessible profiles
    // (PDF/UA, PDF/A-*a) require one for every image, and a reader that
    // cannot scan the symbol can read what it says.
    let alt = string(&b.content.replace(char::is_control, " "));
    let native = ctx
        .native_dpi
        .is_some_and(|dpi| crate::native_barcode::is_native(ctx.doc, barcode, at, dpi));
    let mut parts = match ctx.doc.settings.print_dpi {
        // The printer draws the symbol: an empty box in its place.
        _ if native => "none".into(),
        Some(dpi) if dpi > 0.0 => on_dot_grid(ctx, barcode, at, dpi, &fg, bg, &alt),
        _ => {
            let image = whole_box(ctx, barcode, &fg, bg, &alt);
            // An image of exactly the element's box needs no box around
            // it (Typst parses and evaluates the whole source each render).
            if barcode.text.is_none() {
                return image;
            }
            format!("place({image})")
        }
    };
    if let Some((style, text)) = &barcode.text {
        let mut body = ctx.text_body(text, style);
        // A link in `hrt.style` covers the text's box (validation refuses
        // it together with the element's own link, which covers it all).
        let mut pad = 0.0;
        if let Some(link) = &barcode.text_link {
            pad = link.padding;
            body = ctx.link_body(link, body);
        }
        let _ = write!(
            parts,
            "; place(dx: {}, dy: {}, {body})",
            mm(0.0 - pad),
            mm(barcode.symbol.text_top - pad),
        );
    }
    format!("box(width: {}, height: {}, {{ {parts} }})", mm(w), mm(h))
}

/// The symbol as one SVG image the size of the whole box, the symbol at its
/// fitted place in it (and the background, if any, filling it): an `image`
/// call of the element's width and height.
fn whole_box(ctx: &mut Ctx, barcode: &Barcode, fg: &str, bg: Option<Rgb>, alt: &str) -> String {
    let b = &barcode.spec;
    let fitted = &barcode.symbol;
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
    // The geometry in module units, scaled by one transform.
    let _ = write!(
        svg,
        "<g transform=\"translate({} {}) scale({})\"><path fill=\"{fg}\" d=\"{}\"/>{}</g></svg>",
        num(fitted.x),
        num(fitted.y),
        num(fitted.module),
        fitted.vector.path_data((0.0, 0.0)),
        fitted.vector.rings((0.0, 0.0), fg)
    );
    let index = push_image(ctx, svg);
    format!(
        "image(\"/img/{index}\", format: \"svg\", width: {}, height: {}, fit: \"stretch\", alt: {alt})",
        mm(w),
        mm(h)
    )
}

/// The symbol for a printer of `dpi`: its edges moved onto the dot grid
/// (by less than a dot, inside the box; its modules are whole dots
/// already), and its image exactly the symbol, so that a sheet rasterised
/// at `dpi` (PNG, ZPL) has every bar, space and module a whole number of
/// dots wherever the element is placed.
///
/// typst-render draws an SVG image into a texture of its size in pixels
/// rounded up, then paints that texture scaled to the image's size: an
/// image a fraction of a pixel larger than whole dots gets one more texture
/// pixel and every bar drifts across the symbol. So the image is a
/// thousandth of a dot short of whole dots across (and its intrinsic height
/// a hundred-thousandth short, which sizes the texture's height down): its
/// texture is exactly one pixel per dot, painted back one to one.
fn on_dot_grid(
    ctx: &mut Ctx,
    barcode: &Barcode,
    at: (f64, f64),
    dpi: f64,
    fg: &str,
    bg: Option<Rgb>,
    alt: &str,
) -> String {
    let b = &barcode.spec;
    let fitted = &barcode.symbol;
    let dot = 25.4 / dpi;
    let turns = (b.rotation.unwrap_or(0.0) / 90.0).round().rem_euclid(4.0) as u8;
    let (x, y) = fitted.on_dot_grid((b.width, b.height), at, turns, dot);
    let (sw, sh) = (
        fitted.vector.width * fitted.module,
        fitted.vector.height * fitted.module,
    );
    let intrinsic_h = sh * (1.0 - 1e-5);
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}mm\" height=\"{}mm\" preserveAspectRatio=\"none\"><g transform=\"scale({})\"><path fill=\"{fg}\" d=\"{}\"/>{}</g></svg>",
        num_exact(sw),
        num_exact(intrinsic_h),
        num_exact(sw),
        num_exact(intrinsic_h),
        num_exact(fitted.module),
        fitted.vector.path_data((0.0, 0.0)),
        fitted.vector.rings((0.0, 0.0), fg)
    );
    let index = push_image(ctx, svg);
    // typst-render sizes the texture from the larger of the image's width
    // and its height times the intrinsic aspect: the height is shaved twice
    // as much, so the width decides.
    let shave = dot * 1e-3;
    let view_h = intrinsic_h * (sw - 2.0 * shave) / sw;
    let fill = bg.map_or(String::new(), |c| {
        format!(
            "place(rect(width: 100%, height: 100%, stroke: none, fill: rgb(\"{}\"))); ",
            c.hex()
        )
    });
    format!(
        "{fill}place(dx: {}, dy: {}, image(\"/img/{index}\", format: \"svg\", width: {}, height: {}, fit: \"stretch\", alt: {alt}))",
        mm_exact(x),
        mm_exact(y),
        mm_exact(sw - shave),
        mm_exact(view_h)
    )
}

fn push_image(ctx: &mut Ctx, svg: String) -> usize {
    let index = ctx.images.len();
    ctx.images.push(Arc::new(svg.into_bytes()));
    index
}

/// A length in mm to the precision the dot grid needs: [`num`] keeps four
/// decimals (0.1 um), which is a tenth of a dot at 300 dpi over a 100 mm
/// label's positions; nine keep every edge within a millionth of a dot.
fn num_exact(v: f64) -> String {
    let text = format!("{v:.9}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

fn mm_exact(v: f64) -> String {
    format!("{}mm", num_exact(v))
}
