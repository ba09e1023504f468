//! Every script of the world's addresses prints (issue 16): each text is set
//! in its family and then the fallback families, every glyph drawn is a
//! real one (never .notdef, glyph 0), text extracts in logical order and
//! lies where it was placed; a character no font has is refused by name.
//!
//! Rendered with the system's fonts (Debian's fonts-noto-core and
//! fonts-noto-cjk, which `.ci/run` installs), read back with PyMuPDF.

use serde_json::{json, Value};

use labelpress::ir::Element;
use labelpress::rich_text::Line;

use crate::support::*;

fn render_with_system_fonts(request: &Value) -> Pdf {
    let body = serde_json::to_vec(request).unwrap();
    match SYSTEM_FONTS_ENGINE.render_bytes(&body) {
        Ok(r) => read_pdf(r.bytes),
        Err(e) => panic!(
            "render failed: {e} (are fonts-noto-core and fonts-noto-cjk installed? \
             .ci/run installs them)\nrequest: {request}"
        ),
    }
}

/// The lines layout fitted for the request's first element, a text.
fn measured_lines(request: &Value) -> Vec<Line> {
    let laid = SYSTEM_FONTS_ENGINE
        .validate(&serde_json::to_vec(request).unwrap())
        .unwrap();
    let Element::Text(text) = &laid.document.pages[0].elements[0] else {
        panic!("a text element");
    };
    text.fitted.lines.clone()
}

/// The x (mm) of the first glyph drawn for `c` on the first page.
fn glyph_x(pdf: &Pdf, c: &str) -> f64 {
    let glyph = pdf
        .glyphs(0)
        .into_iter()
        .find(|g| g["char"] == c)
        .unwrap_or_else(|| panic!("{c} drawn"));
    f(glyph, "x")
}

fn without_spaces(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `content` at (10, 20) mm, 14 pt, beside a Latin reference at (70, 20):
/// every glyph is real, the text reads back in logical order, starts at
/// x = 10 mm and sits on the reference's baseline.
fn prints(content: &str) {
    let pdf = render_with_system_fonts(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 20, "content": content, "style": {"font_size": 14}},
        {"type": "text", "x": 70, "y": 20, "content": "Ref", "style": {"font_size": 14}}
    ]}]}));
    let glyphs = pdf.glyphs(0);
    assert!(glyphs.len() > 3, "glyphs drawn: {glyphs:?}");
    let missing: Vec<_> = glyphs.iter().filter(|g| g["gid"] == 0).collect();
    assert!(missing.is_empty(), "{content}: missing glyphs {missing:?}");

    let spans: Vec<&Value> = pdf
        .spans(0)
        .into_iter()
        .filter(|s| !s["text"].as_str().unwrap().contains("Ref"))
        .collect();
    let text: String = spans.iter().map(|s| s["text"].as_str().unwrap()).collect();
    assert_eq!(
        without_spaces(&text),
        without_spaces(content),
        "extracted in logical order"
    );
    let left = spans.iter().map(|s| f(s, "x0")).fold(f64::MAX, f64::min);
    approx(left, 10.0, 0.5, "left edge (mm)");
    let reference = pdf.span(0, "Ref");
    for s in &spans {
        approx(
            f(s, "origin_y"),
            f(reference, "origin_y"),
            0.05,
            "baseline against the Latin reference (mm)",
        );
    }
}

macro_rules! script_tests {
    ($($name:ident: $text:expr,)*) => {$(
        #[test]
        fn $name() {
            prints($text);
        }
    )*};
}

script_tests! {
    japanese_prints: "東京都千代田区",
    simplified_chinese_prints: "北京市朝阳区建国路",
    traditional_chinese_prints: "臺北市信義區",
    korean_prints: "서울특별시",
    thai_prints: "กรุงเทพ",
    devanagari_prints: "नई दिल्ली",
    bengali_prints: "ঢাকা",
    tamil_prints: "சென்னை",
    arabic_with_latin_digits_prints: "شارع الملك فهد 45",
    hebrew_with_latin_digits_prints: "שדרות רוטשילד 12",
    cyrillic_prints: "Москва",
    greek_prints: "Αθήνα",
    symbols_print: "☎ ✉ ✈",
}

#[test]
fn latin_text_keeps_the_requested_family_and_cjk_falls_back() {
    let pdf = render_with_system_fonts(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 20, "content": "Tokyo 東京"}
    ]}]}));
    for g in pdf.glyphs(0) {
        let font = g["font"].as_str().unwrap();
        let c = g["char"].as_str().unwrap();
        if c.is_ascii() && c != " " {
            assert!(font.contains("DejaVuSans"), "{c} in {font}");
        } else if c != " " {
            assert!(font.contains("CJK"), "{c} in {font}");
        }
    }
}

/// A right-to-left paragraph runs right to left: the house number, typed
/// last, prints at the left end, and with a width the text is right-aligned
/// unless `text_align` says otherwise.
#[test]
fn right_to_left_text_is_set_right_to_left_and_right_aligned_by_default() {
    let pdf = render_with_system_fonts(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 20, "content": "שדרות רוטשילד 12"},
        {"type": "text", "x": 10, "y": 40, "content": "شارع الملك فهد 45", "style": {"width": 80}},
        {"type": "text", "x": 10, "y": 60, "content": "شارع الملك فهد 45",
            "style": {"width": 80, "text_align": "left"}}
    ]}]}));
    assert!(
        glyph_x(&pdf, "2") < glyph_x(&pdf, "ש"),
        "the number, typed last, prints left of the street"
    );
    let spans = pdf.spans(0);
    let at = |y: f64| -> Vec<&Value> {
        spans
            .iter()
            .copied()
            .filter(|s| (f(s, "y0") - y).abs() < 4.0)
            .collect()
    };
    let right = at(40.0).iter().map(|s| f(s, "x1")).fold(0.0, f64::max);
    approx(right, 90.0, 0.5, "right-aligned in its 80 mm box");
    let left = at(60.0).iter().map(|s| f(s, "x0")).fold(f64::MAX, f64::min);
    approx(left, 10.0, 0.5, "text_align left");
}

/// The line count layout predicts for a wrapped Japanese address in a
/// 40 mm box is the line count the PDF shows (CJK breaks between
/// characters).
#[test]
fn a_wrapped_japanese_address_prints_the_lines_it_was_measured_to() {
    let request = json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 20, "style": {"font_size": 12, "width": 40},
         "content": "〒100-8111 東京都千代田区千代田一丁目一番一号 宮内庁管理部御中"}
    ]}]});
    let predicted = measured_lines(&request).len();
    assert!(predicted >= 3, "wraps: {predicted} lines");
    let pdf = render_with_system_fonts(&request);
    let mut baselines: Vec<f64> = pdf.spans(0).iter().map(|s| f(s, "origin_y")).collect();
    baselines.sort_by(f64::total_cmp);
    baselines.dedup_by(|a, b| (*a - *b).abs() < 0.1);
    assert_eq!(baselines.len(), predicted, "baselines {baselines:?}");
    for s in pdf.spans(0) {
        assert!(f(s, "x1") <= 50.0 + 0.3, "inside the 40 mm box: {s}");
    }
}

/// Thai has no spaces between words: it wraps at word boundaries (as Typst
/// does, by the same ICU segmenter), never inside a word.
#[test]
fn thai_wraps_between_words() {
    let request = json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 20, "style": {"font_size": 14, "width": 25},
         "content": "สวัสดีครับยินดีต้อนรับสู่ประเทศไทย"}
    ]}]});
    let lines: Vec<String> = measured_lines(&request).iter().map(|l| l.plain()).collect();
    assert!(lines.len() >= 3, "{lines:?}");
    let words = ["สวัสดี", "ครับ", "ยินดี", "ต้อนรับ", "สู่", "ประเทศ", "ไทย"];
    for line in &lines {
        let mut rest = line.as_str();
        while let Some(word) = words.iter().find(|w| rest.starts_with(**w)) {
            rest = &rest[word.len()..];
        }
        assert!(rest.is_empty(), "line {line:?} of {lines:?} is whole words");
    }
}

#[test]
fn a_character_no_font_has_is_refused_with_its_code_point_and_position() {
    assert_violation(
        page_with(
            100.0,
            100.0,
            json!([{"type": "text", "x": 5, "y": 5, "content": "ab[B]c\u{E000}[/B]"}]),
        ),
        "pages[0].elements[0].content",
        "U+E000 (character 7)",
    );
}

#[test]
fn a_character_no_font_has_is_refused_in_table_cells_and_headers() {
    let request = page_with(
        150.0,
        100.0,
        json!([{"type": "table", "x": 5, "y": 5,
            "columns": [{"key": "a", "header": "A\u{E001}", "width": {"mode": "fixed", "value": 40}},
                        {"key": "b", "width": {"mode": "fixed", "value": 40}}],
            "rows": [{"a": "fine", "b": "ok"}, {"a": "x", "b": "y\u{E002}"}]}]),
    );
    assert_violation(
        request.clone(),
        "pages[0].elements[0].columns[0].header",
        "U+E001 (character 2)",
    );
    assert_violation(
        request,
        "pages[0].elements[0].rows[1].b",
        "U+E002 (character 2)",
    );
}

#[test]
fn a_character_no_font_has_is_refused_in_human_readable_text() {
    let barcode = |hrt: Value| {
        page_with(
            100.0,
            100.0,
            json!([{"type": "barcode", "x": 5, "y": 5, "width": 60, "height": 20,
                "format": "code128", "content": "ABC123", "hrt": hrt}]),
        )
    };
    assert_violation(
        barcode(json!({"enabled": true, "content": "ABC\u{E003}"})),
        "pages[0].elements[0].hrt.content",
        "U+E003 (character 4)",
    );
    // Disabled, the text is never drawn and needs no glyphs.
    let body = serde_json::to_vec(&barcode(
        json!({"enabled": false, "content": "ABC\u{E003}"}),
    ))
    .unwrap();
    assert!(ENGINE.validate(&body).is_ok());
}

#[test]
fn an_unknown_family_names_the_closest_installed_ones() {
    assert_violation(
        page_with(
            100.0,
            100.0,
            json!([{"type": "text", "x": 5, "y": 5, "content": "x",
                "style": {"font_family": "Dejavu Snas"}}]),
        ),
        "pages[0].elements[0].style.font_family",
        "closest: `DejaVu Sans`",
    );
}

#[test]
fn a_character_no_font_has_is_refused_in_the_footer() {
    let mut request = page_with(100.0, 100.0, json!([]));
    request["footer"] = json!({"height": 10, "elements": [
        {"type": "text", "x": 5, "y": 2, "content": "Page {page} \u{E004}"}
    ]});
    assert_violation(
        request,
        "footer.elements[0].content",
        "U+E004 (character 13)",
    );
}

/// A right-to-left table cell runs right to left and, without `text_align`,
/// is right-aligned in its column.
#[test]
fn a_right_to_left_table_cell_is_right_aligned_by_default() {
    let pdf = render_with_system_fonts(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "table", "x": 10, "y": 10,
         "columns": [{"key": "street", "header": "Street", "width": {"mode": "fixed", "value": 60}}],
         "rows": [{"street": "שדרות רוטשילד 12"}, {"street": "Main Street 12"}]}
    ]}]}));
    let hebrew = pdf.span(0, "שדרות");
    let latin = pdf.span(0, "Main Street");
    // Column 10..70 mm with the default 1 mm padding.
    approx(f(hebrew, "x1"), 69.0, 0.5, "Hebrew cell's right edge");
    approx(f(latin, "x0"), 11.0, 0.5, "Latin cell's left edge");
    assert!(
        glyph_x(&pdf, "2") < glyph_x(&pdf, "ש"),
        "the number prints left of the street"
    );
}

/// `fonts.fallback` is the order: a configured Simplified Chinese face takes
/// Han characters, and a family that is not installed is skipped.
#[test]
fn the_configured_fallback_order_decides_the_face() {
    let config = labelpress::config::RuntimeConfig::from_toml(
        "[fonts]\nfallback = [\"No Such Family\", \"DejaVu Sans\", \"Noto Sans CJK SC\"]",
    )
    .unwrap();
    let engine = labelpress::Engine::new(
        config,
        &labelpress::engine::fonts::FontOptions::SYSTEM,
        None,
    );
    assert_eq!(
        engine.fonts().fallback(),
        ["DejaVu Sans", "Noto Sans CJK SC"],
        "installed families only, in order"
    );
    let request = json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 20, "content": "北京市 Beijing"}
    ]}]});
    let pdf = read_pdf(
        engine
            .render_bytes(&serde_json::to_vec(&request).unwrap())
            .unwrap()
            .bytes,
    );
    let han = pdf
        .glyphs(0)
        .into_iter()
        .find(|g| g["char"] == "北")
        .unwrap();
    assert!(
        han["font"].as_str().unwrap().contains("CJKsc"),
        "Han from the SC face: {han}"
    );
}
