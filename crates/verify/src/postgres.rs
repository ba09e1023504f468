//! The ledger on PostgreSQL (`--database-url`), shared by every verifier
//! node given the same database: a [`Ledger`]. Schema: `migrations/0001_ledger.sql` to
//! `migrations/0003_uncharged.sql` (`0004_templates.sql` is the stored
//! templates', the `labelpress` crate's `templates::postgres`), applied at start by [`super::migrations`].
//!
//! A deduction without an `Idempotency-Key` is one statement: a conditional
//! decrement of the token's row that checks revocation, the ban (copied
//! into the row, see [`TokenRecord::banned`]), expiry and the balance in
//! its `WHERE`, returns the new balance, and records the usage row in the
//! same statement. Concurrent deductions on one token queue on its row
//! lock and each re-checks the `WHERE` on the row as the previous one left
//! it, so exactly the balance is granted across any number of nodes. The
//! statements waiting at one moment on a node share one transaction and
//! one commit ([`super::postgres_batch`]).
//!
//! A keyed deduction is one transaction: the replay check, the same
//! decrement, and the answer inserted under the `(token, key)` primary key.
//! Two calls with one key racing on two nodes both decrement, but the
//! second's insert waits for the first to commit, finds its answer and
//! rolls back: one charge, and the retry replays the first answer. When
//! the first took the last units, the second's decrement matches nothing
//! once the row's lock is released; it then finds the first's answer and
//! replays it, rather than refusing a key that was deducted.
//!
//! An `uncharged=true` call is the same with an increment of the row's
//! `uncharged` column instead of the decrement, on any existing row.
//!
//! Connection problems (refused, lost, pool exhausted, a statement past
//! `ledger_timeout_ms`) are [`StoreError::Unavailable`], answered 503; the
//! pool replaces broken connections on the next call.

use std::time::Duration;

use deadpool_postgres::{GenericClient, Pool};
use tokio_postgres::Row;

use super::history::{Subject, Totals, UsageQuery};
use super::ledger::{
    lease_key, Change, Deduction, Ledger, Outcome, Purpose, StoreError, UpdateError,
};
use super::postgres_batch::{Applied, Batcher};
use super::postgres_gate::Gates;
use super::postgres_rows::{
    db, granted, pool_error, rate_columns, select_token, select_tokens, to_i64, to_u64, token,
    DEDUCT,
};
use super::protocol::{Granted, Rejection};
use super::record::{BannedAccount, IdempotencyRecord, TokenRecord, RECENT_USAGE};
use super::rules;
use super::search::TokenQuery;
use crate::credential::TokenHash;

/// How often a keyed deduction may lose a race for its key or a judged
/// rejection may turn out stale before the call gives up (503).
const MAX_ATTEMPTS: usize = 8;

/// The `WHERE` of a token search ([`TokenQuery::matches`] in SQL);
/// parameters: q (lowercased), account, status, now. `translate` lowercases
/// ASCII only, as the query's `q` is, whatever the database's locale.
const SEARCH_WHERE: &str = "WHERE ($1::text IS NULL
        OR strpos(translate(id, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), $1) > 0
        OR strpos(translate(account, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), $1) > 0)
      AND ($2::text IS NULL OR account = $2)
      AND ($3::text IS NULL OR $3 = CASE
            WHEN revoked THEN 'revoked'
            WHEN banned THEN 'banned'
            WHEN expires_at IS NOT NULL AND expires_at <= $4 THEN 'expired'
            WHEN balance = 0 THEN 'exhausted'
            ELSE 'active' END)";

/// How the ledger connects.
#[derive(Debug, Clone, Copy)]
pub struct PgOptions {
    /// Connections per node.
    pub connections: usize,
    /// The longest any one ledger operation (waiting for a connection
    /// included) may take before it is answered as unavailable.
    pub timeout: Duration,
}

pub struct PgLedger {
    pool: Pool,
    /// Plain deductions, committed in groups (see [`super::postgres_batch`]).
    batcher: Batcher,
    /// At most a few writes per token on a connection (see [`super::postgres_gate`]).
    gates: Gates,
    timeout: Duration,
}

impl PgLedger {
    /// Connects to `url` (`postgres://user:password@host:port/db`), brings the
    /// schema up to date and starts the hourly pruning of idempotency
    /// answers. Errors never quote the URL (it may hold a password).
    pub async fn connect(url: &str, options: PgOptions) -> Result<PgLedger, StoreError> {
        let pool = crate::postgres_pool::pool(url, options.connections, options.timeout)
            .map_err(StoreError::Database)?;
        let ledger = PgLedger {
            batcher: Batcher::start(pool.clone(), options.timeout),
            gates: Gates::default(),
            pool,
            timeout: options.timeout,
        };
        let mut client = ledger.pool.get().await.map_err(pool_error)?;
        let applied = super::migrations::run(&mut client)
            .await
            .map_err(|e| StoreError::Database(e.to_string()))?;
        if !applied.is_empty() {
            tracing::info!(?applied, "ledger: schema migrated");
        }
        drop(client);
        tokio::spawn(prune_hourly(ledger.pool.clone()));
        Ok(ledger)
    }

    /// Runs `op` within the ledger's timeout.
    async fn bounded<T>(
        &self,
        op: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        crate::postgres_pool::bounded(self.timeout, op, StoreError::Unavailable).await
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }

    /// Every check, no write: dry runs, bad bodies and counts beyond any
    /// balance. A keyed call among them is a replay first (rules, steps 3
    /// and 4, as in [`PgLedger::deduct_once`]): its count is held against
    /// the first call's before the ban or the expiry is judged.
    async fn judge(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        let client = self.client().await?;
        let record = select_token(&client, call.hash).await?;
        if let (Some(key), false) = (call.idempotency_key, call.dry_run) {
            if let Err(rejection) = rules::known(record.as_ref()) {
                return Ok(Outcome::Rejected(rejection));
            }
            if let Some(first) = first_answer(&client, call, key).await? {
                return Ok(Outcome::replay(first, call));
            }
        }
        Ok(match rules::check(record.as_ref(), call.count, call.now) {
            Ok(record) => Outcome::Granted {
                granted: rules::judged(record, call.now),
                wrote: false,
            },
            Err(rejection) => Outcome::Rejected(rejection),
        })
    }

    /// A plain deduction alone (the batch's fallback), in a transaction of
    /// its own: a call that runs out of time while it waits on the row is
    /// dropped, and the dropped transaction rolls back, so a call answered
    /// 503 was not applied later behind the caller's back.
    async fn deduct(&self, call: &Deduction<'_>, count: i64) -> Result<Outcome, StoreError> {
        let _turn = self.gates.turn(call.hash).await;
        let mut client = self.client().await?;
        let deduct = client.prepare_cached(DEDUCT).await.map_err(db)?;
        for _ in 0..MAX_ATTEMPTS {
            let tx = client.transaction().await.map_err(db)?;
            let row = tx
                .query_opt(&deduct, &[&&call.hash.0[..], &count, &call.now])
                .await
                .map_err(db)?;
            if let Some(row) = row {
                let granted = granted(&row, call.now)?;
                tx.commit().await.map_err(db)?;
                return Ok(Outcome::Granted {
                    granted,
                    wrote: true,
                });
            }
            let rejection = why_not(&tx, call).await?;
            tx.rollback().await.map_err(db)?;
            if let Some(rejection) = rejection {
                return Ok(Outcome::Rejected(rejection));
            }
            // A top-up or an unban landed between the two statements.
        }
        Err(contended())
    }

    async fn deduct_once(
        &self,
        call: &Deduction<'_>,
        count: i64,
        key: &str,
    ) -> Result<Outcome, StoreError> {
        let _turn = self.gates.turn(call.hash).await;
        let mut client = self.client().await?;
        let deduct = client.prepare_cached(DEDUCT).await.map_err(db)?;
        let hash = &call.hash.0[..];
        for _ in 0..MAX_ATTEMPTS {
            let tx = client.transaction().await.map_err(db)?;
            // Revocation comes before any replay (rules, step 3).
            let record = select_token(&tx, call.hash).await?;
            if let Err(rejection) = rules::known(record.as_ref()) {
                return Ok(Outcome::Rejected(rejection));
            }
            if let Some(first) = first_answer(&tx, call, key).await? {
                return Ok(Outcome::replay(first, call));
            }
            let Some(row) = tx
                .query_opt(&deduct, &[&hash, &count, &call.now])
                .await
                .map_err(db)?
            else {
                // A twin call with this key may have taken the last units
                // while this one waited on the row: its answer, committed
                // when the row's lock was released, is this key's answer.
                // (Each statement reads what committed before it began.)
                if let Some(first) = first_answer(&tx, call, key).await? {
                    return Ok(Outcome::replay(first, call));
                }
                match why_not(&tx, call).await? {
                    Some(rejection) => return Ok(Outcome::Rejected(rejection)),
                    None => continue,
                }
            };
            let granted = granted(&row, call.now)?;
            if let Some(outcome) = commit_first(tx, call, key, granted).await? {
                return Ok(outcome);
            }
        }
        Err(contended())
    }

    /// A lease or a return, in one transaction that holds the token's row:
    /// the replay check, [`rules::lease`] (against the row's rate state)
    /// or [`rules::give_back`] (against the lease's answer under the same
    /// key), the new balance, and the answer under `key` (as stored).
    async fn lease_once(&self, call: &Deduction<'_>, key: &str) -> Result<Outcome, StoreError> {
        const HOLD: &str = concat!(
            "SELECT hash, id, hint, account, balance, expires_at, rate_per_second, ",
            "rate_burst, revoked, banned, created_at, last_used_at, uncharged, lease_tat ",
            "FROM lp_tokens WHERE hash = $1 FOR UPDATE"
        );
        let _turn = self.gates.turn(call.hash).await;
        let mut client = self.client().await?;
        let hash = &call.hash.0[..];
        for _ in 0..MAX_ATTEMPTS {
            let tx = client.transaction().await.map_err(db)?;
            let row = tx.query_opt(HOLD, &[&hash]).await.map_err(db)?;
            let record = row
                .as_ref()
                .map(|row| {
                    token(row).map(|record| TokenRecord {
                        lease_tat: row.get(13),
                        ..record
                    })
                })
                .transpose()?;
            let known = match call.purpose {
                Purpose::GiveBack => rules::exists(record.as_ref()),
                _ => rules::known(record.as_ref()),
            };
            if let Err(rejection) = known {
                return Ok(Outcome::Rejected(rejection));
            }
            if let Some(first) = first_answer(&tx, call, key).await? {
                return Ok(Outcome::replay(first, call));
            }
            let granted = match call.purpose {
                Purpose::GiveBack => {
                    let lease = match call.idempotency_key {
                        Some(lease) => first_answer(&tx, call, &lease_key(lease)).await?,
                        None => None,
                    };
                    let leased = lease.and_then(|first| first.granted.leased);
                    let mut record = match rules::give_back(record.as_ref(), call.count, leased) {
                        Ok(record) => record.clone(),
                        Err(rejection) => return Ok(Outcome::Rejected(rejection)),
                    };
                    tx.execute(
                        "UPDATE lp_tokens SET balance = balance + $2 WHERE hash = $1",
                        &[&hash, &to_i64(call.count)?],
                    )
                    .await
                    .map_err(db)?;
                    record.give_back(call.count);
                    rules::given_back(&record, call.count, call.now)
                }
                _ => {
                    let (record, lease) = match rules::lease(record.as_ref(), call.count, call.now)
                    {
                        Ok(judged) => judged,
                        Err(rejection) => return Ok(Outcome::Rejected(rejection)),
                    };
                    if lease.units == 0 {
                        return Ok(Outcome::Granted {
                            granted: rules::leased(record, &lease, call.now),
                            wrote: false,
                        });
                    }
                    let mut record = record.clone();
                    record.deduct(lease.units, call.now);
                    record.lease_tat = lease.tat;
                    tx.execute(
                        "WITH d AS (
                             UPDATE lp_tokens SET balance = balance - $2, last_used_at = $3,
                                                  lease_tat = $4
                             WHERE hash = $1 RETURNING hash, balance)
                         INSERT INTO lp_usage (token_hash, at, count, balance)
                         SELECT hash, $3, $2, balance FROM d",
                        &[&hash, &to_i64(lease.units)?, &call.now, &lease.tat],
                    )
                    .await
                    .map_err(db)?;
                    rules::leased(&record, &lease, call.now)
                }
            };
            if let Some(outcome) = commit_first(tx, call, key, granted).await? {
                return Ok(outcome);
            }
        }
        Err(contended())
    }

    /// An `uncharged=true` call: the row's `uncharged` grown by `count` on
    /// any existing token, in one statement, or with a key in one
    /// transaction with its answer (as [`PgLedger::deduct_once`]).
    async fn record_uncharged(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        let Ok(count) = i64::try_from(call.count) else {
            return Ok(Outcome::Rejected(Rejection::BadRequest));
        };
        if count == 0 {
            // A bad body: refused after the token's existence, as a deduction's.
            let client = self.client().await?;
            let record = select_token(&client, call.hash).await?;
            return Ok(Outcome::Rejected(
                rules::exists(record.as_ref()).map_or_else(|r| r, |_| Rejection::BadRequest),
            ));
        }
        const ADD: &str = concat!(
            "UPDATE lp_tokens SET uncharged = uncharged + $2 WHERE hash = $1 RETURNING ",
            "hash, id, hint, account, balance, expires_at, rate_per_second, ",
            "rate_burst, revoked, banned, created_at, last_used_at, uncharged"
        );
        let hash = &call.hash.0[..];
        let _turn = self.gates.turn(call.hash).await;
        let mut client = self.client().await?;
        let Some(key) = call.idempotency_key else {
            let row = client.query_opt(ADD, &[&hash, &count]).await.map_err(db)?;
            return Ok(match row {
                Some(row) => Outcome::Granted {
                    granted: rules::recorded(&token(&row)?, call.now),
                    wrote: true,
                },
                None => Outcome::Rejected(Rejection::InvalidToken),
            });
        };
        for _ in 0..MAX_ATTEMPTS {
            let tx = client.transaction().await.map_err(db)?;
            if let Some(first) = first_answer(&tx, call, key).await? {
                return Ok(Outcome::replay(first, call));
            }
            let Some(row) = tx.query_opt(ADD, &[&hash, &count]).await.map_err(db)? else {
                return Ok(Outcome::Rejected(Rejection::InvalidToken));
            };
            let granted = rules::recorded(&token(&row)?, call.now);
            if let Some(outcome) = commit_first(tx, call, key, granted).await? {
                return Ok(outcome);
            }
        }
        Err(contended())
    }
}

impl Ledger for PgLedger {
    async fn verify(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        self.bounded(async {
            if call.purpose != Purpose::Charge {
                return match call.stored_key() {
                    Some(key) if !call.dry_run && !call.uncharged => {
                        self.lease_once(call, &key).await
                    }
                    _ => Ok(Outcome::Rejected(Rejection::BadRequest)),
                };
            }
            if call.uncharged && !call.dry_run {
                return self.record_uncharged(call).await;
            }
            // A count beyond any balance (all fit a bigint) is judged
            // without writing: it is refused, at the latest as over quota.
            let count = match i64::try_from(call.count) {
                Ok(count) if !call.dry_run && count > 0 => count,
                _ => return self.judge(call).await,
            };
            let Some(key) = call.idempotency_key else {
                if self.gates.is_slow(call.hash) {
                    return self.deduct(call, count).await;
                }
                return match self.batcher.deduct(call.hash, count, call.now).await? {
                    Applied::Granted(granted) => Ok(Outcome::Granted {
                        granted,
                        wrote: true,
                    }),
                    Applied::Rejected(rejection) => Ok(Outcome::Rejected(rejection)),
                    Applied::Retry => self.deduct(call, count).await,
                    Applied::HeldUp => {
                        self.gates.mark_slow(call.hash);
                        self.deduct(call, count).await
                    }
                };
            };
            self.deduct_once(call, count, key).await
        })
        .await
    }

    async fn insert(&self, hash: &TokenHash, record: &TokenRecord) -> Result<bool, StoreError> {
        self.bounded(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db)?;
            // The account's row, share-locked: a ban of the account waits for
            // this insert (and then bans the new token too), or this insert
            // waits for the ban and copies it.
            tx.execute(
                "INSERT INTO lp_accounts (name) VALUES ($1) ON CONFLICT DO NOTHING",
                &[&record.account],
            )
            .await
            .map_err(db)?;
            let banned: bool = tx
                .query_one(
                    "SELECT banned FROM lp_accounts WHERE name = $1 FOR SHARE",
                    &[&record.account],
                )
                .await
                .map_err(db)?
                .get(0);
            let (rate_per_second, rate_burst) = rate_columns(record.rate_limit);
            let inserted = tx
                .query_opt(
                    "INSERT INTO lp_tokens (hash, id, hint, account, balance, expires_at,
                         rate_per_second, rate_burst, revoked, banned, created_at, last_used_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                     ON CONFLICT DO NOTHING RETURNING 1",
                    &[
                        &&hash.0[..],
                        &record.id,
                        &record.hint,
                        &record.account,
                        &to_i64(record.balance)?,
                        &record.expires_at,
                        &rate_per_second,
                        &rate_burst,
                        &record.revoked,
                        &banned,
                        &record.created_at,
                        &record.last_used_at,
                    ],
                )
                .await
                .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(inserted.is_some())
        })
        .await
    }

    async fn get(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        self.bounded(async {
            let client = self.client().await?;
            let row = client
                .query_opt(select_tokens!("WHERE id = $1"), &[&id])
                .await
                .map_err(db)?;
            let Some(row) = row else { return Ok(None) };
            let mut record = token(&row)?;
            let usage = client
                .query(
                    "SELECT at, count, balance FROM lp_usage WHERE token_hash = $1
                     ORDER BY seq DESC LIMIT $2",
                    &[&row.get::<_, &[u8]>(0), &(RECENT_USAGE as i64)],
                )
                .await
                .map_err(db)?;
            // Oldest first, as the embedded record keeps them.
            for row in usage.iter().rev() {
                record
                    .usage
                    .push((row.get(0), to_u64(row.get(1))?, to_u64(row.get(2))?));
            }
            Ok(Some(record))
        })
        .await
    }

    async fn update(&self, id: &str, change: Change<'_>) -> Result<TokenRecord, UpdateError> {
        let op = async {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db)?;
            let row = tx
                .query_opt(select_tokens!("WHERE id = $1 FOR UPDATE"), &[&id])
                .await
                .map_err(db)?;
            let Some(row) = row else {
                return Ok(Err(UpdateError::NotFound));
            };
            let mut record = token(&row)?;
            if let Err(refused) = change(&mut record) {
                return Ok(Err(UpdateError::Refused(refused)));
            }
            // The fields an admin change may touch.
            tx.execute(
                "UPDATE lp_tokens SET balance = $2, expires_at = $3, revoked = $4 WHERE id = $1",
                &[
                    &id,
                    &to_i64(record.balance)?,
                    &record.expires_at,
                    &record.revoked,
                ],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)?;
            Ok(Ok(record))
        };
        self.bounded(op).await?
    }

    async fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
        self.bounded(async {
            let client = self.client().await?;
            client
                .query(select_tokens!("ORDER BY created_at, id"), &[])
                .await
                .map_err(db)?
                .iter()
                .map(token)
                .collect()
        })
        .await
    }

    /// One page of the tokens `query` matches at `now`, and their number.
    async fn search(
        &self,
        query: &TokenQuery,
        now: i64,
    ) -> Result<(Vec<TokenRecord>, u64), StoreError> {
        self.bounded(async {
            let client = self.client().await?;
            let limit = i64::try_from(query.limit).unwrap_or(i64::MAX);
            let offset = i64::try_from(query.offset).unwrap_or(i64::MAX);
            let filter: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
                [&query.q, &query.account, &query.status, &now];
            let total: i64 = client
                .query_one(&format!("SELECT count(*) FROM lp_tokens {SEARCH_WHERE}"), &filter)
                .await
                .map_err(db)?
                .get(0);
            let page = client
                .query(
                    &format!(
                        "{} {SEARCH_WHERE} ORDER BY created_at, id COLLATE \"C\" LIMIT $5 OFFSET $6",
                        select_tokens!("")
                    ),
                    &[filter[0], filter[1], filter[2], filter[3], &limit, &offset],
                )
                .await
                .map_err(db)?
                .iter()
                .map(token)
                .collect::<Result<_, _>>()?;
            Ok((page, to_u64(total)?))
        })
        .await
    }

    /// The usage rows of the token or account in the query's range,
    /// summed per bucket; `None` for an unknown token.
    async fn usage(&self, query: &UsageQuery) -> Result<Option<Vec<Totals>>, StoreError> {
        self.bounded(async {
            let client = self.client().await?;
            // `at` is never negative (the query's range starts at 1970 or
            // later), so integer division rounds down to the bucket start.
            let (tokens, name) = match &query.subject {
                Subject::Token(id) => {
                    let known = client
                        .query_opt("SELECT 1 FROM lp_tokens WHERE id = $1", &[id])
                        .await
                        .map_err(db)?;
                    if known.is_none() {
                        return Ok(None);
                    }
                    ("SELECT hash FROM lp_tokens WHERE id = $1", id)
                }
                Subject::Account(account) => {
                    ("SELECT hash FROM lp_tokens WHERE account = $1", account)
                }
            };
            let rows = client
                .query(
                    &format!(
                        "SELECT at / $4 * $4 AS start, count(*), sum(count)::bigint
                         FROM lp_usage WHERE token_hash IN ({tokens})
                           AND at >= $2 AND at < $3
                         GROUP BY 1 ORDER BY 1"
                    ),
                    &[name, &query.from, &query.to, &query.bucket.ms()],
                )
                .await
                .map_err(db)?;
            let totals = rows
                .iter()
                .map(|row| Ok((row.get(0), to_u64(row.get(1))?, to_u64(row.get(2))?)))
                .collect::<Result<_, StoreError>>()?;
            Ok(Some(totals))
        })
        .await
    }

    /// The tokens with uncharged renders: the `limit` with the most (most
    /// first, then by id), and the total over every token.
    async fn uncharged(&self, limit: usize) -> Result<(Vec<(String, u64)>, u64), StoreError> {
        self.bounded(async {
            let client = self.client().await?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let top = client
                .query(
                    "SELECT id, uncharged FROM lp_tokens WHERE uncharged > 0
                     ORDER BY uncharged DESC, id COLLATE \"C\" LIMIT $1",
                    &[&limit],
                )
                .await
                .map_err(db)?
                .iter()
                .map(|row| Ok((row.get(0), to_u64(row.get(1))?)))
                .collect::<Result<_, StoreError>>()?;
            let total: i64 = client
                .query_one(
                    "SELECT coalesce(sum(uncharged), 0)::bigint FROM lp_tokens WHERE uncharged > 0",
                    &[],
                )
                .await
                .map_err(db)?
                .get(0);
            Ok((top, to_u64(total)?))
        })
        .await
    }

    /// Bans (at `now`, unless already banned: the first time stays) or
    /// unbans `account` and every token of it.
    async fn set_banned(&self, account: &str, banned: bool, now: i64) -> Result<(), StoreError> {
        self.bounded(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db)?;
            let banned_at = banned.then_some(now);
            tx.execute(
                "INSERT INTO lp_accounts (name, banned, banned_at) VALUES ($1, $2, $3)
                 ON CONFLICT (name) DO UPDATE SET banned = EXCLUDED.banned,
                   banned_at = CASE WHEN NOT EXCLUDED.banned THEN NULL
                                    WHEN lp_accounts.banned THEN lp_accounts.banned_at
                                    ELSE EXCLUDED.banned_at END",
                &[&account, &banned, &banned_at],
            )
            .await
            .map_err(db)?;
            tx.execute(
                "UPDATE lp_tokens SET banned = $2 WHERE account = $1 AND banned <> $2",
                &[&account, &banned],
            )
            .await
            .map_err(db)?;
            tx.commit().await.map_err(db)
        })
        .await
    }

    /// The banned accounts, by name.
    async fn banned(&self) -> Result<Vec<BannedAccount>, StoreError> {
        self.bounded(async {
            let client = self.client().await?;
            Ok(client
                .query(
                    "SELECT name, banned_at FROM lp_accounts WHERE banned ORDER BY name COLLATE \"C\"",
                    &[],
                )
                .await
                .map_err(db)?
                .iter()
                .map(|row| BannedAccount {
                    account: row.get(0),
                    banned_at: row.get(1),
                })
                .collect())
        })
        .await
    }

    async fn prune_idempotency(&self, now: i64) -> Result<u64, StoreError> {
        self.bounded(async {
            let client = self.client().await?;
            prune(&client, now).await
        })
        .await
    }

    /// PostgreSQL's commits are durable already.
    async fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Forgets idempotency answers past their 24 hours, about hourly, as long
/// as the pool lives.
async fn prune_hourly(pool: Pool) {
    let mut every = tokio::time::interval(Duration::from_secs(3600));
    loop {
        every.tick().await;
        let pruned = match pool.get().await {
            Ok(client) => prune(&client, crate::credential::now_ms()).await,
            Err(e) => Err(pool_error(e)),
        };
        match pruned {
            Ok(n) if n > 0 => tracing::info!(pruned = n, "ledger: idempotency keys expired"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "ledger: idempotency pruning failed"),
        }
    }
}

/// Deletes the idempotency answers no longer fresh at `now`; how many.
async fn prune(client: &impl GenericClient, now: i64) -> Result<u64, StoreError> {
    client
        .execute(
            "DELETE FROM lp_idempotency WHERE at <= $1",
            &[&(now - rules::IDEMPOTENCY_TTL_MS)],
        )
        .await
        .map_err(db)
}

/// Why the decrement matched no row, judged on the row as it is now;
/// `None` when it would pass now (changed in between: try again).
async fn why_not(
    client: &impl GenericClient,
    call: &Deduction<'_>,
) -> Result<Option<Rejection>, StoreError> {
    let record = select_token(client, call.hash).await?;
    Ok(rules::check(record.as_ref(), call.count, call.now).err())
}

/// The first answer under `key` for the call's token, if fresh.
async fn first_answer(
    client: &impl GenericClient,
    call: &Deduction<'_>,
    key: &str,
) -> Result<Option<IdempotencyRecord>, StoreError> {
    let row = client
        .query_opt(
            "SELECT at, count, granted, uncharged FROM lp_idempotency
             WHERE token_hash = $1 AND key = $2 AND at > $3",
            &[
                &&call.hash.0[..],
                &key,
                &(call.now - rules::IDEMPOTENCY_TTL_MS),
            ],
        )
        .await
        .map_err(db)?;
    row.as_ref().map(idempotency_record).transpose()
}

/// Keeps `granted` as the first answer under `key` and commits: the call's
/// outcome. `None` when a racing call with the key committed its answer
/// first: this transaction is rolled back, and the caller's next attempt
/// replays that answer.
async fn commit_first(
    tx: deadpool_postgres::Transaction<'_>,
    call: &Deduction<'_>,
    key: &str,
    granted: Granted,
) -> Result<Option<Outcome>, StoreError> {
    if remember(&tx, call, key, &granted).await? {
        tx.commit().await.map_err(db)?;
        return Ok(Some(Outcome::Granted {
            granted,
            wrote: true,
        }));
    }
    tx.rollback().await.map_err(db)?;
    Ok(None)
}

/// Keeps `granted` as the first answer under `key`; `false` when a racing
/// call committed one first (then the caller rolls back and replays it).
/// A stale answer (older than the TTL) under the key is replaced.
async fn remember(
    client: &impl GenericClient,
    call: &Deduction<'_>,
    key: &str,
    granted: &Granted,
) -> Result<bool, StoreError> {
    let answer = serde_json::to_string(granted).unwrap_or_default();
    let count = to_i64(call.count)?;
    let recorded = client
        .query_opt(
            "INSERT INTO lp_idempotency (token_hash, key, at, count, granted, uncharged)
             VALUES ($1, $2, $3, $4, $5, $7)
             ON CONFLICT (token_hash, key) DO UPDATE
               SET at = EXCLUDED.at, count = EXCLUDED.count, granted = EXCLUDED.granted,
                   uncharged = EXCLUDED.uncharged
               WHERE lp_idempotency.at <= $3 - $6
             RETURNING 1",
            &[
                &&call.hash.0[..],
                &key,
                &call.now,
                &count,
                &answer,
                &rules::IDEMPOTENCY_TTL_MS,
                &call.uncharged,
            ],
        )
        .await
        .map_err(db)?;
    Ok(recorded.is_some())
}

fn idempotency_record(row: &Row) -> Result<IdempotencyRecord, StoreError> {
    Ok(IdempotencyRecord {
        at: row.get(0),
        count: to_u64(row.get(1))?,
        granted: serde_json::from_str(row.get(2))
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
        uncharged: row.get(3),
    })
}

fn contended() -> StoreError {
    StoreError::Unavailable("the token kept changing under the call; retry".into())
}
