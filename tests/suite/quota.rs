//! Quota under concurrency (issue 14, item 3): however many renders of one
//! token arrive at once, no more PDFs are delivered than its balance pays
//! for, and every PDF delivered is charged, with a cold and a warm cache.

use std::time::Duration;

use crate::server::{self, await_balance, label, new_token, render, Server};

/// `n` renders of `token` at once: (PDFs delivered, other statuses).
async fn burst(server: &Server, token: &str, n: usize) -> (usize, Vec<u16>) {
    let mut renders = tokio::task::JoinSet::new();
    for _ in 0..n {
        let (base, token) = (server.base.clone(), token.to_string());
        renders.spawn(async move { render(&base, &token, &label("quota")).await });
    }
    let mut pdfs = 0;
    let mut others = Vec::new();
    while let Some(reply) = renders.join_next().await {
        let reply = reply.unwrap();
        if reply.status == 200 {
            assert!(reply.bytes.starts_with(b"%PDF-"));
            pdfs += 1;
        } else {
            others.push(reply.status);
        }
    }
    (pdfs, others)
}

/// Delivers exactly `balance` PDFs out of `n` concurrent renders, then the
/// verifier's balance is exactly 0 (everything delivered was charged).
/// With `warm`, one render first puts the token in the render node's cache.
async fn exactly_the_balance(balance: u64, n: usize, warm: bool) {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let (id, token) = new_token(&server.base, balance, Some((10_000, 10_000))).await;
    let mut delivered = 0;
    if warm {
        let first = render(&server.base, &token, &label("warm")).await;
        assert_eq!(first.status, 200);
        delivered += 1;
    }
    let (pdfs, others) = burst(&server, &token, n - delivered).await;
    delivered += pdfs;
    assert_eq!(
        delivered as u64, balance,
        "balance {balance}, {n} renders (warm: {warm}): {delivered} PDFs; refused: {others:?}"
    );
    // Refused ones were refused for the quota, not by an overload.
    assert!(others.iter().all(|s| *s == 403 || *s == 429), "{others:?}");
    await_balance(&server.base, &id, 0, Duration::from_secs(30)).await;
    // Nothing more is delivered once the balance is spent.
    let (more, _) = burst(&server, &token, 5).await;
    assert_eq!(more, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn balance_20_and_40_concurrent_renders_deliver_and_charge_exactly_20_cold() {
    exactly_the_balance(20, 40, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn balance_20_and_40_concurrent_renders_deliver_and_charge_exactly_20_warm() {
    exactly_the_balance(20, 40, true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn balance_10_and_200_concurrent_renders_deliver_and_charge_exactly_10_cold() {
    exactly_the_balance(10, 200, false).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn balance_10_and_200_concurrent_renders_deliver_and_charge_exactly_10_warm() {
    exactly_the_balance(10, 200, true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_topped_up_after_its_403_renders_again_within_the_recheck_time() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(&config, "[limits]\nblacklist_recheck_s = 1\n").unwrap();
    let server = server::start(dir.path(), &["--config", config.to_str().unwrap()]);
    let (id, token) = new_token(&server.base, 1, None).await;
    assert_eq!(
        render(&server.base, &token, &label("one")).await.status,
        200
    );
    await_balance(&server.base, &id, 0, Duration::from_secs(30)).await;
    let refused = render(&server.base, &token, &label("two")).await;
    let body = refused.assert_error(403, "API-102");
    assert!(
        body["message"].as_str().unwrap().contains("Quota Exceeded"),
        "{body}"
    );
    server::admin(
        &server.base,
        reqwest::Method::POST,
        &format!("/tokens/{id}/topup"),
        Some(serde_json::json!({"amount": 5})),
    )
    .await;
    // Blacklisted, but asked about again after the recheck time.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let r = render(&server.base, &token, &label("three")).await;
        if r.status == 200 {
            break;
        }
        r.assert_error(403, "API-102");
        assert!(std::time::Instant::now() < deadline, "still refused");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_token_stays_blacklisted_without_asking_the_verifier_again() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("limits.toml");
    std::fs::write(&config, "[limits]\nblacklist_recheck_s = 1\n").unwrap();
    let server = server::start(dir.path(), &["--config", config.to_str().unwrap()]);
    let (id, token) = new_token(&server.base, 5, None).await;
    server::admin(
        &server.base,
        reqwest::Method::POST,
        &format!("/tokens/{id}/revoke"),
        None,
    )
    .await;
    render(&server.base, &token, &label("x"))
        .await
        .assert_error(403, "API-102");
    let calls = server::metric(&server.base, "labelpress_verifier_duration_seconds_count").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let r = render(&server.base, &token, &label("x")).await;
    let body = r.assert_error(403, "API-102");
    assert!(body["message"].as_str().unwrap().contains("blacklisted"));
    let after = server::metric(&server.base, "labelpress_verifier_duration_seconds_count").await;
    assert_eq!(calls, after, "a revoked token is not rechecked");
}

/// A client that hangs up before its document is done is not charged:
/// nobody gets the document (the render's answer finds its caller gone).
#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_hangs_up_before_its_render_is_done_is_not_charged() {
    let dir = tempfile::tempdir().unwrap();
    let server = server::start(dir.path(), &[]);
    let (id, token) = new_token(&server.base, 5, None).await;
    // A table of some seconds' work.
    let columns: Vec<serde_json::Value> = ["a", "b", "c", "d"]
        .iter()
        .map(|key| serde_json::json!({"key": key, "header": key, "width": {"mode": "fixed", "value": 40}}))
        .collect();
    let rows: Vec<serde_json::Value> = (0..30_000)
        .map(|i| serde_json::json!({"a": format!("item {i}"), "b": "Widget", "c": i, "d": "12.50"}))
        .collect();
    let table = serde_json::json!({"pages": [{"size": "a4", "elements": [
        {"type": "table", "x": 10, "y": 10, "columns": columns, "rows": rows}
    ]}]});
    let hung_up = reqwest::Client::new()
        .post(format!("{}/api/v1/label", server.base))
        .bearer_auth(&token)
        .json(&table)
        .timeout(Duration::from_millis(1500))
        .send()
        .await;
    assert!(hung_up.is_err(), "the client gave up first");
    // Long after the render would have finished: still the whole balance.
    tokio::time::sleep(Duration::from_secs(6)).await;
    await_balance(&server.base, &id, 5, Duration::from_secs(30)).await;
    let next = render(&server.base, &token, &label("after")).await;
    assert_eq!(next.status, 200);
    await_balance(&server.base, &id, 4, Duration::from_secs(30)).await;
}
