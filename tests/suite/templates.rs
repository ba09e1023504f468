//! Templates (issue 31): a DocumentRequest with `{{placeholders}}` filled
//! from `data`, through the engine, the CLI and the render route.

use std::time::Duration;

use serde_json::{json, Value};
use time::OffsetDateTime;

use crate::server::{self, await_balance, new_token};
use crate::support::*;

fn example(name: &str) -> Vec<u8> {
    std::fs::read(manifest_dir().join("examples").join(name)).unwrap()
}

/// The engine's PDF of `body`, dated at a fixed instant.
fn pdf_at_fixed_time(body: &[u8]) -> Vec<u8> {
    let laid = ENGINE.validate(body).unwrap();
    let at = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    ENGINE.render_at(&laid, at).unwrap().bytes
}

/// examples/packing_slip_template.json is examples/packing_slip.json with
/// the order number, the recipient's company and contact as placeholders
/// and its 16 item rows as `rows_from` data (numbers among them).
#[test]
fn the_packing_slip_template_renders_byte_for_byte_as_the_slip_written_by_hand() {
    let template: Value = serde_json::from_slice(&example("packing_slip_template.json")).unwrap();
    let text = template["template"].to_string();
    assert!(text.contains("{{order.number}}") && text.contains("{{ship_to.company}}"));
    assert!(text.contains("\"rows_from\":\"lines\"") && !text.contains("\"rows\""));
    let by_hand = pdf_at_fixed_time(&example("packing_slip.json"));
    let filled = pdf_at_fixed_time(&example("packing_slip_template.json"));
    assert!(
        by_hand == filled,
        "the filled template's PDF differs from the hand-written one"
    );
}

fn one_text(content: &str) -> Value {
    json!({"pages": [{"width": 100, "height": 40, "elements": [
        {"type": "text", "x": 5, "y": 5, "content": content, "style": {"font_size": 10}}
    ]}]})
}

#[test]
fn values_print_as_text_whatever_typst_or_markup_they_hold() {
    let hostile = "#panic(\"x\") ] [B]bold[/B] \\ $ math $ // {{inner}} <a> *x* \"q\"";
    let body = json!({"template": one_text("{{v}}"), "data": {"v": hostile}});
    let pdf = render(body);
    // The filled string is the string written by hand: its rich-text tags
    // format it as they would there, and nothing of it is Typst.
    let by_hand = render(one_text(hostile));
    assert_eq!(pdf.text(0), by_hand.text(0));
    assert!(pdf.text(0).contains("#panic(\"x\") ]"), "{}", pdf.text(0));
    assert!(pdf.text(0).contains("{{inner}}"), "{}", pdf.text(0));
}

#[test]
fn a_plain_document_prints_its_braces_as_written() {
    let pdf = render(one_text("Hello {{recipient.name}}"));
    assert!(
        pdf.text(0).contains("Hello {{recipient.name}}"),
        "{}",
        pdf.text(0)
    );
}

#[test]
fn findings_of_the_filled_document_are_reported_at_paths_under_template() {
    // The filled document breaks a rule: its path is under `template`.
    let mut doc = one_text("{{v}}");
    doc["pages"][0]["elements"][0]["style"]["font_size"] = json!(-3);
    let found = violations(json!({"template": doc, "data": {"v": "x"}}));
    assert!(
        found
            .iter()
            .any(|v| v.path == "template.pages[0].elements[0].style.font_size"),
        "{found:?}"
    );
    let found = violations(json!({"template": one_text("{{v}}"), "data": {}}));
    assert_eq!(found[0].path, "template.pages[0].elements[0].content");
    assert!(
        found[0].message.contains("no key `v`"),
        "{}",
        found[0].message
    );
}

/// Over HTTP: a template renders and is charged one unit; a missing value
/// is 422 at its path and charged nothing.
#[tokio::test(flavor = "multi_thread")]
async fn the_render_route_fills_templates_and_charges_only_what_it_renders() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (id, token) = new_token(base, 5, None).await;

    let body = json!({"template": one_text("Ship to {{to.name}} ({{n}})"), "data": {"to": {"name": "Ada"}, "n": 7}});
    let r = server::render(base, &token, &body).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    let pdf = read_pdf(r.bytes.clone());
    assert!(pdf.text(0).contains("Ship to Ada (7)"), "{}", pdf.text(0));
    await_balance(base, &id, 4, Duration::from_secs(30)).await;

    let r = server::render(
        base,
        &token,
        &json!({"template": one_text("{{to.city}}"), "data": {"to": {}}}),
    )
    .await;
    let error = r.assert_error(422, "API-002");
    assert_eq!(
        error["details"][0]["path"],
        "template.pages[0].elements[0].content"
    );
    let r = server::render(
        base,
        &token,
        &json!({"template": one_text("x"), "data": [], "extra": 1}),
    )
    .await;
    let error = r.assert_error(422, "API-002");
    let paths: Vec<&str> = error["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["extra", "data"]);
    await_balance(base, &id, 4, Duration::from_secs(30)).await;
}

/// LP-W08: the new user's mistake the issue names: a template sent as a
/// plain document prints `{{recipient.name}}` literally, with a warning;
/// a filled template's escaped `{{` is meant and has none.
#[test]
fn a_placeholder_in_a_plain_document_is_warned_about_and_not_in_a_filled_one() {
    let codes_at = |body: Value| -> Vec<(String, String)> {
        let laid = ENGINE
            .validate(&serde_json::to_vec(&body).unwrap())
            .unwrap();
        labelpress::warnings::check(&laid)
            .into_iter()
            .map(|w| (w.path, w.code.to_string()))
            .collect()
    };
    let found = codes_at(one_text("Hello {{recipient.name}}"));
    assert_eq!(
        found,
        [(
            "pages[0].elements[0].content".to_string(),
            "LP-W08".to_string()
        )]
    );
    // Braces that are no placeholder ({page}, JSON in a text) are no sign.
    assert!(codes_at(one_text("{page} of {total_pages} {\"a\": {}}")).is_empty());
    let filled = json!({"template": one_text("\\{{not.a.value}} {{v}}"), "data": {"v": "{{x}}"}});
    assert!(codes_at(filled).is_empty());
}
