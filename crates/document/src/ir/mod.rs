//! The validated document: what validation makes of a request, typed and
//! resolved once (a barcode's fitted symbol, an image's checked bytes, a
//! table's cell grid, shapes' paint, links, the settings). Built by [`crate::validate`] from the wire types of
//! [`crate::model`]; laid out by [`crate::layout`], never written into by a
//! later phase.

mod link;
mod settings;

pub use link::{Border, Link, Target};
pub use settings::{Delivery, Language, Metadata, Settings};

use crate::model::*;

/// One element after its `type` has been read.
#[derive(Debug, Clone)]
pub enum Element {
    Text(Box<Text>),
    Barcode(Box<Barcode>),
    Line(Box<Shape<LineElement>>),
    Rect(Box<Shape<RectElement>>),
    Circle(Box<Shape<CircleElement>>),
    Ellipse(Box<Shape<EllipseElement>>),
    Polygon(Box<Shape<PolygonElement>>),
    Link(Box<LinkArea>),
    Image(Box<Image>),
    Table(Box<Table>),
    Stack(Box<Stack>),
}

impl Element {
    pub fn z_index(&self) -> i64 {
        match self {
            Element::Text(e) => e.spec.z_index,
            Element::Barcode(e) => e.spec.z_index,
            Element::Line(e) => e.spec.z_index,
            Element::Rect(e) => e.spec.z_index,
            Element::Circle(e) => e.spec.z_index,
            Element::Ellipse(e) => e.spec.z_index,
            Element::Polygon(e) => e.spec.z_index,
            Element::Link(e) => e.spec.z_index,
            Element::Image(e) => e.spec.z_index,
            Element::Table(e) => e.spec.z_index,
            Element::Stack(e) => e.z_index,
        }
    }

    /// The link the element is wrapped in (a text's own, else its style's).
    /// Tables and stacks have none: their cells and block items carry theirs.
    pub fn link(&self) -> Option<&Link> {
        match self {
            Element::Text(e) => e.link.as_ref(),
            Element::Barcode(e) => e.link.as_ref(),
            Element::Line(e) => e.link.as_ref(),
            Element::Rect(e) => e.link.as_ref(),
            Element::Circle(e) => e.link.as_ref(),
            Element::Ellipse(e) => e.link.as_ref(),
            Element::Polygon(e) => e.link.as_ref(),
            Element::Link(e) => Some(&e.link),
            Element::Image(e) => e.link.as_ref(),
            Element::Table(_) | Element::Stack(_) => None,
        }
    }
}

/// A link element: its box as requested and its link.
#[derive(Debug, Clone)]
pub struct LinkArea {
    pub spec: LinkElement,
    pub link: Link,
}

/// A line, rectangle, circle, ellipse or polygon as validation leaves it:
/// the request and its paint.
#[derive(Debug, Clone)]
pub struct Shape<T> {
    pub spec: T,
    pub paint: Paint,
    pub link: Option<Link>,
}

/// A shape's paint, every field decided: the element's stroke and fill
/// merged over the document's `settings.defaults`, then the configured
/// defaults (a line's stroke width default differs from the shapes').
#[derive(Debug, Clone)]
pub struct Paint {
    pub stroke: crate::style::ResolvedStroke,
    /// `None`: nothing is filled (a line, or no fill colour).
    pub fill: Option<crate::style::ResolvedFill>,
    /// A rectangle's: its own, else `settings.defaults.shape`'s, else the
    /// configured one. `None` for the other shapes.
    pub corner_radius: Option<f64>,
}

/// A text element as validation leaves it: the request, its resolved style
/// and its lines fitted to its box (what the content-box rule checked and
/// the lowering prints).
#[derive(Debug, Clone)]
pub struct Text {
    pub spec: TextElement,
    pub style: crate::style::ResolvedText,
    pub fitted: crate::rich_text::FittedText,
    /// Its own link, else its style's (validation refuses both).
    pub link: Option<Link>,
}

impl Text {
    /// The unrotated box: the style's width and height when given, else the
    /// widest line and the lines' height.
    pub fn box_size(&self) -> (f64, f64) {
        self.fitted.box_size(&self.style)
    }
}

/// A barcode element as validation leaves it: the request, its symbol
/// encoded and fitted into the box, and the style of its human-readable
/// text when that is on.
#[derive(Debug, Clone)]
pub struct Barcode {
    pub spec: BarcodeElement,
    pub symbol: labelpress_barcode::fit::Fitted,
    /// The human-readable text's style and its line fitted to the box width.
    pub text: Option<(crate::style::ResolvedText, crate::rich_text::FittedText)>,
    /// The element's link, covering the whole box.
    pub link: Option<Link>,
    /// The link of `hrt.style`, covering the human-readable text only
    /// (validation refuses it beside the element's own).
    pub text_link: Option<Link>,
}

/// An image element as validation leaves it: the request and the image
/// bytes it checked (read from the data URI, base64 or resource folder).
#[derive(Debug, Clone)]
pub struct Image {
    pub spec: ImageElement,
    pub bytes: std::sync::Arc<Vec<u8>>,
    pub link: Option<Link>,
}

/// A table as validation leaves it: the request without its `rows`, and
/// the rows read once into a typed grid.
#[derive(Debug, Clone)]
pub struct Table {
    pub spec: TableElement,
    /// Row by row, one slot per column in column order. Validation decides
    /// which slots a span covers, once; layout places the others.
    pub cells: Vec<Vec<Slot>>,
}

/// One (row, column) place of a table's body.
#[derive(Debug, Clone)]
pub enum Slot {
    /// A cell starts here (its spans reach right and down from it).
    Cell(Cell),
    /// The row gives the column no value: an empty cell of one row and column.
    Empty,
    /// A span from a cell above or to the left covers this place.
    Covered,
}

/// A body cell as validation read it: its text (strings as given, numbers
/// and booleans as written, null empty) and, for a cell object, its own
/// style, link and spans.
#[derive(Debug, Clone)]
pub struct Cell {
    pub text: String,
    pub style: Option<Box<TableCellStyle>>,
    pub link: Option<Box<Link>>,
    pub row_span: usize,
    pub col_span: usize,
}

/// A stack after validation: its table, then its blocks (each a list of elements).
#[derive(Debug, Clone)]
pub struct Stack {
    pub gap: f64,
    pub table: Table,
    pub blocks: Vec<Vec<Element>>,
    /// Height of each block in mm (its lowest child's bottom).
    pub block_heights: Vec<f64>,
    pub z_index: i64,
}

/// A request that passed validation: sizes resolved, elements typed.
#[derive(Debug, Clone)]
pub struct Document {
    pub settings: Settings,
    pub pages: Vec<Page>,
    pub header: Option<Section>,
    pub footer: Option<Section>,
    /// Filled from a template (`crate::template`): a `{{` left in its
    /// strings was written on purpose (escaped, or a value's), so it is no
    /// sign of a template sent as a plain document (warning LP-W08).
    pub from_template: bool,
}

#[derive(Debug, Clone)]
pub struct Page {
    /// Page width in mm.
    pub width: f64,
    /// Page height in mm.
    pub height: f64,
    /// The effective margin (page margin, else `settings.page_margin`), if any.
    pub margin: Option<PageMargin>,
    pub elements: Vec<Element>,
}

impl Page {
    /// The body content box (x, y, width, height) in page mm; the whole page without a margin.
    pub fn content_box(&self) -> Rect {
        let m = self.margin.unwrap_or_default();
        Rect {
            x: m.left,
            y: m.top,
            w: self.width - m.left - m.right,
            h: self.height - m.top - m.bottom,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Section {
    pub height: f64,
    pub elements: Vec<Element>,
}

/// An axis-aligned box in mm.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
}
