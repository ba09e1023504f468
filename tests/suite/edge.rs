//! The HTTP edge against real servers on loopback (issue 14, items 5 and 9):
//! idle and slow connections, the connection cap, `/readyz` while draining,
//! duplicate keys and query parameters, failed-authentication limits on the
//! verifier, and idempotent replays after revocation.

use std::time::Duration;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;

use serde_json::{json, Value};

use crate::server::{self, label, render, Server, ADMIN, SYSTEM};

/// A server whose `[limits]` are `limits` (TOML lines).
fn start_with(dir: &tempfile::TempDir, limits: &str) -> Server {
    let config = dir.path().join("limits.toml");
    std::fs::write(&config, format!("[limits]\n{limits}\n")).unwrap();
    server::start(
        &dir.path().join("data"),
        &["--config", config.to_str().unwrap()],
    )
}

/// Reads until the server closes the connection; `None` if it is still
/// open after 30 s. A reset counts as closed. (Blocking: these tests talk to
/// a server process, and the runtime has other workers.)
fn until_closed(stream: &mut TcpStream) -> Option<Vec<u8>> {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut out = Vec::new();
    match stream.read_to_end(&mut out) {
        Ok(_) => Some(out),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => None,
        Err(_) => Some(out),
    }
}

/// Reads one response head (through its blank line), waiting up to 30 s.
fn read_head(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            other => panic!("no complete response head: {other:?}, got {head:?}"),
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// One raw HTTP/1.1 exchange on a new connection (`Connection: close`):
/// the status and the body, or `None` if the connection was refused.
fn exchange(addr: &str, request: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(addr).ok()?;
    stream.write_all(request.as_bytes()).ok()?;
    let answer = until_closed(&mut stream).expect("no answer in 30 s");
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.get(9..12)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Some((status, body.to_string()))
}

fn get_raw(addr: &str, path: &str) -> Option<(u16, String)> {
    exchange(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"),
    )
}

/// A big valid request: a table of 15,000 rows over some 250 A4 sheets.
fn big_table() -> Value {
    let rows: Vec<Value> = (0..15_000)
        .map(|i| json!({"n": format!("row {i}"), "item": format!("Item number {i} of many"), "v": i}))
        .collect();
    let column = |key: &str, width: u32| json!({"key": key, "header": key, "width": {"mode": "fixed", "value": width}});
    json!({"pages": [{"size": "a4", "elements": [
        {"type": "table", "x": 10, "y": 10,
         "columns": [column("n", 40), column("item", 90), column("v", 30)],
         "rows": rows}
    ]}]})
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_connections_over_the_cap_leave_health_checks_answered_and_are_closed_at_the_timeout()
{
    let dir = tempfile::tempdir().unwrap();
    let s = start_with(&dir, "max_connections = 16\nheader_timeout_ms = 8000");
    // 40 connections whose headers never end: 16 take the cap, 8 wait in
    // the turn-away reserve, and the reserve closes the oldest of the rest.
    let mut idle = Vec::new();
    for _ in 0..40 {
        let mut stream = TcpStream::connect(&s.addr).unwrap();
        stream
            .write_all(b"POST /api/v1/label HTTP/1.1\r\nHost: t\r\n")
            .unwrap();
        idle.push(stream);
    }
    for _ in 0..3 {
        assert_eq!(get_raw(&s.addr, "/healthz"), Some((200, "ok".to_string())));
    }
    let (status, ready) = get_raw(&s.addr, "/readyz").unwrap();
    assert_eq!(status, 200, "{ready}");
    // A render over the cap is answered at once: 503 API-503, Retry-After.
    let over = render(&s.base, SYSTEM, &label("over the cap")).await;
    let body = over.assert_error(503, "API-503");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("too many open connections"),
        "{body}"
    );
    assert!(over.header("retry-after").is_some());
    // Every idle connection is closed: the served ones at the header
    // timeout, the turned-away ones sooner. None gets an answer.
    for (i, stream) in idle.iter_mut().enumerate() {
        let answer = until_closed(stream)
            .unwrap_or_else(|| panic!("idle connection {i} still open after 30 s"));
        assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    }
    // With them gone, renders are served again.
    let reply = render(&s.base, SYSTEM, &label("after")).await;
    assert_eq!(reply.status, 200);
    assert!(reply.bytes.starts_with(b"%PDF"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_body_that_stops_coming_is_cut_off_with_400_and_its_connection_closed() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_with(&dir, "body_timeout_ms = 1000");
    let mut stream = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST /api/v1/label HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {SYSTEM}\r\n\
         Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"pages\": ["
    );
    stream.write_all(head.as_bytes()).unwrap();
    // The rest never comes.
    let answer = until_closed(&mut stream).expect("connection still open after 30 s");
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 400"), "{text}");
    let body: Value = serde_json::from_str(text.split_once("\r\n\r\n").unwrap().1).unwrap();
    assert_eq!(body["code"], "API-001", "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("too slowly"),
        "{body}"
    );
    // The server is fine.
    assert_eq!(get_raw(&s.addr, "/healthz"), Some((200, "ok".to_string())));
}

#[tokio::test(flavor = "multi_thread")]
async fn readyz_answers_503_while_the_server_drains_a_render_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    // The body's second half is sent after the signal: a generous body
    // timeout keeps a busy machine from cutting it off meanwhile.
    let mut s = start_with(&dir, "body_timeout_ms = 60000");
    // A big render in flight: its head and half its body are in, so the
    // server cannot finish draining until the test sends the rest.
    let body = serde_json::to_vec(&big_table()).unwrap();
    let (first, rest) = body.split_at(body.len() / 2);
    let mut in_flight = TcpStream::connect(&s.addr).unwrap();
    let head = format!(
        "POST /api/v1/label HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer {SYSTEM}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\
         Expect: 100-continue\r\n\r\n",
        body.len()
    );
    in_flight.write_all(head.as_bytes()).unwrap();
    // The server answers 100 Continue once the route reads the body: from
    // then on the request is in flight and the drain must finish it,
    // however slowly a busy machine got there.
    let interim = read_head(&mut in_flight);
    assert!(interim.starts_with("HTTP/1.1 100"), "{interim}");
    in_flight.write_all(first).unwrap();
    s.signal(libc::SIGTERM);
    // Ready until the signal is handled, then 503 while the server drains.
    // A connection accepted at the instant the drain begins is closed
    // before its request is read (hyper's graceful shutdown of a connection
    // that has not started one), as any client may see at a shutdown: that
    // answer-less close is asked again, for a while.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let ready = loop {
        match get_raw(&s.addr, "/readyz") {
            Some((200, _)) => tokio::time::sleep(Duration::from_millis(10)).await,
            Some((503, body)) => break body,
            None if std::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(10)).await
            }
            other => panic!("/readyz never said 503 before the server went: {other:?}"),
        }
    };
    let ready: Value = serde_json::from_str(&ready).unwrap();
    assert_eq!(ready["ready"], false, "{ready}");
    // Meanwhile health checks pass and new work is turned away.
    assert_eq!(get_raw(&s.addr, "/healthz"), Some((200, "ok".to_string())));
    let refused = render(&s.base, SYSTEM, &label("too late")).await;
    let refusal = refused.assert_error(503, "API-503");
    assert!(
        refusal["message"]
            .as_str()
            .unwrap()
            .contains("shutting down"),
        "{refusal}"
    );
    assert!(refused.header("retry-after").is_some());
    // The request in flight is still served: rendered during the drain.
    in_flight.write_all(rest).unwrap();
    let answer = until_closed(&mut in_flight).expect("no answer in 30 s");
    let (head, pdf) = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| {
            (
                String::from_utf8_lossy(&answer[..i]).into_owned(),
                &answer[i + 4..],
            )
        })
        .expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(pdf.starts_with(b"%PDF"));
    // Then the process exits cleanly.
    let status = tokio::task::spawn_blocking(move || s.stop()).await.unwrap();
    assert!(status.success(), "{status:?}");
}

/// `/v1/verify` with a raw query, body and optional key.
async fn verify(
    base: &str,
    token: &str,
    query: &str,
    body: &str,
    key: Option<&str>,
) -> server::Reply {
    let mut request = server::client()
        .post(format!("{base}/v1/verify{query}"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    server::reply(request.send().await.unwrap()).await
}

/// The verifier's error body: `{error, message}` with this `error`.
#[track_caller]
fn assert_verifier_error(reply: &server::Reply, status: u16, error: &str) -> String {
    let body = reply.json();
    assert_eq!(
        (reply.status, body["error"].as_str()),
        (status, Some(error)),
        "{body}"
    );
    let message = body["message"].as_str().unwrap().to_string();
    assert!(!message.is_empty());
    message
}

#[tokio::test(flavor = "multi_thread")]
async fn duplicate_keys_and_query_parameters_are_400_on_every_route() {
    let dir = tempfile::tempdir().unwrap();
    let s = server::start(dir.path(), &[]);
    let b = &s.base;
    let (id, token) = server::new_token(b, 10, None).await;

    // The render route: API-001 naming the key and its position.
    let reply = server::reply(
        server::client()
            .post(format!("{b}/api/v1/label"))
            .bearer_auth(SYSTEM)
            .header("content-type", "application/json")
            .body(r#"{"pages": [{"size": "a6", "size": "a4", "elements": []}]}"#)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let body = reply.assert_error(400, "API-001");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains(r#"duplicate key "size""#) && message.contains("line 1"),
        "{message}"
    );

    // /v1/verify: a count given twice, a dry_run given twice.
    let message = assert_verifier_error(
        &verify(b, &token, "", r#"{"count":1,"count":2}"#, None).await,
        400,
        "Bad Request",
    );
    assert!(message.contains(r#"duplicate key "count""#), "{message}");
    let message = assert_verifier_error(
        &verify(b, &token, "?dry_run=true&dry_run=false", "", None).await,
        400,
        "Bad Request",
    );
    assert!(message.contains("dry_run"), "{message}");
    // Nothing was deducted; one of each still works.
    let ok = verify(b, &token, "?dry_run=true", r#"{"count":2}"#, None).await;
    assert_eq!((ok.status, ok.json()["balance"].as_u64()), (200, Some(10)));

    // The admin API: a body key twice, a query parameter twice.
    let admin = |method: reqwest::Method, path: &str| {
        server::client()
            .request(method, format!("{b}/admin/api{path}"))
            .bearer_auth(ADMIN)
    };
    let reply = server::reply(
        admin(reqwest::Method::POST, &format!("/tokens/{id}/topup"))
            .header("content-type", "application/json")
            .body(r#"{"amount": 1, "amount": 1000}"#)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let message = assert_verifier_error(&reply, 400, "Bad Request");
    assert!(message.contains(r#"duplicate key "amount""#), "{message}");
    let reply = server::reply(
        admin(reqwest::Method::GET, "/tokens?x=1&x=2")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_verifier_error(&reply, 400, "Bad Request");
    assert_eq!(server::balance(b, &id).await, 10);
}

/// `n` calls of `call` in a row: their statuses.
async fn statuses<F, Fut>(n: usize, call: F) -> Vec<server::Reply>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = server::Reply>,
{
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(call().await);
    }
    out
}

/// Replies of a burst of bad credentials: the first `burst` are `refused`,
/// then at least one 429 `{error: "Too Many Requests"}` with `Retry-After`.
#[track_caller]
fn assert_limited(replies: &[server::Reply], refused: u16) {
    let codes: Vec<u16> = replies.iter().map(|r| r.status).collect();
    let first_429 = codes.iter().position(|&c| c == 429).expect("no 429");
    assert!(
        (3..=4).contains(&first_429) && codes[..first_429].iter().all(|&c| c == refused),
        "{codes:?}"
    );
    for r in &replies[first_429..] {
        if r.status == 429 {
            let message = assert_verifier_error(r, 429, "Too Many Requests");
            assert!(message.contains("failed authentications"), "{message}");
            let retry: u64 = r.header("retry-after").unwrap().parse().unwrap();
            assert!(retry >= 1);
        }
    }
    assert!(
        codes.iter().filter(|&&c| c == 429).count() >= 2,
        "{codes:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_admin_tokens_from_one_address_get_429_and_the_right_one_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_with(&dir, "failed_auth_per_second = 1\nfailed_auth_burst = 3");
    let b = s.base.clone();
    let list = |token: &'static str| {
        let b = b.clone();
        async move {
            let mut request = server::client().get(format!("{b}/admin/api/tokens"));
            if !token.is_empty() {
                request = request.bearer_auth(token);
            }
            server::reply(request.send().await.unwrap()).await
        }
    };
    let replies = statuses(7, || list("not-the-admin-token")).await;
    assert_limited(&replies, 403);
    // A missing token counts too, and is limited as well now.
    assert_eq!(list("").await.status, 429);
    // The right token is never limited.
    for _ in 0..3 {
        let ok = list(ADMIN).await;
        assert_eq!(ok.status, 200, "{}", String::from_utf8_lossy(&ok.bytes));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_tokens_on_v1_verify_get_429_and_a_valid_one_still_works() {
    let dir = tempfile::tempdir().unwrap();
    let s = start_with(&dir, "failed_auth_per_second = 1\nfailed_auth_burst = 3");
    let b = &s.base;
    let (_, token) = server::new_token(b, 10, None).await;
    let unknown = "lp_0000000000000000000000000000000A";
    let replies = statuses(7, || verify(b, unknown, "?dry_run=true", "", None)).await;
    assert_limited(&replies, 403);
    let ok = verify(b, &token, "", "", None).await;
    assert_eq!((ok.status, ok.json()["balance"].as_u64()), (200, Some(9)));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_idempotency_key_is_not_replayed_after_its_token_is_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let s = server::start(dir.path(), &[]);
    let b = &s.base;
    let (id, token) = server::new_token(b, 10, None).await;
    let first = verify(b, &token, "", r#"{"count": 3}"#, Some("order-1")).await;
    assert_eq!(first.status, 200);
    let again = verify(b, &token, "", r#"{"count": 3}"#, Some("order-1")).await;
    assert_eq!((again.status, again.json()), (200, first.json()));
    server::admin(
        b,
        reqwest::Method::POST,
        &format!("/tokens/{id}/revoke"),
        None,
    )
    .await;
    let revoked = verify(b, &token, "", r#"{"count": 3}"#, Some("order-1")).await;
    assert_verifier_error(&revoked, 403, "Invalid Token");
    assert_eq!(server::balance(b, &id).await, 7);
}
