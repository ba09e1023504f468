//! Images an SVG embeds as `data:` URIs (`<image>`, `<feImage>`), read as
//! usvg reads them (the `data-url` crate; the type from the MIME type, or
//! sniffed for `text/plain`) and checked like top-level images: rasters are
//! decoded, SVGs go through the whole SVG check again, one level deeper.
//! Their pixels and bytes come out of the top-level SVG's [`Budget`].

use crate::config::Limits;
use crate::validate::image::{raster, ImageError, ImageKind};

use super::{graph, Budget, Shape};

/// Checks one embedded image and returns what it adds to the element
/// showing it; `depth` is the nesting left for it.
pub fn check(
    href: &str,
    limits: &Limits,
    budget: &mut Budget,
    depth: u64,
) -> Result<Shape, ImageError> {
    let url = data_url::DataUrl::process(href.trim()).map_err(|_| ImageError::SvgBadDataUri)?;
    let (data, _) = url.decode_to_vec().map_err(|_| ImageError::SvgBadDataUri)?;
    let mime = url.mime_type();
    let mime = format!("{}/{}", mime.type_, mime.subtype);
    take_bytes(budget, data.len(), limits)?;
    let found = ImageKind::sniff(&data);
    let kind = match mime.as_str() {
        "image/jpg" | "image/jpeg" => ImageKind::Jpg,
        "image/png" => ImageKind::Png,
        "image/gif" => ImageKind::Gif,
        "image/webp" => ImageKind::Webp,
        "image/svg+xml" => ImageKind::Svg,
        // usvg sniffs the rasters and takes anything else for an SVG.
        "text/plain" => found
            .filter(|&k| k != ImageKind::Svg)
            .unwrap_or(ImageKind::Svg),
        _ => return Err(ImageError::SvgEmbedsUnsupported { mime }),
    };
    if kind == ImageKind::Svg {
        return nested_svg(&data, limits, budget, depth);
    }
    if found != Some(kind) {
        return Err(ImageError::SvgEmbedsMislabelled { mime, found });
    }
    let inspected = raster::check(kind, &data, budget.pixels_left).map_err(|e| match e {
        ImageError::TooManyPixels { .. } => ImageError::SvgEmbedsTooManyPixels {
            limit: limits.image_pixels,
        },
        e => e,
    })?;
    // check() refused anything beyond what is left, so this cannot underflow.
    budget.pixels_left -= (inspected.width * inspected.height) as u64;
    budget.decoded_bytes = budget.decoded_bytes.saturating_add(inspected.decoded_bytes);
    // A raster adds no elements and no nesting to the element showing it.
    Ok(Shape::NONE)
}

fn take_bytes(budget: &mut Budget, bytes: usize, limits: &Limits) -> Result<(), ImageError> {
    budget.bytes_left =
        budget
            .bytes_left
            .checked_sub(bytes)
            .ok_or(ImageError::SvgEmbedsTooManyBytes {
                limit: limits.image_bytes,
            })?;
    Ok(())
}

/// An SVG inside an SVG: the same steps, with the nesting that is left.
fn nested_svg(
    data: &[u8],
    limits: &Limits,
    budget: &mut Budget,
    depth: u64,
) -> Result<Shape, ImageError> {
    let text = super::svg_text(data)?;
    let doc = super::parse(text, limits, depth)?;
    graph::measure(&doc, limits, budget, depth)
}
