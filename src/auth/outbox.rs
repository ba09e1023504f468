//! The durable usage outbox (docs/http-api.md, "Authentication and usage").
//!
//! Every successful render adds +1 to the token's `pending` count and is
//! flushed to disk before the 200 is sent, so no answered render is lost to a
//! crash. The reporter moves a token's whole pending count into one `inflight`
//! batch with a fresh `Idempotency-Key`, in one transaction, flushed before the
//! batch is sent: after a crash the same batch goes out again with the same
//! key, and the verifier deducts it once. New renders meanwhile accumulate in
//! `pending` for the next batch.
//!
//! The reporter needs the token itself to call `/v1/verify`, so both trees
//! keep it next to the count. They live in `<data-dir>/render/`, which is
//! kept at mode 0700 (owner only).
//! The token never appears in logs or metrics.
//!
//! Usage the verifier refuses at report time (revoked, banned, expired or
//! over the balance meanwhile) is never dropped: [`Outbox::refuse`] turns
//! the in-flight batch, or the part of it the balance does not cover, into
//! an *uncharged* record (`usage_uncharged`, keyed by token and the refused
//! batch's key, and sent under that key), in the same transaction
//! that takes it out of flight. The reporter sends each one as
//! `uncharged=true` until the verifier acknowledges it. One the verifier
//! cannot record (it does not know the token) moves to `usage_unrecorded`,
//! kept here without the token and not sent again.
//!
//! "On disk" means a group commit: one flusher thread, whose single flush
//! (sled's, then `fdatasync`: [`crate::synced_sled`]) covers every render
//! waiting at that moment (see [`crate::group_commit`]).

use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionError};
use sled::Transactional;

use crate::credential::TokenHash;
use crate::group_commit::{GroupCommit, Linger, NotDurable};
use crate::synced_sled::SyncedSled;

/// Usage of one token waiting to be reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    pub token: String,
    pub count: u64,
    /// Set once the batch is in flight; stable across retries and restarts.
    #[serde(default)]
    pub key: Option<String>,
}

pub struct Outbox {
    commit: GroupCommit<SyncedSled>,
    pending: sled::Tree,
    inflight: sled::Tree,
    /// Token hash ++ the refused batch's key -> [`Batch`] of uncharged
    /// renders (sent under the refused batch's key), until the verifier
    /// records it.
    uncharged: sled::Tree,
    /// Token hash ++ the uncharged batch's key -> [`Batch`] (token emptied)
    /// the verifier could not record: kept for a person to see.
    unrecorded: sled::Tree,
}

/// One uncharged record of the outbox: where it is kept, and the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uncharged {
    pub id: sled::IVec,
    pub hash: TokenHash,
    pub batch: Batch,
}

fn decode(bytes: &[u8]) -> Option<Batch> {
    serde_json::from_slice(bytes).ok()
}

fn encode(batch: &Batch) -> Vec<u8> {
    serde_json::to_vec(batch).unwrap_or_default()
}

impl Outbox {
    /// Opens the outbox's trees in `db`, opened at `dir`; its flusher holds
    /// syncs back as `linger` says (see [`crate::group_commit`]).
    pub fn open(db: &sled::Db, dir: &std::path::Path, linger: Linger) -> sled::Result<Outbox> {
        let store = std::sync::Arc::new(SyncedSled::new(db.clone(), dir)?);
        Ok(Outbox {
            commit: GroupCommit::start("outbox-flush", store, linger)?,
            pending: db.open_tree("usage_pending")?,
            inflight: db.open_tree("usage_inflight")?,
            uncharged: db.open_tree("usage_uncharged")?,
            unrecorded: db.open_tree("usage_unrecorded")?,
        })
    }

    /// Records one successful render, then calls `then` once it is on disk:
    /// on the flusher's thread (see [`GroupCommit::then`]), or at once when
    /// the write fails.
    pub fn record_then(
        &self,
        hash: &TokenHash,
        token: &str,
        then: impl FnOnce(sled::Result<()>) + Send + 'static,
    ) {
        let added = self.pending.fetch_and_update(hash.0, |old| {
            let mut batch = old.and_then(decode).unwrap_or(Batch {
                token: token.to_string(),
                count: 0,
                key: None,
            });
            batch.count += 1;
            Some(encode(&batch))
        });
        match added {
            Ok(_) => self
                .commit
                .then(move |durable| then(durable.map_err(not_durable))),
            Err(e) => then(Err(e)),
        }
    }

    /// Usage of a token not yet confirmed by the verifier.
    pub fn outstanding(&self, hash: &TokenHash) -> sled::Result<u64> {
        let count = |tree: &sled::Tree| -> sled::Result<u64> {
            Ok(tree
                .get(hash.0)?
                .and_then(|v| decode(&v))
                .map_or(0, |b| b.count))
        };
        Ok(count(&self.pending)? + count(&self.inflight)?)
    }

    /// All unconfirmed usage (the `outbox_depth` metric).
    pub fn depth(&self) -> u64 {
        [&self.pending, &self.inflight]
            .iter()
            .flat_map(|tree| tree.iter().values())
            .filter_map(|v| v.ok().and_then(|v| decode(&v)))
            .map(|b| b.count)
            .sum()
    }

    /// Tokens with usage to report.
    pub fn tokens(&self) -> Vec<TokenHash> {
        let mut hashes: Vec<TokenHash> = [&self.inflight, &self.pending]
            .iter()
            .flat_map(|tree| tree.iter().keys())
            .filter_map(|k| k.ok().and_then(|k| TokenHash::from_slice(&k)))
            .collect();
        hashes.sort();
        hashes.dedup();
        hashes
    }

    /// The batch to send for a token: the one already in flight (a retry, or
    /// left by a crash), else all pending usage moved into flight under a new
    /// key. The move is on disk before this returns.
    pub async fn next_batch(&self, hash: &TokenHash) -> sled::Result<Option<Batch>> {
        if let Some(batch) = self.inflight.get(hash.0)?.and_then(|v| decode(&v)) {
            return Ok(Some(batch));
        }
        let moved = (&self.pending, &self.inflight).transaction(|(pending, inflight)| {
            let Some(mut batch) = pending.get(hash.0)?.and_then(|v| decode(&v)) else {
                return Ok(None);
            };
            if inflight.get(hash.0)?.is_some() {
                return Err(ConflictableTransactionError::Abort(()));
            }
            batch.key = Some(uuid::Uuid::new_v4().to_string());
            pending.remove(&hash.0[..])?;
            inflight.insert(&hash.0[..], encode(&batch))?;
            Ok(Some(batch))
        });
        let batch = match moved {
            Ok(batch) => batch,
            // Another reporter pass moved it first; pick that batch up next time.
            Err(TransactionError::Abort(())) => None,
            Err(TransactionError::Storage(e)) => return Err(e),
        };
        if batch.is_some() {
            self.flush().await?;
        }
        Ok(batch)
    }

    /// The verifier accepted (or definitively refused) the batch with `key`.
    pub async fn complete(&self, hash: &TokenHash, key: &str) -> sled::Result<()> {
        let current = self.inflight.get(hash.0)?.and_then(|v| decode(&v));
        if current.is_some_and(|b| b.key.as_deref() == Some(key)) {
            self.inflight.remove(hash.0)?;
            self.flush().await?;
        }
        Ok(())
    }

    /// The verifier refused the in-flight batch with `key`: it is replaced
    /// by one of the `charge` units the verifier can still take (a new key;
    /// none when `charge` is 0), and the rest becomes an uncharged record,
    /// in one transaction, on disk before this returns. Returns the
    /// uncharged count, `None` when `key` is no longer in flight.
    pub async fn refuse(
        &self,
        hash: &TokenHash,
        key: &str,
        charge: u64,
    ) -> sled::Result<Option<u64>> {
        let mut id = hash.0.to_vec();
        id.extend_from_slice(key.as_bytes());
        let moved = (&self.inflight, &self.uncharged).transaction(|(inflight, uncharged)| {
            let Some(batch) = inflight
                .get(hash.0)?
                .and_then(|v| decode(&v))
                .filter(|b| b.key.as_deref() == Some(key))
            else {
                return Ok(None);
            };
            let charge = charge.min(batch.count);
            let left = batch.count - charge;
            if charge > 0 {
                let shrunk = Batch {
                    token: batch.token.clone(),
                    count: charge,
                    key: Some(uuid::Uuid::new_v4().to_string()),
                };
                inflight.insert(&hash.0[..], encode(&shrunk))?;
            } else {
                inflight.remove(&hash.0[..])?;
            }
            if left > 0 {
                // The refused batch's own key: if the verifier had deducted
                // it before (the answer lost) and now refuses the replay
                // (a revoked token), the uncharged call under that key is
                // answered with the deduction, not counted a second time.
                let record = Batch {
                    token: batch.token,
                    count: left,
                    key: Some(key.to_string()),
                };
                uncharged.insert(id.as_slice(), encode(&record))?;
            }
            Ok(Some(left))
        });
        let left = moved.map_err(|e: TransactionError<()>| match e {
            TransactionError::Storage(e) => e,
            TransactionError::Abort(()) => sled::Error::ReportableBug("aborted".into()),
        })?;
        if left.is_some() {
            self.flush().await?;
        }
        Ok(left)
    }

    /// The uncharged records waiting for the verifier.
    pub fn uncharged(&self) -> sled::Result<Vec<Uncharged>> {
        let mut all = Vec::new();
        for item in self.uncharged.iter() {
            let (id, value) = item?;
            let (Some(hash), Some(batch)) =
                (id.get(..32).and_then(TokenHash::from_slice), decode(&value))
            else {
                continue;
            };
            all.push(Uncharged { id, hash, batch });
        }
        Ok(all)
    }

    /// The verifier recorded the uncharged record `id`: it leaves the
    /// outbox (on disk before this returns).
    pub async fn uncharged_recorded(&self, id: &[u8]) -> sled::Result<()> {
        if self.uncharged.remove(id)?.is_some() {
            self.flush().await?;
        }
        Ok(())
    }

    /// The verifier cannot record the uncharged record `id` (it does not
    /// know the token): it moves to the records kept here, without the
    /// token, and is not sent again.
    pub async fn uncharged_unrecorded(&self, id: &[u8]) -> sled::Result<()> {
        let moved = (&self.uncharged, &self.unrecorded).transaction(|(uncharged, unrecorded)| {
            let Some(batch) = uncharged.remove(id)?.and_then(|v| decode(&v)) else {
                return Ok(false);
            };
            let kept = Batch {
                token: String::new(),
                ..batch
            };
            unrecorded.insert(id, encode(&kept))?;
            Ok(true)
        });
        let moved = moved.map_err(|e: TransactionError<()>| match e {
            TransactionError::Storage(e) => e,
            TransactionError::Abort(()) => sled::Error::ReportableBug("aborted".into()),
        })?;
        if moved {
            self.flush().await?;
        }
        Ok(())
    }

    /// Uncharged renders not yet recorded by the verifier.
    pub fn uncharged_depth(&self) -> u64 {
        sum_counts(&self.uncharged)
    }

    /// Uncharged renders the verifier could not record, kept here.
    pub fn unrecorded_depth(&self) -> u64 {
        sum_counts(&self.unrecorded)
    }

    /// Returns once every write made before the call is on disk.
    pub async fn flush(&self) -> sled::Result<()> {
        self.commit.durable().await.map_err(not_durable)
    }
}

fn sum_counts(tree: &sled::Tree) -> u64 {
    tree.iter()
        .values()
        .filter_map(|v| v.ok().and_then(|v| decode(&v)))
        .fold(0u64, |sum, b| sum.saturating_add(b.count))
}

fn not_durable(e: NotDurable) -> sled::Error {
    sled::Error::Io(std::io::Error::other(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opens the database again once the last handle's file lock is gone:
    /// sled releases it when its I/O threads drop their handles, a moment
    /// after the owner's drop.
    fn reopen(path: &std::path::Path) -> sled::Db {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            match sled::open(path) {
                Ok(db) => return db,
                Err(e) if std::time::Instant::now() < deadline => {
                    eprintln!("reopening: {e}");
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => panic!("{e}"),
            }
        }
    }

    /// Records one render and waits until it is on disk.
    async fn record(outbox: &Outbox, hash: &TokenHash, token: &str) -> sled::Result<()> {
        let (sender, durable) = tokio::sync::oneshot::channel();
        outbox.record_then(hash, token, move |result| {
            let _ = sender.send(result);
        });
        durable.await.expect("the flusher answers")
    }

    #[tokio::test]
    async fn a_batch_in_flight_keeps_its_key_until_completed_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let h = TokenHash::of("lp_a");
        let key;
        {
            let db = sled::open(dir.path()).unwrap();
            let outbox = Outbox::open(&db, dir.path(), Linger::NONE).unwrap();
            record(&outbox, &h, "lp_a").await.unwrap();
            record(&outbox, &h, "lp_a").await.unwrap();
            let batch = outbox.next_batch(&h).await.unwrap().unwrap();
            assert_eq!(batch.count, 2);
            key = batch.key.clone().unwrap();
            record(&outbox, &h, "lp_a").await.unwrap();
            assert_eq!(outbox.outstanding(&h).unwrap(), 3);
            assert_eq!(outbox.depth(), 3);
        }
        // Reopened as after a crash: the same batch, same key.
        let db = reopen(dir.path());
        let outbox = Outbox::open(&db, dir.path(), Linger::NONE).unwrap();
        assert_eq!(outbox.tokens(), vec![h]);
        let again = outbox.next_batch(&h).await.unwrap().unwrap();
        assert_eq!((again.count, again.key.as_deref()), (2, Some(key.as_str())));
        outbox.complete(&h, &key).await.unwrap();
        let next = outbox.next_batch(&h).await.unwrap().unwrap();
        assert_eq!(next.count, 1);
        assert_ne!(next.key.as_deref(), Some(key.as_str()));
        outbox
            .complete(&h, next.key.as_deref().unwrap())
            .await
            .unwrap();
        assert_eq!(outbox.depth(), 0);
        assert!(outbox.next_batch(&h).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_refused_batch_becomes_uncharged_and_survives_reopening_until_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let h = TokenHash::of("lp_c");
        let (first_key, charged_key);
        {
            let db = sled::open(dir.path()).unwrap();
            let outbox = Outbox::open(&db, dir.path(), Linger::NONE).unwrap();
            for _ in 0..5 {
                record(&outbox, &h, "lp_c").await.unwrap();
            }
            first_key = outbox.next_batch(&h).await.unwrap().unwrap().key.unwrap();
            // Another key is not in flight: nothing moves.
            assert_eq!(outbox.refuse(&h, "another", 0).await.unwrap(), None);
            // The balance covers 2 of 5: 2 stay in flight, 3 are uncharged.
            assert_eq!(outbox.refuse(&h, &first_key, 2).await.unwrap(), Some(3));
            // A retry of the same refusal finds the key gone: not twice.
            assert_eq!(outbox.refuse(&h, &first_key, 2).await.unwrap(), None);
            let charged = outbox.next_batch(&h).await.unwrap().unwrap();
            assert_eq!(charged.count, 2);
            charged_key = charged.key.unwrap();
            assert_ne!(charged_key, first_key);
            assert_eq!(outbox.depth(), 2);
            assert_eq!(outbox.outstanding(&h).unwrap(), 2);
            assert_eq!(outbox.uncharged_depth(), 3);
        }
        let db = reopen(dir.path());
        let outbox = Outbox::open(&db, dir.path(), Linger::NONE).unwrap();
        let uncharged = outbox.uncharged().unwrap();
        assert_eq!(uncharged.len(), 1);
        let u = &uncharged[0];
        assert_eq!(
            (u.hash, u.batch.count, u.batch.token.as_str()),
            (h, 3, "lp_c")
        );
        // Sent under the refused batch's key (a deduction under it would
        // answer for it); the part still charged went under a new one.
        let key = u.batch.key.clone().unwrap();
        assert_eq!(key, first_key);
        assert_ne!(key, charged_key);
        // The rest of the batch refused as well: a second record.
        assert_eq!(outbox.refuse(&h, &charged_key, 0).await.unwrap(), Some(2));
        assert_eq!(outbox.depth(), 0);
        assert_eq!(outbox.uncharged_depth(), 5);
        // The same record again after a restart: same key (records come in
        // the order of their ids, which are random: look it up by count).
        let again = outbox.uncharged().unwrap();
        let first = again.iter().find(|u| u.batch.count == 3).unwrap();
        assert_eq!(first.batch.key, Some(key));
        let all = outbox.uncharged().unwrap();
        outbox.uncharged_recorded(&all[0].id).await.unwrap();
        outbox.uncharged_unrecorded(&all[1].id).await.unwrap();
        assert_eq!(outbox.uncharged_depth(), 0);
        assert_eq!(outbox.unrecorded_depth(), all[1].batch.count);
        assert!(outbox.uncharged().unwrap().is_empty());
    }
}
