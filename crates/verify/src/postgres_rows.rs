//! Rows and statements the PostgreSQL ledger shares with its group commit
//! ([`super::postgres_batch`]): `lp_tokens` rows as [`TokenRecord`]s, the
//! conditional decrement, conversions between the records' unsigned
//! counts and `bigint`, and which database errors are worth a retry.

use deadpool_postgres::{GenericClient, PoolError};
use tokio_postgres::error::SqlState;
use tokio_postgres::Row;

use super::ledger::StoreError;
use super::protocol::{Granted, RateLimit};
use super::record::TokenRecord;
use super::rules;
use crate::credential::TokenHash;

/// `SELECT`s of whole `lp_tokens` rows, the columns in the order [`token`]
/// reads them. Whole statements as constants: the dry run's lookup, on
/// the render nodes' cache-miss path, builds no string per call.
macro_rules! select_tokens {
    ($rest:literal) => {
        concat!(
            "SELECT hash, id, hint, account, balance, expires_at, rate_per_second, ",
            "rate_burst, revoked, banned, created_at, last_used_at, uncharged FROM lp_tokens ",
            $rest
        )
    };
}
pub(super) use select_tokens;

/// The conditional decrement; parameters: hash, count, now. The `WHERE`
/// is [`rules::check`] for a count of at least 1.
pub(super) const DEDUCT: &str = "WITH d AS (
        UPDATE lp_tokens SET balance = balance - $2, last_used_at = $3
        WHERE hash = $1 AND NOT revoked AND NOT banned
          AND (expires_at IS NULL OR expires_at > $3) AND balance >= $2
        RETURNING hash, balance, expires_at, rate_per_second, rate_burst
    ), u AS (
        INSERT INTO lp_usage (token_hash, at, count, balance)
        SELECT hash, $3, $2, balance FROM d
    )
    SELECT balance, expires_at, rate_per_second, rate_burst FROM d";

/// The token `hash`, if there is one (without usage).
pub(super) async fn select_token(
    client: &impl GenericClient,
    hash: &TokenHash,
) -> Result<Option<TokenRecord>, StoreError> {
    let statement = client
        .prepare_cached(select_tokens!("WHERE hash = $1"))
        .await
        .map_err(db)?;
    client
        .query_opt(&statement, &[&&hash.0[..]])
        .await
        .map_err(db)?
        .as_ref()
        .map(token)
        .transpose()
}

/// The 200 body from the decrement's `RETURNING`.
pub(super) fn granted(row: &Row, now: i64) -> Result<Granted, StoreError> {
    let expires_at: Option<i64> = row.get(1);
    Ok(rules::answer(
        to_u64(row.get(0))?,
        expires_at,
        rate_limit(row.get(2), row.get(3))?,
        now,
    ))
}

/// A token from a row of [`select_tokens`] (without usage).
pub(super) fn token(row: &Row) -> Result<TokenRecord, StoreError> {
    Ok(TokenRecord {
        id: row.get(1),
        hint: row.get(2),
        account: row.get(3),
        balance: to_u64(row.get(4))?,
        expires_at: row.get(5),
        rate_limit: rate_limit(row.get(6), row.get(7))?,
        revoked: row.get(8),
        banned: row.get(9),
        created_at: row.get(10),
        last_used_at: row.get(11),
        usage: Vec::new(),
        uncharged: to_u64(row.get(12))?,
        pending_key: None,
        // Read only where leases are judged (`PgLedger::lease_once`).
        lease_tat: 0,
    })
}

pub(super) fn rate_limit(
    per_second: Option<i64>,
    burst: Option<i64>,
) -> Result<Option<RateLimit>, StoreError> {
    let narrow = |v: i64| u32::try_from(v).map_err(|_| corrupt("rate limit", v));
    Ok(match (per_second, burst) {
        (Some(p), Some(b)) => Some(RateLimit {
            per_second: narrow(p)?,
            burst: narrow(b)?,
        }),
        _ => None,
    })
}

pub(super) fn rate_columns(rate_limit: Option<RateLimit>) -> (Option<i64>, Option<i64>) {
    match rate_limit {
        Some(r) => (Some(r.per_second.into()), Some(r.burst.into())),
        None => (None, None),
    }
}

pub(super) fn to_u64(v: i64) -> Result<u64, StoreError> {
    u64::try_from(v).map_err(|_| corrupt("count", v))
}

/// Balances are `bigint`: the admin API keeps them within
/// [`super::record::MAX_BALANCE`].
pub(super) fn to_i64(v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| StoreError::Database(format!("{v} is beyond a bigint")))
}

fn corrupt(what: &str, v: i64) -> StoreError {
    StoreError::Corrupt(format!("{what} {v} out of range"))
}

/// Connection-level failures (no SQLSTATE, or the classes of connection
/// exceptions, insufficient resources, operator intervention and
/// transaction rollback) can pass with a retry: unavailable. Anything else
/// is a statement the database refused.
pub(super) fn db(e: tokio_postgres::Error) -> StoreError {
    let retryable = match e.code() {
        None => true,
        Some(code) => {
            matches!(&code.code()[..2], "08" | "40" | "53" | "57")
                || *code == SqlState::LOCK_NOT_AVAILABLE
        }
    };
    // With its causes: a failed TLS handshake says why only in its source.
    let why = crate::postgres_pool::describe(&e);
    if retryable {
        StoreError::Unavailable(why)
    } else {
        StoreError::Database(why)
    }
}

pub(super) fn pool_error(e: PoolError) -> StoreError {
    match e {
        PoolError::Backend(e) => db(e),
        other => StoreError::Unavailable(other.to_string()),
    }
}
