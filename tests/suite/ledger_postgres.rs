//! The verifier's ledger on PostgreSQL (`--database-url`): several verifier
//! processes on one database, crashes of the verifier and of the database,
//! and the schema's migrations. Each test starts its own throwaway cluster.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::postgres::Cluster;
use crate::server::{self, Server, ADMIN};

/// `labelpress serve --services verify` on the ledger at `url`.
fn verifier(data_dir: &std::path::Path, url: &str) -> Server {
    server::start(data_dir, &["--services", "verify", "--database-url", url])
}

/// Two verifier processes on a new database `db`, each with its own data
/// folder (dropped after its server).
fn two_verifiers(pg: &Cluster, db: &str) -> [(Server, tempfile::TempDir); 2] {
    let url = pg.database(db);
    [(); 2].map(|()| {
        let dir = tempfile::tempdir().unwrap();
        (verifier(dir.path(), &url), dir)
    })
}

/// `POST /v1/verify`: (status, body).
async fn verify(base: &str, token: &str, count: u64, key: Option<&str>) -> (u16, Value) {
    let mut request = server::client()
        .post(format!("{base}/v1/verify"))
        .timeout(Duration::from_secs(30))
        .bearer_auth(token)
        .json(&json!({ "count": count }));
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            let body = response.json().await.unwrap_or(Value::Null);
            (status, body)
        }
        // The process was killed under the call: no answer.
        Err(_) => (0, Value::Null),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_verifiers_on_one_ledger_grant_exactly_the_balance() {
    let pg = Cluster::start();
    let [(a, _dir_a), (b, _dir_b)] = two_verifiers(&pg, "split");
    let (id, token) = server::new_token(&a.base, 100, None).await;

    // 200 deductions of 1, all at once, alternating between the two nodes.
    let calls: Vec<_> = (0..200)
        .map(|i| {
            let base = if i % 2 == 0 { &a.base } else { &b.base }.clone();
            let token = token.clone();
            tokio::spawn(async move { verify(&base, &token, 1, None).await })
        })
        .collect();
    let mut granted = 0;
    let mut balances = BTreeSet::new();
    for call in calls {
        let (status, body) = call.await.unwrap();
        match status {
            200 => {
                granted += 1;
                balances.insert(body["balance"].as_u64().unwrap());
            }
            403 => assert_eq!(body["error"], "Quota Exceeded", "{body}"),
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(granted, 100);
    // Every grant saw its own balance: 99 down to 0, none twice.
    assert_eq!(balances, (0..100).collect());
    assert_eq!(server::balance(&a.base, &id).await, 0);
    assert_eq!(server::balance(&b.base, &id).await, 0);
    // The usage history is the ledger's, whichever node shows it.
    let detail = server::admin(
        &b.base,
        reqwest::Method::GET,
        &format!("/tokens/{id}"),
        None,
    )
    .await;
    let usage = detail["usage"].as_array().unwrap();
    assert_eq!(usage.len(), 10, "{detail}");
    assert_eq!(usage[0]["balance"], 0);
    assert_eq!(detail["status"], "exhausted");
    assert_eq!(pg.sql("split", "SELECT count(*) FROM lp_usage"), "100");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_replayed_on_the_other_node_is_charged_once_and_bans_reach_both_at_once() {
    let pg = Cluster::start();
    let [(a, _dir_a), (b, _dir_b)] = two_verifiers(&pg, "replay");
    let (id, token) = server::new_token(&a.base, 50, Some((5, 10))).await;

    let (status, first) = verify(&a.base, &token, 5, Some("order-1")).await;
    assert_eq!(
        (status, first["balance"].as_u64()),
        (200, Some(45)),
        "{first}"
    );
    let (status, again) = verify(&b.base, &token, 5, Some("order-1")).await;
    assert_eq!((status, &again), (200, &first));
    assert_eq!(server::balance(&b.base, &id).await, 45);
    // The same key with another count is refused, on either node.
    let (status, body) = verify(&b.base, &token, 6, Some("order-1")).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("Bad Request")));
    // A dry run changes nothing and reports the rate limit.
    let dry = server::client()
        .post(format!("{}/v1/verify?dry_run=true", b.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    let dry: Value = dry.json().await.unwrap();
    assert_eq!(dry["balance"], 45);
    assert_eq!(dry["rate_limit"], json!({"per_second": 5, "burst": 10}));

    // A ban on one node refuses the next call on the other.
    server::admin(&a.base, reqwest::Method::POST, "/accounts/acme/ban", None).await;
    let (status, body) = verify(&b.base, &token, 1, None).await;
    assert_eq!((status, body["error"].as_str()), (403, Some("Banned")));
    let listed = server::admin(&b.base, reqwest::Method::GET, "/tokens", None).await;
    assert_eq!(listed[0]["status"], "banned", "{listed}");
    // A token created for the banned account is banned too.
    let (_, late) = server::new_token(&b.base, 5, None).await;
    let (status, _) = verify(&a.base, &late, 1, None).await;
    assert_eq!(status, 403);
    server::admin(&b.base, reqwest::Method::POST, "/accounts/acme/unban", None).await;
    assert_eq!(verify(&a.base, &token, 1, None).await.0, 200);

    // Top-up, expiry and revocation through the admin API on either node.
    let topped = server::admin(
        &b.base,
        reqwest::Method::POST,
        &format!("/tokens/{id}/topup"),
        Some(json!({"amount": 10})),
    )
    .await;
    assert_eq!(topped["balance"], 54);
    server::admin(
        &a.base,
        reqwest::Method::POST,
        &format!("/tokens/{id}/revoke"),
        None,
    )
    .await;
    // Revocation comes before a replay.
    let (status, body) = verify(&b.base, &token, 5, Some("order-1")).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("Invalid Token"))
    );

    // `labelpress token` works the same against a node on PostgreSQL.
    let out = Command::new(server::binary())
        .args(["token", "--url", &a.base, "--admin-token", ADMIN])
        .args(["create", "--account", "cli", "--balance", "7"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let created: Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = Command::new(server::binary())
        .args([
            "token",
            "--url",
            &b.base,
            "--admin-token",
            ADMIN,
            "list",
            "--json",
        ])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == created["id"] && t["balance"] == 7),
        "{listed}"
    );
}

/// Keyed deductions from 8 clients; returns each key's answers so far.
type Answers = Arc<Mutex<BTreeMap<String, Vec<(u16, Value)>>>>;

fn burst(base: &str, token: &str, answers: &Answers, stop: &Arc<AtomicBool>, per_client: usize) {
    for client in 0..8 {
        let (base, token, answers, stop) = (
            base.to_string(),
            token.to_string(),
            answers.clone(),
            stop.clone(),
        );
        tokio::spawn(async move {
            for i in 0..per_client {
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                let key = format!("c{client}-{i:03}");
                let answer = verify(&base, &token, 1, Some(&key)).await;
                answers.lock().unwrap().entry(key).or_default().push(answer);
            }
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_verifier_killed_mid_burst_loses_no_acknowledged_deduction_and_counts_none_twice() {
    let pg = Cluster::start();
    let url = pg.database("crash");
    let dir = tempfile::tempdir().unwrap();
    let mut node = verifier(dir.path(), &url);
    let (id, token) = server::new_token(&node.base, 10_000, None).await;

    let answers: Answers = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    burst(&node.base, &token, &answers, &stop, 200);
    let deadline = Instant::now() + Duration::from_secs(60);
    while answers.lock().unwrap().len() < 100 {
        assert!(Instant::now() < deadline, "the burst did not get going");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    node.kill();
    stop.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(200)).await;
    node.restart();

    // Every key sent, answered or not, is sent again after the restart.
    let sent: BTreeMap<String, Vec<(u16, Value)>> = answers.lock().unwrap().clone();
    let acknowledged = sent
        .values()
        .filter(|a| a.iter().any(|(s, _)| *s == 200))
        .count();
    assert!(acknowledged >= 90, "{acknowledged} acknowledged");
    for (key, first) in &sent {
        let (status, again) = verify(&node.base, &token, 1, Some(key)).await;
        assert_eq!(status, 200, "{key}: {again}");
        // An acknowledged answer is replayed as it was given.
        if let Some((_, body)) = first.iter().find(|(s, _)| *s == 200) {
            assert_eq!(&again, body, "{key}");
        }
    }
    // Each key charged exactly once.
    let charged = sent.len() as u64;
    assert_eq!(server::balance(&node.base, &id).await, 10_000 - charged);
    assert_eq!(
        pg.sql("crash", "SELECT count(*) FROM lp_usage"),
        charged.to_string()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_stopped_and_started_under_load_gives_503_never_500_and_loses_nothing() {
    let pg = Cluster::start();
    let url = pg.database("outage");
    let dir = tempfile::tempdir().unwrap();
    let node = verifier(dir.path(), &url);
    let (id, token) = server::new_token(&node.base, 10_000, None).await;

    // Four clients, each retrying its current key until it is granted.
    let statuses = Arc::new(Mutex::new(BTreeMap::<u16, usize>::new()));
    let done = Arc::new(AtomicBool::new(false));
    let mut clients = Vec::new();
    for client in 0..4 {
        let (base, token, statuses, done) = (
            node.base.clone(),
            token.clone(),
            statuses.clone(),
            done.clone(),
        );
        clients.push(tokio::spawn(async move {
            let mut granted = 0u64;
            let mut i = 0;
            while !done.load(Ordering::SeqCst) {
                let key = format!("c{client}-{i}");
                loop {
                    let started = Instant::now();
                    let (status, body) = verify(&base, &token, 1, Some(&key)).await;
                    // Never a hang: the ledger's timeout answers first.
                    assert!(started.elapsed() < Duration::from_secs(15), "{key} hung");
                    *statuses.lock().unwrap().entry(status).or_default() += 1;
                    match status {
                        200 => break,
                        503 => {
                            assert_eq!(body["error"], "Service Unavailable", "{body}");
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        other => panic!("{key}: {other} {body}"),
                    }
                }
                granted += 1;
                i += 1;
            }
            granted
        }));
    }
    // And one sending plain deductions (committed in batches): a failed
    // batch is 503 for each of its calls, never 500.
    let plain = {
        let (base, token, done) = (node.base.clone(), token.clone(), done.clone());
        tokio::spawn(async move {
            let (mut granted, mut unavailable) = (0u64, 0u64);
            while !done.load(Ordering::SeqCst) {
                let (status, body) = verify(&base, &token, 1, None).await;
                match status {
                    200 => granted += 1,
                    503 => {
                        unavailable += 1;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    other => panic!("plain: {other} {body}"),
                }
            }
            (granted, unavailable)
        })
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    pg.stop("fast");
    tokio::time::sleep(Duration::from_secs(2)).await;
    pg.resume();
    // Calls succeed again once PostgreSQL is back.
    let before = statuses.lock().unwrap().get(&200).copied().unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    while statuses.lock().unwrap().get(&200).copied().unwrap_or(0) < before + 20 {
        assert!(Instant::now() < deadline, "no recovery after the restart");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done.store(true, Ordering::SeqCst);
    let mut granted = 0;
    for client in clients {
        granted += client.await.unwrap();
    }
    let (plain_granted, plain_unavailable) = plain.await.unwrap();
    let statuses = statuses.lock().unwrap().clone();
    assert!(statuses.get(&503).is_some_and(|n| *n > 0), "{statuses:?}");
    assert_eq!(statuses.keys().copied().collect::<Vec<_>>(), vec![200, 503]);
    assert!(plain_unavailable > 0 && plain_granted > 0);
    // Nothing lost, nothing charged twice: every key granted once, every
    // plain 200 charged. A plain call cut off by the stop may or may not
    // have committed before its 503 (the reason for Idempotency-Key).
    let charged = 10_000 - server::balance(&node.base, &id).await;
    assert!(
        (granted + plain_granted..=granted + plain_granted + plain_unavailable).contains(&charged),
        "{charged} charged, {granted} keyed and {plain_granted} plain granted"
    );
}

/// `labelpress serve` that is expected to stop at start: (exit code, stderr).
fn failed_start(args: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(server::binary())
        .args([
            "serve",
            "--listen",
            &server::free_addr(),
            "--services",
            "verify",
        ])
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    // Nothing is created by a start that fails.
    assert!(!dir.path().join("data").exists());
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_schema_is_migrated_once_and_a_newer_schema_or_a_missing_admin_token_is_refused() {
    let pg = Cluster::start();
    let url = pg.database("schema");
    let dir = tempfile::tempdir().unwrap();
    let mut node = verifier(dir.path(), &url);
    assert!(node.stop().success());
    node.restart();
    assert_eq!(
        pg.sql(
            "schema",
            "SELECT string_agg(version::text, ',' ORDER BY version) FROM lp_schema"
        ),
        "1,2,3,4,5"
    );
    drop(node);

    // Every node on one ledger needs the same admin token: never generated.
    let (code, stderr) = failed_start(&["--database-url", &url]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--admin-token"), "{stderr}");
    // The password of the URL never appears in messages.
    let (code, stderr) = failed_start(&[
        "--admin-token",
        ADMIN,
        "--database-url",
        "postgres://u:s3cret-pw@127.0.0.1:1/x",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!stderr.contains("s3cret-pw"), "{stderr}");
    // A schema from a newer labelpress is not used.
    pg.sql(
        "schema",
        "INSERT INTO lp_schema (version, name) VALUES (99, 'future')",
    );
    let (code, stderr) = failed_start(&["--admin-token", ADMIN, "--database-url", &url]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("version 99"), "{stderr}");
}

/// `GET path` on the admin API: (status, body), whatever the status.
async fn admin_get(base: &str, path: &str) -> (u16, Value) {
    let r = server::client()
        .get(format!("{base}/admin/api{path}"))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// `value` with ids as their creation index (`#0`...) and the times and
/// hints a run draws anew as whether they are set.
fn normalized(value: &Value, ids: &[String]) -> Value {
    match value {
        Value::String(s) => match ids.iter().position(|id| id == s) {
            Some(i) => json!(format!("#{i}")),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(|v| normalized(v, ids)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| match k.as_str() {
                    "hint" | "created_at" | "last_used_at" | "banned_at" => {
                        (k.clone(), json!(!v.is_null()))
                    }
                    _ => (k.clone(), normalized(v, ids)),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The same tokens, deductions, revocation, expiry and ban on the ledger
/// at `base`, then every search, usage and ban listing the dashboard
/// makes, normalized ([`normalized`]). Day buckets use the range
/// `days` (the same for every ledger); hour buckets are compared by
/// their sums, so an hour turning between two runs changes nothing.
async fn dashboard_answers(base: &str, days: &str) -> Vec<Value> {
    let mut ids = Vec::new();
    let mut secrets = Vec::new();
    for (account, balance) in [
        ("acme", 10),
        ("acme", 10),
        ("acme", 10),
        ("acme", 10),
        ("beta", 5),
        ("beta", 5),
        ("Gamma-X", 0),
    ] {
        let body = json!({"account": account, "balance": balance});
        let created = server::admin(base, reqwest::Method::POST, "/tokens", Some(body)).await;
        ids.push(created["id"].as_str().unwrap().to_string());
        secrets.push(created["token"].as_str().unwrap().to_string());
        // Lists are oldest first, then by id: a few ms apart, the creation order.
        tokio::time::sleep(Duration::from_millis(3)).await;
    }
    for (token, count, key) in [
        (0, 2, None),
        (0, 3, None),
        (1, 1, Some("k")),
        (1, 1, Some("k")),
        (4, 5, None),
    ] {
        assert_eq!(verify(base, &secrets[token], count, key).await.0, 200);
    }
    let post = |path: String, body: Option<Value>| async move {
        server::admin(base, reqwest::Method::POST, &path, body).await
    };
    post(format!("/tokens/{}/revoke", ids[2]), None).await;
    post(
        format!("/tokens/{}/expiry", ids[3]),
        Some(json!({"expires_at": 1000})),
    )
    .await;
    post("/accounts/beta/ban".into(), None).await;
    post("/accounts/nobody/ban".into(), None).await;

    let part = ids[1][5..].to_lowercase();
    let mut paths: Vec<String> = [
        "/tokens?limit=3",
        "/tokens?limit=3&offset=3",
        "/tokens?offset=6",
        "/tokens?q=GAMMA",
        "/tokens?q=beta",
        "/tokens?account=acme&status=active",
        "/tokens?status=expired",
        "/tokens?status=exhausted",
        "/tokens?status=banned",
        "/tokens?status=revoked",
        "/tokens?account=Gamma-X",
        "/accounts/banned",
        "/usage?token=tok_000000000000",
        "/usage",
        "/usage?account=acme&bucket=week",
        "/usage?account=acme&from=0",
        "/tokens?limit=0",
        "/tokens?status=gone",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    paths.push(format!("/tokens?q={part}"));
    paths.push(format!("/usage?token={}&bucket=day&{days}", ids[0]));
    paths.push(format!("/usage?token={}&bucket=day&{days}", ids[1]));
    paths.push(format!("/usage?account=acme&bucket=day&{days}"));
    paths.push(format!("/usage?account=beta&bucket=day&{days}"));
    let mut answers = Vec::new();
    for path in &paths {
        let (status, body) = admin_get(base, path).await;
        // Error messages may name ids and times; their status and kind count.
        let body = if status >= 400 {
            body["error"].clone()
        } else {
            body
        };
        // The search by part of an id is labelled by the id's index.
        let mut label = path.replace(&part, "#1-part");
        for (i, id) in ids.iter().enumerate() {
            label = label.replace(id.as_str(), &format!("#{i}"));
        }
        answers.push(json!({"path": label, "status": status, "body": normalized(&body, &ids)}));
    }
    for subject in [
        format!("token={}", ids[0]),
        "account=acme".into(),
        "account=beta".into(),
    ] {
        let (status, body) = admin_get(base, &format!("/usage?{subject}")).await;
        let buckets = body["buckets"].as_array().unwrap();
        answers.push(json!({"path": "hours", "status": status, "buckets": buckets.len(), "units": body["units"], "deductions": body["deductions"]}));
    }
    answers
}

/// The dashboard's searches, usage over time and banned list answer the
/// same on PostgreSQL as on the embedded ledger; PostgreSQL's buckets are
/// whole UTC hours and days (rows at known times, as the sled unit test).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_usage_and_bans_answer_the_same_on_postgres_and_sled() {
    let pg = Cluster::start();
    let url = pg.database("history");
    let pg_dir = tempfile::tempdir().unwrap();
    let on_pg = verifier(pg_dir.path(), &url);
    let sled_dir = tempfile::tempdir().unwrap();
    let on_sled = server::start(sled_dir.path(), &["--services", "verify"]);
    let now = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()) as i64;
    let days = format!("from={}&to={}", now - 3 * 86_400_000, now + 86_400_000);
    let postgres = dashboard_answers(&on_pg.base, &days).await;
    let sled = dashboard_answers(&on_sled.base, &days).await;
    assert_eq!(postgres.len(), sled.len());
    for (p, s) in postgres.iter().zip(&sled) {
        assert_eq!(p, s, "PostgreSQL, then sled");
    }
    // What they agree on is right.
    let answer = |path: &str| postgres.iter().find(|a| a["path"] == path).unwrap()["body"].clone();
    let page = answer("/tokens?limit=3");
    assert_eq!(
        (page["total"].as_u64(), page["next"].as_u64()),
        (Some(7), Some(3)),
        "{page}"
    );
    let ids = |page: &Value| {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&page), ["#0", "#1", "#2"]);
    assert_eq!(ids(&answer("/tokens?offset=6")), ["#6"]);
    assert_eq!(ids(&answer("/tokens?q=GAMMA")), ["#6"]);
    assert_eq!(ids(&answer("/tokens?q=beta")), ["#4", "#5"]);
    assert_eq!(
        ids(&answer("/tokens?account=acme&status=active")),
        ["#0", "#1"]
    );
    assert_eq!(ids(&answer("/tokens?status=expired")), ["#3"]);
    assert_eq!(ids(&answer("/tokens?status=exhausted")), ["#6"]);
    assert_eq!(ids(&answer("/tokens?status=banned")), ["#4", "#5"]);
    assert_eq!(ids(&answer("/tokens?status=revoked")), ["#2"]);
    assert_eq!(
        answer("/accounts/banned"),
        json!([{"account": "beta", "banned_at": true}, {"account": "nobody", "banned_at": true}])
    );
    let statuses: Vec<u64> = postgres
        .iter()
        .filter_map(|a| a["status"].as_u64())
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 400).count(),
        5,
        "{postgres:#?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 404).count(),
        1,
        "{postgres:#?}"
    );
    let units = |a: &Value| a["body"]["units"].as_u64();
    let day_usage: Vec<_> = postgres
        .iter()
        .filter(|a| a["path"].as_str().unwrap().contains("bucket=day"))
        .map(units)
        .collect();
    assert_eq!(
        day_usage,
        [Some(5), Some(1), Some(6), Some(5)],
        "one answer per key, once"
    );
    let hours = &postgres[postgres.len() - 3..];
    assert_eq!(
        hours[0],
        json!({"path": "hours", "status": 200, "buckets": 24, "units": 5, "deductions": 2})
    );
    assert_eq!(
        hours[1],
        json!({"path": "hours", "status": 200, "buckets": 24, "units": 6, "deductions": 3})
    );

    // Rows at known times: whole UTC hours and days.
    let id = &admin_get(&on_pg.base, "/tokens?account=Gamma-X").await.1["items"][0]["id"];
    let id = id.as_str().unwrap();
    pg.sql(
        "history",
        &format!(
            "INSERT INTO lp_usage (token_hash, at, count, balance)
             SELECT hash, v.at, v.c, 0 FROM lp_tokens,
               (VALUES (1577836800000, 2), (1577840399999, 3), (1577840400000, 1), (1577923200000, 4)) v(at, c)
             WHERE id = '{id}'"
        ),
    );
    let range = "from=2020-01-01T00:00:00Z&to=2020-01-03T00:00:00Z";
    let (_, days) = admin_get(
        &on_pg.base,
        &format!("/usage?token={id}&bucket=day&{range}"),
    )
    .await;
    let units: Vec<_> = days["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["start"].clone(),
                b["units"].clone(),
                b["deductions"].clone(),
            )
        })
        .collect();
    assert_eq!(
        units,
        [
            (json!("2020-01-01T00:00:00Z"), json!(6), json!(3)),
            (json!("2020-01-02T00:00:00Z"), json!(4), json!(1)),
        ]
    );
    let (_, hours) = admin_get(
        &on_pg.base,
        &format!("/usage?token={id}&from=2020-01-01T00:00:00Z&to=2020-01-01T03:00:00Z"),
    )
    .await;
    let units: Vec<_> = hours["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["units"].as_u64().unwrap())
        .collect();
    assert_eq!(units, [5, 1, 0]);
}

/// `POST /v1/verify?uncharged=true` with an optional key: (status, body).
async fn uncharged(base: &str, token: &str, count: u64, key: Option<&str>) -> (u16, Value) {
    let mut request = server::client()
        .post(format!("{base}/v1/verify?uncharged=true"))
        .timeout(Duration::from_secs(30))
        .bearer_auth(token)
        .json(&json!({ "count": count }));
    if let Some(key) = key {
        request = request.header("Idempotency-Key", key);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Uncharged renders on the ledger at `bases` (one or two verifier nodes on
/// it): recorded on a revoked and on a banned token, never deducted, once
/// per key even when one key races on every node; unknown tokens refused;
/// the admin API and `/metrics` show the totals.
async fn uncharged_renders_are_recorded_once(bases: &[&str]) {
    let a = bases[0];
    let (revoked, revoked_token) = server::new_token(a, 7, None).await;
    server::admin(
        a,
        reqwest::Method::POST,
        &format!("/tokens/{revoked}/revoke"),
        None,
    )
    .await;
    let (banned, banned_token) = server::new_token(a, 3, None).await;
    let (status, first) = uncharged(a, &revoked_token, 4, Some("u-1")).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(
        (first["balance"].as_u64(), first["uncharged"].as_u64()),
        (Some(7), Some(4))
    );
    // One key from many calls at once, on every node: recorded once.
    let racing: Vec<_> = (0..12)
        .map(|i| {
            let (base, token) = (bases[i % bases.len()].to_string(), revoked_token.clone());
            tokio::spawn(async move { uncharged(&base, &token, 5, Some("u-2")).await })
        })
        .collect();
    let mut answers = BTreeSet::new();
    for call in racing {
        let (status, body) = call.await.unwrap();
        assert_eq!(status, 200, "{body}");
        answers.insert(body.to_string());
    }
    assert_eq!(answers.len(), 1, "one answer for one key: {answers:?}");
    let (status, again) = uncharged(bases[bases.len() - 1], &revoked_token, 4, Some("u-1")).await;
    assert_eq!((status, &again), (200, &first));
    let (status, _) = uncharged(a, &revoked_token, 3, Some("u-1")).await;
    assert_eq!(status, 400);
    server::admin(a, reqwest::Method::POST, "/accounts/acme/ban", None).await;
    let (status, body) = uncharged(a, &banned_token, 2, None).await;
    assert_eq!(
        (status, body["uncharged"].as_u64()),
        (200, Some(2)),
        "{body}"
    );
    // A key used for uncharged renders is not a deduction's.
    server::admin(a, reqwest::Method::POST, "/accounts/acme/unban", None).await;
    let (status, _) = uncharged(a, &banned_token, 1, Some("k")).await;
    assert_eq!(status, 200);
    let (status, body) = verify(a, &banned_token, 1, Some("k")).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("Bad Request")));
    let (status, body) = uncharged(a, "lp_0123456789ABCDEFGHIJKLMNOPQRSTUV", 1, Some("x")).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (403, Some("Invalid Token"))
    );
    for base in bases {
        for (id, balance, total) in [(&revoked, 7, 9), (&banned, 3, 3)] {
            let token =
                server::admin(base, reqwest::Method::GET, &format!("/tokens/{id}"), None).await;
            assert_eq!(
                (token["balance"].as_u64(), token["uncharged"].as_u64()),
                (Some(balance), Some(total)),
                "{token}"
            );
        }
        let metrics = String::from_utf8(server::get(base, "/metrics").await.bytes).unwrap();
        let series: BTreeSet<&str> = metrics
            .lines()
            .filter(|l| l.starts_with("labelpress_ledger_uncharged_renders"))
            .collect();
        let expected: BTreeSet<String> = [
            format!("labelpress_ledger_uncharged_renders{{token_id=\"{revoked}\"}} 9"),
            format!("labelpress_ledger_uncharged_renders{{token_id=\"{banned}\"}} 3"),
            "labelpress_ledger_uncharged_renders_all 12".to_string(),
        ]
        .into();
        assert_eq!(
            series,
            expected.iter().map(String::as_str).collect(),
            "{metrics}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uncharged_renders_are_recorded_once_on_postgres_and_on_sled() {
    let pg = Cluster::start();
    let [(a, _dir_a), (b, _dir_b)] = two_verifiers(&pg, "uncharged");
    uncharged_renders_are_recorded_once(&[&a.base, &b.base]).await;
    assert_eq!(
        pg.sql("uncharged", "SELECT sum(uncharged) FROM lp_tokens"),
        "12"
    );
    let sled_dir = tempfile::tempdir().unwrap();
    let on_sled = server::start(sled_dir.path(), &["--services", "verify"]);
    uncharged_renders_are_recorded_once(&[&on_sled.base]).await;
}

/// Issue 28: a token id with a NUL, which PostgreSQL cannot even compare
/// with a text column, was a 500 with nothing logged; any id this verifier
/// could not have issued is 404 on both ledgers, for every call that
/// names a token.
#[tokio::test(flavor = "multi_thread")]
async fn an_id_no_token_can_have_is_404_on_postgres_and_sled() {
    let pg = Cluster::start();
    let url = pg.database("ids");
    let pg_dir = tempfile::tempdir().unwrap();
    let on_pg = verifier(pg_dir.path(), &url);
    let sled_dir = tempfile::tempdir().unwrap();
    let on_sled = server::start(sled_dir.path(), &["--services", "verify"]);
    for base in [&on_pg.base, &on_sled.base] {
        for id in [
            "tok_%00aaaaaaaaaaa",
            "tok_aaaa%00",
            "%00",
            "tok_%C3%A9aaaaaaaaaaa",
        ] {
            let (status, body) = admin_get(base, &format!("/tokens/{id}")).await;
            assert_eq!(status, 404, "{base} {id}: {body}");
            let (status, body) = admin_get(base, &format!("/usage?token={id}")).await;
            assert_eq!(status, 404, "{base} usage {id}: {body}");
            let r = reqwest::Client::new()
                .post(format!("{base}/admin/api/tokens/{id}/revoke"))
                .bearer_auth(server::ADMIN)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 404, "{base} revoke {id}");
        }
    }
}
