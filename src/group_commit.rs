//! Group commit: one flusher thread makes writes durable for many callers
//! at once, so the cost of a disk sync is shared by every request waiting
//! on it instead of being paid per request. The verifier's token store and
//! the render node's usage outbox both use it.
//!
//! It is also the only caller of a store's flush. sled 0.34's `flush_async`
//! runs each flush as a job on sled's own small thread pool, and the jobs
//! wait for I/O that is queued on that same pool: under load (renders
//! answered at ~500/s) every pool thread ended up waiting and the server
//! hung. One thread calling the blocking flush cannot deadlock that way.
//!
//! A flusher may wait a moment (`delay`) between the first write it sees and
//! its flush, so that writes finishing meanwhile share that flush
//! (PostgreSQL's `commit_delay`): fewer syncs, and fewer thread wake-ups,
//! for a little latency.
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

/// Something whose writes become durable with one flush.
pub trait Durable: Send + Sync + 'static {
    /// Why a flush failed (logged by the flusher).
    type Error: std::fmt::Display;

    /// Makes every write so far durable.
    fn flush(&self) -> Result<(), Self::Error>;

    /// Upkeep run on the flusher thread about every [`Durable::UPKEEP_EVERY`]
    /// (e.g. forgetting expired entries); nothing by default.
    fn upkeep(&self) {}

    const UPKEEP_EVERY: Duration = Duration::from_secs(3600);
}

#[derive(Debug, thiserror::Error)]
#[error("the store could not be flushed to disk")]
pub struct NotDurable;

#[derive(Debug, Clone, Copy)]
struct Flushed {
    seq: u64,
    ok: bool,
}

struct Shared<D: ?Sized> {
    target: Arc<D>,
    /// Wait between seeing a write and flushing it.
    delay: Duration,
    /// Tickets issued so far.
    issued: AtomicU64,
    /// `true` once the owner is gone: flush what is left, then stop.
    stop: Mutex<bool>,
    wake: Condvar,
    flushed: watch::Sender<Flushed>,
}

pub struct GroupCommit<D: Durable> {
    shared: Arc<Shared<D>>,
    thread: Option<JoinHandle<()>>,
}

impl<D: Durable> GroupCommit<D> {
    /// Starts the flusher thread, named `name`, which waits `delay` after
    /// the first write it sees before it flushes.
    pub fn start(name: &str, target: Arc<D>, delay: Duration) -> std::io::Result<GroupCommit<D>> {
        let (flushed, _) = watch::channel(Flushed { seq: 0, ok: true });
        let shared = Arc::new(Shared {
            target,
            delay,
            issued: AtomicU64::new(0),
            stop: Mutex::new(false),
            wake: Condvar::new(),
            flushed,
        });
        let thread = std::thread::Builder::new().name(name.into()).spawn({
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

impl<D: Durable> Drop for GroupCommit<D> {
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

fn flusher<D: Durable>(shared: &Shared<D>) {
    let mut flushed = 0;
    let mut last_upkeep = Instant::now();
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
        if !stop && !shared.delay.is_zero() && shared.issued.load(Ordering::SeqCst) > flushed {
            std::thread::sleep(shared.delay);
        }
        // Read before flushing: these tickets were issued after their writes.
        let target = shared.issued.load(Ordering::SeqCst);
        if target > flushed {
            let ok = match shared.target.flush() {
                Ok(()) => true,
                Err(e) => {
                    tracing::error!(error = %e, "group commit: flush failed");
                    false
                }
            };
            flushed = target;
            shared.flushed.send_replace(Flushed { seq: target, ok });
        } else if stop {
            // Nothing left: make sure writes that took no ticket (admin
            // changes, dry runs) reach the disk too.
            let _ = shared.target.flush();
            return;
        }
        if last_upkeep.elapsed() >= D::UPKEEP_EVERY {
            last_upkeep = Instant::now();
            shared.target.upkeep();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// A store whose flushes take `sync` and are counted.
    struct Disk {
        sync: Duration,
        flushes: AtomicUsize,
    }

    impl Disk {
        fn new(sync_ms: u64) -> Arc<Disk> {
            Arc::new(Disk {
                sync: Duration::from_millis(sync_ms),
                flushes: AtomicUsize::new(0),
            })
        }
    }

    impl Durable for Disk {
        type Error = std::convert::Infallible;

        fn flush(&self) -> Result<(), Self::Error> {
            std::thread::sleep(self.sync);
            self.flushes.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_waiters_share_flushes() {
        let disk = Disk::new(30);
        let commit =
            Arc::new(GroupCommit::start("test-flush", disk.clone(), Duration::ZERO).unwrap());
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

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_arriving_within_the_delay_share_one_flush() {
        let disk = Disk::new(0);
        let delay = Duration::from_millis(300);
        let commit = Arc::new(GroupCommit::start("test-flush", disk.clone(), delay).unwrap());
        let started = Instant::now();
        let mut waiters = Vec::new();
        // Five writes 20 ms apart: an instant disk would flush each alone.
        for _ in 0..5 {
            let commit = commit.clone();
            waiters.push(tokio::spawn(async move { commit.durable().await.is_ok() }));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for waiter in waiters {
            assert!(waiter.await.unwrap());
        }
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 1);
        assert!(started.elapsed() >= delay);
    }
}
