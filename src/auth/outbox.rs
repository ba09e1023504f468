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
//! "On disk" means a group commit: one flusher thread, whose single flush
//! (sled's, then `fdatasync`: [`crate::synced_sled`]) covers every render
//! waiting at that moment (see [`crate::group_commit`]).

use serde::{Deserialize, Serialize};
use sled::transaction::{ConflictableTransactionError, TransactionError};
use sled::Transactional;

use super::TokenHash;
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

    /// Replaces the in-flight batch with `key` by one of `count` units under
    /// a new key (the verifier refused the whole batch but can take part of
    /// it). On disk before this returns.
    pub async fn shrink(&self, hash: &TokenHash, key: &str, count: u64) -> sled::Result<()> {
        let current = self.inflight.get(hash.0)?.and_then(|v| decode(&v));
        if let Some(mut batch) = current.filter(|b| b.key.as_deref() == Some(key)) {
            batch.count = count.min(batch.count);
            batch.key = Some(uuid::Uuid::new_v4().to_string());
            self.inflight.insert(hash.0, encode(&batch))?;
            self.flush().await?;
        }
        Ok(())
    }

    /// Returns once every write made before the call is on disk.
    pub async fn flush(&self) -> sled::Result<()> {
        self.commit.durable().await.map_err(not_durable)
    }
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
    async fn a_shrunk_batch_gets_a_new_key() {
        let dir = tempfile::tempdir().unwrap();
        let outbox =
            Outbox::open(&sled::open(dir.path()).unwrap(), dir.path(), Linger::NONE).unwrap();
        let h = TokenHash::of("lp_b");
        for _ in 0..3 {
            record(&outbox, &h, "lp_b").await.unwrap();
        }
        let batch = outbox.next_batch(&h).await.unwrap().unwrap();
        let key = batch.key.unwrap();
        outbox.shrink(&h, "another key", 1).await.unwrap();
        assert_eq!(outbox.outstanding(&h).unwrap(), 3);
        outbox.shrink(&h, &key, 1).await.unwrap();
        let shrunk = outbox.next_batch(&h).await.unwrap().unwrap();
        assert_eq!(shrunk.count, 1);
        assert_ne!(shrunk.key.as_deref(), Some(key.as_str()));
    }
}
