//! The ledger contract: what a store of tokens, balances, usage, bans and
//! idempotency answers does, stated once as the [`Ledger`] trait, and the
//! types it speaks ([`Deduction`], [`Outcome`], [`Change`] and the errors).
//!
//! Two stores implement it with the same behaviour: the embedded one (sled
//! behind a group commit, one process) and the one on PostgreSQL (shared
//! by any number of verifier nodes). The service, the admin operations and
//! the tests see only this trait; `tests/suite/ledger_contract.rs` runs
//! every behaviour below against both.
//!
//! This module sits below both stores: it imports the records, the rules
//! and the query values, never a store.

use std::future::Future;

use super::history::{Totals, UsageQuery};
pub use super::protocol::Purpose;
use super::protocol::{Granted, Rejection};
use super::record::{BannedAccount, IdempotencyRecord, TokenRecord};
use super::search::TokenQuery;
use crate::credential::TokenHash;
use crate::group_commit::NotDurable;
use crate::synced_sled::FlushError;

/// A ledger, either store. Every method returns once its writes are
/// durable (for the embedded store: after the group commit's `fdatasync`;
/// for PostgreSQL: after the commit, `synchronous_commit = on`).
///
/// Orders are byte orders (ids and account names compare as bytes, never
/// by a locale), and times are Unix milliseconds the caller passes in, so
/// a store never reads the clock itself.
pub trait Ledger: Send + Sync {
    /// Steps 3 to 8 of [`super::rules`] and the deduction, in one atomic
    /// step: concurrent calls never spend the same units twice.
    ///
    /// - A dry run checks everything and writes nothing (`wrote: false`).
    /// - With an idempotency key, the first answer given for that key on
    ///   that token within [`super::rules::IDEMPOTENCY_TTL_MS`] is replayed
    ///   ([`Outcome::Replayed`]) and charged once, even when calls with the
    ///   key race; a replay of another count or kind is a bad request. Only
    ///   granted answers are kept, and a revoked (or unknown) token gets no
    ///   replay.
    /// - With `uncharged`, any existing token (revoked, banned, expired or
    ///   exhausted alike) has its uncharged total grown by `count`; nothing
    ///   is deducted and the usage history does not count it.
    fn verify(
        &self,
        call: &Deduction<'_>,
    ) -> impl Future<Output = Result<Outcome, StoreError>> + Send;

    /// Adds a token, banned if its account is (a ban racing the insert
    /// included); `false` if its hash or its id is taken (nothing written).
    /// The record's usage and uncharged total start empty.
    fn insert(
        &self,
        hash: &TokenHash,
        record: &TokenRecord,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// The token `id` with its last [`super::record::RECENT_USAGE`]
    /// deductions, oldest first.
    fn get(&self, id: &str)
        -> impl Future<Output = Result<Option<TokenRecord>, StoreError>> + Send;

    /// Applies `change` to the token `id` atomically and returns the
    /// result. A change may touch the balance, the expiry and the
    /// revocation (what the admin operations change); nothing else is
    /// kept by every store.
    fn update(
        &self,
        id: &str,
        change: Change<'_>,
    ) -> impl Future<Output = Result<TokenRecord, UpdateError>> + Send;

    /// Every token, oldest first, then by id (usage may be left out).
    fn list(&self) -> impl Future<Output = Result<Vec<TokenRecord>, StoreError>> + Send;

    /// The tokens `query` matches at `now` ([`TokenQuery::matches`]): one
    /// page of them in the order of [`Ledger::list`], and how many match
    /// in all.
    fn search(
        &self,
        query: &TokenQuery,
        now: i64,
    ) -> impl Future<Output = Result<(Vec<TokenRecord>, u64), StoreError>> + Send;

    /// The deductions `query` asks for, summed per bucket: only buckets
    /// with usage, oldest first. `None` when it names a token that does
    /// not exist; an account without usage is an empty list.
    fn usage(
        &self,
        query: &UsageQuery,
    ) -> impl Future<Output = Result<Option<Vec<Totals>>, StoreError>> + Send;

    /// The tokens with uncharged renders: the `limit` with the most (most
    /// first, then by id), and the total over every token.
    fn uncharged(
        &self,
        limit: usize,
    ) -> impl Future<Output = Result<(Vec<(String, u64)>, u64), StoreError>> + Send;

    /// Bans (at `now`, unless already banned: the first ban's time stays)
    /// or unbans `account` and with it every one of its tokens. An account
    /// without tokens can be banned ahead of time.
    fn set_banned(
        &self,
        account: &str,
        banned: bool,
        now: i64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// The banned accounts, by name.
    fn banned(&self) -> impl Future<Output = Result<Vec<BannedAccount>, StoreError>> + Send;

    /// Forgets the idempotency answers no longer fresh at `now` (given
    /// [`super::rules::IDEMPOTENCY_TTL_MS`] or longer ago); how many.
    /// Both stores call it about hourly by themselves.
    fn prune_idempotency(&self, now: i64) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Every write so far durable (graceful shutdown).
    fn flush(&self) -> impl Future<Output = Result<(), StoreError>> + Send;
}

/// A verification as the ledger sees it (the token already well formed).
#[derive(Debug, Clone)]
pub struct Deduction<'a> {
    pub hash: &'a TokenHash,
    /// 0 stands for a body that was not `{"count": integer >= 1}`.
    pub count: u64,
    pub dry_run: bool,
    /// Ignored for dry runs, which change nothing.
    pub idempotency_key: Option<&'a str>,
    pub now: i64,
    /// Record `count` uncharged renders instead of deducting
    /// ([`super::rules::exists`], [`TokenRecord::uncharged`]).
    pub uncharged: bool,
    /// A lease or a return ([`Purpose`]); both come with a key.
    pub purpose: Purpose,
}

impl Deduction<'_> {
    /// The key the call's first answer is kept under: a lease's and a
    /// return's in their own namespaces (a space, which a client's key
    /// never holds, after the kind), so neither can replay a deduction
    /// nor the other.
    pub fn stored_key(&self) -> Option<String> {
        let key = self.idempotency_key?;
        Some(match self.purpose {
            Purpose::Charge => key.to_string(),
            Purpose::Lease => lease_key(key),
            Purpose::GiveBack => format!("return {key}"),
        })
    }
}

/// Where the lease taken with `key` keeps its answer.
pub fn lease_key(key: &str) -> String {
    format!("lease {key}")
}

/// What a verification did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Checked and, unless a dry run, deducted (`wrote`).
    Granted {
        granted: Granted,
        wrote: bool,
    },
    /// The first answer for this idempotency key, deducted then.
    Replayed(Granted),
    Rejected(Rejection),
}

impl Outcome {
    /// The first answer again, if the count and kind match the first call's.
    pub fn replay(first: IdempotencyRecord, call: &Deduction<'_>) -> Outcome {
        match first.replay(call.count, call.uncharged) {
            Ok(granted) => Outcome::Replayed(granted),
            Err(rejection) => Outcome::Rejected(rejection),
        }
    }
}

/// What [`Ledger::update`] applies to a token; an `Err` refuses the change.
pub type Change<'a> = &'a (dyn Fn(&mut TokenRecord) -> Result<(), String> + Sync);

/// Why a ledger could not answer. The variants of one store never come
/// from the other; [`StoreError::is_unavailable`] is what callers branch on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("token store: {0}")]
    Sled(#[from] sled::Error),
    #[error("token store: {0}")]
    Flush(#[from] FlushError),
    #[error("token store: unreadable record: {0}")]
    Corrupt(String),
    #[error(transparent)]
    NotDurable(#[from] NotDurable),
    /// The ledger's database cannot be reached now (connection lost,
    /// refused, pool exhausted): the caller may retry, answered 503.
    #[error("ledger unavailable: {0}")]
    Unavailable(String),
    /// The database refused a statement for another reason.
    #[error("ledger: {0}")]
    Database(String),
}

impl StoreError {
    /// Whether a retry later may succeed (a 503, not a 500).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

/// Why an admin change to a token did not happen.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error("no such token")]
    NotFound,
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}
