//! Validation tests: one test per rule or behaviour, named after it as a
//! sentence. Most assert one violation at its exact path with a fragment of
//! its message (`assert_violation`); tests are grouped by the part of the
//! request they check under `// ---- ...` headings.

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

// ---- request shape and error reporting

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

// ---- pages, margins and sections

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

// ---- horizontal position and rotation

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
fn text_placed_by_x_anchor_needs_a_style_width() {
    assert_violation(
        one(
            json!({"type": "text", "x_anchor": {"reference": "page_left"}, "y": 1, "content": "t"}),
        ),
        "pages[0].elements[0].style.width",
        "needs `style.width`",
    );
}

#[test]
fn table_anchors_are_refused_outside_a_block() {
    assert_violation(
        one(
            json!({"type": "rect", "x_anchor": {"reference": "table_left"}, "y": 1, "width": 1, "height": 1}),
        ),
        "pages[0].elements[0].x_anchor.reference",
        "only inside a block",
    );
}

#[test]
fn an_unknown_x_anchor_reference_is_refused() {
    assert_violation(
        one(
            json!({"type": "rect", "x_anchor": {"reference": "middle"}, "y": 1, "width": 1, "height": 1}),
        ),
        "pages[0].elements[0].x_anchor.reference",
        "unknown variant `middle`",
    );
}

#[test]
fn lines_have_no_x_anchor() {
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

// ---- text styles

#[test]
fn a_font_size_of_0_is_refused_at_style_font_size() {
    assert_violation(
        one(text(json!({"style": {"font_size": 0}}))),
        "pages[0].elements[0].style.font_size",
        "greater than 0",
    );
}

#[test]
fn an_unknown_font_weight_name_is_refused() {
    assert_violation(
        one(text(json!({"style": {"font_weight": "heavy"}}))),
        "pages[0].elements[0].style.font_weight",
        "`normal`, `bold`",
    );
}

#[test]
fn a_numeric_font_weight_must_be_100_to_900() {
    assert_violation(
        one(text(json!({"style": {"font_weight": 950}}))),
        "pages[0].elements[0].style.font_weight",
        "100 to 900",
    );
}

#[test]
fn a_colour_name_is_refused_at_style_color() {
    assert_violation(
        one(text(json!({"style": {"color": "red"}}))),
        "pages[0].elements[0].style.color",
        "not a colour",
    );
}

#[test]
fn an_unknown_text_align_is_refused() {
    assert_violation(
        one(text(json!({"style": {"text_align": "middle"}}))),
        "pages[0].elements[0].style.text_align",
        "unknown variant",
    );
}

#[test]
fn vertical_align_needs_a_height() {
    assert_violation(
        one(text(json!({"style": {"vertical_align": "middle"}}))),
        "pages[0].elements[0].style.vertical_align",
        "needs `height`",
    );
}

#[test]
fn text_overflow_needs_a_width() {
    assert_violation(
        one(text(json!({"style": {"text_overflow": "ellipsis"}}))),
        "pages[0].elements[0].style.text_overflow",
        "needs `width`",
    );
}

#[test]
fn shrink_to_fit_needs_a_width_or_a_height() {
    assert_violation(
        one(text(json!({"style": {"shrink_to_fit": true}}))),
        "pages[0].elements[0].style.shrink_to_fit",
        "needs `width` or `height`",
    );
}

#[test]
fn min_font_size_must_not_exceed_the_font_size() {
    assert_violation(
        one(text(
            json!({"style": {"shrink_to_fit": true, "width": 5, "font_size": 5, "min_font_size": 8}}),
        )),
        "pages[0].elements[0].style.min_font_size",
        "must not exceed",
    );
}

#[test]
fn a_line_height_of_0_is_refused() {
    assert_violation(
        one(text(json!({"style": {"line_height": 0}}))),
        "pages[0].elements[0].style.line_height",
        "greater than 0",
    );
}

#[test]
fn an_unknown_font_family_is_refused() {
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

// ---- links

/// One text element linking to `url`.
fn text_linking_to_url(url: &str) -> Value {
    one(text(
        json!({"link": {"target": {"type": "url", "url": url}}}),
    ))
}

/// One text element, on a one-page request, linking to page `page`.
fn text_linking_to_page(page: i64) -> Value {
    one(text(
        json!({"link": {"target": {"type": "page", "page": page}}}),
    ))
}

#[test]
fn links_to_ftp_and_javascript_urls_are_refused_for_their_scheme() {
    assert_violation(
        text_linking_to_url("ftp://x.org"),
        "pages[0].elements[0].link.target.url",
        "scheme",
    );
    assert_violation(
        text_linking_to_url("javascript:alert(1)"),
        "pages[0].elements[0].link.target.url",
        "scheme",
    );
}

#[test]
fn a_url_with_nothing_after_its_scheme_is_refused() {
    assert_violation(
        text_linking_to_url("https://"),
        "pages[0].elements[0].link.target.url",
        "nothing after",
    );
}

#[test]
fn a_link_to_page_0_is_refused() {
    assert_violation(
        text_linking_to_page(0),
        "pages[0].elements[0].link.target.page",
        "between 1 and 1",
    );
}

#[test]
fn a_link_to_a_page_past_the_last_is_refused() {
    assert_violation(
        text_linking_to_page(2),
        "pages[0].elements[0].link.target.page",
        "between 1 and 1",
    );
}

#[test]
fn a_link_target_y_past_the_page_height_is_refused() {
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "page", "page": 1, "y": 500}}}),
        )),
        "pages[0].elements[0].link.target.y",
        "page height",
    );
}

#[test]
fn a_negative_link_padding_is_refused() {
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "url", "url": "https://a.b"}, "padding": -1}}),
        )),
        "pages[0].elements[0].link.padding",
        "between 0",
    );
}

#[test]
fn a_negative_link_border_width_is_refused() {
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "url", "url": "https://a.b"}, "border": {"width": -1}}}),
        )),
        "pages[0].elements[0].link.border.width",
        "between 0",
    );
}

#[test]
fn a_colour_name_is_refused_at_link_border_color() {
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "url", "url": "https://a.b"}, "border": {"color": "blue"}}}),
        )),
        "pages[0].elements[0].link.border.color",
        "not a colour",
    );
}

#[test]
fn file_link_targets_are_refused() {
    assert_violation(
        one(text(
            json!({"link": {"target": {"type": "file", "path": "/x"}}}),
        )),
        "pages[0].elements[0].link.target.type",
        "unknown variant `file`",
    );
}

#[test]
fn link_elements_refuse_a_gopher_url_for_its_scheme() {
    assert_violation(
        one(
            json!({"type": "link", "x": 1, "y": 1, "width": 5, "height": 5, "target": {"type": "url", "url": "gopher://x"}}),
        ),
        "pages[0].elements[0].target.url",
        "scheme",
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

// ---- strokes

/// A double compound stroke, allowed only on plain lines.
fn double_stroke() -> Value {
    json!({"kind": "double", "gap": 1})
}

#[test]
fn a_compound_stroke_cannot_be_dashed() {
    let double = double_stroke();
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"compound": double, "dash": {"preset": "dashed"}}}),
        ),
        "pages[0].elements[0].stroke.compound",
        "cannot be dashed",
    );
}

#[test]
fn a_line_with_a_compound_stroke_cannot_have_markers() {
    let double = double_stroke();
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"compound": double}, "marker": {"end": "arrow"}}),
        ),
        "pages[0].elements[0].marker",
        "cannot have markers",
    );
}

#[test]
fn compound_strokes_are_refused_on_rects_circles_ellipses_and_polygons() {
    let double = double_stroke();
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
}

#[test]
fn a_dash_pattern_is_only_allowed_with_preset_custom() {
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"dash": {"preset": "dashed", "pattern": [1, 2]}}}),
        ),
        "pages[0].elements[0].stroke.dash.pattern",
        "only allowed with preset `custom`",
    );
}

#[test]
fn dash_preset_custom_needs_a_pattern() {
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"dash": {"preset": "custom"}}}),
        ),
        "pages[0].elements[0].stroke.dash.pattern",
        "needs `pattern`",
    );
}

#[test]
fn a_stroke_opacity_above_1_is_refused() {
    assert_violation(
        one(json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"opacity": 2}})),
        "pages[0].elements[0].stroke.opacity",
        "between 0 and 1",
    );
}

#[test]
fn an_unknown_stroke_cap_is_refused() {
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"cap": "pointy"}}),
        ),
        "pages[0].elements[0].stroke.cap",
        "unknown variant",
    );
}

#[test]
fn an_unknown_compound_stroke_kind_is_refused() {
    assert_violation(
        one(
            json!({"type": "line", "x1": 1, "y1": 1, "x2": 5, "y2": 1, "stroke": {"compound": {"kind": "triple", "gap": 1}}}),
        ),
        "pages[0].elements[0].stroke.compound.kind",
        "unknown variant `triple`",
    );
}

// ---- shapes

#[test]
fn a_circle_radius_of_0_is_refused() {
    assert_violation(
        one(json!({"type": "circle", "cx": 5, "cy": 5, "r": 0})),
        "pages[0].elements[0].r",
        "greater than 0",
    );
}

#[test]
fn a_negative_ellipse_radius_is_refused() {
    assert_violation(
        one(json!({"type": "ellipse", "cx": 5, "cy": 5, "rx": 1, "ry": -2})),
        "pages[0].elements[0].ry",
        "greater than 0",
    );
}

#[test]
fn a_polygon_needs_at_least_3_points() {
    assert_violation(
        one(json!({"type": "polygon", "points": [{"x": 1, "y": 1}, {"x": 2, "y": 2}]})),
        "pages[0].elements[0].points",
        "at least 3",
    );
}

#[test]
fn a_negative_corner_radius_is_refused() {
    assert_violation(
        one(json!({"type": "rect", "x": 1, "y": 1, "width": 2, "height": 2, "corner_radius": -1})),
        "pages[0].elements[0].corner_radius",
        "between 0",
    );
}

#[test]
fn a_malformed_hex_fill_colour_is_refused() {
    assert_violation(
        one(
            json!({"type": "rect", "x": 1, "y": 1, "width": 2, "height": 2, "fill": {"color": "#12"}}),
        ),
        "pages[0].elements[0].fill.color",
        "not a colour",
    );
}

#[test]
fn a_coordinate_far_off_the_page_is_refused() {
    assert_violation(
        one(json!({"type": "rect", "x": 1e300, "y": 1, "width": 2, "height": 2})),
        "pages[0].elements[0].x",
        "between",
    );
}

// ---- profiles

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

// ---- images

#[test]
fn an_image_name_leaving_the_resource_folder_is_refused() {
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "../secret.png"}),
        ),
        "pages[0].elements[0].data",
        "plain relative name",
    );
}

#[test]
fn an_image_naming_a_missing_resource_file_is_refused() {
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "missing.png"}),
        ),
        "pages[0].elements[0].data",
        "no resource file",
    );
}

#[test]
fn image_data_that_is_not_an_image_is_refused() {
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "bm90IGFuIGltYWdl"}),
        ),
        "pages[0].elements[0].data",
        "not a PNG",
    );
}

#[test]
fn an_image_format_that_contradicts_the_data_is_refused() {
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "dot.png", "format": "jpg"}),
        ),
        "pages[0].elements[0].format",
        "the data is Png",
    );
}

#[test]
fn an_unsupported_image_format_is_refused() {
    assert_violation(
        one(
            json!({"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "dot.png", "format": "bmp"}),
        ),
        "pages[0].elements[0].format",
        "must be png",
    );
}

#[test]
fn image_data_that_is_neither_a_name_nor_base64_is_refused() {
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

// ---- metadata and output

#[test]
fn a_metadata_language_must_be_a_language_code() {
    assert_violation(
        json!({"settings": {"metadata": {"language": "english"}}, "pages": [{"size": "a4"}]}),
        "settings.metadata.language",
        "not a language code",
    );
}

#[test]
fn an_unknown_output_mode_is_refused() {
    assert_violation(
        json!({"settings": {"output": {"mode": "stream"}}, "pages": [{"size": "a4"}]}),
        "settings.output.mode",
        "unknown variant `stream`",
    );
}

// ---- tables

/// An A4 page holding one 100 mm table with a fixed column `a` (50 mm), an
/// auto column `b` and one row; the fields of `extra` replace the table's.
fn two_column_table(extra: Value) -> Value {
    let mut t = json!({"type": "table", "x": 0, "y": 0, "width": 100,
        "columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}, {"key": "b", "width": {"mode": "auto"}}],
        "rows": [{"a": "1", "b": "2"}]});
    for (k, v) in extra.as_object().unwrap() {
        t[k] = v.clone();
    }
    json!({"pages": [{"size": "a4", "elements": [t]}]})
}

#[test]
fn a_row_key_that_is_not_a_column_key_is_refused() {
    assert_violation(
        two_column_table(json!({"rows": [{"c": 1}]})),
        "pages[0].elements[0].rows[0].c",
        "not a declared column key",
    );
}

#[test]
fn the_older_table_data_payload_is_refused() {
    assert_violation(
        two_column_table(json!({"data": []})),
        "pages[0].elements[0].data",
        "older table payload",
    );
}

#[test]
fn a_table_needs_at_least_1_column() {
    assert_violation(
        two_column_table(json!({"columns": []})),
        "pages[0].elements[0].columns",
        "at least 1 column",
    );
}

#[test]
fn column_keys_must_be_unique() {
    assert_violation(
        two_column_table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}, {"key": "a", "width": {"mode": "fixed", "value": 50}}]}),
        ),
        "pages[0].elements[0].columns[1].key",
        "already the key",
    );
}

#[test]
fn percent_column_widths_must_add_up_to_at_most_100() {
    assert_violation(
        two_column_table(
            json!({"columns": [{"key": "a", "width": {"mode": "percent", "value": 60}}, {"key": "b", "width": {"mode": "percent", "value": 50}}]}),
        ),
        "pages[0].elements[0].columns",
        "at most 100",
    );
}

#[test]
fn auto_columns_need_a_table_width() {
    assert_violation(
        two_column_table(
            json!({"width": null, "columns": [{"key": "a", "width": {"mode": "auto"}}]}),
        ),
        "pages[0].elements[0].columns[0].width.mode",
        "need `table.width`",
    );
}

#[test]
fn fixed_columns_must_leave_width_for_the_auto_columns() {
    assert_violation(
        two_column_table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 100}}, {"key": "b", "width": {"mode": "auto"}}]}),
        ),
        "pages[0].elements[0].width",
        "no width for the auto columns",
    );
}

#[test]
fn without_auto_columns_the_columns_must_fill_the_table_width_exactly() {
    assert_violation(
        two_column_table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 40}}, {"key": "b", "width": {"mode": "fixed", "value": 40}}]}),
        ),
        "pages[0].elements[0].width",
        "must fill it exactly",
    );
}

#[test]
fn row_header_columns_must_be_contiguous_and_leftmost() {
    assert_violation(
        two_column_table(
            json!({"columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}, {"key": "b", "role": "row_header", "width": {"mode": "auto"}}]}),
        ),
        "pages[0].elements[0].columns[1].role",
        "contiguous and leftmost",
    );
}

#[test]
fn a_col_span_past_the_last_column_is_refused() {
    assert_violation(
        two_column_table(json!({"rows": [{"a": {"value": 1, "col_span": 3}}]})),
        "pages[0].elements[0].rows[0].a.col_span",
        "past the last column",
    );
}

#[test]
fn a_row_span_past_the_last_row_is_refused() {
    assert_violation(
        two_column_table(json!({"rows": [{"a": {"value": 1, "row_span": 2}}]})),
        "pages[0].elements[0].rows[0].a.row_span",
        "past the last row",
    );
}

#[test]
fn a_cell_covered_by_a_col_span_is_refused() {
    assert_violation(
        two_column_table(json!({"rows": [{"a": {"value": 1, "col_span": 2}, "b": "x"}]})),
        "pages[0].elements[0].rows[0].b",
        "covered by the span",
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
}

#[test]
fn keep_spans_together_must_stay_true_when_cells_use_row_span() {
    assert_violation(
        two_column_table(
            json!({"rows": [{"a": {"value": 1, "row_span": 2}}, {"a": 2}], "pagination": {"keep_spans_together": false}}),
        ),
        "pages[0].elements[0].pagination.keep_spans_together",
        "must be true",
    );
}

#[test]
fn an_array_is_not_a_cell() {
    assert_violation(
        two_column_table(json!({"rows": [{"a": [1]}]})),
        "pages[0].elements[0].rows[0].a",
        "cell is a string",
    );
}

#[test]
fn a_grid_frame_of_true_is_refused() {
    assert_violation(
        two_column_table(json!({"grid": {"frame": true}})),
        "pages[0].elements[0].grid.frame",
        "`false` or a stroke",
    );
}

#[test]
fn a_row_that_is_not_an_object_is_refused() {
    assert_violation(
        two_column_table(json!({"rows": [{"a": "1"}, 7]})),
        "pages[0].elements[0].rows[1]",
        "must be an object",
    );
}

#[test]
fn rows_that_are_not_an_array_are_refused() {
    assert_violation(
        two_column_table(json!({"rows": {"a": "1"}})),
        "pages[0].elements[0].rows",
        "must be an array",
    );
}

#[test]
fn a_table_without_rows_is_refused() {
    let mut without_rows = two_column_table(json!({}));
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

// ---- stacks

/// An empty table with one fixed 50 mm column `a`.
fn empty_table() -> Value {
    json!({"type": "table", "x": 0, "y": 0, "columns": [{"key": "a", "width": {"mode": "fixed", "value": 50}}], "rows": []})
}

/// An A6 page holding one stack of `children`.
fn stack_of(children: Value) -> Value {
    json!({"pages": [{"size": "a6", "elements": [{"type": "stack", "children": children}]}]})
}

#[test]
fn a_stack_needs_at_least_2_children() {
    let t = empty_table();
    assert_violation(
        stack_of(json!([t.clone()])),
        "pages[0].elements[0].children",
        "at least 2 children",
    );
}

#[test]
fn a_stack_must_start_with_a_table() {
    let t = empty_table();
    assert_violation(
        stack_of(json!([{"type": "block", "elements": []}, t.clone()])),
        "pages[0].elements[0].children[0].type",
        "must be a table",
    );
}

#[test]
fn a_stack_must_continue_with_a_block() {
    let t = empty_table();
    assert_violation(
        stack_of(json!([t.clone(), t.clone()])),
        "pages[0].elements[0].children[1].type",
        "must be a block",
    );
}

#[test]
fn a_block_cannot_contain_a_table() {
    let t = empty_table();
    assert_violation(
        stack_of(json!([t.clone(), {"type": "block", "elements": [t.clone()]}])),
        "pages[0].elements[0].children[1].elements[0].type",
        "cannot contain",
    );
}

#[test]
fn a_block_taller_than_a_sheet_body_is_refused() {
    let t = empty_table();
    assert_violation(
        stack_of(
            json!([t.clone(), {"type": "block", "elements": [{"type": "rect", "x": 0, "y": 0, "width": 10, "height": 500}]}]),
        ),
        "pages[0].elements[0].children[1]",
        "a sheet's body holds only",
    );
}

#[test]
fn table_anchors_are_allowed_inside_blocks() {
    let t = empty_table();
    let anchored = json!({"type": "block", "elements": [{"type": "rect", "x_anchor": {"reference": "table_right", "offset": 0}, "y": 0, "width": 10, "height": 5}]});
    let ok = stack_of(json!([t, anchored]));
    assert!(
        ENGINE.validate(&serde_json::to_vec(&ok).unwrap()).is_ok(),
        "table anchors are allowed inside blocks"
    );
}

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

// ---- barcodes

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
