//! Group commit: one flusher thread makes writes durable for many callers
//! at once, so the cost of a disk sync is shared by every request waiting
//! on it instead of being paid per request.
//!
//! A caller finishes its write, takes a ticket (a sequence number issued
//! after the write) and waits until the flushed sequence reaches it. The
//! flusher reads the latest ticket *before* it starts a flush, so every
//! ticket up to that number belongs to a write the flush covers. A failed
//! flush releases its waiters with an error; a later successful flush
//! covers everything before it, so whoever sees that one is durable.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::rules;
use super::store::TokenStore;

/// How often idle periods are used to forget old idempotency answers.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

#[derive(Debug, thiserror::Error)]
#[error("the token store could not be flushed to disk")]
pub struct NotDurable;

#[derive(Debug, Clone, Copy)]
struct Flushed {
    seq: u64,
    ok: bool,
}

struct Shared {
    store: Arc<dyn TokenStore>,
    /// Tickets issued so far.
    issued: AtomicU64,
    /// `true` once the owner is gone: flush what is left, then stop.
    stop: Mutex<bool>,
    wake: Condvar,
    flushed: watch::Sender<Flushed>,
}

pub struct GroupCommit {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl GroupCommit {
    pub fn start(store: Arc<dyn TokenStore>) -> std::io::Result<GroupCommit> {
        let (flushed, _) = watch::channel(Flushed { seq: 0, ok: true });
        let shared = Arc::new(Shared {
            store,
            issued: AtomicU64::new(0),
            stop: Mutex::new(false),
            wake: Condvar::new(),
            flushed,
        });
        let thread = std::thread::Builder::new()
            .name("verify-flush".into())
            .spawn({
                let shared = shared.clone();
                move || flusher(&shared)
            })?;
        Ok(GroupCommit {
            shared,
            thread: Some(thread),
        })
    }

    /// Returns once every write that happened before the call is on disk.
    pub async fn durable(&self) -> Result<(), NotDurable> {
        let mut flushed = self.shared.flushed.subscribe();
        let ticket = self.shared.issued.fetch_add(1, Ordering::SeqCst) + 1;
        // Taking the lock orders this notify after the flusher's check of
        // `issued`, so the wake-up cannot be lost.
        drop(
            self.shared
                .stop
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        self.shared.wake.notify_one();
        let ok = match flushed.wait_for(|f| f.seq >= ticket).await {
            Ok(f) => f.ok,
            Err(_) => false,
        };
        if ok {
            Ok(())
        } else {
            Err(NotDurable)
        }
    }
}

impl Drop for GroupCommit {
    fn drop(&mut self) {
        *self
            .shared
            .stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn flusher(shared: &Shared) {
    let mut flushed = 0;
    let mut last_prune = Instant::now();
    loop {
        let stop = {
            let mut stop = shared.stop.lock().unwrap_or_else(PoisonError::into_inner);
            while !*stop && shared.issued.load(Ordering::SeqCst) == flushed {
                let (guard, timeout) = shared
                    .wake
                    .wait_timeout(stop, Duration::from_secs(60))
                    .unwrap_or_else(PoisonError::into_inner);
                stop = guard;
                if timeout.timed_out() {
                    break;
                }
            }
            *stop
        };
        // Read before flushing: these tickets were issued after their writes.
        let target = shared.issued.load(Ordering::SeqCst);
        if target > flushed {
            let ok = match shared.store.flush() {
                Ok(()) => true,
                Err(e) => {
                    tracing::error!(error = %e, "verifier: flush failed");
                    false
                }
            };
            flushed = target;
            shared.flushed.send_replace(Flushed { seq: target, ok });
        } else if stop {
            // Nothing left: make sure the last writes of admins or dry runs
            // that took no ticket reach the disk too.
            let _ = shared.store.flush();
            return;
        }
        if last_prune.elapsed() >= PRUNE_EVERY {
            last_prune = Instant::now();
            match shared
                .store
                .prune_idempotency(rules::now_ms() - rules::IDEMPOTENCY_TTL_MS)
            {
                Ok(n) if n > 0 => tracing::info!(pruned = n, "verifier: idempotency keys expired"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "verifier: idempotency pruning failed"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::atomic::AtomicUsize;

    use super::*;
    use crate::verify::record::TokenRecord;
    use crate::verify::secret::TokenHash;
    use crate::verify::store::{Deduction, Outcome, StoreError, UpdateError};

    /// A store whose flush is slow and counted; nothing else is called.
    #[derive(Default)]
    struct SlowDisk {
        flushes: AtomicUsize,
    }

    impl TokenStore for SlowDisk {
        fn verify(&self, _: &Deduction<'_>) -> Result<Outcome, StoreError> {
            unreachable!()
        }
        fn insert(&self, _: &TokenHash, _: &TokenRecord) -> Result<bool, StoreError> {
            unreachable!()
        }
        fn get(&self, _: &str) -> Result<Option<TokenRecord>, StoreError> {
            unreachable!()
        }
        fn update(
            &self,
            _: &str,
            _: &(dyn Fn(&mut TokenRecord) -> Result<(), String> + Sync),
        ) -> Result<TokenRecord, UpdateError> {
            unreachable!()
        }
        fn list(&self) -> Result<Vec<TokenRecord>, StoreError> {
            unreachable!()
        }
        fn banned_accounts(&self) -> Result<HashSet<String>, StoreError> {
            unreachable!()
        }
        fn set_banned(&self, _: &str, _: bool) -> Result<(), StoreError> {
            unreachable!()
        }
        fn prune_idempotency(&self, _: i64) -> Result<usize, StoreError> {
            Ok(0)
        }
        fn flush(&self) -> Result<(), StoreError> {
            std::thread::sleep(Duration::from_millis(30));
            self.flushes.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_waiters_share_flushes() {
        let disk = Arc::new(SlowDisk::default());
        let commit = Arc::new(GroupCommit::start(disk.clone()).unwrap());
        let waiters: Vec<_> = (0..200)
            .map(|_| {
                let commit = commit.clone();
                tokio::spawn(async move { commit.durable().await.is_ok() })
            })
            .collect();
        for waiter in waiters {
            assert!(waiter.await.unwrap());
        }
        let flushes = disk.flushes.load(Ordering::SeqCst);
        // A flush may start before most waiters arrive; the rest share the next
        // ones (the bound leaves room for a slow, loaded machine).
        assert!(
            (1..=4).contains(&flushes),
            "{flushes} flushes for 200 waiters"
        );
        // A waiter arriving later gets a flush of its own.
        commit.durable().await.unwrap();
        assert_eq!(disk.flushes.load(Ordering::SeqCst), flushes + 1);
    }
}
