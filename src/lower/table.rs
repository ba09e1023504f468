//! Drawing one sheet's piece of a laid-out table (see `layout::table`):
//! fills, then borders, then text, then links. Fills of one colour are one
//! `curve` of rectangles and borders of one stroke are one `curve` of merged
//! segments, so a sheet costs a few shapes plus one placed string per line
//! of text, whatever the row count.

use std::fmt::Write;
use std::ops::Range;

use super::typst::{self as ty, mm, num};
use super::Ctx;
use crate::layout::measure::Line;
use crate::layout::table::{CellBox, Side, TableLayout};
use crate::model::{TextAlign, VerticalAlign};
use crate::style::{ResolvedFill, ResolvedStroke};

/// Typst's text settings for one group of lines.
#[derive(PartialEq)]
struct TextKey {
    family: String,
    size: f64,
    weight: u16,
    color: crate::style::Rgb,
    line_height: f64,
}

/// A visible cell: its box on the sheet.
struct Placed<'a> {
    cell: &'a CellBox,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Ctx<'_> {
    /// Emits the header (when `header`) and body `rows` of a table from `top`.
    pub(crate) fn table_piece(
        &mut self,
        t: &TableLayout,
        header: bool,
        rows: Range<usize>,
        top: f64,
        page_width: f64,
    ) {
        // Visible rows top to bottom: header rows, then the body rows.
        let mut heights: Vec<f64> = Vec::new();
        if header {
            heights.extend_from_slice(&t.header_heights);
        }
        let first_body = heights.len();
        heights.extend_from_slice(&t.body_heights[rows.clone()]);
        let mut tops = Vec::with_capacity(heights.len() + 1);
        let mut y = top;
        for h in &heights {
            tops.push(y);
            y += h;
        }
        tops.push(y);
        let visible = heights.len();
        let ncols = t.widths.len();
        let mut xs = Vec::with_capacity(ncols + 1);
        for c in 0..=ncols {
            xs.push(t.column_x(c));
        }

        let mut cells: Vec<Placed> = Vec::new();
        let mut owner = vec![usize::MAX; visible * ncols];
        let grid = SheetGrid {
            xs: &xs,
            tops: &tops,
            ncols,
        };
        if header {
            for cell in &t.header_cells {
                grid.add(&mut cells, &mut owner, cell, cell.row);
            }
        }
        for r in rows.clone() {
            for cell in &t.body_cells[t.body_row_cells[r].clone()] {
                grid.add(&mut cells, &mut owner, cell, first_body + r - rows.start);
            }
        }

        self.fills(&cells);
        self.borders(t, &cells, &owner, &xs, &tops, ncols);
        self.cell_texts(&cells, page_width);
        for p in &cells {
            if let Some(link) = &p.cell.link {
                let body = format!("box(width: {}, height: {})", mm(p.w), mm(p.h));
                self.emit_placed(p.x, p.y, body, Some(link));
            }
        }
    }

    /// One `curve` per fill: every filled cell is a closed rectangle in it.
    fn fills(&mut self, cells: &[Placed]) {
        let mut groups: Vec<(&ResolvedFill, String)> = Vec::new();
        for p in cells {
            let Some(fill) = &p.cell.fill else { continue };
            let path = match groups.iter_mut().find(|(f, _)| *f == fill) {
                Some((_, path)) => path,
                None => {
                    groups.push((fill, String::new()));
                    &mut groups.last_mut().expect("just pushed").1
                }
            };
            let (x0, y0, x1, y1) = (mm(p.x), mm(p.y), mm(p.x + p.w), mm(p.y + p.h));
            let _ = write!(
                path,
                "curve.move(({x0}, {y0})), curve.line(({x1}, {y0})), curve.line(({x1}, {y1})), curve.line(({x0}, {y1})), curve.close(), "
            );
        }
        for (fill, path) in groups {
            let _ = writeln!(
                self.out,
                "place(curve(fill: {}, stroke: none, {path}))",
                ty::colour(fill.color, fill.opacity)
            );
        }
    }

    /// Resolves every edge between visible cells (and the frame) and draws
    /// them grouped by stroke, collinear neighbours merged.
    fn borders(
        &mut self,
        t: &TableLayout,
        cells: &[Placed],
        owner: &[usize],
        xs: &[f64],
        tops: &[f64],
        ncols: usize,
    ) {
        let visible = tops.len() - 1;
        let at = |r: usize, c: usize| cells.get(owner[r * ncols + c]).map(|p| p.cell);
        // (stroke, segments as (x0, y0, x1, y1)), segments in drawing order.
        let mut groups: Vec<(ResolvedStroke, Vec<(f64, f64, f64, f64)>)> = Vec::new();
        let mut add = |stroke: Option<ResolvedStroke>, seg: (f64, f64, f64, f64)| {
            let Some(stroke) = stroke else { return };
            if stroke.width <= 0.0 {
                return;
            }
            let segs = match groups.iter_mut().find(|(s, _)| *s == stroke) {
                Some((_, segs)) => segs,
                None => {
                    groups.push((stroke, Vec::new()));
                    &mut groups.last_mut().expect("just pushed").1
                }
            };
            match segs.last_mut() {
                // Collinear and touching: extend instead of adding.
                Some(last)
                    if (last.1 - seg.1).abs() < 1e-9
                        && (last.3 - seg.3).abs() < 1e-9
                        && (last.2 - seg.0).abs() < 1e-9
                        && (seg.1 - seg.3).abs() < 1e-9 =>
                {
                    last.2 = seg.2
                }
                Some(last)
                    if (last.0 - seg.0).abs() < 1e-9
                        && (last.2 - seg.2).abs() < 1e-9
                        && (last.3 - seg.1).abs() < 1e-9
                        && (seg.0 - seg.2).abs() < 1e-9 =>
                {
                    last.3 = seg.3
                }
                _ => segs.push(seg),
            }
        };
        // Horizontal edges, row boundary by row boundary.
        for r in 0..=visible {
            for c in 0..ncols {
                let above = (r > 0).then(|| at(r - 1, c)).flatten();
                let below = (r < visible).then(|| at(r, c)).flatten();
                if let (Some(a), Some(b)) = (above, below) {
                    if std::ptr::eq(a, b) {
                        continue;
                    }
                }
                let grid = if r == 0 || r == visible {
                    &t.grid.frame
                } else {
                    &t.grid.horizontal
                };
                let stroke = pick(above.map(|a| &a.sides[2]), below.map(|b| &b.sides[0]), grid);
                add(stroke, (xs[c], tops[r], xs[c + 1], tops[r]));
            }
        }
        // Vertical edges, column boundary by column boundary.
        for c in 0..=ncols {
            for r in 0..visible {
                let left = (c > 0).then(|| at(r, c - 1)).flatten();
                let right = (c < ncols).then(|| at(r, c)).flatten();
                if let (Some(a), Some(b)) = (left, right) {
                    if std::ptr::eq(a, b) {
                        continue;
                    }
                }
                let grid = if c == 0 || c == ncols {
                    &t.grid.frame
                } else {
                    &t.grid.vertical
                };
                let stroke = pick(left.map(|a| &a.sides[1]), right.map(|b| &b.sides[3]), grid);
                add(stroke, (xs[c], tops[r], xs[c], tops[r + 1]));
            }
        }
        for (stroke, segs) in groups {
            let offsets: Vec<f64> = match stroke.double_gap {
                // Two lines of `width`, `gap` clear space between, centred on the edge.
                Some(gap) => vec![-(gap + stroke.width) / 2.0, (gap + stroke.width) / 2.0],
                None => vec![0.0],
            };
            let mut path = String::new();
            for (x0, y0, x1, y1) in &segs {
                let horizontal = (y0 - y1).abs() < 1e-9;
                for off in &offsets {
                    let (dx, dy) = if horizontal { (0.0, *off) } else { (*off, 0.0) };
                    let _ = write!(
                        path,
                        "curve.move(({}, {})), curve.line(({}, {})), ",
                        mm(x0 + dx),
                        mm(y0 + dy),
                        mm(x1 + dx),
                        mm(y1 + dy)
                    );
                }
            }
            let _ = writeln!(
                self.out,
                "place(curve(stroke: {}, {path}))",
                ty::stroke(&stroke)
            );
        }
    }

    /// Every line of every visible cell, grouped under one `set text` per style.
    fn cell_texts(&mut self, cells: &[Placed], page_width: f64) {
        let mut groups: Vec<(TextKey, String)> = Vec::new();
        for p in cells {
            let text = &p.cell.text;
            if text.lines.iter().all(|l| l.segments.is_empty()) {
                continue;
            }
            let s = &text.style;
            let key = TextKey {
                family: s.family.clone(),
                size: s.size,
                weight: s.weight,
                color: s.color,
                line_height: s.line_height,
            };
            let index = match groups.iter().position(|(k, _)| *k == key) {
                Some(i) => i,
                None => {
                    groups.push((key, String::new()));
                    groups.len() - 1
                }
            };
            let (pad, off) = (text.padding, text.offset);
            let cx = p.x + pad.x + off.0;
            let cw = (p.w - 2.0 * pad.x).max(0.0);
            let th = text.height();
            let mut ly = match s.valign {
                VerticalAlign::Top => p.y + pad.y,
                VerticalAlign::Middle => p.y + (p.h - th) / 2.0,
                VerticalAlign::Bottom => p.y + p.h - pad.y - th,
            } + off.1;
            for (line, lh) in text.lines.iter().zip(&text.line_heights) {
                if !line.segments.is_empty() {
                    let content = self.line_content(line);
                    let out = &mut groups[index].1;
                    if text.clip && line.width > cw {
                        // Cut at the content box; the wide block keeps the line unbroken.
                        let _ = writeln!(
                            out,
                            "place(dx: {}, dy: {}, box(width: {}, clip: true, block(width: 100000mm, {content})))",
                            mm(cx),
                            mm(ly),
                            mm(cw)
                        );
                    } else {
                        let _ = match s.align {
                            TextAlign::Left | TextAlign::Justify => {
                                writeln!(out, "place(dx: {}, dy: {}, {content})", mm(cx), mm(ly))
                            }
                            TextAlign::Right => writeln!(
                                out,
                                "place(top + right, dx: {}, dy: {}, {content})",
                                mm(cx + cw - page_width),
                                mm(ly)
                            ),
                            TextAlign::Center => writeln!(
                                out,
                                "place(top + center, dx: {}, dy: {}, {content})",
                                mm(cx + cw / 2.0 - page_width / 2.0),
                                mm(ly)
                            ),
                        };
                    }
                }
                ly += lh;
            }
        }
        for (key, body) in groups {
            let ascender = self.fonts.ascender(&key.family, key.weight);
            let mut set = format!(
                "size: {}, weight: {}, fill: {}, bottom-edge: {}em",
                ty::pt(key.size),
                key.weight,
                ty::colour(key.color, 1.0),
                num(-(key.line_height - ascender))
            );
            if key.family != self.config.defaults.font_family {
                let _ = write!(set, ", font: ({},)", ty::string(&key.family));
            }
            let _ = writeln!(self.out, "{{ set text({set})\n{body}}}");
        }
    }

    /// A line's segments as Typst content: a string, or joined styled pieces.
    fn line_content(&self, line: &Line) -> String {
        let piece = |text: &str, bold: bool, large: bool| {
            let text = ty::string(&self.substitute(text));
            match (bold, large) {
                (false, false) => text,
                (true, false) => format!("text(weight: \"bold\", {text})"),
                (false, true) => format!("text(size: 1.5em, {text})"),
                (true, true) => format!("text(weight: \"bold\", size: 1.5em, {text})"),
            }
        };
        match line.segments.as_slice() {
            [one] => piece(&one.text, one.bold, one.large),
            many => format!(
                "{{ {} }}",
                many.iter()
                    .map(|s| piece(&s.text, s.bold, s.large))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        }
    }
}

/// Column edges and row tops of one sheet's piece.
struct SheetGrid<'g> {
    xs: &'g [f64],
    tops: &'g [f64],
    ncols: usize,
}

impl SheetGrid<'_> {
    /// Places `cell` at visible row `row` and marks the slots it covers.
    fn add<'a>(
        &self,
        cells: &mut Vec<Placed<'a>>,
        owner: &mut [usize],
        cell: &'a CellBox,
        row: usize,
    ) {
        let visible = self.tops.len() - 1;
        let last = (row + cell.row_span).min(visible);
        let last_col = (cell.col + cell.col_span).min(self.ncols);
        let id = cells.len();
        for r in row..last {
            for slot in &mut owner[r * self.ncols + cell.col..r * self.ncols + last_col] {
                *slot = id;
            }
        }
        cells.push(Placed {
            cell,
            x: self.xs[cell.col],
            y: self.tops[row],
            w: self.xs[last_col] - self.xs[cell.col],
            h: self.tops[last] - self.tops[row],
        });
    }
}

/// The edge between two cells: the side set at the higher level wins, the
/// lower/right cell on a tie; level 0 (nobody set it) draws the grid.
fn pick(
    first: Option<&Side>,
    second: Option<&Side>,
    grid: &Option<ResolvedStroke>,
) -> Option<ResolvedStroke> {
    let side = match (first, second) {
        (Some(a), Some(b)) if a.level > b.level => a,
        (_, Some(b)) => b,
        (Some(a), None) => a,
        (None, None) => return grid.clone(),
    };
    if side.level == 0 {
        grid.clone()
    } else {
        side.stroke.clone()
    }
}
