//! The OpenAPI document and the DocumentRequest schema against what the
//! code routes and accepts: every registered route is documented, every
//! documented operation is served and answers as documented, the repo's
//! requests pass the schema, invalid ones fail it and the server refuses
//! them too (API-002), and the document is valid OpenAPI 3.1. Schemas are
//! checked by Python's jsonschema (Draft 2020-12) and openapi-spec-validator
//! (tests/support/schemacheck.py), not by the code that wrote them.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use labelpress::http::openapi;
use labelpress::request_schema;
use serde_json::{json, Value};

use crate::server::{self, ADMIN, SYSTEM};
use crate::support::{manifest_dir, python_json};

const METHODS: &[&str] = &["get", "post", "put", "delete", "patch"];

/// Runs `tests/support/schemacheck.py MODE` on `input` and parses its JSON.
fn schemacheck(mode: &str, input: &Value) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input.json");
    std::fs::write(&path, serde_json::to_vec(input).unwrap()).unwrap();
    python_json(
        "schemacheck.py",
        &[mode.as_ref(), path.as_os_str()],
        "jsonschema, openapi-spec-validator",
    )
}

/// The errors of each instance against `schema` (empty: valid).
fn schema_errors(schema: &Value, instances: &[Value]) -> Vec<Vec<Value>> {
    let result = schemacheck(
        "validate",
        &json!({"schema": schema, "instances": instances}),
    );
    result
        .as_array()
        .unwrap()
        .iter()
        .map(|errors| errors.as_array().unwrap().clone())
        .collect()
}

// ---------------------------------------------------------------- routes

/// Every (method, path) the source registers with `.route(...)` outside
/// unit tests, with the prefix of the `.nest(...)` that mounts its router.
fn registered_routes() -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    let mut files = vec![manifest_dir().join("src")];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_some_and(|e| e == "rs") {
            routes.extend(routes_in(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    routes
}

fn routes_in(source: &str) -> Vec<(String, String)> {
    let source = source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    // `.nest("/prefix", name)`: the routes in `let name = ...;` get the prefix.
    let mut nested: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for (at, _) in source.match_indices(".nest(") {
        let args = call_arguments(source, at + ".nest".len());
        let prefix = first_string(args).unwrap();
        let name = args.rsplit(',').next().unwrap().trim();
        let start = source
            .find(&format!("let {name} = "))
            .expect("a nested router is a local");
        let end = start + statement_length(&source[start..]);
        nested.push((start..end, prefix));
    }
    let mut routes = Vec::new();
    for (at, _) in source.match_indices(".route(") {
        let args = call_arguments(source, at + ".route".len());
        let path = first_string(args).unwrap();
        let prefix = nested
            .iter()
            .find(|(range, _)| range.contains(&at))
            .map_or("", |(_, p)| p.as_str());
        for method in called_methods(args) {
            routes.push((method, format!("{prefix}{path}")));
        }
    }
    routes
}

/// The text between the parenthesis at `open` and its match.
fn call_arguments(source: &str, open: usize) -> &str {
    let mut depth = 0;
    for (i, c) in source[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &source[open + 1..open + i];
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced call at {open}");
}

/// Up to the `;` that ends the statement starting `text`.
fn statement_length(text: &str) -> usize {
    let mut depth = 0i32;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ';' if depth == 0 => return i,
            _ => {}
        }
    }
    text.len()
}

fn first_string(text: &str) -> Option<String> {
    let start = text.find('"')? + 1;
    let end = start + text[start..].find('"')?;
    Some(text[start..end].to_string())
}

/// The HTTP methods of axum's method routers called in a `.route(...)`'s
/// arguments (`get(h)`, `get(h).post(h2)`).
fn called_methods(args: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = args.as_bytes();
    for method in METHODS {
        for (at, _) in args.match_indices(&format!("{method}(")) {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            if before.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b':')) {
                found.push(method.to_uppercase());
            }
        }
    }
    found
}

/// Every (method, path) of the document.
fn documented_routes(document: &Value) -> BTreeSet<(String, String)> {
    let mut routes = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in METHODS {
            if item.get(*method).is_some() {
                routes.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    routes
}

#[test]
fn the_route_scan_finds_nested_and_chained_routes() {
    let source = r#"
        let api = Router::new()
            .route("/tokens", get(list).post(create))
            .route_layer(x);
        Router::new().route("/v1/verify", post(verify)).nest("/admin/api", api)
    "#;
    let routes: BTreeSet<_> = routes_in(source).into_iter().collect();
    let expected: BTreeSet<_> = [
        ("GET", "/admin/api/tokens"),
        ("POST", "/admin/api/tokens"),
        ("POST", "/v1/verify"),
    ]
    .iter()
    .map(|(m, p)| (m.to_string(), p.to_string()))
    .collect();
    assert_eq!(routes, expected);
}

#[test]
fn every_registered_route_is_documented() {
    let registered = registered_routes();
    // The scan reads the route table (a broken scan finding nothing passes nothing).
    assert!(registered.len() >= 15, "{registered:?}");
    let documented = documented_routes(&openapi::document());
    let missing: Vec<_> = registered.difference(&documented).collect();
    assert!(missing.is_empty(), "routed but not documented: {missing:?}");
}

/// A concrete URL path for a documented template.
fn concrete(path: &str) -> String {
    path.replace("{symbology}", "qr")
        .replace("{content}", "hello")
        .replace("{id}", "no-such-token")
        .replace("{account}", "acme")
}

/// The security scheme of an operation, as a bearer token to send.
fn token_for(operation: &Value) -> Option<&'static str> {
    let scheme = operation["security"][0].as_object()?.keys().next()?.clone();
    Some(match scheme.as_str() {
        "adminToken" => ADMIN,
        _ => SYSTEM,
    })
}

/// Every documented operation is answered by its route (not the API-005
/// fallback) with a documented status, media type and, for JSON, a body
/// that validates against the documented schema.
#[tokio::test(flavor = "multi_thread")]
async fn every_documented_operation_is_served_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let node = server::start(dir.path(), &[]);
    let document = openapi::document();
    let served = server::get(&node.base, "/openapi.json").await;
    assert_eq!(served.status, 200);
    assert_eq!(served.json(), document);

    let mut checks = Vec::new();
    let mut probed = 0;
    for (method, path) in documented_routes(&document) {
        let operation = &document["paths"][&path][method.to_lowercase()];
        let url = format!("{}{}", node.base, concrete(&path));
        let mut request = server::client().request(method.parse().unwrap(), &url);
        if let Some(token) = token_for(operation) {
            request = request.bearer_auth(token);
        }
        if operation.get("requestBody").is_some() {
            // Schema-valid for none of the bodies with required fields.
            request = request.json(&json!({}));
        }
        let reply = server::reply(request.send().await.unwrap()).await;
        probed += 1;
        let what = format!("{method} {path}: {}", String::from_utf8_lossy(&reply.bytes));
        let fallback = matches!(reply.status, 404 | 405)
            && serde_json::from_slice::<Value>(&reply.bytes).is_ok_and(|b| b["code"] == "API-005");
        assert!(!fallback, "not routed: {what}");
        let documented = &operation["responses"][reply.status.to_string()];
        assert!(
            documented.is_object(),
            "undocumented status {}: {what}",
            reply.status
        );
        let Some(content) = documented["content"].as_object() else {
            assert!(
                reply.bytes.is_empty(),
                "a body where none is documented: {what}"
            );
            continue;
        };
        let media = reply.header("content-type").unwrap_or_default();
        let essence = |m: &str| m.split(';').next().unwrap().trim().to_ascii_lowercase();
        let (_, media_doc) = content
            .iter()
            .find(|(m, _)| essence(m) == essence(&media))
            .unwrap_or_else(|| panic!("media type {media} not documented: {what}"));
        if essence(&media) == "application/json" {
            checks.push((what, media_doc["schema"].clone(), reply.json()));
        }
    }
    assert!(probed >= 19, "{probed} operations probed");
    assert!(checks.len() >= 10, "{} JSON bodies checked", checks.len());
    // One Python run: the bodies as one array, each item against its
    // operation's schema, resolved in a root that holds the components.
    let schema = json!({
        "$schema": request_schema::DIALECT,
        "components": document["components"],
        "type": "array",
        "prefixItems": checks.iter().map(|(_, s, _)| s.clone()).collect::<Vec<_>>(),
    });
    let bodies: Vec<Value> = checks.iter().map(|(_, _, b)| b.clone()).collect();
    let errors = schema_errors(&schema, &[json!(bodies)]).remove(0);
    let wrong: Vec<String> = errors
        .iter()
        .map(|e| {
            let index = e["path"].as_str().unwrap().split('/').next().unwrap();
            let what = index.parse::<usize>().ok().and_then(|i| checks.get(i));
            format!("{}: {}", what.map_or("?", |c| c.0.as_str()), e["message"])
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_node_serves_the_document_whatever_its_services() {
    let dir = tempfile::tempdir().unwrap();
    let node = server::start(dir.path(), &["--services", "barcode"]);
    let reply = server::get(&node.base, "/openapi.json").await;
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("application/json")
    );
    let served = reply.json();
    assert_eq!(served["openapi"], "3.1.0");
    // The render route is documented even where this node does not serve it.
    assert!(served["paths"]["/api/v1/label"]["post"].is_object());
    // The CLI prints the same document.
    let out = Command::new(server::binary())
        .arg("openapi")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        served
    );
}

// ---------------------------------------------------------------- schema

/// Single-key `{"$generator": ...}` objects of the hostile corpus as the
/// string they make (its content does not matter to the schema).
fn without_generators(value: &Value) -> Value {
    match value {
        Value::Object(o) if o.len() == 1 && o.keys().all(|k| k.starts_with('$')) => {
            json!("generated")
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), without_generators(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_generators).collect()),
        other => other.clone(),
    }
}

fn json_files(dir: &Path) -> Vec<(String, Value)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
            (p.display().to_string(), value)
        })
        .collect()
}

/// Every request of the repository that is meant to render.
fn repository_requests() -> Vec<(String, Value)> {
    let root = manifest_dir();
    let mut requests = json_files(&root.join("examples"));
    requests.extend(json_files(&root.join("fuzz/seeds/render")));
    requests.extend(json_files(&root.join("benches/data")));
    // The benchmark generator's documents.
    let out = tempfile::tempdir().unwrap();
    let generated = Command::new("python3")
        .arg(root.join("benches/data/gen_requests.py"))
        .arg("--out")
        .arg(out.path())
        .args(["label=2", "invoice=1", "invoice20k=0"])
        .output()
        .unwrap();
    assert!(generated.status.success(), "{generated:?}");
    requests.extend(json_files(out.path()));
    // Hostile cases the render route must render.
    for (name, case) in json_files(&root.join("tests/hostile/cases")) {
        let render_route = case["path"].as_str().is_none_or(|p| p == "/api/v1/label");
        if render_route && case["expect"]["status"] == 200 && case.get("json").is_some() {
            requests.push((name, without_generators(&case["json"])));
        }
    }
    requests.push(("server::label".into(), server::label("Hello")));
    requests
}

#[test]
fn every_request_of_the_repository_passes_the_schema() {
    let requests = repository_requests();
    // examples, fuzz seeds, the benchmark's label and generated documents, hostile cases.
    assert!(requests.len() >= 15, "{} requests", requests.len());
    assert!(requests.iter().any(|(n, _)| n.contains("invoice-00")));
    assert!(requests.iter().any(|(n, _)| n.contains("hostile")));
    let schema = request_schema::document_request();
    // A template body is checked as the document it fills into.
    let instances: Vec<Value> = requests
        .iter()
        .map(|(name, r)| match r.get("template") {
            Some(template) => labelpress::template::fill(
                template.clone(),
                &r["data"],
                &labelpress::config::Limits::default(),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}")),
            None => r.clone(),
        })
        .collect();
    let errors = schema_errors(&schema, &instances);
    let failed: Vec<_> = requests
        .iter()
        .zip(&errors)
        .filter(|(_, e)| !e.is_empty())
        .map(|((name, _), e)| format!("{name}: {e:?}"))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
}

/// A valid request, then one mutation of it per way to break the schema.
fn invalid_requests() -> (Value, Vec<(&'static str, Value)>) {
    let valid = json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "Hello", "style": {"font_size": 9}},
        {"type": "table", "x": 5, "y": 30,
         "columns": [{"key": "a", "header": "A", "width": {"mode": "fixed", "value": 30}}],
         "rows": [{"a": "x"}, {"a": {"value": 2, "col_span": 1}}]},
        {"type": "barcode", "x": 5, "y": 60, "format": "qr", "content": "x",
         "width": 20, "height": 20, "options": {"ecl": "H", "quiet_zone": 1}}
    ]}]});
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut v = valid.clone();
        edit(&mut v);
        v
    };
    let cases = vec![
        (
            "unknown field at the root",
            with(&|v| v["colour"] = json!(1)),
        ),
        (
            "unknown field in an element",
            with(&|v| v["pages"][0]["elements"][0]["colour"] = json!(1)),
        ),
        (
            "unknown field in a style",
            with(&|v| v["pages"][0]["elements"][0]["style"]["colour"] = json!(1)),
        ),
        (
            "wrong type",
            with(&|v| v["pages"][0]["elements"][0]["y"] = json!("10")),
        ),
        (
            "missing required field",
            with(&|v| {
                v["pages"][0]["elements"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("content");
            }),
        ),
        (
            "bad enum value",
            with(&|v| v["pages"][0]["elements"][0]["style"]["text_align"] = json!("middle")),
        ),
        (
            "unknown element type",
            with(&|v| v["pages"][0]["elements"][0]["type"] = json!("txt")),
        ),
        (
            "an element without type",
            with(&|v| {
                v["pages"][0]["elements"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("type");
            }),
        ),
        (
            "a field of another variant in a column width",
            with(&|v| {
                v["pages"][0]["elements"][1]["columns"][0]["width"] =
                    json!({"mode": "auto", "value": 3})
            }),
        ),
        (
            "a table without rows",
            with(&|v| {
                v["pages"][0]["elements"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("rows");
            }),
        ),
        (
            "a cell value that is an array",
            with(&|v| v["pages"][0]["elements"][1]["rows"][0]["a"] = json!([1])),
        ),
        (
            "a barcode option that is an object",
            with(&|v| v["pages"][0]["elements"][2]["options"]["ecl"] = json!({"level": "H"})),
        ),
        (
            "a table in the header",
            with(&|v| {
                let table = v["pages"][0]["elements"][1].clone();
                v["header"] = json!({"height": 10, "elements": [table]});
            }),
        ),
        (
            "a block outside a stack",
            with(&|v| {
                v["pages"][0]["elements"]
                    .as_array_mut()
                    .unwrap()
                    .push(json!({"type": "block", "elements": []}))
            }),
        ),
        (
            "a stack whose first child is not a table",
            with(&|v| {
                v["pages"][0]["elements"].as_array_mut().unwrap().push(json!({
                    "type": "stack",
                    "children": [{"type": "block", "elements": []}, {"type": "block", "elements": []}]
                }))
            }),
        ),
        (
            "a page whose size is null, without width and height",
            with(&|v| v["pages"][0]["size"] = Value::Null),
        ),
        (
            "a page with size and width",
            with(&|v| {
                v["pages"][0]["width"] = json!(100);
                v["pages"][0]["height"] = json!(100);
            }),
        ),
        (
            "a page with width but no height",
            with(&|v| {
                v["pages"][0]["size"] = Value::Null;
                v["pages"][0]["width"] = json!(100);
            }),
        ),
        (
            "a page size of no preset",
            with(&|v| v["pages"][0]["size"] = json!("a5")),
        ),
        (
            "a page size 4x6",
            with(&|v| v["pages"][0]["size"] = json!("4x6")),
        ),
        (
            "a page side past the limit",
            with(&|v| {
                v["pages"][0]["size"] = Value::Null;
                v["pages"][0]["width"] = json!(100);
                v["pages"][0]["height"] = json!(6000);
            }),
        ),
        (
            "a table without columns",
            with(&|v| v["pages"][0]["elements"][1]["columns"] = json!([])),
        ),
        (
            "a rotation that is no quarter turn",
            with(&|v| v["pages"][0]["elements"][0]["rotation"] = json!(45)),
        ),
        (
            "a barcode format of no symbology",
            with(&|v| v["pages"][0]["elements"][2]["format"] = json!("code-128")),
        ),
        (
            "a colour that is no #RRGGBB",
            with(&|v| v["pages"][0]["elements"][0]["style"]["color"] = json!("red")),
        ),
        (
            "a font size of 0",
            with(&|v| v["pages"][0]["elements"][0]["style"]["font_size"] = json!(0)),
        ),
        (
            "a link to page 0",
            with(&|v| {
                v["pages"][0]["elements"][0]["link"] =
                    json!({"target": {"type": "page", "page": 0}})
            }),
        ),
        (
            "a font weight of no allowed value",
            with(&|v| v["pages"][0]["elements"][0]["style"]["font_weight"] = json!("heavy")),
        ),
        (
            "a cell border that is true",
            with(&|v| v["pages"][0]["elements"][1]["cell"] = json!({"borders": {"top": true}})),
        ),
        (
            "both x and x_anchor",
            with(&|v| {
                v["pages"][0]["elements"][0]["x_anchor"] =
                    json!({"reference": "page_right", "offset": 5})
            }),
        ),
        (
            "neither x nor x_anchor",
            with(&|v| {
                v["pages"][0]["elements"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("x");
            }),
        ),
        (
            "a column span of 0",
            with(&|v| v["pages"][0]["elements"][1]["rows"][1]["a"]["col_span"] = json!(0)),
        ),
        (
            "an unknown profile",
            with(&|v| v["settings"] = json!({"profile": "pdf/x"})),
        ),
        (
            "a link target with a field of the other kind",
            with(&|v| {
                v["pages"][0]["elements"][0]["link"] =
                    json!({"target": {"type": "url", "url": "https://example.com", "page": 1}})
            }),
        ),
    ];
    (valid, cases)
}

/// `labelpress check` on `request`: (exit code, stdout as JSON or null).
fn check(request: &Value) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("request.json");
    std::fs::write(&path, serde_json::to_vec(request).unwrap()).unwrap();
    let out = Command::new(server::binary())
        .arg("check")
        .arg(&path)
        .arg("--no-system-fonts")
        .output()
        .unwrap();
    let body = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), body)
}

#[test]
fn invalid_requests_fail_the_schema_and_the_server_refuses_them() {
    let (valid, cases) = invalid_requests();
    let schema = request_schema::document_request();
    let mut instances = vec![valid.clone()];
    instances.extend(cases.iter().map(|(_, r)| r.clone()));
    let errors = schema_errors(&schema, &instances);
    // The control: the unbroken request passes both.
    assert!(errors[0].is_empty(), "{:#?}", errors[0]);
    assert_eq!(check(&valid), (0, Value::Null));
    for ((what, request), errors) in cases.iter().zip(&errors[1..]) {
        assert!(!errors.is_empty(), "the schema accepts {what}");
        let (code, body) = check(request);
        assert_eq!(
            (code, &body["code"]),
            (1, &json!("API-002")),
            "{what}: {body}"
        );
    }
}

// ---------------------------------------------------------------- document

/// The value at a local JSON pointer (`#/a/b`).
fn resolve<'a>(document: &'a Value, reference: &str) -> Option<&'a Value> {
    document.pointer(reference.strip_prefix('#')?)
}

fn references<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(o) => {
            for (k, v) in o {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => out.push(r),
                    _ => references(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| references(v, out)),
        _ => {}
    }
}

#[test]
fn the_document_is_valid_openapi_3_1() {
    let document = openapi::document();
    let verdict = schemacheck("openapi", &document);
    assert_eq!(verdict["ok"], true, "{verdict}");
    // And by hand: references resolve, operations answer, path parameters
    // are declared.
    let mut refs = Vec::new();
    references(&document, &mut refs);
    assert!(refs.len() > 100);
    for r in refs {
        assert!(resolve(&document, r).is_some(), "unresolved {r}");
    }
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let responses = operation["responses"].as_object().unwrap();
            assert!(!responses.is_empty(), "{method} {path}");
            let declared: BTreeSet<&str> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap())
                .collect();
            let templated: BTreeSet<&str> = path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            assert_eq!(declared, templated, "{method} {path}");
        }
    }
    // The request schema in the document is the standalone one.
    let standalone = request_schema::document_request();
    for (name, schema) in standalone["$defs"].as_object().unwrap() {
        let embedded = &document["components"]["schemas"][name];
        let as_embedded = serde_json::to_string(schema)
            .unwrap()
            .replace("#/$defs/", "#/components/schemas/");
        assert_eq!(
            serde_json::from_str::<Value>(&as_embedded).unwrap(),
            *embedded,
            "{name}"
        );
    }
}

// ---------------------------------------------------------------- messages

/// Every value of `value` with its path, objects and arrays included.
fn walk(value: &Value, path: Vec<PathStep>, out: &mut Vec<(Vec<PathStep>, Value)>) {
    out.push((path.clone(), value.clone()));
    match value {
        Value::Object(o) => {
            for (k, v) in o {
                let mut p = path.clone();
                p.push(PathStep::Key(k.clone()));
                walk(v, p, out);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                let mut p = path.clone();
                p.push(PathStep::Index(i));
                walk(v, p, out);
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn replaced(root: &Value, path: &[PathStep], with: Value) -> Value {
    let mut copy = root.clone();
    let mut at = &mut copy;
    for step in path {
        at = match step {
            PathStep::Key(k) => &mut at[k.as_str()],
            PathStep::Index(i) => &mut at[*i],
        };
    }
    *at = with;
    copy
}

/// Values of other JSON types than `value`'s.
fn wrong_types(value: &Value) -> Vec<Value> {
    let all = [
        json!("text"),
        json!(7),
        json!(1.5),
        json!(true),
        json!({"k": 1}),
        json!([1]),
        Value::Null,
    ];
    let kind = |v: &Value| match v {
        Value::Number(n) if n.is_f64() => 1,
        Value::Number(_) => 1,
        Value::String(_) => 2,
        Value::Bool(_) => 3,
        Value::Object(_) => 4,
        Value::Array(_) => 5,
        Value::Null => 6,
    };
    all.into_iter().filter(|v| kind(v) != kind(value)).collect()
}

/// serde's wording names Rust types; the document's words must not.
#[test]
fn schema_errors_name_no_rust_types() {
    const RUST: &[&str] = &[
        "struct ",
        "enum ",
        "f64",
        "f32",
        "u8",
        "u16",
        "u32",
        "u64",
        "usize",
        "i32",
        "i64",
        "isize",
        "Option",
        "Vec<",
        "Raw",
        "String",
        "map,",
        "sequence",
        "variant of",
    ];
    let mut requests = vec![invalid_requests().0];
    for name in [
        "label.json",
        "invoice.json",
        "carrier_label_4x6.json",
        "parcel_label_gs1.json",
    ] {
        let path = manifest_dir().join("examples").join(name);
        requests.push(serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap());
    }
    let mut checked = 0;
    let mut wrong = Vec::new();
    for request in &requests {
        let mut values = Vec::new();
        walk(request, Vec::new(), &mut values);
        // At most about 150 paths of each request, spread over all of it.
        let step = values.len().div_ceil(150);
        for (path, value) in values.iter().step_by(step).filter(|(p, _)| !p.is_empty()) {
            for bad in wrong_types(value) {
                let body = serde_json::to_vec(&replaced(request, path, bad.clone())).unwrap();
                let Err(labelpress::validate::RequestError::Invalid(violations)) =
                    crate::support::ENGINE.validate(&body)
                else {
                    continue;
                };
                checked += 1;
                for v in violations {
                    if RUST.iter().any(|word| v.message.contains(word)) {
                        wrong.push(format!("{path:?} = {bad}: {}: {}", v.path, v.message));
                    }
                }
            }
        }
    }
    assert!(checked > 500, "{checked} invalid requests");
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "{} messages name Rust types:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(40)].join("\n")
    );
}
