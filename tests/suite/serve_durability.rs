//! Usage accounting across crashes, verifier outages, overload and shutdown,
//! with real processes: every 200 is charged exactly once, nothing else is.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::server::{self, label, render};

/// A document that takes a second or more to render.
/// A render node on `url` that reports usage after rendering (the
/// outbox, `lease_s = 0`) instead of taking leases: what these tests are
/// about. Its config file sits in its data folder.
fn outbox_node(dir: &std::path::Path, url: &str) -> [String; 6] {
    let config = dir.join("outbox.toml");
    std::fs::write(&config, "[limits]\nlease_s = 0\n").unwrap();
    [
        "--services",
        "render,barcode",
        "--verify-url",
        url,
        "--config",
        config.to_str().unwrap(),
    ]
    .map(String::from)
}

fn heavy() -> Value {
    let pages: Vec<Value> = (0..600)
        .map(|i| {
            let elements: Vec<Value> = (0..30)
                .map(|j| json!({"type": "text", "x": 10, "y": 10 + (j * 4), "content": format!("Line {j} of page {i}")}))
                .collect();
            json!({"size": "a6", "elements": elements})
        })
        .collect();
    json!({ "pages": pages })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crash_mid_burst_loses_no_usage_and_charges_none_twice() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = server::start(dir.path(), &[]);
    // A balance and a rate limit no 2.5 s burst can reach (this small label
    // renders at several thousand a second on a quiet machine).
    let initial = 1_000_000;
    // A rate limit no burst can reach: the server renders this small label
    // faster than 1,000 a second.
    let (id, token) = server::new_token(&s.base, initial, Some((1_000_000, 1_000_000))).await;

    let ok = Arc::new(AtomicU64::new(0));
    let unanswered = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for worker in 0..8 {
        let (base, token) = (s.base.clone(), token.clone());
        let (ok, unanswered) = (ok.clone(), unanswered.clone());
        tasks.push(tokio::spawn(async move {
            let client = server::client();
            for i in 0.. {
                let sent = client
                    .post(format!("{base}/api/v1/label"))
                    .bearer_auth(&token)
                    .json(&label(&format!("worker {worker} label {i}")))
                    .send()
                    .await;
                let answered = match sent {
                    Ok(response) => {
                        let status = response.status().as_u16();
                        response.bytes().await.is_ok().then_some(status)
                    }
                    Err(_) => None,
                };
                match answered {
                    Some(200) => ok.fetch_add(1, Ordering::SeqCst),
                    Some(other) => panic!("status {other} before the crash"),
                    None => {
                        unanswered.fetch_add(1, Ordering::SeqCst);
                        break;
                    }
                };
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(2500)).await;
    s.kill();
    for task in tasks {
        task.await.unwrap();
    }
    let rendered = ok.load(Ordering::SeqCst);
    let unanswered = unanswered.load(Ordering::SeqCst);
    assert!(rendered > 0, "no render finished before the crash");

    s.restart();
    let deadline = Instant::now() + Duration::from_secs(30);
    while server::metric(&s.base, "labelpress_outbox_depth").await != 0.0 {
        assert!(Instant::now() < deadline, "outbox not drained");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Every 200 is charged once. A request cut off by the crash may have been
    // rendered and recorded before its answer was written: those (at most one
    // per client connection in flight) may be charged too; nothing else.
    let charged = initial - server::balance(&s.base, &id).await;
    assert!(
        (rendered..=rendered + unanswered).contains(&charged),
        "charged {charged}, answered 200: {rendered}, cut off: {unanswered}"
    );
    eprintln!("crash test: {rendered} answered, {unanswered} cut off, {charged} charged");
}

#[tokio::test(flavor = "multi_thread")]
async fn during_a_verifier_outage_cached_tokens_render_and_their_usage_arrives_later() {
    let vdir = tempfile::tempdir().unwrap();
    let rdir = tempfile::tempdir().unwrap();
    let mut verifier = server::start(vdir.path(), &["--services", "verify"]);
    let url = verifier.base.clone();
    let render_node = server::start(
        rdir.path(),
        &outbox_node(rdir.path(), &url)
            .each_ref()
            .map(String::as_str),
    );
    let r = &render_node.base;
    let (id, cached) = server::new_token(&url, 10, None).await;
    let (_, uncached) = server::new_token(&url, 10, None).await;

    assert_eq!(render(r, &cached, &label("warm")).await.status, 200);
    server::await_balance(&url, &id, 9, Duration::from_secs(10)).await;
    let ready = server::get(r, "/readyz").await.json();
    assert_eq!(ready["verifier"], "remote");

    verifier.kill();
    for i in 0..3 {
        let reply = render(r, &cached, &label(&format!("outage {i}"))).await;
        assert_eq!(
            reply.status,
            200,
            "{}",
            String::from_utf8_lossy(&reply.bytes)
        );
    }
    let reply = render(r, &uncached, &label("x")).await;
    reply.assert_error(503, "API-502");
    let retry: u64 = reply.header("retry-after").unwrap().parse().unwrap();
    assert!(retry >= 1);
    assert!(server::metric(r, "labelpress_outbox_depth").await >= 3.0);
    // Unready would take a node out of rotation; a verifier outage must not.
    assert_eq!(server::get(r, "/readyz").await.status, 200);

    verifier.restart();
    server::await_balance(&url, &id, 6, Duration::from_secs(20)).await;
    // And the uncached token works again.
    assert_eq!(render(r, &uncached, &label("back")).await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_queue_and_a_passed_deadline_answer_503_and_charge_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(
        &config,
        "[limits]\nrender_concurrency = 1\nrender_queue = 0\nrender_deadline_ms = 300\n",
    )
    .unwrap();
    let s = server::start(
        &dir.path().join("data"),
        &["--config", config.to_str().unwrap()],
    );
    let b = &s.base;
    let (id, token) = server::new_token(b, 10, None).await;

    let started = Instant::now();
    let slow = render(b, &token, &heavy()).await;
    let body = slow.assert_error(503, "API-503");
    assert!(
        body["message"].as_str().unwrap().contains("deadline"),
        "{body}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    // While the only slot is busy, with no queue, the next request is 503
    // at once. The slot is busy with a render, or with the killed worker's
    // replacement starting (long on a busy machine), so which request meets
    // the full queue is a race: heavy renders (never charged: they pass
    // their deadline) are sent until one is turned away for the queue.
    let mut turned_away = None;
    for _ in 0..10 {
        let (base, held_by) = (b.clone(), token.clone());
        let holder = tokio::spawn(async move { render(&base, &held_by, &heavy()).await });
        while !holder.is_finished() && server::metric(b, "labelpress_renders_running").await < 1.0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let probe = match holder.is_finished() {
            true => None,
            false => Some(render(b, &token, &heavy()).await),
        };
        let held = holder.await.unwrap();
        for reply in probe.into_iter().chain([held]) {
            let body = reply.assert_error(503, "API-503");
            let message = body["message"].as_str().unwrap().to_string();
            assert!(
                message.contains("queue") || message.contains("deadline"),
                "{body}"
            );
            if message.contains("queue") {
                assert!(reply.header("retry-after").is_some());
                turned_away = Some(body);
            }
        }
        if turned_away.is_some() {
            break;
        }
    }
    assert!(turned_away.is_some(), "no request met the full queue");
    // A bad body is still 422 with no slot free: the body is checked before
    // overload is (docs/http-api.md).
    let mut invalid = label("invalid");
    invalid["pages"][0]["elements"][0]["colour"] = "#000000".into();
    let body = render(b, &token, &invalid)
        .await
        .assert_error(422, "API-002");
    assert!(
        body["details"][0]["path"]
            .as_str()
            .unwrap()
            .starts_with("pages[0].elements[0]"),
        "{body}"
    );
    // So is a batch with an invalid document, at its place in the batch.
    let batch = json!({"documents": [label("fine"), invalid]});
    let reply = server::client()
        .post(format!("{b}/api/v1/batch"))
        .bearer_auth(&token)
        .json(&batch)
        .send()
        .await
        .unwrap();
    let body = server::reply(reply).await.assert_error(422, "API-002");
    assert!(
        body["details"][0]["path"]
            .as_str()
            .unwrap()
            .starts_with("documents[1].pages[0].elements[0]"),
        "{body}"
    );
    // Heavy renders past their deadline were abandoned (the count may
    // follow the answer by a moment: the worker is stopped after it).
    let counted = Instant::now() + Duration::from_secs(10);
    while server::metric(b, "labelpress_renders_abandoned_total").await < 1.0 {
        assert!(Instant::now() < counted, "no render counted as abandoned");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Once it finishes the slot is free again.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = render(b, &token, &label("later")).await;
        if r.status == 200 {
            break;
        }
        r.assert_error(503, "API-503");
        assert!(Instant::now() < deadline, "slot never freed");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    server::await_balance(b, &id, 9, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(server::balance(b, &id).await, 9);
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_finishes_the_render_in_flight_and_reports_its_usage() {
    let vdir = tempfile::tempdir().unwrap();
    let rdir = tempfile::tempdir().unwrap();
    let verifier = server::start(vdir.path(), &["--services", "verify"]);
    let url = verifier.base.clone();
    let mut node = server::start(rdir.path(), &["--services", "render", "--verify-url", &url]);
    let (id, token) = server::new_token(&url, 10, None).await;
    let base = node.base.clone();
    let in_flight = tokio::spawn(async move { render(&base, &token, &heavy()).await });
    // The signal comes once the render runs (not after a fixed wait: on a
    // busy machine the request may not even have been read by then, and a
    // drain closes a connection whose request has not started).
    let running = Instant::now() + Duration::from_secs(30);
    while server::metric(&node.base, "labelpress_renders_running").await < 1.0
        && !in_flight.is_finished()
    {
        assert!(Instant::now() < running, "the render never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let status = tokio::task::spawn_blocking(move || {
        let status = node.stop();
        (status, node)
    })
    .await
    .unwrap()
    .0;
    assert!(status.success(), "{status:?}");
    let reply = in_flight.await.unwrap();
    assert_eq!(
        reply.status,
        200,
        "{}",
        String::from_utf8_lossy(&reply.bytes)
    );
    assert!(reply.bytes.starts_with(b"%PDF"));
    // Delivered by the final report before exit: the node is gone now.
    assert_eq!(server::balance(&url, &id).await, 9);
}

/// `labelpress serve` run by hand, to completion (for starts that fail).
fn serve_exits(addr: &str, data_dir: &std::path::Path) -> std::process::Output {
    let mut child = std::process::Command::new(server::binary())
        .args(["serve", "--listen", addr, "--no-system-fonts", "--data-dir"])
        .arg(data_dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the failing start exits");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_server_on_the_same_data_folder_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let first = server::start(&data, &[]);
    let out = serve_exits(&server::free_addr(), &data);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains(&data.display().to_string()) && stderr.contains("another labelpress"),
        "{stderr}"
    );
    // The first server is untouched and still serves.
    assert_eq!(
        render(&first.base, server::SYSTEM, &label("still"))
            .await
            .status,
        200
    );
}

#[test]
fn a_server_that_cannot_bind_creates_nothing() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let out = serve_exits(&addr, &data);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&addr));
    assert!(!data.exists(), "no data folder, no admin token");
}

/// The embedded ledger's usage history is as durable as the deductions:
/// its hourly totals are written before the sync that a 200 waits for, so
/// after a SIGKILL right after the answers the chart's numbers are all there.
#[tokio::test(flavor = "multi_thread")]
async fn the_usage_history_of_acknowledged_deductions_survives_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = server::start(dir.path(), &["--services", "verify"]);
    let (id, token) = server::new_token(&s.base, 100, None).await;
    let mut units = 0;
    for count in 1..=6u64 {
        let r = server::client()
            .post(format!("{}/v1/verify", s.base))
            .bearer_auth(&token)
            .json(&json!({ "count": count }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        units += count;
    }
    s.kill();
    s.restart();
    let usage = |path: String| {
        let base = s.base.clone();
        async move { server::admin(&base, reqwest::Method::GET, &path, None).await }
    };
    for path in [
        format!("/usage?token={id}&bucket=day"),
        "/usage?account=acme".to_string(),
    ] {
        let body = usage(path).await;
        assert_eq!(
            (body["units"].as_u64(), body["deductions"].as_u64()),
            (Some(units), Some(6)),
            "{body}"
        );
    }
    assert_eq!(server::balance(&s.base, &id).await, 100 - units);
}

/// A verifier and a render node using it, in their own data folders.
struct Pair {
    verifier: server::Server,
    node: server::Server,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

/// Renders `n` labels on `token` whose usage reaches the verifier only
/// after `meanwhile` ran on it: the verifier is down while they render
/// (the node's cache admits the token), the node is killed with the usage
/// in its outbox, `meanwhile` runs on the restarted verifier, and the node
/// starts again and reports. Returns the pair and the token's id.
async fn usage_reported_after(
    balance: u64,
    n: u64,
    meanwhile: impl AsyncFnOnce(&str, &str, &str),
) -> (Pair, String) {
    let vdir = tempfile::tempdir().unwrap();
    let rdir = tempfile::tempdir().unwrap();
    let mut verifier = server::start(vdir.path(), &["--services", "verify"]);
    let url = verifier.base.clone();
    let mut node = server::start(
        rdir.path(),
        &outbox_node(rdir.path(), &url)
            .each_ref()
            .map(String::as_str),
    );
    let (id, token) = server::new_token(&url, balance, None).await;
    assert_eq!(render(&node.base, &token, &label("warm")).await.status, 200);
    server::await_balance(&url, &id, balance - 1, Duration::from_secs(10)).await;
    verifier.kill();
    for i in 0..n {
        let reply = render(&node.base, &token, &label(&format!("later {i}"))).await;
        assert_eq!(
            reply.status,
            200,
            "{}",
            String::from_utf8_lossy(&reply.bytes)
        );
    }
    // Killed with the usage in its outbox, not yet reported.
    node.kill();
    verifier.restart();
    meanwhile(&url, &id, &token).await;
    node.restart();
    let pair = Pair {
        verifier,
        node,
        _dirs: (vdir, rdir),
    };
    (pair, id)
}

/// The token's uncharged total once it reaches `expected` (the reporter
/// runs in the background), then the token as the admin API shows it.
async fn await_uncharged(base: &str, id: &str, expected: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let token = server::admin(base, reqwest::Method::GET, &format!("/tokens/{id}"), None).await;
        if token["uncharged"].as_u64() == Some(expected) {
            return token;
        }
        assert!(
            Instant::now() < deadline,
            "uncharged never {expected}: {token}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the render node has no usage and no uncharged renders left
/// to report.
async fn await_drained(node: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while server::metric(node, "labelpress_outbox_depth").await != 0.0
        || server::metric(node, "labelpress_usage_uncharged_unreported").await != 0.0
    {
        assert!(Instant::now() < deadline, "outbox not drained");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Renders of a token revoked before their usage was reported are not
/// charged and not dropped: the verifier records them as uncharged on the
/// token, once, across a restart of the render node before the report and
/// another one after it.
#[tokio::test(flavor = "multi_thread")]
async fn renders_of_a_token_revoked_before_the_report_are_recorded_as_uncharged_once() {
    const N: u64 = 4;
    let (mut pair, id) = usage_reported_after(10, N, async |url, id, _| {
        server::admin(
            url,
            reqwest::Method::POST,
            &format!("/tokens/{id}/revoke"),
            None,
        )
        .await;
    })
    .await;
    let url = pair.verifier.base.clone();
    let token = await_uncharged(&url, &id, N).await;
    assert_eq!(
        (token["balance"].as_u64(), token["status"].as_str()),
        (Some(9), Some("revoked")),
        "{token}"
    );
    await_drained(&pair.node.base).await;
    assert_eq!(
        server::metric(&pair.node.base, "labelpress_usage_uncharged_total").await,
        N as f64
    );
    assert_eq!(
        server::metric(&pair.node.base, "labelpress_usage_uncharged_unrecorded").await,
        0.0
    );
    let metrics = String::from_utf8(server::get(&url, "/metrics").await.bytes).unwrap();
    assert!(
        metrics.contains(&format!(
            "labelpress_ledger_uncharged_renders{{token_id=\"{id}\"}} {N}\n"
        )),
        "{metrics}"
    );
    assert!(
        metrics.contains(&format!("labelpress_ledger_uncharged_renders_all {N}\n")),
        "{metrics}"
    );
    // Nothing is recorded twice: a restart after the report sends nothing.
    assert!(pair.node.stop().success());
    pair.node.restart();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let token = server::admin(&url, reqwest::Method::GET, &format!("/tokens/{id}"), None).await;
    assert_eq!(
        (token["uncharged"].as_u64(), token["balance"].as_u64()),
        (Some(N), Some(9)),
        "{token}"
    );
}

/// A batch larger than the balance left (spent directly meanwhile): the
/// balance is charged, the rest is recorded as uncharged.
#[tokio::test(flavor = "multi_thread")]
async fn usage_beyond_the_balance_charges_what_is_left_and_records_the_rest_as_uncharged() {
    const N: u64 = 5;
    // 10, one warm render (9 left), 7 spent directly: 2 left for 5 renders.
    let (pair, id) = usage_reported_after(10, N, async |url, _, token| {
        let spent = server::client()
            .post(format!("{url}/v1/verify"))
            .bearer_auth(token)
            .json(&json!({"count": 7}))
            .send()
            .await
            .unwrap();
        assert_eq!(spent.status(), 200);
    })
    .await;
    let url = pair.verifier.base.clone();
    await_uncharged(&url, &id, N - 2).await;
    // The uncharged record and the charge of what was left are reported
    // apart, in either order: read the token once both are in.
    server::await_balance(&url, &id, 0, Duration::from_secs(10)).await;
    let token = server::admin(&url, reqwest::Method::GET, &format!("/tokens/{id}"), None).await;
    assert_eq!(
        (token["status"].as_str(), token["uncharged"].as_u64()),
        (Some("exhausted"), Some(N - 2)),
        "{token}"
    );
    await_drained(&pair.node.base).await;
    assert_eq!(
        server::metric(&pair.node.base, "labelpress_usage_uncharged_total").await,
        (N - 2) as f64
    );
    assert_eq!(
        server::metric(&url, "labelpress_ledger_uncharged_renders_all").await,
        (N - 2) as f64
    );
}

/// A token the verifier does not know at report time (here: a verifier
/// started afresh on the same address) cannot be recorded: its uncharged
/// renders stay on the render node, shown by `/metrics`, and are not sent
/// again.
#[tokio::test(flavor = "multi_thread")]
async fn uncharged_renders_of_a_token_the_verifier_does_not_know_stay_on_the_node() {
    const N: u64 = 3;
    let vdir = tempfile::tempdir().unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let rdir = tempfile::tempdir().unwrap();
    let mut verifier = server::start(vdir.path(), &["--services", "verify"]);
    let url = verifier.base.clone();
    let node = server::start(
        rdir.path(),
        &outbox_node(rdir.path(), &url)
            .each_ref()
            .map(String::as_str),
    );
    let (id, token) = server::new_token(&url, 10, None).await;
    assert_eq!(render(&node.base, &token, &label("warm")).await.status, 200);
    server::await_balance(&url, &id, 9, Duration::from_secs(10)).await;
    // The node has heard the answer too: the warm render's batch is not
    // re-sent to the other ledger below, which could not know it was paid.
    await_drained(&node.base).await;
    verifier.kill();
    for i in 0..N {
        assert_eq!(
            render(&node.base, &token, &label(&format!("u {i}")))
                .await
                .status,
            200
        );
    }
    // Another ledger on the same address: the token is unknown there.
    let _other = server::start_on(&verifier.addr, fresh.path(), &["--services", "verify"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while server::metric(&node.base, "labelpress_usage_uncharged_unrecorded").await != N as f64 {
        assert!(Instant::now() < deadline, "never kept as unrecorded");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    await_drained(&node.base).await;
    assert_eq!(
        server::metric(&node.base, "labelpress_usage_uncharged_total").await,
        N as f64
    );
    // Not sent again: the verifier's failed-call count stays put.
    let calls = server::metric(&node.base, "labelpress_verifier_duration_seconds_count").await;
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(
        server::metric(&node.base, "labelpress_verifier_duration_seconds_count").await,
        calls
    );
    assert_eq!(
        server::metric(&node.base, "labelpress_usage_uncharged_unrecorded").await,
        N as f64
    );
}
