//! The flow of a page (docs/document-request.md, "Tables and stacks"): tables and stacks run in
//! ascending `y` (ties in array order), each starting at its own `y` or right
//! after the previous one, whichever is lower. What does not fit continues on
//! continuation sheets at `continuation_top` (the content-box top, never
//! above the header); nothing goes below `bottom` (the content-box bottom and
//! the footer's top). Rows held together by a row span move as one; a stack's
//! blocks follow its table and move whole (the gap before a moved block is
//! dropped).

use std::ops::Range;
use std::sync::Arc;

use super::table::TableLayout;

/// Where a flow may go on the sheets of one request page, in page mm.
#[derive(Debug, Clone, Copy)]
pub struct SheetGeometry {
    pub continuation_top: f64,
    pub bottom: f64,
}

/// A table or stack on a page.
#[derive(Debug, Clone)]
pub struct FlowItem {
    /// Index of the element in `pages[].elements`.
    pub element: usize,
    /// Its requested top in page mm.
    pub y: f64,
    pub table: Arc<TableLayout>,
    /// Stack only: the gap and the heights of its blocks.
    pub gap: f64,
    pub blocks: Vec<f64>,
}

/// What one sheet shows of one flow element.
#[derive(Debug, Clone)]
pub struct Piece {
    /// Sheet index within the request page (0 = the page's first sheet).
    pub sheet: usize,
    pub element: usize,
    pub kind: PieceKind,
}

#[derive(Debug, Clone)]
pub enum PieceKind {
    /// Table rows `rows` (body rows), under the header when `header`, from `top`.
    Table {
        table: Arc<TableLayout>,
        header: bool,
        rows: Range<usize>,
        top: f64,
    },
    /// Stack block `block` (0-based among the blocks) starting at `top`.
    Block { block: usize, top: f64 },
}

/// The sheets of one request page.
#[derive(Debug, Clone, Default)]
pub struct Sheets {
    pub count: usize,
    pub pieces: Vec<Piece>,
}

/// Why a flow cannot be laid out; `path` is relative to the flow element.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowError {
    pub element: usize,
    pub path: String,
    pub message: String,
}

/// Distributes the flow items of one page over its sheets.
pub fn paginate(mut items: Vec<FlowItem>, geometry: SheetGeometry) -> Result<Sheets, FlowError> {
    items.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.element.cmp(&b.element)));
    let SheetGeometry {
        continuation_top: top,
        bottom,
    } = geometry;
    let room = bottom - top;
    let mut pieces = Vec::new();
    let mut sheet = 0;
    let mut cursor = f64::NEG_INFINITY;
    for item in items {
        let t = &item.table;
        let error = |path: String, message: String| FlowError {
            element: item.element,
            path,
            message,
        };
        let has_header = !t.header_heights.is_empty();
        let head_h = t.header_height();
        let rows = t.body_heights.len();
        let mut y = item.y.max(cursor);
        let mut r = 0;
        let mut header_here = has_header;
        let mut header_drawn = false;
        let mut moved = false;
        loop {
            let first = r;
            let mut end_y = y + if header_here { head_h } else { 0.0 };
            while r < rows {
                let last = t.group_end[r];
                let h: f64 = t.body_heights[r..=last].iter().sum();
                if end_y + h > bottom + 1e-6 {
                    break;
                }
                end_y += h;
                r = last + 1;
            }
            let nothing_fits = (r == first && rows > 0) || end_y > bottom + 1e-6;
            if nothing_fits {
                if moved {
                    let last = t.group_end[first.min(rows.saturating_sub(1))];
                    let need: f64 = t
                        .body_heights
                        .get(first..=last)
                        .map_or(0.0, |h| h.iter().sum())
                        + if header_here { head_h } else { 0.0 };
                    let what = if rows == 0 {
                        "the table header".to_string()
                    } else if last > first {
                        format!("rows[{first}] to rows[{last}] (held together by a row span)")
                    } else {
                        format!("rows[{first}]")
                    };
                    let with = if header_here && rows > 0 {
                        " with the header"
                    } else {
                        ""
                    };
                    return Err(error(
                        if rows == 0 {
                            ".header".into()
                        } else {
                            format!(".rows[{first}]")
                        },
                        format!(
                            "{what} need {need:.2} mm{with}; a sheet's body holds {room:.2} mm"
                        ),
                    ));
                }
                sheet += 1;
                y = top;
                header_here = has_header && (t.repeat_header || !header_drawn);
                moved = true;
                continue;
            }
            pieces.push(Piece {
                sheet,
                element: item.element,
                kind: PieceKind::Table {
                    table: item.table.clone(),
                    header: header_here,
                    rows: first..r,
                    top: y,
                },
            });
            header_drawn |= header_here;
            if r >= rows {
                cursor = end_y;
                break;
            }
            sheet += 1;
            y = top;
            header_here = has_header && t.repeat_header;
            moved = true;
        }
        for (block, &h) in item.blocks.iter().enumerate() {
            let mut start = cursor + item.gap;
            if start + h > bottom + 1e-6 {
                if h > room + 1e-6 {
                    return Err(error(
                        format!(".children[{}]", block + 1),
                        format!(
                            "the block is {h:.2} mm tall; a sheet's body holds only {room:.2} mm"
                        ),
                    ));
                }
                sheet += 1;
                start = top;
            }
            pieces.push(Piece {
                sheet,
                element: item.element,
                kind: PieceKind::Block { block, top: start },
            });
            cursor = start + h;
        }
    }
    Ok(Sheets {
        count: sheet + 1,
        pieces,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::table::Grid;

    fn table(header: f64, rows: &[f64], group_end: Vec<usize>, repeat: bool) -> Arc<TableLayout> {
        Arc::new(TableLayout {
            left: 0.0,
            widths: vec![10.0],
            header_heights: if header > 0.0 { vec![header] } else { vec![] },
            body_heights: rows.to_vec(),
            header_cells: vec![],
            body_cells: vec![],
            body_row_cells: vec![0..0; rows.len()],
            repeat_header: repeat,
            grid: Grid::default(),
            group_end,
            stroke_reach: 0.0,
        })
    }

    fn item(y: f64, t: Arc<TableLayout>, blocks: Vec<f64>) -> FlowItem {
        FlowItem {
            element: 0,
            y,
            table: t,
            gap: 2.0,
            blocks,
        }
    }

    const GEO: SheetGeometry = SheetGeometry {
        continuation_top: 10.0,
        bottom: 100.0,
    };

    fn tables(s: &Sheets) -> Vec<(usize, bool, Range<usize>, f64)> {
        s.pieces
            .iter()
            .filter_map(|p| match &p.kind {
                PieceKind::Table {
                    header, rows, top, ..
                } => Some((p.sheet, *header, rows.clone(), *top)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn rows_continue_under_a_repeated_header() {
        let t = table(10.0, &[20.0; 8], (0..8).collect(), true);
        let s = paginate(vec![item(50.0, t, vec![])], GEO).unwrap();
        // 50 + 10 header leaves 40 mm: 2 rows; then 90 - 10 = 80: 4 rows; then 2.
        assert_eq!(
            tables(&s),
            vec![
                (0, true, 0..2, 50.0),
                (1, true, 2..6, 10.0),
                (2, true, 6..8, 10.0)
            ]
        );
        assert_eq!(s.count, 3);
    }

    #[test]
    fn spans_move_together_and_blocks_move_whole() {
        let t = table(0.0, &[30.0, 30.0, 30.0], vec![0, 2, 2], false);
        let s = paginate(vec![item(20.0, t, vec![50.0, 30.0])], GEO).unwrap();
        assert_eq!(
            tables(&s),
            vec![(0, false, 0..1, 20.0), (1, false, 1..3, 10.0)]
        );
        let blocks: Vec<_> = s
            .pieces
            .iter()
            .filter_map(|p| match p.kind {
                PieceKind::Block { block, top } => Some((p.sheet, block, top)),
                _ => None,
            })
            .collect();
        // The table ends at 70 on sheet 1; 72 + 50 > 100 moves block 0 (gap dropped).
        assert_eq!(blocks, vec![(2, 0, 10.0), (2, 1, 62.0)]);
    }

    #[test]
    fn a_group_taller_than_a_sheet_is_an_error() {
        let t = table(10.0, &[50.0, 50.0], vec![1, 1], true);
        let e = paginate(vec![item(20.0, t, vec![])], GEO).unwrap_err();
        assert_eq!(e.path, ".rows[0]");
        assert!(e.message.contains("rows[0] to rows[1]"), "{}", e.message);
    }
}
