//! Filling templates: what each placeholder becomes, and every way a
//! template and its data can disagree, with the path it is reported at.

use serde_json::{json, Value};

use super::*;

fn filled(template: Value, data: Value) -> Value {
    fill(template, &data, &Limits::default()).unwrap()
}

fn refusals(template: Value, data: Value) -> Vec<Violation> {
    refusals_within(template, data, &Limits::default())
}

fn refusals_within(template: Value, data: Value, limits: &Limits) -> Vec<Violation> {
    match fill(template, &data, limits) {
        Err(RequestError::Invalid(violations)) => violations,
        other => panic!("expected violations, got {other:?}"),
    }
}

#[test]
fn placeholders_take_the_text_of_the_values_their_paths_name() {
    let out = filled(
        json!({"a": "To {{ order.recipient.name }}, {{order.city}}", "b": ["{{items[1].sku}}"],
               "c": "{{qty}} x {{price}} {{paid}}"}),
        json!({"order": {"recipient": {"name": "Ada"}, "city": "Bonn"},
               "items": [{"sku": "A"}, {"sku": "B-2"}], "qty": 3, "price": 12.5, "paid": false}),
    );
    assert_eq!(out["a"], "To Ada, Bonn");
    assert_eq!(out["b"][0], "B-2");
    assert_eq!(out["c"], "3 x 12.5 false");
}

#[test]
fn numbers_booleans_and_strings_without_placeholders_stay_as_they_are() {
    let template =
        json!({"x": 12.5, "on": true, "text": "plain {page} of {total_pages}", "none": null});
    assert_eq!(filled(template.clone(), json!({})), template);
}

#[test]
fn an_escaped_brace_pair_is_a_literal_and_filled_values_are_never_read_again() {
    let out = filled(
        json!({"t": "\\{{not}} {{v}}"}),
        json!({"v": "{{secret}} #set \\ ]"}),
    );
    assert_eq!(out["t"], "{{not}} {{secret}} #set \\ ]");
}

#[test]
fn a_missing_value_is_refused_at_the_path_of_the_string_naming_the_key() {
    let found = refusals(
        json!({"pages": [{"elements": [{"type": "text", "content": "Hi {{recipient.name}}"}]}]}),
        json!({"recipient": {"city": "Bonn"}}),
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, "template.pages[0].elements[0].content");
    assert!(
        found[0].message.contains("{{recipient.name}}"),
        "{}",
        found[0].message
    );
    assert!(
        found[0].message.contains("no key `name`"),
        "{}",
        found[0].message
    );
}

#[test]
fn objects_arrays_and_null_are_not_text() {
    for (value, kind) in [
        (json!({"a": 1}), "an object"),
        (json!([1]), "an array"),
        (Value::Null, "null"),
    ] {
        let found = refusals(json!({"t": "{{v}}"}), json!({ "v": value }));
        assert_eq!(found[0].path, "template.t");
        assert!(found[0].message.contains(kind), "{}", found[0].message);
    }
}

#[test]
fn malformed_and_unclosed_placeholders_are_refused_with_the_escape_named() {
    for text in [
        "{{}}", "{{a b}}", "{{a..b}}", "{{a[x]}}", "{{a[1}}", "open {{a",
    ] {
        let found = refusals(json!({ "t": text }), json!({"a": "x"}));
        assert_eq!(found.len(), 1, "{text}");
        assert!(
            found[0].message.contains("\\{{"),
            "{text}: {}",
            found[0].message
        );
    }
}

#[test]
fn rows_from_fills_the_row_once_per_item_looking_in_the_item_then_the_data() {
    let table = json!({"type": "table", "columns": [{"key": "sku"}],
        "rows_from": "order.lines", "row": {"sku": "{{sku}}", "price": "{{price}} {{currency}}"}});
    let out = filled(
        json!({ "t": table }),
        json!({"currency": "EUR", "order": {"lines": [{"sku": "A", "price": 1}, {"sku": "B", "price": 2.5}]}}),
    );
    assert_eq!(
        out["t"]["rows"],
        json!([{"sku": "A", "price": "1 EUR"}, {"sku": "B", "price": "2.5 EUR"}])
    );
    assert!(out["t"].get("rows_from").is_none() && out["t"].get("row").is_none());
}

#[test]
fn a_row_missing_a_value_is_reported_once_at_the_row_template_naming_the_item() {
    let found = refusals(
        json!({"t": {"rows_from": "items", "row": {"sku": "{{sku}}"}}}),
        json!({"items": [{"sku": "A"}, {"name": "b"}, {"name": "c"}]}),
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].path, "template.t.row.sku");
    assert!(
        found[0].message.contains("items[1]"),
        "{}",
        found[0].message
    );
}

#[test]
fn rows_from_must_name_an_array_and_excludes_rows_and_needs_a_row() {
    let cases = [
        (
            json!({"rows_from": "items", "row": {}, "rows": []}),
            "not both",
            "template.t.rows_from",
        ),
        (
            json!({"rows_from": "items"}),
            "needs `row`",
            "template.t.row",
        ),
        (
            json!({"rows_from": "count", "row": {}}),
            "not an array",
            "template.t.rows_from",
        ),
        (
            json!({"rows_from": "nothing", "row": {}}),
            "no key `nothing`",
            "template.t.rows_from",
        ),
        (
            json!({"rows_from": 3, "row": {}}),
            "must name an array",
            "template.t.rows_from",
        ),
    ];
    for (table, says, path) in cases {
        let found = refusals(json!({ "t": table }), json!({"items": [], "count": 2}));
        assert_eq!(found[0].path, path, "{found:?}");
        assert!(found[0].message.contains(says), "{}", found[0].message);
    }
}

#[test]
fn a_value_repeated_past_the_body_limit_is_refused_once_before_it_grows() {
    let limits = Limits {
        body_bytes: 10_000,
        ..Limits::default()
    };
    let many: Vec<Value> = (0..100).map(|_| json!("{{big}}")).collect();
    let found = refusals_within(
        json!({ "t": many }),
        json!({"big": "x".repeat(1_000)}),
        &limits,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("limits.body_bytes"));
}

#[test]
fn rows_past_the_table_cell_limit_are_refused_before_they_are_made() {
    let limits = Limits {
        table_cells: 10,
        ..Limits::default()
    };
    let items: Vec<Value> = (0..6).map(|i| json!({ "a": i })).collect();
    let found = refusals_within(
        json!({"t": {"rows_from": "items", "row": {"a": "{{a}}", "b": "{{a}}"}}}),
        json!({ "items": items }),
        &limits,
    );
    assert!(found[0].message.contains("limits.table_cells"), "{found:?}");
}

#[test]
fn a_body_is_a_template_only_with_a_template_key() {
    assert!(matches!(
        Body::classify(json!({"pages": [], "x": "{{a}}"})),
        Ok(Body::Plain(_))
    ));
    assert!(matches!(
        Body::classify(json!({"template": {"pages": []}})),
        Ok(Body::Template { .. })
    ));
    let refused = |body: Value| match Body::classify(body) {
        Err(RequestError::Invalid(v)) => v.into_iter().map(|v| v.path).collect::<Vec<_>>(),
        _ => panic!("expected a refusal"),
    };
    assert_eq!(
        refused(json!({"template": {}, "data": [], "pages": []})),
        ["pages", "data"]
    );
    assert_eq!(refused(json!({"template": 3})), ["template"]);
    assert_eq!(refused(json!({"template": "invoice"})), ["template"]);
}

#[test]
fn a_probe_fills_every_placeholder_and_one_row_and_remembers_where() {
    let template = json!({"pages": [{"elements": [
        {"content": "To {{name}}", "font": "\\{{plain"},
        {"rows_from": "items", "row": {"sku": "{{sku}}", "n": 2}}
    ]}]});
    let probe = probe(template, &Limits::default()).unwrap();
    assert_eq!(probe.filled["pages"][0]["elements"][0]["content"], "To 0");
    assert_eq!(probe.filled["pages"][0]["elements"][0]["font"], "{{plain");
    assert_eq!(
        probe.filled["pages"][0]["elements"][1]["rows"],
        json!([{"sku": "0", "n": 2}])
    );
    let findings = probe.own_findings(vec![
        Violation::at("pages[0].elements[0].content", "too long"),
        Violation::at("pages[0].elements[0].font", "unknown font"),
        Violation::at("pages[0].elements[1].rows[0].sku", "bad"),
        Violation::at("pages[0].elements[1].rows[0].n", "must be text"),
        Violation::at("pages[0].elements[10]", "elsewhere"),
    ]);
    let paths: Vec<&str> = findings.iter().map(|v| v.path.as_str()).collect();
    // A finding in a string with a placeholder depends on the data; the
    // rest are the template's own, and the probe row stands for `row`.
    assert_eq!(
        paths,
        [
            "pages[0].elements[0].font",
            "pages[0].elements[1].row.n",
            "pages[0].elements[10]"
        ]
    );
}

#[test]
fn a_probe_refuses_what_no_data_could_fill_at_paths_from_the_template_root() {
    let refused = |template: Value| match probe(template, &Limits::default()) {
        Err(RequestError::Invalid(violations)) => violations,
        other => panic!("expected violations, got {:?}", other.map(|p| p.filled)),
    };
    let found = refused(json!({"pages": [{"elements": [{"content": "{{a b}} and {{open"}]}]}));
    assert_eq!(found[0].path, "pages[0].elements[0].content");
    let found = refused(json!({"pages": [{"elements": [{"rows_from": 3, "row": {}}]}]}));
    assert_eq!(found[0].path, "pages[0].elements[0].rows_from");
    let found = refused(json!({"pages": [{"elements": [{"rows_from": "items"}]}]}));
    assert_eq!(found[0].path, "pages[0].elements[0].row");
}
