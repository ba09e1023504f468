//! SVG images, checked in the order that keeps every step bounded:
//!
//! 1. [`prescan`]: a flat pass over the text (no parser, no recursion) bounds
//!    nesting depth and element count and refuses XML entities that expand
//!    beyond `image_bytes` (billion laughs, quadratic blow-up).
//! 2. roxmltree, the XML parser usvg uses (iterative), with a node limit.
//! 3. [`graph`]: on that tree, every reference is resolved and checked: no
//!    `href` or `url()` may leave the document; `data:` images are checked
//!    in turn ([`embedded`]; rasters decoded, SVGs from step 1 again). Depth
//!    and element count are measured as usvg will expand them (`use` copies,
//!    clip paths, masks, patterns, markers, filters, embedded SVGs), and
//!    the cost of applying `<style>` rules.
//! 4. usvg converts the same tree, with Typst's options: what it refuses,
//!    the compile would have. Its recursion is now bounded by step 3.
//! 5. [`transparency`]: whether the converted tree draws anything
//!    transparent (PDF/A-1 refuses it).
//!
//! usvg, and the renderer after it (krilla), recurse once per nesting level
//! on the render thread's stack: depth 700 overflowed it (issue 14 item 1).

mod embedded;
mod graph;
mod prescan;
mod refs;
mod styles;
mod transparency;

use crate::config::Limits;

use super::{ImageError, Inspected};

/// Checks one SVG image; its intrinsic size is usvg's (Typst's) reading.
pub fn check(bytes: &[u8], limits: &Limits) -> Result<Inspected, ImageError> {
    let mut budget = Budget::new(limits);
    let text = svg_text(bytes)?;
    let doc = parse(text, limits, limits.svg_depth)?;
    graph::measure(&doc, limits, &mut budget, limits.svg_depth)?;
    let tree = usvg::Tree::from_xmltree(&doc, &typst_options()).map_err(usvg_error)?;
    Ok(Inspected {
        width: f64::from(tree.size().width()),
        height: f64::from(tree.size().height()),
        decoded_bytes: budget.decoded_bytes,
        transparent: transparency::has_transparency(&tree),
    })
}

/// What one SVG, embedded ones included, expands to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Nesting levels, counting what references and embedded SVGs add.
    pub depth: u64,
    /// Elements after `use` copies, per-use clip paths, masks, patterns and
    /// markers, and embedded SVGs.
    pub elements: u64,
    /// Characters of `<text>` content, counted the same way.
    pub text_chars: u64,
    /// Filter primitives applied, counted the same way.
    pub filter_primitives: u64,
}

impl Shape {
    /// What a raster adds: no elements, no nesting, no text.
    pub const NONE: Shape = Shape {
        depth: 0,
        elements: 0,
        text_chars: 0,
        filter_primitives: 0,
    };
}

/// What the rasters embedded in one top-level SVG may use together: one
/// image element's worth (`image_pixels`, `image_bytes`), however it is cut.
#[derive(Debug)]
pub struct Budget {
    pixels_left: u64,
    bytes_left: usize,
    /// Pixel buffers the renderer will allocate for the embedded rasters.
    decoded_bytes: u64,
}

impl Budget {
    pub fn new(limits: &Limits) -> Self {
        Self {
            pixels_left: limits.image_pixels,
            bytes_left: limits.image_bytes,
            decoded_bytes: 0,
        }
    }
}

/// The SVG as text. A gzip-compressed SVG (SVGZ) is refused: usvg would
/// inflate it without bound. (A top-level one is never sniffed as SVG.)
fn svg_text(bytes: &[u8]) -> Result<&str, ImageError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Err(ImageError::SvgCompressed);
    }
    std::str::from_utf8(bytes).map_err(|_| ImageError::SvgNotUtf8)
}

/// Roxmltree nodes allowed per element limit: elements, the text between
/// them, comments. Only a backstop on memory; elements are counted exactly
/// on the tree.
const NODES_PER_ELEMENT: u64 = 4;

/// Steps 1 and 2: the flat pre-scan, then the parse usvg does (DTDs
/// allowed, as in `usvg::Tree::from_str`).
fn parse<'input>(
    text: &'input str,
    limits: &Limits,
    depth: u64,
) -> Result<roxmltree::Document<'input>, ImageError> {
    // The pre-scan knows the nesting left here; the message names the limit.
    prescan::scan(text, depth, limits.svg_elements, limits.image_bytes).map_err(|e| match e {
        ImageError::SvgTooDeep { .. } => ImageError::SvgTooDeep {
            limit: limits.svg_depth,
        },
        e => e,
    })?;
    let nodes = limits
        .svg_elements
        .saturating_mul(NODES_PER_ELEMENT)
        .saturating_add(64)
        .min(u64::from(u32::MAX));
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: nodes as u32,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, options).map_err(|e| match e {
        roxmltree::Error::NodesLimitReached => ImageError::SvgTooManyElements {
            limit: limits.svg_elements,
        },
        roxmltree::Error::EntityReferenceLoop(_) => ImageError::SvgEntityLoop,
        e => ImageError::SvgMalformed(e.to_string()),
    })
}

/// The options Typst converts an SVG with (`typst_library::visualize::
/// image::svg::base_options`): no resource folder, `data:` images only.
/// Fonts are not needed to check the structure; without any, usvg drops text.
fn typst_options() -> usvg::Options<'static> {
    usvg::Options {
        font_family: String::new(),
        resources_dir: None,
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: usvg::ImageHrefResolver::default_data_resolver(),
            resolve_string: Box::new(|_, _| None),
        },
        ..Default::default()
    }
}

/// usvg's refusal, in the words Typst's `format_usvg_error` uses.
fn usvg_error(error: usvg::Error) -> ImageError {
    ImageError::SvgUnreadable(match error {
        usvg::Error::NotAnUtf8Str => "file is not valid UTF-8".into(),
        usvg::Error::MalformedGZip => "file is not compressed correctly".into(),
        usvg::Error::ElementsLimitReached => "file is too large".into(),
        usvg::Error::InvalidSize => "width, height, or viewbox is invalid".into(),
        usvg::Error::ParsingFailed(e) => e.to_string(),
    })
}

#[cfg(test)]
mod tests;
