//! Why an image is refused. Each is the client's data, so each is API-002
//! on the image element's `data` (or `format`) path.

use super::gif::FrameBox;
use super::ImageKind;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    #[error("the data is not a PNG, JPEG, GIF, WebP or SVG image")]
    UnknownFormat,
    #[error(
        "the SVG must declare its namespace (xmlns=\"http://www.w3.org/2000/svg\") \
         within its first 2048 bytes, or the renderer does not take it for an SVG"
    )]
    SvgNamespaceTooLate,
    #[error("the renderer reads this data as {renderer}, not {kind:?}")]
    Unrecognised { kind: ImageKind, renderer: String },
    #[error("the image header cannot be read")]
    Header,
    #[error("the image has no pixels (a width or height of 0)")]
    NoPixels,
    #[error("the image has {pixels} pixels; at most {limit} are allowed")]
    TooManyPixels { pixels: u64, limit: u64 },
    #[error(
        "frame {frame} of the GIF ({}x{} at {},{}) does not fit its {screen_width}x{screen_height} screen",
        found.width, found.height, found.left, found.top
    )]
    GifFrameOutsideScreen {
        frame: usize,
        found: FrameBox,
        screen_width: u16,
        screen_height: u16,
    },
    #[error("the {format} data is corrupt: {reason}")]
    Corrupt {
        format: &'static str,
        reason: String,
    },
    #[error("the image could not be read (its parser failed)")]
    ParserFailed,

    #[error("an SVG must be UTF-8 text")]
    SvgNotUtf8,
    #[error("a compressed SVG (SVGZ) cannot be embedded; embed the SVG text")]
    SvgCompressed,
    #[error("the SVG is not well-formed XML: {0}")]
    SvgMalformed(String),
    #[error(
        "the SVG nests deeper than {limit} levels (elements, with what `use`, clip paths, \
         masks, patterns, markers, filters and embedded SVGs add)"
    )]
    SvgTooDeep { limit: u64 },
    #[error(
        "the SVG has more than {limit} elements (counting `use` copies, clip paths, masks, \
         patterns and markers per use, and embedded SVGs)"
    )]
    SvgTooManyElements { limit: u64 },
    #[error("a <text> element of the SVG has more than {limit} characters")]
    SvgTextElementTooLong { limit: u64 },
    #[error(
        "the SVG's text has more than {limit} characters (counting `use` copies and embedded SVGs)"
    )]
    SvgTooMuchText { limit: u64 },
    #[error(
        "the SVG applies more than {limit} filter primitives (each filter's, once per element \
         it applies to)"
    )]
    SvgTooManyFilters { limit: u64 },
    #[error("the SVG's XML entities expand to more than {limit} bytes")]
    SvgEntities { limit: usize },
    #[error("the SVG's XML entities refer to themselves or nest more than 10 deep")]
    SvgEntityLoop,
    #[error("the SVG's references form a loop")]
    SvgReferenceCycle,
    #[error("the SVG's <style> rules cost too much to apply to its elements")]
    SvgStyleTooCostly,
    #[error(
        "the SVG refers to `{href}`, outside itself; an image may only refer to \
         `#fragment`s and `data:` URIs"
    )]
    SvgExternal { href: String },
    #[error("an <image> in an SVG must embed its picture as a `data:` URI")]
    SvgImageNotEmbedded,
    #[error("`#{id}` names no element of the SVG")]
    SvgMissingReference { id: String },
    #[error("a `data:` URI in the SVG cannot be decoded")]
    SvgBadDataUri,
    #[error("the SVG embeds `{mime}` data; only PNG, JPEG, GIF, WebP and SVG can be embedded")]
    SvgEmbedsUnsupported { mime: String },
    #[error("the SVG embeds data labelled `{mime}` that is {}", found.map_or("no image".to_string(), |k| format!("{k:?}")))]
    SvgEmbedsMislabelled {
        mime: String,
        found: Option<ImageKind>,
    },
    #[error("the SVG's embedded images have more than {limit} pixels in all")]
    SvgEmbedsTooManyPixels { limit: u64 },
    #[error("the SVG's embedded images have more than {limit} bytes in all")]
    SvgEmbedsTooManyBytes { limit: usize },
    #[error("the SVG cannot be rendered: {0}")]
    SvgUnreadable(String),

    /// An error about one element of an SVG (or of an SVG inside it).
    #[error("{at}: {source}")]
    At { at: String, source: Box<ImageError> },
}

impl ImageError {
    /// The innermost error, below every [`ImageError::At`].
    pub fn cause(&self) -> &ImageError {
        match self {
            ImageError::At { source, .. } => source.cause(),
            e => e,
        }
    }
}
