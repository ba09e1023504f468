//! The sled store of the embedded ledger: tokens, accounts and idempotency
//! answers, each write judged and applied atomically. It speaks the types
//! of the ledger contract ([`super::ledger`]); the embedded ledger puts the
//! group commit around it, which makes it a [`super::ledger::Ledger`].
//!
//! Layout of the sled database in `<data-dir>/verifier/` (values are JSON):
//! - `tokens`: SHA-256 of the secret (32 bytes) -> [`TokenRecord`]
//! - `token_ids`: token id -> SHA-256 of the secret
//! - `accounts`: account name -> [`AccountRecord`]
//! - `idempotency`: SHA-256 of the secret ++ key -> [`IdempotencyRecord`]
//!   (scoped by token so one client cannot replay another's answer)
//! - `usage`: account ++ `0x00` ++ the UTC hour (big-endian, sign bit
//!   flipped so keys sort by time) ++ token id -> that token's deductions
//!   and units in that hour (two big-endian `u64`). The usage history for
//!   `GET /admin/api/usage`: an account's range of hours is one range scan
//!   of its prefix, a token's the same scan keeping its own keys, whatever
//!   else the ledger holds. One key per token and hour, not one per token
//!   and one per account, and deductions are summed in memory and added to
//!   the tree when the store flushes ([`SledStore::count_usage`]): the
//!   verification path pays no write for the history. An account never
//!   contains `0x00` (control characters are refused), so one account's
//!   keys never run into another's.
//! - `meta`: `usage_history` once the hourly totals were filled from the
//!   records' recent usage (stores older than the history)
//!
//! Every change to a token is a compare-and-swap loop on its record: read,
//! check, write only if the record is still what was read, else judge
//! again. So a balance never goes below zero and concurrent calls never
//! spend the same units twice. A ban is copied into every record of the
//! account ([`TokenRecord::banned`]) for the same reason: a deduction
//! judged before a ban cannot be written after it. No sled transactions: sled runs them under a
//! global lock that its own flush holds for the whole disk sync, so each
//! one would wait for a sync and hold up every other call meanwhile.
//!
//! A deduction with an `Idempotency-Key` writes its answer twice: into the
//! record (in the same compare-and-swap as the deduction, see
//! [`TokenRecord::pending_key`]) and then into `idempotency`. Keyed calls on
//! one token take turns (a striped lock), so a record's pending key is only
//! replaced by the next keyed call, which first makes sure its answer
//! reached `idempotency`. A crash between the two writes therefore loses no
//! answer, and a key is never charged twice.
//!
//! Writes are durable only after [`SledStore::flush`] (sled's flush and an
//! `fdatasync`, [`crate::synced_sled`]); the caller batches those (the
//! embedded ledger's group commit).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::history::{Subject, Totals, UsageQuery, HOUR_MS};
use super::ledger::{lease_key, Change, Deduction, Outcome, Purpose, StoreError, UpdateError};
use super::protocol::{Granted, Rejection};
use super::record::{AccountRecord, BannedAccount, IdempotencyRecord, PendingKey, TokenRecord};
use super::rules;
use super::search::TokenQuery;
use crate::credential::TokenHash;
use crate::synced_sled::SyncedSled;

/// Stripes of the lock keyed calls take per token.
const KEY_LOCKS: usize = 64;

/// The sled store.
pub struct SledStore {
    db: SyncedSled,
    tokens: sled::Tree,
    ids: sled::Tree,
    accounts: sled::Tree,
    idempotency: sled::Tree,
    usage: sled::Tree,
    /// Usage counted since the last write of the totals, by `usage` key:
    /// (deductions, units). See [`SledStore::count_usage`].
    pending_usage: Mutex<HashMap<Vec<u8>, (u64, u64)>>,
    meta: sled::Tree,
    key_locks: [Mutex<()>; KEY_LOCKS],
}

/// The `meta` key set once the usage history was filled (see the module doc).
const USAGE_HISTORY: &[u8] = b"usage_history";

/// The key of the hourly total of token `id` of `account` for the hour
/// holding `at`; without an id, where the account's keys for that hour
/// start.
fn usage_key(account: &str, at: i64, id: &str) -> Vec<u8> {
    let hour = at.div_euclid(HOUR_MS);
    let mut key = Vec::with_capacity(account.len() + 9 + id.len());
    key.extend_from_slice(account.as_bytes());
    key.push(0);
    key.extend_from_slice(&((hour as u64) ^ (1 << 63)).to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

/// The hour's start (Unix milliseconds) and the token id of a [`usage_key`]
/// of `account`.
fn usage_key_parts<'k>(key: &'k [u8], account: &str) -> Option<(i64, &'k [u8])> {
    let rest = key.get(account.len() + 1..)?;
    let bytes: [u8; 8] = rest.get(..8)?.try_into().ok()?;
    let hour = (u64::from_be_bytes(bytes) ^ (1 << 63)) as i64;
    Some((hour.saturating_mul(HOUR_MS), &rest[8..]))
}

/// An hourly total: (deductions, units).
fn decode_totals(bytes: &[u8]) -> Result<(u64, u64), StoreError> {
    let (a, b) = bytes
        .split_at_checked(8)
        .filter(|(_, b)| b.len() == 8)
        .ok_or_else(|| StoreError::Corrupt("usage total of the wrong length".into()))?;
    let n = |x: &[u8]| u64::from_be_bytes(x.try_into().unwrap_or_default());
    Ok((n(a), n(b)))
}

fn encode_totals(deductions: u64, units: u64) -> Vec<u8> {
    let mut v = deductions.to_be_bytes().to_vec();
    v.extend_from_slice(&units.to_be_bytes());
    v
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising these plain structs to JSON cannot fail.
    serde_json::to_vec(value).unwrap_or_default()
}

fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, StoreError> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn idempotency_key(hash: &TokenHash, key: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(32 + key.len());
    k.extend_from_slice(&hash.0);
    k.extend_from_slice(key.as_bytes());
    k
}

fn fresh(first: &IdempotencyRecord, now: i64) -> bool {
    now - first.at < rules::IDEMPOTENCY_TTL_MS
}

/// What a (not dry) call makes of the record as read: the record to write
/// and the answer, or why not; `None` for the record when the call writes
/// nothing (a lease of 0 units). A deduction ([`rules::check`]), with
/// `uncharged` the uncharged total grown by `count` on any existing token,
/// a lease ([`rules::lease`]) or a return of a lease that granted
/// `leased` ([`rules::give_back`]).
fn judge(
    record: Option<&TokenRecord>,
    call: &Deduction<'_>,
    leased: Option<u64>,
) -> Result<(Option<TokenRecord>, Granted), Rejection> {
    match call.purpose {
        Purpose::Lease => {
            let (record, lease) = rules::lease(record, call.count, call.now)?;
            if lease.units == 0 {
                return Ok((None, rules::leased(record, &lease, call.now)));
            }
            let mut record = record.clone();
            record.deduct(lease.units, call.now);
            record.lease_tat = lease.tat;
            let granted = rules::leased(&record, &lease, call.now);
            return Ok((Some(record), granted));
        }
        Purpose::GiveBack => {
            let mut record = rules::give_back(record, call.count, leased)?.clone();
            record.give_back(call.count);
            let granted = rules::given_back(&record, call.count, call.now);
            return Ok((Some(record), granted));
        }
        Purpose::Charge => {}
    }
    if call.uncharged {
        let mut record = rules::exists(record)?.clone();
        if call.count == 0 {
            return Err(Rejection::BadRequest);
        }
        record.add_uncharged(call.count);
        let granted = rules::recorded(&record, call.now);
        return Ok((Some(record), granted));
    }
    let mut record = rules::check(record, call.count, call.now)?.clone();
    record.deduct(call.count, call.now);
    let granted = rules::granted(&record, call.now);
    Ok((Some(record), granted))
}

struct Loaded {
    bytes: Option<sled::IVec>,
    record: Option<TokenRecord>,
}

impl SledStore {
    /// Opens (or creates) the store in `dir`. With `periodic_flush` off, only
    /// [`SledStore::flush`] writes to disk, so durability is the caller's.
    pub fn open(dir: &Path, periodic_flush: bool) -> Result<SledStore, StoreError> {
        let config = sled::Config::new()
            .path(dir)
            .flush_every_ms(if periodic_flush { Some(500) } else { None });
        // sled releases its file lock from a background thread shortly after
        // the last handle drops, so a reopen in the same process may briefly
        // find the lock still held: wait for it a little. sled reports that
        // as an `Other` error naming the lock (0.34's `Config::open`), not
        // as `WouldBlock`, so the message is what tells it apart.
        let mut attempts = 0;
        let db = loop {
            match config.open() {
                Err(sled::Error::Io(e))
                    if e.to_string().starts_with("could not acquire lock") && attempts < 100 =>
                {
                    attempts += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other?,
            }
        };
        let store = SledStore {
            tokens: db.open_tree("tokens")?,
            ids: db.open_tree("token_ids")?,
            accounts: db.open_tree("accounts")?,
            idempotency: db.open_tree("idempotency")?,
            usage: db.open_tree("usage")?,
            pending_usage: Mutex::new(HashMap::new()),
            meta: db.open_tree("meta")?,
            key_locks: std::array::from_fn(|_| Mutex::new(())),
            db: SyncedSled::new(db, dir).map_err(sled::Error::from)?,
        };
        // Stores written before bans were copied into token records: copy
        // them now, in one pass over the tokens (a no-op once done).
        let banned = store.banned_accounts()?;
        if !banned.is_empty() {
            store.copy_bans(|account| banned.contains(account).then_some(true))?;
        }
        if store.meta.get(USAGE_HISTORY)?.is_none() {
            store.fill_usage_history()?;
        }
        Ok(store)
    }

    /// A store older than the usage history has only each record's recent
    /// deductions: they become its first hourly totals, once.
    fn fill_usage_history(&self) -> Result<(), StoreError> {
        for item in self.tokens.iter() {
            let (_, bytes) = item?;
            let record: TokenRecord = decode(&bytes)?;
            for &(at, count, _) in &record.usage {
                self.count_usage(&record, count, at);
            }
        }
        self.write_usage()?;
        self.meta.insert(USAGE_HISTORY, &[1u8][..])?;
        Ok(())
    }

    /// Adds a deduction of `count` at `at` to the record's hourly total,
    /// in memory: [`SledStore::flush`] writes the totals counted so far
    /// before it syncs, so a granted answer (which waits for a flush begun
    /// after it was counted) has its usage on disk with its deduction. A
    /// flush then writes one total per token and hour however many
    /// deductions it covers, and a deduction pays no write of its own.
    /// (Without durable answers, a benchmark baseline, the totals wait for
    /// the next flush or history query.)
    fn count_usage(&self, record: &TokenRecord, count: u64, at: i64) {
        let mut pending = self
            .pending_usage
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let total = pending
            .entry(usage_key(&record.account, at, &record.id))
            .or_default();
        total.0 = total.0.saturating_add(1);
        total.1 = total.1.saturating_add(count);
    }

    /// Adds the totals counted in memory to the `usage` tree. What cannot
    /// be written (a sled error) stays counted for the next time.
    fn write_usage(&self) -> Result<(), StoreError> {
        let pending = std::mem::take(
            &mut *self
                .pending_usage
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        let mut left = pending.into_iter();
        while let Some((key, (deductions, units))) = left.next() {
            let add = |old: Option<&[u8]>| {
                let (d, u) = old.and_then(|v| decode_totals(v).ok()).unwrap_or_default();
                Some(encode_totals(
                    d.saturating_add(deductions),
                    u.saturating_add(units),
                ))
            };
            if let Err(e) = self.usage.fetch_and_update(&key, add) {
                let mut pending = self
                    .pending_usage
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                for (key, (d, u)) in std::iter::once((key, (deductions, units))).chain(left) {
                    let total = pending.entry(key).or_default();
                    total.0 = total.0.saturating_add(d);
                    total.1 = total.1.saturating_add(u);
                }
                return Err(e.into());
            }
        }
        Ok(())
    }

    /// The record's bytes (for compare-and-swap) and the record.
    fn load(&self, hash: &TokenHash) -> Result<Loaded, StoreError> {
        let bytes = self.tokens.get(hash.0)?;
        let record: Option<TokenRecord> = match &bytes {
            Some(v) => Some(decode(v)?),
            None => None,
        };
        Ok(Loaded { bytes, record })
    }

    fn account_banned(&self, account: &str) -> Result<bool, StoreError> {
        Ok(match self.accounts.get(account.as_bytes())? {
            Some(v) => decode::<AccountRecord>(&v)?.banned,
            None => false,
        })
    }

    fn banned_accounts(&self) -> Result<HashSet<String>, StoreError> {
        let mut banned = HashSet::new();
        for item in self.accounts.iter() {
            let (k, v) = item?;
            if decode::<AccountRecord>(&v)?.banned {
                banned.insert(String::from_utf8_lossy(&k).into_owned());
            }
        }
        Ok(banned)
    }

    /// Sets `banned` in every record of `account`.
    fn mark_banned(&self, account: &str, banned: bool) -> Result<(), StoreError> {
        self.copy_bans(|a| (a == account).then_some(banned))
    }

    /// Sets each record's `banned` to what `ban` says for its account
    /// (`None`: leave it), in one pass over the tokens; compare-and-swap
    /// each, so a deduction judged on the old record fails its swap and is
    /// judged again.
    fn copy_bans(&self, ban: impl Fn(&str) -> Option<bool>) -> Result<(), StoreError> {
        for item in self.tokens.iter() {
            let (hash, _) = item?;
            loop {
                let Some(bytes) = self.tokens.get(&hash)? else {
                    break;
                };
                let mut record: TokenRecord = decode(&bytes)?;
                let Some(banned) = ban(&record.account).filter(|b| *b != record.banned) else {
                    break;
                };
                record.banned = banned;
                if self
                    .tokens
                    .compare_and_swap(&hash, Some(&bytes), Some(encode(&record)))?
                    .is_ok()
                {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Every check, no write.
    fn dry_run(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        let loaded = self.load(call.hash)?;
        Ok(
            match rules::check(loaded.record.as_ref(), call.count, call.now) {
                Ok(record) => Outcome::Granted {
                    granted: rules::judged(record, call.now),
                    wrote: false,
                },
                Err(rejection) => Outcome::Rejected(rejection),
            },
        )
    }

    /// Check and deduct with compare-and-swap on the record; `key` (a keyed
    /// call, as stored) is remembered in the record with its answer.
    /// `leased`: the units of the lease a return gives back to.
    fn deduct(
        &self,
        call: &Deduction<'_>,
        key: Option<&str>,
        leased: Option<u64>,
    ) -> Result<Outcome, StoreError> {
        loop {
            let loaded = self.load(call.hash)?;
            let (mut record, granted) = match judge(loaded.record.as_ref(), call, leased) {
                Ok((Some(record), granted)) => (record, granted),
                Ok((None, granted)) => {
                    return Ok(Outcome::Granted {
                        granted,
                        wrote: false,
                    })
                }
                Err(rejection) => return Ok(Outcome::Rejected(rejection)),
            };
            if let Some(key) = key {
                record.pending_key = Some(PendingKey {
                    key: key.to_string(),
                    first: IdempotencyRecord {
                        at: call.now,
                        count: call.count,
                        granted: granted.clone(),
                        uncharged: call.uncharged,
                    },
                });
            }
            let swapped = self.tokens.compare_and_swap(
                call.hash.0,
                loaded.bytes.as_ref(),
                Some(encode(&record)),
            )?;
            if swapped.is_ok() {
                // The usage history counts deductions (a lease's units
                // included); uncharged renders are the record's own total,
                // and a return is not usage.
                match (call.purpose, call.uncharged) {
                    (Purpose::Lease, _) => {
                        let units = granted.leased.unwrap_or(call.count);
                        self.count_usage(&record, units, call.now)
                    }
                    (Purpose::Charge, false) => self.count_usage(&record, call.count, call.now),
                    _ => {}
                }
                return Ok(Outcome::Granted {
                    granted,
                    wrote: true,
                });
            }
            // Another call changed the record since it was read: judge again.
        }
    }

    /// A deduction with an idempotency key (see the module doc); `key` is
    /// the call's key as stored ([`Deduction::stored_key`]).
    fn deduct_once(&self, call: &Deduction<'_>, key: &str) -> Result<Outcome, StoreError> {
        let stripe = usize::from(call.hash.0[0]) % KEY_LOCKS;
        let _turn = self.key_locks[stripe]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // An unknown or revoked token is refused before any replay
        // (rules, step 3). A revocation racing this call may land just
        // after it, as if it had come a moment later.
        let loaded = self.load(call.hash)?;
        let known = if call.uncharged || call.purpose == Purpose::GiveBack {
            rules::exists(loaded.record.as_ref())
        } else {
            rules::known(loaded.record.as_ref())
        };
        let record = match known {
            Ok(record) => record,
            Err(rejection) => return Ok(Outcome::Rejected(rejection)),
        };
        let idem_key = idempotency_key(call.hash, key);
        if let Some(v) = self.idempotency.get(&idem_key)? {
            let first: IdempotencyRecord = decode(&v)?;
            if fresh(&first, call.now) {
                return Ok(Outcome::replay(first, call));
            }
        }
        // The record's pending key: the last keyed call on this token. If its
        // answer never reached `idempotency` (the process died in between),
        // put it there now, before this call replaces it.
        if let Some(pending) = record
            .pending_key
            .as_ref()
            .filter(|p| fresh(&p.first, call.now))
        {
            if pending.key == key {
                self.idempotency.insert(&idem_key, encode(&pending.first))?;
                return Ok(Outcome::replay(pending.first.clone(), call));
            }
            let earlier = idempotency_key(call.hash, &pending.key);
            if self.idempotency.get(&earlier)?.is_none() {
                self.idempotency.insert(earlier, encode(&pending.first))?;
            }
        }
        // A return gives back to the lease taken under the same key, which
        // is in `idempotency` by now (the pending key was rolled forward).
        let leased = match (call.purpose, call.idempotency_key) {
            (Purpose::GiveBack, Some(key)) => {
                match self
                    .idempotency
                    .get(idempotency_key(call.hash, &lease_key(key)))?
                {
                    Some(v) => {
                        let lease: IdempotencyRecord = decode(&v)?;
                        fresh(&lease, call.now)
                            .then_some(lease.granted.leased)
                            .flatten()
                    }
                    None => None,
                }
            }
            _ => None,
        };
        let outcome = self.deduct(call, Some(key), leased)?;
        if let Outcome::Granted {
            granted,
            wrote: true,
        } = &outcome
        {
            let first = IdempotencyRecord {
                at: call.now,
                count: call.count,
                granted: granted.clone(),
                uncharged: call.uncharged,
            };
            self.idempotency.insert(idem_key, encode(&first))?;
        }
        Ok(outcome)
    }
}

impl SledStore {
    /// Steps 3 to 8 of [`super::rules`] (revocation before a replay) and
    /// the deduction, atomically; or, with `uncharged`, the uncharged total
    /// grown (the token need only exist).
    pub fn verify(&self, call: &Deduction<'_>) -> Result<Outcome, StoreError> {
        if call.dry_run {
            return self.dry_run(call);
        }
        match call.stored_key() {
            Some(key) => self.deduct_once(call, &key),
            // Leases and returns come with a key (the service checks).
            None if call.purpose != Purpose::Charge => Ok(Outcome::Rejected(Rejection::BadRequest)),
            None => self.deduct(call, None, None),
        }
    }

    /// Adds a token, banned if its account is; `false` if its hash or id is
    /// taken (nothing written).
    pub fn insert(&self, hash: &TokenHash, record: &TokenRecord) -> Result<bool, StoreError> {
        let record = &TokenRecord {
            banned: self.account_banned(&record.account)?,
            ..record.clone()
        };
        // The id first: if the process dies before the record is written, the
        // id points at nothing, which reads as an unknown token.
        if self
            .ids
            .compare_and_swap(record.id.as_bytes(), None::<&[u8]>, Some(&hash.0[..]))?
            .is_err()
        {
            return Ok(false);
        }
        if self
            .tokens
            .compare_and_swap(hash.0, None::<&[u8]>, Some(encode(record)))?
            .is_err()
        {
            self.ids.remove(record.id.as_bytes())?;
            return Ok(false);
        }
        // A ban (or unban) of the account between the read above and the
        // write missed this record: apply it now.
        let banned = self.account_banned(&record.account)?;
        if banned != record.banned {
            self.mark_banned(&record.account, banned)?;
        }
        Ok(true)
    }

    pub fn get(&self, id: &str) -> Result<Option<TokenRecord>, StoreError> {
        let Some(hash) = self.ids.get(id.as_bytes())? else {
            return Ok(None);
        };
        match self.tokens.get(hash)? {
            Some(v) => decode(&v).map(Some),
            None => Ok(None),
        }
    }

    pub fn update(&self, id: &str, change: Change<'_>) -> Result<TokenRecord, UpdateError> {
        let hash = self.ids.get(id.as_bytes()).map_err(StoreError::from)?;
        let hash = hash.ok_or(UpdateError::NotFound)?;
        loop {
            let bytes = self.tokens.get(&hash).map_err(StoreError::from)?;
            let bytes = bytes.ok_or(UpdateError::NotFound)?;
            let mut record: TokenRecord = decode(&bytes)?;
            change(&mut record).map_err(UpdateError::Refused)?;
            let swapped = self
                .tokens
                .compare_and_swap(&hash, Some(&bytes), Some(encode(&record)))
                .map_err(StoreError::from)?;
            if swapped.is_ok() {
                return Ok(record);
            }
        }
    }

    pub fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
        let mut all = self
            .tokens
            .iter()
            .values()
            .map(|v| decode::<TokenRecord>(&v?))
            .collect::<Result<Vec<_>, _>>()?;
        all.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(all)
    }

    /// The tokens with uncharged renders: the `limit` with the most (most
    /// first, then by id), and the total over every token. A scan of every
    /// record, as [`SledStore::list`].
    pub fn uncharged(&self, limit: usize) -> Result<(Vec<(String, u64)>, u64), StoreError> {
        let mut all = Vec::new();
        for bytes in self.tokens.iter().values() {
            let record: TokenRecord = decode(&bytes?)?;
            if record.uncharged > 0 {
                all.push((record.id, record.uncharged));
            }
        }
        let total = all.iter().fold(0u64, |sum, (_, n)| sum.saturating_add(*n));
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(limit);
        Ok((all, total))
    }

    /// One page of the tokens `query` matches at `now`, and their number.
    /// A scan of every record, as [`SledStore::list`].
    pub fn search(
        &self,
        query: &TokenQuery,
        now: i64,
    ) -> Result<(Vec<TokenRecord>, u64), StoreError> {
        let matches: Vec<TokenRecord> = self
            .list()?
            .into_iter()
            .filter(|r| query.matches(r, now))
            .collect();
        let total = matches.len() as u64;
        let page = matches
            .into_iter()
            .skip(query.offset)
            .take(query.limit)
            .collect();
        Ok((page, total))
    }

    /// The hourly totals of the token or account in the query's range,
    /// summed per bucket; `None` for an unknown token.
    pub fn usage(&self, query: &UsageQuery) -> Result<Option<Vec<Totals>>, StoreError> {
        let (account, only) = match &query.subject {
            Subject::Token(id) => match self.get(id)? {
                Some(record) => (record.account, Some(id.as_bytes())),
                None => return Ok(None),
            },
            Subject::Account(account) => (account.clone(), None),
        };
        self.write_usage()?;
        let range = usage_key(&account, query.from, "")..usage_key(&account, query.to, "");
        let mut totals: Vec<Totals> = Vec::new();
        for item in self.usage.range(range) {
            let (key, value) = item?;
            let (hour, id) = usage_key_parts(&key, &account)
                .ok_or_else(|| StoreError::Corrupt("usage key too short".into()))?;
            if only.is_some_and(|only| only != id) {
                continue;
            }
            let (deductions, units) = decode_totals(&value)?;
            let start = query.bucket.start(hour);
            match totals.last_mut() {
                Some(last) if last.0 == start => {
                    last.1 = last.1.saturating_add(deductions);
                    last.2 = last.2.saturating_add(units);
                }
                _ => totals.push((start, deductions, units)),
            }
        }
        Ok(Some(totals))
    }

    /// Bans (at `now`, unless already banned: the first time stays) or
    /// unbans `account` and every token of it. An account without tokens
    /// can be banned ahead of time.
    pub fn set_banned(&self, account: &str, banned: bool, now: i64) -> Result<(), StoreError> {
        self.accounts.fetch_and_update(account.as_bytes(), |old| {
            // The ban is written whole: an unreadable old record only
            // loses its ban time.
            let old: AccountRecord = old.and_then(|v| decode(v).ok()).unwrap_or_default();
            let banned_at = match (banned, old.banned) {
                (false, _) => None,
                (true, true) => old.banned_at,
                (true, false) => Some(now),
            };
            Some(encode(&AccountRecord { banned, banned_at }))
        })?;
        self.mark_banned(account, banned)
    }

    /// The banned accounts, by name.
    pub fn banned(&self) -> Result<Vec<BannedAccount>, StoreError> {
        let mut banned = Vec::new();
        for item in self.accounts.iter() {
            let (k, v) = item?;
            let record: AccountRecord = decode(&v)?;
            if record.banned {
                banned.push(BannedAccount {
                    account: String::from_utf8_lossy(&k).into_owned(),
                    banned_at: record.banned_at,
                });
            }
        }
        Ok(banned)
    }

    /// Forgets the idempotency answers no longer fresh at `now`, and
    /// unreadable ones. A record's pending copy stays: it is judged fresh
    /// or not when read, as every answer is.
    pub fn prune_idempotency(&self, now: i64) -> Result<u64, StoreError> {
        let mut pruned = 0;
        for item in self.idempotency.iter() {
            let (k, v) = item?;
            let stale = serde_json::from_slice::<IdempotencyRecord>(&v)
                .map(|r| !fresh(&r, now))
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

    /// Blocks until every write made before the call is on disk, the usage
    /// counted in memory included.
    pub fn flush(&self) -> Result<(), StoreError> {
        self.write_usage()?;
        Ok(self.db.flush()?)
    }

    /// Flushes that reached the disk so far.
    pub fn syncs(&self) -> u64 {
        self.db.syncs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain and keyed deductions on one record, from many threads:
    /// exactly the balance is granted, whatever the interleaving.
    #[test]
    fn racing_deductions_grant_exactly_the_balance() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), false).unwrap();
        let hash = TokenHash::of("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV");
        assert!(store.insert(&hash, &TokenRecord::sample(300)).unwrap());
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
                                    // Half the threads send keys.
                                    idempotency_key: (t % 2 == 0).then_some(key.as_str()),
                                    now: 1,
                                    uncharged: false,
                                    purpose: Default::default(),
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
        assert_eq!(left.usage.len(), crate::record::RECENT_USAGE);
    }
}

#[cfg(test)]
mod revocation_tests {
    use super::*;

    /// Revocation comes before a replay (rules, step 3): a key answered
    /// before the revocation is refused after it, and so is its pending
    /// copy in the record.
    #[test]
    fn a_revoked_token_gets_no_replay_of_an_earlier_answer() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), false).unwrap();
        let hash = TokenHash::of("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV");
        let record = TokenRecord::sample(10);
        assert!(store.insert(&hash, &record).unwrap());
        let call = Deduction {
            hash: &hash,
            count: 2,
            dry_run: false,
            idempotency_key: Some("k"),
            now: 5,
            uncharged: false,
            purpose: Default::default(),
        };
        let Outcome::Granted { granted, .. } = store.verify(&call).unwrap() else {
            panic!("not granted")
        };
        assert_eq!(store.verify(&call).unwrap(), Outcome::Replayed(granted));
        store
            .update(&record.id, &|r| {
                r.revoked = true;
                Ok(())
            })
            .unwrap();
        let refused = Outcome::Rejected(Rejection::InvalidToken);
        assert_eq!(store.verify(&call).unwrap(), refused);
        // The same with only the record's pending copy of the answer.
        store.idempotency.clear().unwrap();
        assert_eq!(store.verify(&call).unwrap(), refused);
        assert_eq!(store.get(&record.id).unwrap().unwrap().balance, 8);
    }
}

#[cfg(test)]
mod crash_tests {
    use super::*;

    /// The process died after a keyed deduction was written into the record
    /// but before its answer reached `idempotency`: the same key replays,
    /// another key first rolls the lost answer forward.
    #[test]
    fn a_pending_key_survives_a_crash_between_its_two_writes() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), false).unwrap();
        let hash = TokenHash::of("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV");
        let mut record = TokenRecord::sample(10);
        assert!(store.insert(&hash, &record).unwrap());
        let call = |key, count| Deduction {
            hash: &hash,
            count,
            dry_run: false,
            idempotency_key: Some(key),
            now: 5,
            uncharged: false,
            purpose: Default::default(),
        };
        // What the first write of a keyed call leaves behind, alone.
        let Outcome::Granted { granted, .. } =
            store.deduct(&call("a", 3), Some("a"), None).unwrap()
        else {
            panic!("not granted")
        };
        assert_eq!(granted.balance, 7);
        assert!(store.idempotency.is_empty());
        // The retry replays and deducts nothing.
        assert_eq!(
            store.verify(&call("a", 3)).unwrap(),
            Outcome::Replayed(granted.clone())
        );
        assert_eq!(store.get(&record.id).unwrap().unwrap().balance, 7);
        // Again the lost second write, then another key arrives first.
        store.idempotency.clear().unwrap();
        let Outcome::Granted { granted: b, .. } = store.verify(&call("b", 2)).unwrap() else {
            panic!("not granted")
        };
        assert_eq!(b.balance, 5);
        // "a" was rolled forward before "b" replaced it in the record.
        assert_eq!(
            store.verify(&call("a", 3)).unwrap(),
            Outcome::Replayed(granted)
        );
        assert_eq!(store.verify(&call("b", 2)).unwrap(), Outcome::Replayed(b));
        record = store.get(&record.id).unwrap().unwrap();
        assert_eq!(record.balance, 5);
    }
}

// What the ledger contract promises is tested on both stores by
// `tests/suite/ledger_contract.rs`; what follows is the sled store's own:
// its two writes per keyed call, and stores written by older versions.

#[cfg(test)]
mod uncharged_tests {
    use super::*;

    fn uncharged<'a>(hash: &'a TokenHash, count: u64, key: Option<&'a str>) -> Deduction<'a> {
        Deduction {
            hash,
            count,
            dry_run: false,
            idempotency_key: key,
            now: 5,
            uncharged: true,
            purpose: Default::default(),
        }
    }

    /// An uncharged answer whose copy only reached the record (the process
    /// died before it reached `idempotency`) is still replayed, not added
    /// again; and uncharged renders write no hourly usage total.
    #[test]
    fn an_uncharged_answer_in_the_record_alone_is_replayed_and_no_usage_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let store = SledStore::open(dir.path(), false).unwrap();
        let hash = TokenHash::of("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV");
        let record = TokenRecord {
            revoked: true,
            ..TokenRecord::sample(10)
        };
        assert!(store.insert(&hash, &record).unwrap());
        let Outcome::Granted { granted, .. } =
            store.verify(&uncharged(&hash, 3, Some("a"))).unwrap()
        else {
            panic!("not recorded")
        };
        assert_eq!((granted.balance, granted.uncharged), (10, Some(3)));
        store.idempotency.clear().unwrap();
        assert_eq!(
            store.verify(&uncharged(&hash, 3, Some("a"))).unwrap(),
            Outcome::Replayed(granted)
        );
        assert_eq!(
            store.verify(&uncharged(&hash, 2, Some("a"))).unwrap(),
            Outcome::Rejected(Rejection::BadRequest)
        );
        assert_eq!(store.get(&record.id).unwrap().unwrap().uncharged, 3);
        store.write_usage().unwrap();
        assert_eq!(store.usage.len(), 0, "uncharged renders are not usage");
    }
}

#[cfg(test)]
mod older_store_tests {
    use super::*;
    use crate::history::{Bucket, DAY_MS};

    fn deduct(hash: &TokenHash) -> Deduction<'_> {
        Deduction {
            hash,
            count: 1,
            dry_run: false,
            idempotency_key: None,
            now: 5,
            uncharged: false,
            purpose: Default::default(),
        }
    }

    fn query(subject: Subject, bucket: Bucket, from: i64, to: i64) -> UsageQuery {
        UsageQuery {
            subject,
            bucket,
            from,
            to,
        }
    }

    /// A store written before bans were copied into records (the account
    /// banned, its records not) is brought up to date when opened.
    #[test]
    fn an_older_store_gets_its_bans_copied_into_records_on_open() {
        let dir = tempfile::tempdir().unwrap();
        let hash = TokenHash::of("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV");
        {
            let store = SledStore::open(dir.path(), false).unwrap();
            assert!(store.insert(&hash, &TokenRecord::sample(10)).unwrap());
            store
                .accounts
                .insert(
                    "acme",
                    encode(&AccountRecord {
                        banned: true,
                        banned_at: None,
                    }),
                )
                .unwrap();
            store.flush().unwrap();
        }
        // `open` waits for the lock the dropped store's threads release.
        let store = SledStore::open(dir.path(), false).unwrap();
        assert_eq!(
            store.verify(&deduct(&hash)).unwrap(),
            Outcome::Rejected(Rejection::Banned)
        );
    }

    /// A store from before the history: each record's recent deductions
    /// become hourly totals when it is opened, once.
    #[test]
    fn an_older_store_gets_its_recent_usage_as_history_once() {
        let dir = tempfile::tempdir().unwrap();
        let hash = TokenHash::of("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV");
        {
            let store = SledStore::open(dir.path(), false).unwrap();
            let mut record = TokenRecord::sample(10);
            record.usage = vec![(5, 2, 8), (HOUR_MS + 5, 3, 5)];
            assert!(store.insert(&hash, &record).unwrap());
            // As an older labelpress left it: no totals, no marker.
            store.usage.clear().unwrap();
            store.meta.clear().unwrap();
            store.flush().unwrap();
        }
        let q = query(Subject::Account("acme".into()), Bucket::Hour, 0, DAY_MS);
        for _ in 0..2 {
            let store = SledStore::open(dir.path(), false).unwrap();
            assert_eq!(
                store.usage(&q).unwrap().unwrap(),
                vec![(0, 1, 2), (HOUR_MS, 1, 3)]
            );
            store.flush().unwrap();
        }
    }
}
