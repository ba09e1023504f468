//! Table layout: column widths, each cell's style, lines and box, and row
//! heights, all decided before Typst runs so that labelpress paginates
//! (Typst's own table costs ~0.5 ms and ~90 KB per row; placing measured
//! cells costs a fraction of that).
//!
//! Priorities (spec, "Priorities"), lowest first:
//! - style: `settings.defaults`, `table.cell`, the zone's `cell`
//!   (`header`/`row_header`/`body`), then `body.alternate_fill` on every
//!   second body row (fill only, data columns only), `columns[].cell` /
//!   `header_cell`, the complex cell's `style`;
//! - borders: `grid`, then the same layers side by side. Where two cells
//!   share an edge, the side set at the higher level wins; on a tie the
//!   lower or right-hand cell wins.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::fallback::no_glyph_message;
use super::measure::break_lines;
use super::measure::FontCatalog;
use super::text::{fit_text, Measurer};
use crate::config::StyleDefaults;
use crate::ir::{Link, Settings, Slot, Table};
use crate::model::*;
use crate::rich_text::FittedText;
use crate::rich_text::{parse_rich_text, Run};
use crate::style::*;

/// A side of a cell: the level that set it (0 = the grid) and its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub level: u8,
    /// `None`: no line (`false`).
    pub stroke: Option<ResolvedStroke>,
}

/// The resolved grid: which line the table draws where no cell says otherwise.
#[derive(Debug, Clone, Default)]
pub struct Grid {
    pub frame: Option<ResolvedStroke>,
    pub horizontal: Option<ResolvedStroke>,
    pub vertical: Option<ResolvedStroke>,
}

/// How a cell looks, decided by its style layers: shared (one `Arc`) by
/// every cell whose layers are the same, so a long table holds each look
/// once, not once per cell.
#[derive(Debug, Clone)]
pub struct CellLook {
    /// The text style before shrink-to-fit: the printed size is the cell's
    /// `fitted.size`.
    pub text: ResolvedText,
    pub padding: CellPadding,
    pub offset: (f64, f64),
    pub fill: Option<ResolvedFill>,
    /// top, right, bottom, left.
    pub sides: [Side; 4],
    /// The highest style level's `text.link`: makes the cell a link.
    pub link: Option<Link>,
}

impl CellLook {
    /// Lines are cut at the cell's content box (`text_overflow: clip`).
    pub fn clip(&self) -> bool {
        self.text.overflow == TextOverflow::Clip
    }
}

/// One cell (header or body) with everything needed to draw it.
#[derive(Debug, Clone)]
pub struct CellBox {
    /// Row within its zone (header rows or body rows).
    pub row: usize,
    pub col: usize,
    pub row_span: usize,
    pub col_span: usize,
    pub look: Arc<CellLook>,
    /// The cell's text broken into lines for its width.
    pub fitted: FittedText,
    /// The cell's own `link`, which wins over its look's (validation
    /// refuses both on one cell object).
    pub own_link: Option<Box<Link>>,
}

impl CellBox {
    /// The link the whole cell is: its own, else its style's.
    pub fn link(&self) -> Option<&Link> {
        self.own_link.as_deref().or(self.look.link.as_ref())
    }
}

/// A laid-out table, ready to paginate and draw.
#[derive(Debug, Clone)]
pub struct TableLayout {
    /// Left edge in page mm.
    pub left: f64,
    pub widths: Vec<f64>,
    /// Heights of the header rows (none when the header is hidden).
    pub header_heights: Vec<f64>,
    pub body_heights: Vec<f64>,
    pub header_cells: Vec<CellBox>,
    pub body_cells: Vec<CellBox>,
    /// Indices into `body_cells` of the cells starting in each body row.
    pub body_row_cells: Vec<std::ops::Range<usize>>,
    pub repeat_header: bool,
    pub grid: Grid,
    /// For each body row, the last row that must stay on its sheet (spans).
    pub group_end: Vec<usize>,
    /// How far the widest stroke reaches beyond an edge it is drawn on (mm).
    pub stroke_reach: f64,
}

impl TableLayout {
    pub fn width(&self) -> f64 {
        self.widths.iter().sum()
    }

    pub fn header_height(&self) -> f64 {
        self.header_heights.iter().sum()
    }

    /// Left edge of column `col` in page mm.
    pub fn column_x(&self, col: usize) -> f64 {
        self.left + self.widths[..col].iter().sum::<f64>()
    }
}

/// A rule a table breaks that only layout can see; `path` is relative to the table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableError {
    pub path: String,
    pub message: String,
}

/// What table layout reads besides the table.
pub struct TableEnv<'a> {
    pub fonts: &'a dyn FontCatalog,
    pub sys: &'a StyleDefaults,
    pub settings: &'a Settings,
}

/// A cell before its lines are broken (the widths are not known yet).
struct Pending<'t> {
    /// Which field of the request the text is.
    source: Source,
    row: usize,
    col: usize,
    row_span: usize,
    col_span: usize,
    text: &'t str,
    /// Table, zone and column styles with their priority level: one list
    /// per column for its body cells, not one per cell.
    shared: Rc<[(u8, &'t TableCellStyle)]>,
    /// The complex cell's own `style` (level 4).
    own: Option<&'t TableCellStyle>,
    alternate: Option<&'t FillStyle>,
    link: Option<&'t Link>,
}

/// Where a cell's text is in the table element.
#[derive(Clone, Copy)]
enum Source {
    /// `header.rows[row].cells[index].content`
    GroupedHeader { index: usize },
    /// `columns[col].header`
    ColumnHeader,
    /// `rows[row].<key>`
    Body,
}

impl Pending<'_> {
    /// The text's path below the table element.
    fn path(&self, t: &TableElement) -> String {
        match self.source {
            Source::GroupedHeader { index } => {
                format!(".header.rows[{}].cells[{index}].content", self.row)
            }
            Source::ColumnHeader => format!(".columns[{}].header", self.col),
            Source::Body => format!(".rows[{}].{}", self.row, t.columns[self.col].key),
        }
    }

    fn layers(&self) -> Vec<(u8, &TableCellStyle)> {
        let mut layers = self.shared.to_vec();
        if let Some(own) = self.own {
            layers.push((4, own));
        }
        layers
    }
}

/// Lays a (validated) table out; `left` is its page x in mm.
pub fn lay_out(table: &Table, left: f64, env: &TableEnv) -> Result<TableLayout, Vec<TableError>> {
    let t = &table.spec;
    let rows = table.cells.len();
    let mut errors = Vec::new();
    let show_header = t.header.as_ref().and_then(|h| h.show).unwrap_or(true);
    let header_cell = t.header.as_ref().and_then(|h| h.cell.as_ref());

    // Header cells: grouped rows, then the leaf row of column headers.
    let mut header = Vec::new();
    let mut header_rows = 0;
    if show_header {
        let ncols = t.columns.len();
        let grouped: &[TableHeaderRow] = t
            .header
            .as_ref()
            .and_then(|h| h.rows.as_deref())
            .unwrap_or_default();
        let mut taken: HashMap<(usize, usize), ()> = HashMap::new();
        for (r, row) in grouped.iter().enumerate() {
            let mut col = 0;
            for (i, cell) in row.cells.iter().enumerate() {
                while taken.contains_key(&(r, col)) {
                    col += 1;
                }
                let cs = cell.col_span.unwrap_or(1).max(1) as usize;
                let rs = cell.row_span.unwrap_or(1).max(1) as usize;
                if col + cs > ncols {
                    errors.push(TableError {
                        path: format!(".header.rows[{r}].cells[{i}]"),
                        message: format!("does not fit: the cells before it and the spans from above fill the {ncols} columns"),
                    });
                    break;
                }
                for rr in r..r + rs {
                    for cc in col..col + cs {
                        taken.insert((rr, cc), ());
                    }
                }
                header.push(Pending {
                    source: Source::GroupedHeader { index: i },
                    row: r,
                    col,
                    row_span: rs,
                    col_span: cs,
                    text: &cell.content,
                    shared: layers(&[(1, t.cell.as_ref()), (2, header_cell)]).into(),
                    own: None,
                    alternate: None,
                    link: None,
                });
                col += cs;
            }
        }
        header_rows = grouped.len();
        if t.columns.iter().any(|c| c.header.is_some()) || grouped.is_empty() {
            for (c, column) in t.columns.iter().enumerate() {
                header.push(Pending {
                    source: Source::ColumnHeader,
                    row: header_rows,
                    col: c,
                    row_span: 1,
                    col_span: 1,
                    text: column.header.as_deref().unwrap_or_default(),
                    shared: layers(&[
                        (1, t.cell.as_ref()),
                        (2, header_cell),
                        (3, column.header_cell.as_ref()),
                    ])
                    .into(),
                    own: None,
                    alternate: None,
                    link: None,
                });
            }
            header_rows += 1;
        }
    }

    // Body cells, row by row in column order; places a span covers
    // (validation marked them) are skipped.
    let body_zone = t.body.as_ref().and_then(|b| b.cell.as_ref());
    let row_header_zone = t.row_header.as_ref().and_then(|b| b.cell.as_ref());
    let alternate = t.body.as_ref().and_then(|b| b.alternate_fill.as_ref());
    let column_layers: Vec<Rc<[(u8, &TableCellStyle)]>> = t
        .columns
        .iter()
        .map(|column| {
            let zone_style = if column.role == Some(ColumnRole::RowHeader) {
                row_header_zone
            } else {
                body_zone
            };
            layers(&[
                (1, t.cell.as_ref()),
                (2, zone_style),
                (3, column.cell.as_ref()),
            ])
            .into()
        })
        .collect();
    let mut body = Vec::with_capacity(rows * t.columns.len());
    for (r, row) in table.cells.iter().enumerate() {
        for (c, column) in t.columns.iter().enumerate() {
            let (text, style, link, rs, cs) = match &row[c] {
                Slot::Covered => continue,
                Slot::Cell(cell) => (
                    cell.text.as_str(),
                    cell.style.as_deref(),
                    cell.link.as_deref(),
                    cell.row_span,
                    cell.col_span,
                ),
                Slot::Empty => ("", None, None, 1, 1),
            };
            let row_header = column.role == Some(ColumnRole::RowHeader);
            body.push(Pending {
                source: Source::Body,
                row: r,
                col: c,
                row_span: rs,
                col_span: cs,
                text,
                shared: column_layers[c].clone(),
                own: style,
                alternate: if !row_header && r % 2 == 1 {
                    alternate
                } else {
                    None
                },
                link,
            });
        }
    }

    // Styles once per distinct set of layers; rich text per cell (broken
    // tags are errors, and widths are measured from the runs).
    let mut cache: HashMap<(Vec<usize>, bool), Arc<CellLook>> = HashMap::new();
    let mut style_of = |p: &Pending| -> Arc<CellLook> {
        if p.own.is_some() {
            return Arc::new(resolve_cell_style(&p.layers(), p.alternate, env));
        }
        let key = (
            p.shared
                .iter()
                .map(|(_, s)| *s as *const TableCellStyle as usize)
                .collect(),
            p.alternate.is_some(),
        );
        cache
            .entry(key)
            .or_insert_with(|| Arc::new(resolve_cell_style(&p.shared, p.alternate, env)))
            .clone()
    };
    let mut runs_of = |p: &Pending| match parse_rich_text(p.text) {
        Ok(runs) => Some(runs),
        Err(message) => {
            errors.push(TableError {
                path: p.path(t),
                message,
            });
            None
        }
    };
    let header_runs: Vec<_> = header.iter().map(|p| (style_of(p), runs_of(p))).collect();
    let body_runs: Vec<_> = body.iter().map(|p| (style_of(p), runs_of(p))).collect();
    let measurer = Measurer::new(env.fonts);
    let cells = header
        .iter()
        .zip(&header_runs)
        .chain(body.iter().zip(&body_runs));
    for (p, (style, runs)) in cells {
        if let Some((_, c)) = runs
            .as_deref()
            .and_then(|r| measurer.missing(r, &style.text))
        {
            errors.push(TableError {
                path: p.path(t),
                message: no_glyph_message(p.text, c, &style.text.family),
            });
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    let widths = column_widths(t, &header, &header_runs, &body, &body_runs, &measurer);

    let build = |p: &Pending, (style, runs): &(Arc<CellLook>, Option<Vec<Run>>)| {
        let width: f64 = widths[p.col..p.col + p.col_span].iter().sum();
        cell_box(
            p,
            style,
            runs.as_deref().unwrap_or_default(),
            width,
            &measurer,
        )
    };
    let header_cells: Vec<CellBox> = header
        .iter()
        .zip(&header_runs)
        .map(|(p, r)| build(p, r))
        .collect();
    let body_cells: Vec<CellBox> = body
        .iter()
        .zip(&body_runs)
        .map(|(p, r)| build(p, r))
        .collect();

    let pagination = t.pagination.clone().unwrap_or_default();
    let header_heights = row_heights(
        header_rows,
        &header_cells,
        pagination.header_min_height.unwrap_or(0.0),
    );
    let body_heights = row_heights(rows, &body_cells, pagination.row_min_height.unwrap_or(0.0));
    let mut body_row_cells = vec![0..0; rows];
    let mut start = 0;
    for (r, range) in body_row_cells.iter_mut().enumerate() {
        let end = start
            + body_cells[start..]
                .iter()
                .take_while(|c| c.row == r)
                .count();
        *range = start..end;
        start = end;
    }
    let group_end = span_groups(&body_cells, &body_row_cells);

    let grid = t.grid.clone().unwrap_or_default();
    let stroke = |s: &Option<StrokeOrOff>| resolve_side(s.as_ref(), env);
    let grid = Grid {
        frame: stroke(&grid.frame),
        horizontal: stroke(&grid.horizontal),
        vertical: stroke(&grid.vertical),
    };
    let reach =
        |s: &ResolvedStroke| s.width / 2.0 + s.double_gap.map_or(0.0, |g| g / 2.0 + s.width);
    let stroke_reach = [&grid.frame, &grid.horizontal, &grid.vertical]
        .into_iter()
        .chain(
            header_cells
                .iter()
                .chain(&body_cells)
                .flat_map(|c| c.look.sides.iter().map(|s| &s.stroke)),
        )
        .flatten()
        .map(reach)
        .fold(0.0, f64::max);
    Ok(TableLayout {
        left,
        widths,
        header_heights,
        body_heights,
        header_cells,
        body_cells,
        body_row_cells,
        repeat_header: t
            .header
            .as_ref()
            .and_then(|h| h.repeat_on_page_break)
            .unwrap_or(true),
        grid,
        group_end,
        stroke_reach,
    })
}

/// Style layers that are present, with their priority level.
fn layers<'t>(list: &[(u8, Option<&'t TableCellStyle>)]) -> Vec<(u8, &'t TableCellStyle)> {
    list.iter()
        .filter_map(|(level, s)| s.map(|s| (*level, s)))
        .collect()
}

fn resolve_side(side: Option<&StrokeOrOff>, env: &TableEnv) -> Option<ResolvedStroke> {
    match side {
        Some(StrokeOrOff::Stroke(s)) => {
            let defaults = env
                .settings
                .defaults
                .as_ref()
                .and_then(|d| d.stroke.as_ref());
            Some(resolve_stroke(
                merge_stroke(Some(s), defaults).as_ref(),
                env.sys.line_stroke_width,
                env.sys,
            ))
        }
        _ => None,
    }
}

/// Column widths (docs/document-request.md, "Tables and stacks"): fixed, then percent of
/// `table.width`, then auto columns share the rest in proportion to their
/// content's natural (unwrapped) width.
fn column_widths(
    t: &TableElement,
    header: &[Pending],
    header_runs: &[StyledRuns],
    body: &[Pending],
    body_runs: &[StyledRuns],
    measurer: &Measurer,
) -> Vec<f64> {
    let mut widths: Vec<f64> = t
        .columns
        .iter()
        .map(|c| match (c.width, t.width) {
            (ColumnWidth::Fixed { value }, _) => value,
            (ColumnWidth::Percent { value }, Some(w)) => value / 100.0 * w,
            _ => 0.0,
        })
        .collect();
    let autos: Vec<usize> = (0..t.columns.len())
        .filter(|&i| t.columns[i].width == ColumnWidth::Auto)
        .collect();
    let Some(total) = t.width else { return widths };
    if autos.is_empty() {
        return widths;
    }
    let mut natural = vec![0.0f64; t.columns.len()];
    for (p, (style, runs)) in header
        .iter()
        .zip(header_runs)
        .chain(body.iter().zip(body_runs))
    {
        if p.col_span != 1 || t.columns[p.col].width != ColumnWidth::Auto {
            continue;
        }
        let Some(runs) = runs else { continue };
        let measure = measurer.for_style(&style.text, style.text.size);
        let lines = break_lines(runs, None, &measure);
        let text = lines.iter().map(|l| l.width).fold(0.0, f64::max);
        natural[p.col] = natural[p.col].max(text + 2.0 * style.padding.x + style.offset.0.max(0.0));
    }
    let rest = (total - widths.iter().sum::<f64>()).max(0.0);
    let sum: f64 = autos.iter().map(|&i| natural[i]).sum();
    for &i in &autos {
        widths[i] = if sum > 1e-9 {
            rest * natural[i] / sum
        } else {
            rest / autos.len() as f64
        };
    }
    widths
}

/// A cell's resolved style and its parsed text (`None` when the tags are broken).
type StyledRuns = (Arc<CellLook>, Option<Vec<Run>>);

/// Resolves style layers (lowest first) into a cell style: text over
/// `settings.defaults.text`, the last padding and offsets given, fills merged
/// over `settings.defaults.fill` with the alternate fill between zone and
/// column, each side from the highest layer that sets it.
fn resolve_cell_style(
    layers: &[(u8, &TableCellStyle)],
    alternate: Option<&FillStyle>,
    env: &TableEnv,
) -> CellLook {
    let defaults_text = env.settings.defaults.as_ref().and_then(|d| d.text.as_ref());
    let mut text_layers: Vec<Option<&TextStyle>> = vec![defaults_text];
    text_layers.extend(layers.iter().map(|(_, s)| s.text.as_ref()));
    let merged_text = merge_text(&text_layers);
    let text = resolve_text(&merged_text, env.sys);
    let padding = layers
        .iter()
        .rev()
        .find_map(|(_, s)| s.padding)
        .unwrap_or(CellPadding {
            x: env.sys.cell_padding_x,
            y: env.sys.cell_padding_y,
        });
    let offset = (
        layers
            .iter()
            .rev()
            .find_map(|(_, s)| s.content_offset_x)
            .unwrap_or(0.0),
        layers
            .iter()
            .rev()
            .find_map(|(_, s)| s.content_offset_y)
            .unwrap_or(0.0),
    );
    // `settings.defaults.fill` is the lowest layer, as `settings.defaults`
    // is of every other cell style field (spec, "Priorities").
    let mut fill: Option<FillStyle> = env.settings.defaults.as_ref().and_then(|d| d.fill.clone());
    let mut alternate = alternate;
    for (level, s) in layers {
        if *level >= 3 {
            if let Some(a) = alternate.take() {
                fill = merge_fill(Some(a), fill.as_ref());
            }
        }
        if let Some(f) = &s.fill {
            fill = merge_fill(Some(f), fill.as_ref());
        }
    }
    if let Some(a) = alternate {
        fill = merge_fill(Some(a), fill.as_ref());
    }
    let side = |pick: fn(&CellBorders) -> &Option<StrokeOrOff>| {
        layers
            .iter()
            .rev()
            .find_map(|(level, s)| {
                let value = pick(s.borders.as_ref()?).as_ref()?;
                Some(Side {
                    level: *level,
                    stroke: resolve_side(Some(value), env),
                })
            })
            .unwrap_or(Side {
                level: 0,
                stroke: None,
            })
    };
    CellLook {
        text,
        link: merged_text.link.as_ref().map(Link::resolve),
        padding,
        offset,
        fill: resolve_fill(fill.as_ref()),
        sides: [
            side(|b| &b.top),
            side(|b| &b.right),
            side(|b| &b.bottom),
            side(|b| &b.left),
        ],
    }
}

/// Breaks a cell's text into lines for its width and measures them.
fn cell_box(
    p: &Pending,
    look: &Arc<CellLook>,
    runs: &[Run],
    width: f64,
    measurer: &Measurer,
) -> CellBox {
    let inner = (width - 2.0 * look.padding.x).max(0.0);
    CellBox {
        row: p.row,
        col: p.col,
        row_span: p.row_span,
        col_span: p.col_span,
        fitted: fit_text(runs, &look.text, Some(inner), None, measurer),
        look: look.clone(),
        own_link: p.link.cloned().map(Box::new),
    }
}
/// Row heights: the tallest single-row cell (text, padding and a downward
/// offset), at least `min`; a spanning cell taller than its rows grows its last row.
fn row_heights(rows: usize, cells: &[CellBox], min: f64) -> Vec<f64> {
    let need = |c: &CellBox| c.fitted.height() + 2.0 * c.look.padding.y + c.look.offset.1.max(0.0);
    let mut heights = vec![min; rows];
    for c in cells.iter().filter(|c| c.row_span == 1) {
        heights[c.row] = heights[c.row].max(need(c));
    }
    for c in cells.iter().filter(|c| c.row_span > 1) {
        let last = (c.row + c.row_span - 1).min(rows - 1);
        let have: f64 = heights[c.row..=last].iter().sum();
        if need(c) > have {
            heights[last] += need(c) - have;
        }
    }
    heights
}

/// For each body row, the last row of its group: rows a row span ties
/// together (transitively) move to a new sheet as one.
fn span_groups(cells: &[CellBox], row_cells: &[std::ops::Range<usize>]) -> Vec<usize> {
    let rows = row_cells.len();
    let mut ends = vec![0; rows];
    let mut start = 0;
    while start < rows {
        let mut reach = start;
        let mut r = start;
        while r <= reach {
            for c in &cells[row_cells[r].clone()] {
                reach = reach.max((r + c.row_span - 1).min(rows - 1));
            }
            r += 1;
        }
        for end in &mut ends[start..=reach] {
            *end = reach;
        }
        start = reach + 1;
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RuntimeConfig;
    use crate::ir::Cell;
    use crate::layout::measure::HalfEm;
    use crate::layout::PT_MM;
    use serde_json::json;

    /// A table of `columns` (JSON) whose body rows are these texts, one per column.
    fn table(columns: serde_json::Value, width: Option<f64>, rows: &[&[&str]]) -> Table {
        let spec: TableElement = serde_json::from_value(json!({
            "x": 0, "y": 0, "width": width, "columns": columns, "header": {"show": false}
        }))
        .unwrap();
        let cells = rows
            .iter()
            .map(|row| {
                row.iter()
                    .map(|text| {
                        Slot::Cell(Cell {
                            text: text.to_string(),
                            style: None,
                            link: None,
                            row_span: 1,
                            col_span: 1,
                        })
                    })
                    .collect()
            })
            .collect();
        Table { spec, cells }
    }

    fn lay(t: &Table) -> TableLayout {
        let config = RuntimeConfig::default();
        let settings = Settings::default();
        let env = TableEnv {
            fonts: &HalfEm,
            sys: &config.defaults,
            settings: &settings,
        };
        lay_out(t, 0.0, &env).unwrap()
    }

    /// One line of 10 pt text at line height 1.2, in mm.
    const LINE: f64 = 1.2 * 10.0 * PT_MM;
    /// One character at 10 pt, in mm.
    const CHAR: f64 = 0.5 * 10.0 * PT_MM;

    #[test]
    fn a_cell_whose_words_wrap_makes_its_row_taller_by_whole_lines() {
        // 10 mm less 1 mm padding each side: four 1.76 mm characters fit, nine do not.
        let columns = json!([{"key": "a", "width": {"mode": "fixed", "value": 10}}]);
        let laid = lay(&table(
            columns,
            None,
            &[&["a"], &["aaaa bbbb"], &["aaaa bbbb cccc"]],
        ));
        let [one, two, three] = laid.body_heights[..] else {
            panic!("{:?}", laid.body_heights)
        };
        assert!(
            (one - (LINE + 1.0)).abs() < 1e-9,
            "one line and 2 x 0.5 mm padding: {one}"
        );
        assert!((two - one - LINE).abs() < 1e-9, "two lines: {two}");
        assert!(
            (three - one - 2.0 * LINE).abs() < 1e-9,
            "three lines: {three}"
        );
    }

    #[test]
    fn auto_columns_share_the_rest_in_proportion_to_their_text() {
        let columns = json!([
            {"key": "a", "width": {"mode": "fixed", "value": 20}},
            {"key": "b", "width": {"mode": "auto"}},
            {"key": "c", "width": {"mode": "auto"}}
        ]);
        let laid = lay(&table(columns, Some(100.0), &[&["x", "bb", "cccccc"]]));
        assert_eq!(laid.widths[0], 20.0);
        let natural = |chars: f64| chars * CHAR + 2.0;
        let expected_b = 80.0 * natural(2.0) / (natural(2.0) + natural(6.0));
        assert!(
            (laid.widths[1] - expected_b).abs() < 1e-9,
            "{:?}",
            laid.widths
        );
        assert!((laid.widths[1] + laid.widths[2] - 80.0).abs() < 1e-9);
    }

    #[test]
    fn shrink_to_fit_keeps_a_cell_on_one_line_at_a_smaller_size() {
        let columns = json!([{"key": "a", "width": {"mode": "fixed", "value": 10},
            "cell": {"text": {"shrink_to_fit": true, "min_font_size": 2}}}]);
        let laid = lay(&table(columns, None, &[&["aaaa bbbb"]]));
        let fitted = &laid.body_cells[0].fitted;
        assert_eq!(fitted.lines.len(), 1);
        assert!(fitted.size < 10.0);
        assert!(fitted.lines[0].width <= 8.0 + 1e-9);
    }
}
