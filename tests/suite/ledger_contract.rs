//! The ledger contract (`crates/verify/src/ledger.rs`) against both stores. Each
//! behaviour is written once, as a function generic over [`Ledger`];
//! [`contract!`] runs it as `sled::<name>` on the embedded ledger in a
//! temporary folder and as `postgres::<name>` on a fresh database of the
//! binary's shared PostgreSQL cluster. A store that does what the other
//! does not fails its half.
//!
//! Times are passed in, as the contract has them. They start at `t0`, the
//! start of the current UTC day: within the last 24 hours, so a store's
//! own hourly pruning (which reads the clock) never forgets an answer a
//! test wrote, and on a day boundary, so usage buckets are known.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use labelpress::credential::TokenHash;
use labelpress::verify::embedded::Embedded;
use labelpress::verify::history::{Bucket, Subject, Totals, UsageQuery, DAY_MS, HOUR_MS};
use labelpress::verify::ledger::{Deduction, Ledger, Outcome, Purpose, UpdateError};
use labelpress::verify::postgres::{PgLedger, PgOptions};
use labelpress::verify::record::{TokenRecord, RECENT_USAGE};
use labelpress::verify::rules::{self, IDEMPOTENCY_TTL_MS};
use labelpress::verify::search::TokenQuery;
use labelpress::verify::{Granted, RateLimit, Rejection};

/// Each behaviour twice: on sled and on PostgreSQL. Multi-threaded
/// runtimes, so concurrent calls run in parallel on either store.
macro_rules! contract {
    ($($behaviour:ident),+ $(,)?) => {
        mod sled {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let dir = tempfile::tempdir().unwrap();
                    let ledger = super::Embedded::open(dir.path(), true).unwrap();
                    super::$behaviour(std::sync::Arc::new(ledger)).await;
                }
            )+
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $behaviour() {
                    let url = crate::postgres::shared().fresh();
                    let ledger = super::PgLedger::connect(&url, super::pg_options()).await.unwrap();
                    super::$behaviour(std::sync::Arc::new(ledger)).await;
                }
            )+
        }
    };
}

contract!(
    tokens_are_inserted_once_and_read_back,
    a_deduction_spends_the_balance_and_is_remembered,
    rejections_come_in_the_documented_order,
    a_dry_run_checks_everything_and_writes_nothing,
    an_idempotency_key_is_answered_once_within_its_ttl,
    concurrent_calls_never_spend_a_unit_twice,
    concurrent_calls_with_one_key_charge_once,
    twin_calls_get_one_answer_while_the_balance_runs_out,
    uncharged_renders_grow_a_total_and_deduct_nothing,
    changes_apply_whole_or_not_at_all,
    a_ban_reaches_every_token_of_the_account_and_later_ones,
    search_pages_the_matches_oldest_first,
    usage_is_summed_per_bucket_and_subject,
    stale_idempotency_answers_are_pruned,
    a_lease_takes_a_share_of_the_balance_once_per_key,
    a_return_gives_back_at_most_the_lease_once,
    leases_keep_to_the_tokens_rate_limit,
    concurrent_leases_never_lease_a_unit_twice,
);

fn pg_options() -> PgOptions {
    PgOptions {
        connections: 8,
        timeout: Duration::from_secs(20),
    }
}

/// The start of the current UTC day (see the module doc).
fn t0() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    Bucket::Day.start(now)
}

/// The digest of test token `n` (the ledger never sees a secret).
fn hash(n: u8) -> TokenHash {
    TokenHash::of(&format!("lp_{n:032}"))
}

/// An active token record as the admin operations insert it.
fn token(id: &str, account: &str, balance: u64, created_at: i64) -> TokenRecord {
    TokenRecord {
        id: id.into(),
        hint: format!("lp_{}", &id[4..9]),
        account: account.into(),
        balance,
        expires_at: None,
        rate_limit: None,
        revoked: false,
        banned: false,
        created_at,
        last_used_at: None,
        usage: Vec::new(),
        uncharged: 0,
        pending_key: None,
        lease_tat: 0,
    }
}

/// Inserts `record` under [`hash`]`(n)`, which must be new.
async fn add(ledger: &impl Ledger, n: u8, record: &TokenRecord) {
    assert!(ledger.insert(&hash(n), record).await.unwrap(), "{record:?}");
}

/// A plain deduction of `count` at `now`.
fn deduct(hash: &TokenHash, count: u64, now: i64) -> Deduction<'_> {
    Deduction {
        hash,
        count,
        dry_run: false,
        idempotency_key: None,
        now,
        uncharged: false,
        purpose: Default::default(),
    }
}

fn keyed<'a>(hash: &'a TokenHash, count: u64, now: i64, key: &'a str) -> Deduction<'a> {
    Deduction {
        idempotency_key: Some(key),
        ..deduct(hash, count, now)
    }
}

fn dry(hash: &TokenHash, count: u64, now: i64) -> Deduction<'_> {
    Deduction {
        dry_run: true,
        ..deduct(hash, count, now)
    }
}

fn uncharged<'a>(hash: &'a TokenHash, count: u64, now: i64, key: Option<&'a str>) -> Deduction<'a> {
    Deduction {
        idempotency_key: key,
        uncharged: true,
        ..deduct(hash, count, now)
    }
}

fn lease<'a>(hash: &'a TokenHash, want: u64, now: i64, key: &'a str) -> Deduction<'a> {
    Deduction {
        purpose: Purpose::Lease,
        ..keyed(hash, want, now, key)
    }
}

fn give_back<'a>(hash: &'a TokenHash, unused: u64, now: i64, key: &'a str) -> Deduction<'a> {
    Deduction {
        purpose: Purpose::GiveBack,
        ..keyed(hash, unused, now, key)
    }
}

/// The answer of a call that must be granted with a write.
#[track_caller]
fn written(outcome: Outcome) -> Granted {
    match outcome {
        Outcome::Granted {
            granted,
            wrote: true,
        } => granted,
        other => panic!("not granted with a write: {other:?}"),
    }
}

fn rejected(rejection: Rejection) -> Outcome {
    Outcome::Rejected(rejection)
}

async fn balance(ledger: &impl Ledger, id: &str) -> u64 {
    ledger.get(id).await.unwrap().expect(id).balance
}

/// The ids of `records`, in their order.
fn ids(records: &[TokenRecord]) -> Vec<&str> {
    records.iter().map(|r| r.id.as_str()).collect()
}

async fn tokens_are_inserted_once_and_read_back<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    let a = TokenRecord {
        expires_at: Some(t0 + DAY_MS),
        rate_limit: Some(RateLimit {
            per_second: 5,
            burst: 10,
        }),
        ..token("tok_AAAAAAAAAAAA", "acme", 10, t0)
    };
    add(&*ledger, 1, &a).await;
    assert_eq!(ledger.get(&a.id).await.unwrap(), Some(a.clone()));
    // A taken hash or a taken id: refused, nothing written.
    let other_id = token("tok_XXXXXXXXXXXX", "acme", 99, t0);
    assert!(!ledger.insert(&hash(1), &other_id).await.unwrap());
    let other_hash = token("tok_AAAAAAAAAAAA", "acme", 99, t0);
    assert!(!ledger.insert(&hash(2), &other_hash).await.unwrap());
    assert_eq!(ledger.get("tok_XXXXXXXXXXXX").await.unwrap(), None);
    assert_eq!(ledger.get(&a.id).await.unwrap(), Some(a.clone()));
    assert_eq!(
        ledger.verify(&dry(&hash(2), 1, t0)).await.unwrap(),
        rejected(Rejection::InvalidToken),
        "the refused insert left no token under its hash"
    );
    // Oldest first, then by id.
    add(&*ledger, 3, &token("tok_BBBBBBBBBBBB", "acme", 1, t0 - 1)).await;
    add(&*ledger, 4, &token("tok_000000000000", "beta", 1, t0)).await;
    let all = ledger.list().await.unwrap();
    assert_eq!(
        ids(&all),
        ["tok_BBBBBBBBBBBB", "tok_000000000000", "tok_AAAAAAAAAAAA"]
    );
    ledger.flush().await.unwrap();
    assert_eq!(balance(&*ledger, &a.id).await, 10);
}

async fn a_deduction_spends_the_balance_and_is_remembered<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    let rate_limit = Some(RateLimit {
        per_second: 5,
        burst: 10,
    });
    let expires_at = Some(t0 + DAY_MS);
    let a = TokenRecord {
        expires_at,
        rate_limit,
        ..token("tok_AAAAAAAAAAAA", "acme", 10, t0)
    };
    add(&*ledger, 1, &a).await;
    let first = written(ledger.verify(&deduct(&hash(1), 3, t0 + 1)).await.unwrap());
    assert_eq!(first, rules::answer(7, expires_at, rate_limit, t0 + 1));
    assert_eq!(first.remaining, "P0DT23H59M");
    assert_eq!(first.uncharged, None);
    let last = written(ledger.verify(&deduct(&hash(1), 7, t0 + 2)).await.unwrap());
    assert_eq!(last.balance, 0);
    // Nothing left: refused, and a bad body (count 0) or an absurd count
    // deduct nothing either.
    for count in [1, 0, u64::MAX] {
        let expected = if count == 0 {
            Rejection::BadRequest
        } else {
            Rejection::QuotaExceeded
        };
        assert_eq!(
            ledger
                .verify(&deduct(&hash(1), count, t0 + 3))
                .await
                .unwrap(),
            rejected(expected),
            "{count}"
        );
    }
    let record = ledger.get(&a.id).await.unwrap().unwrap();
    assert_eq!((record.balance, record.last_used_at), (0, Some(t0 + 2)));
    assert_eq!(record.usage, vec![(t0 + 1, 3, 7), (t0 + 2, 7, 0)]);
    // A record remembers its last RECENT_USAGE deductions, oldest first.
    add(&*ledger, 2, &token("tok_BBBBBBBBBBBB", "acme", 20, t0)).await;
    for i in 0..12 {
        written(ledger.verify(&deduct(&hash(2), 1, t0 + i)).await.unwrap());
    }
    let usage = ledger.get("tok_BBBBBBBBBBBB").await.unwrap().unwrap().usage;
    assert_eq!(usage.len(), RECENT_USAGE);
    assert_eq!(usage.first(), Some(&(t0 + 2, 1, 17)));
    assert_eq!(usage.last(), Some(&(t0 + 11, 1, 8)));
}

async fn rejections_come_in_the_documented_order<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    let now = t0 + 100;
    ledger.set_banned("banned-co", true, t0).await.unwrap();
    let expired = Some(now);
    let cases = [
        // (token, the answer to count 1, the answer to count 0)
        (
            TokenRecord {
                revoked: true,
                expires_at: expired,
                ..token("tok_R00000000000", "banned-co", 5, t0)
            },
            Rejection::InvalidToken,
            Rejection::InvalidToken,
        ),
        (
            TokenRecord {
                expires_at: expired,
                ..token("tok_B00000000000", "banned-co", 5, t0)
            },
            Rejection::Banned,
            Rejection::Banned,
        ),
        (
            TokenRecord {
                expires_at: expired,
                ..token("tok_E00000000000", "acme", 5, t0)
            },
            Rejection::TokenExpired,
            Rejection::TokenExpired,
        ),
        (
            token("tok_X00000000000", "acme", 0, t0),
            Rejection::QuotaExceeded,
            Rejection::BadRequest,
        ),
    ];
    for (n, (record, one, zero)) in cases.iter().enumerate() {
        let h = hash(n as u8);
        add(&*ledger, n as u8, record).await;
        for call in [deduct(&h, 1, now), dry(&h, 1, now), keyed(&h, 1, now, "k")] {
            assert_eq!(
                ledger.verify(&call).await.unwrap(),
                rejected(*one),
                "{record:?}"
            );
        }
        assert_eq!(
            ledger.verify(&deduct(&h, 0, now)).await.unwrap(),
            rejected(*zero),
            "{record:?}"
        );
        assert_eq!(balance(&*ledger, &record.id).await, record.balance);
    }
    // A key answered before a ban or an expiry is replayed after it (step
    // 4 comes before 5 and 6), and a replay's count is checked first: a
    // bad body (count 0) or an absurd count is a bad request, not Banned.
    add(
        &*ledger,
        7,
        &token("tok_K00000000000", "later-banned", 5, t0),
    )
    .await;
    let first = written(ledger.verify(&keyed(&hash(7), 2, t0, "r")).await.unwrap());
    ledger.set_banned("later-banned", true, now).await.unwrap();
    let expire = |r: &mut TokenRecord| {
        r.expires_at = Some(t0);
        Ok(())
    };
    for change in [None, Some(expire)] {
        if let Some(change) = change {
            ledger.set_banned("later-banned", false, now).await.unwrap();
            ledger.update("tok_K00000000000", &change).await.unwrap();
        }
        assert_eq!(
            ledger.verify(&keyed(&hash(7), 2, now, "r")).await.unwrap(),
            Outcome::Replayed(first.clone())
        );
        for count in [0, 3, u64::MAX] {
            assert_eq!(
                ledger
                    .verify(&keyed(&hash(7), count, now, "r"))
                    .await
                    .unwrap(),
                rejected(Rejection::BadRequest),
                "{count}"
            );
        }
    }
    assert_eq!(balance(&*ledger, "tok_K00000000000").await, 3);
    // Expiry is `now >= expires_at`: a moment before, the token is good.
    let before = written(ledger.verify(&deduct(&hash(2), 1, now - 1)).await.unwrap());
    assert_eq!((before.balance, before.remaining.as_str()), (4, "P0DT0H0M"));
    // An unknown token, whatever the call.
    let unknown = hash(99);
    for call in [
        deduct(&unknown, 1, now),
        deduct(&unknown, 0, now),
        dry(&unknown, 1, now),
        keyed(&unknown, 1, now, "k"),
        uncharged(&unknown, 1, now, None),
        uncharged(&unknown, 1, now, Some("k")),
    ] {
        assert_eq!(
            ledger.verify(&call).await.unwrap(),
            rejected(Rejection::InvalidToken),
            "{call:?}"
        );
    }
}

async fn a_dry_run_checks_everything_and_writes_nothing<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    let rate_limit = Some(RateLimit {
        per_second: 2,
        burst: 3,
    });
    let a = TokenRecord {
        rate_limit,
        ..token("tok_AAAAAAAAAAAA", "acme", 5, t0)
    };
    add(&*ledger, 1, &a).await;
    for _ in 0..3 {
        assert_eq!(
            ledger.verify(&dry(&hash(1), 5, t0 + 1)).await.unwrap(),
            Outcome::Granted {
                // A dry run names the token's account (render nodes file
                // stored templates under it).
                granted: Granted {
                    account: Some("acme".into()),
                    ..rules::answer(5, None, rate_limit, t0 + 1)
                },
                wrote: false
            }
        );
    }
    assert_eq!(
        ledger.verify(&dry(&hash(1), 6, t0 + 1)).await.unwrap(),
        rejected(Rejection::QuotaExceeded)
    );
    // A key on a dry run is not remembered.
    let h = hash(1);
    let dry_keyed = Deduction {
        dry_run: true,
        ..keyed(&h, 2, t0 + 1, "k")
    };
    assert!(matches!(
        ledger.verify(&dry_keyed).await.unwrap(),
        Outcome::Granted { wrote: false, .. }
    ));
    let record = ledger.get(&a.id).await.unwrap().unwrap();
    assert_eq!(
        (record.balance, record.last_used_at, record.usage.len()),
        (5, None, 0)
    );
    let today = UsageQuery {
        subject: Subject::Token(a.id.clone()),
        bucket: Bucket::Day,
        from: t0,
        to: t0 + DAY_MS,
    };
    assert_eq!(ledger.usage(&today).await.unwrap(), Some(vec![]));
    let real = written(
        ledger
            .verify(&keyed(&hash(1), 2, t0 + 2, "k"))
            .await
            .unwrap(),
    );
    assert_eq!(real.balance, 3, "the dry run's key answered nothing");
}

async fn an_idempotency_key_is_answered_once_within_its_ttl<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_AAAAAAAAAAAA", "acme", 10, t0)).await;
    let first = written(ledger.verify(&keyed(&hash(1), 3, t0, "k")).await.unwrap());
    assert_eq!(first.balance, 7);
    written(ledger.verify(&deduct(&hash(1), 1, t0 + 1)).await.unwrap());
    // The first answer again (its balance, not today's), charged once.
    assert_eq!(
        ledger
            .verify(&keyed(&hash(1), 3, t0 + 2, "k"))
            .await
            .unwrap(),
        Outcome::Replayed(first.clone())
    );
    assert_eq!(balance(&*ledger, "tok_AAAAAAAAAAAA").await, 6);
    // Another count under the key is refused (uncharged renders of the
    // same count were charged: the first answer); another key deducts.
    assert_eq!(
        ledger
            .verify(&keyed(&hash(1), 2, t0 + 2, "k"))
            .await
            .unwrap(),
        rejected(Rejection::BadRequest)
    );
    assert_eq!(
        ledger
            .verify(&uncharged(&hash(1), 3, t0 + 2, Some("k")))
            .await
            .unwrap(),
        Outcome::Replayed(first.clone())
    );
    let other = written(
        ledger
            .verify(&keyed(&hash(1), 3, t0 + 3, "k2"))
            .await
            .unwrap(),
    );
    assert_eq!(other.balance, 3);
    // Keys are scoped by token.
    add(&*ledger, 2, &token("tok_BBBBBBBBBBBB", "acme", 10, t0)).await;
    let b = written(
        ledger
            .verify(&keyed(&hash(2), 3, t0 + 3, "k"))
            .await
            .unwrap(),
    );
    assert_eq!(b.balance, 7);
    // A refusal is not remembered: after a top-up, the same key succeeds.
    add(&*ledger, 3, &token("tok_CCCCCCCCCCCC", "acme", 1, t0)).await;
    assert_eq!(
        ledger
            .verify(&keyed(&hash(3), 2, t0 + 4, "q"))
            .await
            .unwrap(),
        rejected(Rejection::QuotaExceeded)
    );
    let top_up = |r: &mut TokenRecord| {
        r.balance += 1;
        Ok(())
    };
    ledger.update("tok_CCCCCCCCCCCC", &top_up).await.unwrap();
    let c = written(
        ledger
            .verify(&keyed(&hash(3), 2, t0 + 5, "q"))
            .await
            .unwrap(),
    );
    assert_eq!(c.balance, 0);
    // A revoked token gets no replay of an answer given before.
    let revoke = |r: &mut TokenRecord| {
        r.revoked = true;
        Ok(())
    };
    ledger.update("tok_AAAAAAAAAAAA", &revoke).await.unwrap();
    assert_eq!(
        ledger
            .verify(&keyed(&hash(1), 3, t0 + 6, "k"))
            .await
            .unwrap(),
        rejected(Rejection::InvalidToken)
    );
    assert_eq!(balance(&*ledger, "tok_AAAAAAAAAAAA").await, 3);
    // An answer is fresh for IDEMPOTENCY_TTL_MS, then the key deducts again.
    add(&*ledger, 4, &token("tok_DDDDDDDDDDDD", "acme", 10, t0)).await;
    let d = written(ledger.verify(&keyed(&hash(4), 1, t0, "t")).await.unwrap());
    let last_moment = t0 + IDEMPOTENCY_TTL_MS - 1;
    assert_eq!(
        ledger
            .verify(&keyed(&hash(4), 1, last_moment, "t"))
            .await
            .unwrap(),
        Outcome::Replayed(d)
    );
    let later = t0 + IDEMPOTENCY_TTL_MS;
    let again = written(
        ledger
            .verify(&keyed(&hash(4), 1, later, "t"))
            .await
            .unwrap(),
    );
    assert_eq!(again.balance, 8);
    assert_eq!(
        ledger
            .verify(&keyed(&hash(4), 1, later + 1, "t"))
            .await
            .unwrap(),
        Outcome::Replayed(again)
    );
}

async fn concurrent_calls_never_spend_a_unit_twice<L: Ledger + 'static>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_AAAAAAAAAAAA", "acme", 40, t0)).await;
    // 4 clients of 20 calls each, two of them with a key per call.
    let clients: Vec<_> = (0..4)
        .map(|client| {
            let ledger = ledger.clone();
            tokio::spawn(async move {
                let mut balances = Vec::new();
                for i in 0..20 {
                    let key = format!("{client}-{i}");
                    let h = hash(1);
                    let call = Deduction {
                        idempotency_key: (client % 2 == 0).then_some(key.as_str()),
                        ..deduct(&h, 1, t0 + i)
                    };
                    match ledger.verify(&call).await.unwrap() {
                        Outcome::Granted { granted, .. } => balances.push(granted.balance),
                        Outcome::Rejected(Rejection::QuotaExceeded) => {}
                        other => panic!("{other:?}"),
                    }
                }
                balances
            })
        })
        .collect();
    let mut granted = Vec::new();
    for client in clients {
        granted.extend(client.await.unwrap());
    }
    granted.sort();
    assert_eq!(granted, (0..40).collect::<Vec<u64>>(), "each balance once");
    assert_eq!(balance(&*ledger, "tok_AAAAAAAAAAAA").await, 0);
}

async fn concurrent_calls_with_one_key_charge_once<L: Ledger + 'static>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_AAAAAAAAAAAA", "acme", 100, t0)).await;
    let calls: Vec<_> = (0..10)
        .map(|_| {
            let ledger = ledger.clone();
            tokio::spawn(async move {
                let h = hash(1);
                ledger.verify(&keyed(&h, 5, t0, "batch-7")).await.unwrap()
            })
        })
        .collect();
    let mut first = 0;
    for call in calls {
        match call.await.unwrap() {
            Outcome::Granted { granted, .. } => {
                first += 1;
                assert_eq!(granted.balance, 95);
            }
            Outcome::Replayed(granted) => assert_eq!(granted.balance, 95),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(first, 1, "one call deducted, the others replayed it");
    assert_eq!(balance(&*ledger, "tok_AAAAAAAAAAAA").await, 95);
}

/// Issue 32: every key sent twice at once while the balance runs out (100
/// units, 150 keys, 32 calls at a time). A key's two calls get one answer:
/// both the same grant (deducted once), or both the rejection. A twin
/// that lost the race for the last units used to answer 403 "nothing was
/// deducted" on PostgreSQL although its key was deducted.
async fn twin_calls_get_one_answer_while_the_balance_runs_out<L: Ledger + 'static>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_TTTTTTTTTTTT", "acme", 100, t0)).await;
    let keys: Vec<String> = (0..150).map(|i| format!("twin-{i}")).collect();
    let semaphore = Arc::new(tokio::sync::Semaphore::new(32));
    let calls: Vec<_> = keys
        .iter()
        .flat_map(|key| [key.clone(), key.clone()])
        .map(|key| {
            let (ledger, semaphore) = (ledger.clone(), semaphore.clone());
            tokio::spawn(async move {
                let _turn = semaphore.acquire_owned().await.unwrap();
                let h = hash(1);
                let outcome = ledger.verify(&keyed(&h, 1, t0, &key)).await.unwrap();
                (key, outcome)
            })
        })
        .collect();
    let mut answers: BTreeMap<String, Vec<Outcome>> = BTreeMap::new();
    for call in calls {
        let (key, outcome) = call.await.unwrap();
        answers.entry(key).or_default().push(outcome);
    }
    let mut deducted = 0;
    for (key, twins) in &answers {
        let seen = |o: &Outcome| match o {
            Outcome::Granted { granted, .. } | Outcome::Replayed(granted) => Ok(granted.balance),
            Outcome::Rejected(r) => Err(*r),
        };
        assert_eq!(seen(&twins[0]), seen(&twins[1]), "{key}: {twins:?}");
        let granted = twins
            .iter()
            .filter(|o| matches!(o, Outcome::Granted { .. }))
            .count();
        assert!(granted <= 1, "{key} deducted twice: {twins:?}");
        deducted += granted;
        if let Err(rejection) = seen(&twins[0]) {
            assert_eq!(rejection, Rejection::QuotaExceeded, "{key}");
        }
    }
    assert_eq!(deducted, 100, "every unit granted once");
    assert_eq!(balance(&*ledger, "tok_TTTTTTTTTTTT").await, 0);
    // A later replay of a granted key is still its first answer.
    let granted_key = answers
        .iter()
        .find(|(_, twins)| matches!(twins[0], Outcome::Granted { .. } | Outcome::Replayed(_)))
        .map(|(key, _)| key.clone())
        .unwrap();
    let h = hash(1);
    assert!(matches!(
        ledger
            .verify(&keyed(&h, 1, t0, &granted_key))
            .await
            .unwrap(),
        Outcome::Replayed(_)
    ));
}

async fn uncharged_renders_grow_a_total_and_deduct_nothing<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    let now = t0 + 10;
    let revoked = TokenRecord {
        revoked: true,
        ..token("tok_RRRRRRRRRRRR", "acme", 10, t0)
    };
    add(&*ledger, 1, &revoked).await;
    let first = written(
        ledger
            .verify(&uncharged(&hash(1), 3, now, Some("a")))
            .await
            .unwrap(),
    );
    assert_eq!((first.balance, first.uncharged), (10, Some(3)));
    assert_eq!(
        ledger
            .verify(&uncharged(&hash(1), 3, now, Some("a")))
            .await
            .unwrap(),
        Outcome::Replayed(first)
    );
    assert_eq!(
        ledger
            .verify(&uncharged(&hash(1), 2, now, Some("a")))
            .await
            .unwrap(),
        rejected(Rejection::BadRequest)
    );
    let plain = written(
        ledger
            .verify(&uncharged(&hash(1), 2, now, None))
            .await
            .unwrap(),
    );
    assert_eq!(plain.uncharged, Some(5));
    let record = ledger.get(&revoked.id).await.unwrap().unwrap();
    assert_eq!(
        (record.uncharged, record.balance, record.last_used_at),
        (5, 10, None)
    );
    // Banned, expired and exhausted tokens take them too.
    ledger.set_banned("beta", true, t0).await.unwrap();
    let others = [
        token("tok_BBBBBBBBBBBB", "beta", 1, t0),
        TokenRecord {
            expires_at: Some(t0),
            ..token("tok_EEEEEEEEEEEE", "acme", 4, t0)
        },
        token("tok_XXXXXXXXXXXX", "acme", 0, t0),
    ];
    for (n, record) in others.iter().enumerate() {
        let n = n as u8 + 2;
        add(&*ledger, n, record).await;
        let g = written(
            ledger
                .verify(&uncharged(&hash(n), 1, now, Some("x")))
                .await
                .unwrap(),
        );
        assert_eq!(g.uncharged, Some(1), "{record:?}");
    }
    // A key of uncharged renders is not a deduction's.
    add(&*ledger, 9, &token("tok_AAAAAAAAAAAA", "acme", 5, t0)).await;
    written(
        ledger
            .verify(&uncharged(&hash(9), 1, now, Some("k")))
            .await
            .unwrap(),
    );
    assert_eq!(
        ledger.verify(&keyed(&hash(9), 1, now, "k")).await.unwrap(),
        rejected(Rejection::BadRequest)
    );
    // Uncharged renders reported under the key of a deduction of that
    // count were charged: the deduction answers, nothing is added, even
    // once the token is revoked (which refuses the deduction's replay).
    let charged = written(ledger.verify(&keyed(&hash(9), 2, now, "d")).await.unwrap());
    let revoke = |r: &mut TokenRecord| {
        r.revoked = true;
        Ok(())
    };
    ledger.update("tok_AAAAAAAAAAAA", &revoke).await.unwrap();
    assert_eq!(
        ledger.verify(&keyed(&hash(9), 2, now, "d")).await.unwrap(),
        rejected(Rejection::InvalidToken)
    );
    assert_eq!(
        ledger
            .verify(&uncharged(&hash(9), 2, now, Some("d")))
            .await
            .unwrap(),
        Outcome::Replayed(charged)
    );
    assert_eq!(
        ledger
            .verify(&uncharged(&hash(9), 1, now, Some("d")))
            .await
            .unwrap(),
        rejected(Rejection::BadRequest)
    );
    let record = ledger.get("tok_AAAAAAAAAAAA").await.unwrap().unwrap();
    assert_eq!((record.uncharged, record.balance), (1, 3), "{record:?}");
    // A bad body is refused once the token is known to exist.
    assert_eq!(
        ledger
            .verify(&uncharged(&hash(9), 0, now, None))
            .await
            .unwrap(),
        rejected(Rejection::BadRequest)
    );
    assert_eq!(balance(&*ledger, "tok_AAAAAAAAAAAA").await, 3);
    // The most first, then by id; the total over all.
    let (top, total) = ledger.uncharged(10).await.unwrap();
    assert_eq!(
        top,
        [
            ("tok_RRRRRRRRRRRR", 5),
            ("tok_AAAAAAAAAAAA", 1),
            ("tok_BBBBBBBBBBBB", 1),
            ("tok_EEEEEEEEEEEE", 1),
            ("tok_XXXXXXXXXXXX", 1),
        ]
        .map(|(id, n)| (id.to_string(), n))
    );
    assert_eq!(total, 9);
    let (top, total) = ledger.uncharged(2).await.unwrap();
    assert_eq!((top.len(), total), (2, 9));
    // Not usage: the history has the one deduction (2 units) only.
    let today = UsageQuery {
        subject: Subject::Account("acme".into()),
        bucket: Bucket::Day,
        from: t0,
        to: t0 + DAY_MS,
    };
    assert_eq!(ledger.usage(&today).await.unwrap(), Some(vec![(t0, 1, 2)]));
}

async fn changes_apply_whole_or_not_at_all<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_AAAAAAAAAAAA", "acme", 10, t0)).await;
    let change = |r: &mut TokenRecord| {
        r.balance += 5;
        r.expires_at = Some(t0 + HOUR_MS);
        Ok(())
    };
    let changed = ledger.update("tok_AAAAAAAAAAAA", &change).await.unwrap();
    assert_eq!(
        (changed.balance, changed.expires_at),
        (15, Some(t0 + HOUR_MS))
    );
    assert_eq!(ledger.get("tok_AAAAAAAAAAAA").await.unwrap(), Some(changed));
    // A refused change leaves the token as it was.
    let refused = |r: &mut TokenRecord| {
        r.balance = 0;
        Err("no".to_string())
    };
    match ledger.update("tok_AAAAAAAAAAAA", &refused).await {
        Err(UpdateError::Refused(m)) => assert_eq!(m, "no"),
        other => panic!("{other:?}"),
    }
    assert_eq!(balance(&*ledger, "tok_AAAAAAAAAAAA").await, 15);
    assert!(matches!(
        ledger.update("tok_BBBBBBBBBBBB", &change).await,
        Err(UpdateError::NotFound)
    ));
    // The expiry cleared and the token revoked, as the admin operations do.
    let clear = |r: &mut TokenRecord| {
        r.expires_at = None;
        r.revoked = true;
        Ok(())
    };
    ledger.update("tok_AAAAAAAAAAAA", &clear).await.unwrap();
    let record = ledger.get("tok_AAAAAAAAAAAA").await.unwrap().unwrap();
    assert_eq!((record.expires_at, record.revoked), (None, true));
    assert_eq!(
        ledger.verify(&deduct(&hash(1), 1, t0)).await.unwrap(),
        rejected(Rejection::InvalidToken)
    );
}

async fn a_ban_reaches_every_token_of_the_account_and_later_ones<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_A1AAAAAAAAAA", "acme", 10, t0)).await;
    add(&*ledger, 2, &token("tok_A2AAAAAAAAAA", "acme", 10, t0)).await;
    add(&*ledger, 3, &token("tok_GGGGGGGGGGGG", "globex", 10, t0)).await;
    ledger.set_banned("acme", true, t0 + 5).await.unwrap();
    for n in [1, 2] {
        for call in [deduct(&hash(n), 1, t0 + 6), dry(&hash(n), 1, t0 + 6)] {
            assert_eq!(
                ledger.verify(&call).await.unwrap(),
                rejected(Rejection::Banned)
            );
        }
    }
    written(ledger.verify(&deduct(&hash(3), 1, t0 + 6)).await.unwrap());
    assert_eq!(balance(&*ledger, "tok_A1AAAAAAAAAA").await, 10);
    // A token created for a banned account is banned.
    add(&*ledger, 4, &token("tok_A3AAAAAAAAAA", "acme", 10, t0)).await;
    assert!(
        ledger
            .get("tok_A3AAAAAAAAAA")
            .await
            .unwrap()
            .unwrap()
            .banned
    );
    assert_eq!(
        ledger.verify(&deduct(&hash(4), 1, t0 + 6)).await.unwrap(),
        rejected(Rejection::Banned)
    );
    // The first ban's time stays; accounts without tokens can be banned;
    // the list is by name.
    ledger.set_banned("acme", true, t0 + 9).await.unwrap();
    ledger.set_banned("zeta", true, t0 + 7).await.unwrap();
    ledger.set_banned("beta", true, t0 + 8).await.unwrap();
    ledger.set_banned("gamma", true, t0 + 8).await.unwrap();
    ledger.set_banned("gamma", false, t0 + 10).await.unwrap();
    ledger.set_banned("nobody", false, t0 + 10).await.unwrap();
    let listed: Vec<_> = ledger
        .banned()
        .await
        .unwrap()
        .into_iter()
        .map(|b| (b.account, b.banned_at))
        .collect();
    let expected = [("acme", t0 + 5), ("beta", t0 + 8), ("zeta", t0 + 7)];
    assert_eq!(listed, expected.map(|(a, t)| (a.to_string(), Some(t))));
    // Unbanned: every token of the account, the later one included.
    ledger.set_banned("acme", false, t0 + 11).await.unwrap();
    for n in [1, 4] {
        let g = written(ledger.verify(&deduct(&hash(n), 1, t0 + 12)).await.unwrap());
        assert_eq!(g.balance, 9);
    }
    assert!(
        !ledger
            .get("tok_A3AAAAAAAAAA")
            .await
            .unwrap()
            .unwrap()
            .banned
    );
    // A ban again gets the new time.
    ledger.set_banned("acme", true, t0 + 13).await.unwrap();
    assert_eq!(ledger.banned().await.unwrap()[0].banned_at, Some(t0 + 13));
}

async fn search_pages_the_matches_oldest_first<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    let now = t0 + 10;
    let tokens = [
        token("tok_000000000000", "acme", 10, t0),
        token("tok_1Bbbbbbbbbbb", "acme", 10, t0 + 1),
        TokenRecord {
            revoked: true,
            ..token("tok_222222222222", "acme", 10, t0 + 2)
        },
        TokenRecord {
            expires_at: Some(t0 + 3),
            ..token("tok_333333333333", "acme", 10, t0 + 3)
        },
        token("tok_444444444444", "beta", 5, t0 + 4),
        token("tok_555555555555", "beta", 5, t0 + 5),
        token("tok_666666666666", "Gamma-X", 0, t0 + 6),
    ];
    for (n, record) in tokens.iter().enumerate() {
        add(&*ledger, n as u8, record).await;
    }
    ledger.set_banned("beta", true, t0).await.unwrap();
    let search = |query: TokenQuery, now: i64| {
        let ledger = ledger.clone();
        async move {
            let (page, total) = ledger.search(&query, now).await.unwrap();
            let page: Vec<String> = page.into_iter().map(|r| r.id[4..5].to_string()).collect();
            (page.concat(), total)
        }
    };
    let page = |limit, offset| TokenQuery {
        limit,
        offset,
        ..TokenQuery::default()
    };
    assert_eq!(search(page(3, 0), now).await, ("012".into(), 7));
    assert_eq!(search(page(3, 3), now).await, ("345".into(), 7));
    assert_eq!(search(page(3, 6), now).await, ("6".into(), 7));
    assert_eq!(search(page(3, 7), now).await, ("".into(), 7));
    let q = |q: &str| TokenQuery {
        q: Some(q.into()),
        ..TokenQuery::default()
    };
    // Part of the id or of the account; the query is lowercase, the
    // records' case is ignored.
    assert_eq!(search(q("gamma"), now).await, ("6".into(), 1));
    assert_eq!(search(q("beta"), now).await, ("45".into(), 2));
    assert_eq!(search(q("bbbbbb"), now).await, ("1".into(), 1));
    assert_eq!(search(q("nothing"), now).await, ("".into(), 0));
    let status = |account: Option<&str>, status: &'static str| TokenQuery {
        account: account.map(str::to_string),
        status: Some(status),
        ..TokenQuery::default()
    };
    assert_eq!(
        search(status(Some("acme"), "active"), now).await,
        ("01".into(), 2)
    );
    assert_eq!(search(status(None, "expired"), now).await, ("3".into(), 1));
    assert_eq!(
        search(status(None, "exhausted"), now).await,
        ("6".into(), 1)
    );
    assert_eq!(search(status(None, "banned"), now).await, ("45".into(), 2));
    assert_eq!(search(status(None, "revoked"), now).await, ("2".into(), 1));
    // The status is the one at `now`: before its expiry, token 3 is active.
    assert_eq!(
        search(status(Some("acme"), "active"), t0 + 2).await,
        ("013".into(), 3)
    );
    // The account is matched exactly.
    let account = |a: &str| TokenQuery {
        account: Some(a.into()),
        ..TokenQuery::default()
    };
    assert_eq!(search(account("Gamma-X"), now).await, ("6".into(), 1));
    assert_eq!(search(account("gamma-x"), now).await, ("".into(), 0));
    assert_eq!(search(account("acm"), now).await, ("".into(), 0));
}

async fn usage_is_summed_per_bucket_and_subject<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_AAAAAAAAAAAA", "acme", 100, t0)).await;
    add(&*ledger, 2, &token("tok_BBBBBBBBBBBB", "acme", 100, t0)).await;
    // An account whose name starts with the other's.
    add(&*ledger, 3, &token("tok_CCCCCCCCCCCC", "acme2", 100, t0)).await;
    let day2 = t0 + DAY_MS + 5 * HOUR_MS;
    for (n, count, at) in [
        (1, 2, t0 + 10),          // day 0, hour 0
        (1, 3, t0 + HOUR_MS - 1), // day 0, hour 0
        (1, 1, t0 + HOUR_MS),     // day 0, hour 1
        (2, 4, t0 + 30 * 60_000), // the other token, day 0, hour 0
        (1, 5, day2),             // day 1, hour 29
        (3, 7, t0 + 20),          // the other account
    ] {
        written(ledger.verify(&deduct(&hash(n), count, at)).await.unwrap());
    }
    // A dry run, a refused count and a replay count nothing.
    ledger.verify(&dry(&hash(1), 1, t0 + 20)).await.unwrap();
    assert_eq!(
        ledger
            .verify(&deduct(&hash(1), 1000, t0 + 20))
            .await
            .unwrap(),
        rejected(Rejection::QuotaExceeded)
    );
    written(
        ledger
            .verify(&keyed(&hash(2), 1, t0 + 40, "k"))
            .await
            .unwrap(),
    );
    let replay = ledger
        .verify(&keyed(&hash(2), 1, t0 + 50, "k"))
        .await
        .unwrap();
    assert!(matches!(replay, Outcome::Replayed(_)), "{replay:?}");
    let usage = |subject: Subject, bucket, from, to| {
        let ledger = ledger.clone();
        async move {
            let query = UsageQuery {
                subject,
                bucket,
                from,
                to,
            };
            ledger.usage(&query).await.unwrap()
        }
    };
    let a = || Subject::Token("tok_AAAAAAAAAAAA".into());
    let hours: Option<Vec<Totals>> = usage(a(), Bucket::Hour, t0, t0 + 2 * DAY_MS).await;
    assert_eq!(
        hours,
        Some(vec![(t0, 2, 5), (t0 + HOUR_MS, 1, 1), (day2, 1, 5)])
    );
    let days = usage(a(), Bucket::Day, t0, t0 + 2 * DAY_MS).await;
    assert_eq!(days, Some(vec![(t0, 3, 6), (t0 + DAY_MS, 1, 5)]));
    // The range bounds the sums: only the second hour.
    let one = usage(a(), Bucket::Hour, t0 + HOUR_MS, t0 + 2 * HOUR_MS).await;
    assert_eq!(one, Some(vec![(t0 + HOUR_MS, 1, 1)]));
    // An account sums its tokens, and only its own.
    let acme = usage(
        Subject::Account("acme".into()),
        Bucket::Day,
        t0,
        t0 + DAY_MS,
    )
    .await;
    assert_eq!(acme, Some(vec![(t0, 5, 11)]));
    let acme2 = usage(
        Subject::Account("acme2".into()),
        Bucket::Day,
        t0,
        t0 + DAY_MS,
    )
    .await;
    assert_eq!(acme2, Some(vec![(t0, 1, 7)]));
    // An account without usage is empty; an unknown token is not a series.
    let nobody = usage(Subject::Account("acm".into()), Bucket::Day, t0, t0 + DAY_MS).await;
    assert_eq!(nobody, Some(vec![]));
    let unknown = Subject::Token("tok_ZZZZZZZZZZZZ".into());
    assert_eq!(usage(unknown, Bucket::Day, t0, t0 + DAY_MS).await, None);
}

async fn stale_idempotency_answers_are_pruned<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_AAAAAAAAAAAA", "acme", 10, t0)).await;
    let p = written(ledger.verify(&keyed(&hash(1), 1, t0, "p")).await.unwrap());
    written(
        ledger
            .verify(&keyed(&hash(1), 1, t0 + HOUR_MS, "q"))
            .await
            .unwrap(),
    );
    let ttl = IDEMPOTENCY_TTL_MS;
    // Fresh until IDEMPOTENCY_TTL_MS has passed: kept, and replayed.
    assert_eq!(ledger.prune_idempotency(t0 + ttl - 1).await.unwrap(), 0);
    assert_eq!(
        ledger
            .verify(&keyed(&hash(1), 1, t0 + ttl - 1, "p"))
            .await
            .unwrap(),
        Outcome::Replayed(p)
    );
    // Then forgotten, once; "q" is an hour younger.
    assert_eq!(ledger.prune_idempotency(t0 + ttl).await.unwrap(), 1);
    assert_eq!(ledger.prune_idempotency(t0 + ttl).await.unwrap(), 0);
    let again = written(
        ledger
            .verify(&keyed(&hash(1), 1, t0 + ttl, "p"))
            .await
            .unwrap(),
    );
    assert_eq!(again.balance, 7);
    // The new answer under "p" is fresh; "q" goes an hour later.
    assert_eq!(
        ledger.prune_idempotency(t0 + HOUR_MS + ttl).await.unwrap(),
        1
    );
    assert_eq!(
        ledger
            .verify(&keyed(&hash(1), 1, t0 + ttl + 1, "p"))
            .await
            .unwrap(),
        Outcome::Replayed(again)
    );
    assert_eq!(balance(&*ledger, "tok_AAAAAAAAAAAA").await, 7);
}

/// Issue 32: one token's row held by another session (an administrator's
/// `SELECT ... FOR UPDATE` for 6 s) while 40 keyed and 10 plain
/// deductions of that token wait on it. Another token's deductions, keyed
/// and plain, are all granted meanwhile, although the held token's calls
/// alone outnumber the pool's connections and outlast the ledger's
/// timeout; the held token's calls are refused as unavailable (503), never
/// granted twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_row_of_one_token_leaves_the_others_their_connections() {
    let pg = crate::postgres::shared();
    let url = pg.fresh();
    let db = url.rsplit('/').next().unwrap().to_string();
    let options = PgOptions {
        connections: 8,
        timeout: Duration::from_secs(3),
    };
    let ledger = Arc::new(PgLedger::connect(&url, options).await.unwrap());
    let t0 = t0();
    add(&*ledger, 1, &token("tok_HHHHHHHHHHHH", "acme", 1000, t0)).await;
    add(&*ledger, 2, &token("tok_OOOOOOOOOOOO", "other", 1000, t0)).await;
    let holder = {
        let db = db.clone();
        std::thread::spawn(move || {
            crate::postgres::shared().sql(
                &db,
                "BEGIN; SELECT 1 FROM lp_tokens WHERE id = 'tok_HHHHHHHHHHHH' FOR UPDATE; \
                 SELECT pg_sleep(6); COMMIT;",
            )
        })
    };
    // The row is held once the holder's transaction shows in pg_locks.
    let waited = std::time::Instant::now();
    while pg.sql(
        &db,
        "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND granted",
    ) == "0"
    {
        assert!(
            waited.elapsed() < Duration::from_secs(5),
            "the holder never locked"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let held: Vec<_> = (0..50)
        .map(|i| {
            let ledger = ledger.clone();
            tokio::spawn(async move {
                let h = hash(1);
                let key = format!("held-{i}");
                let call = match i < 40 {
                    true => keyed(&h, 1, t0, &key),
                    false => deduct(&h, 1, t0),
                };
                ledger.verify(&call).await
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let others: Vec<_> = (0..40)
        .map(|i| {
            let ledger = ledger.clone();
            tokio::spawn(async move {
                let h = hash(2);
                let key = format!("other-{i}");
                let call = match i % 2 == 0 {
                    true => keyed(&h, 1, t0, &key),
                    false => deduct(&h, 1, t0),
                };
                ledger.verify(&call).await
            })
        })
        .collect();
    for (i, call) in others.into_iter().enumerate() {
        let outcome = call.await.unwrap();
        assert!(
            matches!(outcome, Ok(Outcome::Granted { .. })),
            "another token's call {i} while one row is held: {outcome:?}"
        );
    }
    let mut granted_held = 0;
    for call in held {
        match call.await.unwrap() {
            Ok(Outcome::Granted { .. }) => granted_held += 1,
            Err(e) => assert!(e.is_unavailable(), "{e}"),
            Ok(other) => panic!("{other:?}"),
        }
    }
    holder.join().unwrap();
    assert_eq!(balance(&*ledger, "tok_OOOOOOOOOOOO").await, 960);
    assert_eq!(
        balance(&*ledger, "tok_HHHHHHHHHHHH").await,
        1000 - granted_held
    );
}

/// A lease deducts at most a quarter of the balance (at least one unit),
/// answers the units with the account, is remembered under its key like a
/// deduction (and in its own namespace: a deduction with the same key is
/// another call), and counts as usage.
async fn a_lease_takes_a_share_of_the_balance_once_per_key<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_LLLLLLLLLLLL", "acme", 100, t0)).await;
    let h = hash(1);
    let first = written(ledger.verify(&lease(&h, 10, t0, "l-1")).await.unwrap());
    assert_eq!((first.leased, first.balance), (Some(10), 90));
    assert_eq!(first.account.as_deref(), Some("acme"));
    // The same key again: the first answer, nothing more deducted.
    match ledger.verify(&lease(&h, 10, t0 + 1, "l-1")).await.unwrap() {
        Outcome::Replayed(again) => assert_eq!(again, first),
        other => panic!("{other:?}"),
    }
    // A quarter of 90 is 22: a lease asking for 50 gets 22.
    let capped = written(ledger.verify(&lease(&h, 50, t0, "l-2")).await.unwrap());
    assert_eq!((capped.leased, capped.balance), (Some(22), 68));
    // A plain deduction under a lease's key is a call of its own.
    let plain = written(ledger.verify(&keyed(&h, 1, t0, "l-1")).await.unwrap());
    assert_eq!((plain.leased, plain.balance), (None, 67));
    // Near the end, one unit at a time; at 0, Quota Exceeded.
    ledger.verify(&deduct(&h, 65, t0)).await.unwrap();
    let last = written(ledger.verify(&lease(&h, 10, t0, "l-3")).await.unwrap());
    assert_eq!((last.leased, last.balance), (Some(1), 1));
    written(ledger.verify(&lease(&h, 10, t0, "l-4")).await.unwrap());
    assert_eq!(
        ledger.verify(&lease(&h, 10, t0, "l-5")).await.unwrap(),
        rejected(Rejection::QuotaExceeded)
    );
    let record = ledger.get("tok_LLLLLLLLLLLL").await.unwrap().unwrap();
    assert_eq!(record.balance, 0);
    assert!(
        record.usage.iter().any(|&(_, count, _)| count == 22),
        "{:?}",
        record.usage
    );
    // A revoked token gets no lease and no replay of one.
    ledger
        .update("tok_LLLLLLLLLLLL", &|r: &mut TokenRecord| {
            r.revoked = true;
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(
        ledger.verify(&lease(&h, 10, t0, "l-1")).await.unwrap(),
        rejected(Rejection::InvalidToken)
    );
}

/// A return credits unused units of the lease under the same key, once,
/// at most what the lease granted; a key without a lease is refused; a
/// revoked token's lease still comes back (it was paid for).
async fn a_return_gives_back_at_most_the_lease_once<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_RRRRRRRRRRRR", "acme", 100, t0)).await;
    let h = hash(1);
    written(ledger.verify(&lease(&h, 20, t0, "r-1")).await.unwrap());
    assert_eq!(balance(&*ledger, "tok_RRRRRRRRRRRR").await, 80);
    // More than the lease granted, or a key with no lease: 400.
    for (unused, key) in [(21, "r-1"), (1, "r-none"), (0, "r-1")] {
        assert_eq!(
            ledger
                .verify(&give_back(&h, unused, t0, key))
                .await
                .unwrap(),
            rejected(Rejection::BadRequest),
            "{unused} {key}"
        );
    }
    // A plain deduction's key is no lease either.
    written(ledger.verify(&keyed(&h, 5, t0, "r-plain")).await.unwrap());
    assert_eq!(
        ledger
            .verify(&give_back(&h, 1, t0, "r-plain"))
            .await
            .unwrap(),
        rejected(Rejection::BadRequest)
    );
    let back = written(
        ledger
            .verify(&give_back(&h, 7, t0 + 5, "r-1"))
            .await
            .unwrap(),
    );
    assert_eq!((back.returned, back.balance), (Some(7), 82));
    // Retried: the first answer, credited once; another count is 400.
    match ledger
        .verify(&give_back(&h, 7, t0 + 6, "r-1"))
        .await
        .unwrap()
    {
        Outcome::Replayed(again) => assert_eq!(again, back),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        ledger
            .verify(&give_back(&h, 3, t0 + 6, "r-1"))
            .await
            .unwrap(),
        rejected(Rejection::BadRequest)
    );
    assert_eq!(balance(&*ledger, "tok_RRRRRRRRRRRR").await, 82);
    written(ledger.verify(&lease(&h, 4, t0, "r-2")).await.unwrap());
    ledger
        .update("tok_RRRRRRRRRRRR", &|r: &mut TokenRecord| {
            r.revoked = true;
            Ok(())
        })
        .await
        .unwrap();
    let back = written(
        ledger
            .verify(&give_back(&h, 4, t0 + 7, "r-2"))
            .await
            .unwrap(),
    );
    assert_eq!(back.balance, 82);
}

/// With a rate limit of 10/s and a burst of 5, leases grant at most the
/// burst at once, then 10 per second of clock, whatever they ask for; a
/// lease the limit allows none of answers 0 units with the wait, deducts
/// nothing and is not remembered.
async fn leases_keep_to_the_tokens_rate_limit<L: Ledger>(ledger: Arc<L>) {
    let t0 = t0();
    let mut limited = token("tok_PPPPPPPPPPPP", "acme", 1_000_000, t0);
    limited.rate_limit = Some(RateLimit {
        per_second: 10,
        burst: 5,
    });
    add(&*ledger, 1, &limited).await;
    let h = hash(1);
    let first = written(ledger.verify(&lease(&h, 100, t0, "p-1")).await.unwrap());
    assert_eq!(first.leased, Some(5));
    let none = ledger
        .verify(&lease(&h, 100, t0 + 50, "p-2"))
        .await
        .unwrap();
    let Outcome::Granted {
        granted,
        wrote: false,
    } = none
    else {
        panic!("{none:?}")
    };
    assert_eq!(granted.leased, Some(0));
    assert_eq!(granted.retry_after_ms, Some(50));
    assert_eq!(balance(&*ledger, "tok_PPPPPPPPPPPP").await, 999_995);
    // The same key later is a new judgement (0 was not remembered).
    let later = written(
        ledger
            .verify(&lease(&h, 100, t0 + 300, "p-2"))
            .await
            .unwrap(),
    );
    assert_eq!(later.leased, Some(3));
    // One second on: 10 more, never more than the rate over the window.
    let mut granted = 5 + 3;
    for step in 1..=20 {
        let key = format!("p-step-{step}");
        let at = t0 + 300 + step * 50;
        if let Outcome::Granted { granted: g, .. } =
            ledger.verify(&lease(&h, 100, at, &key)).await.unwrap()
        {
            granted += g.leased.unwrap();
        }
    }
    // 1.3 s after the start: at most 5 + 13.
    assert!(granted <= 18, "{granted}");
    assert!(granted >= 16, "{granted}");
}

/// Leases racing on one token (10 at a time, asking for 7 of 40 units)
/// together lease exactly the balance and never more.
async fn concurrent_leases_never_lease_a_unit_twice<L: Ledger + 'static>(ledger: Arc<L>) {
    let t0 = t0();
    add(&*ledger, 1, &token("tok_CCCCCCCCCCCC", "acme", 40, t0)).await;
    let calls: Vec<_> = (0..60)
        .map(|i| {
            let ledger = ledger.clone();
            tokio::spawn(async move {
                let h = hash(1);
                let key = format!("c-{i}");
                match ledger.verify(&lease(&h, 7, t0, &key)).await.unwrap() {
                    Outcome::Granted { granted, .. } => granted.leased.unwrap(),
                    Outcome::Rejected(Rejection::QuotaExceeded) => 0,
                    other => panic!("{other:?}"),
                }
            })
        })
        .collect();
    let mut leased = 0;
    for call in calls {
        leased += call.await.unwrap();
    }
    assert_eq!(leased, 40);
    assert_eq!(balance(&*ledger, "tok_CCCCCCCCCCCC").await, 0);
}
