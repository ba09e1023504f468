//! The administration API under `/admin/api` (docs/admin-api.md) over a
//! real socket: the admin token guard, every call, status values, input
//! errors, and secrets that are shown once and stored only hashed.

use super::support::*;
use crate::support::contains_bytes;
use serde_json::json;

const ROUTES: &[(&str, &str)] = &[
    ("GET", "/tokens"),
    ("POST", "/tokens"),
    ("GET", "/tokens/tok_000000000000"),
    ("POST", "/tokens/tok_000000000000/topup"),
    ("POST", "/tokens/tok_000000000000/expiry"),
    ("POST", "/tokens/tok_000000000000/revoke"),
    ("POST", "/accounts/acme/ban"),
    ("POST", "/accounts/acme/unban"),
    ("GET", "/tokens?q=tok"),
    ("GET", "/usage?account=acme"),
    ("GET", "/accounts/banned"),
];

#[tokio::test]
async fn every_admin_call_needs_the_admin_token() {
    let h = start().await;
    let t = h.token("acme", 5).await;
    for &(method, path) in ROUTES {
        let r = h.admin_as(None, method, path, Some(json!({}))).await;
        assert_rejected(&r, 401, "Unauthorized");
        assert_eq!(r.headers["www-authenticate"], "Bearer");
        let r = h
            .admin_as(Some("wrong"), method, path, Some(json!({})))
            .await;
        assert_rejected(&r, 403, "Forbidden");
        // An API token is not an admin token.
        let r = h
            .admin_as(Some(&t.token), method, path, Some(json!({})))
            .await;
        assert_rejected(&r, 403, "Forbidden");
    }
    let tokens = h.service.list_tokens().await.unwrap();
    assert_eq!(tokens.len(), 1, "nothing was created");
    assert_eq!(
        labelpress::verify::rules::status(&tokens[0], now_ms()),
        "active",
        "nothing was banned or revoked"
    );
}

#[tokio::test]
async fn the_dashboard_page_is_served_without_the_admin_token() {
    let h = start().await;
    let r = h
        .client
        .get(format!("{}/admin", h.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    // No origin may frame the page (clickjacking its Ban and Revoke
    // buttons), re-base its links or post its forms elsewhere.
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
    for wanted in [
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "default-src 'none'",
    ] {
        assert!(directives.contains(&wanted), "{wanted} in {csp}");
    }
    assert_eq!(r.headers()["x-frame-options"], "DENY");
    let page = r.text().await.unwrap();
    assert!(page.contains(r#"data-testid="admin-token""#));
    assert!(
        !page.contains(ADMIN),
        "the page never embeds the admin token"
    );
}

#[tokio::test]
async fn creating_a_token_shows_its_secret_once() {
    let h = start().await;
    let expires = now_ms() + 86_400_000;
    let r = h
        .admin(
            "POST",
            "/tokens",
            Some(json!({"account": "acme", "balance": 50, "expires_at": expires})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let secret = r.body["token"].as_str().unwrap().to_string();
    let id = r.body["id"].as_str().unwrap().to_string();
    assert_eq!(
        r.body,
        json!({"id": id, "token": secret, "account": "acme", "balance": 50, "expires_at": expires})
    );
    assert!(secret.starts_with("lp_") && secret.len() == 35, "{secret}");
    assert!(secret[3..].bytes().all(|b| b.is_ascii_alphanumeric()));
    assert!(id.starts_with("tok_") && id.len() == 16, "{id}");

    let list = h.admin("GET", "/tokens", None).await;
    assert_eq!(list.status, 200);
    let entry = &list.body[0];
    let created_at = entry["created_at"].as_i64().unwrap();
    assert!((now_ms() - created_at).abs() < 60_000);
    assert_eq!(
        entry,
        &json!({
            "id": id, "hint": &secret[..8], "account": "acme", "balance": 50,
            "expires_at": expires, "status": "active", "created_at": created_at,
            "last_used_at": null, "uncharged": 0,
        })
    );
    let detail = h.admin("GET", &format!("/tokens/{id}"), None).await;
    assert_eq!(detail.body["usage"], json!([]));
    for body in [list.body.to_string(), detail.body.to_string()] {
        assert!(!body.contains(&secret), "a secret in {body}");
    }
    // Using it sets last_used_at.
    h.verify(&secret, 1).await;
    let detail = h.admin("GET", &format!("/tokens/{id}"), None).await.body;
    assert!(detail["last_used_at"].as_i64().unwrap() >= created_at);
    assert_eq!(detail["usage"][0]["count"], 1);
    assert_eq!(detail["usage"][0]["balance"], 49);
}

#[tokio::test]
async fn status_is_active_expired_exhausted_revoked_or_banned() {
    let h = start().await;
    let active = h.token("a", 1).await;
    let exhausted = h.token("a", 0).await;
    let expired = h
        .create(json!({"account": "a", "balance": 1, "expires_at": now_ms() - 1000}))
        .await;
    let revoked = h.token("a", 1).await;
    h.admin("POST", &format!("/tokens/{}/revoke", revoked.id), None)
        .await;
    let banned = h.token("b", 1).await;
    h.admin("POST", "/accounts/b/ban", None).await;
    let list = h.admin("GET", "/tokens", None).await.body;
    let status = |id: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .map(|t| t["status"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(status(&active.id), "active");
    assert_eq!(status(&exhausted.id), "exhausted");
    assert_eq!(status(&expired.id), "expired");
    assert_eq!(status(&revoked.id), "revoked");
    assert_eq!(status(&banned.id), "banned");
    // Oldest first; tokens made within the same millisecond are in id order.
    let order: Vec<(i64, String)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["created_at"].as_i64().unwrap(),
                t["id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(order.len(), 5);
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    assert!(order[0].0 <= order[4].0);
}

#[tokio::test]
async fn top_up_expiry_and_revoke_answer_the_token() {
    let h = start().await;
    let t = h.token("acme", 5).await;
    let r = h
        .admin(
            "POST",
            &format!("/tokens/{}/topup", t.id),
            Some(json!({"amount": 7})),
        )
        .await;
    assert_eq!((r.status, r.body["balance"].as_u64()), (200, Some(12)));
    assert_eq!(r.body["id"], t.id.as_str());
    let at = now_ms() + 5_000_000;
    let r = h
        .admin(
            "POST",
            &format!("/tokens/{}/expiry", t.id),
            Some(json!({"expires_at": at})),
        )
        .await;
    assert_eq!((r.status, r.body["expires_at"].as_i64()), (200, Some(at)));
    let r = h
        .admin(
            "POST",
            &format!("/tokens/{}/expiry", t.id),
            Some(json!({"expires_at": null})),
        )
        .await;
    assert_eq!(r.body["expires_at"], serde_json::Value::Null);
    let r = h
        .admin("POST", &format!("/tokens/{}/revoke", t.id), None)
        .await;
    assert_eq!(
        (r.status, r.body["status"].as_str()),
        (200, Some("revoked"))
    );
    assert_eq!(r.body["balance"], 12);
    // Accounts with characters that need escaping in a path.
    let r = h
        .admin("POST", "/accounts/ops%2Beu%40example.com/ban", None)
        .await;
    assert_eq!(
        r.body,
        json!({"account": "ops+eu@example.com", "banned": true})
    );
}

#[tokio::test]
async fn bad_admin_input_is_a_json_error_not_a_crash() {
    let h = start().await;
    // The largest balance either ledger holds (PostgreSQL's bigint), less one.
    let max = labelpress::verify::record::MAX_BALANCE;
    let t = h.token("acme", max - 1).await;
    let topup = format!("/tokens/{}/topup", t.id);
    let raw = |path: String, body: &'static str| {
        let request = h
            .client
            .post(format!("{}/admin/api{path}", h.base))
            .bearer_auth(ADMIN)
            .header("content-type", "application/json")
            .body(body);
        async move {
            let r = request.send().await.unwrap();
            (
                r.status().as_u16(),
                r.json::<serde_json::Value>().await.unwrap(),
            )
        }
    };
    let (status, body) = raw(topup.clone(), "{amount").await;
    assert_eq!((status, body["error"].as_str()), (400, Some("Bad Request")));
    let (status, _) = raw("/tokens".into(), "").await;
    assert_eq!(status, 400);
    let cases = [
        ("/tokens", json!({"balance": 1})),
        ("/tokens", json!({"account": "", "balance": 1})),
        ("/tokens", json!({"account": "a", "balance": -1})),
        ("/tokens", json!({"account": "a", "balance": max + 1})),
        (
            "/tokens",
            json!({"account": "a", "balance": 1, "extra": true}),
        ),
        (
            "/tokens",
            json!({"account": "a", "balance": 1, "rate_limit": {"per_second": 0, "burst": 1}}),
        ),
        (&topup, json!({"amount": 0})),
        (&topup, json!({"amount": "x"})),
        (&topup, json!({"amount": 2})), // overflow
        (&topup, json!({})),
    ];
    for (path, body) in cases {
        let r = h.admin("POST", path, Some(body)).await;
        assert_rejected(&r, 422, "Unprocessable Entity");
    }
    assert_eq!(h.balance(&t.id).await, max - 1);
    for (method, path, body) in [
        ("GET", "/tokens/tok_000000000000", None),
        (
            "POST",
            "/tokens/tok_000000000000/topup",
            Some(json!({"amount": 1})),
        ),
        (
            "POST",
            "/tokens/tok_000000000000/expiry",
            Some(json!({"expires_at": null})),
        ),
        ("POST", "/tokens/nonsense/revoke", None),
    ] {
        assert_rejected(&h.admin(method, path, body).await, 404, "Not Found");
    }
    // A path segment that is not UTF-8 once decoded.
    assert_rejected(
        &h.admin("POST", "/accounts/%FF/ban", None).await,
        400,
        "Bad Request",
    );
    assert_eq!(h.service.list_tokens().await.unwrap().len(), 1);
}

#[tokio::test]
async fn secrets_never_reach_the_disk() {
    let h = start().await;
    let mut secrets = Vec::new();
    let mut ids = Vec::new();
    for i in 0..5 {
        let t = h.token(&format!("acct-{i}"), 10).await;
        h.verify_with(Some(&t.token), "", "", Some("key-1")).await;
        secrets.push(t.token);
        ids.push(t.id);
    }
    h.service.flush().await;
    let mut files = Vec::new();
    collect(&h.dir.path().join("verifier"), &mut files);
    let bytes: Vec<u8> = files
        .iter()
        .flat_map(|f| std::fs::read(f).unwrap())
        .collect();
    // The records are there (so these are the right files) ...
    for id in &ids {
        assert!(contains_bytes(&bytes, id.as_bytes()), "{id} not on disk");
    }
    // ... but no secret is, only hashes (the hint, 8 characters, may be).
    for secret in &secrets {
        assert!(
            !contains_bytes(&bytes, secret.as_bytes()),
            "a secret on disk"
        );
        assert!(
            !contains_bytes(&bytes, &secret.as_bytes()[8..]),
            "part of a secret on disk"
        );
    }
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[tokio::test]
async fn a_generated_admin_token_is_written_once_with_mode_0600() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let service = labelpress::verify::VerifyService::open(dir.path(), None).unwrap();
    let token = service.admin_token().to_string();
    drop(service);
    let file = dir.path().join("admin-token");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(token.len() >= 32);
    let again = labelpress::verify::VerifyService::open(dir.path(), None).unwrap();
    assert_eq!(again.admin_token(), token);
    assert!(again.is_admin(&token));
    assert!(!again.is_admin("other"));
    drop(again);
    // An explicit admin token wins and leaves the file alone.
    let explicit =
        labelpress::verify::VerifyService::open(dir.path(), Some("given".into())).unwrap();
    assert_eq!(explicit.admin_token(), "given");
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
}

/// `GET /admin/api/tokens` with search parameters: one page of matches,
/// oldest first, `total` and the `next` offset.
#[tokio::test]
async fn tokens_are_searched_filtered_and_paged() {
    let h = start().await;
    // Lists are oldest first, then by id: a few ms apart, the creation order.
    let mut acme = Vec::new();
    for _ in 0..7 {
        acme.push(h.token("Acme-Labels", 5).await.id);
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let mut beta = Vec::new();
    for _ in 0..5 {
        beta.push(h.token("beta", 5).await.id);
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let ids = |body: &serde_json::Value| -> Vec<String> {
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect()
    };
    let all: Vec<String> = acme.iter().chain(&beta).cloned().collect();
    let page = h.admin("GET", "/tokens?limit=5", None).await.body;
    assert_eq!(
        (page["total"].as_u64(), page["next"].as_u64()),
        (Some(12), Some(5))
    );
    assert_eq!(ids(&page), all[..5]);
    let page = h.admin("GET", "/tokens?limit=5&offset=10", None).await.body;
    assert_eq!(ids(&page), all[10..]);
    assert_eq!(page["next"], json!(null));
    let page = h.admin("GET", "/tokens?offset=99", None).await.body;
    assert_eq!((page["total"].as_u64(), ids(&page).len()), (Some(12), 0));
    // Part of an id, any case; part of an account; the account exactly.
    let part = acme[3][4..].to_lowercase();
    let page = h
        .admin("GET", &format!("/tokens?q={part}"), None)
        .await
        .body;
    assert_eq!(ids(&page), [acme[3].clone()]);
    let page = h.admin("GET", "/tokens?q=ME-LAB", None).await.body;
    assert_eq!(ids(&page), acme);
    let page = h
        .admin("GET", "/tokens?account=acme-labels", None)
        .await
        .body;
    assert_eq!(page["total"], 0, "the account filter is exact");
    // By status.
    h.admin("POST", &format!("/tokens/{}/revoke", beta[1]), None)
        .await;
    h.admin("POST", "/accounts/Acme-Labels/ban", None).await;
    let page = h.admin("GET", "/tokens?status=revoked", None).await.body;
    assert_eq!(ids(&page), [beta[1].clone()]);
    let page = h
        .admin(
            "GET",
            "/tokens?status=banned&account=Acme-Labels&limit=2",
            None,
        )
        .await
        .body;
    assert_eq!(
        (page["total"].as_u64(), ids(&page)),
        (Some(7), acme[..2].to_vec())
    );
    let page = h
        .admin("GET", "/tokens?status=active&account=beta", None)
        .await
        .body;
    assert_eq!(page["total"], 4);
    // Without parameters: the plain array, as before.
    let plain = h.admin("GET", "/tokens", None).await.body;
    assert_eq!(plain.as_array().unwrap().len(), 12);

    for query in [
        "status=gone",
        "limit=0",
        "limit=501",
        "offset=-1",
        "page=2",
        "q=a&q=b",
        "account=%07",
    ] {
        let r = h.admin("GET", &format!("/tokens?{query}"), None).await;
        assert_rejected(&r, 400, "Bad Request");
    }
}

/// `GET /admin/api/usage`: every bucket of the range, the deductions in
/// them, per token and per account; bad queries are 400, an unknown token 404.
#[tokio::test]
async fn usage_over_time_per_token_and_account() {
    let h = start().await;
    let a = h.token("acme", 100).await;
    let b = h.token("acme", 100).await;
    for (token, count) in [(&a, 3), (&a, 4), (&b, 5)] {
        assert_eq!(h.verify(&token.token, count).await.status, 200);
    }
    let usage = h
        .admin("GET", &format!("/usage?token={}", a.id), None)
        .await;
    assert_eq!(usage.status, 200, "{:?}", usage.body);
    let body = usage.body;
    let buckets = body["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 24);
    assert_eq!(
        (body["units"].as_u64(), body["deductions"].as_u64()),
        (Some(7), Some(2))
    );
    assert_eq!(body["bucket"], "hour");
    assert_eq!(body["token"], a.id.as_str());
    // The deductions are in the last bucket (or the one before it, if the
    // hour turned meanwhile), which ends at `to`.
    let used: Vec<_> = buckets.iter().filter(|b| b["units"] != 0).collect();
    assert!(used
        .iter()
        .all(|b| b["start"] == buckets[23]["start"] || b["start"] == buckets[22]["start"]));
    let start = |v: &serde_json::Value| {
        time::OffsetDateTime::parse(
            v.as_str().unwrap(),
            &time::format_description::well_known::Rfc3339,
        )
        .unwrap()
        .unix_timestamp()
    };
    assert_eq!(start(&body["to"]) - start(&buckets[23]["start"]), 3600);
    assert!((start(&body["to"]) - now_ms() / 1000) <= 3600);
    let days = h
        .admin("GET", "/usage?account=acme&bucket=day", None)
        .await
        .body;
    assert_eq!(days["buckets"].as_array().unwrap().len(), 30);
    assert_eq!(
        (days["units"].as_u64(), days["deductions"].as_u64()),
        (Some(12), Some(3))
    );
    assert_eq!(days["account"], "acme");
    // An explicit range, in milliseconds and RFC 3339.
    let now = now_ms();
    let from = now - 2 * 3_600_000;
    let ranged = h
        .admin(
            "GET",
            &format!("/usage?account=acme&from={from}&to={now}"),
            None,
        )
        .await
        .body;
    assert_eq!(ranged["buckets"].as_array().unwrap().len(), 3);
    assert_eq!(ranged["units"], 12);
    let old = h
        .admin("GET", "/usage?account=acme&bucket=day&from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00%2B01:00", None)
        .await
        .body;
    assert_eq!(old["buckets"].as_array().unwrap().len(), 31, "{old}");
    assert_eq!(
        (old["from"].as_str(), old["to"].as_str()),
        (Some("2020-01-01T00:00:00Z"), Some("2020-02-01T00:00:00Z"))
    );
    assert_eq!(old["units"], 0);

    let r = h.admin("GET", "/usage?token=tok_000000000000", None).await;
    assert_rejected(&r, 404, "Not Found");
    for query in [
        "",
        "token=x&account=y",
        "account=",
        "token=x&bucket=week",
        "token=x&from=yesterday",
        "token=x&from=0",
        "token=x&bucket=day&from=0",
        "token=x&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z",
        "token=x&to=1e3",
        "token=x&limit=3",
        "token=x&token=y",
    ] {
        let r = h.admin("GET", &format!("/usage?{query}"), None).await;
        assert_rejected(&r, 400, "Bad Request");
    }
    let r = h.admin("GET", "/usage?token=x&from=0", None).await;
    assert!(
        r.body["message"].as_str().unwrap().contains("at most 1488"),
        "{:?}",
        r.body
    );
}

/// `GET /admin/api/accounts/banned`: the banned accounts by name, with the
/// time of the ban; an unban takes the account off.
#[tokio::test]
async fn banned_accounts_are_listed_until_unbanned() {
    let h = start().await;
    assert_eq!(
        h.admin("GET", "/accounts/banned", None).await.body,
        json!([])
    );
    let before = now_ms();
    h.admin("POST", "/accounts/zeta/ban", None).await;
    h.admin("POST", "/accounts/alpha/ban", None).await;
    let listed = h.admin("GET", "/accounts/banned", None).await.body;
    let names: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["account"].clone())
        .collect();
    assert_eq!(names, [json!("alpha"), json!("zeta")]);
    let at = listed[0]["banned_at"].as_i64().unwrap();
    assert!(at >= before && at <= now_ms(), "{listed}");
    // Banned again: the first time stays.
    h.admin("POST", "/accounts/alpha/ban", None).await;
    assert_eq!(
        h.admin("GET", "/accounts/banned", None).await.body[0]["banned_at"],
        at
    );
    h.admin("POST", "/accounts/alpha/unban", None).await;
    let listed = h.admin("GET", "/accounts/banned", None).await.body;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["account"], "zeta");
}

/// Issue 28: the admin API takes JSON bodies only, as its docs say: a body
/// sent as text/plain (or with no Content-Type) is 415 and changes nothing;
/// a call without a body needs no Content-Type.
#[tokio::test]
async fn a_body_not_declared_as_json_is_415() {
    let h = start().await;
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let mut request = h
            .client
            .post(format!("{}/admin/api/tokens", h.base))
            .bearer_auth(ADMIN)
            .body(r#"{"account": "acme", "balance": 5, "expires_at": null}"#);
        if let Some(ct) = content_type {
            request = request.header("content-type", ct);
        }
        let r = request.send().await.unwrap();
        assert_eq!(r.status(), 415, "{content_type:?}");
        let body: serde_json::Value = r.json().await.unwrap();
        assert_eq!(body["error"], "Unsupported Media Type", "{body}");
    }
    let list: serde_json::Value = h
        .client
        .get(format!("{}/admin/api/tokens", h.base))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 0, "nothing was created");
}
