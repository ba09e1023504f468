//! `POST /api/v1/label` over a real socket against the real in-process
//! verifier: every error code of docs/http-api.md ("Errors"), the auth cases of
//! section 4, PDFs read back, and charging.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde_json::json;

use crate::server::{self, assert_request_id, client, label, render, reply, Server, SYSTEM};
use crate::support::read_pdf;

fn all_services() -> (tempfile::TempDir, Server) {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    (dir, server)
}

async fn post(base: &str, headers: &[(&str, &str)], body: Vec<u8>) -> server::Reply {
    let mut request = client().post(format!("{base}/api/v1/label")).body(body);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    reply(request.send().await.unwrap()).await
}

#[tokio::test(flavor = "multi_thread")]
async fn authorization_failures_answer_401_403_before_the_body_is_looked_at() {
    let (_dir, s) = all_services();
    let b = &s.base;
    let not_json = b"{".to_vec();

    let r = post(b, &[], not_json.clone()).await;
    r.assert_error(401, "API-101");
    assert_eq!(r.header("www-authenticate").as_deref(), Some("Bearer"));
    for value in ["Basic x", "Bearer", "Bearer ", "Bearer a b"] {
        let r = post(b, &[("authorization", value)], not_json.clone()).await;
        r.assert_error(401, "API-101");
        assert_eq!(
            r.header("www-authenticate").as_deref(),
            Some("Bearer"),
            "{value}"
        );
    }

    // Well-formed but unknown: the verifier says Invalid Token.
    let unknown = "lp_0123456789abcdefghijABCDEFGHIJ01";
    let r = render(b, unknown, &label("x")).await;
    let body = r.assert_error(403, "API-102");
    assert!(
        body["message"].as_str().unwrap().contains("Invalid Token"),
        "{body}"
    );

    // Blacklisted now: 403 at once, without asking the verifier again.
    let calls = server::metric(b, "labelpress_verifier_duration_seconds_count").await;
    let r = render(b, unknown, &label("x")).await;
    let body = r.assert_error(403, "API-102");
    assert!(
        body["message"].as_str().unwrap().contains("blacklisted"),
        "{body}"
    );
    assert_eq!(
        server::metric(b, "labelpress_verifier_duration_seconds_count").await,
        calls
    );

    // A revoked token.
    let (id, token) = server::new_token(b, 5, None).await;
    server::admin(
        b,
        reqwest::Method::POST,
        &format!("/tokens/{id}/revoke"),
        None,
    )
    .await;
    render(b, &token, &label("x"))
        .await
        .assert_error(403, "API-102");

    // An exhausted one.
    let (_, empty) = server::new_token(b, 0, None).await;
    let body = render(b, &empty, &label("x"))
        .await
        .assert_error(403, "API-102");
    assert!(
        body["message"].as_str().unwrap().contains("Quota Exceeded"),
        "{body}"
    );
}

/// Sends a body over the 20 MiB limit on a raw socket and returns what the
/// server answered (head and body).
fn too_large(addr: &str, auth: &str, announced: bool) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    let size = 20 * 1024 * 1024 + 1;
    let framing = if announced {
        format!("Content-Length: {size}")
    } else {
        "Transfer-Encoding: chunked".to_string()
    };
    write!(
        s,
        "POST /api/v1/label HTTP/1.1\r\nHost: t\r\nAuthorization: {auth}\r\n\
         Content-Type: application/json\r\n{framing}\r\n\r\n"
    )
    .unwrap();
    if !announced {
        let chunk = vec![b' '; 1024 * 1024];
        for _ in 0..21 {
            if s.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .is_err()
                || s.write_all(&chunk).is_err()
                || s.write_all(b"\r\n").is_err()
            {
                break;
            }
        }
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn body_errors_follow_auth_in_the_order_413_415_400_422() {
    let (_dir, s) = all_services();
    let b = &s.base;
    let auth = format!("Bearer {SYSTEM}");
    let json_ct = ("content-type", "application/json");

    // Announced as too large: answered from the headers, before the body is
    // sent (a client writing all 20 MiB would see the connection close).
    let head = too_large(&s.addr, &auth, true);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert!(head.contains("API-003"), "{head}");
    // Chunked, no length: cut off at the limit.
    let head = too_large(&s.addr, &auth, false);
    assert!(head.starts_with("HTTP/1.1 413"), "{head}");
    assert!(head.contains("API-003"), "{head}");

    let body = serde_json::to_vec(&label("x")).unwrap();
    post(
        b,
        &[("authorization", &auth), ("content-type", "text/plain")],
        body.clone(),
    )
    .await
    .assert_error(415, "API-004");
    post(b, &[("authorization", &auth)], body.clone())
        .await
        .assert_error(415, "API-004");
    // A charset parameter is fine.
    let r = post(
        b,
        &[
            ("authorization", &auth),
            ("content-type", "application/json; charset=utf-8"),
        ],
        body,
    )
    .await;
    assert_eq!(r.status, 200);

    let r = post(
        b,
        &[("authorization", &auth), json_ct],
        b"{\n  \"pages\": [,]\n}".to_vec(),
    )
    .await;
    let e = r.assert_error(400, "API-001");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("line 2") && message.contains("column"),
        "{message}"
    );

    let invalid = json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "x_anchor": "center", "y": 10, "content": "a"},
        {"type": "text", "x": 10, "y": 10, "content": "b", "bogus": 1}
    ]}]});
    let r = post(
        b,
        &[("authorization", &auth), json_ct],
        serde_json::to_vec(&invalid).unwrap(),
    )
    .await;
    let e = r.assert_error(422, "API-002");
    let paths: Vec<&str> = e["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.iter().any(|p| p.starts_with("pages[0].elements[0]")),
        "{paths:?}"
    );
    assert!(
        paths.iter().any(|p| p.starts_with("pages[0].elements[1]")),
        "{paths:?}"
    );
    assert!(e["details"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["message"].is_string()));

    // Auth comes before the body: a bad body without a token is 401.
    post(b, &[json_ct], b"{".to_vec())
        .await
        .assert_error(401, "API-101");
}

#[tokio::test(flavor = "multi_thread")]
async fn routes_methods_and_every_response_carry_a_request_id() {
    let (_dir, s) = all_services();
    let b = &s.base;
    server::get(b, "/api/v2/label")
        .await
        .assert_error(404, "API-005");
    server::get(b, "/nope").await.assert_error(404, "API-005");
    let r = reply(
        client()
            .post(format!("{b}/api/v3/label"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    r.assert_error(404, "API-005");
    server::get(b, "/api/v1/label")
        .await
        .assert_error(405, "API-005");

    for path in [
        "/healthz",
        "/readyz",
        "/metrics",
        "/v1/doc/runtime-config",
        "/barcode/qr/hi",
    ] {
        let r = server::get(b, path).await;
        assert_eq!(r.status, 200, "{path}");
        let id = r
            .header("x-request-id")
            .unwrap_or_else(|| panic!("{path}: no X-Request-Id"));
        assert_eq!(uuid::Uuid::parse_str(&id).unwrap().get_version_num(), 4);
    }
    let ready = server::get(b, "/readyz").await.json();
    assert_eq!(ready["ready"], true);
    assert_eq!(ready["verifier"], "in-process");

    let config = server::get(b, "/v1/doc/runtime-config").await.json();
    assert_eq!(config["limits"]["render_queue"], 64);
    assert_eq!(config["limits"]["auth_cache_ttl_s"], 300);
    assert_eq!(config["limits"]["body_bytes"], 20 * 1024 * 1024);

    let ok = render(b, SYSTEM, &label("id")).await;
    assert_eq!(ok.status, 200);
    assert!(ok.header("x-request-id").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_renders_readable_pdfs_and_is_charged_once_per_render() {
    let (dir, s) = all_services();
    let b = &s.base;
    let (id, token) = server::new_token(b, 10, None).await;
    // The outbox keeps tokens: owner-only.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(dir.path().join("render"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);

    let r = render(b, &token, &label("Hello serve")).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.bytes));
    assert_eq!(r.header("content-type").as_deref(), Some("application/pdf"));
    assert!(r.header("content-disposition").is_none());
    let pdf = read_pdf(r.bytes.clone());
    assert_eq!(pdf.page_count(), 1);
    assert!(pdf.text(0).contains("Hello serve"), "{}", pdf.text(0));

    let mut file = label("Download");
    file["settings"] = json!({"output": {"mode": "file", "file_name": "Étiquette 7"}});
    let r = render(b, &token, &file).await;
    assert_eq!(r.status, 200);
    let disposition = r.header("content-disposition").unwrap();
    assert!(disposition.starts_with("attachment;"), "{disposition}");
    assert!(
        disposition.contains("filename*=UTF-8''%C3%89tiquette%207.pdf"),
        "{disposition}"
    );
    assert_eq!(read_pdf(r.bytes).page_count(), 1);

    // Two pages, the second read back.
    let two = json!({"pages": [
        {"size": "a6", "elements": [{"type": "text", "x": 10, "y": 10, "content": "one"}]},
        {"size": "a6", "elements": [{"type": "text", "x": 10, "y": 10, "content": "two"}]}
    ]});
    let r = render(b, &token, &two).await;
    let pdf = read_pdf(r.bytes);
    assert_eq!(pdf.page_count(), 2);
    assert!(pdf.text(1).contains("two"));

    // A failed request is not charged.
    let bad = json!({"pages": []});
    assert_ne!(render(b, &token, &bad).await.status, 200);

    server::await_balance(b, &id, 7, Duration::from_secs(15)).await;

    // The system token renders without verification or charge.
    let misses = server::metric(b, "labelpress_auth_cache_misses_total").await;
    for _ in 0..2 {
        assert_eq!(render(b, SYSTEM, &label("sys")).await.status, 200);
    }
    assert_eq!(
        server::metric(b, "labelpress_auth_cache_misses_total").await,
        misses
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(server::metric(b, "labelpress_outbox_depth").await, 0.0);
    assert_eq!(server::balance(b, &id).await, 7);
    assert!(server::metric(b, "labelpress_sheets_rendered_total").await >= 6.0);
    assert!(server::metric(b, "labelpress_auth_cache_hits_total").await >= 2.0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_over_its_rate_limit_gets_429_with_retry_after() {
    let (_dir, s) = all_services();
    let b = &s.base;
    let (_, token) = server::new_token(b, 100, Some((1, 2))).await;
    // Sent at once, so a slow machine cannot spread them over refills.
    let body = label("r");
    let replies = futures_join(
        (0..5)
            .map(|_| {
                let (b, token, body) = (b.clone(), token.clone(), body.clone());
                async move { render(&b, &token, &body).await }
            })
            .collect::<Vec<_>>(),
    )
    .await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    let ok = statuses.iter().filter(|&&s| s == 200).count();
    assert!((2..=3).contains(&ok), "{statuses:?}");
    let limited: Vec<_> = replies.iter().filter(|r| r.status == 429).collect();
    assert_eq!(limited.len(), 5 - ok, "{statuses:?}");
    for r in limited {
        r.assert_error(429, "API-103");
        let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=2).contains(&retry), "{retry}");
    }
}

/// Awaits all futures concurrently (no `futures` crate in the dependencies).
async fn futures_join<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output>
where
    F: Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn repeated_failed_authentication_from_one_address_is_slowed() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(
        &config,
        "[limits]\nfailed_auth_per_second = 1\nfailed_auth_burst = 3\n",
    )
    .unwrap();
    let s = server::start(
        &dir.path().join("data"),
        &["--config", config.to_str().unwrap()],
    );
    let attempt = |base: String| async move {
        reply(
            client()
                .post(format!("{base}/api/v1/label"))
                .header(AUTHORIZATION, "Basic x")
                .header(CONTENT_TYPE, "application/json")
                .body("{}")
                .send()
                .await
                .unwrap(),
        )
        .await
    };
    let replies = futures_join((0..6).map(|_| attempt(s.base.clone())).collect::<Vec<_>>()).await;
    let mut codes = Vec::new();
    for r in &replies {
        let body = r.json();
        assert_request_id(r, body["req_id"].as_str().unwrap());
        codes.push(body["code"].as_str().unwrap().to_string());
        if r.status == 429 {
            assert!(r.header("retry-after").is_some());
        }
    }
    let unauthorized = codes.iter().filter(|c| *c == "API-101").count();
    let limited = codes.iter().filter(|c| *c == "API-103").count();
    assert!((3..=4).contains(&unauthorized), "{codes:?}");
    assert_eq!(unauthorized + limited, 6, "{codes:?}");
}

#[test]
fn render_without_a_verifier_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(crate::server::binary())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--services",
            "render,barcode",
        ])
        .arg("--data-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--verify-url") && stderr.contains("verify"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cached_token_revoked_at_the_verifier_is_blacklisted_when_its_usage_is_refused() {
    let (_dir, s) = all_services();
    let b = &s.base;
    let (id, token) = server::new_token(b, 5, None).await;
    assert_eq!(render(b, &token, &label("one")).await.status, 200);
    server::await_balance(b, &id, 4, Duration::from_secs(10)).await;

    server::admin(
        b,
        reqwest::Method::POST,
        &format!("/tokens/{id}/revoke"),
        None,
    )
    .await;
    // Still cached: admitted, and its usage report is refused with 403.
    assert_eq!(render(b, &token, &label("two")).await.status, 200);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let r = render(b, &token, &label("three")).await;
        if r.status == 403 {
            let body = r.assert_error(403, "API-102");
            assert!(
                body["message"].as_str().unwrap().contains("blacklisted"),
                "{body}"
            );
            break;
        }
        assert_eq!(r.status, 200);
        assert!(std::time::Instant::now() < deadline, "never blacklisted");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_beyond_a_balance_spent_elsewhere_charges_what_is_left_and_blacklists() {
    let (_dir, s) = all_services();
    let b = &s.base;
    let (id, token) = server::new_token(b, 5, None).await;
    assert_eq!(render(b, &token, &label("one")).await.status, 200);
    server::await_balance(b, &id, 4, Duration::from_secs(10)).await;
    // Spent behind the render node's back: its cache still counts 4.
    let spent = client()
        .post(format!("{b}/v1/verify"))
        .bearer_auth(&token)
        .json(&json!({"count": 3}))
        .send()
        .await
        .unwrap();
    assert_eq!(spent.status().as_u16(), 200);
    let (two, three) = (label("two"), label("three"));
    let (r1, r2) = tokio::join!(render(b, &token, &two), render(b, &token, &three));
    assert_eq!((r1.status, r2.status), (200, 200));
    // One of the two could be charged, the other never: the token is then stopped.
    server::await_balance(b, &id, 0, Duration::from_secs(10)).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while server::metric(b, "labelpress_outbox_depth").await != 0.0 {
        assert!(std::time::Instant::now() < deadline, "outbox not drained");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    render(b, &token, &label("four"))
        .await
        .assert_error(403, "API-102");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_request_log_and_metrics_show_a_token_hash_prefix_never_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let s = server::start_logged(&dir.path().join("data"), &[], &log);
    let b = &s.base;
    let (_, token) = server::new_token(b, 5, None).await;
    let r = render(b, &token, &label("logged")).await;
    assert_eq!(r.status, 200);
    let req_id = r.header("x-request-id").unwrap();
    let unknown = "lp_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ";
    render(b, unknown, &label("x"))
        .await
        .assert_error(403, "API-102");
    let metrics = String::from_utf8(server::get(b, "/metrics").await.bytes).unwrap();
    assert!(
        metrics.contains("labelpress_requests_total{route=\"/api/v1/label\",status=\"200\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("labelpress_render_duration_seconds_count 1"),
        "{metrics}"
    );
    drop(s);

    let text = std::fs::read_to_string(&log).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains(&req_id))
        .unwrap_or_else(|| panic!("no log line with {req_id}:\n{text}"));
    use sha2::Digest;
    let prefix: String = sha2::Sha256::digest(token.as_bytes())[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    for field in [
        "route=/api/v1/label",
        "status=200",
        "sheets=1",
        "bytes=",
        "duration_ms=",
    ] {
        assert!(line.contains(field), "{field} missing: {line}");
    }
    assert!(line.contains(&prefix), "{line}");
    assert!(
        !text.contains(&token) && !text.contains(unknown),
        "a token was logged:\n{text}"
    );
    assert!(!metrics.contains(&token));
}

#[tokio::test(flavor = "multi_thread")]
async fn env_twins_configure_a_node_and_services_pick_its_routes() {
    let dir = tempfile::tempdir().unwrap();
    let addr = server::free_addr();
    let mut child = std::process::Command::new(crate::server::binary())
        .arg("serve")
        .env("LABELPRESS_LISTEN", &addr)
        .env("LABELPRESS_DATA_DIR", dir.path())
        .env("LABELPRESS_SERVICES", "barcode")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://{addr}");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while client()
        .get(format!("{base}/healthz"))
        .send()
        .await
        .is_err()
    {
        assert!(std::time::Instant::now() < deadline, "server did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(server::get(&base, "/barcode/qr/x").await.status, 200);
    render(&base, SYSTEM, &label("x"))
        .await
        .assert_error(404, "API-005");
    server::get(&base, "/v1/doc/runtime-config")
        .await
        .assert_error(404, "API-005");
    let verify = reply(
        client()
            .post(format!("{base}/v1/verify"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    verify.assert_error(404, "API-005");
    assert_eq!(
        server::get(&base, "/readyz").await.json()["verifier"],
        "none"
    );
    let _ = child.kill();
    let _ = child.wait();
}

/// The nice value of each thread of process `pid`, with the thread's name.
fn thread_priorities(pid: u32) -> Vec<(String, i32)> {
    let mut threads = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let path = task.unwrap().path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap();
        let stat = std::fs::read_to_string(path.join("stat")).unwrap();
        // After the parenthesised name: state is field 3, nice field 19.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        threads.push((name.trim().to_string(), fields[16].parse().unwrap()));
    }
    threads
}

#[test]
fn renders_run_below_the_async_side_by_the_configured_nice_increment() {
    // SAFETY: getpriority only reads its arguments; the server inherits this value.
    let base = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) };
    let dir = tempfile::tempdir().unwrap();
    let four = dir.path().join("four.toml");
    std::fs::write(&four, "[limits]\nrender_thread_nice = 4\n").unwrap();
    let threads = dir.path().join("threads.toml");
    std::fs::write(
        &threads,
        "[limits]\nrender_thread_nice = 4\nrender_isolation = \"thread\"\n",
    )
    .unwrap();
    // (flags, nice increment, whether renders run in worker processes)
    for (args, increment, workers) in [
        (vec![], 19, true),
        (vec!["--config", four.to_str().unwrap()], 4, true),
        (vec!["--config", threads.to_str().unwrap()], 4, false),
    ] {
        let data = tempfile::tempdir().unwrap();
        let mut server = server::start(data.path(), &args);
        let own = thread_priorities(server.child.id());
        let nice_of = |threads: &[(String, i32)], prefix: &str| -> Vec<i32> {
            threads
                .iter()
                .filter(|(name, _)| name.starts_with(prefix))
                .map(|(_, nice)| *nice)
                .collect()
        };
        let lowered = (base + increment).min(19);
        let render_threads = nice_of(&own, "render-");
        assert!(!render_threads.is_empty(), "{own:?}");
        let asynchronous = nice_of(&own, "tokio-rt-worker");
        assert!(!asynchronous.is_empty(), "{own:?}");
        assert!(asynchronous.iter().all(|&n| n == base), "{own:?}");
        if workers {
            // The render threads only hand work to their worker processes:
            // they keep the server's priority, and every thread of every
            // worker runs the increment below it.
            assert!(render_threads.iter().all(|&n| n == base), "{own:?}");
            let pids = crate::isolation::worker_pids(&server);
            assert_eq!(
                pids.len(),
                render_threads.len(),
                "one worker per render thread"
            );
            for pid in pids {
                let theirs = thread_priorities(pid);
                assert!(theirs.iter().all(|&(_, n)| n == lowered), "{theirs:?}");
            }
        } else {
            assert!(render_threads.iter().all(|&n| n == lowered), "{own:?}");
        }
        server.stop();
    }
}
