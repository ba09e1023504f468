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
    let server = one_slot(
        dir.path(),
        "render_deadline_ms = 3000\nrender_worker_memory_mb = 0",
    );
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

/// `n` short texts on one A4 sheet, each wrapped in its own width: every
/// one is its own box in Typst, about 15 KiB of a worker's memory apiece.
fn many_boxed_texts(n: usize) -> Value {
    let elements: Vec<Value> = (0..n)
        .map(|i| {
            json!({"type": "text", "x": (i % 19) * 10, "y": (i / 19) % 280,
                   "content": format!("t{i}"), "style": {"width": 9, "font_size": 4}})
        })
        .collect();
    json!({"pages": [{"size": "a4", "elements": elements}]})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_that_runs_out_of_its_memory_cap_fails_only_its_own_request() {
    let dir = tempfile::tempdir().unwrap();
    let server = one_slot(dir.path(), "render_worker_memory_mb = 1024");
    let before = worker_pids(&server);
    // Tables cannot do this any more: table_cells follows the cap.
    let heavy = render(&server.base, SYSTEM, &many_boxed_texts(99_000)).await;
    // Issue 28 item 2: the worker says it ran out of its cap before it
    // dies, and the client learns why (never a 500 it cannot act on).
    let body = heavy.assert_error(422, "API-002");
    assert!(
        body["details"][0]["message"]
            .as_str()
            .unwrap()
            .contains("more memory than a render worker may use (1024 MiB"),
        "{body}"
    );
    assert!(server::metric(&server.base, "labelpress_render_workers_replaced_total").await >= 1.0);
    let next = render(&server.base, SYSTEM, &label("next")).await;
    assert_eq!(next.status, 200);
    let after = worker_pids(&server);
    assert_eq!(after.len(), 1);
    assert_ne!(before, after, "the dead worker was replaced");
}

/// The densest table of `cells` cells: 20 narrow columns whose every cell
/// wraps onto two or more lines, so each cell is its own box in Typst.
fn densest_table(cells: usize) -> Value {
    let columns: Vec<Value> = (0..20)
        .map(|c| json!({"key": format!("c{c}"), "header": format!("C{c}"), "width": {"mode": "auto"}}))
        .collect();
    let rows: Vec<Value> = (0..cells / 20)
        .map(|r| {
            let row: serde_json::Map<String, Value> = (0..20)
                .map(|c| (format!("c{c}"), json!(format!("ab{r} cd{c} ef gh"))))
                .collect();
            Value::Object(row)
        })
        .collect();
    json!({"pages": [{"size": "a4", "elements": [
        {"type": "table", "x": 10, "y": 10, "width": 190, "columns": columns, "rows": rows}
    ]}]})
}

/// Issue 28 item 2: every document inside the published limits renders at
/// the default worker cap. The limit that a table's memory bound,
/// `table_cells`, is derived from the cap; the largest table it allows, of
/// the densest kind, renders (a longer deadline only keeps a loaded CI
/// machine from turning this into a deadline test).
#[tokio::test(flavor = "multi_thread")]
async fn the_largest_table_the_limits_allow_renders_at_the_default_worker_cap() {
    let dir = tempfile::tempdir().unwrap();
    let server = one_slot(dir.path(), "render_deadline_ms = 600000");
    let config = server::get(&server.base, "/v1/doc/runtime-config")
        .await
        .json();
    assert_eq!(config["limits"]["render_worker_memory_mb"], 4096);
    let cells = config["limits"]["table_cells"].as_u64().unwrap() as usize;
    assert_eq!(cells, 4096 * 40);
    let document = densest_table(cells);
    let too_many = densest_table(cells + 20);
    let refused = render(&server.base, SYSTEM, &too_many).await;
    let body = refused.assert_error(422, "API-002");
    assert!(body.to_string().contains("table cells"), "{body}");
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(900))
        .build()
        .unwrap();
    let response = client
        .post(format!("{}/api/v1/label", server.base))
        .bearer_auth(SYSTEM)
        .json(&document)
        .send()
        .await
        .unwrap();
    let reply = server::reply(response).await;
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.bytes[..reply.bytes.len().min(2000)])
    );
    assert!(reply.bytes.starts_with(b"%PDF-"));
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

/// What the kernel's OOM killer may do: both idle workers are killed from
/// outside. The next requests did not cause that, so each is answered by a
/// fresh worker (found dead before the job is handed over) instead of a 500.
/// The requests come two at a time, so that both render threads take one
/// (one at a time, the thread that finished last takes every request).
#[tokio::test(flavor = "multi_thread")]
async fn idle_workers_killed_from_outside_cost_no_request() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(&config, "[limits]\nrender_concurrency = 2\n").unwrap();
    let server = server::start(dir.path(), &["--config", config.to_str().unwrap()]);
    // Each render thread starts its worker when it starts.
    let mut workers = worker_pids(&server);
    for _ in 0..50 {
        if workers.len() == 2 {
            break;
        }
        workers = worker_pids(&server);
    }
    assert_eq!(workers.len(), 2, "one idle worker per slot: {workers:?}");
    for pid in &workers {
        // SAFETY: kill(2) on a child process id of the server.
        assert_eq!(unsafe { libc::kill(*pid as i32, libc::SIGKILL) }, 0);
    }
    for pair in 0..2 {
        let bodies = [0, 1].map(|i| label(&format!("after kill {pair}.{i}")));
        let (first, second) = tokio::join!(
            render(&server.base, SYSTEM, &bodies[0]),
            render(&server.base, SYSTEM, &bodies[1])
        );
        for (i, r) in [first, second].iter().enumerate() {
            assert_eq!(
                r.status,
                200,
                "render {pair}.{i} after the idle workers died: {}",
                String::from_utf8_lossy(&r.bytes)
            );
        }
    }
    let now = worker_pids(&server);
    assert!(
        now.iter().all(|pid| !workers.contains(pid)),
        "the killed workers were replaced: {workers:?} -> {now:?}"
    );
    assert!(replaced(&server).await >= 2.0);
}

/// `POST /api/v1/label/check` with the system token.
async fn check(base: &str, body: &Value) -> server::Reply {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/v1/label/check"))
        .bearer_auth(SYSTEM)
        .json(body)
        .send()
        .await
        .unwrap();
    server::Reply {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        bytes: response.bytes().await.unwrap().to_vec(),
    }
}

/// Issue 28 item 1: a check is free, so it must be bounded like a render.
/// It runs in a worker under the render deadline: a check past it is 503
/// and its worker is stopped, and the slot serves the next request.
#[tokio::test(flavor = "multi_thread")]
async fn a_check_past_the_deadline_is_stopped_like_a_render() {
    let dir = tempfile::tempdir().unwrap();
    // 1 s leaves a busy machine time to read the 16 MB body; its
    // validation and layout (2,728 sheets) take longer even on an idle one
    // (1.8 s; an 80,000-row check passed 2 s there).
    let server = one_slot(
        dir.path(),
        "render_deadline_ms = 1000\nsheets = 10000\nrender_worker_memory_mb = 0",
    );
    let slow = check(&server.base, &long_table(150_000)).await;
    slow.assert_error(503, "API-503");
    let small = check(&server.base, &label("fine")).await;
    assert_eq!(small.status, 200);
    assert_eq!(small.json()["valid"], true);
    assert_eq!(
        render(&server.base, SYSTEM, &label("next")).await.status,
        200
    );
    // Counted once the render thread has stopped it (after the 503 left).
    assert_eq!(
        replaced(&server).await,
        1.0,
        "the check's worker was stopped"
    );
}

/// Issue 28 item 1: heavy checks, which cost nothing, never hold every
/// render thread: with two slots at most one check runs at a time, and
/// labels sent meanwhile are answered while the checks are still running.
#[tokio::test(flavor = "multi_thread")]
async fn heavy_checks_leave_renders_a_thread() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(&config, "[limits]\nrender_concurrency = 2\n").unwrap();
    let server = server::start(dir.path(), &["--config", config.to_str().unwrap()]);
    let heavy = long_table(30_000);
    // Both render threads' workers render a label first (two at a time,
    // twice), so that no label below is a worker's first, cold render:
    // that one is slow for reasons that have nothing to do with checks.
    for _ in 0..2 {
        let warm: Vec<_> = (0..2)
            .map(|_| {
                let base = server.base.clone();
                tokio::spawn(async move { render(&base, SYSTEM, &label("warm")).await.status })
            })
            .collect();
        for w in warm {
            assert_eq!(w.await.unwrap(), 200);
        }
    }
    // Alone, for comparison: one heavy check's time (the second of two,
    // once the worker has its fonts loaded).
    let mut one_check = Duration::ZERO;
    for _ in 0..2 {
        let t = std::time::Instant::now();
        let alone = check(&server.base, &heavy).await;
        assert_eq!(alone.status, 200);
        assert_eq!(alone.json()["valid"], true);
        one_check = t.elapsed();
    }
    let checks_started = std::time::Instant::now();
    let checks: Vec<_> = (0..2)
        .map(|_| {
            let (base, heavy) = (server.base.clone(), heavy.clone());
            tokio::spawn(async move { check(&base, &heavy).await })
        })
        .collect();
    tokio::time::sleep(one_check / 4).await;
    let mut slowest = Duration::ZERO;
    let mut labels = 0;
    while labels < 3 || checks.iter().any(|c| !c.is_finished()) && labels < 50 {
        let t = std::time::Instant::now();
        let r = render(&server.base, SYSTEM, &label("meanwhile")).await;
        assert_eq!(r.status, 200);
        slowest = slowest.max(t.elapsed());
        labels += 1;
    }
    for c in checks {
        assert_eq!(c.await.unwrap().status, 200);
    }
    let checks_took = checks_started.elapsed();
    eprintln!(
        "one heavy check {one_check:?}; two at once {checks_took:?}; {labels} labels meanwhile, slowest {slowest:?}"
    );
    // Labels kept a render thread: none waited for a check to end.
    assert!(
        slowest < one_check / 2,
        "slowest label {slowest:?} vs a check {one_check:?}"
    );
}
