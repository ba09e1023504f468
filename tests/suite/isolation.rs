//! Render isolation (issue 14): renders run in worker processes, so a render
//! past its deadline is stopped and its slot is free at once, and a worker
//! that dies costs only its own request.

use std::time::Duration;

use serde_json::{json, Value};

use crate::server::{self, label, render, Server, SYSTEM};

/// A valid A4 document whose table has `rows` rows: about a second of work per 10,000.
fn long_table(rows: usize) -> Value {
    let columns: Vec<Value> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|key| json!({"key": key, "header": key, "width": {"mode": "fixed", "value": 36}}))
        .collect();
    let rows: Vec<Value> = (0..rows)
        .map(|i| {
            json!({"a": format!("item {i}"), "b": "Widget, blue, large", "c": i * 3,
                   "d": "12.50 EUR", "e": format!("{}.00 EUR", i * 37)})
        })
        .collect();
    json!({"pages": [{"size": "a4", "elements": [
        {"type": "table", "x": 10, "y": 10, "columns": columns, "rows": rows}
    ]}]})
}

/// One render slot and the given extra limits.
fn one_slot(dir: &std::path::Path, limits: &str) -> Server {
    let config = dir.join("limits.toml");
    std::fs::write(
        &config,
        format!("[limits]\nrender_concurrency = 1\n{limits}\n"),
    )
    .unwrap();
    server::start(dir, &["--config", config.to_str().unwrap()])
}

async fn replaced(server: &Server) -> f64 {
    server::metric(&server.base, "labelpress_render_workers_replaced_total").await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_past_its_deadline_is_stopped_and_its_slot_serves_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    // The deadline counts from the request's arrival: 3 s leave a busy
    // machine time to read and queue the 9 MB body, so that the deadline
    // passes while the worker compiles (one withdrawn from the queue would
    // never reach a worker).
    let server = one_slot(dir.path(), "render_deadline_ms = 3000");
    assert_eq!(replaced(&server).await, 0.0);
    // Several seconds of work even on a fast machine.
    let slow = render(&server.base, SYSTEM, &long_table(80_000)).await;
    slow.assert_error(503, "API-503");
    // With one slot, a compile left running would hold it for seconds and
    // this label would miss its own deadline; its worker was stopped instead.
    let next = render(&server.base, SYSTEM, &label("next")).await;
    assert_eq!(next.status, 200);
    assert_eq!(replaced(&server).await, 1.0);
    let workers = worker_pids(&server);
    assert_eq!(workers.len(), 1, "one worker per slot: {workers:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_that_runs_out_of_its_memory_cap_fails_only_its_own_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = one_slot(dir.path(), "render_worker_memory_mb = 1024");
    let before = worker_pids(&server);
    let heavy = render(&server.base, SYSTEM, &long_table(60_000)).await;
    heavy.assert_error(500, "API-501");
    assert!(server::metric(&server.base, "labelpress_render_workers_replaced_total").await >= 1.0);
    let next = render(&server.base, SYSTEM, &label("next")).await;
    assert_eq!(next.status, 200);
    let after = worker_pids(&server);
    assert_eq!(after.len(), 1);
    assert_ne!(before, after, "the dead worker was replaced");
}

#[tokio::test(flavor = "multi_thread")]
async fn text_that_once_panicked_typst_is_refused_before_it_and_the_next_request_renders() {
    // typst-layout 0.15.1 panics in shaping.rs:444 on this text (typst/typst#8667)
    // when its emoji, which no font has, are shaped as missing glyphs; the
    // coverage check refuses the first of them before Typst runs.
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let panics = json!({"pages": [{"size": "a6", "elements": [{"type": "text", "x": 5, "y": 100,
        "content": "\\W\u{1d518}\u{202e} \u{1f468}\u{2014} \u{1f3fd}", "style": {"width": 20}}]}]});
    let r = render(&server.base, SYSTEM, &panics).await;
    let body = r.assert_error(422, "API-002");
    assert_eq!(
        body["details"][0]["path"], "pages[0].elements[0].content",
        "{body}"
    );
    assert!(
        body["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("U+1D518 (character 3)"),
        "{body}"
    );
    for _ in 0..3 {
        assert_eq!(
            render(&server.base, SYSTEM, &label("fine")).await.status,
            200
        );
    }
}

/// The server's render worker processes (children running `render-worker`).
pub fn worker_pids(server: &Server) -> Vec<u32> {
    // A replaced worker may take a moment to start.
    std::thread::sleep(Duration::from_millis(300));
    let parent = server.child.id();
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let ppid = stat
                .rsplit_once(") ")
                .and_then(|(_, rest)| rest.split(' ').nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            ppid == Some(parent) && String::from_utf8_lossy(&cmdline).contains("render-worker")
        })
        .collect();
    pids.sort();
    pids
}
