//! One test per validation rule, each asserting the exact path.

use serde_json::{json, Value};

use crate::support::*;

fn one(element: Value) -> Value {
    page_with(100.0, 100.0, json!([element]))
}

fn text(extra: Value) -> Value {
    let mut t = json!({"type": "text", "x": 1, "y": 1, "content": "t"});
    t.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    t
}

#[test]
fn invalid_json_reports_line_and_column() {
    let err = ENGINE.validate(b"{\n  \"pages\": [,]\n}").unwrap_err();
    let message = err.to_string();
    assert!(message.contains("line 2"), "{message}");
    assert!(matches!(
        err,
        labelpress::validate::RequestError::Json { line: 2, .. }
    ));
}

#[test]
fn top_level_arrays_are_refused_with_a_message_about_old_payloads() {
    assert_violation(
        json!([{"pages": []}]),
        "",
        "arrays of label requests are no longer accepted",
    );
}

#[test]
fn unknown_fields_fail_everywhere_with_their_path() {
    assert_violation(
        json!({"pages": [], "pdf_params": {}}),
        "pdf_params",
        "unknown field `pdf_params`",
    );
    assert_violation(
        one(text(json!({"colour": "#000"}))),
        "pages[0].elements[0].colour",
        "unknown field `colour`",
    );
    assert_violation(
        one(text(json!({"style": {"size": 3}}))),
        "pages[0].elements[0].style.size",
        "unknown field `size`",
    );
    assert_violation(
        json!({"settings": {"defaults": {"text": {"font": "x"}}}, "pages": [{"size": "a4"}]}),
        "settings.defaults.text.font",
        "unknown field `font`",
    );
}

#[test]
fn every_schema_error_and_rule_violation_of_an_element_is_reported() {
    let v = violations(one(text(json!({
        "rotation": 45,
        "style": {"font_size": -3, "font_colour": "#000"}
    }))));
    let paths: Vec<&str> = v.iter().map(|v| v.path.as_str()).collect();
    for path in [
        "pages[0].elements[0].style.font_colour",
        "pages[0].elements[0].style.font_size",
        "pages[0].elements[0].rotation",
    ] {
        assert!(paths.contains(&path), "{path} missing from {v:#?}");
    }
    // Wrong types and unknown fields side by side, each once.
    let v = violations(one(text(json!({
        "y": "one",
        "style": {"bold": true, "font_size": "large"}
    }))));
    let mut paths: Vec<&str> = v.iter().map(|v| v.path.as_str()).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "pages[0].elements[0].style.bold",
            "pages[0].elements[0].style.font_size",
            "pages[0].elements[0].y"
        ],
        "{v:#?}"
    );
    assert!(
        v.iter().any(|v| v.message.contains("invalid type")),
        "{v:#?}"
    );
}

#[test]
fn a_body_without_pages_names_pages_and_every_other_error() {
    let v = violations(json!({"pagez": [], "settings": {"profil": "pdfa-2b"}}));
    let paths: Vec<&str> = v.iter().map(|v| v.path.as_str()).collect();
    assert!(paths.contains(&"pagez"), "{v:#?}");
    assert!(paths.contains(&"settings.profil"), "{v:#?}");
    let pages = v
        .iter()
        .find(|v| v.path == "pages")
        .expect("a violation at `pages`");
    assert!(pages.message.contains("missing field `pages`"), "{pages:?}");
    assert!(!paths.contains(&""), "no violation without a path: {v:#?}");
}

#[test]
fn top_level_schema_errors_do_not_hide_element_errors() {
    let mut request = one(json!({"type": "rect", "x": 1, "y": 1, "width": -1, "height": 1}));
    request["extra"] = json!(true);
    let paths: Vec<String> = violations(request).into_iter().map(|v| v.path).collect();
    assert!(paths.contains(&"extra".to_string()), "{paths:?}");
    assert!(
        paths.contains(&"pages[0].elements[0].width".to_string()),
        "{paths:?}"
    );
}

#[test]
fn every_broken_element_is_reported_not_just_the_first() {
    let v = violations(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 1, "y": 1, "content": "ok", "bogus": 1},
            {"type": "rect", "x": 1, "y": 1, "width": -1, "height": 1},
            {"type": "nonsense"}
        ]),
    ));
    let paths: Vec<&str> = v.iter().map(|v| v.path.as_str()).collect();
    assert!(paths.contains(&"pages[0].elements[0].bogus"), "{paths:?}");
    assert!(paths.contains(&"pages[0].elements[1].width"), "{paths:?}");
    assert!(paths.contains(&"pages[0].elements[2].type"), "{paths:?}");
}

#[test]
fn pages_need_exactly_one_way_to_size_them() {
    assert_violation(
        json!({"pages": [{"size": "a4", "width": 10, "height": 10}]}),
        "pages[0].width",
        "mutually exclusive",
    );
    assert_violation(
        json!({"pages": [{"width": 10}]}),
        "pages[0].height",
        "`width` needs `height`",
    );
    assert_violation(
        json!({"pages": [{"height": 10}]}),
        "pages[0].width",
        "`height` needs `width`",
    );
    assert_violation(json!({"pages": [{}]}), "pages[0].size", "needs `size`");
    assert_violation(
        json!({"pages": [{"size": "a3"}]}),
        "pages[0].size",
        "unknown size `a3`",
    );
    assert_violation(
        json!({"pages": [{"width": 0, "height": 10}]}),
        "pages[0].width",
        "greater than 0",
    );
    assert_violation(
        json!({"pages": [{"width": 6000, "height": 10}]}),
        "pages[0].width",
        "at most 5080",
    );
    assert_violation(json!({"pages": []}), "pages", "at least one page");
}

#[test]
fn margins_must_leave_a_content_box() {
    assert_violation(
        json!({"pages": [{"width": 50, "height": 50, "margin": {"left": 30, "right": 20}}]}),
        "pages[0].margin.left",
        "no content width",
    );
    assert_violation(
        json!({"pages": [{"width": 50, "height": 50, "margin": {"top": -1}}]}),
        "pages[0].margin.top",
        "between 0",
    );
    assert_violation(
        json!({"settings": {"page_margin": {"bottom": -2}}, "pages": [{"size": "a4"}]}),
        "settings.page_margin.bottom",
        "between 0",
    );
}

#[test]
fn elements_outside_the_content_box_fail_when_margins_are_set() {
    let request = json!({"pages": [{"width": 100, "height": 100, "margin": {"left": 10, "right": 10, "top": 10, "bottom": 10},
        "elements": [{"type": "rect", "x": 70, "y": 0, "width": 20, "height": 5}]}]});
    assert_violation(request, "pages[0].elements[0]", "exceeds the content box");
    let rotated = json!({"pages": [{"width": 100, "height": 100, "margin": {"left": 10, "right": 10, "top": 10, "bottom": 10},
        "elements": [{"type": "rect", "x": 0, "y": 70, "width": 20, "height": 5, "rotation": 90}]}]});
    assert_violation(rotated, "pages[0].elements[0]", "exceeds the content box");
}

#[test]
fn sections_must_leave_room_for_a_body() {
    assert_violation(
        json!({"header": {"height": 60}, "footer": {"height": 60}, "pages": [{"width": 100, "height": 100}]}),
        "pages[0].height",
        "leave no body",
    );
    assert_violation(
        json!({"header": {"height": 200}, "pages": [{"width": 100, "height": 100}]}),
        "header.height",
        "less than the page height",
    );
}

#[test]
fn x_and_x_anchor_are_exclusive_and_one_is_required() {
    assert_violation(
        one(
            json!({"type": "rect", "x": 1, "x_anchor": {"reference": "page_left"}, "y": 1, "width": 1, "height": 1}),
        ),
        "pages[0].elements[0].x_anchor",
        "mutually exclusive",
    );
    assert_violation(
        one(json!({"type": "rect", "y": 1, "width": 1, "height": 1})),
        "pages[0].elements[0].x",
        "is required",
    );
}

#[test]
fn x_anchor_rules() {
    assert_violation(
        one(
            json!({"type": "text", "x_anchor": {"reference": "page_left"}, "y": 1, "content": "t"}),
        ),
        "pages[0].elements[0].style.width",
        "needs `style.width`",
    );
    assert_violation(
        one(
            json!({"type": "rect", "x_anchor": {"reference": "table_left"}, "y": 1, "width": 1, "height": 1}),
        ),
        "pages[0].elements[0].x_anchor.reference",
        "only inside a block",
    );
    assert_violation(
        one(
            json!({"type": "rect", "x_anchor": {"reference": "middle"}, "y": 1, "width": 1, "height": 1}),
        ),
        "pages[0].elements[0].x_anchor.reference",
        "unknown variant `middle`",
    );
    assert_violation(
        one(
            json!({"type": "line", "x_anchor": {"reference": "page_left"}, "x1": 1, "y1": 1, "x2": 2, "y2": 2}),
        ),
        "pages[0].elements[0].x_anchor",
        "unknown field `x_anchor`",
    );
}

#[test]
fn rotation_takes_quarter_turns_only_where_supported() {
    assert_violation(
        one(text(json!({"rotation": 45}))),
        "pages[0].elements[0].rotation",
        "0, 90, 180 or 270",
    );
    assert_violation(
        one(json!({"type": "circle", "cx": 5, "cy": 5, "r": 1, "rotation": 90})),
        "pages[0].elements[0].rotation",
        "unknown field `rotation`",
    );
}

#[test]
fn text_style_rules() {
    assert_violation(
        one(text(json!({"style": {"font_size": 0}}))),
        "pages[0].elements[0].style.font_size",
        "greater than 0",
    );
    assert_violation(
        one(text(json!({"style": {"font_weight": "heavy"}}))),
        "pages[0].elements[0].style.font_weight",
        "`normal`, `bold`",
    );
    assert_violation(
        one(text(json!({"style": {"font_weight": 950}}))),
        "pages[0].elements[0].style.font_weight",
        "100 to 900",
    );
    assert_violation(
        one(text(json!({"style": {"color": "red"}}))),
        "pages[0].elements[0].style.color",
        "not a colour",
    );
    assert_violation(
        one(text(json!({"style": {"text_align": "middle"}}))),
        "pages[0].elements[0].style.text_align",
        "unknown variant",
    );
    assert_violation(
        one(text(json!({"style": {"vertical_align": "middle"}}))),
        "pages[0].elements[0].style.vertical_align",
        "needs `height`",
    );
    assert_violation(
        one(text(json!({"style": {"text_overflow": "ellipsis"}}))),
        "pages[0].elements[0].style.text_overflow",
        "needs `width`",
    );
    assert_violation(
        one(text(json!({"style": {"shrink_to_fit": true}}))),
        "pages[0].elements[0].style.shrink_to_fit",
        "needs `width` or `height`",
    );
    assert_violation(
        one(text(
            json!({"style": {"shrink_to_fit": true, "width": 5, "font_size": 5, "min_font_size": 8}}),
        )),
        "pages[0].elements[0].style.min_font_size",
        "must not exceed",
    );
    assert_violation(
        one(text(json!({"style": {"line_height": 0}}))),
        "pages[0].elements[0].style.line_height",
        "greater than 0",
    );
    assert_violation(
        one(text(json!({"style": {"font_family": "No Such Font"}}))),
        "pages[0].elements[0].style.font_family",
        "no font family `No Such Font`",
    );
}

#[test]
fn rich_text_tags_must_be_closed_and_nested() {
    assert_violation(
        one(text(json!({"content": "[B]open"}))),
        "pages[0].elements[0].content",
        "not closed",
    );
}

#[test]
fn link_rules() {
    let url = |u: &str| one(text(json!({"link": {"target": {"type": "url", "url": u}}})));
    assert_violation(
        url("ftp://x.org"),
        "pages[0].elements[0].link.target.url",
        "scheme",
    );
    assert_violation(
        url("javascript:alert(1)"),
        "pages[0].elements[0].link.target.url",
        "scheme",
    );
    assert_violation(
        url("https://"),
        "pages[0].elements[0].link.target.url",
        "nothing after",
    );
    let page = |n: i64| {
        one(text(
            json!({"link": {"target": {"type": "page", "page": n}}}),
        ))
    };
    assert_violation(
        page(0),
        "pages[0].elements[0].link.target.page",
        "between 1 and 1",
    );
    assert_violation(
        page(2),
        "pages[0].elements[0].link.target.page",
        "between 1 and 1",
    );
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "page", "page": 1, "y": 500}}}),
        )),
        "pages[0].elements[0].link.target.y",
        "page height",
    );
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "url", "url": "https://a.b"}, "padding": -1}}),
        )),
        "pages[0].elements[0].link.padding",
        "between 0",
    );
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "url", "url": "https://a.b"}, "border": {"width": -1}}}),
        )),
        "pages[0].elements[0].link.border.width",
        "between 0",
    );
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "url", "url": "https://a.b"}, "border": {"color": "blue"}}}),
        )),
        "pages[0].elements[0].link.border.color",
        "not a colour",
    );
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "file", "path": "/x"}}}),
        )),
        "pages[0].elements[0].link.target.type",
        "unknown variant `file`",
    );
    assert_violation(
        one(
            json!({"type": "link", "x": 1, "y": 1, "width": 5, "height": 5, "target": {"type": "url", "url": "gopher://x"}}),
        ),
        "pages[0].elements[0].target.url",
        "scheme",
    );
}

#[test]
fn stroke_combination_rules() {
    let double = json!({"kind": "double", "gap": 1});
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"compound": double, "dash": {"preset": "dashed"}}}),
        ),
        "pages[0].elements[0].stroke.compound",
        "cannot be dashed",
    );
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"compound": double}, "marker": {"end": "arrow"}}),
        ),
        "pages[0].elements[0].marker",
        "cannot have markers",
    );
    for shape in [
        json!({"type": "rect", "x": 1, "y": 1, "width": 2, "height": 2}),
        json!({"type": "circle", "cx": 5, "cy": 5, "r": 1}),
        json!({"type": "ellipse", "cx": 5, "cy": 5, "rx": 1, "ry": 2}),
        json!({"type": "polygon", "points": [{"x": 1, "y": 1}, {"x": 2, "y": 1}, {"x": 1, "y": 2}]}),
    ] {
        let mut s = shape.clone();
        s["stroke"] = json!({"compound": double});
        assert_violation(
            one(s),
            "pages[0].elements[0].stroke.compound",
            "only supported on lines",
        );
    }
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"dash": {"preset": "dashed", "pattern": [1, 2]}}}),
        ),
        "pages[0].elements[0].stroke.dash.pattern",
        "only allowed with preset `custom`",
    );
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"dash": {"preset": "custom"}}}),
        ),
        "pages[0].elements[0].stroke.dash.pattern",
        "needs `pattern`",
    );
    assert_violation(
        one(json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"opacity": 2}})),
        "pages[0].elements[0].stroke.opacity",
        "between 0 and 1",
    );
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"cap": "pointy"}}),
        ),
        "pages[0].elements[0].stroke.cap",
        "unknown variant",
    );
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"compound": {"kind": "triple", "gap": 1}}}),
        ),
        "pages[0].elements[0].stroke.compound.kind",
        "unknown variant `triple`",
    );
}

#[test]
fn shape_value_rules() {
    assert_violation(
        one(json!({"type": "circle", "cx": 5, "cy": 5, "r": 0})),
        "pages[0].elements[0].r",
        "greater than 0",
    );
    assert_violation(
        one(json!({"type": "ellipse", "cx": 5, "cy": 5, "rx": 1, "ry": -2})),
        "pages[0].elements[0].ry",
        "greater than 0",
    );
    assert_violation(
        one(json!({"type": "polygon", "points": [{"x": 1, "y": 1}, {"x": 2, "y": 2}]})),
        "pages[0].elements[0].points",
        "at least 3",
    );
    assert_violation(
        one(json!({"type": "rect", "x": 1, "y": 1, "width": 2, "height": 2, "corner_radius": -1})),
        "pages[0].elements[0].corner_radius",
        "between 0",
    );
    assert_violation(
        one(
            json!({"type": "rect", "x": 1, "y": 1, "width": 2, "height": 2, "fill": {"color": "#12"}}),
        ),
        "pages[0].elements[0].fill.color",
        "not a colour",
    );
    assert_violation(
        one(json!({"type": "rect", "x": 1e300, "y": 1, "width": 2, "height": 2})),
        "pages[0].elements[0].x",
        "between",
    );
}

#[test]
fn profile_names_are_checked_and_profiles_enforce_their_rules() {
    assert_violation(
        json!({"settings": {"profile": "pdfa-9z"}, "pages": [{"size": "a4"}]}),
        "settings.profile",
        "unknown profile",
    );
    assert_violation(
        json!({"settings": {"profile": "pdfa-ua1"}, "pages": [{"size": "a4"}]}),
        "settings.metadata.title",
        "requires a document title",
    );
    assert_violation(
        json!({"settings": {"profile": "pdfa-1b"}, "pages": [{"width": 50, "height": 50, "elements": [
        {"type": "rect", "x": 1, "y": 1, "width": 2, "height": 2, "fill": {"color": "#ff0000", "opacity": 0.5}}]}]}),
        "pages[0].elements[0].fill.opacity",
        "PDF/A-1 does not allow transparency",
    );
    assert_violation(
        json!({"settings": {"profile": "pdfa-ua1", "metadata": {"title": "t"}}, "pages": [{"width": 50, "height": 50, "elements": [
        {"type": "link", "x": 1, "y": 1, "width": 2, "height": 2, "target": {"type": "url", "url": "https://a.b"}}]}]}),
        "pages[0].elements[0].alt",
        "alternative text",
    );
}

#[test]
fn image_rules() {
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "../secret.png"}),
        ),
        "pages[0].elements[0].data",
        "plain relative name",
    );
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "missing.png"}),
        ),
        "pages[0].elements[0].data",
        "no resource file",
    );
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "bm90IGFuIGltYWdl"}),
        ),
        "pages[0].elements[0].data",
        "not a PNG",
    );
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "dot.png", "format": "jpg"}),
        ),
        "pages[0].elements[0].format",
        "the data is Png",
    );
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "dot.png", "format": "bmp"}),
        ),
        "pages[0].elements[0].format",
        "must be png",
    );
    assert_violation(
        one(json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "!!!"})),
        "pages[0].elements[0].data",
        "Base64",
    );
}

#[test]
fn huge_images_are_refused_before_decoding() {
    // A PNG header claiming 10,000 x 10,000 pixels (100 MP > 40 MP).
    let mut png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    png.extend_from_slice(&10_000u32.to_be_bytes());
    png.extend_from_slice(&10_000u32.to_be_bytes());
    png.extend_from_slice(&[8, 2, 0, 0, 0, 0, 0, 0, 0]);
    use base64::Engine as _;
    let data = base64::engine::general_purpose::STANDARD.encode(&png);
    assert_violation(
        one(json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": data})),
        "pages[0].elements[0].data",
        "at most 40000000",
    );
}

#[test]
fn metadata_and_output_rules() {
    assert_violation(
        json!({"settings": {"metadata": {"language": "english"}}, "pages": [{"size": "a4"}]}),
        "settings.metadata.language",
        "not a language code",
    );
    assert_violation(
        json!({"settings": {"output": {"mode": "stream"}}, "pages": [{"size": "a4"}]}),
        "settings.output.mode",
        "unknown variant `stream`",
    );
}

#[test]
fn element_types_are_checked() {
    assert_violation(
        one(json!({"x": 1})),
        "pages[0].elements[0].type",
        "needs `type`",
    );
    assert_violation(
        one(json!({"type": "block", "elements": []})),
        "pages[0].elements[0].type",
        "child of a stack",
    );
    assert_violation(
        json!({"header": {"height": 5, "elements": [{"type": "table", "x": 0, "y": 0, "columns": [], "rows": []}]}, "pages": [{"size": "a4"}]}),
        "header.elements[0].type",
        "only appear in pages",
    );
}

#[test]
fn table_rules() {
    let table = |extra: Value| {
        let mut t = json!({"type": "table", "x": 0, "y": 0, "width": 100,
            "columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}, {"key": "b", "width": {"mode": "auto"}}],
            "rows": [{"a": "1", "b": "2"}]});
        for (k, v) in extra.as_object().unwrap() {
            t[k] = v.clone();
        }
        json!({"pages": [{"size": "a4", "elements": [t]}]})
    };
    assert_violation(
        table(json!({"rows": [{"c": 1}]})),
        "pages[0].elements[0].rows[0].c",
        "not a declared column key",
    );
    assert_violation(
        table(json!({"data": []})),
        "pages[0].elements[0].data",
        "older table payload",
    );
    assert_violation(
        table(json!({"columns": []})),
        "pages[0].elements[0].columns",
        "at least 1 column",
    );
    assert_violation(
        table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}, {"key": "a", "width": {"mode": "fixed", "value": 50}}]}),
        ),
        "pages[0].elements[0].columns[1].key",
        "already the key",
    );
    assert_violation(
        table(
            json!({"columns": [{"key": "a", "width": {"mode": "percent", "value": 60}}, {"key": "b", "width": {"mode": "percent", "value": 50}}]}),
        ),
        "pages[0].elements[0].columns",
        "at most 100",
    );
    assert_violation(
        table(json!({"width": null, "columns": [{"key": "a", "width": {"mode": "auto"}}]})),
        "pages[0].elements[0].columns[0].width.mode",
        "need `table.width`",
    );
    assert_violation(
        table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 100}}, {"key": "b", "width": {"mode": "auto"}}]}),
        ),
        "pages[0].elements[0].width",
        "no width for the auto columns",
    );
    assert_violation(
        table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 40}}, {"key": "b", "width": {"mode": "fixed", "value": 40}}]}),
        ),
        "pages[0].elements[0].width",
        "must fill it exactly",
    );
    assert_violation(
        table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}, {"key": "b", "role": "row_header", "width": {"mode": "auto"}}]}),
        ),
        "pages[0].elements[0].columns[1].role",
        "contiguous and leftmost",
    );
    assert_violation(
        table(json!({"rows": [{"a": {"value": 1, "col_span": 3}}]})),
        "pages[0].elements[0].rows[0].a.col_span",
        "past the last column",
    );
    assert_violation(
        table(json!({"rows": [{"a": {"value": 1, "row_span": 2}}]})),
        "pages[0].elements[0].rows[0].a.row_span",
        "past the last row",
    );
    assert_violation(
        table(json!({"rows": [{"a": {"value": 1, "col_span": 2}, "b": "x"}]})),
        "pages[0].elements[0].rows[0].b",
        "covered by the span",
    );
    assert_violation(
        table(
            json!({"rows": [{"a": {"value": 1, "row_span": 2}}, {"a": 2}], "pagination": {"keep_spans_together": false}}),
        ),
        "pages[0].elements[0].pagination.keep_spans_together",
        "must be true",
    );
    assert_violation(
        table(json!({"rows": [{"a": [1]}]})),
        "pages[0].elements[0].rows[0].a",
        "cell is a string",
    );
    assert_violation(
        table(json!({"grid": {"frame": true}})),
        "pages[0].elements[0].grid.frame",
        "`false` or a stroke",
    );
    // A covered cell whose key sorts before the spanning cell's is found too.
    assert_violation(
        json!({"pages": [{"size": "a4", "elements": [{"type": "table", "x": 0, "y": 0,
            "columns": [{"key": "z", "width": {"mode": "fixed", "value": 50}},
                        {"key": "b", "width": {"mode": "fixed", "value": 50}}],
            "rows": [{"z": {"value": 1, "col_span": 2}, "b": "x"}]}]}]}),
        "pages[0].elements[0].rows[0].b",
        "covered by the span of rows[0].z",
    );
    assert_violation(
        table(json!({"rows": [{"a": "1"}, 7]})),
        "pages[0].elements[0].rows[1]",
        "must be an object",
    );
    assert_violation(
        table(json!({"rows": {"a": "1"}})),
        "pages[0].elements[0].rows",
        "must be an array",
    );
    let mut without_rows = table(json!({}));
    without_rows["pages"][0]["elements"][0]
        .as_object_mut()
        .unwrap()
        .remove("rows");
    assert_violation(
        without_rows,
        "pages[0].elements[0].rows",
        "missing field `rows`",
    );
}

#[test]
fn stack_rules() {
    let t = json!({"type": "table", "x": 0, "y": 0, "columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}], "rows": []});
    let stack = |children: Value| json!({"pages": [{"size": "a6", "elements": [{"type": "stack", "children": children}]}]});
    assert_violation(
        stack(json!([t.clone()])),
        "pages[0].elements[0].children",
        "at least 2 children",
    );
    assert_violation(
        stack(json!([{"type": "block", "elements": []}, t.clone()])),
        "pages[0].elements[0].children[0].type",
        "must be a table",
    );
    assert_violation(
        stack(json!([t.clone(), t.clone()])),
        "pages[0].elements[0].children[1].type",
        "must be a block",
    );
    assert_violation(
        stack(json!([t.clone(), {"type": "block", "elements": [t.clone()]}])),
        "pages[0].elements[0].children[1].elements[0].type",
        "cannot contain",
    );
    assert_violation(
        stack(
            json!([t.clone(), {"type": "block", "elements": [{"type": "rect", "x": 0, "y": 0, "width": 10, "height": 500}]}]),
        ),
        "pages[0].elements[0].children[1]",
        "a sheet's body holds only",
    );
    let anchored = json!({"type": "block", "elements": [{"type": "rect", "x_anchor": {"reference": "table_right", "offset": 0}, "y": 0, "width": 10, "height": 5}]});
    let ok = stack(json!([t, anchored]));
    assert!(
        ENGINE.validate(&serde_json::to_vec(&ok).unwrap()).is_ok(),
        "table anchors are allowed inside blocks"
    );
}

#[test]
fn human_readable_text_is_refused_on_2d_symbols_and_drawn_on_1d_ones() {
    let barcode = |format: &str, enabled: bool| {
        one(
            json!({"type": "barcode", "x": 5, "y": 5, "width": 40, "height": 40,
                   "format": format, "content": "LP-4711", "hrt": {"enabled": enabled}}),
        )
    };
    for format in ["qrcode", "datamatrix", "aztec", "pdf417"] {
        assert_violation(
            barcode(format, true),
            "pages[0].elements[0].hrt",
            "human-readable text is for 1-D symbols",
        );
        // Off, it is no concern.
        assert_eq!(render(barcode(format, false)).page_count(), 1, "{format}");
    }
    let pdf = render(barcode("code128", true));
    assert!(pdf.text(0).contains("LP-4711"), "{}", pdf.text(0));
}

/// A page of 120 x 100 mm with a 10 mm margin, holding one stack: a table
/// of `rows` one-line rows, then one block of `children`.
fn stack_in_margins(rows: usize, gap: f64, children: Value) -> Value {
    let rows: Vec<Value> = (0..rows).map(|i| json!({"a": format!("r{i}")})).collect();
    json!({"pages": [{"width": 120, "height": 100, "margin": {"left": 10, "right": 10, "top": 10, "bottom": 10},
    "elements": [{"type": "stack", "gap": gap, "children": [
        {"type": "table", "x": 0, "y": 0, "columns": [{"key": "a", "header": "A", "width": {"mode": "fixed", "value": 40}}], "rows": rows},
        {"type": "block", "elements": children}
    ]}]}]})
}

#[test]
fn stack_block_children_must_lie_inside_the_content_box() {
    // Across: the content box is 10..110 mm; a rect at body x 95, 10 mm wide, ends at 115.
    let wide = stack_in_margins(
        1,
        2.0,
        json!([{"type": "rect", "x": 0, "y": 0, "width": 5, "height": 5},
               {"type": "rect", "x": 95, "y": 0, "width": 10, "height": 5}]),
    );
    assert_violation(
        wide.clone(),
        "pages[0].elements[0].children[1].elements[1]",
        "exceeds the content box",
    );
    let found = violations(wide);
    assert_eq!(found.len(), 1, "only the child that pokes out: {found:#?}");
    // A text anchored right of the table's right edge pokes out too.
    assert_violation(
        stack_in_margins(
            1,
            2.0,
            json!([{"type": "text", "x_anchor": {"reference": "table_right", "offset": -65}, "y": 0, "content": "T", "style": {"width": 10}}]),
        ),
        "pages[0].elements[0].children[1].elements[0]",
        "exceeds the content box",
    );
    // Down: a child 5 mm above its 50 mm block's start fits below a short
    // table (the block starts after the table and the gap)...
    let above = json!([{"type": "rect", "x": 0, "y": -5, "width": 5, "height": 5},
                       {"type": "rect", "x": 10, "y": 0, "width": 5, "height": 50}]);
    let short = stack_in_margins(1, 2.0, above.clone());
    assert!(
        ENGINE
            .validate(&serde_json::to_vec(&short).unwrap())
            .is_ok(),
        "the child lies below the table, inside the content box"
    );
    // ...but where the block starts a continuation sheet at the content-box
    // top (after 10 rows the block no longer fits on the first sheet), it
    // pokes above the content box there.
    let long = stack_in_margins(10, 2.0, above);
    assert_violation(
        long,
        "pages[0].elements[0].children[1].elements[0]",
        "on the page's sheet 2",
    );
}

#[test]
fn settings_page_margin_must_leave_a_content_box_on_every_page_it_applies_to() {
    // 60 + 50 mm of side margins fit the 200 mm page but not the 100 mm one.
    let request = json!({"settings": {"page_margin": {"left": 60, "right": 50}},
        "pages": [{"width": 200, "height": 100}, {"width": 100, "height": 50}]});
    let found = violations(request);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].path, "settings.page_margin.left");
    for part in ["pages[1]", "100 x 50 mm", "left 60 mm", "right 50 mm"] {
        assert!(found[0].message.contains(part), "{part}: {found:#?}");
    }
    // Top and bottom that meet: no content height.
    assert_violation(
        json!({"settings": {"page_margin": {"top": 30, "bottom": 20}}, "pages": [{"width": 100, "height": 50}]}),
        "settings.page_margin.top",
        "no content height on pages[0] (100 x 50 mm)",
    );
    // A page with its own margin does not use `settings.page_margin`.
    let own = json!({"settings": {"page_margin": {"left": 60, "right": 50}},
        "pages": [{"width": 100, "height": 50, "margin": {"left": 5}}]});
    assert!(ENGINE.validate(&serde_json::to_vec(&own).unwrap()).is_ok());
    // A page's own margin names the page's size too.
    assert_violation(
        json!({"pages": [{"width": 50, "height": 40, "margin": {"left": 30, "right": 20}}]}),
        "pages[0].margin.left",
        "50 x 40 mm",
    );
}

#[test]
fn links_in_table_cell_text_styles_and_hrt_styles_are_validated() {
    let bad = json!({"target": {"type": "url", "url": "ftp://example.com"}});
    let good = json!({"target": {"type": "url", "url": "https://example.com"}});
    let table = |extra: Value, row: Value| {
        let mut t = json!({"type": "table", "x": 0, "y": 0,
            "columns": [{"key": "a", "header": "A", "width": {"mode": "fixed", "value": 40}}], "rows": [row]});
        t.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        one(t)
    };
    assert_violation(
        table(json!({"cell": {"text": {"link": bad}}}), json!({"a": "x"})),
        "pages[0].elements[0].cell.text.link.target.url",
        "scheme",
    );
    assert_violation(
        table(
            json!({"body": {"cell": {"text": {"link": bad}}}}),
            json!({"a": "x"}),
        ),
        "pages[0].elements[0].body.cell.text.link.target.url",
        "scheme",
    );
    assert_violation(
        table(
            json!({}),
            json!({"a": {"value": "x", "style": {"text": {"link": {"target": {"type": "page", "page": 3}}}}}}),
        ),
        "pages[0].elements[0].rows[0].a.style.text.link.target.page",
        "between 1 and 1",
    );
    // A cell's own link and a link in its own style: one too many.
    assert_violation(
        table(
            json!({}),
            json!({"a": {"value": "x", "link": good, "style": {"text": {"link": good}}}}),
        ),
        "pages[0].elements[0].rows[0].a.style.text.link",
        "not both",
    );
    let barcode = |hrt: Value, link: Option<Value>| {
        let mut b = json!({"type": "barcode", "x": 5, "y": 5, "width": 60, "height": 20,
            "format": "code128", "content": "LP-4711", "hrt": hrt});
        if let Some(l) = link {
            b["link"] = l;
        }
        one(b)
    };
    assert_violation(
        barcode(json!({"enabled": true, "style": {"link": bad}}), None),
        "pages[0].elements[0].hrt.style.link.target.url",
        "scheme",
    );
    assert_violation(
        barcode(
            json!({"enabled": true, "style": {"link": good}}),
            Some(good.clone()),
        ),
        "pages[0].elements[0].hrt.style.link",
        "not both",
    );
    // A link on text that is not drawn would be silently lost.
    assert_violation(
        barcode(json!({"enabled": false, "style": {"link": good}}), None),
        "pages[0].elements[0].hrt.style.link",
        "hrt.enabled",
    );
}
