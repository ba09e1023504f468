//! LP-W01 and LP-W02: an element outside its sheet, or cut by a sheet edge.
//!
//! Without a page margin, body elements may reach past the page edge
//! (docs/document-request.md): they are accepted and cut there. An element
//! is measured by the box validation measured (`layout::geometry::element_bounds`,
//! after rotation, without its stroke's width), a text by what its lines
//! cover ([`super::text::ink`]), a table by its columns' width (the flow
//! keeps it between the body's top and bottom).

use super::{mm, Code, Collector, Path};
use crate::ir::{Element, Rect};
use crate::layout::geometry::{element_bounds, Frame};
use crate::layout::TableLayout;

/// Tolerance of the comparisons (mm): float noise, not a visible amount.
const EPS: f64 = 1e-6;

/// How a box lies on a `w` x `h` sheet.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Placement {
    Inside,
    Outside,
    /// The amounts (mm) the box reaches past the left, top, right and bottom edges.
    Cut([f64; 4]),
}

/// Where `b` lies on a `w` x `h` sheet. A box of no width or height (a
/// horizontal or vertical line) on an edge is inside.
pub(crate) fn placement(b: &Rect, w: f64, h: f64) -> Placement {
    let outside = |lo: f64, hi: f64, size: f64| {
        if hi - lo <= EPS {
            hi < -EPS || lo > size + EPS
        } else {
            hi <= EPS || lo >= size - EPS
        }
    };
    if outside(b.x, b.right(), w) || outside(b.y, b.bottom(), h) {
        return Placement::Outside;
    }
    let past = [-b.x, -b.y, b.right() - w, b.bottom() - h].map(|v| if v > EPS { v } else { 0.0 });
    if past.iter().any(|v| *v > 0.0) {
        Placement::Cut(past)
    } else {
        Placement::Inside
    }
}

/// "2.5 mm past the right edge and 1 mm past the bottom edge".
fn describe_cut(past: [f64; 4]) -> String {
    let names = ["left", "top", "right", "bottom"];
    let parts: Vec<String> = past
        .iter()
        .zip(names)
        .filter(|(v, _)| **v > 0.0)
        .map(|(v, name)| format!("{} mm past the {name} edge", mm(*v)))
        .collect();
    parts.join(" and ")
}

impl Collector {
    /// LP-W01/LP-W02 for one element placed in `frame` on a sheet of
    /// `sheet` (w, h) mm; `page` names the page for header and footer
    /// elements (which print on every page). True when it warned.
    pub(super) fn sheet_edges(
        &mut self,
        path: Path,
        element: &Element,
        frame: &Frame,
        sheet: (f64, f64),
        page: Option<usize>,
    ) -> bool {
        let bounds = match element {
            Element::Text(t) => super::text::ink(t, frame),
            _ => element_bounds(element, frame),
        };
        let Some(b) = bounds else {
            return false;
        };
        let (w, h) = sheet;
        let placed = placement(&b, w, h);
        if placed == Placement::Inside {
            return false;
        }
        // Messages only for what warns: formatting lengths costs more than
        // the checks.
        let on = match page {
            Some(i) => format!("the {} x {} mm sheets of pages[{i}]", mm(w), mm(h)),
            None => format!("its {} x {} mm sheet", mm(w), mm(h)),
        };
        let what = match element {
            Element::Text(_) => "the text",
            _ => "the element",
        };
        let at = format!(
            "({}, {}, {} x {} mm on the sheet)",
            mm(b.x),
            mm(b.y),
            mm(b.w),
            mm(b.h)
        );
        let (code, message) = match placed {
            Placement::Cut(past) => (
                Code::CutBySheetEdge,
                format!(
                    "{what} {at} reaches {} of {on}: that part is cut off",
                    describe_cut(past)
                ),
            ),
            _ => (
                Code::OffSheet,
                format!(
                    "{what} {at} lies entirely outside {on}: nothing of it prints; check its x and y"
                ),
            ),
        };
        self.push(path(), code, message);
        true
    }

    /// LP-W01/LP-W02 for a table: its columns across a sheet `width` mm wide.
    pub(super) fn table_edges(&mut self, path: &str, laid: &TableLayout, width: f64) {
        let b = Rect {
            x: laid.left,
            y: 0.0,
            w: laid.width(),
            h: 0.0,
        };
        let at = || {
            format!(
                "(from x {} to {} mm)",
                mm(laid.left),
                mm(laid.left + laid.width())
            )
        };
        match placement(&b, width, f64::INFINITY) {
            Placement::Inside => {}
            Placement::Outside => self.push(
                path.to_string(),
                Code::OffSheet,
                format!(
                    "the table {} lies entirely outside its {} mm wide sheet: nothing of it prints; check its x",
                    at(),
                    mm(width)
                ),
            ),
            Placement::Cut(past) => self.push(
                path.to_string(),
                Code::CutBySheetEdge,
                format!(
                    "the table {} reaches {} of its {} mm wide sheet: those columns are cut off",
                    at(),
                    describe_cut(past),
                    mm(width)
                ),
            ),
        }
    }
}
