//! A sled database whose flush reaches the disk, for the group commit
//! ([`crate::group_commit`]): the verifier's embedded ledger and the render
//! node's usage outbox.
//!
//! sled 0.34 ends each write of its log buffer with `sync_file_range`, which
//! waits for the pages to be written but flushes neither the drive's
//! volatile write cache nor the file's metadata (its size, as the log
//! grows). So a flushed write survived a killed process but not necessarily
//! a power loss. [`SyncedSled::flush`] therefore follows sled's flush with
//! `fdatasync` on sled's log file, which does both. sled's other files
//! (`conf`, snapshots) are written with `sync_all` by sled itself, and a
//! snapshot is only a shortcut: the log alone recovers the database.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::group_commit::Durable;

#[derive(Debug, thiserror::Error)]
pub enum FlushError {
    #[error("sled flush: {0}")]
    Sled(#[from] sled::Error),
    #[error("fdatasync of {path}: {source}")]
    Sync {
        path: String,
        source: std::io::Error,
    },
}

pub struct SyncedSled {
    db: sled::Db,
    /// sled's log (`<dir>/db`), opened again for `fdatasync` (which works on
    /// a read-only descriptor: it syncs the file, not the descriptor).
    log: File,
    log_path: String,
    /// Completed syncs: the tests' witness that the commit path syncs, and a
    /// figure for benchmarks.
    syncs: AtomicU64,
}

impl SyncedSled {
    /// `db` must have been opened at `dir`. Syncs `dir` itself once, so
    /// that the files sled created in it survive a power loss too.
    pub fn new(db: sled::Db, dir: &Path) -> std::io::Result<SyncedSled> {
        let log_path = dir.join("db");
        let log = File::open(&log_path)?;
        File::open(dir)?.sync_all()?;
        Ok(SyncedSled {
            db,
            log,
            log_path: log_path.display().to_string(),
            syncs: AtomicU64::new(0),
        })
    }

    pub fn db(&self) -> &sled::Db {
        &self.db
    }

    /// Every write so far on the disk's stable storage.
    pub fn flush(&self) -> Result<(), FlushError> {
        self.db.flush()?;
        self.log.sync_data().map_err(|source| FlushError::Sync {
            path: self.log_path.clone(),
            source,
        })?;
        self.syncs.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// How many flushes reached the disk so far.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }
}

impl Durable for SyncedSled {
    type Error = FlushError;

    fn flush(&self) -> Result<(), FlushError> {
        SyncedSled::flush(self)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::group_commit::{GroupCommit, Linger};

    /// A write waited for through the group commit is covered by an
    /// `fdatasync` of sled's log, not only by sled's own flush.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_group_commit_syncs_the_log_for_every_durable_write() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        let synced = Arc::new(SyncedSled::new(db.clone(), dir.path()).unwrap());
        let commit = GroupCommit::start("test-flush", synced.clone(), Linger::NONE).unwrap();
        assert_eq!(synced.syncs(), 0);
        db.insert("a", "1").unwrap();
        commit.durable().await.unwrap();
        assert_eq!(synced.syncs(), 1);
        db.insert("b", "2").unwrap();
        commit.durable().await.unwrap();
        assert_eq!(synced.syncs(), 2);
    }

    #[test]
    fn a_folder_without_a_sled_log_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::Config::new().temporary(true).open().unwrap();
        assert!(SyncedSled::new(db, dir.path()).is_err());
    }
}
