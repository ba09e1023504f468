//! LP-W05 and LP-W06: text that does not fit its box. Validation fitted
//! every text once (`layout::fit_text`) and recorded whether its lines, at
//! their final size, overflowed the box (`FittedText::overflowed`): an
//! ellipsis then cut them, `clip` cuts them, `visible` prints them past
//! the box. Also where a text's lines print ([`ink`]), for the sheet-edge
//! and overlap checks.

use super::{mm, Code, Collector, Path};
use crate::ir::{Rect, Text};
use crate::layout::geometry::{resolve_x, rotated, Frame};
use crate::layout::TableLayout;
use crate::model::{TableElement, TextAlign, TextOverflow, VerticalAlign};
use crate::rich_text::FittedText;
use crate::style::ResolvedText;

/// "40 x 10 mm", "40 mm wide".
fn box_size(width: Option<f64>, height: Option<f64>) -> String {
    match (width, height) {
        (Some(w), Some(h)) => format!("{} x {} mm", mm(w), mm(h)),
        (Some(w), None) => format!("{} mm wide", mm(w)),
        (None, Some(h)) => format!("{} mm tall", mm(h)),
        (None, None) => "unbounded".into(),
    }
}

impl Collector {
    /// LP-W05/LP-W06 for one fitted text in a box of `width` x `height` mm
    /// (`None`: unbounded that way).
    pub(super) fn text_fit(
        &mut self,
        path: Path,
        style: &ResolvedText,
        fitted: &FittedText,
        width: Option<f64>,
        height: Option<f64>,
    ) {
        if !fitted.overflowed {
            return;
        }
        let size = box_size(width, height);
        let fix = "make the box larger, or the text shorter or smaller";
        if style.shrink_to_fit {
            let then = match style.overflow {
                TextOverflow::Visible => "it prints past the box",
                TextOverflow::Clip => "`text_overflow: clip` cuts it",
                TextOverflow::Ellipsis => "`text_overflow: ellipsis` cuts it",
            };
            self.push(
                path(),
                Code::ShrunkAndStillTooLarge,
                format!(
                    "`shrink_to_fit` went down to `min_font_size` ({} pt) and the text still does not fit its {size} box, so {then}; {fix}, or lower `min_font_size`",
                    mm(fitted.size)
                ),
            );
            return;
        }
        let message = match style.overflow {
            // Printed whole, past its box: not cut.
            TextOverflow::Visible => return,
            TextOverflow::Clip => {
                let shown = match height {
                    Some(h) => lines_within(fitted, h),
                    None => fitted.lines.len(),
                };
                if shown < fitted.lines.len() {
                    format!(
                        "`text_overflow: clip` cuts the text at its {size} box: {shown} of its {} lines show",
                        fitted.lines.len()
                    )
                } else {
                    format!(
                        "`text_overflow: clip` cuts the text at its {size} box: a line is {} mm wide",
                        mm(fitted.widest())
                    )
                }
            }
            TextOverflow::Ellipsis => format!(
                "the text does not fit its {size} box and `text_overflow: ellipsis` cuts it: it prints as \"{}\"",
                printed_end(fitted)
            ),
        };
        self.push(path(), Code::TextCut, format!("{message}; {fix}"));
    }

    /// LP-W05/LP-W06 for a table's cells: header cells, then body cells in
    /// row order, each in its columns' width less the padding.
    pub(super) fn cells(&mut self, path: &str, spec: &TableElement, laid: &TableLayout) {
        let grouped = spec
            .header
            .as_ref()
            .and_then(|h| h.rows.as_ref())
            .map_or(0, Vec::len);
        let mut row = usize::MAX;
        let mut index = 0;
        for cell in &laid.header_cells {
            if self.full() {
                return;
            }
            // Header cells come row by row, each row's in request order.
            if cell.row != row {
                row = cell.row;
                index = 0;
            } else {
                index += 1;
            }
            if !cell.fitted.overflowed {
                continue;
            }
            let cpath = if cell.row < grouped {
                format!("{path}.header.rows[{}].cells[{index}].content", cell.row)
            } else {
                format!("{path}.columns[{}].header", cell.col)
            };
            self.cell(&|| cpath.clone(), laid, cell);
        }
        for cell in &laid.body_cells {
            if self.full() {
                return;
            }
            if cell.fitted.overflowed {
                let key = spec.columns.get(cell.col).map_or("", |c| c.key.as_str());
                self.cell(&|| format!("{path}.rows[{}].{key}", cell.row), laid, cell);
            }
        }
    }

    fn cell(&mut self, path: Path, laid: &TableLayout, cell: &crate::layout::table::CellBox) {
        let end = (cell.col + cell.col_span).min(laid.widths.len());
        let width: f64 = laid.widths[cell.col.min(end)..end].iter().sum();
        let inner = (width - 2.0 * cell.look.padding.x).max(0.0);
        self.text_fit(path, &cell.look.text, &cell.fitted, Some(inner), None);
    }
}

/// How many lines fit `height` mm, from the top.
fn lines_within(fitted: &FittedText, height: f64) -> usize {
    let mut total = 0.0;
    fitted
        .line_heights
        .iter()
        .take_while(|h| {
            total += *h;
            total <= height + 1e-9
        })
        .count()
}

/// The end of the last printed line, for messages: `…the last words…`.
fn printed_end(fitted: &FittedText) -> String {
    let last = fitted.lines.last().map(|l| l.plain()).unwrap_or_default();
    let chars: Vec<char> = last.chars().collect();
    if chars.len() > 40 {
        format!("…{}", chars[chars.len() - 40..].iter().collect::<String>())
    } else {
        last
    }
}

/// Where a text element's lines print on the sheet: the lines' width
/// placed by their alignment in the box (a wide box around a short text is
/// mostly empty) and their height placed by the vertical alignment, cut to
/// the box when `text_overflow` cuts; `None` when it prints nothing. A
/// rotated text is its whole box.
pub(crate) fn ink(t: &Text, frame: &Frame) -> Option<Rect> {
    let fitted = &t.fitted;
    let style = &t.style;
    if fitted.lines.iter().all(|l| l.segments.is_empty()) {
        return None;
    }
    let spec = &t.spec;
    let (bw, bh) = t.box_size();
    let y = frame.origin.1 + spec.y;
    if spec.rotation.is_some_and(|r| r != 0.0) {
        // As `layout::geometry::element_bounds` places a rotated box.
        let (w, h) = rotated(bw, bh, spec.rotation);
        let x = resolve_x(spec.x, spec.x_anchor.as_ref(), w, frame);
        return Some(Rect { x, y, w, h });
    }
    let x = resolve_x(spec.x, spec.x_anchor.as_ref(), bw, frame);
    let cut = style.overflow != TextOverflow::Visible;
    let widest = fitted.widest();
    let (mut dx, mut w) = match style.width {
        None => (0.0, widest),
        Some(bw) => {
            let wrapped = fitted.lines.iter().any(|l| l.wrapped);
            match fitted.align(style.align) {
                TextAlign::Left => (0.0, widest),
                TextAlign::Justify if wrapped => (0.0, bw.max(widest)),
                TextAlign::Justify => (0.0, widest),
                TextAlign::Right => (bw - widest, widest),
                TextAlign::Center => ((bw - widest) / 2.0, widest),
            }
        }
    };
    if cut {
        let left = dx.max(0.0);
        let right = (dx + w).min(bw);
        dx = left;
        w = (right - left).max(0.0);
    }
    let lines_h = fitted.height();
    let (mut dy, mut h) = match style.height {
        None => (0.0, lines_h),
        Some(bh) => match style.valign {
            VerticalAlign::Top => (0.0, lines_h),
            VerticalAlign::Middle => ((bh - lines_h) / 2.0, lines_h),
            VerticalAlign::Bottom => (bh - lines_h, lines_h),
        },
    };
    if cut {
        let top = dy.max(0.0);
        let bottom = (dy + h).min(bh);
        dy = top;
        h = (bottom - top).max(0.0);
    }
    Some(Rect {
        x: x + dx,
        y: y + dy,
        w,
        h,
    })
}

/// The shortest line of a text, in mm (the overlap check's tolerance).
pub(crate) fn shortest_line(t: &Text) -> f64 {
    t.fitted
        .line_heights
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
}
