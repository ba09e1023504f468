//! Stored templates (issue 31): `PUT`/`GET`/`DELETE /api/v1/templates/{name}`
//! and `GET /api/v1/templates` per account, checked on upload, used by name
//! in renders, checks and batches; another account never sees them; two
//! render nodes on one PostgreSQL share them.

use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::server::{self, admin, await_balance, balance, client, reply, Reply, Server};
use crate::support::*;

/// A label template: a name, a city and a Code 128 of the order number,
/// with a `rows_from` table of the order's lines.
fn slip() -> Value {
    json!({"pages": [{"width": 100, "height": 150, "elements": [
        {"type": "text", "x": 5, "y": 5, "content": "To {{recipient.name}}, {{recipient.city}}"},
        {"type": "barcode", "x": 5, "y": 15, "width": 80, "height": 20, "format": "code128", "content": "{{order}}"},
        {"type": "text", "x": 5, "y": 38, "content": "Order {{order}}"},
        {"type": "table", "x": 5, "y": 45, "width": 90,
         "columns": [{"key": "sku", "header": "SKU", "width": {"mode": "fixed", "value": 60}},
                     {"key": "qty", "header": "Qty", "width": {"mode": "auto"}}],
         "rows_from": "lines", "row": {"sku": "{{sku}}", "qty": "{{qty}}"}}
    ]}]})
}

fn data(order: &str) -> Value {
    json!({"recipient": {"name": "Ada Lovelace", "city": "London"}, "order": order,
           "lines": [{"sku": "SKU-1", "qty": 2}, {"sku": "SKU-2", "qty": 5}]})
}

async fn token_of(base: &str, account: &str, balance: u64) -> (String, String) {
    let body = json!({"account": account, "balance": balance, "expires_at": null});
    let created = admin(base, Method::POST, "/tokens", Some(body)).await;
    (
        created["id"].as_str().unwrap().to_string(),
        created["token"].as_str().unwrap().to_string(),
    )
}

async fn call(base: &str, method: Method, path: &str, token: &str, body: Option<&Value>) -> Reply {
    let mut request = client()
        .request(method, format!("{base}{path}"))
        .bearer_auth(token);
    if let Some(body) = body {
        request = request.json(body);
    }
    reply(request.send().await.unwrap()).await
}

async fn put(base: &str, token: &str, name: &str, template: &Value) -> Reply {
    call(
        base,
        Method::PUT,
        &format!("/api/v1/templates/{name}"),
        token,
        Some(template),
    )
    .await
}

fn names(list: &Reply) -> Vec<String> {
    assert_eq!(list.status, 200, "{}", String::from_utf8_lossy(&list.bytes));
    list.json()["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_account_stores_checks_and_renders_its_templates_and_no_other_account_sees_them() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let base = &server.base;
    let (acme_id, acme) = token_of(base, "acme", 100).await;
    let (globex_id, globex) = token_of(base, "globex", 100).await;

    // Checked on upload, with paths from the template's root; a string
    // with a placeholder is not judged by the probe text it holds.
    let mut broken = slip();
    broken["pages"][0]["elements"][0]["x_anchor"] = json!("middle");
    let r = put(base, &acme, "slip", &broken).await;
    let error = r.assert_error(422, "API-002");
    assert_eq!(
        error["details"][0]["path"], "pages[0].elements[0].x_anchor",
        "{error}"
    );
    let mut bad_row = slip();
    bad_row["pages"][0]["elements"][3]["row"]["colour"] = json!("red");
    let error = put(base, &acme, "slip", &bad_row)
        .await
        .assert_error(422, "API-002");
    assert!(
        error["details"][0]["path"]
            .as_str()
            .unwrap()
            .starts_with("pages[0].elements[3].row"),
        "{error}"
    );
    let mut unclosed = slip();
    unclosed["pages"][0]["elements"][0]["content"] = json!("To {{recipient.name");
    let error = put(base, &acme, "slip", &unclosed)
        .await
        .assert_error(422, "API-002");
    assert_eq!(error["details"][0]["path"], "pages[0].elements[0].content");
    let mut ean = slip();
    ean["pages"][0]["elements"][1]["format"] = json!("ean13");
    assert_eq!(put(base, &acme, "ean", &ean).await.status, 201);
    for bad in [".hidden", "a%20b", "a%2Fb", "..%2Fetc", &"x".repeat(65)] {
        let error = put(base, &acme, bad, &slip())
            .await
            .assert_error(422, "API-002");
        assert_eq!(error["details"][0]["path"], "name", "{bad}: {error}");
    }

    // Stored: 201 with its URL, then 200 when replaced; read back as sent.
    let r = put(base, &acme, "slip", &slip()).await;
    assert_eq!(r.status, 201, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(
        r.header("location").as_deref(),
        Some("/api/v1/templates/slip")
    );
    assert_eq!(put(base, &acme, "slip", &slip()).await.status, 200);
    let r = call(base, Method::GET, "/api/v1/templates/slip", &acme, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json(), slip());
    let list = call(base, Method::GET, "/api/v1/templates", &acme, None).await;
    assert_eq!(names(&list), ["ean", "slip"]);
    // Storing and reading charge nothing.
    assert_eq!(balance(base, &acme_id).await, 100);

    // Rendered by name: filled like an inline template, charged one unit.
    let body = json!({"template": "slip", "data": data("ORDER-17")});
    let r = server::render(base, &acme, &body).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    let pdf = read_pdf(r.bytes.clone());
    let text = pdf.text(0);
    for expected in ["Ada Lovelace, London", "SKU-2", "ORDER-17"] {
        assert!(text.contains(expected), "{expected} in {text}");
    }
    let inline = server::render(
        base,
        &acme,
        &json!({"template": slip(), "data": data("ORDER-17")}),
    )
    .await;
    assert_eq!(read_pdf(inline.bytes).text(0), text);
    await_balance(base, &acme_id, 98, Duration::from_secs(30)).await;
    // A value missing from the data: 422 under `template.`, as inline.
    let r = server::render(
        base,
        &acme,
        &json!({"template": "slip", "data": {"order": "1"}}),
    )
    .await;
    let error = r.assert_error(422, "API-002");
    assert!(
        error["details"][0]["path"]
            .as_str()
            .unwrap()
            .starts_with("template."),
        "{error}"
    );

    // In a batch, by name with records and within `documents`.
    let records: Vec<Value> = (1..=3).map(|i| data(&format!("W{i}"))).collect();
    let r = call(
        base,
        Method::POST,
        "/api/v1/batch",
        &acme,
        Some(&json!({"template": "slip", "records": records})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(read_pdf(r.bytes).page_count(), 3);
    let documents = json!({"documents": [{"template": "slip", "data": data("D1")}, {"template": "nope", "data": {}}]});
    let error = call(base, Method::POST, "/api/v1/batch", &acme, Some(&documents))
        .await
        .assert_error(404, "API-005");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("documents[1].template"),
        "{error}"
    );
    let r = call(
        base,
        Method::POST,
        "/api/v1/label/check",
        &acme,
        Some(&json!({"template": "slip", "data": data("C")})),
    )
    .await;
    assert_eq!(r.json()["valid"], true, "{}", r.json());
    await_balance(base, &acme_id, 95, Duration::from_secs(30)).await;

    // Another account: cannot read, use, list or delete it (404, never 200);
    // its PUT of the same name is its own template, acme's stays.
    let r = call(base, Method::GET, "/api/v1/templates/slip", &globex, None).await;
    r.assert_error(404, "API-005");
    let r = server::render(
        base,
        &globex,
        &json!({"template": "slip", "data": data("X")}),
    )
    .await;
    r.assert_error(404, "API-005");
    let r = call(
        base,
        Method::POST,
        "/api/v1/label/check",
        &globex,
        Some(&json!({"template": "slip", "data": {}})),
    )
    .await;
    r.assert_error(404, "API-005");
    assert!(names(&call(base, Method::GET, "/api/v1/templates", &globex, None).await).is_empty());
    call(
        base,
        Method::DELETE,
        "/api/v1/templates/slip",
        &globex,
        None,
    )
    .await
    .assert_error(404, "API-005");
    let theirs = json!({"pages": [{"size": "a6", "elements": [{"type": "text", "x": 5, "y": 5, "content": "globex {{n}}"}]}]});
    assert_eq!(put(base, &globex, "slip", &theirs).await.status, 201);
    assert_eq!(
        call(base, Method::GET, "/api/v1/templates/slip", &acme, None)
            .await
            .json(),
        slip()
    );
    assert_eq!(
        call(base, Method::GET, "/api/v1/templates/slip", &globex, None)
            .await
            .json(),
        theirs
    );
    assert_eq!(balance(base, &globex_id).await, 100);

    // Authentication first: no token is 401, an unknown one 403.
    let r = reply(
        client()
            .get(format!("{base}/api/v1/templates"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    r.assert_error(401, "API-101");
    call(base, Method::GET, "/api/v1/templates", "lp_unknown", None)
        .await
        .assert_error(403, "API-102");

    // Deleted: gone for renders too; a second delete is 404.
    let r = call(base, Method::DELETE, "/api/v1/templates/slip", &acme, None).await;
    assert_eq!(r.status, 204);
    call(base, Method::DELETE, "/api/v1/templates/slip", &acme, None)
        .await
        .assert_error(404, "API-005");
    server::render(base, &acme, &json!({"template": "slip", "data": data("Z")}))
        .await
        .assert_error(404, "API-005");
    assert_eq!(
        names(&call(base, Method::GET, "/api/v1/templates", &acme, None).await),
        ["ean"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn templates_survive_a_restart_and_an_account_holds_at_most_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = server::start_with_env(
        dir.path(),
        &[],
        &[("LABELPRESS_LIMITS__TEMPLATES_PER_ACCOUNT", "2")],
    );
    let base = server.base.clone();
    let (_, token) = token_of(&base, "acme", 10).await;
    let small = json!({"pages": [{"size": "a6", "elements": [{"type": "text", "x": 5, "y": 5, "content": "{{n}}"}]}]});
    assert_eq!(put(&base, &token, "a", &small).await.status, 201);
    assert_eq!(put(&base, &token, "b", &small).await.status, 201);
    let error = put(&base, &token, "c", &small)
        .await
        .assert_error(422, "API-002");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("templates_per_account"),
        "{error}"
    );
    // Replacing one at the limit is fine.
    assert_eq!(put(&base, &token, "b", &small).await.status, 200);
    server.stop();
    server.restart();
    let base = server.base.clone();
    assert_eq!(
        names(&call(&base, Method::GET, "/api/v1/templates", &token, None).await),
        ["a", "b"]
    );
}

/// Render nodes on one PostgreSQL, each with its own verifier connection:
/// a template stored through one is used and listed through the other.
#[tokio::test(flavor = "multi_thread")]
async fn two_render_nodes_on_one_postgresql_share_the_templates() {
    let pg = crate::postgres::shared();
    let url = pg.database("stored_templates");
    let vdir = tempfile::tempdir().unwrap();
    let verifier = server::start(
        vdir.path(),
        &["--services", "verify", "--database-url", &url],
    );
    let nodes: Vec<(Server, tempfile::TempDir)> = (0..2)
        .map(|_| {
            let dir = tempfile::tempdir().unwrap();
            let args = [
                "--services",
                "render",
                "--verify-url",
                &verifier.base,
                "--database-url",
                &url,
            ];
            (server::start(dir.path(), &args), dir)
        })
        .collect();
    let (id, acme) = token_of(&verifier.base, "acme", 10).await;
    let (_, globex) = token_of(&verifier.base, "globex", 10).await;
    let (one, two) = (&nodes[0].0.base, &nodes[1].0.base);
    assert_eq!(put(one, &acme, "slip", &slip()).await.status, 201);
    assert_eq!(
        names(&call(two, Method::GET, "/api/v1/templates", &acme, None).await),
        ["slip"]
    );
    let r = server::render(
        two,
        &acme,
        &json!({"template": "slip", "data": data("PG-1")}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert!(read_pdf(r.bytes).text(0).contains("PG-1"));
    call(two, Method::GET, "/api/v1/templates/slip", &globex, None)
        .await
        .assert_error(404, "API-005");
    assert!(names(&call(one, Method::GET, "/api/v1/templates", &globex, None).await).is_empty());
    assert_eq!(
        call(two, Method::DELETE, "/api/v1/templates/slip", &acme, None)
            .await
            .status,
        204
    );
    server::render(
        one,
        &acme,
        &json!({"template": "slip", "data": data("PG-2")}),
    )
    .await
    .assert_error(404, "API-005");
    assert_eq!(
        pg.sql("stored_templates", "SELECT count(*) FROM lp_templates"),
        "0"
    );
    await_balance(&verifier.base, &id, 9, Duration::from_secs(30)).await;
}
