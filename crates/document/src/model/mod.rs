//! The DocumentRequest as serde types.
//!
//! Every struct denies unknown fields: that is how older payload shapes are
//! refused. Elements are kept as raw JSON in the page and parsed one by one in
//! [`crate::validate`], so one broken element does not hide the errors of the
//! others and each error carries its full path.
//!
//! Their JSON Schema is built beside them ([`schema`]): the element unions
//! the types name in `#[schemars(schema_with)]` are assembled there.

pub mod schema;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// A DocumentRequest: the body of `POST /api/v1/label` and the input of `labelpress render` and `labelpress check`. Lengths are in mm, font sizes in pt, colours `#RRGGBB` or `#RGB`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "DocumentRequest")]
pub struct RawRequest {
    /// Document-wide settings: defaults, metadata, output, profile.
    #[serde(default)]
    pub settings: Option<Settings>,
    /// The pages, in order; each may flow onto continuation sheets.
    pub pages: Vec<RawPage>,
    /// Drawn at the top of every sheet.
    #[serde(default)]
    pub header: Option<RawSection>,
    /// Drawn at the bottom of every sheet.
    #[serde(default)]
    pub footer: Option<RawSection>,
}

/// A template body: a DocumentRequest with `{{placeholders}}` and the data
/// that fills them (`crate::template` fills it; docs/document-request.md,
/// "Templates"). Only its shape is read from this type.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TemplateRequest")]
pub struct TemplateRequest {
    /// A DocumentRequest whose strings may hold `{{placeholders}}`: paths into `data` such as `name`, `order.city` or `items[0].sku` (`\{{` is a literal `{{`). A table may take `rows_from` (the path of an array in `data`) and `row` (one row's cells, filled once per item; a placeholder there is looked up in the item, then in `data`) instead of `rows`. Over HTTP, also the name of a template the token's account stored (`PUT /api/v1/templates/{name}`).
    pub template: TemplateSource,
    /// The values the placeholders name: strings, numbers and booleans are text; null, objects and arrays are refused where a placeholder names them.
    #[serde(default)]
    pub data: serde_json::Map<String, Value>,
}

/// A template given in the request, or the name of a stored one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TemplateSource {
    Document(serde_json::Map<String, Value>),
    Stored(String),
}

/// One page of the request; its elements are placed in mm from its top-left corner. A table or stack taller than the page continues on further sheets.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Page")]
pub struct RawPage {
    /// A named size (`a4`, `a6`, `letter`, `label_100_150`, ...); excludes `width`/`height`.
    pub size: Option<String>,
    /// Page width in mm (with `height`, instead of `size`).
    pub width: Option<f64>,
    /// Page height in mm (with `width`, instead of `size`).
    pub height: Option<f64>,
    /// The content box's margins; `settings.page_margin` when absent.
    pub margin: Option<PageMargin>,
    /// The page's elements, each an object with its `type`.
    #[serde(default)]
    #[schemars(schema_with = "crate::model::schema::page_elements")]
    pub elements: Vec<Value>,
}

/// A header or footer, drawn on every sheet.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Section")]
pub struct RawSection {
    /// Height of the section in mm, at least 0 and less than the smallest page's height. The header does not push the body down (place body elements at `y >= header.height`); flow (tables, stacks) continues on later sheets below the header and stays above the footer. Footer elements are shifted down by `page height - footer.height`.
    pub height: f64,
    /// The section's elements (no tables or stacks), placed in mm from the sheet's top-left corner.
    #[serde(default)]
    #[schemars(schema_with = "crate::model::schema::section_elements")]
    pub elements: Vec<Value>,
}

/// Margins of a page's content box, in mm.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageMargin {
    /// mm.
    #[serde(default)]
    pub top: f64,
    /// mm.
    #[serde(default)]
    pub right: f64,
    /// mm.
    #[serde(default)]
    pub bottom: f64,
    /// mm.
    #[serde(default)]
    pub left: f64,
}

/// Document-wide settings.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Styles elements fall back on before the runtime configuration's defaults.
    pub defaults: Option<Defaults>,
    /// The PDF's document information (and XMP).
    pub metadata: Option<Metadata>,
    /// How the PDF is delivered.
    pub output: Option<OutputSettings>,
    /// A PDF profile to conform to (PDF/A, PDF/UA); unknown names are refused with the list.
    pub profile: Option<String>,
    /// Margins of every page that gives none.
    pub page_margin: Option<PageMargin>,
    /// Extension: emit a tagged (structured) PDF even when the profile does not need it.
    pub tagged: Option<bool>,
    /// Extension: printer resolution; barcode modules snap to whole dots.
    pub print_dpi: Option<f64>,
}

/// Document-wide style defaults (element field, then these, then the runtime configuration).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Text style defaults.
    pub text: Option<TextStyle>,
    /// Stroke defaults of lines and shapes.
    pub stroke: Option<StrokeStyle>,
    /// Fill defaults of shapes, and the lowest layer of a table cell's
    /// fill (under the table's and the cell's own).
    pub fill: Option<FillStyle>,
    /// Shape defaults.
    pub shape: Option<ShapeDefaults>,
}

/// Defaults of shapes.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShapeDefaults {
    /// Corner radius of rectangles in mm.
    pub corner_radius: Option<f64>,
}

/// The PDF's document information.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// Document title.
    pub title: Option<String>,
    /// Author.
    pub author: Option<String>,
    /// Subject.
    pub subject: Option<String>,
    /// Creating application.
    pub creator: Option<String>,
    /// Producer.
    pub producer: Option<String>,
    /// BCP 47 language tag (`en`, `de-CH`, `zh`).
    pub language: Option<String>,
}

/// How the PDF is delivered.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSettings {
    /// `binary` (default): the PDF as the body; `file`: with `Content-Disposition: attachment`.
    pub mode: Option<OutputMode>,
    /// File name of `file` mode (sanitised); a generated one when absent.
    pub file_name: Option<String>,
}

/// `binary` answers the PDF as the body; `file` adds `Content-Disposition: attachment`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutputMode {
    #[default]
    Binary,
    File,
}

// ---------------------------------------------------------------- styles

/// How text is set; every field falls back on the defaults.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextStyle {
    /// Font family; `labelpress fonts` lists them.
    pub font_family: Option<String>,
    /// Size in pt.
    pub font_size: Option<f64>,
    /// `normal`, `bold`, or 100 to 900.
    pub font_weight: Option<FontWeight>,
    /// Text colour, `#RRGGBB` or `#RGB`.
    pub color: Option<String>,
    /// Horizontal alignment within the box.
    pub text_align: Option<TextAlign>,
    /// Vertical alignment within the box.
    pub vertical_align: Option<VerticalAlign>,
    /// Baseline-to-baseline distance as a multiple of the font size.
    pub line_height: Option<f64>,
    /// Width of the text box in mm; text wraps within it.
    pub width: Option<f64>,
    /// Height of the text box in mm.
    pub height: Option<f64>,
    /// What happens to text beyond the box.
    pub text_overflow: Option<TextOverflow>,
    /// Lower the font size (down to `min_font_size`) until the text fits its box.
    pub shrink_to_fit: Option<bool>,
    /// Lowest size in pt `shrink_to_fit` goes down to.
    pub min_font_size: Option<f64>,
    /// Makes the text a link; in a table cell's style the whole cell, in
    /// a barcode's `hrt.style` the human-readable text's box.
    pub link: Option<LinkSpec>,
}

/// `normal`, `bold`, or a number 100..=900.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FontWeight {
    Number(f64),
    Name(String),
}

/// Horizontal alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextAlign {
    Left,
    Center,
    Right,
    Justify,
}

/// Vertical alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum VerticalAlign {
    Top,
    Middle,
    Bottom,
}

/// What happens to text beyond its box: drawn, clipped, or cut with an ellipsis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextOverflow {
    Visible,
    Clip,
    Ellipsis,
}

/// How a line or outline is drawn.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StrokeStyle {
    /// Stroke colour, `#RRGGBB` or `#RGB`.
    pub color: Option<String>,
    /// Stroke width in mm.
    pub width: Option<f64>,
    /// 0 to 1.
    pub opacity: Option<f64>,
    /// Line cap.
    pub cap: Option<LineCap>,
    /// Line join.
    pub join: Option<LineJoin>,
    /// Miter limit of `miter` joins.
    pub miter_limit: Option<f64>,
    /// Dash pattern.
    pub dash: Option<Dash>,
    /// Two parallel lines instead of one.
    pub compound: Option<Compound>,
}

/// Line cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LineCap {
    Butt,
    Round,
    Square,
}

/// Line join.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LineJoin {
    Miter,
    Round,
    Bevel,
}

/// A dash pattern.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dash {
    /// A named dash pattern; `custom` takes `pattern`.
    pub preset: Option<DashPreset>,
    /// Dash and gap lengths in mm, alternating.
    pub pattern: Option<Vec<f64>>,
    /// Offset into the pattern in mm.
    pub phase: Option<f64>,
}

/// A named dash pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DashPreset {
    Solid,
    Dashed,
    Dotted,
    Custom,
}

/// A compound (double) line.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Compound {
    /// Compound kind.
    pub kind: CompoundKind,
    /// Distance between the two lines in mm.
    pub gap: f64,
}

/// Compound kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CompoundKind {
    Double,
}

/// How a shape's interior is filled.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FillStyle {
    /// Fill colour, `#RRGGBB` or `#RGB`.
    pub color: Option<String>,
    /// 0 to 1.
    pub opacity: Option<f64>,
    /// Fill rule of self-intersecting shapes.
    pub rule: Option<FillRule>,
}

/// Fill rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FillRule {
    Nonzero,
    EvenOdd,
}

/// Markers at the ends of a line.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkerStyle {
    /// Marker at the start point.
    pub start: Option<MarkerKind>,
    /// Marker at the end point.
    pub end: Option<MarkerKind>,
    /// Marker size in mm.
    pub size: Option<f64>,
}

/// A line-end marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MarkerKind {
    None,
    Arrow,
    OpenArrow,
    Circle,
    Bar,
}

// ---------------------------------------------------------------- links

/// Makes an element a link.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Where the link goes.
    pub target: LinkTarget,
    /// Alternative text of the link.
    pub alt: Option<String>,
    /// Extra clickable margin around the element in mm.
    pub padding: Option<f64>,
    /// A visible border around the link area.
    pub border: Option<LinkBorder>,
}

/// A link target: a URL or a page of this document.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum LinkTarget {
    /// An external link.
    Url {
        /// The address (`https:`, `http:`, `mailto:`, ...).
        url: String,
    },
    /// A place in this document.
    Page {
        /// The request page, counted from 1.
        page: i64,
        /// mm from the page's left edge.
        #[serde(default)]
        x: f64,
        /// mm from the page's top edge.
        #[serde(default)]
        y: f64,
    },
}

/// A visible border around a link area.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkBorder {
    /// Border colour, `#RRGGBB` or `#RGB`.
    pub color: Option<String>,
    /// Border width in mm.
    pub width: Option<f64>,
}

// ---------------------------------------------------------------- elements

/// `x` measured from an edge other than the left page edge.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct XAnchor {
    /// The edge `x` is measured from.
    pub reference: AnchorReference,
    /// Distance from the reference edge in mm.
    #[serde(default)]
    pub offset: f64,
}

/// The edge an anchored `x` is measured from; the table edges only inside a stack block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnchorReference {
    PageLeft,
    PageRight,
    ContentLeft,
    ContentRight,
    TableLeft,
    TableRight,
}

/// Every element type name, in the spec's order.
pub const ELEMENT_TYPES: &[&str] = &[
    "text", "barcode", "line", "rect", "circle", "ellipse", "polygon", "link", "image", "table",
    "stack",
];

/// A `text` element: text placed at `x`, `y`, wrapped and fitted to its style's box.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextElement {
    /// Left edge in mm from the left page edge (or `x_anchor`).
    pub x: Option<f64>,
    /// Places `x` relative to a page, content or table edge instead of the page's left edge.
    pub x_anchor: Option<XAnchor>,
    /// Top edge in mm from the top page edge.
    pub y: f64,
    /// The text; `\n` breaks lines, `[B]..[/B]` and the other markup set emphasis.
    pub content: String,
    /// Text style.
    pub style: Option<TextStyle>,
    /// Clockwise rotation in degrees about the element's origin.
    pub rotation: Option<f64>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// A `barcode` element: a symbol fitted into a `width` x `height` box.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BarcodeElement {
    /// Left edge in mm from the left page edge (or `x_anchor`).
    pub x: Option<f64>,
    /// Places `x` relative to a page, content or table edge instead of the page's left edge.
    pub x_anchor: Option<XAnchor>,
    /// Top edge in mm from the top page edge.
    pub y: f64,
    /// Symbology: code128, ean13, ean8, upca, upce, code39, code93, codabar, itf, msi, gs1_128, itf14, qr, gs1_qr, datamatrix, gs1_datamatrix, pdf417, aztec, maxicode.
    pub format: String,
    /// The data to encode.
    pub content: String,
    /// Width of the box the symbol is fitted into, in mm.
    pub width: f64,
    /// Height of the box the symbol is fitted into, in mm.
    pub height: f64,
    /// Rendering and symbology options.
    // `default` (as serde does for a missing Option anyway) tells schemars
    // the field is optional despite `schema_with`.
    #[serde(default)]
    #[schemars(schema_with = "crate::model::schema::barcode_options")]
    pub options: Option<BarcodeOptions>,
    /// Human-readable text under a linear symbol.
    pub hrt: Option<Hrt>,
    /// Clockwise rotation in degrees about the element's origin.
    pub rotation: Option<f64>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// Rendering options of a barcode element, and the symbology's own.
// Unknown keys land in `symbology` and are refused by the barcode check
// (serde cannot combine `flatten` with `deny_unknown_fields`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct BarcodeOptions {
    /// Light margin on every side inside the box, in mm.
    pub quiet_zone: Option<f64>,
    /// Width of the narrowest bar (module) in mm.
    pub bar_width: Option<f64>,
    /// Bar colour, `#RRGGBB` or `#RGB`.
    pub color: Option<String>,
    /// Background colour, `#RRGGBB` or `#RGB`.
    pub background_color: Option<String>,
    /// Symbology-specific options of the barcode service (`ecl`, `version`, ...),
    /// checked by the barcode engine.
    #[serde(flatten)]
    pub symbology: serde_json::Map<String, Value>,
}

/// Human-readable text of a linear barcode.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hrt {
    /// Show the text.
    pub enabled: Option<bool>,
    /// Text to show instead of the encoded data.
    pub content: Option<String>,
    /// Style of the text.
    pub style: Option<TextStyle>,
}

/// A `line` element: a straight line.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LineElement {
    /// Start point, mm from the left page edge.
    pub x1: f64,
    /// Start point, mm from the top page edge.
    pub y1: f64,
    /// End point, mm from the left page edge.
    pub x2: f64,
    /// End point, mm from the top page edge.
    pub y2: f64,
    /// Outline; the defaults when absent.
    pub stroke: Option<StrokeStyle>,
    /// Arrowheads and other end markers.
    pub marker: Option<MarkerStyle>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// A `rect` element: a rectangle.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RectElement {
    /// Left edge in mm from the left page edge (or `x_anchor`).
    pub x: Option<f64>,
    /// Places `x` relative to a page, content or table edge instead of the page's left edge.
    pub x_anchor: Option<XAnchor>,
    /// Top edge in mm from the top page edge.
    pub y: f64,
    /// Width in mm.
    pub width: f64,
    /// Height in mm.
    pub height: f64,
    /// Interior; none when absent.
    pub fill: Option<FillStyle>,
    /// Outline; the defaults when absent.
    pub stroke: Option<StrokeStyle>,
    /// Corner radius in mm.
    pub corner_radius: Option<f64>,
    /// Clockwise rotation in degrees about the element's origin.
    pub rotation: Option<f64>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// A `circle` element.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CircleElement {
    /// Centre, mm from the left page edge.
    pub cx: f64,
    /// Centre, mm from the top page edge.
    pub cy: f64,
    /// Radius in mm.
    pub r: f64,
    /// Interior; none when absent.
    pub fill: Option<FillStyle>,
    /// Outline; the defaults when absent.
    pub stroke: Option<StrokeStyle>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// An `ellipse` element.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EllipseElement {
    /// Centre, mm from the left page edge.
    pub cx: f64,
    /// Centre, mm from the top page edge.
    pub cy: f64,
    /// Horizontal radius in mm.
    pub rx: f64,
    /// Vertical radius in mm.
    pub ry: f64,
    /// Clockwise rotation in degrees about the element's origin.
    pub rotation: Option<f64>,
    /// Interior; none when absent.
    pub fill: Option<FillStyle>,
    /// Outline; the defaults when absent.
    pub stroke: Option<StrokeStyle>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// A point in mm from the top-left page corner.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// mm from the left page edge.
    pub x: f64,
    /// mm from the top page edge.
    pub y: f64,
}

/// A `polygon` element: a closed shape through `points`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolygonElement {
    /// The corners, at least 3.
    pub points: Vec<Point>,
    /// Interior; none when absent.
    pub fill: Option<FillStyle>,
    /// Outline; the defaults when absent.
    pub stroke: Option<StrokeStyle>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// A `link` element: an invisible (or bordered) clickable area.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkElement {
    /// Left edge in mm from the left page edge (or `x_anchor`).
    pub x: Option<f64>,
    /// Places `x` relative to a page, content or table edge instead of the page's left edge.
    pub x_anchor: Option<XAnchor>,
    /// Top edge in mm from the top page edge.
    pub y: f64,
    /// Width in mm.
    pub width: f64,
    /// Height in mm.
    pub height: f64,
    /// Where the link goes.
    pub target: LinkTarget,
    /// Alternative text of the link.
    pub alt: Option<String>,
    /// Extra clickable margin around the area in mm.
    pub padding: Option<f64>,
    /// A visible border around the link area.
    pub border: Option<LinkBorder>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
}

/// An `image` element: a raster or SVG image fitted into its box.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImageElement {
    /// Left edge in mm from the left page edge (or `x_anchor`).
    pub x: Option<f64>,
    /// Places `x` relative to a page, content or table edge instead of the page's left edge.
    pub x_anchor: Option<XAnchor>,
    /// Top edge in mm from the top page edge.
    pub y: f64,
    /// Width in mm.
    pub width: f64,
    /// Height in mm.
    pub height: f64,
    /// The image: a `data:` URI (PNG, JPEG, GIF, WebP, SVG) or the name of a file in the resource folder.
    pub data: String,
    /// The image format when `data` does not say (`png`, `jpeg`, `gif`, `webp`, `svg`).
    pub format: Option<String>,
    /// Extension: `contain` (default), `cover` or `stretch`.
    pub fit: Option<ImageFit>,
    /// Extension: alternative text (required under PDF/UA).
    pub alt: Option<String>,
    /// Clockwise rotation in degrees about the element's origin.
    pub rotation: Option<f64>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Makes the element a link.
    pub link: Option<LinkSpec>,
}

/// How an image is fitted into its box.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImageFit {
    #[default]
    Contain,
    Cover,
    Stretch,
}

// ---------------------------------------------------------------- tables

/// A `table` element (only in `pages[].elements` or as a stack's first child): rows are objects keyed by column key; a table continues on further sheets when it does not fit.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableElement {
    /// Left edge in mm from the left page edge (or `x_anchor`).
    pub x: f64,
    /// Top edge in mm from the top page edge.
    pub y: f64,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
    /// Total width in mm; columns of mode `auto` share what fixed and percent columns leave.
    pub width: Option<f64>,
    /// The columns, left to right.
    pub columns: Vec<TableColumn>,
    // `rows` (an array of objects keyed by column key) is taken out before
    // the table is deserialised and read into `Table::cells` by validation.
    /// Style of every cell.
    pub cell: Option<TableCellStyle>,
    /// The header row(s).
    pub header: Option<TableHeaderConfig>,
    /// Cells of columns with role `row_header`.
    pub row_header: Option<TableZoneConfig>,
    /// Body cells.
    pub body: Option<TableBodyConfig>,
    /// Frame and grid lines.
    pub grid: Option<TableGridConfig>,
    /// How the table breaks across sheets.
    pub pagination: Option<TablePaginationConfig>,
}

/// Fields older table payloads used; named in the error that refuses them.
pub const DEPRECATED_TABLE_FIELDS: &[&str] = &[
    "data",
    "layout",
    "theme",
    "row_headers",
    "corner",
    "style_overrides",
];

/// One table column.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableColumn {
    /// The key of this column in each row object.
    pub key: String,
    /// Header text.
    pub header: Option<String>,
    /// How wide the column is.
    pub width: ColumnWidth,
    /// `row_header` columns are styled by `row_header`.
    pub role: Option<ColumnRole>,
    /// Style of the body cells of this column.
    pub cell: Option<TableCellStyle>,
    /// Style of the header cell of this column.
    pub header_cell: Option<TableCellStyle>,
}

/// A column width: `fixed` mm, `percent` of the table width, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "lowercase", deny_unknown_fields)]
pub enum ColumnWidth {
    /// `value` mm.
    Fixed { value: f64 },
    /// `value` percent of the table's width.
    Percent { value: f64 },
    /// A share of the width the other columns leave.
    Auto,
}

/// A column role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ColumnRole {
    Data,
    RowHeader,
}

/// A complex table cell (a row value that is an object).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComplexCell {
    /// The cell text: a string, number, boolean or null.
    #[serde(default)]
    #[schemars(schema_with = "crate::model::schema::cell_value")]
    pub value: Option<Value>,
    /// Rows the cell covers (default 1).
    pub row_span: Option<i64>,
    /// Columns the cell covers (default 1).
    pub col_span: Option<i64>,
    /// Style of this cell.
    pub style: Option<TableCellStyle>,
    /// Makes the cell a link.
    pub link: Option<LinkSpec>,
}

/// Style of table cells.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableCellStyle {
    /// Inner padding in mm.
    pub padding: Option<CellPadding>,
    /// Text style of the cell.
    pub text: Option<TextStyle>,
    /// Background.
    pub fill: Option<FillStyle>,
    /// Moves the content right by this many mm.
    pub content_offset_x: Option<f64>,
    /// Moves the content down by this many mm.
    pub content_offset_y: Option<f64>,
    /// Borders of the cell, each `false` or a stroke.
    pub borders: Option<CellBorders>,
}

/// Cell padding in mm.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellPadding {
    /// Left and right padding in mm.
    #[serde(default)]
    pub x: f64,
    /// Top and bottom padding in mm.
    #[serde(default)]
    pub y: f64,
}

/// Borders of a cell.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellBorders {
    /// Top border.
    pub top: Option<StrokeOrOff>,
    /// Right border.
    pub right: Option<StrokeOrOff>,
    /// Bottom border.
    pub bottom: Option<StrokeOrOff>,
    /// Left border.
    pub left: Option<StrokeOrOff>,
}

/// `false` (no line) or a StrokeStyle. `true` is not a value of the spec.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StrokeOrOff {
    Off(bool),
    Stroke(StrokeStyle),
}

/// The table header.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableHeaderConfig {
    /// Draw the header (default true).
    pub show: Option<bool>,
    /// Repeat the header on each continuation sheet.
    pub repeat_on_page_break: Option<bool>,
    /// Grouping rows above the column headers.
    pub rows: Option<Vec<TableHeaderRow>>,
    /// Style of header cells.
    pub cell: Option<TableCellStyle>,
}

/// A grouping row above the column headers.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableHeaderRow {
    /// The row's cells, left to right.
    pub cells: Vec<TableHeaderCell>,
}

/// A cell of a grouping header row.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableHeaderCell {
    /// Cell text.
    pub content: String,
    /// Columns the cell covers.
    pub col_span: Option<i64>,
    /// Rows the cell covers.
    pub row_span: Option<i64>,
}

/// Style of a table zone.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableZoneConfig {
    /// Style of the zone's cells.
    pub cell: Option<TableCellStyle>,
}

/// Style of the table body.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableBodyConfig {
    /// Style of body cells.
    pub cell: Option<TableCellStyle>,
    /// Fill of every second body row.
    pub alternate_fill: Option<FillStyle>,
}

/// Frame and grid lines of a table.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableGridConfig {
    /// The outer frame.
    pub frame: Option<StrokeOrOff>,
    /// Lines between rows.
    pub horizontal: Option<StrokeOrOff>,
    /// Lines between columns.
    pub vertical: Option<StrokeOrOff>,
}

/// How a table breaks across sheets.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TablePaginationConfig {
    /// Never break a row span across sheets (default true).
    pub keep_spans_together: Option<bool>,
    /// Minimum height of a body row in mm.
    pub row_min_height: Option<f64>,
    /// Minimum height of the header in mm.
    pub header_min_height: Option<f64>,
}

/// A `stack` element (only in `pages[].elements`): a table, then blocks placed one below the other after it, flowing onto further sheets.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StackElement {
    /// Vertical gap in mm between the table and each block.
    pub gap: Option<f64>,
    /// `children[0]` is a table, the rest are blocks; parsed by the validator.
    #[schemars(schema_with = "crate::model::schema::stack_children")]
    pub children: Vec<Value>,
    /// Drawing order: higher is drawn later (on top); ties keep document order.
    #[serde(default)]
    pub z_index: i64,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
}

/// A stack block: `{"type": "block", "elements": [...]}`, placed below the table (or the previous block).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Block")]
pub struct RawBlock {
    /// The block's elements (no tables, stacks or blocks), placed relative to the block.
    #[schemars(schema_with = "crate::model::schema::section_elements")]
    pub elements: Vec<Value>,
    /// Free text for the author; ignored.
    pub comment: Option<String>,
}
