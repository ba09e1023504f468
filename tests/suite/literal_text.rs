//! User text is data, never Typst code.

use serde_json::json;

use crate::support::*;

#[test]
fn typst_markup_renders_exactly_as_typed() {
    let hostile = [
        "#panic(\"x\")",
        "$x^2$",
        "*a* _b_",
        "<l> @r",
        "back\\slash \\\" quote\"",
        "// not a comment",
        "/* nor this */",
        "#{ 1 + 1 }",
        "= Heading",
        "- item",
        "`raw`",
        "~ nbsp",
        "#import \"/etc/passwd\"",
    ];
    let elements: Vec<_> = hostile
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"type": "text", "x": 5, "y": 5 + 8 * i, "content": t}))
        .collect();
    let pdf = render(page_with(150.0, 150.0, json!(elements)));
    let all: Vec<String> = pdf
        .spans(0)
        .iter()
        .map(|s| s["text"].as_str().unwrap().to_string())
        .collect();
    for t in hostile {
        assert!(
            all.iter().any(|s| s == t),
            "{t:?} not rendered literally; spans: {all:?}"
        );
    }
}

#[test]
fn page_variables_are_the_only_substitutions() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 5, "y": 5, "content": "{page}/{total_pages} {other} {{page}}"}
        ]),
    ));
    assert_eq!(pdf.text(0), "1/1 {other} {1}");
}

#[test]
fn unicode_renders_and_control_characters_are_refused_by_name() {
    let pdf = render(page_with(
        100.0,
        100.0,
        json!([
            {"type": "text", "x": 5, "y": 5, "content": "Grüße Ωmega end"}
        ]),
    ));
    assert!(pdf.text(0).contains("Grüße Ωmega end"), "{}", pdf.text(0));
    // A control character has no glyph in any font: refused, never a box.
    assert_violation(
        page_with(
            100.0,
            100.0,
            json!([
                {"type": "text", "x": 5, "y": 5, "content": "Grüße Ωmega\u{0007}end"}
            ]),
        ),
        "pages[0].elements[0].content",
        "U+0007 (character 12) is a control character",
    );
}
