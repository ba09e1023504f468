//! Tables and stacks, read back from the PDF: rows across sheets, headers,
//! widths, spans, style and border priorities, fills, blocks and anchors.

use serde_json::{json, Value};

use crate::support::*;

const PT: f64 = 25.4 / 72.0;

/// Height of a one-line row: 1.2 x size plus the vertical padding.
fn row_height(size: f64, pad_y: f64) -> f64 {
    1.2 * size * PT + 2.0 * pad_y
}

fn fixed(key: &str, header: &str, width: u32) -> Value {
    json!({"key": key, "header": header, "width": {"mode": "fixed", "value": width}})
}

fn numbered_rows(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"n": format!("row{i:03}"), "v": i}))
        .collect()
}

/// Spans whose text starts with `prefix`, as (page, text, y0, y1), in page then y order.
fn spans_with(pdf: &Pdf, prefix: &str) -> Vec<(usize, String, f64, f64)> {
    let mut out = Vec::new();
    for page in 0..pdf.page_count() {
        let mut on_page: Vec<_> = pdf
            .spans(page)
            .into_iter()
            .filter(|s| s["text"].as_str().unwrap().starts_with(prefix))
            .map(|s| {
                (
                    page,
                    s["text"].as_str().unwrap().to_string(),
                    f(s, "y0"),
                    f(s, "y1"),
                )
            })
            .collect();
        on_page.sort_by(|a, b| a.2.total_cmp(&b.2));
        out.extend(on_page);
    }
    out
}

/// Straight stroked segments of a page: (x0, y0, x1, y1, colour).
fn segments(pdf: &Pdf, page: usize) -> Vec<(f64, f64, f64, f64, String)> {
    let mut out = Vec::new();
    for d in pdf.drawings(page) {
        let Some(colour) = d["stroke"].as_str() else {
            continue;
        };
        for item in d["items"].as_array().unwrap() {
            if item["kind"] == "l" {
                let p = item["points"].as_array().unwrap();
                let (a, b) = (&p[0], &p[1]);
                out.push((
                    a[0].as_f64().unwrap(),
                    a[1].as_f64().unwrap(),
                    b[0].as_f64().unwrap(),
                    b[1].as_f64().unwrap(),
                    colour.to_string(),
                ));
            }
        }
    }
    out
}

/// Filled rectangles of a page: (x0, y0, x1, y1, colour).
fn fills(pdf: &Pdf, page: usize) -> Vec<(f64, f64, f64, f64, String)> {
    let mut out = Vec::new();
    for d in pdf.drawings(page) {
        let Some(colour) = d["fill"].as_str() else {
            continue;
        };
        // Every closed sub-path is one rectangle: its corner points.
        let items = d["items"].as_array().unwrap();
        let mut points: Vec<(f64, f64)> = Vec::new();
        fn flush(
            points: &mut Vec<(f64, f64)>,
            colour: &str,
            out: &mut Vec<(f64, f64, f64, f64, String)>,
        ) {
            if points.len() >= 3 {
                let xs = points.iter().map(|p| p.0);
                let ys = points.iter().map(|p| p.1);
                out.push((
                    xs.clone().fold(f64::INFINITY, f64::min),
                    ys.clone().fold(f64::INFINITY, f64::min),
                    xs.fold(f64::NEG_INFINITY, f64::max),
                    ys.fold(f64::NEG_INFINITY, f64::max),
                    colour.to_string(),
                ));
            }
            points.clear();
        }
        for item in items {
            let p = item["points"].as_array().unwrap();
            match item["kind"].as_str().unwrap() {
                "re" => {
                    let r = &p[0];
                    out.push((
                        r[0].as_f64().unwrap(),
                        r[1].as_f64().unwrap(),
                        r[2].as_f64().unwrap(),
                        r[3].as_f64().unwrap(),
                        colour.to_string(),
                    ));
                }
                "l" => {
                    let (a, b) = (&p[0], &p[1]);
                    let start = (a[0].as_f64().unwrap(), a[1].as_f64().unwrap());
                    let end = (b[0].as_f64().unwrap(), b[1].as_f64().unwrap());
                    if points.last().is_some_and(|last| {
                        (last.0 - start.0).abs() > 1e-3 || (last.1 - start.1).abs() > 1e-3
                    }) {
                        flush(&mut points, colour, &mut out);
                    }
                    if points.is_empty() {
                        points.push(start);
                    }
                    points.push(end);
                }
                _ => {}
            }
        }
        flush(&mut points, colour, &mut out);
    }
    out
}

/// The fill colour covering the point (x, y), topmost last.
fn fill_at(pdf: &Pdf, page: usize, x: f64, y: f64) -> Option<String> {
    fills(pdf, page)
        .into_iter()
        .filter(|r| r.0 <= x && x <= r.2 && r.1 <= y && y <= r.3)
        .map(|r| r.4)
        .last()
}

#[test]
fn rows_flow_over_sheets_once_in_order_under_a_repeated_header() {
    // Header 25 mm tall, margin top 10: continuation sheets resume at 25 mm.
    let pdf = render(json!({
        "settings": {"page_margin": {"top": 10, "right": 10, "bottom": 10, "left": 10}},
        "header": {"height": 25, "elements": [{"type": "text", "x": 10, "y": 5, "content": "LETTERHEAD"}]},
        "footer": {"height": 20, "elements": [{"type": "text", "x": 10, "y": 5, "content": "sheet {page}/{total_pages}"}]},
        "pages": [{"width": 150, "height": 120, "elements": [
            {"type": "table", "x": 0, "y": 40, "columns": [fixed("n", "Number", 40), fixed("v", "Value", 30)],
             "rows": numbered_rows(60),
             "cell": {"padding": {"x": 1, "y": 0.5}, "text": {"font_size": 8}}}
        ]}]
    }));
    let rows = spans_with(&pdf, "row");
    let texts: Vec<String> = rows.iter().map(|r| r.1.clone()).collect();
    let expected: Vec<String> = (0..60).map(|i| format!("row{i:03}")).collect();
    assert_eq!(texts, expected, "every row exactly once, in order");
    let sheets = pdf.page_count();
    assert!(
        sheets >= 4,
        "60 rows of ~4.4 mm on 55 mm bodies: {sheets} sheets"
    );
    let rh = row_height(8.0, 0.5);
    for page in 0..sheets {
        assert!(
            pdf.text(page)
                .contains(&format!("sheet {}/{sheets}", page + 1)),
            "footer numbering counts continuation sheets"
        );
        let header = pdf.span(page, "Number");
        // Sheet 1 starts at the table's y (content top 10 + 40); later sheets at the header height.
        let top = if page == 0 { 50.0 } else { 25.0 };
        approx(f(header, "y0"), top + 0.5, 0.3, "header row top");
        let on_page: Vec<_> = rows.iter().filter(|r| r.0 == page).collect();
        assert!(!on_page.is_empty());
        approx(
            on_page[0].2,
            top + rh + 0.5,
            0.3,
            "first row under the header",
        );
        for r in &on_page {
            assert!(
                r.3 <= 100.0 + 0.01,
                "row {} enters the footer (bottom {})",
                r.1,
                r.3
            );
        }
        // Consecutive rows sit one row height apart.
        for pair in on_page.windows(2) {
            approx(pair[1].2 - pair[0].2, rh, 0.05, "row pitch");
        }
    }
}

#[test]
fn the_header_shows_once_without_repeat_and_not_at_all_when_hidden() {
    let table = |header: Value| {
        json!({"pages": [{"width": 100, "height": 60, "elements": [
            {"type": "table", "x": 5, "y": 5, "columns": [fixed("n", "HEAD", 40), fixed("v", "V", 20)],
             "rows": numbered_rows(30), "header": header}
        ]}]})
    };
    let once = render(table(json!({"repeat_on_page_break": false})));
    assert!(once.page_count() > 1);
    assert!(once.text(0).contains("HEAD"));
    for page in 1..once.page_count() {
        assert!(
            !once.text(page).contains("HEAD"),
            "sheet {page} repeats the header"
        );
        approx(
            spans_with(&once, "row")
                .iter()
                .find(|r| r.0 == page)
                .unwrap()
                .2,
            0.5,
            0.3,
            "rows resume at the top",
        );
    }
    let hidden = render(table(json!({"show": false})));
    for page in 0..hidden.page_count() {
        assert!(!hidden.text(page).contains("HEAD"));
    }
}

#[test]
fn column_widths_follow_fixed_percent_and_auto() {
    let pdf = render(page_with(
        200.0,
        100.0,
        json!([{"type": "table", "x": 10, "y": 10, "width": 160,
            "columns": [
                {"key": "a", "header": "A", "width": {"mode": "fixed", "value": 30}},
                {"key": "b", "header": "B", "width": {"mode": "percent", "value": 25}},
                {"key": "c", "header": "C", "width": {"mode": "auto"}},
                {"key": "d", "header": "D", "width": {"mode": "auto"}}
            ],
            "rows": [{"a": "x", "b": "y", "c": "short", "d": "a much longer cell text"}],
            "cell": {"padding": {"x": 1, "y": 0.5}},
            "grid": {"vertical": {"color": "#ff0000", "width": 0.2}, "frame": {"color": "#0000ff", "width": 0.2}}
        }]),
    ));
    let mut verticals: Vec<f64> = segments(&pdf, 0)
        .into_iter()
        .filter(|s| (s.0 - s.2).abs() < 1e-3)
        .map(|s| (s.0 * 100.0).round() / 100.0)
        .collect();
    verticals.sort_by(f64::total_cmp);
    verticals.dedup_by(|a, b| (*a - *b).abs() < 0.05);
    assert_eq!(verticals.len(), 5, "five column edges: {verticals:?}");
    approx(verticals[0], 10.0, 0.05, "left edge");
    approx(verticals[1], 40.0, 0.05, "fixed 30 mm");
    approx(verticals[2], 80.0, 0.05, "25% of 160 mm");
    approx(verticals[4], 170.0, 0.05, "the table fills its width");
    let (c, d) = (verticals[3] - verticals[2], verticals[4] - verticals[3]);
    assert!(d > 2.0 * c, "auto columns share by content: c {c}, d {d}");
    // Cell text starts at column left + padding.
    approx(
        f(pdf.span(0, "short"), "x0"),
        verticals[2] + 1.0,
        0.2,
        "auto column text",
    );
    approx(f(pdf.span(0, "y"), "x0"), 41.0, 0.2, "percent column text");
}

#[test]
fn long_text_wraps_inside_its_cell_and_grows_the_row() {
    let pdf = render(page_with(
        120.0,
        100.0,
        json!([{"type": "table", "x": 10, "y": 10,
            "columns": [fixed("t", "Text", 30), fixed("n", "N", 20)],
            "rows": [{"t": "several words that cannot fit on one line of thirty mm", "n": "1"}, {"t": "next", "n": "2"}],
            "cell": {"padding": {"x": 1, "y": 0.5}, "text": {"font_size": 10}}}]),
    ));
    let words: Vec<_> = pdf
        .spans(0)
        .into_iter()
        .filter(|s| {
            let t = s["text"].as_str().unwrap();
            t.contains("words") || t.contains("fit") || t.contains("thirty")
        })
        .collect();
    let tops: Vec<f64> = words.iter().map(|s| f(s, "y0")).collect();
    assert!(
        tops.iter().any(|&y| y > tops[0] + 3.0),
        "the text wraps: {tops:?}"
    );
    for s in pdf.spans(0) {
        if f(s, "x0") < 39.0 {
            assert!(
                f(s, "x1") <= 39.0 + 0.3,
                "{} leaves its 30 mm column",
                s["text"]
            );
        }
    }
    let lines =
        (words.iter().map(|s| f(s, "y0")).fold(0.0, f64::max) - tops[0]) / (1.2 * 10.0 * PT) + 1.0;
    let next = f(pdf.span(0, "next"), "y0");
    let first = tops[0];
    approx(
        next - first,
        lines.round() * 1.2 * 10.0 * PT + 1.0,
        0.3,
        "the next row starts under all lines",
    );
}

#[test]
fn spanning_cells_are_drawn_as_one_cell() {
    let pdf = render(page_with(
        120.0,
        80.0,
        json!([{"type": "table", "x": 10, "y": 10,
            "columns": [fixed("a", "A", 20), fixed("b", "B", 20), fixed("c", "C", 20)],
            "header": {"show": false},
            "rows": [
                {"a": {"value": "wide", "col_span": 2}, "c": {"value": "tall", "row_span": 2}},
                {"a": "1", "b": "2"},
                {"a": "3", "b": "4", "c": "5"}
            ],
            "cell": {"padding": {"x": 1, "y": 1}},
            "grid": {"frame": {"color": "#000000", "width": 0.2}, "horizontal": {"color": "#00ff00", "width": 0.2}, "vertical": {"color": "#ff0000", "width": 0.2}}}]),
    ));
    let rh = row_height(10.0, 1.0);
    let segs = segments(&pdf, 0);
    assert!(segs.iter().any(|s| s.4 == "#ff0000") && segs.iter().any(|s| s.4 == "#00ff00"));
    // No vertical line at x = 30 inside the first row (the col_span).
    for s in segs
        .iter()
        .filter(|s| (s.0 - 30.0).abs() < 0.05 && (s.0 - s.2).abs() < 1e-3)
    {
        let (y0, y1) = (s.1.min(s.3), s.1.max(s.3));
        assert!(
            y0 >= 10.0 + rh - 0.05 || y1 <= 10.0 + 0.05,
            "a line crosses the col_span: {s:?}"
        );
    }
    // No horizontal line between rows 0 and 1 in column c (the row_span).
    for s in segs
        .iter()
        .filter(|s| (s.1 - (10.0 + rh)).abs() < 0.05 && (s.1 - s.3).abs() < 1e-3)
    {
        let (x0, x1) = (s.0.min(s.2), s.0.max(s.2));
        assert!(
            x1 <= 50.0 + 0.05 || x0 >= 70.0 - 0.05,
            "a line crosses the row_span: {s:?}"
        );
    }
    // The spanning cells' text sits in their first slot; the rows are still there.
    approx(f(pdf.span(0, "tall"), "x0"), 51.0, 0.2, "row_span cell x");
    approx(
        f(pdf.span(0, "5"), "y0"),
        10.0 + 2.0 * rh + 1.0,
        0.3,
        "row after the span",
    );
}

#[test]
fn the_highest_style_level_wins() {
    let pdf = render(json!({
        "settings": {"defaults": {"text": {"color": "#111111"}}},
        "pages": [{"width": 150, "height": 80, "elements": [{"type": "table", "x": 5, "y": 5,
            "columns": [
                {"key": "a", "header": "HA", "width": {"mode": "fixed", "value": 40},
                 "cell": {"text": {"color": "#0000ff"}}, "header_cell": {"text": {"color": "#00ffff"}}},
                {"key": "b", "header": "HB", "width": {"mode": "fixed", "value": 40}},
                {"key": "r", "header": "HR", "width": {"mode": "fixed", "value": 40}}
            ],
            "rows": [{"a": {"value": "own", "style": {"text": {"color": "#ff00ff"}}}, "b": "zone", "r": "x"},
                     {"a": "column", "b": "zone2", "r": "y"}],
            "cell": {"text": {"color": "#ff0000"}},
            "header": {"cell": {"text": {"color": "#ffff00"}}},
            "body": {"cell": {"text": {"color": "#00ff00"}}}
        }]}]
    }));
    let colour = |t: &str| pdf.span(0, t)["color"].as_str().unwrap().to_string();
    assert_eq!(colour("own"), "#ff00ff", "complex cell style");
    assert_eq!(colour("column"), "#0000ff", "column cell");
    assert_eq!(colour("zone"), "#00ff00", "body zone");
    assert_eq!(colour("HA"), "#00ffff", "column header_cell");
    assert_eq!(colour("HB"), "#ffff00", "header zone");
    // Without table styles the defaults apply.
    let plain = render(json!({
        "settings": {"defaults": {"text": {"color": "#111111"}}},
        "pages": [{"width": 100, "height": 50, "elements": [{"type": "table", "x": 5, "y": 5,
            "columns": [fixed("a", "H", 40)], "rows": [{"a": "dflt"}], "cell": {"padding": {"x": 1, "y": 1}}}]}]
    }));
    assert_eq!(
        plain.span(0, "dflt")["color"],
        "#111111",
        "settings.defaults.text"
    );
}

#[test]
fn fills_follow_the_priority_chain_with_alternate_rows() {
    let pdf = render(page_with(
        150.0,
        80.0,
        json!([{"type": "table", "x": 10, "y": 10,
            "columns": [fixed("a", "A", 30), {"key": "b", "header": "B", "width": {"mode": "fixed", "value": 30}, "cell": {"fill": {"color": "#0000ff"}}}],
            "rows": [{"a": "0", "b": "0"}, {"a": "1", "b": "1"}, {"a": "2", "b": "2"}, {"a": {"value": "3", "style": {"fill": {"color": "#ff0000"}}}, "b": "3"}],
            "cell": {"padding": {"x": 1, "y": 1}},
            "header": {"cell": {"fill": {"color": "#cccccc"}}},
            "body": {"cell": {"fill": {"color": "#ffffff"}}, "alternate_fill": {"color": "#eeeeee"}}}]),
    ));
    let rh = row_height(10.0, 1.0);
    let mid = |row: usize| 10.0 + rh * (row as f64 + 0.5);
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(0)).as_deref(),
        Some("#cccccc"),
        "header zone fill"
    );
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(1)).as_deref(),
        Some("#ffffff"),
        "body row 0"
    );
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(2)).as_deref(),
        Some("#eeeeee"),
        "body row 1: alternate"
    );
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(3)).as_deref(),
        Some("#ffffff"),
        "body row 2"
    );
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(4)).as_deref(),
        Some("#ff0000"),
        "complex cell over alternate"
    );
    assert_eq!(
        fill_at(&pdf, 0, 50.0, mid(2)).as_deref(),
        Some("#0000ff"),
        "column over alternate"
    );
}

#[test]
fn the_highest_border_level_wins_and_false_removes_a_line() {
    let stroke = |c: &str| json!({"color": c, "width": 0.3});
    let pdf = render(page_with(
        150.0,
        80.0,
        json!([{"type": "table", "x": 10, "y": 10,
            "columns": [
                {"key": "a", "header": "A", "width": {"mode": "fixed", "value": 30}, "cell": {"borders": {"bottom": stroke("#0000ff")}}},
                fixed("b", "B", 30),
                {"key": "c", "header": "C", "width": {"mode": "fixed", "value": 30}, "cell": {"borders": {"bottom": false}}}
            ],
            "header": {"show": false},
            "rows": [{"a": {"value": "own", "style": {"borders": {"bottom": stroke("#ff00ff")}}}, "b": "1", "c": "1"},
                     {"a": "col", "b": "2", "c": "2"},
                     {"a": "x", "b": "3", "c": "3"}],
            "cell": {"padding": {"x": 1, "y": 1}, "borders": {"bottom": stroke("#ff0000")}},
            "body": {"cell": {"borders": {"bottom": stroke("#00ff00")}}},
            "grid": {"horizontal": stroke("#999999"), "vertical": false, "frame": false}}]),
    ));
    let rh = row_height(10.0, 1.0);
    let line_at = |x: f64, y: f64| -> Option<String> {
        segments(&pdf, 0)
            .into_iter()
            .filter(|s| (s.1 - s.3).abs() < 1e-3 && (s.1 - y).abs() < 0.05)
            .find(|s| s.0.min(s.2) <= x && x <= s.0.max(s.2))
            .map(|s| s.4)
    };
    assert_eq!(
        line_at(20.0, 10.0 + rh).as_deref(),
        Some("#ff00ff"),
        "complex cell style"
    );
    assert_eq!(
        line_at(20.0, 10.0 + 2.0 * rh).as_deref(),
        Some("#0000ff"),
        "column cell"
    );
    assert_eq!(
        line_at(50.0, 10.0 + rh).as_deref(),
        Some("#00ff00"),
        "body zone over table.cell and grid"
    );
    assert_eq!(
        line_at(80.0, 10.0 + rh),
        None,
        "`false` at column level removes the line"
    );
}

#[test]
fn values_render_as_given_and_cells_link() {
    let pdf = render(page_with(
        150.0,
        60.0,
        json!([{"type": "table", "x": 10, "y": 10,
            "columns": [fixed("a", "A", 30), fixed("b", "B", 30), fixed("c", "C", 30), fixed("d", "D", 30)],
            "rows": [{"a": 1.5, "b": true, "c": null, "d": {"value": "site", "link": {"target": {"type": "url", "url": "https://example.com/x"}}}}],
            "cell": {"padding": {"x": 1, "y": 1}}}]),
    ));
    assert!(pdf.text(0).contains("1.5"));
    assert!(pdf.text(0).contains("true"));
    let links = pdf.links(0);
    assert_eq!(links.len(), 1);
    let l = links[0];
    assert_eq!(l["uri"], "https://example.com/x");
    let rh = row_height(10.0, 1.0);
    approx(f(l, "x0"), 100.0, 0.1, "link left = cell left");
    approx(f(l, "x1"), 130.0, 0.1, "link right = cell right");
    approx(f(l, "y0"), 10.0 + rh, 0.1, "link top = row top");
    approx(f(l, "y1"), 10.0 + 2.0 * rh, 0.1, "link bottom = row bottom");
}

#[test]
fn stack_blocks_follow_the_table_move_whole_and_anchor_to_its_edges() {
    // Body 10..90 mm; 14 rows of ~4.7 mm end near 82 mm; a 20 mm block cannot follow.
    let pdf = render(
        json!({"pages": [{"width": 120, "height": 100, "margin": {"top": 10, "right": 10, "bottom": 10, "left": 10},
        "elements": [{"type": "stack", "gap": 3, "children": [
            {"type": "table", "x": 10, "y": 0, "columns": [fixed("n", "N", 40), fixed("v", "V", 30)],
             "rows": numbered_rows(14), "cell": {"padding": {"x": 1, "y": 0.5}}},
            {"type": "block", "elements": [
                {"type": "text", "x": 0, "y": 0, "content": "BLOCK-ONE"},
                {"type": "rect", "x": 0, "y": 15, "width": 5, "height": 5}
            ]},
            {"type": "block", "elements": [
                {"type": "text", "x_anchor": {"reference": "table_right", "offset": 0}, "y": 2, "content": "RIGHT", "style": {"width": 30, "text_align": "right"}},
                {"type": "text", "x_anchor": {"reference": "table_left", "offset": 0}, "y": 2, "content": "LEFT", "style": {"width": 20}}
            ]}
        ]}]}]}),
    );
    let rh = row_height(10.0, 0.5);
    let table_end = 10.0 + 15.0 * rh; // header + 14 rows
    assert!(
        table_end + 3.0 + 20.0 > 90.0,
        "the test needs the block not to fit"
    );
    assert_eq!(pdf.page_count(), 2);
    assert!(!pdf.text(0).contains("BLOCK-ONE"), "the block moved whole");
    let one = pdf.span(1, "BLOCK-ONE");
    approx(
        f(one, "y0"),
        10.0,
        0.3,
        "moved block starts at the content top (gap dropped)",
    );
    approx(f(one, "x0"), 10.0, 0.2, "block x follows body semantics");
    let two_y = 10.0 + 20.0 + 3.0 + 2.0;
    let right = pdf.span(1, "RIGHT");
    approx(
        f(right, "y0"),
        two_y,
        0.3,
        "the next block follows after the gap",
    );
    approx(f(right, "x1"), 20.0 + 70.0, 0.3, "table_right anchor");
    approx(f(pdf.span(1, "LEFT"), "x0"), 20.0, 0.2, "table_left anchor");
    // Every row once, on the first sheet.
    assert_eq!(spans_with(&pdf, "row").len(), 14);
}

#[test]
fn several_flow_elements_run_in_y_order_and_page_links_target_first_sheets() {
    let table = |y: f64, prefix: &str, n: usize| {
        json!({"type": "table", "x": 0, "y": y, "columns": [{"key": "n", "header": prefix, "width": {"mode": "fixed", "value": 40}}],
               "rows": (0..n).map(|i| json!({"n": format!("{prefix}{i:02}")})).collect::<Vec<_>>()})
    };
    let pdf = render(json!({"pages": [
        {"width": 80, "height": 60, "elements": [
            table(20.0, "second", 3),
            table(5.0, "first", 20),
            {"type": "link", "x": 50, "y": 0, "width": 10, "height": 5, "target": {"type": "page", "page": 2, "x": 0, "y": 0}}
        ]},
        {"width": 80, "height": 60, "elements": [{"type": "text", "x": 5, "y": 5, "content": "PAGE-TWO"}]}
    ]}));
    let first = spans_with(&pdf, "first");
    let second = spans_with(&pdf, "second");
    let last_first = first.last().unwrap();
    let first_second = &second[0];
    assert!(
        (first_second.0, first_second.2) > (last_first.0, last_first.2),
        "the table at y 20 starts after the one at y 5 ends"
    );
    let sheets = pdf.page_count();
    assert!(sheets >= 3);
    assert!(pdf.text(sheets - 1).contains("PAGE-TWO"));
    let link = pdf.links(0)[0];
    assert_eq!(
        link["page"].as_u64(),
        Some(sheets as u64 - 1),
        "page 2 is the last sheet"
    );
}

#[test]
fn table_layout_rules_name_their_path() {
    // A row taller than a sheet's body.
    assert_violation(
        json!({"pages": [{"width": 80, "height": 40, "elements": [{"type": "table", "x": 0, "y": 0,
            "columns": [fixed("a", "A", 40)], "rows": [{"a": "x"}], "pagination": {"row_min_height": 50}}]}]}),
        "pages[0].elements[0].rows[0]",
        "a sheet's body holds",
    );
    // Rows tied by a span that together do not fit.
    assert_violation(
        json!({"pages": [{"width": 80, "height": 40, "elements": [{"type": "table", "x": 0, "y": 0,
            "columns": [fixed("a", "A", 40)], "header": {"show": false}, "pagination": {"row_min_height": 25},
            "rows": [{"a": {"value": "x", "row_span": 2}}, {}]}]}]}),
        "pages[0].elements[0].rows[0]",
        "held together by a row span",
    );
    // A stack's table row, named through the stack.
    assert_violation(
        json!({"pages": [{"width": 80, "height": 40, "elements": [{"type": "stack", "children": [
            {"type": "table", "x": 0, "y": 0, "columns": [fixed("a", "A", 40)], "rows": [{"a": "x"}], "pagination": {"row_min_height": 50}},
            {"type": "block", "elements": []}]}]}]}),
        "pages[0].elements[0].children[0].rows[0]",
        "a sheet's body holds",
    );
    // Broken rich text in a cell.
    assert_violation(
        json!({"pages": [{"width": 80, "height": 40, "elements": [{"type": "table", "x": 0, "y": 0,
            "columns": [fixed("a", "A", 40)], "rows": [{"a": "[B]open"}]}]}]}),
        "pages[0].elements[0].rows[0].a",
        "not closed",
    );
    // More sheets than the limit.
    let rows: Vec<Value> = (0..2_001).map(|_| json!({"a": "x"})).collect();
    assert_violation(
        json!({"pages": [{"width": 80, "height": 40, "elements": [{"type": "table", "x": 0, "y": 0,
            "columns": [fixed("a", "A", 40)], "header": {"show": false}, "rows": rows,
            "pagination": {"row_min_height": 30}}]}]}),
        "pages",
        "at most 2000 are allowed",
    );
}

#[test]
fn a_link_in_a_cell_text_style_makes_those_cells_links() {
    let url = |u: &str| json!({"target": {"type": "url", "url": u}});
    let pdf = render(page_with(
        150.0,
        60.0,
        json!([{"type": "table", "x": 10, "y": 10,
            "columns": [fixed("a", "A", 30),
                        {"key": "b", "header": "B", "width": {"mode": "fixed", "value": 40}, "cell": {"text": {"link": url("https://example.com/column")}}}],
            "rows": [{"a": {"value": "own", "style": {"text": {"link": url("https://example.com/cell")}}}, "b": "1"},
                     {"a": "plain", "b": {"value": "2", "link": url("https://example.com/over")}}],
            "cell": {"padding": {"x": 1, "y": 1}}}]),
    ));
    let rh = row_height(10.0, 1.0);
    let mut links: Vec<(String, f64, f64, f64, f64)> = pdf
        .links(0)
        .iter()
        .map(|l| {
            (
                l["uri"].as_str().unwrap().to_string(),
                f(l, "x0"),
                f(l, "y0"),
                f(l, "x1"),
                f(l, "y1"),
            )
        })
        .collect();
    links.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.1.total_cmp(&b.1)));
    assert_eq!(links.len(), 3, "{links:?}");
    let expect = [
        // The cell's own style; the column's style on its body cell.
        ("https://example.com/cell", 10.0, 10.0 + rh, 40.0),
        ("https://example.com/column", 40.0, 10.0 + rh, 80.0),
        // The cell's own link wins over the column's text style.
        ("https://example.com/over", 40.0, 10.0 + 2.0 * rh, 80.0),
    ];
    for (link, (uri, x0, y0, x1)) in links.iter().zip(expect) {
        assert_eq!(link.0, uri);
        approx(link.1, x0, 0.1, "link left = cell left");
        approx(link.2, y0, 0.1, "link top = row top");
        approx(link.3, x1, 0.1, "link right = cell right");
        approx(link.4, y0 + rh, 0.1, "link bottom = row bottom");
    }
}

#[test]
fn justified_cells_stretch_wrapped_lines_to_the_right_content_edge() {
    // 40 mm less 1 mm padding each side: "one two three" fits on a line,
    // "extraordinarily" does not fit after it.
    let pdf = render(page_with(
        100.0,
        60.0,
        json!([{"type": "table", "x": 10, "y": 10, "header": {"show": false},
            "columns": [{"key": "a", "width": {"mode": "fixed", "value": 40}, "cell": {"text": {"text_align": "justify"}}}],
            "rows": [{"a": "one two three extraordinarily"}],
            "cell": {"padding": {"x": 1, "y": 1}}}]),
    ));
    let spans = pdf.spans(0);
    let first_top = spans
        .iter()
        .map(|s| f(s, "y0"))
        .fold(f64::INFINITY, f64::min);
    let first_line: Vec<_> = spans
        .iter()
        .filter(|s| (f(s, "y0") - first_top).abs() < 0.5)
        .collect();
    let text: String = first_line
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert!(text.contains("three"), "{text:?}");
    assert!(!text.contains("extra"), "{text:?}");
    let left = first_line
        .iter()
        .map(|s| f(s, "x0"))
        .fold(f64::INFINITY, f64::min);
    let right = first_line.iter().map(|s| f(s, "x1")).fold(0.0, f64::max);
    approx(
        left,
        11.0,
        0.3,
        "the first word starts at the left content edge",
    );
    approx(
        right,
        49.0,
        0.3,
        "the wrapped line's last word ends at the right content edge",
    );
    // The last line is not stretched: it keeps its natural width.
    let last = pdf.span(0, "extraordinarily");
    approx(f(last, "x0"), 11.0, 0.3, "the last line starts at the left");
    assert!(
        f(last, "x1") < 47.0,
        "the last line is not stretched: {last}"
    );
}

#[test]
fn settings_defaults_fill_is_the_lowest_layer_of_cell_fills() {
    let pdf = render(json!({
        "settings": {"defaults": {"fill": {"color": "#00ff00"}}},
        "pages": [{"width": 150, "height": 80, "elements": [{"type": "table", "x": 10, "y": 10,
            "columns": [fixed("a", "A", 30), {"key": "b", "header": "B", "width": {"mode": "fixed", "value": 30}, "cell": {"fill": {"color": "#0000ff"}}}],
            "rows": [{"a": "0", "b": "0"}, {"a": "1", "b": "1"}],
            "cell": {"padding": {"x": 1, "y": 1}},
            "header": {"cell": {"fill": {"color": "#cccccc"}}},
            "body": {"alternate_fill": {"color": "#eeeeee"}}}]}]
    }));
    let rh = row_height(10.0, 1.0);
    let mid = |row: usize| 10.0 + rh * (row as f64 + 0.5);
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(1)).as_deref(),
        Some("#00ff00"),
        "a body cell no level fills takes settings.defaults.fill"
    );
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(0)).as_deref(),
        Some("#cccccc"),
        "the header zone's fill is above the defaults"
    );
    assert_eq!(
        fill_at(&pdf, 0, 20.0, mid(2)).as_deref(),
        Some("#eeeeee"),
        "the alternate fill is above the defaults"
    );
    assert_eq!(
        fill_at(&pdf, 0, 50.0, mid(1)).as_deref(),
        Some("#0000ff"),
        "the column's fill is above the defaults"
    );
}
