//! Image data: data URIs, Base64, or files under the resource folder
//! ([`source`]), each parsed once here with the renderer's own parsers, so
//! that a bad image is API-002 naming it, never a failed compile (API-501),
//! a panic, or a crash of the render thread:
//! - rasters ([`raster`]): sized from the header against `image_pixels`,
//!   GIF frames checked against the screen, then decoded as Typst decodes;
//! - SVGs ([`svg`]): depth, elements, entities and references bounded
//!   before usvg converts them, embedded images checked in turn.
//!
//! Each verdict is kept by the bytes' hash ([`verdicts`]): the same image
//! is checked once per process, however many elements or requests show it.
//!
//! Nothing is ever read from the network or outside the resource folder.

mod error;
mod gif;
mod raster;
mod source;
mod svg;
mod verdicts;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use typst::visualize::{ImageFormat, RasterFormat, VectorFormat};

use super::Validator;
use crate::config::{Limits, IMAGE_FORMATS};
use crate::model::ImageElement;

pub use self::error::ImageError;
pub use self::source::ResourceDir;

/// The image formats the renderer embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Png,
    Jpg,
    Gif,
    Webp,
    Svg,
}

impl ImageKind {
    /// Sniffs the type from the bytes.
    pub fn sniff(bytes: &[u8]) -> Option<ImageKind> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageKind::Png)
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            Some(ImageKind::Jpg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageKind::Gif)
        } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(ImageKind::Webp)
        } else {
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]);
            let head = head.trim_start_matches('\u{feff}').trim_start();
            (head.starts_with("<svg") || head.starts_with("<?xml") && head.contains("<svg"))
                .then_some(ImageKind::Svg)
        }
    }

    /// Whether a request's `format` names this kind.
    fn matches(self, format: &str) -> bool {
        let f = format.to_ascii_lowercase();
        match self {
            ImageKind::Png => f == "png",
            ImageKind::Jpg => f == "jpg" || f == "jpeg",
            ImageKind::Gif => f == "gif",
            ImageKind::Webp => f == "webp",
            ImageKind::Svg => f == "svg",
        }
    }

    /// The format's name in messages.
    fn name(self) -> &'static str {
        match self {
            ImageKind::Png => "PNG",
            ImageKind::Jpg => "JPEG",
            ImageKind::Gif => "GIF",
            ImageKind::Webp => "WebP",
            ImageKind::Svg => "SVG",
        }
    }
}

/// Decoded, checked image bytes, ready for the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedImage {
    pub kind: ImageKind,
    pub bytes: Arc<Vec<u8>>,
    /// Intrinsic size in pixels (raster) or user units (SVG, as usvg reads it).
    pub width: f64,
    pub height: f64,
    /// Bytes of the pixel buffers the renderer will decode this image into
    /// (for an SVG, those of the rasters it embeds). Validation has decoded
    /// them once; the compile decodes again (see [`raster`]).
    pub decoded_bytes: u64,
    /// Whether the PDF exporter would write transparency for it (an alpha
    /// channel; in an SVG also opacity, masks, filters, blend modes).
    pub transparent: bool,
}

/// What checking an image found out.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Inspected {
    width: f64,
    height: f64,
    decoded_bytes: u64,
    transparent: bool,
}

/// Checks one image's bytes (the `data` field already decoded) as the
/// renderer would read them: the validation of every image element, and
/// the entry point of the `image` fuzz target.
pub fn check_image(bytes: Vec<u8>, limits: &Limits) -> Result<LoadedImage, ImageError> {
    let kind = ImageKind::sniff(&bytes).ok_or(ImageError::UnknownFormat)?;
    inspect(kind, bytes, limits)
}

fn inspect(kind: ImageKind, bytes: Vec<u8>, limits: &Limits) -> Result<LoadedImage, ImageError> {
    renderer_agrees(kind, &bytes)?;
    let inspected = verdicts::verdict(verdicts::Key::new(&bytes, limits), || {
        // The parsers are other crates' code run on hostile bytes: a panic
        // in one refuses the image rather than failing the request (a 500).
        catch_unwind(AssertUnwindSafe(|| match kind {
            ImageKind::Svg => svg::check(&bytes, limits),
            _ => raster::check(kind, &bytes, limits.image_pixels),
        }))
        .unwrap_or(Err(ImageError::ParserFailed))
    })?;
    Ok(LoadedImage {
        kind,
        bytes: Arc::new(bytes),
        width: inspected.width,
        height: inspected.height,
        decoded_bytes: inspected.decoded_bytes,
        transparent: inspected.transparent,
    })
}

/// Typst picks the decoder from the bytes on its own (the lowering names
/// no format): it must pick the one validation checked with. It knows an
/// SVG only by its namespace in the first 2048 bytes.
fn renderer_agrees(kind: ImageKind, bytes: &[u8]) -> Result<(), ImageError> {
    use typst::visualize::ExchangeFormat as X;
    let agrees = match ImageFormat::detect(bytes) {
        Some(ImageFormat::Raster(RasterFormat::Exchange(format))) => matches!(
            (kind, format),
            (ImageKind::Png, X::Png)
                | (ImageKind::Jpg, X::Jpg)
                | (ImageKind::Gif, X::Gif)
                | (ImageKind::Webp, X::Webp)
        ),
        Some(ImageFormat::Vector(VectorFormat::Svg)) => kind == ImageKind::Svg,
        None if kind == ImageKind::Svg => return Err(ImageError::SvgNamespaceTooLate),
        _ => false,
    };
    if agrees {
        return Ok(());
    }
    Err(ImageError::Unrecognised {
        kind,
        renderer: match ImageFormat::detect(bytes) {
            Some(format) => format!("{format:?}"),
            None => "no image".into(),
        },
    })
}

impl Validator<'_> {
    /// Reads, sniffs and decodes an image element's data; `None` when a
    /// violation was recorded.
    pub(crate) fn image_data(&mut self, path: &str, image: &ImageElement) -> Option<LoadedImage> {
        let limits = &self.env.config.limits;
        let bytes = match source::data_bytes(&image.data, limits.image_bytes, self.env.resources) {
            Ok(b) => b,
            Err(message) => {
                self.push(format!("{path}.data"), message);
                return None;
            }
        };
        let Some(kind) = ImageKind::sniff(&bytes) else {
            self.push(
                format!("{path}.data"),
                ImageError::UnknownFormat.to_string(),
            );
            return None;
        };
        if let Some(format) = &image.format {
            if !IMAGE_FORMATS.contains(&format.to_ascii_lowercase().as_str()) {
                self.push(
                    format!("{path}.format"),
                    "must be png, jpg, jpeg, gif, webp or svg",
                );
                return None;
            }
            if !kind.matches(format) {
                self.push(
                    format!("{path}.format"),
                    format!("says `{format}` but the data is {kind:?}"),
                );
                return None;
            }
        }
        match inspect(kind, bytes, limits) {
            Ok(loaded) => {
                self.count_decoded(path, &loaded);
                if loaded.transparent && self.profile.is_some_and(|p| p.forbids_transparency()) {
                    self.push(
                        format!("{path}.data"),
                        "PDF/A-1 does not allow transparency, and this image has some \
                         (an alpha channel, or in an SVG opacity, a mask, a filter or a blend mode): \
                         flatten it onto an opaque background, or choose pdfa-2b or later",
                    );
                }
                Some(loaded)
            }
            Err(e) => {
                self.push(format!("{path}.data"), e.to_string());
                None
            }
        }
    }

    /// Each image is bounded on its own, but a document may hold many: the
    /// pixels all its distinct images decode into (the renderer decodes each
    /// once, whatever the number of elements showing it) must stay within
    /// `limits.images_decoded_bytes`.
    fn count_decoded(&mut self, path: &str, loaded: &LoadedImage) {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        loaded.bytes.hash(&mut hasher);
        if !self.images_seen.insert(hasher.finish()) {
            return;
        }
        self.images_decoded = self.images_decoded.saturating_add(loaded.decoded_bytes);
        let limit = self.env.config.limits.images_decoded_bytes;
        if self.images_decoded > limit {
            self.push(
                format!("{path}.data"),
                format!(
                    "the document's images together decode to more than {} MiB of pixels",
                    limit >> 20
                ),
            );
        }
    }
}

/// Images built byte by byte, and the fixtures, for the tests here and the
/// engine's tests of image elements.
#[cfg(test)]
pub(crate) mod test_images {
    pub(crate) use super::gif::tests::{at, gif};
    pub(crate) use super::raster::tests::{encoded, png_chunk, png_header};

    /// A file of tests/fixtures.
    pub(crate) fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/../../tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }
}

#[cfg(test)]
mod tests;
