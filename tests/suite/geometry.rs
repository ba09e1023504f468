//! Where things land: read back from the PDF in mm.

use serde_json::json;

use crate::support::*;

/// DejaVu Sans typographic ascender (OS/2 1556/2048 em, the metric typst uses):
/// the first baseline sits this far below the box top.
const ASCENDER: f64 = 1556.0 / 2048.0;
/// DejaVu Sans typographic descender (492/2048 em).
const DESCENDER: f64 = 492.0 / 2048.0;
const PT: f64 = 25.4 / 72.0;

#[test]
fn text_top_and_left_land_at_the_requested_mm() {
    let pdf = render(page_with(
        100.0,
        150.0,
        json!([
            {"type": "text", "x": 12.3, "y": 45.6, "content": "Placed", "style": {"font_size": 10}}
        ]),
    ));
    let s = pdf.span(0, "Placed");
    approx(f(s, "x0"), 12.3, 0.2, "left edge");
    approx(f(s, "y0"), 45.6, 0.2, "top edge");
    approx(
        f(s, "origin_y"),
        45.6 + ASCENDER * 10.0 * PT,
        0.2,
        "baseline",
    );
}

#[test]
fn every_preset_has_its_size() {
    for (name, w, h) in [
        ("a4", 210.0, 297.0),
        ("A6", 105.0, 148.0),
        ("letter", 215.9, 279.4),
        ("Legal", 215.9, 355.6),
        ("label_100_100", 100.0, 100.0),
        ("LABEL_100_150", 100.0, 150.0),
        ("label_4_6_in", 101.6, 152.4),
    ] {
        let pdf = render(json!({"pages": [{"size": name, "elements": []}]}));
        approx(f(pdf.page(0), "width"), w, 0.05, name);
        approx(f(pdf.page(0), "height"), h, 0.05, name);
    }
}

#[test]
fn custom_page_sizes_are_exact() {
    let pdf = render(page_with(62.0, 29.0, json!([])));
    approx(f(pdf.page(0), "width"), 62.0, 0.01, "width");
    approx(f(pdf.page(0), "height"), 29.0, 0.01, "height");
}

#[test]
fn header_and_footer_repeat_on_every_sheet_with_page_numbers() {
    let pdf = render(json!({
        "header": {"height": 10, "elements": [{"type": "text", "x": 5, "y": 2, "content": "HEAD {page}"}]},
        "footer": {"height": 12, "elements": [{"type": "text", "x": 5, "y": 3, "content": "Page {page} of {total_pages}"}]},
        "pages": [
            {"size": "a6", "elements": [{"type": "text", "x": 5, "y": 20, "content": "first"}]},
            {"size": "a6", "elements": [{"type": "text", "x": 5, "y": 20, "content": "second"}]},
            {"size": "a6"}
        ]
    }));
    assert_eq!(pdf.page_count(), 3);
    for page in 0..3 {
        let n = page + 1;
        let head = pdf.span(page, &format!("HEAD {n}"));
        approx(
            f(head, "origin_y"),
            2.0 + ASCENDER * 10.0 * PT,
            0.2,
            "header baseline",
        );
        let foot = pdf.span(page, &format!("Page {n} of 3"));
        // Footer elements shift down by page height minus footer height.
        approx(
            f(foot, "origin_y"),
            148.0 - 12.0 + 3.0 + ASCENDER * 10.0 * PT,
            0.2,
            "footer baseline",
        );
    }
}

#[test]
fn margins_make_body_coordinates_relative_to_the_content_box() {
    let pdf = render(json!({
        "settings": {"page_margin": {"top": 10, "left": 20, "right": 5, "bottom": 5}},
        "header": {"height": 5, "elements": [{"type": "text", "x": 1, "y": 1, "content": "H"}]},
        "pages": [{"size": "a6", "elements": [{"type": "rect", "x": 0, "y": 0, "width": 30, "height": 10, "fill": {"color": "#ff0000"}}]}]
    }));
    let rect = pdf
        .drawings(0)
        .into_iter()
        .find(|d| d["fill"] == "#ff0000")
        .expect("red rect");
    approx(f(rect, "x0"), 20.0, 0.6, "rect left (stroke included)");
    approx(f(rect, "y0"), 10.0, 0.6, "rect top (stroke included)");
    // The header keeps page coordinates.
    approx(f(pdf.span(0, "H"), "x0"), 1.0, 0.2, "header x");
}

#[test]
fn shapes_have_their_geometry_and_colours() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "rect", "x": 10, "y": 20, "width": 30, "height": 15, "fill": {"color": "#00ff00"}, "stroke": {"width": 0}},
            {"type": "circle", "cx": 70, "cy": 30, "r": 5, "fill": {"color": "#0000ff"}, "stroke": {"color": "#ff0000", "width": 0.5}},
            {"type": "ellipse", "cx": 50, "cy": 70, "rx": 20, "ry": 5, "fill": {"color": "#123456"}, "stroke": {"width": 0}},
            {"type": "line", "x1": 10, "y1": 90, "x2": 90, "y2": 90, "stroke": {"color": "#abcdef", "width": 1}}
        ]),
    ));
    let d = pdf.drawings(0);
    let find = |colour: &str| {
        d.iter()
            .find(|x| x["fill"] == colour || x["stroke"] == colour)
            .copied()
            .unwrap_or_else(|| panic!("no {colour} drawing in {d:?}"))
    };
    let rect = find("#00ff00");
    approx(f(rect, "x0"), 10.0, 0.1, "rect x0");
    approx(f(rect, "y0"), 20.0, 0.1, "rect y0");
    approx(f(rect, "x1"), 40.0, 0.1, "rect x1");
    approx(f(rect, "y1"), 35.0, 0.1, "rect y1");
    let circle = find("#0000ff");
    approx(
        (f(circle, "x0") + f(circle, "x1")) / 2.0,
        70.0,
        0.1,
        "circle cx",
    );
    approx(
        (f(circle, "y0") + f(circle, "y1")) / 2.0,
        30.0,
        0.1,
        "circle cy",
    );
    approx(
        f(circle, "x1") - f(circle, "x0"),
        10.0,
        0.6,
        "circle diameter",
    );
    let ellipse = find("#123456");
    approx(
        f(ellipse, "x1") - f(ellipse, "x0"),
        40.0,
        0.1,
        "ellipse width",
    );
    approx(
        f(ellipse, "y1") - f(ellipse, "y0"),
        10.0,
        0.1,
        "ellipse height",
    );
    let line = find("#abcdef");
    approx(f(line, "width"), 1.0, 0.01, "line width");
    approx(f(line, "x0"), 10.0, 0.1, "line start");
    approx(f(line, "x1"), 90.0, 0.1, "line end");
}

#[test]
fn omitted_strokes_use_the_spec_defaults() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "line", "x1": 10, "y1": 10, "x2": 90, "y2": 10},
            {"type": "rect", "x": 10, "y": 20, "width": 30, "height": 15}
        ]),
    ));
    let d = pdf.drawings(0);
    let widths: Vec<f64> = d
        .iter()
        .filter(|x| x["stroke"] == "#000000")
        .map(|x| f(x, "width"))
        .collect();
    assert!(
        widths.iter().any(|w| (w - 0.4).abs() < 0.01),
        "line default 0.4 mm: {widths:?}"
    );
    assert!(
        widths.iter().any(|w| (w - 1.0).abs() < 0.01),
        "shape default 1.0 mm: {widths:?}"
    );
    assert!(
        d.iter().all(|x| x["fill"].is_null()),
        "no fill by default: {d:?}"
    );
}

#[test]
fn corner_radius_falls_back_to_settings_defaults() {
    let pdf = render(json!({
        "settings": {"defaults": {"shape": {"corner_radius": 4}}},
        "pages": [{"width": 100, "height": 100, "elements": [
            {"type": "rect", "x": 10, "y": 10, "width": 40, "height": 20, "stroke": {"color": "#ff0000", "width": 0.2}},
            {"type": "rect", "x": 10, "y": 50, "width": 40, "height": 20, "corner_radius": 0, "stroke": {"color": "#00ff00", "width": 0.2}}
        ]}]
    }));
    let d = pdf.drawings(0);
    let rounded = d.iter().find(|x| x["stroke"] == "#ff0000").unwrap();
    let square = d.iter().find(|x| x["stroke"] == "#00ff00").unwrap();
    let curves = |x: &serde_json::Value| {
        x["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["kind"] == "c")
            .count()
    };
    assert!(
        curves(rounded) >= 4,
        "rounded corners are curves: {rounded}"
    );
    assert_eq!(curves(square), 0, "element radius 0 wins over the default");
}

#[test]
fn rotation_is_clockwise_with_the_rotated_box_at_x_y() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 40, "y": 10, "content": "ROTATED", "rotation": 90},
            {"type": "rect", "x": 10, "y": 10, "width": 20, "height": 5, "rotation": 90, "fill": {"color": "#ff00ff"}, "stroke": {"width": 0}}
        ]),
    ));
    let s = pdf.span(0, "ROTATED");
    let dir = s["dir"].as_array().unwrap();
    // Clockwise 90 degrees: text runs downwards (y grows).
    approx(dir[0].as_f64().unwrap(), 0.0, 0.01, "dir x");
    approx(dir[1].as_f64().unwrap(), 1.0, 0.01, "dir y");
    approx(f(s, "y0"), 10.0, 0.3, "rotated box top");
    // The line box's extra leading (line height minus ascender and descender)
    // is at its bottom, which the clockwise turn puts on the left.
    approx(
        f(s, "x0"),
        40.0 + (1.2 - ASCENDER - DESCENDER) * 10.0 * PT,
        0.2,
        "rotated box left",
    );
    let rect = pdf
        .drawings(0)
        .into_iter()
        .find(|d| d["fill"] == "#ff00ff")
        .unwrap();
    approx(f(rect, "x0"), 10.0, 0.05, "rect x0");
    approx(f(rect, "y0"), 10.0, 0.05, "rect y0");
    approx(f(rect, "x1") - f(rect, "x0"), 5.0, 0.05, "rotated width");
    approx(f(rect, "y1") - f(rect, "y0"), 20.0, 0.05, "rotated height");
}

#[test]
fn z_index_orders_drawing_with_ties_in_array_order() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "rect", "x": 10, "y": 10, "width": 10, "height": 10, "z_index": 2, "fill": {"color": "#ff0000"}, "stroke": {"width": 0}},
            {"type": "rect", "x": 10, "y": 10, "width": 10, "height": 10, "z_index": 1, "fill": {"color": "#00ff00"}, "stroke": {"width": 0}},
            {"type": "rect", "x": 10, "y": 10, "width": 10, "height": 10, "z_index": 1, "fill": {"color": "#0000ff"}, "stroke": {"width": 0}}
        ]),
    ));
    let order: Vec<String> = pdf
        .drawings(0)
        .iter()
        .map(|d| d["fill"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(order, ["#00ff00", "#0000ff", "#ff0000"]);
}

#[test]
fn x_anchor_resolves_against_page_and_content_edges() {
    let pdf = render(json!({
        "settings": {"page_margin": {"left": 10, "right": 15, "top": 5, "bottom": 5}},
        "pages": [{"width": 100, "height": 100, "elements": [
            {"type": "rect", "x_anchor": {"reference": "content_right", "offset": 5}, "y": 0, "width": 20, "height": 5, "fill": {"color": "#ff0000"}, "stroke": {"width": 0}},
            {"type": "rect", "x_anchor": {"reference": "content_left", "offset": 3}, "y": 10, "width": 20, "height": 5, "fill": {"color": "#00ff00"}, "stroke": {"width": 0}},
            {"type": "text", "x_anchor": {"reference": "page_right", "offset": 20}, "y": 20, "content": "R", "style": {"width": 10, "text_align": "right"}}
        ]}]
    }));
    let d = pdf.drawings(0);
    let red = d.iter().find(|x| x["fill"] == "#ff0000").unwrap();
    approx(
        f(red, "x1"),
        100.0 - 15.0 - 5.0,
        0.05,
        "right-anchored right edge",
    );
    let green = d.iter().find(|x| x["fill"] == "#00ff00").unwrap();
    approx(f(green, "x0"), 13.0, 0.05, "left-anchored left edge");
    // page_right - offset - width = 70; right-aligned text ends at 80.
    approx(
        f(pdf.span(0, "R"), "x1"),
        80.0,
        0.3,
        "right-aligned text end",
    );
}

#[test]
fn wrapped_text_stays_inside_its_width_and_lines_are_line_height_apart() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 10, "y": 10, "content": "one two three four five six seven eight nine ten",
             "style": {"width": 30, "font_size": 10, "line_height": 1.5}}
        ]),
    ));
    let spans = pdf.spans(0);
    assert!(spans.len() >= 3, "the text wraps: {spans:?}");
    for s in &spans {
        // A span's box includes the trailing space where the line broke.
        let space = if s["text"].as_str().unwrap().ends_with(' ') {
            3.18 * PT
        } else {
            0.0
        };
        assert!(f(s, "x1") <= 40.2 + space, "span inside width: {s}");
    }
    let gap = f(spans[1], "origin_y") - f(spans[0], "origin_y");
    approx(gap, 1.5 * 10.0 * PT, 0.05, "baseline distance");
}

#[test]
fn text_without_width_never_wraps() {
    let long = "word ".repeat(40);
    let pdf = render(page_with(
        50.0,
        50.0,
        json!([{"type": "text", "x": 1, "y": 1, "content": long.trim()}]),
    ));
    let ys: Vec<f64> = pdf.spans(0).iter().map(|s| f(s, "origin_y")).collect();
    assert!(
        ys.iter().all(|y| (y - ys[0]).abs() < 0.01),
        "one line: {ys:?}"
    );
}

#[test]
fn explicit_line_breaks_and_alignment() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 10, "y": 10, "content": "left\nsecond", "style": {"width": 50}},
            {"type": "text", "x": 10, "y": 40, "content": "centre", "style": {"width": 50, "text_align": "center"}}
        ]),
    ));
    assert!(f(pdf.span(0, "second"), "origin_y") > f(pdf.span(0, "left"), "origin_y") + 3.0);
    let c = pdf.span(0, "centre");
    approx((f(c, "x0") + f(c, "x1")) / 2.0, 35.0, 0.3, "centred");
}

#[test]
fn vertical_align_bottom_puts_the_last_line_at_the_box_bottom() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 10, "y": 10, "content": "low", "style": {"width": 50, "height": 30, "vertical_align": "bottom", "font_size": 10}}
        ]),
    ));
    // The line box is line_height x size tall; its top is 40 - 12 pt.
    let line_top = 40.0 - 1.2 * 10.0 * PT;
    approx(
        f(pdf.span(0, "low"), "origin_y"),
        line_top + ASCENDER * 10.0 * PT,
        0.2,
        "bottom-aligned baseline",
    );
}

#[test]
fn bold_weight_and_rich_text_tags_change_the_font() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 10, "y": 10, "content": "plain [B]heavy[/B] [L]big[/L]", "style": {"font_size": 10}},
            {"type": "text", "x": 10, "y": 30, "content": "bold", "style": {"font_weight": "bold", "color": "#1a4fa0"}}
        ]),
    ));
    assert!(pdf.span(0, "heavy")["font"]
        .as_str()
        .unwrap()
        .contains("Bold"));
    assert!(!pdf.span(0, "plain")["font"]
        .as_str()
        .unwrap()
        .contains("Bold"));
    approx(f(pdf.span(0, "big"), "size"), 15.0, 0.01, "[L] is 1.5x");
    let b = pdf.span(0, "bold");
    assert!(b["font"].as_str().unwrap().contains("Bold"));
    assert_eq!(b["color"], "#1a4fa0");
}

#[test]
fn ellipsis_cuts_text_to_its_width() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 10, "y": 10, "content": "A very long product description that cannot fit", "style": {"width": 30, "text_overflow": "ellipsis"}}
        ]),
    ));
    let text = pdf.text(0);
    assert!(text.ends_with('…'), "ellipsis at the end: {text}");
    assert!(text.starts_with("A very"), "{text}");
    for s in pdf.spans(0) {
        assert!(f(s, "x1") <= 40.2, "inside the width: {s}");
        approx(
            f(s, "origin_y"),
            f(pdf.spans(0)[0], "origin_y"),
            0.01,
            "one line",
        );
    }
}

#[test]
fn shrink_to_fit_lowers_the_size_but_not_below_the_minimum() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 10, "y": 10, "content": "Shrinking headline text", "style": {"width": 40, "font_size": 20, "shrink_to_fit": true}},
            {"type": "text", "x": 10, "y": 40, "content": "Floor reached here with a very long line of text", "style": {"width": 10, "font_size": 20, "shrink_to_fit": true, "min_font_size": 6}}
        ]),
    ));
    let s = pdf.span(0, "Shrinking");
    assert!(f(s, "size") < 20.0 && f(s, "size") > 4.0, "{s}");
    assert!(f(s, "x1") <= 50.2, "fits its width: {s}");
    approx(
        f(pdf.span(0, "Floor"), "size"),
        6.0,
        0.05,
        "stops at min_font_size",
    );
}

#[test]
fn clip_cuts_content_at_the_box() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 10, "y": 10, "content": "one two three four five six seven", "style": {"width": 20, "height": 5, "text_overflow": "clip"}}
        ]),
    ));
    // Clipped text is still in the content stream; the clip path is a drawing-free box.
    assert!(pdf.text(0).contains("one"));
}

#[test]
fn url_and_page_links_land_where_asked() {
    let pdf = render(json!({"pages": [
        {"width": 100, "height": 100, "elements": [
            {"type": "link", "x": 10, "y": 20, "width": 30, "height": 8, "target": {"type": "url", "url": "  https://example.com/a  "}},
            {"type": "text", "x": 10, "y": 50, "content": "go", "link": {"target": {"type": "page", "page": 2, "x": 0, "y": 40}, "padding": 2}}
        ]},
        {"width": 100, "height": 100, "elements": []}
    ]}));
    let links = pdf.links(0);
    let url = links
        .iter()
        .find(|l| l["uri"] == "https://example.com/a")
        .expect("trimmed URL link");
    approx(f(url, "x0"), 10.0, 0.05, "link x0");
    approx(f(url, "y0"), 20.0, 0.05, "link y0");
    approx(f(url, "x1"), 40.0, 0.05, "link x1");
    approx(f(url, "y1"), 28.0, 0.05, "link y1");
    let page = links
        .iter()
        .find(|l| l["page"] == 1)
        .expect("page link to the second sheet");
    approx(f(page, "to_y"), 40.0, 0.2, "destination y");
    approx(f(page, "x0"), 8.0, 0.05, "padding grows the area");
    approx(f(page, "y0"), 48.0, 0.05, "padding grows the area");
}

#[test]
fn a_link_on_a_line_covers_at_least_its_stroke() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "line", "x1": 10, "y1": 30, "x2": 60, "y2": 30, "stroke": {"width": 2},
             "link": {"target": {"type": "url", "url": "https://example.com/h"}}},
            {"type": "line", "x1": 80, "y1": 10, "x2": 80, "y2": 50, "stroke": {"width": 1},
             "link": {"target": {"type": "url", "url": "https://example.com/v"}}}
        ]),
    ));
    let links = pdf.links(0);
    let find = |uri: &str| *links.iter().find(|l| l["uri"] == uri).expect(uri);
    let h = find("https://example.com/h");
    approx(f(h, "x0"), 9.0, 0.05, "horizontal x0");
    approx(f(h, "x1"), 61.0, 0.05, "horizontal x1");
    approx(
        f(h, "y0"),
        29.0,
        0.05,
        "horizontal area reaches the stroke's top",
    );
    approx(
        f(h, "y1"),
        31.0,
        0.05,
        "horizontal area reaches the stroke's bottom",
    );
    let v = find("https://example.com/v");
    approx(f(v, "x0"), 79.5, 0.05, "vertical x0");
    approx(f(v, "x1"), 80.5, 0.05, "vertical x1");
    approx(f(v, "y0"), 9.5, 0.05, "vertical y0");
    approx(f(v, "y1"), 50.5, 0.05, "vertical y1");
    // The stroke itself has not moved.
    let stroke = pdf
        .drawings(0)
        .into_iter()
        .find(|d| d["width"].as_f64().is_some_and(|w| (w - 2.0).abs() < 0.05))
        .expect("the 2 mm stroke");
    approx(
        (f(stroke, "y0") + f(stroke, "y1")) / 2.0,
        30.0,
        0.1,
        "stroke centre",
    );
    approx(f(stroke, "x0"), 10.0, 1.0, "stroke start");
}

#[test]
fn link_border_draws_a_visible_frame() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "link", "x": 10, "y": 20, "width": 30, "height": 8, "target": {"type": "url", "url": "https://x.org"}, "border": {"color": "#ff0000", "width": 0.3}}
        ]),
    ));
    let frame = pdf
        .drawings(0)
        .into_iter()
        .find(|d| d["stroke"] == "#ff0000")
        .expect("border drawn");
    approx(f(frame, "width"), 0.3, 0.01, "border width");
}

#[test]
fn double_lines_are_two_strokes_with_the_gap_between() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "line", "x1": 10, "y1": 50, "x2": 90, "y2": 50, "stroke": {"width": 0.5, "color": "#ff0000", "compound": {"kind": "double", "gap": 1}}}
        ]),
    ));
    let mut ys: Vec<f64> = pdf
        .drawings(0)
        .iter()
        .filter(|d| d["stroke"] == "#ff0000")
        .map(|d| (f(d, "y0") + f(d, "y1")) / 2.0)
        .collect();
    ys.sort_by(f64::total_cmp);
    assert_eq!(ys.len(), 2, "two lines");
    approx(ys[1] - ys[0], 1.5, 0.05, "centre distance = gap + width");
    approx((ys[0] + ys[1]) / 2.0, 50.0, 0.05, "centred on the path");
}

#[test]
fn dashes_and_markers_are_drawn() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "line", "x1": 10, "y1": 20, "x2": 90, "y2": 20, "stroke": {"color": "#00ff00", "dash": {"preset": "dashed"}}},
            {"type": "line", "x1": 10, "y1": 60, "x2": 90, "y2": 60, "stroke": {"color": "#0000ff"}, "marker": {"end": "arrow", "size": 4}}
        ]),
    ));
    let d = pdf.drawings(0);
    let dashed = d.iter().find(|x| x["stroke"] == "#00ff00").unwrap();
    assert!(
        dashed["dashes"]
            .as_str()
            .unwrap_or("[] 0")
            .starts_with("[ ")
            || dashed["dashes"].as_str().unwrap().contains(' '),
        "{dashed}"
    );
    assert_ne!(dashed["dashes"], "[] 0");
    let arrow = d
        .iter()
        .find(|x| x["fill"] == "#0000ff")
        .expect("filled arrow head");
    approx(f(arrow, "x1"), 90.0, 0.05, "tip at the end point");
    approx(f(arrow, "x1") - f(arrow, "x0"), 4.0, 0.05, "marker size");
}

#[test]
fn polygons_use_their_fill_rule() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "polygon", "points": [{"x": 10, "y": 10}, {"x": 50, "y": 10}, {"x": 30, "y": 40}], "fill": {"color": "#ff0000", "rule": "even_odd"}, "stroke": {"width": 0}}
        ]),
    ));
    let p = pdf
        .drawings(0)
        .into_iter()
        .find(|d| d["fill"] == "#ff0000")
        .unwrap();
    assert_eq!(p["even_odd"], true);
    approx(f(p, "x0"), 10.0, 0.05, "x0");
    approx(f(p, "y1"), 40.0, 0.05, "y1");
}

#[test]
fn opacity_reaches_the_pdf() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "rect", "x": 10, "y": 10, "width": 10, "height": 10, "fill": {"color": "#ff0000", "opacity": 0.5}, "stroke": {"width": 0}}
        ]),
    ));
    let r = pdf
        .drawings(0)
        .into_iter()
        .find(|d| d["fill"] == "#ff0000")
        .unwrap();
    approx(f(r, "fill_opacity"), 0.5, 0.01, "fill opacity");
}

#[test]
fn images_fill_their_box_from_base64_data_uri_and_resource_files() {
    let png = std::fs::read(fixtures().join("dot.png")).unwrap();
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(&png);
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "image", "x": 10, "y": 10, "width": 20, "height": 20, "data": b64, "fit": "stretch"},
            {"type": "image", "x": 40, "y": 10, "width": 20, "height": 20, "data": format!("data:image/png;base64,{b64}"), "fit": "stretch"},
            {"type": "image", "x": 70, "y": 10, "width": 20, "height": 20, "data": "dot.png", "format": "png", "fit": "stretch"},
            {"type": "image", "x": 10, "y": 50, "width": 30, "height": 15, "data": "logo.svg"}
        ]),
    ));
    let imgs = pdf.images(0);
    assert_eq!(imgs.len(), 3, "three raster images: {imgs:?}");
    for (img, x) in imgs.iter().zip([10.0, 40.0, 70.0]) {
        approx(f(img, "x0"), x, 0.05, "image x");
        approx(f(img, "y0"), 10.0, 0.05, "image y");
        approx(f(img, "x1") - f(img, "x0"), 20.0, 0.05, "image width");
    }
    // The SVG becomes vector drawing inside its box.
    let svg = pdf
        .drawings(0)
        .into_iter()
        .find(|d| d["fill"] == "#336699")
        .expect("svg drawn");
    assert!(
        f(svg, "x0") >= 10.0 - 0.05 && f(svg, "x1") <= 40.05,
        "{svg}"
    );
}

/// A line of stroke width 0 is no stroke: it renders (found by the render
/// fuzzer: Typst's `line` refuses `stroke: none`) and draws nothing, while a
/// link on it still has its box.
#[test]
fn a_line_of_stroke_width_zero_renders_and_draws_nothing() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "line", "x1": 10, "y1": 20, "x2": 90, "y2": 20, "stroke": {"width": 0}},
            {"type": "line", "x1": 10, "y1": 40, "x2": 90, "y2": 40, "stroke": {"width": 0},
             "link": {"target": {"type": "url", "url": "https://example.com/"}}},
            {"type": "line", "x1": 10, "y1": 60, "x2": 90, "y2": 60, "stroke": {"width": 0.5}}
        ]),
    ));
    let drawings = pdf.drawings(0);
    assert_eq!(drawings.len(), 1, "only the 0.5 mm line: {drawings:?}");
    approx(f(drawings[0], "y0"), 60.0, 0.05, "the visible line");
    assert_eq!(pdf.links(0).len(), 1);
}

#[test]
fn content_anchors_in_header_and_footer_mean_the_page_edges() {
    // Sections ignore the margin, so `content_left`/`content_right` there
    // are the page's left and right edges (as `page_left`/`page_right`),
    // on every sheet at that sheet's width.
    let red = json!({"color": "#ff0000"});
    let green = json!({"color": "#00ff00"});
    let pdf = render(json!({
        "settings": {"page_margin": {"left": 20, "right": 30, "top": 15, "bottom": 15}},
        "header": {"height": 10, "elements": [
            {"type": "rect", "x_anchor": {"reference": "content_right", "offset": 5}, "y": 2, "width": 10, "height": 4, "fill": red, "stroke": {"width": 0}}
        ]},
        "footer": {"height": 10, "elements": [
            {"type": "rect", "x_anchor": {"reference": "content_left", "offset": 4}, "y": 2, "width": 10, "height": 4, "fill": green, "stroke": {"width": 0}}
        ]},
        "pages": [{"width": 100, "height": 60}, {"width": 140, "height": 60}]
    }));
    assert_eq!(pdf.page_count(), 2);
    for (page, width) in [(0, 100.0), (1, 140.0)] {
        let d = pdf.drawings(page);
        let head = d.iter().find(|x| x["fill"] == "#ff0000").unwrap();
        approx(
            f(head, "x1"),
            width - 5.0,
            0.05,
            "content_right in the header: the page's right edge",
        );
        approx(f(head, "y0"), 2.0, 0.05, "header y");
        let foot = d.iter().find(|x| x["fill"] == "#00ff00").unwrap();
        approx(
            f(foot, "x0"),
            4.0,
            0.05,
            "content_left in the footer: the page's left edge",
        );
        approx(f(foot, "y0"), 60.0 - 10.0 + 2.0, 0.05, "footer y");
    }
}

#[test]
fn a_link_in_the_hrt_style_covers_the_human_readable_text() {
    let pdf = render(page_with(
        100.0,
        60.0,
        json!([{"type": "barcode", "x": 10, "y": 10, "width": 60, "height": 20,
            "format": "code128", "content": "LP-4711",
            "hrt": {"enabled": true, "style": {"link": {"target": {"type": "url", "url": "https://example.com/track"}}}}}]),
    ));
    let links = pdf.links(0);
    assert_eq!(links.len(), 1, "{links:?}");
    let l = links[0];
    assert_eq!(l["uri"], "https://example.com/track");
    // The text line (8 pt at line height 1.2) at the bottom of the box, as wide as the box.
    let line = 1.2 * 8.0 * PT;
    approx(f(l, "x0"), 10.0, 0.1, "link left = box left");
    approx(f(l, "x1"), 70.0, 0.1, "link right = box right");
    approx(f(l, "y1"), 30.0, 0.1, "link bottom = box bottom");
    approx(f(l, "y0"), 30.0 - line, 0.1, "link top = text line top");
    let text = pdf.span(0, "LP-4711");
    assert!(f(text, "y0") >= f(l, "y0") - 0.1 && f(text, "y1") <= f(l, "y1") + 0.1);
}
