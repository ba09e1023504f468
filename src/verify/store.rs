//! Token storage: the [`TokenStore`] trait and its sled implementation.
//!
//! Layout of the sled database in `<data-dir>/verifier/` (values are JSON):
//! - `tokens`: SHA-256 of the secret (32 bytes) -> [`TokenRecord`]
//! - `token_ids`: token id -> SHA-256 of the secret
//! - `accounts`: account name -> [`AccountRecord`]
//! - `idempotency`: SHA-256 of the secret ++ key -> [`IdempotencyRecord`]
//!   (scoped by token so one client cannot replay another's answer)
//!
//! A deduction is atomic: without an idempotency key it is a
//! compare-and-swap loop on the token's record (re-read and re-checked when
//! another call got there first); with one, a sled transaction over the
//! record and the key's answer, so both are written or neither. Either way
//! a balance never goes below zero and concurrent calls never spend the
//! same units twice. Dry runs only read. Writes are durable only after
//! [`TokenStore::flush`]; the caller batches those (see [`super::commit`]).

use std::collections::HashSet;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;
use sled::transaction::{abort, ConflictableTransactionError, TransactionError, TransactionalTree};
use sled::Transactional;

use super::protocol::{Granted, Rejection};
use super::record::{AccountRecord, IdempotencyRecord, TokenRecord};
use super::rules;
use super::secret::TokenHash;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("token store: {0}")]
    Sled(#[from] sled::Error),
    #[error("token store: unreadable record: {0}")]
    Corrupt(String),
}

/// A verification as the store sees it (the token already well formed).
#[derive(Debug, Clone)]
pub struct Deduction<'a> {
    pub hash: &'a TokenHash,
    /// 0 stands for a body that was not `{"count": integer >= 1}`.
    pub count: u64,
    pub dry_run: bool,
    /// Ignored for dry runs, which change nothing.
    pub idempotency_key: Option<&'a str>,
    pub now: i64,
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

/// Where tokens, accounts and idempotency answers live. Implementations
/// make each method atomic; durability comes from [`TokenStore::flush`].
pub trait TokenStore: Send + Sync + 'static {
    /// Steps 3 to 8 of [`super::rules`] and the deduction, atomically.
    fn verify(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError>;
    /// Adds a token; `false` if its hash or id is taken (nothing written).
    fn insert(&self, hash: &TokenHash, record: &TokenRecord) -> Result<bool, StoreError>;
    fn get(&self, id: &str) -> Result<Option<TokenRecord>, StoreError>;
    /// Applies `change` to the token `id` atomically and returns the result.
    fn update(
        &self,
        id: &str,
        change: &(dyn Fn(&mut TokenRecord) -> Result<(), String> + Sync),
    ) -> Result<TokenRecord, UpdateError>;
    /// Every token, oldest first.
    fn list(&self) -> Result<Vec<TokenRecord>, StoreError>;
    fn banned_accounts(&self) -> Result<HashSet<String>, StoreError>;
    fn set_banned(&self, account: &str, banned: bool) -> Result<(), StoreError>;
    /// Forgets idempotency answers given before `before` (Unix ms).
    fn prune_idempotency(&self, before: i64) -> Result<usize, StoreError>;
    /// Blocks until every write made before the call is on disk.
    fn flush(&self) -> Result<(), StoreError>;
}

/// The sled store.
pub struct SledStore {
    db: sled::Db,
    tokens: sled::Tree,
    ids: sled::Tree,
    accounts: sled::Tree,
    idempotency: sled::Tree,
}

/// Why a transaction stopped on purpose.
enum Stop {
    Rejected(Rejection),
    Corrupt(String),
    NotFound,
    Refused(String),
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising these plain structs to JSON cannot fail.
    serde_json::to_vec(value).unwrap_or_default()
}

fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Stop> {
    serde_json::from_slice(bytes).map_err(|e| Stop::Corrupt(e.to_string()))
}

fn idempotency_key(hash: &TokenHash, key: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(32 + key.len());
    k.extend_from_slice(&hash.0);
    k.extend_from_slice(key.as_bytes());
    k
}

fn is_banned(
    accounts: &TransactionalTree,
    account: &str,
) -> Result<bool, ConflictableTransactionError<Stop>> {
    match accounts.get(account.as_bytes())? {
        Some(v) => Ok(decode::<AccountRecord>(&v)
            .map_err(ConflictableTransactionError::Abort)?
            .banned),
        None => Ok(false),
    }
}

fn tx_error(e: TransactionError<Stop>) -> UpdateError {
    match e {
        TransactionError::Abort(Stop::NotFound) => UpdateError::NotFound,
        TransactionError::Abort(Stop::Refused(m)) => UpdateError::Refused(m),
        TransactionError::Abort(Stop::Corrupt(m)) => UpdateError::Store(StoreError::Corrupt(m)),
        TransactionError::Abort(Stop::Rejected(r)) => UpdateError::Refused(r.error().to_string()),
        TransactionError::Storage(e) => UpdateError::Store(e.into()),
    }
}

impl SledStore {
    /// Opens (or creates) the store in `dir`. With `periodic_flush` off, only
    /// [`TokenStore::flush`] writes to disk, so durability is the caller's.
    pub fn open(dir: &Path, periodic_flush: bool) -> Result<SledStore, StoreError> {
        let db = sled::Config::new()
            .path(dir)
            .flush_every_ms(if periodic_flush { Some(500) } else { None })
            .open()?;
        Ok(SledStore {
            tokens: db.open_tree("tokens")?,
            ids: db.open_tree("token_ids")?,
            accounts: db.open_tree("accounts")?,
            idempotency: db.open_tree("idempotency")?,
            db,
        })
    }
}

impl SledStore {
    /// The record's bytes (for compare-and-swap), the record, and whether
    /// its account is banned.
    fn load(&self, hash: &TokenHash) -> Result<Loaded, StoreError> {
        let corrupt = |e: serde_json::Error| StoreError::Corrupt(e.to_string());
        let bytes = self.tokens.get(hash.0)?;
        let record: Option<TokenRecord> = match &bytes {
            Some(v) => Some(serde_json::from_slice(v).map_err(corrupt)?),
            None => None,
        };
        let banned = match &record {
            Some(r) => match self.accounts.get(r.account.as_bytes())? {
                Some(v) => {
                    serde_json::from_slice::<AccountRecord>(&v)
                        .map_err(corrupt)?
                        .banned
                }
                None => false,
            },
            None => false,
        };
        Ok(Loaded {
            bytes,
            record,
            banned,
        })
    }

    /// Every check, no write.
    fn dry_run(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        let loaded = self.load(call.hash)?;
        Ok(
            match rules::check(loaded.record.as_ref(), loaded.banned, call.count, call.now) {
                Ok(record) => Outcome::Granted {
                    granted: rules::granted(record, call.now),
                    wrote: false,
                },
                Err(rejection) => Outcome::Rejected(rejection),
            },
        )
    }

    /// The hot path: check and deduct with compare-and-swap on the record,
    /// so calls do not queue on a lock and the log gets one small write.
    /// The ban is read beside the record: a ban racing a call may land just
    /// after it, as if it had come a moment later.
    fn deduct(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        loop {
            let loaded = self.load(call.hash)?;
            let mut record =
                match rules::check(loaded.record.as_ref(), loaded.banned, call.count, call.now) {
                    Ok(r) => r.clone(),
                    Err(rejection) => return Ok(Outcome::Rejected(rejection)),
                };
            record.deduct(call.count, call.now);
            let swapped = self.tokens.compare_and_swap(
                call.hash.0,
                loaded.bytes.as_ref(),
                Some(encode(&record)),
            )?;
            if swapped.is_ok() {
                return Ok(Outcome::Granted {
                    granted: rules::granted(&record, call.now),
                    wrote: true,
                });
            }
            // Another call changed the record since it was read: judge again.
        }
    }

    /// A deduction with an idempotency key: the key's first answer and the
    /// deduction are one transaction, written together or not at all.
    fn deduct_once(&self, call: &Deduction<'_>, key: &[u8]) -> Result<Outcome, StoreError> {
        let result = (&self.tokens, &self.accounts, &self.idempotency).transaction(
            |(tokens, accounts, idempotency)| {
                let abort_on = ConflictableTransactionError::Abort;
                if let Some(v) = idempotency.get(key)? {
                    let first: IdempotencyRecord = decode(&v).map_err(abort_on)?;
                    if call.now - first.at < rules::IDEMPOTENCY_TTL_MS {
                        if first.count != call.count {
                            return abort(Stop::Rejected(Rejection::BadRequest));
                        }
                        return Ok(Outcome::Replayed(first.granted));
                    }
                }
                let record: Option<TokenRecord> = match tokens.get(call.hash.0)? {
                    Some(v) => Some(decode(&v).map_err(abort_on)?),
                    None => None,
                };
                let banned = match &record {
                    Some(r) => is_banned(accounts, &r.account)?,
                    None => false,
                };
                let mut record = match rules::check(record.as_ref(), banned, call.count, call.now) {
                    Ok(r) => r.clone(),
                    Err(rejection) => return abort(Stop::Rejected(rejection)),
                };
                record.deduct(call.count, call.now);
                let granted = rules::granted(&record, call.now);
                tokens.insert(&call.hash.0, encode(&record))?;
                let first = IdempotencyRecord {
                    at: call.now,
                    count: call.count,
                    granted: granted.clone(),
                };
                idempotency.insert(key, encode(&first))?;
                Ok(Outcome::Granted {
                    granted,
                    wrote: true,
                })
            },
        );
        match result {
            Ok(outcome) => Ok(outcome),
            Err(TransactionError::Abort(Stop::Rejected(r))) => Ok(Outcome::Rejected(r)),
            Err(TransactionError::Abort(Stop::Corrupt(m))) => Err(StoreError::Corrupt(m)),
            Err(TransactionError::Abort(Stop::NotFound | Stop::Refused(_))) => {
                Err(StoreError::Corrupt("unexpected stop".into()))
            }
            Err(TransactionError::Storage(e)) => Err(e.into()),
        }
    }
}

struct Loaded {
    bytes: Option<sled::IVec>,
    record: Option<TokenRecord>,
    banned: bool,
}

impl TokenStore for SledStore {
    fn verify(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        if call.dry_run {
            return self.dry_run(call);
        }
        match call.idempotency_key {
            Some(key) => self.deduct_once(call, &idempotency_key(call.hash, key)),
            None => self.deduct(call),
        }
    }

    fn insert(&self, hash: &TokenHash, record: &TokenRecord) -> Result<bool, StoreError> {
        let result = (&self.tokens, &self.ids).transaction(|(tokens, ids)| {
            if tokens.get(hash.0)?.is_some() || ids.get(record.id.as_bytes())?.is_some() {
                return Ok(false);
            }
            tokens.insert(&hash.0, encode(record))?;
            ids.insert(record.id.as_bytes(), &hash.0)?;
            Ok(true)
        });
        result.map_err(|e: TransactionError<Stop>| match tx_error(e) {
            UpdateError::Store(e) => e,
            other => StoreError::Corrupt(other.to_string()),
        })
    }

    fn get(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        let Some(hash) = self.ids.get(id.as_bytes())? else {
            return Ok(None);
        };
        match self.tokens.get(hash)? {
            Some(v) => serde_json::from_slice(&v)
                .map(Some)
                .map_err(|e| StoreError::Corrupt(e.to_string())),
            None => Ok(None),
        }
    }

    fn update(
        &self,
        id: &str,
        change: &(dyn Fn(&mut TokenRecord) -> Result<(), String> + Sync),
    ) -> Result<TokenRecord, UpdateError> {
        let result = (&self.tokens, &self.ids).transaction(|(tokens, ids)| {
            let Some(hash) = ids.get(id.as_bytes())? else {
                return abort(Stop::NotFound);
            };
            let Some(v) = tokens.get(&hash)? else {
                return abort(Stop::NotFound);
            };
            let mut record: TokenRecord =
                decode(&v).map_err(ConflictableTransactionError::Abort)?;
            if let Err(m) = change(&mut record) {
                return abort(Stop::Refused(m));
            }
            tokens.insert(&hash, encode(&record))?;
            Ok(record)
        });
        result.map_err(tx_error)
    }

    fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
        let mut all = self
            .tokens
            .iter()
            .values()
            .map(|v| {
                serde_json::from_slice::<TokenRecord>(&v?)
                    .map_err(|e| StoreError::Corrupt(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        all.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(all)
    }

    fn banned_accounts(&self) -> Result<HashSet<String>, StoreError> {
        let mut banned = HashSet::new();
        for item in self.accounts.iter() {
            let (k, v) = item?;
            let record: AccountRecord =
                serde_json::from_slice(&v).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            if record.banned {
                banned.insert(String::from_utf8_lossy(&k).into_owned());
            }
        }
        Ok(banned)
    }

    fn set_banned(&self, account: &str, banned: bool) -> Result<(), StoreError> {
        self.accounts
            .insert(account.as_bytes(), encode(&AccountRecord { banned }))?;
        Ok(())
    }

    fn prune_idempotency(&self, before: i64) -> Result<usize, StoreError> {
        let mut pruned = 0;
        for item in self.idempotency.iter() {
            let (k, v) = item?;
            let stale = serde_json::from_slice::<IdempotencyRecord>(&v)
                .map(|r| r.at < before)
                .unwrap_or(true);
            // Compare-and-swap so an answer rewritten meanwhile survives.
            if stale
                && self
                    .idempotency
                    .compare_and_swap(&k, Some(&v), None::<&[u8]>)?
                    .is_ok()
            {
                pruned += 1;
            }
        }
        Ok(pruned)
    }

    fn flush(&self) -> Result<(), StoreError> {
        self.db.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(balance: u64) -> TokenRecord {
        TokenRecord {
            id: "tok_AAAAAAAAAAAA".into(),
            hint: "lp_AAAAA".into(),
            account: "acme".into(),
            balance,
            expires_at: None,
            rate_limit: None,
            revoked: false,
            created_at: 0,
            last_used_at: None,
            usage: vec![],
        }
    }

    /// Compare-and-swap and transactions on one record, from many threads:
    /// exactly the balance is granted, whatever the interleaving.
    #[test]
    fn racing_deductions_grant_exactly_the_balance() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), false).unwrap();
        let hash = TokenHash::of("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV");
        assert!(store.insert(&hash, &record(300)).unwrap());
        let granted: usize = std::thread::scope(|s| {
            let workers: Vec<_> = (0..6)
                .map(|t| {
                    let (store, hash) = (&store, &hash);
                    s.spawn(move || {
                        (0..100)
                            .filter(|i| {
                                let key = format!("{t}-{i}");
                                let call = Deduction {
                                    hash,
                                    count: 1,
                                    dry_run: false,
                                    // Half the threads take the transaction path.
                                    idempotency_key: (t % 2 == 0).then_some(key.as_str()),
                                    now: 1,
                                };
                                matches!(store.verify(&call).unwrap(), Outcome::Granted { .. })
                            })
                            .count()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).sum()
        });
        assert_eq!(granted, 300);
        let left = store.get("tok_AAAAAAAAAAAA").unwrap().unwrap();
        assert_eq!(left.balance, 0);
        assert_eq!(left.usage.len(), crate::verify::record::RECENT_USAGE);
    }
}
