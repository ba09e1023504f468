//! `POST /v1/verify` over a real socket: every case of the spec's part B
//! and docs/admin-api.md, concurrency, and the in-process verifier. Each
//! behaviour runs on both ledgers ([`on_both_ledgers`]).

use super::support::*;
use labelpress::verify::{Rejection, Verdict, Verifier, VerifyCall};
use serde_json::json;

/// Each behaviour (`async fn name(h: Harness)`) as two tests with the
/// given test attribute: `sled::name` on the embedded ledger and
/// `postgres::name` on a fresh database of the binary's shared PostgreSQL
/// cluster. A behaviour left out of the list is dead code, a warning.
macro_rules! on_both_ledgers {
    ($(#[$test:meta] $behaviour:ident),+ $(,)?) => {
        mod sled {
            $(
                #[$test]
                async fn $behaviour() {
                    super::$behaviour(super::start_on(super::Store::Sled).await).await;
                }
            )+
        }
        mod postgres {
            $(
                #[$test]
                async fn $behaviour() {
                    super::$behaviour(super::start_on(super::Store::Postgres).await).await;
                }
            )+
        }
    };
}

on_both_ledgers! {
    #[tokio::test]
    missing_or_non_bearer_authorization_is_401_missing_token,
    #[tokio::test]
    malformed_unknown_and_revoked_tokens_are_403_invalid_token,
    #[tokio::test]
    a_bad_idempotency_key_is_400_before_the_token_is_judged,
    #[tokio::test]
    a_token_past_its_expiry_is_403_token_expired,
    #[tokio::test]
    count_above_the_balance_is_quota_exceeded_and_deducts_nothing,
    #[tokio::test]
    a_banned_account_is_403_banned_for_all_its_tokens_until_unbanned,
    #[tokio::test]
    dry_run_checks_everything_and_deducts_nothing,
    #[tokio::test]
    count_deducts_n_and_an_empty_body_deducts_one,
    #[tokio::test]
    counts_that_are_not_integers_of_at_least_one_are_400,
    #[tokio::test]
    remaining_is_an_iso_duration_or_unlimited,
    #[tokio::test]
    a_tokens_rate_limit_is_echoed,
    #[tokio::test]
    an_idempotency_key_returns_the_first_answer_and_deducts_once,
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    concurrent_verifies_never_spend_more_than_the_balance,
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    concurrent_calls_with_one_idempotency_key_deduct_once,
    #[tokio::test]
    the_in_process_verifier_takes_the_same_path,
    #[tokio::test]
    uncharged_true_records_renders_on_any_existing_token_once_per_key,
    #[tokio::test]
    a_key_answered_before_a_ban_is_judged_before_the_ban,
    #[tokio::test]
    a_lease_and_its_return_over_http_and_their_hostile_forms,
}

/// `POST /v1/leases` and `/v1/leases/return` (docs/leases.md) over HTTP,
/// and what a client may try with them: no key, query flags of
/// `/v1/verify`, a return of another token's lease, of more than was
/// leased, of a plain deduction's key, twice.
async fn a_lease_and_its_return_over_http_and_their_hostile_forms(h: Harness) {
    let t = h.token("acme", 100).await;
    let other = h.token("acme", 100).await;
    let call = |token: &str, path: &str, count: u64, key: Option<&str>| {
        let body = json!({ "count": count }).to_string();
        let (token, path, key) = (token.to_string(), path.to_string(), key.map(str::to_string));
        let h = &h;
        async move { h.post(&path, Some(&token), &body, key.as_deref()).await }
    };
    const LEASE: &str = "/v1/leases";
    const RETURN: &str = "/v1/leases/return";
    let leased = call(&t.token, LEASE, 40, Some("k-1")).await;
    assert_eq!(leased.status, 200, "{:?}", leased.body);
    assert_eq!(
        (
            leased.body["leased"].as_u64(),
            leased.body["balance"].as_u64(),
            leased.body["account"].as_str()
        ),
        (Some(25), Some(75), Some("acme"))
    );
    // No key: 400 on either route.
    assert_rejected(&call(&t.token, LEASE, 1, None).await, 400, "Bad Request");
    assert_rejected(&call(&t.token, RETURN, 1, None).await, 400, "Bad Request");
    // `/v1/verify`'s flags mean nothing here: a dry run is still a lease.
    let flagged = call(&t.token, "/v1/leases?dry_run=true", 4, Some("k-flag")).await;
    assert_eq!(
        flagged.body["leased"].as_u64(),
        Some(4),
        "{:?}",
        flagged.body
    );
    // Another token's lease key, more than was leased, a plain key: 409.
    for (token, count, key) in [
        (&other.token, 1, "k-1"),
        (&t.token, 26, "k-1"),
        (&t.token, 1, "k-plain"),
    ] {
        if key == "k-plain" {
            assert_eq!(
                h.verify_with(Some(token), "", "{}", Some(key)).await.status,
                200
            );
        }
        let refused = call(token, RETURN, count, Some(key)).await;
        assert_eq!(refused.status, 409, "{count} {key}: {:?}", refused.body);
        assert_eq!(refused.body["error"], "Conflict");
    }
    let back = call(&t.token, RETURN, 20, Some("k-1")).await;
    assert_eq!(back.status, 200, "{:?}", back.body);
    assert_eq!(
        (
            back.body["returned"].as_u64(),
            back.body["balance"].as_u64()
        ),
        (Some(20), Some(90))
    );
    let again = call(&t.token, RETURN, 20, Some("k-1")).await;
    assert_eq!((again.status, &again.body), (200, &back.body));
    let shown = h.admin("GET", &format!("/tokens/{}", t.id), None).await;
    assert_eq!(shown.body["balance"].as_u64(), Some(90));
    // An unknown token gets no lease (Invalid Token, as any verification).
    assert_rejected(
        &call("lp_0123456789abcdefghijABCDEFGHIJ01", LEASE, 1, Some("k-9")).await,
        403,
        "Invalid Token",
    );
}

async fn missing_or_non_bearer_authorization_is_401_missing_token(h: Harness) {
    let r = h.verify_with(None, "", "", None).await;
    assert_rejected(&r, 401, "Missing Token");
    assert_eq!(r.headers["www-authenticate"], "Bearer");
    let r = h
        .client
        .post(format!("{}/v1/verify", h.base))
        .header("authorization", "Basic dXNlcjpwYXNz")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

async fn malformed_unknown_and_revoked_tokens_are_403_invalid_token(h: Harness) {
    for bad in [
        "nonsense",
        "lp_short",
        "lp_0123456789ABCDEFGHIJKLMNOPQRS-UV",
    ] {
        assert_rejected(&h.verify(bad, 1).await, 403, "Invalid Token");
    }
    // Well formed but never issued.
    assert_rejected(
        &h.verify("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV", 1).await,
        403,
        "Invalid Token",
    );
    let t = h.token("acme", 5).await;
    assert_eq!(h.verify(&t.token, 1).await.status, 200);
    let r = h
        .admin("POST", &format!("/tokens/{}/revoke", t.id), None)
        .await;
    assert_eq!(r.body["status"], "revoked");
    assert_rejected(&h.verify(&t.token, 1).await, 403, "Invalid Token");
    // Even a top-up does not bring a revoked token back.
    h.admin(
        "POST",
        &format!("/tokens/{}/topup", t.id),
        Some(json!({"amount": 5})),
    )
    .await;
    assert_rejected(&h.verify(&t.token, 1).await, 403, "Invalid Token");
}

/// The order of checks the docs give: a bad `Idempotency-Key` is 400
/// before the token is judged, so a malformed token with an empty key is
/// told about the key first.
async fn a_bad_idempotency_key_is_400_before_the_token_is_judged(h: Harness) {
    let body = json!({"count": 1}).to_string();
    for token in ["nonsense", "lp_0123456789ABCDEFGHIJKLMNOPQRSTUV"] {
        for key in ["", "a b", &"k".repeat(256)] {
            let r = h.verify_with(Some(token), "", &body, Some(key)).await;
            assert_rejected(&r, 400, "Bad Request");
        }
    }
}

async fn a_token_past_its_expiry_is_403_token_expired(h: Harness) {
    let t = h
        .create(json!({"account": "acme", "balance": 5, "expires_at": now_ms() - 1}))
        .await;
    assert_rejected(&h.verify(&t.token, 1).await, 403, "Token Expired");
    assert_eq!(h.balance(&t.id).await, 5);
    // Moving the expiry into the future makes it valid again.
    let later = now_ms() + 3_600_000;
    let r = h
        .admin(
            "POST",
            &format!("/tokens/{}/expiry", t.id),
            Some(json!({"expires_at": later})),
        )
        .await;
    assert_eq!(r.body["expires_at"], later);
    let r = h.verify(&t.token, 1).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["expires_at"], later);
}

/// The order of checks: a key answered before a ban is replayed after it,
/// and a bad body under that key is 400, not 403 Banned (step 4 comes
/// before step 5). PostgreSQL answered Banned until the contract test
/// ran it against sled.
async fn a_key_answered_before_a_ban_is_judged_before_the_ban(h: Harness) {
    let t = h.token("acme", 5).await;
    let call = |body: &'static str, key: &'static str| {
        let (h, token) = (&h, t.token.clone());
        async move { h.verify_with(Some(&token), "", body, Some(key)).await }
    };
    let first = call(r#"{"count": 2}"#, "r").await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    h.admin("POST", "/accounts/acme/ban", None).await;
    let again = call(r#"{"count": 2}"#, "r").await;
    assert_eq!((again.status, &again.body), (200, &first.body));
    for body in [r#"{"count": 0}"#, "[1]", r#"{"count": 3}"#] {
        assert_rejected(&call(body, "r").await, 400, "Bad Request");
    }
    assert_rejected(&call(r#"{"count": 1}"#, "other").await, 403, "Banned");
    assert_eq!(h.balance(&t.id).await, 3);
}

async fn count_above_the_balance_is_quota_exceeded_and_deducts_nothing(h: Harness) {
    let t = h.token("acme", 3).await;
    assert_rejected(&h.verify(&t.token, 4).await, 403, "Quota Exceeded");
    assert_eq!(h.balance(&t.id).await, 3);
    assert_eq!(h.verify(&t.token, 3).await.body["balance"], 0);
    assert_rejected(&h.verify(&t.token, 1).await, 403, "Quota Exceeded");
    assert_eq!(h.balance(&t.id).await, 0);
}

async fn a_banned_account_is_403_banned_for_all_its_tokens_until_unbanned(h: Harness) {
    let a = h.token("acme", 5).await;
    let b = h.token("acme", 5).await;
    let other = h.token("globex", 5).await;
    let r = h.admin("POST", "/accounts/acme/ban", None).await;
    assert_eq!(r.body, json!({"account": "acme", "banned": true}));
    assert_rejected(&h.verify(&a.token, 1).await, 403, "Banned");
    assert_rejected(&h.verify(&b.token, 1).await, 403, "Banned");
    assert_rejected(
        &h.verify_with(Some(&a.token), "?dry_run=true", "", None)
            .await,
        403,
        "Banned",
    );
    assert_eq!(h.verify(&other.token, 1).await.status, 200);
    assert_eq!(h.balance(&a.id).await, 5);
    let r = h.admin("POST", "/accounts/acme/unban", None).await;
    assert_eq!(r.body, json!({"account": "acme", "banned": false}));
    let r = h.verify(&a.token, 1).await;
    assert_eq!((r.status, r.body["balance"].as_u64()), (200, Some(4)));
}

async fn dry_run_checks_everything_and_deducts_nothing(h: Harness) {
    let t = h.token("acme", 5).await;
    for _ in 0..3 {
        let r = h
            .verify_with(Some(&t.token), "?dry_run=true", r#"{"count": 5}"#, None)
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["balance"], 5);
    }
    assert_rejected(
        &h.verify_with(Some(&t.token), "?dry_run=true", r#"{"count": 6}"#, None)
            .await,
        403,
        "Quota Exceeded",
    );
    assert_rejected(
        &h.verify_with(Some(&t.token), "?dry_run=maybe", "", None)
            .await,
        400,
        "Bad Request",
    );
    let r = h
        .verify_with(Some(&t.token), "?dry_run=false", "", None)
        .await;
    assert_eq!(r.body["balance"], 4);
    assert_eq!(h.balance(&t.id).await, 4);
}

async fn count_deducts_n_and_an_empty_body_deducts_one(h: Harness) {
    let t = h.token("acme", 10).await;
    let r = h.verify(&t.token, 3).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "ok");
    assert_eq!(r.body["balance"], 7);
    assert_eq!(r.headers["cache-control"], "no-store");
    let r = h.verify_with(Some(&t.token), "", "", None).await;
    assert_eq!(r.body["balance"], 6);
    let r = h.verify_with(Some(&t.token), "", "{}", None).await;
    assert_eq!(r.body["balance"], 5);
    assert_eq!(h.balance(&t.id).await, 5);
    // The deductions show up as recent usage, newest first.
    let detail = h
        .admin("GET", &format!("/tokens/{}", t.id), None)
        .await
        .body;
    let usage: Vec<(u64, u64)> = detail["usage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["count"].as_u64().unwrap(), u["balance"].as_u64().unwrap()))
        .collect();
    assert_eq!(usage, vec![(1, 5), (1, 6), (3, 7)]);
}

async fn counts_that_are_not_integers_of_at_least_one_are_400(h: Harness) {
    let t = h.token("acme", 10).await;
    for body in [
        r#"{"count": 0}"#,
        r#"{"count": -1}"#,
        r#"{"count": "x"}"#,
        r#"{"count": 1.5}"#,
        r#"{"count": null}"#,
        "count=1",
        "[1]",
        "{",
    ] {
        let r = h.verify_with(Some(&t.token), "", body, None).await;
        assert_rejected(&r, 400, "Bad Request");
    }
    assert_eq!(h.balance(&t.id).await, 10);
    // The token is judged before the body.
    assert_rejected(
        &h.verify_with(Some("lp_nope"), "", r#"{"count": 0}"#, None)
            .await,
        403,
        "Invalid Token",
    );
}

async fn remaining_is_an_iso_duration_or_unlimited(h: Harness) {
    // One ms short of 30 days, so it reads 29 days 23:59 however fast the call is.
    let thirty_days = now_ms() + 30 * 86_400_000 - 1;
    let t = h
        .create(json!({"account": "acme", "balance": 2, "expires_at": thirty_days}))
        .await;
    let r = h.verify(&t.token, 1).await;
    assert_eq!(r.body["expires_at"], thirty_days);
    assert_eq!(r.body["remaining"], "P29DT23H59M", "{:?}", r.body);
    let t = h.token("acme", 2).await;
    let r = h.verify(&t.token, 1).await;
    assert_eq!(r.body["expires_at"], serde_json::Value::Null);
    assert_eq!(r.body["remaining"], "unlimited");
    assert!(r.body.get("rate_limit").is_none(), "{:?}", r.body);
}

async fn a_tokens_rate_limit_is_echoed(h: Harness) {
    let t = h
        .create(
            json!({"account": "acme", "balance": 2, "rate_limit": {"per_second": 5, "burst": 10}}),
        )
        .await;
    let r = h.verify(&t.token, 1).await;
    assert_eq!(r.body["rate_limit"], json!({"per_second": 5, "burst": 10}));
    let r = h
        .verify_with(Some(&t.token), "?dry_run=true", "", None)
        .await;
    assert_eq!(r.body["rate_limit"], json!({"per_second": 5, "burst": 10}));
}

async fn an_idempotency_key_returns_the_first_answer_and_deducts_once(h: Harness) {
    let t = h.token("acme", 10).await;
    let first = h
        .verify_with(Some(&t.token), "", r#"{"count": 3}"#, Some("report-1"))
        .await;
    assert_eq!(first.body["balance"], 7);
    h.verify(&t.token, 1).await; // balance 6
    let again = h
        .verify_with(Some(&t.token), "", r#"{"count": 3}"#, Some("report-1"))
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body, first.body);
    assert_eq!(h.balance(&t.id).await, 6);
    // Another key is another deduction; a reused key with another count is refused.
    let other = h
        .verify_with(Some(&t.token), "", r#"{"count": 3}"#, Some("report-2"))
        .await;
    assert_eq!(other.body["balance"], 3);
    assert_rejected(
        &h.verify_with(Some(&t.token), "", r#"{"count": 2}"#, Some("report-1"))
            .await,
        400,
        "Bad Request",
    );
    assert_eq!(h.balance(&t.id).await, 3);
    // Keys are scoped by token: another token's "report-1" is its own.
    let u = h.token("acme", 10).await;
    let r = h
        .verify_with(Some(&u.token), "", r#"{"count": 3}"#, Some("report-1"))
        .await;
    assert_eq!(r.body["balance"], 7);
    // A rejected call is not remembered: after a top-up the same key succeeds.
    let w = h.token("acme", 1).await;
    assert_rejected(
        &h.verify_with(Some(&w.token), "", r#"{"count": 2}"#, Some("k"))
            .await,
        403,
        "Quota Exceeded",
    );
    h.admin(
        "POST",
        &format!("/tokens/{}/topup", w.id),
        Some(json!({"amount": 1})),
    )
    .await;
    let r = h
        .verify_with(Some(&w.token), "", r#"{"count": 2}"#, Some("k"))
        .await;
    assert_eq!((r.status, r.body["balance"].as_u64()), (200, Some(0)));
}

async fn concurrent_verifies_never_spend_more_than_the_balance(h: Harness) {
    let t = h.token("acme", 20).await;
    let calls = (0..100).map(|_| {
        let (client, base, token) = (h.client.clone(), h.base.clone(), t.token.clone());
        tokio::spawn(async move {
            let r = client
                .post(format!("{base}/v1/verify"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            let body: serde_json::Value = r.json().await.unwrap();
            (status, body)
        })
    });
    let mut granted = Vec::new();
    let mut refused = 0;
    for call in calls.collect::<Vec<_>>() {
        let (status, body) = call.await.unwrap();
        match status {
            200 => granted.push(body["balance"].as_u64().unwrap()),
            403 => {
                assert_eq!(body["error"], "Quota Exceeded");
                refused += 1
            }
            other => panic!("{other}: {body}"),
        }
    }
    granted.sort();
    assert_eq!(granted, (0..20).collect::<Vec<u64>>(), "each balance once");
    assert_eq!(refused, 80);
    assert_eq!(h.balance(&t.id).await, 0);
}

async fn concurrent_calls_with_one_idempotency_key_deduct_once(h: Harness) {
    let t = h.token("acme", 100).await;
    let calls: Vec<_> = (0..20)
        .map(|_| {
            let (client, base, token) = (h.client.clone(), h.base.clone(), t.token.clone());
            tokio::spawn(async move {
                let r = client
                    .post(format!("{base}/v1/verify"))
                    .bearer_auth(token)
                    .header("idempotency-key", "batch-7")
                    .body(r#"{"count": 10}"#)
                    .send()
                    .await
                    .unwrap();
                r.json::<serde_json::Value>().await.unwrap()
            })
        })
        .collect();
    for call in calls {
        assert_eq!(call.await.unwrap()["balance"], 90);
    }
    assert_eq!(h.balance(&t.id).await, 90);
}

async fn the_in_process_verifier_takes_the_same_path(h: Harness) {
    let t = h.token("acme", 5).await;
    let verifier: &dyn Verifier = h.service.as_ref();
    let call = |count, dry_run, key: Option<&str>| VerifyCall {
        token: t.token.clone(),
        count,
        dry_run,
        idempotency_key: key.map(str::to_string),
        uncharged: false,
        purpose: Default::default(),
    };
    let Verdict::Granted(g) = verifier.verify(call(2, false, Some("a"))).await.unwrap() else {
        panic!("not granted")
    };
    assert_eq!((g.status.as_str(), g.balance), ("ok", 3));
    let Verdict::Granted(again) = verifier.verify(call(2, false, Some("a"))).await.unwrap() else {
        panic!("not granted")
    };
    assert_eq!(again, g);
    let Verdict::Granted(dry) = verifier.verify(call(3, true, None)).await.unwrap() else {
        panic!("not granted")
    };
    assert_eq!(dry.balance, 3);
    assert_eq!(
        verifier.verify(call(4, false, None)).await.unwrap(),
        Verdict::Rejected(Rejection::QuotaExceeded)
    );
    assert_eq!(
        verifier.verify(call(0, false, None)).await.unwrap(),
        Verdict::Rejected(Rejection::BadRequest)
    );
    let mut bad = call(1, false, None);
    bad.token = "lp_x".into();
    assert_eq!(
        verifier.verify(bad).await.unwrap(),
        Verdict::Rejected(Rejection::InvalidToken)
    );
    // HTTP sees what the in-process calls did.
    assert_eq!(h.balance(&t.id).await, 3);
}

/// `POST /v1/verify?uncharged=true`: renders delivered but refused at
/// report time are recorded on any existing token (revoked, banned,
/// expired, exhausted), deduct nothing, and a key records them once.
async fn uncharged_true_records_renders_on_any_existing_token_once_per_key(h: Harness) {
    let uncharged = |token: &str, count: u64, key: Option<&str>| {
        let body = json!({ "count": count }).to_string();
        let token = token.to_string();
        let key = key.map(str::to_string);
        let h = &h;
        async move {
            h.verify_with(Some(&token), "?uncharged=true", &body, key.as_deref())
                .await
        }
    };
    let revoked = h.token("acme", 5).await;
    h.admin("POST", &format!("/tokens/{}/revoke", revoked.id), None)
        .await;
    let first = uncharged(&revoked.token, 3, Some("u-1")).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    assert_eq!(
        (
            first.body["status"].as_str(),
            first.body["balance"].as_u64(),
            first.body["uncharged"].as_u64()
        ),
        (Some("ok"), Some(5), Some(3))
    );
    // The same key again: the first answer, recorded once.
    let again = uncharged(&revoked.token, 3, Some("u-1")).await;
    assert_eq!((again.status, &again.body), (200, &first.body));
    // The same key with another count is refused.
    assert_rejected(
        &uncharged(&revoked.token, 2, Some("u-1")).await,
        400,
        "Bad Request",
    );
    // Without a key, each call adds.
    let plain = uncharged(&revoked.token, 2, None).await;
    assert_eq!(plain.body["uncharged"], 5, "{:?}", plain.body);
    let shown = h
        .admin("GET", &format!("/tokens/{}", revoked.id), None)
        .await;
    assert_eq!(
        (
            shown.body["uncharged"].as_u64(),
            shown.body["balance"].as_u64(),
            shown.body["status"].as_str()
        ),
        (Some(5), Some(5), Some("revoked"))
    );
    // Banned, expired and exhausted tokens take it too.
    let banned = h.token("beta", 1).await;
    h.admin("POST", "/accounts/beta/ban", None).await;
    let expired = h
        .create(json!({"account": "acme", "balance": 4, "expires_at": now_ms() - 1}))
        .await;
    let exhausted = h.token("acme", 0).await;
    for t in [&banned, &expired, &exhausted] {
        let r = uncharged(&t.token, 1, Some("x")).await;
        assert_eq!(
            (r.status, r.body["uncharged"].as_u64()),
            (200, Some(1)),
            "{:?}",
            r.body
        );
    }
    // A key used for uncharged renders is not a deduction's; uncharged
    // renders under a deduction's key were charged: its answer, no record.
    let active = h.token("acme", 5).await;
    assert_eq!(uncharged(&active.token, 1, Some("k")).await.status, 200);
    let deduct = h
        .verify_with(Some(&active.token), "", r#"{"count": 1}"#, Some("k"))
        .await;
    assert_rejected(&deduct, 400, "Bad Request");
    let charged = h
        .verify_with(Some(&active.token), "", r#"{"count": 1}"#, Some("d"))
        .await;
    assert_eq!(charged.status, 200);
    let replayed = uncharged(&active.token, 1, Some("d")).await;
    assert_eq!((replayed.status, &replayed.body), (200, &charged.body));
    assert_rejected(
        &uncharged(&active.token, 2, Some("d")).await,
        400,
        "Bad Request",
    );
    assert_eq!(h.balance(&active.id).await, 4);
    let shown = h
        .admin("GET", &format!("/tokens/{}", active.id), None)
        .await;
    assert_eq!(shown.body["uncharged"].as_u64(), Some(1));
    // Unknown tokens cannot be recorded; a dry run never writes.
    assert_rejected(
        &uncharged("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV", 1, None).await,
        403,
        "Invalid Token",
    );
    let both = h
        .verify_with(
            Some(&active.token),
            "?uncharged=true&dry_run=true",
            "",
            None,
        )
        .await;
    assert_rejected(&both, 400, "Bad Request");
    let odd = h
        .verify_with(Some(&active.token), "?uncharged=yes", "", None)
        .await;
    assert_rejected(&odd, 400, "Bad Request");
    assert_rejected(&uncharged(&active.token, 0, None).await, 400, "Bad Request");
    // Every token shows its total in the list; the others 0.
    let list = h.admin("GET", "/tokens", None).await;
    let totals: std::collections::BTreeMap<String, u64> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["uncharged"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        totals,
        [
            (revoked.id.clone(), 5),
            (banned.id.clone(), 1),
            (expired.id.clone(), 1),
            (exhausted.id.clone(), 1),
            (active.id.clone(), 1),
        ]
        .into_iter()
        .collect()
    );
    // Through the in-process verifier: the same path.
    let verifier: &dyn Verifier = h.service.as_ref();
    let call = VerifyCall {
        token: revoked.token.clone(),
        count: 3,
        dry_run: false,
        idempotency_key: Some("u-1".into()),
        uncharged: true,
        purpose: Default::default(),
    };
    let Verdict::Granted(g) = verifier.verify(call).await.unwrap() else {
        panic!("not recorded")
    };
    assert_eq!(g.uncharged, Some(3), "the first answer under u-1");
}
