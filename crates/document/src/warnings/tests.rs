//! Unit tests of the pieces; tests/suite/warnings.rs checks each code, and
//! what a whole document has or has not, on documents the engine validates
//! (the engine is above this module).

use super::sheet::{placement, Placement};
use super::*;
use crate::ir::Rect;

fn rect(x: f64, y: f64, w: f64, h: f64) -> Rect {
    Rect { x, y, w, h }
}

#[test]
fn a_box_is_inside_outside_or_cut() {
    assert_eq!(
        placement(&rect(0.0, 0.0, 10.0, 10.0), 10.0, 10.0),
        Placement::Inside
    );
    assert_eq!(
        placement(&rect(10.0, 0.0, 5.0, 5.0), 10.0, 10.0),
        Placement::Outside
    );
    assert_eq!(
        placement(&rect(-5.0, 2.0, 5.0, 5.0), 10.0, 10.0),
        Placement::Outside
    );
    assert_eq!(
        placement(&rect(8.0, -1.0, 5.0, 5.0), 10.0, 10.0),
        Placement::Cut([0.0, 1.0, 3.0, 0.0])
    );
    // A line along an edge is on the sheet; one beyond it is not.
    assert_eq!(
        placement(&rect(0.0, 0.0, 10.0, 0.0), 10.0, 10.0),
        Placement::Inside
    );
    assert_eq!(
        placement(&rect(0.0, 10.5, 10.0, 0.0), 10.0, 10.0),
        Placement::Outside
    );
}

#[test]
fn codes_serialise_as_their_names() {
    for code in Code::ALL {
        assert_eq!(
            serde_json::to_value(code).unwrap(),
            serde_json::Value::from(code.as_str())
        );
    }
    let names: std::collections::BTreeSet<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(names.len(), Code::ALL.len());
}

#[test]
fn lengths_in_messages_have_at_most_two_decimals() {
    assert_eq!(mm(105.0), "105");
    assert_eq!(mm(2.5), "2.5");
    assert_eq!(mm(1.23456), "1.23");
    assert_eq!(mm(-0.001), "0");
}
