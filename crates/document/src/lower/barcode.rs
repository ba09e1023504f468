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
pub(crate) fn draw(ctx: &mut Ctx, barcode: &Barcode) -> String {
    let b = &barcode.spec;
    let fitted = &barcode.symbol;
    let opts = b.options.clone().unwrap_or_default();
    let fg = opts
        .color
        .as_deref()
        .and_then(Rgb::parse)
        .unwrap_or(Rgb::BLACK)
        .hex();
    let bg = opts.background_color.as_deref().and_then(Rgb::parse);
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
        fitted.vector.rings((0.0, 0.0), &fg)
    );
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
    if let Some((style, text)) = &barcode.text {
        let mut body = ctx.text_body(text, style);
        // A link in `hrt.style` covers the text's box (validation refuses
        // it together with the element's own link, which covers it all).
        let mut pad = 0.0;
        if let Some(link) = b.hrt.as_ref().and_then(|h| h.style.as_ref()?.link.as_ref()) {
            pad = link.padding.unwrap_or(0.0);
            body = ctx.link_body(link, body);
        }
        let _ = write!(
            parts,
            "; place(dx: {}, dy: {}, {body})",
            mm(0.0 - pad),
            mm(fitted.text_top - pad),
        );
    }
    format!("box(width: {}, height: {}, {{ {parts} }})", mm(w), mm(h))
}
