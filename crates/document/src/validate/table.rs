//! Rules for tables and stacks.

use std::collections::HashMap;

use serde_json::Value;

use super::{element_bounds, Frame, Validator};
use crate::ir::{Cell, Element, Link, Slot, Stack, Table};
use crate::layout::geometry::table_width;
use crate::model::*;

impl Validator<'_> {
    /// Checks a table and reads its rows into the typed grid of the
    /// validated table (its `rows` are not kept).
    pub(crate) fn table(
        &mut self,
        path: &str,
        spec: TableElement,
        rows: Vec<Value>,
        frame: &Frame,
    ) -> Table {
        let cells = self.table_rules(path, &spec, rows, frame);
        Table { spec, cells }
    }

    fn table_rules(
        &mut self,
        path: &str,
        t: &TableElement,
        rows: Vec<Value>,
        frame: &Frame,
    ) -> Vec<Vec<Slot>> {
        self.coordinate(&format!("{path}.x"), t.x);
        self.coordinate(&format!("{path}.y"), t.y);
        if let Some(w) = t.width {
            self.positive(&format!("{path}.width"), w);
        }
        self.table_cells += rows.len().saturating_mul(t.columns.len().max(1));
        self.columns_rules(path, t);
        let cells = self.rows_rules(path, t, rows);
        self.header_rules(path, t);
        for (name, style) in [
            ("cell", t.cell.as_ref()),
            (
                "header.cell",
                t.header.as_ref().and_then(|h| h.cell.as_ref()),
            ),
            (
                "row_header.cell",
                t.row_header.as_ref().and_then(|h| h.cell.as_ref()),
            ),
            ("body.cell", t.body.as_ref().and_then(|h| h.cell.as_ref())),
        ] {
            if let Some(s) = style {
                self.cell_style_rules(&format!("{path}.{name}"), s);
            }
        }
        if let Some(f) = t.body.as_ref().and_then(|b| b.alternate_fill.as_ref()) {
            self.fill_values(&format!("{path}.body.alternate_fill"), f);
        }
        if let Some(g) = &t.grid {
            for (name, s) in [
                ("frame", &g.frame),
                ("horizontal", &g.horizontal),
                ("vertical", &g.vertical),
            ] {
                self.stroke_or_off(&format!("{path}.grid.{name}"), s.as_ref());
            }
        }
        if let Some(p) = &t.pagination {
            if let Some(h) = p.row_min_height {
                self.non_negative(&format!("{path}.pagination.row_min_height"), h);
            }
            if let Some(h) = p.header_min_height {
                self.non_negative(&format!("{path}.pagination.header_min_height"), h);
            }
        }
        if let (Some(content), Some(width)) = (frame.content, table_width(t)) {
            let left = frame.origin.0 + t.x;
            if left < content.x - 1e-6 || left + width > content.right() + 1e-6 {
                self.push(path.to_string(), format!("the table ({left:.2} to {:.2} mm) exceeds the content box ({:.2} to {:.2} mm)", left + width, content.x, content.right()));
            }
        }
        cells
    }

    fn columns_rules(&mut self, path: &str, t: &TableElement) {
        if t.columns.is_empty() {
            self.push(format!("{path}.columns"), "a table needs at least 1 column");
            return;
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut row_headers_done = false;
        let mut percent_sum = 0.0;
        let mut fixed_sum = 0.0;
        let mut has_auto = false;
        for (i, c) in t.columns.iter().enumerate() {
            let cpath = format!("{path}.columns[{i}]");
            if c.key.is_empty() {
                self.push(format!("{cpath}.key"), "must not be empty");
            }
            if let Some(first) = seen.insert(&c.key, i) {
                self.push(
                    format!("{cpath}.key"),
                    format!("`{}` is already the key of columns[{first}]", c.key),
                );
            }
            match c.role.unwrap_or(ColumnRole::Data) {
                ColumnRole::RowHeader if row_headers_done => self.push(
                    format!("{cpath}.role"),
                    "row_header columns must be contiguous and leftmost",
                ),
                ColumnRole::RowHeader => {}
                ColumnRole::Data => row_headers_done = true,
            }
            match c.width {
                ColumnWidth::Fixed { value } => {
                    self.positive(&format!("{cpath}.width.value"), value);
                    fixed_sum += value;
                }
                ColumnWidth::Percent { value } => {
                    if !(value > 0.0 && value <= 100.0) {
                        self.push(
                            format!("{cpath}.width.value"),
                            "a percent width must be greater than 0 and at most 100",
                        );
                    }
                    percent_sum += value;
                    if t.width.is_none() {
                        self.push(
                            format!("{cpath}.width.mode"),
                            "percent widths need `table.width`",
                        );
                    }
                }
                ColumnWidth::Auto => {
                    has_auto = true;
                    if t.width.is_none() {
                        self.push(
                            format!("{cpath}.width.mode"),
                            "auto widths need `table.width`",
                        );
                    }
                }
            }
            if let Some(s) = &c.cell {
                self.cell_style_rules(&format!("{cpath}.cell"), s);
            }
            if let Some(s) = &c.header_cell {
                self.cell_style_rules(&format!("{cpath}.header_cell"), s);
            }
        }
        if percent_sum > 100.0 + 1e-9 {
            self.push(
                format!("{path}.columns"),
                format!("percent widths add up to {percent_sum}; at most 100 is allowed"),
            );
        }
        if let Some(width) = t.width {
            let taken = fixed_sum + percent_sum / 100.0 * width;
            if has_auto && taken >= width - 1e-6 {
                self.push(format!("{path}.width"), format!("fixed and percent columns take {taken:.2} of {width} mm, leaving no width for the auto columns"));
            } else if !has_auto && (taken - width).abs() > 0.01 {
                self.push(format!("{path}.width"), format!("the columns add up to {taken:.2} mm but `width` is {width} mm; without auto columns they must fill it exactly"));
            }
        }
    }

    /// The rows' rules, and the rows as cells in column order (their values
    /// moved, not copied).
    fn rows_rules(&mut self, path: &str, t: &TableElement, rows: Vec<Value>) -> Vec<Vec<Slot>> {
        let nrows = rows.len();
        let mut cells: Vec<Vec<Slot>> = Vec::with_capacity(nrows);
        let index: HashMap<&str, usize> = t
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| (c.key.as_str(), i))
            .collect();
        let ncols = t.columns.len();
        // Which (row, column) a span already covers, and by which cell.
        let mut covered: HashMap<(usize, usize), String> = HashMap::new();
        let keep_together = t
            .pagination
            .as_ref()
            .and_then(|p| p.keep_spans_together)
            .unwrap_or(true);
        for (r, row) in rows.into_iter().enumerate() {
            let mut line: Vec<Slot> = vec![Slot::Empty; ncols];
            let Value::Object(row) = row else {
                self.push(
                    format!("{path}.rows[{r}]"),
                    "a row must be an object keyed by column key",
                );
                cells.push(line);
                continue;
            };
            // Columns this row gives a value, those already reported as
            // covered, and the column spans its own cells start.
            let mut given = vec![false; ncols];
            let mut reported = vec![false; ncols];
            let mut spans: Vec<(usize, usize, String)> = Vec::new();
            for (key, value) in row {
                let Some(&c) = index.get(key.as_str()) else {
                    self.push(
                        format!("{path}.rows[{r}].{key}"),
                        format!("`{key}` is not a declared column key"),
                    );
                    continue;
                };
                given[c] = true;
                // The common case, a simple value outside any span, breaks no rule.
                let simple = matches!(
                    value,
                    Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_)
                );
                if simple && (covered.is_empty() || !covered.contains_key(&(r, c))) {
                    line[c] = Slot::Cell(Cell::simple(value));
                    continue;
                }
                let cpath = format!("{path}.rows[{r}].{key}");
                if let Some(owner) = covered.get(&(r, c)) {
                    reported[c] = true;
                    self.push(
                        cpath.clone(),
                        format!("this cell is covered by the span of {owner}"),
                    );
                }
                let (row_span, col_span, cell) = match value {
                    Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
                        (1, 1, Cell::simple(value))
                    }
                    Value::Array(_) => {
                        self.push(
                            cpath,
                            "a cell is a string, number, boolean, null or a cell object",
                        );
                        continue;
                    }
                    Value::Object(_) => {
                        let Some(cell) = self.parse::<ComplexCell>(&cpath, &value) else {
                            continue;
                        };
                        if matches!(cell.value, Some(Value::Array(_) | Value::Object(_))) {
                            self.push(
                                format!("{cpath}.value"),
                                "must be a string, number, boolean or null",
                            );
                        }
                        if let Some(s) = &cell.style {
                            self.cell_style_rules(&format!("{cpath}.style"), s);
                        }
                        self.link_rules(&format!("{cpath}.link"), cell.link.as_ref());
                        let styled = cell
                            .style
                            .as_ref()
                            .and_then(|s| s.text.as_ref()?.link.as_ref());
                        if cell.link.is_some() && styled.is_some() {
                            self.push(
                                format!("{cpath}.style.text.link"),
                                "give the link either on the cell or in its style, not both",
                            );
                        }
                        let (row_span, col_span) =
                            (cell.row_span.unwrap_or(1), cell.col_span.unwrap_or(1));
                        let typed = Cell {
                            text: cell_text(cell.value.unwrap_or(Value::Null)),
                            style: cell.style.map(Box::new),
                            link: cell.link.as_ref().map(|l| Box::new(Link::resolve(l))),
                            row_span: row_span.max(1) as usize,
                            col_span: col_span.max(1) as usize,
                        };
                        (row_span, col_span, typed)
                    }
                };
                if row_span < 1 {
                    self.push(format!("{cpath}.row_span"), "must be at least 1");
                    continue;
                }
                if col_span < 1 {
                    self.push(format!("{cpath}.col_span"), "must be at least 1");
                    continue;
                }
                let (rs, cs) = (row_span as usize, col_span as usize);
                if r + rs > nrows {
                    self.push(
                        format!("{cpath}.row_span"),
                        format!("spans past the last row ({nrows} rows)"),
                    );
                    continue;
                }
                if c + cs > ncols {
                    self.push(
                        format!("{cpath}.col_span"),
                        format!("spans past the last column ({ncols} columns)"),
                    );
                    continue;
                }
                if rs > 1 && !keep_together {
                    self.push(
                        format!("{path}.pagination.keep_spans_together"),
                        "must be true when cells use row_span",
                    );
                }
                for rr in r..r + rs {
                    for cc in c..c + cs {
                        if (rr, cc) == (r, c) {
                            continue;
                        }
                        if let Some(owner) = covered.get(&(rr, cc)) {
                            self.push(
                                cpath.clone(),
                                format!("this span overlaps the span of {owner}"),
                            );
                        }
                        covered.insert((rr, cc), format!("rows[{r}].{key}"));
                    }
                }
                if cs > 1 {
                    spans.push((c, cs, key));
                }
                line[c] = Slot::Cell(cell);
            }
            // A cell of this row inside a span this row starts: keys are
            // visited in name order, so it may have come before its span.
            for (c, cs, key) in spans {
                for c2 in c + 1..c + cs {
                    if given[c2] && !reported[c2] {
                        reported[c2] = true;
                        self.push(
                            format!("{path}.rows[{r}].{}", t.columns[c2].key),
                            format!("this cell is covered by the span of rows[{r}].{key}"),
                        );
                    }
                }
            }
            cells.push(line);
        }
        // The places spans cover (a cell given there is refused above).
        for &(r, c) in covered.keys() {
            if let Some(slot) = cells.get_mut(r).and_then(|line| line.get_mut(c)) {
                *slot = Slot::Covered;
            }
        }
        cells
    }

    fn header_rules(&mut self, path: &str, t: &TableElement) {
        let Some(h) = &t.header else { return };
        let Some(rows) = &h.rows else { return };
        let ncols = t.columns.len();
        for (r, row) in rows.iter().enumerate() {
            let mut used = 0usize;
            for (c, cell) in row.cells.iter().enumerate() {
                let cpath = format!("{path}.header.rows[{r}].cells[{c}]");
                self.text_chars += cell.content.chars().count();
                let cs = cell.col_span.unwrap_or(1);
                let rs = cell.row_span.unwrap_or(1);
                if cs < 1 {
                    self.push(format!("{cpath}.col_span"), "must be at least 1");
                }
                if rs < 1 || r as i64 + rs > rows.len() as i64 {
                    self.push(
                        format!("{cpath}.row_span"),
                        "must be at least 1 and stay inside the header rows",
                    );
                }
                used += cs.max(1) as usize;
            }
            if used > ncols {
                self.push(
                    format!("{path}.header.rows[{r}]"),
                    format!("the cells span {used} columns; the table has {ncols}"),
                );
            }
        }
    }

    fn cell_style_rules(&mut self, path: &str, s: &TableCellStyle) {
        if let Some(p) = s.padding {
            self.non_negative(&format!("{path}.padding.x"), p.x);
            self.non_negative(&format!("{path}.padding.y"), p.y);
        }
        if let Some(t) = &s.text {
            self.text_style_values(&format!("{path}.text"), t);
            // Makes the cells of this style links (layout::table).
            self.link_rules(&format!("{path}.text.link"), t.link.as_ref());
        }
        if let Some(f) = &s.fill {
            self.fill_values(&format!("{path}.fill"), f);
        }
        for (name, v) in [
            ("content_offset_x", s.content_offset_x),
            ("content_offset_y", s.content_offset_y),
        ] {
            if let Some(v) = v {
                self.coordinate(&format!("{path}.{name}"), v);
            }
        }
        if let Some(b) = &s.borders {
            for (name, side) in [
                ("top", &b.top),
                ("right", &b.right),
                ("bottom", &b.bottom),
                ("left", &b.left),
            ] {
                self.stroke_or_off(&format!("{path}.borders.{name}"), side.as_ref());
            }
        }
    }

    fn stroke_or_off(&mut self, path: &str, value: Option<&StrokeOrOff>) {
        match value {
            Some(StrokeOrOff::Off(true)) => self.push(path, "must be `false` or a stroke style"),
            Some(StrokeOrOff::Stroke(s)) => {
                self.stroke_values(path, s);
                if s.compound.is_some()
                    && s.dash
                        .as_ref()
                        .is_some_and(|d| d.preset.is_some_and(|p| p != DashPreset::Solid))
                {
                    self.push(format!("{path}.compound"), "a double line cannot be dashed");
                }
            }
            _ => {}
        }
    }

    /// A stack: a table, then blocks of plain elements.
    pub(crate) fn stack(&mut self, path: &str, raw: StackElement, frame: &Frame) -> Option<Stack> {
        let gap = raw.gap.unwrap_or(0.0);
        self.non_negative(&format!("{path}.gap"), gap);
        if raw.children.len() < 2 {
            self.push(
                format!("{path}.children"),
                "a stack needs at least 2 children: a table, then blocks",
            );
            return None;
        }
        let mut children = raw.children.into_iter();
        let first = children.next()?;
        let table = if first.get("type").and_then(Value::as_str) == Some("table") {
            match self.element(&format!("{path}.children[0]"), first, frame)? {
                Element::Table(t) => *t,
                _ => return None,
            }
        } else {
            self.push(
                format!("{path}.children[0].type"),
                "the first child of a stack must be a table",
            );
            return None;
        };
        // Where the flow starts a block is known only after pagination
        // (`crate::paginate`); until then a block starts at the body's top.
        let block_frame = frame.block(&table.spec, frame.origin.1);
        let mut blocks = Vec::new();
        let mut block_heights = Vec::new();
        for (i, child) in children.enumerate() {
            let cpath = format!("{path}.children[{}]", i + 1);
            if child.get("type").and_then(Value::as_str) != Some("block") {
                self.push(
                    format!("{cpath}.type"),
                    "every child after the first must be a block",
                );
                continue;
            }
            let mut object = child;
            if let Some(m) = object.as_object_mut() {
                m.remove("type");
            }
            let Some(block) = self.parse::<RawBlock>(&cpath, &object) else {
                continue;
            };
            let mut elements = Vec::new();
            for (j, value) in block.elements.into_iter().enumerate() {
                let epath = format!("{cpath}.elements[{j}]");
                self.element_count += 1;
                if matches!(
                    value.get("type").and_then(Value::as_str),
                    Some("table" | "stack" | "block")
                ) {
                    self.push(
                        format!("{epath}.type"),
                        "a block cannot contain a table, stack or block",
                    );
                    continue;
                }
                if let Some(e) = self.element(&epath, value, &block_frame) {
                    elements.push(e);
                }
            }
            let height = block_height(&elements, &block_frame);
            if height > self.body_height + 1e-6 {
                self.push(
                    cpath,
                    format!(
                        "the block is {height:.2} mm tall; a sheet's body holds only {:.2} mm",
                        self.body_height
                    ),
                );
            }
            blocks.push(elements);
            block_heights.push(height);
        }
        Some(Stack {
            gap,
            table,
            blocks,
            block_heights,
            z_index: raw.z_index,
        })
    }
}

impl Cell {
    /// A cell given as a bare string, number, boolean or null.
    fn simple(value: Value) -> Cell {
        Cell {
            text: cell_text(value),
            style: None,
            link: None,
            row_span: 1,
            col_span: 1,
        }
    }
}

/// A cell value as text: null is empty, booleans are `true`/`false`,
/// numbers as written.
fn cell_text(value: Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s,
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

/// A block's height: the lowest bottom of its children, measured from the block start.
fn block_height(elements: &[Element], frame: &Frame) -> f64 {
    let top = frame.origin.1;
    elements
        .iter()
        .filter_map(|e| element_bounds(e, frame))
        .map(|b| b.bottom() - top)
        .fold(0.0, f64::max)
}
