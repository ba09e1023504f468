//! The verifier's ledger: tokens, balances, usage, bans and idempotency
//! answers, in one of two stores with the same behaviour.
//!
//! - [`Embedded`] (the default, no set-up): sled in `<data-dir>/verifier/`,
//!   one process. Each write is judged and applied by [`SledStore`]; an
//!   answer that wrote something waits for the group commit, whose flush
//!   ends with `fdatasync` ([`crate::synced_sled`]).
//! - [`PgLedger`] (`--database-url`): PostgreSQL, shared by any number of
//!   verifier nodes. Each operation is one statement or one transaction,
//!   durable when it commits (`synchronous_commit = on`; PostgreSQL groups
//!   concurrent commits into one WAL flush by itself).
//!
//! Every method returns once its writes are durable.

use std::sync::Arc;

use super::history::{Totals, UsageQuery};
use super::postgres::PgLedger;
use super::record::{BannedAccount, TokenRecord};
use super::rules;
use super::search::TokenQuery;
use super::store::{Deduction, Outcome, SledStore, StoreError, UpdateError};
use crate::credential::TokenHash;
use crate::group_commit::{Durable, GroupCommit, Linger};

pub enum Ledger {
    Embedded(Embedded),
    Postgres(PgLedger),
}

/// What [`Ledger::update`] applies to a token; an `Err` refuses the change.
pub type Change<'a> = &'a (dyn Fn(&mut TokenRecord) -> Result<(), String> + Sync);

/// The sled store and the group commit that makes its writes durable.
pub struct Embedded {
    store: Arc<SledStore>,
    commit: GroupCommit<SledStore>,
    /// Whether answers wait for the disk; off only for benchmark baselines
    /// (sled then syncs every 500 ms by itself).
    durable: bool,
}

/// The group commit flushes the store for waiting answers and forgets
/// expired idempotency answers about hourly.
impl Durable for SledStore {
    type Error = StoreError;

    fn flush(&self) -> Result<(), StoreError> {
        SledStore::flush(self)
    }

    fn upkeep(&self) {
        match self.prune_idempotency(crate::credential::now_ms() - rules::IDEMPOTENCY_TTL_MS) {
            Ok(n) if n > 0 => tracing::info!(pruned = n, "verifier: idempotency keys expired"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "verifier: idempotency pruning failed"),
        }
    }
}

impl Embedded {
    /// Opens (or creates) the store in `dir`.
    pub fn open(dir: &std::path::Path, durable: bool) -> Result<Embedded, StoreError> {
        let store = Arc::new(SledStore::open(dir, !durable)?);
        store.upkeep();
        let commit = GroupCommit::start("verify-flush", store.clone(), Linger::NONE)
            .map_err(|e| StoreError::Sled(e.into()))?;
        Ok(Embedded {
            store,
            commit,
            durable,
        })
    }

    /// Waits until every write so far is durable, when answers wait for it.
    async fn durable(&self) -> Result<(), StoreError> {
        if self.durable {
            self.commit.durable().await?;
        }
        Ok(())
    }

    /// The store's flushes that reached the disk so far.
    pub fn syncs(&self) -> u64 {
        self.store.syncs()
    }
}

impl Ledger {
    /// Steps 3 to 8 of [`super::rules`] and the deduction, atomically. A
    /// granted or replayed answer is durable when returned.
    pub async fn verify(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        match self {
            Ledger::Embedded(e) => {
                let outcome = e.store.verify(call)?;
                // A replay may come before the first call's write is synced.
                if matches!(
                    outcome,
                    Outcome::Granted { wrote: true, .. } | Outcome::Replayed(_)
                ) {
                    e.durable().await?;
                }
                Ok(outcome)
            }
            Ledger::Postgres(pg) => pg.verify(call).await,
        }
    }

    /// Adds a token (banned if its account is); `false` if its hash or id
    /// is taken (nothing written).
    pub async fn insert(&self, hash: &TokenHash, record: &TokenRecord) -> Result<bool, StoreError> {
        match self {
            Ledger::Embedded(e) => {
                let inserted = e.store.insert(hash, record)?;
                e.durable().await?;
                Ok(inserted)
            }
            Ledger::Postgres(pg) => pg.insert(hash, record).await,
        }
    }

    /// The token `id` with its recent usage.
    pub async fn get(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        match self {
            Ledger::Embedded(e) => e.store.get(id),
            Ledger::Postgres(pg) => pg.get(id).await,
        }
    }

    /// Applies `change` to the token `id` atomically and returns the result.
    pub async fn update(&self, id: &str, change: Change<'_>) -> Result<TokenRecord, UpdateError> {
        match self {
            Ledger::Embedded(e) => {
                let record = e.store.update(id, change)?;
                e.durable().await.map_err(UpdateError::Store)?;
                Ok(record)
            }
            Ledger::Postgres(pg) => pg.update(id, change).await,
        }
    }

    /// Every token, oldest first (without usage).
    pub async fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
        match self {
            Ledger::Embedded(e) => e.store.list(),
            Ledger::Postgres(pg) => pg.list().await,
        }
    }

    /// The tokens `query` matches at `now`: one page of them, oldest
    /// first (without usage), and how many match in all.
    pub async fn search(
        &self,
        query: &TokenQuery,
        now: i64,
    ) -> Result<(Vec<TokenRecord>, u64), StoreError> {
        match self {
            Ledger::Embedded(e) => e.store.search(query, now),
            Ledger::Postgres(pg) => pg.search(query, now).await,
        }
    }

    /// The usage `query` asks for, summed per bucket (only buckets with
    /// usage); `None` when it names a token that does not exist.
    pub async fn usage(&self, query: &UsageQuery) -> Result<Option<Vec<Totals>>, StoreError> {
        match self {
            Ledger::Embedded(e) => e.store.usage(query),
            Ledger::Postgres(pg) => pg.usage(query).await,
        }
    }

    /// The tokens with uncharged renders: the `limit` with the most (most
    /// first, then by id), and the total over every token.
    pub async fn uncharged(&self, limit: usize) -> Result<(Vec<(String, u64)>, u64), StoreError> {
        match self {
            Ledger::Embedded(e) => e.store.uncharged(limit),
            Ledger::Postgres(pg) => pg.uncharged(limit).await,
        }
    }

    /// Bans (at `now`) or unbans `account` and with it every one of its
    /// tokens.
    pub async fn set_banned(
        &self,
        account: &str,
        banned: bool,
        now: i64,
    ) -> Result<(), StoreError> {
        match self {
            Ledger::Embedded(e) => {
                e.store.set_banned(account, banned, now)?;
                e.durable().await
            }
            Ledger::Postgres(pg) => pg.set_banned(account, banned, now).await,
        }
    }

    /// The banned accounts, by name.
    pub async fn banned(&self) -> Result<Vec<BannedAccount>, StoreError> {
        match self {
            Ledger::Embedded(e) => e.store.banned(),
            Ledger::Postgres(pg) => pg.banned().await,
        }
    }

    /// Every write so far durable (graceful shutdown): the embedded store's
    /// last flush; PostgreSQL's commits already are.
    pub async fn flush(&self) -> Result<(), StoreError> {
        match self {
            Ledger::Embedded(e) => Ok(e.commit.durable().await?),
            Ledger::Postgres(_) => Ok(()),
        }
    }
}
