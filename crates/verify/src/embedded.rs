//! The embedded ledger (the default, no set-up): the sled store of
//! [`super::store`] in `<data-dir>/verifier/`, one process, behind a group
//! commit. Each write is judged and applied by [`SledStore`]; an answer
//! that wrote something waits for the group commit, whose flush ends with
//! `fdatasync` ([`crate::synced_sled`]). So it keeps the [`Ledger`]
//! promise that every method returns once its writes are durable.

use std::sync::Arc;

use super::history::{Totals, UsageQuery};
use super::ledger::{Change, Deduction, Ledger, Outcome, StoreError, UpdateError};
use super::record::{BannedAccount, TokenRecord};
use super::search::TokenQuery;
use super::store::SledStore;
use crate::credential::TokenHash;
use crate::group_commit::{Durable, GroupCommit, Linger};

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
        match self.prune_idempotency(crate::credential::now_ms()) {
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

impl Ledger for Embedded {
    async fn verify(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        let outcome = self.store.verify(call)?;
        // A replay may come before the first call's write is synced.
        if matches!(
            outcome,
            Outcome::Granted { wrote: true, .. } | Outcome::Replayed(_)
        ) {
            self.durable().await?;
        }
        Ok(outcome)
    }

    async fn insert(&self, hash: &TokenHash, record: &TokenRecord) -> Result<bool, StoreError> {
        let inserted = self.store.insert(hash, record)?;
        self.durable().await?;
        Ok(inserted)
    }

    async fn get(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        self.store.get(id)
    }

    async fn update(&self, id: &str, change: Change<'_>) -> Result<TokenRecord, UpdateError> {
        let record = self.store.update(id, change)?;
        self.durable().await?;
        Ok(record)
    }

    async fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
        self.store.list()
    }

    async fn search(
        &self,
        query: &TokenQuery,
        now: i64,
    ) -> Result<(Vec<TokenRecord>, u64), StoreError> {
        self.store.search(query, now)
    }

    async fn usage(&self, query: &UsageQuery) -> Result<Option<Vec<Totals>>, StoreError> {
        self.store.usage(query)
    }

    async fn uncharged(&self, limit: usize) -> Result<(Vec<(String, u64)>, u64), StoreError> {
        self.store.uncharged(limit)
    }

    async fn set_banned(&self, account: &str, banned: bool, now: i64) -> Result<(), StoreError> {
        self.store.set_banned(account, banned, now)?;
        self.durable().await
    }

    async fn banned(&self) -> Result<Vec<BannedAccount>, StoreError> {
        self.store.banned()
    }

    async fn prune_idempotency(&self, now: i64) -> Result<u64, StoreError> {
        let pruned = self.store.prune_idempotency(now)?;
        self.durable().await?;
        Ok(pruned)
    }

    /// The group commit's flush, whether or not answers wait for it.
    async fn flush(&self) -> Result<(), StoreError> {
        Ok(self.commit.durable().await?)
    }
}
