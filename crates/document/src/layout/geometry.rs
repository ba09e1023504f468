//! Where an element lands on the page: anchors, rotation, bounding boxes.
//! The one definition validation (content-box rule), the display list
//! ([`super::display`]), the lowering and the warnings place elements by.

use crate::ir::{Element, Page, Rect};
use crate::model::{AnchorReference, ColumnWidth, TableElement, XAnchor};

/// Where an element sits, which decides what it may reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    Body,
    Header,
    Footer,
    Block,
}

/// The geometry an element is placed in.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub page_width: f64,
    /// Content box (page mm) when the page has a margin.
    pub content: Option<Rect>,
    /// Table edges (left, right) in page mm, for anchors inside stack blocks.
    pub table: Option<(f64, f64)>,
    /// Page position of the element coordinate origin.
    pub origin: (f64, f64),
    pub zone: Zone,
}

impl Frame {
    /// Body elements: relative to the content box when the page has a margin.
    pub fn body(page: &Page) -> Frame {
        let content = page.margin.map(|_| page.content_box());
        Frame {
            page_width: page.width,
            content,
            table: None,
            origin: content.map_or((0.0, 0.0), |c| (c.x, c.y)),
            zone: Zone::Body,
        }
    }

    /// Header and footer elements keep page coordinates (the footer is shifted when placed).
    pub fn section(page_width: f64, zone: Zone) -> Frame {
        Frame {
            page_width,
            content: None,
            table: None,
            origin: (0.0, 0.0),
            zone,
        }
    }

    /// Where a header's or footer's elements print on a `page`'s sheets:
    /// the header from the sheet's top, the footer from `height` above its
    /// bottom.
    pub fn section_on(page: &Page, zone: Zone, height: f64) -> Frame {
        let frame = Frame::section(page.width, zone);
        match zone {
            Zone::Footer => Frame {
                origin: (0.0, page.height - height),
                ..frame
            },
            _ => frame,
        }
    }

    /// A stack block's children, the block starting at page y `top`
    /// (below the stack's table, as the flow placed it): body `x`, `y` from
    /// the block's start, and the table's edges for `table_left`/`table_right`.
    /// Validation, warnings and the lowering all place blocks with this.
    pub fn block(&self, table: &TableElement, top: f64) -> Frame {
        let left = self.origin.0 + table.x;
        Frame {
            origin: (self.origin.0, top),
            table: table_width(table).map(|w| (left, left + w)),
            zone: Zone::Block,
            ..*self
        }
    }

    fn content_or_page(&self) -> Rect {
        self.content.unwrap_or(Rect {
            x: 0.0,
            y: 0.0,
            w: self.page_width,
            h: 0.0,
        })
    }
}

/// The page x of an element's left edge, from `x` or `x_anchor`.
pub fn resolve_x(x: Option<f64>, anchor: Option<&XAnchor>, width: f64, frame: &Frame) -> f64 {
    let Some(a) = anchor else {
        return frame.origin.0 + x.unwrap_or(0.0);
    };
    let content = frame.content_or_page();
    let (left, right) = frame.table.unwrap_or((content.x, content.right()));
    let reference = match a.reference {
        AnchorReference::PageLeft => 0.0,
        AnchorReference::PageRight => frame.page_width,
        AnchorReference::ContentLeft => content.x,
        AnchorReference::ContentRight => content.right(),
        AnchorReference::TableLeft => left,
        AnchorReference::TableRight => right,
    };
    match a.reference {
        AnchorReference::PageLeft | AnchorReference::ContentLeft | AnchorReference::TableLeft => {
            reference + a.offset
        }
        _ => reference - a.offset - width,
    }
}

/// A `w` x `h` box's extent after a clockwise quarter turn `rotation`.
pub fn rotated(w: f64, h: f64, rotation: Option<f64>) -> (f64, f64) {
    match rotation {
        Some(r) if r == 90.0 || r == 270.0 => (h, w),
        _ => (w, h),
    }
}

/// The page-space bounding box of an element after rotation, when it has one
/// known before layout (tables and stacks flow and are checked elsewhere).
pub fn element_bounds(element: &Element, frame: &Frame) -> Option<Rect> {
    let (ox, oy) = frame.origin;
    let boxed = |x: Option<f64>, a: Option<&XAnchor>, y: f64, w: f64, h: f64, rot: Option<f64>| {
        let (w, h) = rotated(w, h, rot);
        Rect {
            x: resolve_x(x, a, w, frame),
            y: oy + y,
            w,
            h,
        }
    };
    Some(match element {
        Element::Text(t) => {
            let (w, h) = t.box_size();
            let t = &t.spec;
            boxed(t.x, t.x_anchor.as_ref(), t.y, w, h, t.rotation)
        }
        Element::Barcode(b) => {
            let b = &b.spec;
            boxed(b.x, b.x_anchor.as_ref(), b.y, b.width, b.height, b.rotation)
        }
        Element::Rect(r) => {
            let r = &r.spec;
            boxed(r.x, r.x_anchor.as_ref(), r.y, r.width, r.height, r.rotation)
        }
        Element::Image(i) => {
            let i = &i.spec;
            boxed(i.x, i.x_anchor.as_ref(), i.y, i.width, i.height, i.rotation)
        }
        Element::Link(area) => {
            let l = &area.spec;
            boxed(l.x, l.x_anchor.as_ref(), l.y, l.width, l.height, None)
        }
        Element::Line(l) => {
            let l = &l.spec;
            let (x0, x1) = (l.x1.min(l.x2), l.x1.max(l.x2));
            let (y0, y1) = (l.y1.min(l.y2), l.y1.max(l.y2));
            Rect {
                x: ox + x0,
                y: oy + y0,
                w: x1 - x0,
                h: y1 - y0,
            }
        }
        Element::Circle(circle) => {
            let c = &circle.spec;
            Rect {
                x: ox + c.cx - c.r,
                y: oy + c.cy - c.r,
                w: 2.0 * c.r,
                h: 2.0 * c.r,
            }
        }
        Element::Ellipse(e) => {
            let e = &e.spec;
            let (rx, ry) = rotated(e.rx, e.ry, e.rotation);
            Rect {
                x: ox + e.cx - rx,
                y: oy + e.cy - ry,
                w: 2.0 * rx,
                h: 2.0 * ry,
            }
        }
        Element::Polygon(p) => {
            let p = &p.spec;
            let xs = p.points.iter().map(|p| p.x);
            let ys = p.points.iter().map(|p| p.y);
            let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
            let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
            if !x0.is_finite() {
                return None;
            }
            Rect {
                x: ox + x0,
                y: oy + y0,
                w: x1 - x0,
                h: y1 - y0,
            }
        }
        Element::Table(_) | Element::Stack(_) => return None,
    })
}

/// Total table width when known before layout: `width`, or the sum of fixed columns.
pub fn table_width(t: &TableElement) -> Option<f64> {
    t.width.or_else(|| {
        t.columns
            .iter()
            .map(|c| match c.width {
                ColumnWidth::Fixed { value } => Some(value),
                _ => None,
            })
            .sum()
    })
}
