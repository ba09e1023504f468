//! The display list of whole validated documents: what prints on each
//! sheet, in drawing order, and where.

use serde_json::{json, Value};

use super::ENGINE;
use crate::ir::Element;
use crate::layout::display::Source;
use crate::layout::LaidOut;

fn laid_out(request: Value) -> LaidOut {
    ENGINE
        .validate(request.to_string().as_bytes())
        .expect("a valid request")
}

fn rows(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"n": format!("row{i:03}")})).collect()
}

#[test]
fn items_are_in_drawing_order_header_footer_then_body_by_z_index() {
    let laid = laid_out(json!({
        "header": {"height": 20, "elements": [
            {"type": "text", "x": 5, "y": 5, "content": "H0", "z_index": 2},
            {"type": "rect", "x": 5, "y": 5, "width": 10, "height": 5, "z_index": 1}
        ]},
        "footer": {"height": 15, "elements": [
            {"type": "text", "x": 5, "y": 5, "content": "F0"}
        ]},
        "pages": [{"size": "a6", "elements": [
            {"type": "text", "x": 5, "y": 30, "content": "A", "z_index": 5},
            {"type": "rect", "x": 5, "y": 40, "width": 10, "height": 5},
            {"type": "text", "x": 5, "y": 50, "content": "C"}
        ]}]
    }));
    let sheets = laid.display_list();
    assert_eq!(sheets.len(), 1);
    let sources: Vec<Source> = sheets[0].items.iter().map(|i| i.source).collect();
    assert_eq!(
        sources,
        [
            Source::Header(1),
            Source::Header(0),
            Source::Footer(0),
            Source::Body { element: 1 },
            Source::Body { element: 2 },
            Source::Body { element: 0 },
        ]
    );
    // The footer's frame starts its height above the sheet's bottom.
    let footer = &sheets[0].items[2];
    assert_eq!(footer.frame.origin, (0.0, sheets[0].height - 15.0));
    assert_eq!(footer.bounds.unwrap().y, sheets[0].height - 15.0 + 5.0);
}

#[test]
fn a_continuation_sheet_shows_the_sections_and_the_rows_the_flow_put_there() {
    let laid = laid_out(json!({
        "header": {"height": 20, "elements": [{"type": "text", "x": 5, "y": 5, "content": "H"}]},
        "pages": [{"width": 100, "height": 80, "elements": [
            {"type": "text", "x": 5, "y": 22, "content": "first sheet only"},
            {"type": "table", "x": 0, "y": 30,
             "columns": [{"key": "n", "header": "N", "width": {"mode": "fixed", "value": 40}}],
             "rows": rows(40)}
        ]}]
    }));
    let sheets = laid.display_list();
    assert!(sheets.len() >= 2, "40 rows do not fit one 80 mm sheet");
    for (i, sheet) in sheets.iter().enumerate() {
        assert_eq!(sheet.number, i + 1);
        assert_eq!((sheet.page, sheet.continuation), (0, i));
        assert_eq!((sheet.width, sheet.height), (100.0, 80.0));
        assert_eq!(sheet.items[0].source, Source::Header(0));
        let tables: Vec<_> = sheet
            .items
            .iter()
            .filter(|i| i.table_rows.is_some())
            .collect();
        assert_eq!(tables.len(), 1, "sheet {i}: one piece of the table");
        assert!(matches!(tables[0].element, Element::Table(_)));
        let text = sheet
            .items
            .iter()
            .any(|i| i.source == Source::Body { element: 0 });
        assert_eq!(
            text,
            i == 0,
            "sheet {i}: a body element prints on the first sheet only"
        );
    }
}

#[test]
fn bounds_are_in_sheet_coordinates_after_margin_anchor_and_rotation() {
    let laid = laid_out(json!({
        "settings": {"page_margin": {"top": 10, "left": 20, "right": 5, "bottom": 5}},
        "pages": [{"width": 100, "height": 100, "elements": [
            {"type": "rect", "x": 10, "y": 20, "width": 30, "height": 10},
            {"type": "rect", "x": 10, "y": 20, "width": 30, "height": 10, "rotation": 90},
            {"type": "rect", "x_anchor": {"reference": "content_right", "offset": 4},
             "y": 0, "width": 30, "height": 10}
        ]}]
    }));
    let sheets = laid.display_list();
    let bounds: Vec<_> = sheets[0].items.iter().map(|i| i.bounds.unwrap()).collect();
    assert_eq!(
        (bounds[0].x, bounds[0].y, bounds[0].w, bounds[0].h),
        (30.0, 30.0, 30.0, 10.0)
    );
    // A quarter turn swaps the box's extent; its corner stays put.
    assert_eq!(
        (bounds[1].x, bounds[1].y, bounds[1].w, bounds[1].h),
        (30.0, 30.0, 10.0, 30.0)
    );
    // Anchored to the content box's right edge (95 mm), 4 mm in.
    assert_eq!(bounds[2].right(), 91.0);
}

/// Validation decides once which places of a table's body a span covers:
/// a cell starts where a value is given, a place without a value is an
/// empty cell, and the places a row or column span reaches are covered.
#[test]
fn validation_marks_the_places_spans_cover_once_for_layout() {
    use crate::ir::Slot;
    let laid = laid_out(json!({"pages": [{"width": 100, "height": 100, "elements": [
        {"type": "table", "x": 0, "y": 0, "width": 90,
         "columns": [{"key": "a", "width": {"mode": "auto"}}, {"key": "b", "width": {"mode": "auto"}}, {"key": "c", "width": {"mode": "auto"}}],
         "rows": [
            {"a": {"value": "A", "row_span": 2}, "b": {"value": "B", "col_span": 2}},
            {"b": "b1"},
            {"a": "a2"}
         ]}
    ]}]}));
    let Element::Table(table) = &laid.document.pages[0].elements[0] else {
        panic!("a table")
    };
    let kinds: Vec<Vec<&str>> = table
        .cells
        .iter()
        .map(|row| {
            row.iter()
                .map(|slot| match slot {
                    Slot::Cell(_) => "cell",
                    Slot::Empty => "empty",
                    Slot::Covered => "covered",
                })
                .collect()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ["cell", "cell", "covered"],
            ["covered", "cell", "empty"],
            ["cell", "empty", "empty"],
        ]
    );
}
