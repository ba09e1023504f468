//! Whether an SVG draws anything transparent as the PDF exporter writes it.
//! PDF/A-1 forbids transparency, and its exporter refuses such an image at
//! export time, after the compile: validation asks first, so that the
//! request is refused as API-002 naming the image, never a 500.
//!
//! The rules follow krilla-svg 0.8, the converter Typst uses: group opacity,
//! blend modes, isolation, masks, filters (drawn as rasters with alpha),
//! clip paths it can only draw as masks, fill, stroke and gradient-stop
//! opacity, what patterns draw, embedded rasters with an alpha channel and
//! embedded SVGs.

use std::io::Cursor;

use image::{ImageDecoder, ImageReader};
use usvg::{BlendMode, FillRule, Group, ImageKind, Node, Opacity, Paint};

/// Whether `tree` would put transparency into the PDF.
pub fn has_transparency(tree: &usvg::Tree) -> bool {
    group(tree.root())
}

fn group(g: &Group) -> bool {
    g.opacity() != Opacity::ONE
        || g.blend_mode() != BlendMode::Normal
        || g.isolate()
        || g.mask().is_some()
        || !g.filters().is_empty()
        || g.clip_path().is_some_and(|c| !clip_is_native(c))
        || g.children().iter().any(node)
}

fn node(n: &Node) -> bool {
    match n {
        Node::Group(g) => group(g),
        Node::Path(p) => {
            p.fill()
                .is_some_and(|f| f.opacity() != Opacity::ONE || paint(f.paint()))
                || p.stroke()
                    .is_some_and(|s| s.opacity() != Opacity::ONE || paint(s.paint()))
        }
        Node::Image(i) => i.is_visible() && image(i.kind()),
        Node::Text(t) => group(t.flattened()),
    }
}

fn paint(p: &Paint) -> bool {
    match p {
        Paint::Color(_) => false,
        Paint::LinearGradient(g) => g.stops().iter().any(|s| s.opacity() != Opacity::ONE),
        Paint::RadialGradient(g) => g.stops().iter().any(|s| s.opacity() != Opacity::ONE),
        Paint::Pattern(p) => group(p.root()),
    }
}

/// An embedded image: a raster whose decoder yields an alpha channel (the
/// exporter then writes a soft mask), or an SVG that draws transparency.
/// An unreadable header counts as transparent (validation has decoded
/// every embedded raster already, so this does not happen).
fn image(kind: &ImageKind) -> bool {
    let bytes = match kind {
        ImageKind::JPEG(_) => return false,
        ImageKind::SVG(tree) => return has_transparency(tree),
        ImageKind::PNG(b) | ImageKind::GIF(b) | ImageKind::WEBP(b) => b,
    };
    ImageReader::new(Cursor::new(bytes.as_slice()))
        .with_guessed_format()
        .ok()
        .and_then(|reader| reader.into_decoder().ok())
        .is_none_or(|decoder| decoder.color_type().has_alpha())
}

/// Whether krilla-svg draws this clip path with PDF clipping operators (as
/// opposed to a soft mask): no clip path on a descendant group, and either
/// only non-zero fill rules or a single even-odd shape.
fn clip_is_native(clip: &usvg::ClipPath) -> bool {
    let mut rules = Vec::new();
    clip_rules(clip.root(), &mut rules);
    let rules_fit = rules.iter().all(|r| *r == FillRule::NonZero)
        || (rules.len() == 1 && rules[0] == FillRule::EvenOdd);
    simple_clip(clip.root()) && rules_fit && clip.clip_path().is_none_or(clip_is_native)
}

fn simple_clip(g: &Group) -> bool {
    g.children().iter().all(|n| match n {
        Node::Group(g) => g.clip_path().is_none() && simple_clip(g),
        _ => true,
    })
}

fn clip_rules(g: &Group, rules: &mut Vec<FillRule>) {
    for n in g.children() {
        match n {
            Node::Path(p) => rules.extend(p.fill().map(|f| f.rule())),
            Node::Text(t) => clip_rules(t.flattened(), rules),
            Node::Group(g) => clip_rules(g, rules),
            Node::Image(_) => {}
        }
    }
}
