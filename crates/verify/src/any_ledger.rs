//! The ledger a service runs on, chosen at start: the embedded one or the
//! one on PostgreSQL. One type for both, so the service above is not
//! generic; it only forwards, the behaviour is the [`Ledger`] contract's.

use super::embedded::Embedded;
use super::history::{Totals, UsageQuery};
use super::ledger::{Change, Deduction, Ledger, Outcome, StoreError, UpdateError};
use super::postgres::PgLedger;
use super::record::{BannedAccount, TokenRecord};
use super::search::TokenQuery;
use crate::credential::TokenHash;

pub enum AnyLedger {
    Embedded(Embedded),
    Postgres(PgLedger),
}

/// `$call` on whichever ledger `$self` is, bound to `$ledger`.
macro_rules! forward {
    ($self:ident, $ledger:ident => $call:expr) => {
        match $self {
            AnyLedger::Embedded($ledger) => $call,
            AnyLedger::Postgres($ledger) => $call,
        }
    };
}

impl AnyLedger {
    /// The embedded ledger's flushes that reached the disk (`None` on
    /// PostgreSQL, whose commits are its own).
    pub fn syncs(&self) -> Option<u64> {
        match self {
            AnyLedger::Embedded(e) => Some(e.syncs()),
            AnyLedger::Postgres(_) => None,
        }
    }
}

impl Ledger for AnyLedger {
    async fn verify(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        forward!(self, l => l.verify(call).await)
    }

    async fn insert(&self, hash: &TokenHash, record: &TokenRecord) -> Result<bool, StoreError> {
        forward!(self, l => l.insert(hash, record).await)
    }

    async fn get(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        forward!(self, l => l.get(id).await)
    }

    async fn update(&self, id: &str, change: Change<'_>) -> Result<TokenRecord, UpdateError> {
        forward!(self, l => l.update(id, change).await)
    }

    async fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
        forward!(self, l => l.list().await)
    }

    async fn search(
        &self,
        query: &TokenQuery,
        now: i64,
    ) -> Result<(Vec<TokenRecord>, u64), StoreError> {
        forward!(self, l => l.search(query, now).await)
    }

    async fn usage(&self, query: &UsageQuery) -> Result<Option<Vec<Totals>>, StoreError> {
        forward!(self, l => l.usage(query).await)
    }

    async fn uncharged(&self, limit: usize) -> Result<(Vec<(String, u64)>, u64), StoreError> {
        forward!(self, l => l.uncharged(limit).await)
    }

    async fn set_banned(&self, account: &str, banned: bool, now: i64) -> Result<(), StoreError> {
        forward!(self, l => l.set_banned(account, banned, now).await)
    }

    async fn banned(&self) -> Result<Vec<BannedAccount>, StoreError> {
        forward!(self, l => l.banned().await)
    }

    async fn prune_idempotency(&self, now: i64) -> Result<u64, StoreError> {
        forward!(self, l => l.prune_idempotency(now).await)
    }

    async fn flush(&self) -> Result<(), StoreError> {
        forward!(self, l => l.flush().await)
    }
}
