//! The DocumentRequest as serde types.
//!
//! Every struct denies unknown fields: that is how older payload shapes are
//! refused. Elements are kept as raw JSON in the page and parsed one by one in
//! [`crate::validate`], so one broken element does not hide the errors of the
//! others and each error carries its full path.

use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRequest {
    #[serde(default)]
    pub settings: Option<Settings>,
    pub pages: Vec<RawPage>,
    #[serde(default)]
    pub header: Option<RawSection>,
    #[serde(default)]
    pub footer: Option<RawSection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPage {
    pub size: Option<String>,
    pub width: Option<f64>,
    pub height: Option<f64>,
    pub margin: Option<PageMargin>,
    #[serde(default)]
    pub elements: Vec<Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSection {
    pub height: f64,
    #[serde(default)]
    pub elements: Vec<Value>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageMargin {
    #[serde(default)]
    pub top: f64,
    #[serde(default)]
    pub right: f64,
    #[serde(default)]
    pub bottom: f64,
    #[serde(default)]
    pub left: f64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub defaults: Option<Defaults>,
    pub metadata: Option<Metadata>,
    pub output: Option<OutputSettings>,
    pub profile: Option<String>,
    pub page_margin: Option<PageMargin>,
    /// Extension: emit a tagged (structured) PDF even when the profile does not need it.
    pub tagged: Option<bool>,
    /// Extension: printer resolution; barcode modules snap to whole dots.
    pub print_dpi: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    pub text: Option<TextStyle>,
    pub stroke: Option<StrokeStyle>,
    pub fill: Option<FillStyle>,
    pub shape: Option<ShapeDefaults>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeDefaults {
    pub corner_radius: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    pub title: Option<String>,
    pub author: Option<String>,
    pub subject: Option<String>,
    pub creator: Option<String>,
    pub producer: Option<String>,
    pub language: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSettings {
    pub mode: Option<OutputMode>,
    pub file_name: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputMode {
    #[default]
    Binary,
    File,
}

// ---------------------------------------------------------------- styles

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextStyle {
    pub font_family: Option<String>,
    pub font_size: Option<f64>,
    pub font_weight: Option<FontWeight>,
    pub color: Option<String>,
    pub text_align: Option<TextAlign>,
    pub vertical_align: Option<VerticalAlign>,
    pub line_height: Option<f64>,
    pub width: Option<f64>,
    pub height: Option<f64>,
    pub text_overflow: Option<TextOverflow>,
    pub shrink_to_fit: Option<bool>,
    pub min_font_size: Option<f64>,
    pub link: Option<LinkSpec>,
}

/// `normal`, `bold`, or a number 100..=900.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FontWeight {
    Number(f64),
    Name(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextAlign {
    Left,
    Center,
    Right,
    Justify,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerticalAlign {
    Top,
    Middle,
    Bottom,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextOverflow {
    Visible,
    Clip,
    Ellipsis,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrokeStyle {
    pub color: Option<String>,
    pub width: Option<f64>,
    pub opacity: Option<f64>,
    pub cap: Option<LineCap>,
    pub join: Option<LineJoin>,
    pub miter_limit: Option<f64>,
    pub dash: Option<Dash>,
    pub compound: Option<Compound>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineCap {
    Butt,
    Round,
    Square,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineJoin {
    Miter,
    Round,
    Bevel,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dash {
    pub preset: Option<DashPreset>,
    pub pattern: Option<Vec<f64>>,
    pub phase: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DashPreset {
    Solid,
    Dashed,
    Dotted,
    Custom,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compound {
    pub kind: CompoundKind,
    pub gap: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompoundKind {
    Double,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FillStyle {
    pub color: Option<String>,
    pub opacity: Option<f64>,
    pub rule: Option<FillRule>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FillRule {
    Nonzero,
    EvenOdd,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerStyle {
    pub start: Option<MarkerKind>,
    pub end: Option<MarkerKind>,
    pub size: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerKind {
    None,
    Arrow,
    OpenArrow,
    Circle,
    Bar,
}

// ---------------------------------------------------------------- links

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub target: LinkTarget,
    pub alt: Option<String>,
    pub padding: Option<f64>,
    pub border: Option<LinkBorder>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum LinkTarget {
    Url {
        url: String,
    },
    Page {
        page: i64,
        #[serde(default)]
        x: f64,
        #[serde(default)]
        y: f64,
    },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkBorder {
    pub color: Option<String>,
    pub width: Option<f64>,
}

// ---------------------------------------------------------------- elements

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XAnchor {
    pub reference: AnchorReference,
    #[serde(default)]
    pub offset: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TextElement {
    pub x: Option<f64>,
    pub x_anchor: Option<XAnchor>,
    pub y: f64,
    pub content: String,
    pub style: Option<TextStyle>,
    pub rotation: Option<f64>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BarcodeElement {
    pub x: Option<f64>,
    pub x_anchor: Option<XAnchor>,
    pub y: f64,
    pub format: String,
    pub content: String,
    pub width: f64,
    pub height: f64,
    pub options: Option<BarcodeOptions>,
    pub hrt: Option<Hrt>,
    pub rotation: Option<f64>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

/// Unknown keys land in `symbology` and are refused by the barcode check
/// (serde cannot combine `flatten` with `deny_unknown_fields`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct BarcodeOptions {
    pub quiet_zone: Option<f64>,
    pub bar_width: Option<f64>,
    pub color: Option<String>,
    pub background_color: Option<String>,
    /// Symbology-specific options of the barcode service (`ecl`, `version`, ...),
    /// checked by the barcode engine.
    #[serde(flatten)]
    pub symbology: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hrt {
    pub enabled: Option<bool>,
    pub content: Option<String>,
    pub style: Option<TextStyle>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineElement {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    pub stroke: Option<StrokeStyle>,
    pub marker: Option<MarkerStyle>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RectElement {
    pub x: Option<f64>,
    pub x_anchor: Option<XAnchor>,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub fill: Option<FillStyle>,
    pub stroke: Option<StrokeStyle>,
    pub corner_radius: Option<f64>,
    pub rotation: Option<f64>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CircleElement {
    pub cx: f64,
    pub cy: f64,
    pub r: f64,
    pub fill: Option<FillStyle>,
    pub stroke: Option<StrokeStyle>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EllipseElement {
    pub cx: f64,
    pub cy: f64,
    pub rx: f64,
    pub ry: f64,
    pub rotation: Option<f64>,
    pub fill: Option<FillStyle>,
    pub stroke: Option<StrokeStyle>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolygonElement {
    pub points: Vec<Point>,
    pub fill: Option<FillStyle>,
    pub stroke: Option<StrokeStyle>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkElement {
    pub x: Option<f64>,
    pub x_anchor: Option<XAnchor>,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub target: LinkTarget,
    pub alt: Option<String>,
    pub padding: Option<f64>,
    pub border: Option<LinkBorder>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageElement {
    pub x: Option<f64>,
    pub x_anchor: Option<XAnchor>,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub data: String,
    pub format: Option<String>,
    /// Extension: `contain` (default), `cover` or `stretch`.
    pub fit: Option<ImageFit>,
    /// Extension: alternative text (required under PDF/UA).
    pub alt: Option<String>,
    pub rotation: Option<f64>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFit {
    #[default]
    Contain,
    Cover,
    Stretch,
}

// ---------------------------------------------------------------- tables

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableElement {
    pub x: f64,
    pub y: f64,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
    pub width: Option<f64>,
    pub columns: Vec<TableColumn>,
    // `rows` (an array of objects keyed by column key) is taken out before
    // the table is deserialised and read into `Table::cells` by validation.
    pub cell: Option<TableCellStyle>,
    pub header: Option<TableHeaderConfig>,
    pub row_header: Option<TableZoneConfig>,
    pub body: Option<TableBodyConfig>,
    pub grid: Option<TableGridConfig>,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableColumn {
    pub key: String,
    pub header: Option<String>,
    pub width: ColumnWidth,
    pub role: Option<ColumnRole>,
    pub cell: Option<TableCellStyle>,
    pub header_cell: Option<TableCellStyle>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(tag = "mode", rename_all = "lowercase", deny_unknown_fields)]
pub enum ColumnWidth {
    Fixed { value: f64 },
    Percent { value: f64 },
    Auto,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnRole {
    Data,
    RowHeader,
}

/// A complex table cell (a row value that is an object).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComplexCell {
    pub value: Option<Value>,
    pub row_span: Option<i64>,
    pub col_span: Option<i64>,
    pub style: Option<TableCellStyle>,
    pub link: Option<LinkSpec>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableCellStyle {
    pub padding: Option<CellPadding>,
    pub text: Option<TextStyle>,
    pub fill: Option<FillStyle>,
    pub content_offset_x: Option<f64>,
    pub content_offset_y: Option<f64>,
    pub borders: Option<CellBorders>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellPadding {
    #[serde(default)]
    pub x: f64,
    #[serde(default)]
    pub y: f64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellBorders {
    pub top: Option<StrokeOrOff>,
    pub right: Option<StrokeOrOff>,
    pub bottom: Option<StrokeOrOff>,
    pub left: Option<StrokeOrOff>,
}

/// `false` (no line) or a StrokeStyle. `true` is not a value of the spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum StrokeOrOff {
    Off(bool),
    Stroke(StrokeStyle),
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableHeaderConfig {
    pub show: Option<bool>,
    pub repeat_on_page_break: Option<bool>,
    pub rows: Option<Vec<TableHeaderRow>>,
    pub cell: Option<TableCellStyle>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableHeaderRow {
    pub cells: Vec<TableHeaderCell>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableHeaderCell {
    pub content: String,
    pub col_span: Option<i64>,
    pub row_span: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableZoneConfig {
    pub cell: Option<TableCellStyle>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableBodyConfig {
    pub cell: Option<TableCellStyle>,
    pub alternate_fill: Option<FillStyle>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableGridConfig {
    pub frame: Option<StrokeOrOff>,
    pub horizontal: Option<StrokeOrOff>,
    pub vertical: Option<StrokeOrOff>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TablePaginationConfig {
    pub keep_spans_together: Option<bool>,
    pub row_min_height: Option<f64>,
    pub header_min_height: Option<f64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackElement {
    pub gap: Option<f64>,
    /// `children[0]` is a table, the rest are blocks; parsed by the validator.
    pub children: Vec<Value>,
    #[serde(default)]
    pub z_index: i64,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBlock {
    pub elements: Vec<Value>,
    pub comment: Option<String>,
}
