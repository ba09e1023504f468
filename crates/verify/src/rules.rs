//! The verification rules as pure functions of a token record and the
//! clock, so the store applies them inside one atomic step
//! (compare-and-swap or transaction) and tests can pin them without a store.
//!
//! Order of checks for `POST /v1/verify` (first failure answers):
//! 1. `Authorization` absent or not a bearer token: 401 Missing Token.
//! 2. Token not of the form `lp_` + 32 base62: 403 Invalid Token (no lookup).
//!    (Over HTTP, a `dry_run` that is not true/false or an `Idempotency-Key`
//!    that is not 1 to 255 visible ASCII characters is 400 before this step.)
//! 3. Unknown or revoked: 403 Invalid Token. Before any replay: a revoked
//!    token's stored answers are never given again.
//! 4. An `Idempotency-Key` already answered for this token within 24 h: that
//!    first answer again (400 if the count differs).
//! 5. Account banned: 403 Banned.
//! 6. Past `expires_at`: 403 Token Expired.
//! 7. Body not `{"count": integer >= 1}` (empty body = 1): 400 Bad Request.
//!    The token is judged before the body, as on the render route.
//! 8. `count` above the balance: 403 Quota Exceeded, nothing deducted.
//!
//! A dry run goes through every check and deducts nothing.
//!
//! An `uncharged=true` call (renders delivered that the verifier refused to
//! charge at report time) only needs step 3's first half: the token must
//! exist. Revoked, banned, expired or exhausted, its uncharged total grows
//! by `count` and nothing is deducted; a replayed key answers as in step 4,
//! and so does the key of a deduction of the same count, even on a revoked
//! token: those renders were charged (see [`super::record::IdempotencyRecord::replay`]).

use super::protocol::{Granted, RateLimit, Rejection};
use super::record::TokenRecord;

/// How long an idempotency key's first answer is kept.
pub const IDEMPOTENCY_TTL_MS: i64 = 24 * 60 * 60 * 1000;

/// A lease takes at most this fraction of the balance (at least one
/// unit), so that when the balance runs low, the nodes of a fleet each
/// hold a small part of it rather than one node all of it.
pub const LEASE_SHARE: u64 = 4;

/// What a lease call grants: `units` (at most what was asked for), the
/// token's rate state after it, and with 0 units how long until one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leased {
    pub units: u64,
    /// The rate limit's theoretical arrival time after the lease
    /// ([`TokenRecord::lease_tat`]).
    pub tat: i64,
    pub retry_after_ms: u64,
}

/// Steps 3 and 5 to 8 for one unit, then how many of the `want` units a
/// lease gets: at most [`LEASE_SHARE`] of the balance, and within the
/// token's rate limit, which leases draw from as a GCRA (a bucket of
/// `burst` units refilled at `per_second`) whose state the ledger keeps
/// with the token ([`TokenRecord::lease_tat`]). So the units leased by
/// every node together, and with them the renders, keep to the rate: over
/// any window of `t` seconds at most `burst + per_second * t`. Returns the
/// record judged with the lease.
pub fn lease(
    record: Option<&TokenRecord>,
    want: u64,
    now: i64,
) -> Result<(&TokenRecord, Leased), Rejection> {
    // A `want` of 0 stands for a bad body, refused after the token's checks.
    let record = check(record, want.min(1), now)?;
    let tat = record.lease_tat;
    let share = (record.balance / LEASE_SHARE).max(1);
    let want = want.min(share);
    let Some(rate) = record.rate_limit.filter(|r| r.per_second > 0) else {
        let leased = Leased {
            units: want,
            tat,
            retry_after_ms: 0,
        };
        return Ok((record, leased));
    };
    let interval = 1000.0 / f64::from(rate.per_second);
    let burst = f64::from(rate.burst.max(1)) * interval;
    let start = tat.max(now) as f64;
    let allowed = ((now as f64 + burst - start) / interval).floor().max(0.0) as u64;
    let units = want.min(allowed);
    if units == 0 {
        let wait = (start - burst + interval - now as f64).ceil().max(1.0);
        let leased = Leased {
            units: 0,
            tat,
            retry_after_ms: wait as u64,
        };
        return Ok((record, leased));
    }
    let leased = Leased {
        units,
        tat: (start + units as f64 * interval).ceil() as i64,
        retry_after_ms: 0,
    };
    Ok((record, leased))
}

/// The 200 body of a lease: the token after the deduction, its account
/// (as a dry run's: a lease is how a fleet's render nodes learn it), the
/// units granted and, with none, when to ask again.
pub fn leased(record: &TokenRecord, leased: &Leased, now: i64) -> Granted {
    Granted {
        leased: Some(leased.units),
        retry_after_ms: (leased.units == 0).then_some(leased.retry_after_ms),
        ..judged(record, now)
    }
}

/// A return of `unused` units of a lease that granted `leased`: the
/// token must exist (revoked or not: the units were paid for), and no
/// more comes back than the lease took.
pub fn give_back(
    record: Option<&TokenRecord>,
    unused: u64,
    leased: Option<u64>,
) -> Result<&TokenRecord, Rejection> {
    let record = exists(record)?;
    match leased {
        Some(leased) if (1..=leased).contains(&unused) => Ok(record),
        _ => Err(Rejection::BadRequest),
    }
}

/// The 200 body of a return: the token after it and the units given back.
pub fn given_back(record: &TokenRecord, unused: u64, now: i64) -> Granted {
    Granted {
        returned: Some(unused),
        ..granted(record, now)
    }
}

/// Step 3 of the order above: the record of a known, unrevoked token.
pub fn known(record: Option<&TokenRecord>) -> Result<&TokenRecord, Rejection> {
    match record {
        Some(r) if !r.revoked => Ok(r),
        _ => Err(Rejection::InvalidToken),
    }
}

/// What an `uncharged=true` call needs: the record of a token that exists,
/// in whatever state.
pub fn exists(record: Option<&TokenRecord>) -> Result<&TokenRecord, Rejection> {
    record.ok_or(Rejection::InvalidToken)
}

/// The 200 body of an `uncharged=true` call: the token as it is, and its
/// uncharged total after the call.
pub fn recorded(record: &TokenRecord, now: i64) -> Granted {
    Granted {
        uncharged: Some(record.uncharged),
        ..granted(record, now)
    }
}

/// Steps 3 and 5 to 8 of the order above; a `count` of 0 stands for a body
/// that was not `{"count": integer >= 1}`. The ban is read from the record
/// ([`TokenRecord::banned`]), so it is judged in the same atomic step as
/// the deduction.
pub fn check(
    record: Option<&TokenRecord>,
    count: u64,
    now: i64,
) -> Result<&TokenRecord, Rejection> {
    let record = known(record)?;
    if record.banned {
        return Err(Rejection::Banned);
    }
    if expired(record, now) {
        return Err(Rejection::TokenExpired);
    }
    if count == 0 {
        return Err(Rejection::BadRequest);
    }
    if count > record.balance {
        return Err(Rejection::QuotaExceeded);
    }
    Ok(record)
}

pub fn expired(record: &TokenRecord, now: i64) -> bool {
    record.expires_at.is_some_and(|at| now >= at)
}

/// The 200 body for a record (after any deduction).
pub fn granted(record: &TokenRecord, now: i64) -> Granted {
    answer(record.balance, record.expires_at, record.rate_limit, now)
}

/// The 200 body of a dry run: [`granted`] with the token's account (the
/// extension render nodes file stored templates under; they ask by dry
/// run). Deductions answer without it on every store alike.
pub fn judged(record: &TokenRecord, now: i64) -> Granted {
    Granted {
        account: Some(record.account.clone()),
        ..granted(record, now)
    }
}

/// The 200 body for a token's balance (after any deduction), expiry and
/// rate limit.
pub fn answer(
    balance: u64,
    expires_at: Option<i64>,
    rate_limit: Option<RateLimit>,
    now: i64,
) -> Granted {
    Granted {
        status: "ok".to_string(),
        balance,
        expires_at,
        remaining: remaining(expires_at, now),
        rate_limit,
        uncharged: None,
        account: None,
        leased: None,
        retry_after_ms: None,
        returned: None,
    }
}

/// Time left until `expires_at` as an ISO 8601 duration with days, hours and
/// minutes always present (`P29DT23H59M`, `P0DT0H0M` under a minute), or
/// `"unlimited"`. Rounded down: a client never believes in time it lacks.
pub fn remaining(expires_at: Option<i64>, now: i64) -> String {
    let Some(at) = expires_at else {
        return "unlimited".to_string();
    };
    let minutes = at.saturating_sub(now).max(0) / 60_000;
    format!(
        "P{}DT{}H{}M",
        minutes / (24 * 60),
        minutes / 60 % 24,
        minutes % 60
    )
}

/// The status the admin views show, most final first.
pub fn status(record: &TokenRecord, now: i64) -> &'static str {
    if record.revoked {
        "revoked"
    } else if record.banned {
        "banned"
    } else if expired(record, now) {
        "expired"
    } else if record.balance == 0 {
        "exhausted"
    } else {
        "active"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(balance: u64, expires_at: Option<i64>) -> TokenRecord {
        TokenRecord {
            expires_at,
            ..TokenRecord::sample(balance)
        }
    }

    #[test]
    fn remaining_is_days_hours_minutes_rounded_down() {
        let day = 86_400_000;
        assert_eq!(remaining(Some(30 * day - 1), 0), "P29DT23H59M");
        assert_eq!(remaining(Some(30 * day), 0), "P30DT0H0M");
        assert_eq!(remaining(Some(90 * 60_000 + 59_999), 0), "P0DT1H30M");
        assert_eq!(remaining(Some(59_999), 0), "P0DT0H0M");
        assert_eq!(remaining(Some(5), 10), "P0DT0H0M");
        assert_eq!(remaining(None, 10), "unlimited");
    }

    fn banned(mut r: TokenRecord) -> TokenRecord {
        r.banned = true;
        r
    }

    #[test]
    fn checks_run_revoked_then_banned_then_expired_then_quota() {
        let mut r = banned(record(0, Some(10)));
        r.revoked = true;
        assert_eq!(check(Some(&r), 1, 20), Err(Rejection::InvalidToken));
        r.revoked = false;
        assert_eq!(check(Some(&r), 1, 20), Err(Rejection::Banned));
        r.banned = false;
        assert_eq!(check(Some(&r), 1, 20), Err(Rejection::TokenExpired));
        assert_eq!(check(Some(&r), 1, 5), Err(Rejection::QuotaExceeded));
        assert_eq!(check(None, 1, 5), Err(Rejection::InvalidToken));
        assert_eq!(check(Some(&r), 0, 5), Err(Rejection::BadRequest));
        let r = record(3, None);
        assert_eq!(check(Some(&r), 3, 5), Ok(&r));
        assert_eq!(check(Some(&r), 4, 5), Err(Rejection::QuotaExceeded));
    }

    #[test]
    fn expiry_is_inclusive_of_its_instant() {
        let r = record(1, Some(100));
        assert_eq!(check(Some(&r), 1, 99), Ok(&r));
        assert_eq!(check(Some(&r), 1, 100), Err(Rejection::TokenExpired));
    }

    #[test]
    fn status_reports_the_most_final_state() {
        let r = record(0, Some(10));
        assert_eq!(status(&r, 20), "expired");
        assert_eq!(status(&r, 5), "exhausted");
        let mut r = banned(r);
        assert_eq!(status(&r, 5), "banned");
        r.revoked = true;
        assert_eq!(status(&r, 5), "revoked");
        assert_eq!(status(&record(1, None), 5), "active");
    }

    #[test]
    fn recent_usage_is_bounded_and_newest_first() {
        let mut r = record(100, None);
        for i in 0..30 {
            r.deduct(1, i);
        }
        let usage = r.recent_usage();
        assert_eq!(usage.len(), crate::record::RECENT_USAGE);
        assert_eq!((usage[0].at, usage[0].balance), (29, 70));
        assert_eq!((r.balance, r.last_used_at), (70, Some(29)));
    }
}
