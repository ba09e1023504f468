//! Drawing one sheet's piece of a laid-out table (see `layout::table`):
//! fills, then borders, then text, then links. Fills of one colour are one
//! `curve` of rectangles and borders of one stroke are one `curve` of merged
//! segments, so a sheet costs a few shapes plus one placed string per line
//! of text, whatever the row count.

use std::fmt::Write;
use std::ops::Range;

use super::typst::{self as ty, mm, num};
use super::Ctx;
use crate::layout::table::{CellBox, TableLayout};
use crate::model::{TextAlign, VerticalAlign};
use crate::rich_text::Line;
use crate::style::{ResolvedFill, ResolvedStroke};

/// Typst's text settings for one group of lines.
#[derive(PartialEq)]
struct TextKey {
    family: String,
    size: f64,
    weight: u16,
    color: crate::style::Rgb,
    line_height: f64,
    rtl: bool,
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

        // Fills and borders: one SVG in page millimetres over the piece,
        // reaching past it far enough for the widest stroke.
        let reach = 1.0 + t.stroke_reach;
        let (x0, y0) = (xs[0] - reach, top - reach);
        let (w, h) = (
            xs[ncols] - xs[0] + 2.0 * reach,
            tops[visible] - top + 2.0 * reach,
        );
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}mm\" height=\"{h}mm\" viewBox=\"{} {} {} {}\">",
            num(x0),
            num(y0),
            num(w),
            num(h),
            w = num(w),
            h = num(h)
        );
        let empty = svg.len();
        Self::fills(&mut svg, &cells);
        Self::borders(&mut svg, t, &cells, &owner, &xs, &tops, ncols);
        if svg.len() > empty {
            svg.push_str("</svg>");
            let index = self.images.len();
            self.images.push(std::sync::Arc::new(svg.into_bytes()));
            // Decoration, not content: an artifact in tagged PDFs.
            let _ = writeln!(
                self.out,
                "place(dx: {}, dy: {}, pdf.artifact(image(\"/img/{index}\", format: \"svg\", width: {}, height: {}, fit: \"stretch\")))",
                mm(x0),
                mm(y0),
                mm(w),
                mm(h)
            );
        }
        self.cell_texts(&cells, page_width);
        for p in &cells {
            if let Some(link) = p.cell.link() {
                let body = format!("box(width: {}, height: {})", mm(p.w), mm(p.h));
                self.emit_placed(p.x, p.y, body, Some(link));
            }
        }
    }

    /// One SVG path per fill colour: filled cells are closed rectangles in
    /// it, neighbours in a row with the same fill merged into one.
    fn fills(svg: &mut String, cells: &[Placed]) {
        let mut groups: Vec<(&ResolvedFill, Vec<(f64, f64, f64, f64)>)> = Vec::new();
        for p in cells {
            let Some(fill) = &p.cell.look.fill else {
                continue;
            };
            let i = group_index(&mut groups, fill);
            let rects = &mut groups[i].1;
            match rects.last_mut() {
                Some(last)
                    if (last.1 - p.y).abs() < 1e-9
                        && (last.3 - p.h).abs() < 1e-9
                        && (last.0 + last.2 - p.x).abs() < 1e-9 =>
                {
                    last.2 += p.w
                }
                _ => rects.push((p.x, p.y, p.w, p.h)),
            }
        }
        for (fill, rects) in groups {
            let _ = write!(svg, "<path fill=\"{}\"", fill.color.hex());
            if fill.opacity < 1.0 {
                let _ = write!(svg, " fill-opacity=\"{}\"", num(fill.opacity));
            }
            svg.push_str(" d=\"");
            for (x, y, w, h) in rects {
                let _ = write!(
                    svg,
                    "M{} {}h{}v{}h{}z",
                    num(x),
                    num(y),
                    num(w),
                    num(h),
                    num(-w)
                );
            }
            svg.push_str("\"/>");
        }
    }

    /// Resolves every edge between visible cells (and the frame) and draws
    /// them grouped by stroke, collinear neighbours merged.
    fn borders(
        svg: &mut String,
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
            let i = group_index(&mut groups, stroke);
            let segs = &mut groups[i].1;
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
                let grid = if r == 0 || r == visible {
                    &t.grid.frame
                } else {
                    &t.grid.horizontal
                };
                let stroke = edge(above.map(|a| (a, BOTTOM)), below.map(|b| (b, TOP)), grid);
                add(stroke, (xs[c], tops[r], xs[c + 1], tops[r]));
            }
        }
        // Vertical edges, column boundary by column boundary.
        for c in 0..=ncols {
            for r in 0..visible {
                let left = (c > 0).then(|| at(r, c - 1)).flatten();
                let right = (c < ncols).then(|| at(r, c)).flatten();
                let grid = if c == 0 || c == ncols {
                    &t.grid.frame
                } else {
                    &t.grid.vertical
                };
                let stroke = edge(left.map(|a| (a, RIGHT)), right.map(|b| (b, LEFT)), grid);
                add(stroke, (xs[c], tops[r], xs[c], tops[r + 1]));
            }
        }
        for (stroke, segs) in groups {
            let offsets: Vec<f64> = match stroke.double_gap {
                // Two lines of `width`, `gap` clear space between, centred on the edge.
                Some(gap) => vec![-(gap + stroke.width) / 2.0, (gap + stroke.width) / 2.0],
                None => vec![0.0],
            };
            svg_stroke(svg, &stroke);
            svg.push_str(" d=\"");
            for (x0, y0, x1, y1) in &segs {
                let horizontal = (y0 - y1).abs() < 1e-9;
                for off in &offsets {
                    let (dx, dy) = if horizontal { (0.0, *off) } else { (*off, 0.0) };
                    let _ = write!(
                        svg,
                        "M{} {}L{} {}",
                        num(x0 + dx),
                        num(y0 + dy),
                        num(x1 + dx),
                        num(y1 + dy)
                    );
                }
            }
            svg.push_str("\"/>");
        }
    }

    /// Every line of every visible cell, grouped under one `set text` per
    /// style. Plain lines that line up in a column at an even pitch (the
    /// usual body rows) become one paragraph with that pitch as its leading:
    /// one element per column and sheet instead of one per cell.
    fn cell_texts(&mut self, cells: &[Placed], page_width: f64) {
        let mut groups: Vec<(TextKey, String)> = Vec::new();
        let mut plain: Vec<PlainLine> = Vec::new();
        for p in cells {
            let (look, fitted) = (&*p.cell.look, &p.cell.fitted);
            if fitted.lines.iter().all(|l| l.segments.is_empty()) {
                continue;
            }
            let s = &look.text;
            let key = TextKey {
                family: s.family.clone(),
                size: fitted.size,
                weight: s.weight,
                color: s.color,
                line_height: s.line_height,
                rtl: fitted.rtl,
            };
            let group = group_index(&mut groups, key);
            let (pad, off) = (look.padding, look.offset);
            let cx = p.x + pad.x + off.0;
            let cw = (p.w - 2.0 * pad.x).max(0.0);
            let th = fitted.height();
            let mut ly = match s.valign {
                VerticalAlign::Top => p.y + pad.y,
                VerticalAlign::Middle => p.y + (p.h - th) / 2.0,
                VerticalAlign::Bottom => p.y + p.h - pad.y - th,
            } + off.1;
            let align = match fitted.align(s.align) {
                TextAlign::Justify if fitted.lines.iter().rev().skip(1).any(|l| l.wrapped) => {
                    // Wrapped lines stretch to the content box's right edge:
                    // the cell's lines as one paragraph, as a justified text
                    // element prints them (`Ctx::text_body`), breaks where
                    // layout broke them.
                    let content = self.lines_content(&fitted.lines, true);
                    let _ = writeln!(
                        groups[group].1,
                        "place(dx: {}, dy: {}, box(width: {}, {{ set par(justify: true); {content} }}))",
                        mm(cx),
                        mm(ly),
                        mm(cw)
                    );
                    continue;
                }
                // Nothing wrapped: nothing to stretch, the lines print as left.
                TextAlign::Justify => TextAlign::Left,
                a => a,
            };
            let anchor = match align {
                TextAlign::Right => cx + cw,
                TextAlign::Center => cx + cw / 2.0,
                _ => cx,
            };
            for (line, lh) in fitted.lines.iter().zip(&fitted.line_heights) {
                match line.segments.as_slice() {
                    [] => {}
                    [one] if !one.bold && !one.large && !(look.clip() && line.width > cw) => plain
                        .push(PlainLine {
                            group,
                            align,
                            anchor,
                            y: ly,
                            height: *lh,
                            text: self.substitute(&one.text),
                        }),
                    _ => {
                        let content = self.line_content(line);
                        let out = &mut groups[group].1;
                        if look.clip() && line.width > cw {
                            // Cut at the content box; the wide block keeps the line unbroken.
                            let _ = writeln!(
                                out,
                                "place(dx: {}, dy: {}, box(width: {}, clip: true, block(width: 100000mm, {content})))",
                                mm(cx),
                                mm(ly),
                                mm(cw)
                            );
                        } else {
                            place_line(out, align, anchor, ly, page_width, &content);
                        }
                    }
                }
                ly += lh;
            }
        }
        // Columns: same style, alignment and anchor; top to bottom.
        plain.sort_by(|a, b| {
            (a.group, align_rank(a.align))
                .cmp(&(b.group, align_rank(b.align)))
                .then(a.anchor.total_cmp(&b.anchor))
                .then(a.y.total_cmp(&b.y))
        });
        let mut i = 0;
        while i < plain.len() {
            let first = &plain[i];
            let mut j = i + 1;
            let pitch = plain.get(j).map_or(0.0, |n| n.y - first.y);
            while j < plain.len() {
                let (prev, next) = (&plain[j - 1], &plain[j]);
                let same_column = next.group == first.group
                    && next.align == first.align
                    && (next.anchor - first.anchor).abs() < 1e-6
                    && (next.height - first.height).abs() < 1e-9;
                if !same_column
                    || ((next.y - prev.y) - pitch).abs() > 1e-6
                    || pitch < first.height - 1e-9
                {
                    break;
                }
                j += 1;
            }
            let out = &mut groups[first.group].1;
            if j - i == 1 {
                place_line(
                    out,
                    first.align,
                    first.anchor,
                    first.y,
                    page_width,
                    &ty::string(&first.text),
                );
            } else {
                let mut joined = String::new();
                for (k, line) in plain[i..j].iter().enumerate() {
                    if k > 0 {
                        joined.push('\n');
                    }
                    joined.push_str(&line.text);
                }
                let halign = match first.align {
                    TextAlign::Right => "right",
                    TextAlign::Center => "center",
                    _ => "left",
                };
                let body = format!(
                    "box({{ set par(leading: {}); set align({halign}); {} }})",
                    mm(pitch - first.height),
                    ty::string(&joined)
                );
                place_line(out, first.align, first.anchor, first.y, page_width, &body);
            }
            i = j;
        }
        for (key, body) in groups {
            let ascender = self.fonts.ascender(&key.family, key.weight);
            // Line boxes as in `text_body`: the family's ascender whatever
            // face a character falls back to.
            let mut set = format!(
                "size: {}, weight: {}, fill: {}, top-edge: {}em, bottom-edge: {}em",
                ty::pt(key.size),
                key.weight,
                ty::colour(key.color, 1.0),
                num(ascender),
                num(-(key.line_height - ascender))
            );
            if key.family != self.config.defaults.font_family {
                let _ = write!(set, ", font: {}", self.font_list(&key.family));
            }
            if key.rtl {
                set.push_str(", dir: rtl");
            }
            let _ = writeln!(self.out, "{{ set text({set})\n{body}}}");
        }
    }

    /// A line's segments as Typst content, `{page}` and `{total_pages}`
    /// filled in: a string, or joined styled pieces (bold 700, large 1.5em).
    pub(crate) fn line_content(&self, line: &Line) -> String {
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

/// A one-segment line of plain text, batched with its column neighbours.
struct PlainLine {
    group: usize,
    align: TextAlign,
    /// The x the line hangs from: left edge, centre or right edge (page mm).
    anchor: f64,
    y: f64,
    height: f64,
    text: String,
}

fn align_rank(a: TextAlign) -> u8 {
    match a {
        TextAlign::Left | TextAlign::Justify => 0,
        TextAlign::Center => 1,
        TextAlign::Right => 2,
    }
}

/// Places content whose left edge, centre or right edge is `anchor`.
fn place_line(
    out: &mut String,
    align: TextAlign,
    anchor: f64,
    y: f64,
    page_width: f64,
    content: &str,
) {
    let _ = match align {
        TextAlign::Left | TextAlign::Justify => {
            writeln!(out, "place(dx: {}, dy: {}, {content})", mm(anchor), mm(y))
        }
        TextAlign::Right => writeln!(
            out,
            "place(top + right, dx: {}, dy: {}, {content})",
            mm(anchor - page_width),
            mm(y)
        ),
        TextAlign::Center => writeln!(
            out,
            "place(top + center, dx: {}, dy: {}, {content})",
            mm(anchor - page_width / 2.0),
            mm(y)
        ),
    };
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

/// SVG attributes of a stroke, in millimetre user units.
fn svg_stroke(svg: &mut String, s: &ResolvedStroke) {
    let (cap, join) = (ty::cap_name(s.cap), ty::join_name(s.join));
    let _ = write!(
        svg,
        "<path fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linecap=\"{cap}\" stroke-linejoin=\"{join}\" stroke-miterlimit=\"{}\"",
        s.color.hex(),
        num(s.width),
        num(s.miter_limit.max(1.0))
    );
    if s.opacity < 1.0 {
        let _ = write!(svg, " stroke-opacity=\"{}\"", num(s.opacity));
    }
    if let Some((pattern, phase)) = &s.dash {
        let lengths: Vec<String> = pattern.iter().map(|v| num(*v)).collect();
        let _ = write!(
            svg,
            " stroke-dasharray=\"{}\" stroke-dashoffset=\"{}\"",
            lengths.join(" "),
            num(*phase)
        );
    }
}

/// Indices into `CellBox::sides`.
const TOP: usize = 0;
const RIGHT: usize = 1;
const BOTTOM: usize = 2;
const LEFT: usize = 3;

/// The line on the edge between two neighbouring slots, each a cell and the
/// side it turns to the edge (`None` past the table). No line inside a span;
/// otherwise the side set at the higher level wins, the lower/right cell on
/// a tie, and level 0 (nobody set it) draws the grid.
fn edge(
    first: Option<(&CellBox, usize)>,
    second: Option<(&CellBox, usize)>,
    grid: &Option<ResolvedStroke>,
) -> Option<ResolvedStroke> {
    let side = match (first, second) {
        (Some((a, _)), Some((b, _))) if std::ptr::eq(a, b) => return None,
        (Some((a, sa)), Some((b, sb))) if a.look.sides[sa].level > b.look.sides[sb].level => {
            &a.look.sides[sa]
        }
        (_, Some((b, sb))) => &b.look.sides[sb],
        (Some((a, sa)), None) => &a.look.sides[sa],
        (None, None) => return grid.clone(),
    };
    if side.level == 0 {
        grid.clone()
    } else {
        side.stroke.clone()
    }
}

/// Index of `key`'s group, appended (with an empty value) when new.
fn group_index<K: PartialEq, V: Default>(groups: &mut Vec<(K, V)>, key: K) -> usize {
    match groups.iter().position(|(k, _)| *k == key) {
        Some(i) => i,
        None => {
            groups.push((key, V::default()));
            groups.len() - 1
        }
    }
}
