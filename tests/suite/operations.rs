//! What an operator sees of a running node: log formats, request ids and
//! trace context in the log, `/version`, and the build and process metrics.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::server::{self, Reply};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_ID}-01")
}

/// `GET path` with extra headers.
async fn get_with(base: &str, path: &str, headers: &[(&str, &str)]) -> Reply {
    let mut request = server::client().get(format!("{base}{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    server::reply(request.send().await.unwrap()).await
}

/// The server's whole log, once it has stopped (SIGTERM: lines flushed).
fn stopped_log(mut s: server::Server, log: &Path) -> String {
    assert!(s.stop().success());
    std::fs::read_to_string(log).unwrap()
}

#[track_caller]
fn assert_fresh_uuid(reply: &Reply) -> String {
    let id = reply.header("x-request-id").expect("X-Request-Id");
    let uuid = uuid::Uuid::parse_str(&id).unwrap_or_else(|_| panic!("not a UUID: {id:?}"));
    assert_eq!(uuid.get_version_num(), 4);
    id
}

#[tokio::test(flavor = "multi_thread")]
async fn json_log_lines_carry_level_message_request_id_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let s = server::start_logged(&dir.path().join("data"), &["--log-format", "json"], &log);
    let r = get_with(
        &s.base,
        "/healthz?secret=hunter2",
        &[
            ("x-request-id", "ops-json-1"),
            ("traceparent", &traceparent()),
        ],
    )
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("x-request-id").as_deref(), Some("ops-json-1"));
    let text = stopped_log(s, &log);

    assert!(
        !text.as_bytes().contains(&0x1b),
        "ESC in a file log:\n{text}"
    );
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: not JSON: {l}")))
        .collect();
    assert!(lines
        .iter()
        .all(|l| l["level"].is_string() && l["timestamp"].is_string()));
    assert!(lines
        .iter()
        .any(|l| l["message"] == "labelpress listening" && l["level"] == "INFO"));
    let access = lines
        .iter()
        .find(|l| l["span"]["req_id"] == "ops-json-1")
        .unwrap_or_else(|| panic!("no line of request ops-json-1:\n{text}"));
    assert_eq!(access["message"], "request");
    assert_eq!(access["level"], "INFO");
    assert_eq!(access["method"], "GET");
    assert_eq!(access["path"], "/healthz");
    assert_eq!(access["status"], 200);
    assert!(access["duration_ms"].as_f64().is_some_and(|ms| ms >= 0.0));
    assert_eq!(access["span"]["trace_id"], TRACE_ID);
    assert_eq!(access["span"]["parent_id"], PARENT_ID);
    let span_id = access["span"]["span_id"].as_str().unwrap();
    assert!(span_id.len() == 16 && span_id != PARENT_ID, "{span_id}");
    // The query is never logged: it may hold secrets.
    assert!(!text.contains("hunter2"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_text_log_to_a_file_has_no_colour_and_shows_the_request_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    // NO_COLOR is not set (start_logged clears it): a file alone turns colour off.
    let s = server::start_logged(&dir.path().join("data"), &[], &log);
    let r = get_with(
        &s.base,
        "/healthz",
        &[
            ("x-request-id", "ops-text-1"),
            ("traceparent", &traceparent()),
        ],
    )
    .await;
    assert_eq!(r.header("x-request-id").as_deref(), Some("ops-text-1"));
    // An invalid traceparent (upper-case hex) is ignored, the request still answered.
    let r = get_with(
        &s.base,
        "/healthz",
        &[
            ("x-request-id", "ops-text-2"),
            ("traceparent", &traceparent().to_uppercase()),
        ],
    )
    .await;
    assert_eq!(r.status, 200);
    let text = stopped_log(s, &log);

    assert!(
        !text.as_bytes().contains(&0x1b),
        "ESC in a file log:\n{text}"
    );
    let line = |id: &str| {
        text.lines()
            .find(|l| l.contains(&format!("req_id={id}")) && l.contains("status=200"))
            .unwrap_or_else(|| panic!("no access line of {id}:\n{text}"))
            .to_string()
    };
    let traced = line("ops-text-1");
    assert!(traced.contains(&format!("trace_id={TRACE_ID}")), "{traced}");
    assert!(traced.contains("path=/healthz"), "{traced}");
    assert!(!line("ops-text-2").contains("trace_id"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn invalid_request_ids_are_replaced_and_never_logged() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let s = server::start_logged(&dir.path().join("data"), &["--log-format", "json"], &log);
    let too_long = "a".repeat(129);
    let longest = "b".repeat(128);
    let bad = [
        too_long.as_str(),
        "two words",
        "quote\"injected",
        "tab\tinjected",
        "equals=injected",
    ];
    let mut fresh = Vec::new();
    for id in bad {
        let r = get_with(&s.base, "/healthz", &[("x-request-id", id)]).await;
        assert_eq!(r.status, 200);
        fresh.push(assert_fresh_uuid(&r));
    }
    // Kept at the limit.
    let r = get_with(&s.base, "/healthz", &[("x-request-id", &longest)]).await;
    assert_eq!(r.header("x-request-id").as_deref(), Some(longest.as_str()));
    // Errors carry the kept id in their body too.
    let r = get_with(&s.base, "/nowhere", &[("x-request-id", "ops-404")]).await;
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["req_id"], "ops-404");
    assert_eq!(r.header("x-request-id").as_deref(), Some("ops-404"));
    let text = stopped_log(s, &log);

    for id in &fresh {
        assert!(text.contains(id.as_str()), "{id} not logged:\n{text}");
    }
    for needle in ["injected", "two words", too_long.as_str()] {
        assert!(!text.contains(needle), "{needle:?} logged:\n{text}");
    }
    assert!(text.contains(&longest));
}

/// The render node forwards the request id and trace to its remote
/// verifier, whose log then shows them.
#[tokio::test(flavor = "multi_thread")]
async fn the_remote_verifier_logs_the_render_request_s_id_and_trace() {
    let vdir = tempfile::tempdir().unwrap();
    let rdir = tempfile::tempdir().unwrap();
    let vlog = vdir.path().join("verifier.log");
    let verifier = server::start_logged(
        &vdir.path().join("data"),
        &["--services", "verify", "--log-format", "json"],
        &vlog,
    );
    let node = server::start(
        rdir.path(),
        &["--services", "render", "--verify-url", &verifier.base],
    );
    let (_, token) = server::new_token(&verifier.base, 5, None).await;
    let response = server::client()
        .post(format!("{}/api/v1/label", node.base))
        .bearer_auth(&token)
        .header("x-request-id", "ops-render-1")
        .header("traceparent", traceparent())
        .json(&server::label("traced"))
        .send()
        .await
        .unwrap();
    let r = server::reply(response).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("x-request-id").as_deref(), Some("ops-render-1"));
    drop(node);
    let text = stopped_log(verifier, &vlog);

    let verify = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        // A render node on leases asks for one (docs/leases.md).
        .find(|l| l["path"] == "/v1/leases")
        .unwrap_or_else(|| panic!("no /v1/leases line:\n{text}"));
    assert_eq!(verify["span"]["req_id"], "ops-render-1", "{verify}");
    assert_eq!(verify["span"]["trace_id"], TRACE_ID, "{verify}");
    // The parent is the render node's span, not the caller's.
    let parent = verify["span"]["parent_id"].as_str().unwrap();
    assert!(parent.len() == 16 && parent != PARENT_ID, "{verify}");
    assert!(!text.contains(&token), "the token was logged");
}

#[tokio::test(flavor = "multi_thread")]
async fn version_names_this_build() {
    let dir = tempfile::tempdir().unwrap();
    let s = server::start(dir.path(), &["--services", "barcode"]);
    let r = server::get(&s.base, "/version").await;
    assert_eq!(r.status, 200);
    assert!(r
        .header("content-type")
        .is_some_and(|t| t.starts_with("application/json")));
    let version = r.json();
    let cli = std::process::Command::new(server::binary())
        .arg("--version")
        .output()
        .unwrap();
    let cli = String::from_utf8(cli.stdout).unwrap();
    assert_eq!(
        cli.trim(),
        format!("labelpress {}", version["version"].as_str().unwrap())
    );
    assert_eq!(version["name"], "labelpress");
    assert_eq!(version["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(version["typst"], "0.15.1");
    assert!(
        version["git"].is_null() || version["git"].is_string(),
        "{version}"
    );
    let target = version["target"].as_str().unwrap();
    assert!(target.contains(std::env::consts::ARCH), "{target}");
    assert!(["debug", "release"].contains(&version["profile"].as_str().unwrap()));
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_show_the_build_and_plausible_process_figures() {
    let dir = tempfile::tempdir().unwrap();
    let s = server::start(dir.path(), &["--services", "barcode"]);
    let text = String::from_utf8(server::get(&s.base, "/metrics").await.bytes).unwrap();
    let build = format!(
        "labelpress_build_info{{version=\"{}\",typst=\"0.15.1\"}} 1",
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.lines().any(|l| l == build), "no `{build}` in\n{text}");
    assert!(text.contains("# TYPE process_cpu_seconds_total counter"));

    let value = |name: &'static str| server::metric(&s.base, name);
    assert!(value("process_resident_memory_bytes").await > 1e6);
    assert!(
        value("process_virtual_memory_bytes").await >= value("process_resident_memory_bytes").await
    );
    let fds = value("process_open_fds").await;
    assert!(fds > 0.0 && fds <= value("process_max_fds").await);
    assert!(value("process_threads").await >= 1.0);
    assert!(value("process_cpu_seconds_total").await >= 0.0);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let started = value("process_start_time_seconds").await;
    // Started by this test, a few seconds ago (clock ticks round down).
    assert!(
        started <= now + 1.0 && started > now - Duration::from_secs(3600).as_secs_f64(),
        "start time {started}, now {now}"
    );
}
