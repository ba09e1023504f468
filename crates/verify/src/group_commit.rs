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
//! A flusher may hold a flush back a moment ([`Linger`]) after the first
//! write it sees, so that writes finishing meanwhile share that flush
//! (PostgreSQL's `commit_delay`): fewer syncs, for a little latency. A sync
//! costs more than its own time: the flusher's wake-ups preempt renders (on
//! 2 cores, the outbox's syncs took about 7% of the HTTP render rate before
//! the vendored sled wrote flushed buffers on the flusher's own thread). How
//! long to wait is best told by the work upstream ([`Backlog`]): while
//! renders are queued, the render threads stay busy and the wait costs no
//! throughput; once the queue is empty they are about to idle while answers
//! wait for the sync, so the flusher syncs at once. A lone request is never
//! held back. A fixed wait instead (1 ms) left the render threads idle
//! whenever the queue ran dry during it.
//!
//! A caller finishes its write, takes a ticket (a sequence number issued
//! after the write) and waits until the flushed sequence reaches it, or
//! leaves a callback ([`GroupCommit::then`]) that the flusher runs after that
//! flush: a render thread hands its answer over that way, so the request's
//! task is woken once, when the answer can go out, not also when the render
//! ends (each wake-up is a context switch that preempts a render). The
//! flusher reads the latest ticket *before* it starts a flush, so every
//! ticket up to that number belongs to a write the flush covers. A failed
//! flush releases its waiters with an error; a later successful flush
//! covers everything before it, so whoever sees that one is durable.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
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

/// How long a flusher may hold a flush back for more writes to share it.
pub struct Linger {
    /// The longest wait after the first write; zero flushes at once.
    pub max: Duration,
    /// With a backlog, the flusher waits only while it has work queued, and
    /// flushes as soon as it drains; without one it always waits `max`.
    pub backlog: Option<Arc<Backlog>>,
}

impl Linger {
    /// Flush at once.
    pub const NONE: Linger = Linger {
        max: Duration::ZERO,
        backlog: None,
    };
}

/// Work queued upstream of the writers (the render queue), as its owner
/// reports it. A queue going empty wakes any flusher waiting on it.
#[derive(Default)]
pub struct Backlog {
    queued: AtomicUsize,
    flushers: Mutex<Vec<Weak<dyn Nudge>>>,
}

impl Backlog {
    /// The owner's queue now holds `queued` items.
    pub fn set(&self, queued: usize) {
        let before = self.queued.swap(queued, Ordering::SeqCst);
        if before > 0 && queued == 0 {
            let flushers = self.flushers.lock().unwrap_or_else(PoisonError::into_inner);
            for flusher in flushers.iter().filter_map(Weak::upgrade) {
                flusher.nudge();
            }
        }
    }

    /// Items in the owner's queue, as last reported.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }

    fn busy(&self) -> bool {
        self.queued() > 0
    }

    fn subscribe(&self, flusher: Weak<dyn Nudge>) {
        let mut flushers = self.flushers.lock().unwrap_or_else(PoisonError::into_inner);
        flushers.retain(|f| f.strong_count() > 0);
        flushers.push(flusher);
    }
}

/// Ends a flusher's wait early.
trait Nudge: Send + Sync {
    fn nudge(&self);
}

#[derive(Debug, Clone, Copy)]
struct Flushed {
    seq: u64,
    ok: bool,
}

struct Shared<D: ?Sized> {
    target: Arc<D>,
    linger: Linger,
    /// Tickets issued so far.
    issued: AtomicU64,
    /// `true` once the owner is gone: flush what is left, then stop.
    stop: Mutex<bool>,
    /// Wakes the flusher for a new ticket.
    wake: Condvar,
    /// The flusher waits on `wake`: only then does a new ticket signal it
    /// (a notify is a system call even when nobody waits).
    idle: AtomicBool,
    /// Ends a linger early (the backlog drained, or stop). Apart from
    /// `wake` so that the tickets arriving meanwhile do not wake it.
    nudged: Condvar,
    /// The flusher is lingering: only then does a nudge signal.
    lingering: AtomicBool,
    flushed: watch::Sender<Flushed>,
    /// Callbacks waiting for a flush, with their tickets. Its lock also
    /// orders a new callback against the flusher's update of `flushed`.
    then: Mutex<Vec<(u64, Then)>>,
}

/// What [`GroupCommit::then`] runs once its write is on disk (or is not).
type Then = Box<dyn FnOnce(Result<(), NotDurable>) + Send>;

impl<D: Durable> Nudge for Shared<D> {
    fn nudge(&self) {
        if self.lingering.load(Ordering::SeqCst) {
            // The lock orders this notify after the flusher's check of the
            // backlog, so it cannot be lost.
            drop(self.stop.lock().unwrap_or_else(PoisonError::into_inner));
            self.nudged.notify_one();
        }
    }
}

impl<D: Durable> Shared<D> {
    fn lock_then(&self) -> MutexGuard<'_, Vec<(u64, Then)>> {
        self.then.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds the next flush back while that may gather more writes.
    fn linger(&self) {
        if self.linger.max.is_zero() {
            return;
        }
        let until = Instant::now() + self.linger.max;
        // Set before the backlog is read: a drain after that read sees it.
        self.lingering.store(true, Ordering::SeqCst);
        let mut stop = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
        while !*stop && self.linger.backlog.as_ref().is_none_or(|b| b.busy()) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            stop = self
                .nudged
                .wait_timeout(stop, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        self.lingering.store(false, Ordering::SeqCst);
    }
}

pub struct GroupCommit<D: Durable> {
    shared: Arc<Shared<D>>,
    thread: Option<JoinHandle<()>>,
}

impl<D: Durable> GroupCommit<D> {
    /// Starts the flusher thread, named `name`, which holds each flush back
    /// as `linger` says.
    pub fn start(name: &str, target: Arc<D>, linger: Linger) -> std::io::Result<GroupCommit<D>> {
        let (flushed, _) = watch::channel(Flushed { seq: 0, ok: true });
        let shared = Arc::new(Shared {
            target,
            linger,
            issued: AtomicU64::new(0),
            stop: Mutex::new(false),
            wake: Condvar::new(),
            idle: AtomicBool::new(false),
            nudged: Condvar::new(),
            lingering: AtomicBool::new(false),
            flushed,
            then: Mutex::new(Vec::new()),
        });
        if let Some(backlog) = &shared.linger.backlog {
            backlog.subscribe(Arc::downgrade(&shared) as Weak<dyn Nudge>);
        }
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
        let ticket = self.ticket();
        let ok = match flushed.wait_for(|f| f.seq >= ticket).await {
            Ok(f) => f.ok,
            Err(_) => false,
        };
        outcome(ok)
    }

    /// Runs `then` once every write that happened before the call is on
    /// disk: on the flusher's thread, right after its flush, so it must be
    /// quick (hand a result over, not do work).
    pub fn then(&self, then: impl FnOnce(Result<(), NotDurable>) + Send + 'static) {
        let ticket = self.ticket();
        let mut waiting = self.shared.lock_then();
        // The flusher updates `flushed` under this lock, so a flush either
        // has covered the ticket already or will find the callback.
        let flushed = *self.shared.flushed.borrow();
        if flushed.seq >= ticket {
            drop(waiting);
            then(outcome(flushed.ok));
        } else {
            waiting.push((ticket, Box::new(then)));
        }
    }

    /// Issues a ticket for the writes made so far and wakes the flusher if
    /// it sleeps.
    fn ticket(&self) -> u64 {
        let ticket = self.shared.issued.fetch_add(1, Ordering::SeqCst) + 1;
        // A flusher not idle yet reads `issued` again before it waits.
        if self.shared.idle.load(Ordering::SeqCst) {
            // Taking the lock orders this notify after the flusher's check
            // of `issued`, so the wake-up cannot be lost.
            drop(
                self.shared
                    .stop
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner),
            );
            self.shared.wake.notify_one();
        }
        ticket
    }
}

fn outcome(ok: bool) -> Result<(), NotDurable> {
    if ok {
        Ok(())
    } else {
        Err(NotDurable)
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
        self.shared.nudged.notify_one();
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
            // Set before `issued` is read: a ticket taken after that read sees it.
            shared.idle.store(true, Ordering::SeqCst);
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
            shared.idle.store(false, Ordering::SeqCst);
            *stop
        };
        if !stop && shared.issued.load(Ordering::SeqCst) > flushed {
            shared.linger();
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
            let covered: Vec<(u64, Then)> = {
                let mut waiting = shared.lock_then();
                shared.flushed.send_replace(Flushed { seq: target, ok });
                waiting
                    .extract_if(.., |(ticket, _)| *ticket <= target)
                    .collect()
            };
            for (_, then) in covered {
                then(outcome(ok));
            }
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
            Arc::new(GroupCommit::start("test-flush", disk.clone(), Linger::NONE).unwrap());
        let waiters: Vec<_> = (0..200).map(|_| write(&commit)).collect();
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

    /// A durable write waited for in a task of its own: whether it succeeded.
    fn write(commit: &Arc<GroupCommit<Disk>>) -> tokio::task::JoinHandle<bool> {
        let commit = commit.clone();
        tokio::spawn(async move { commit.durable().await.is_ok() })
    }

    /// An instant disk and a commit on it that may wait up to `max_ms` while
    /// its backlog, starting at `queued`, has work.
    fn lingering(max_ms: u64, queued: usize) -> (Arc<Disk>, Arc<Backlog>, Arc<GroupCommit<Disk>>) {
        let disk = Disk::new(0);
        let backlog = Arc::new(Backlog::default());
        backlog.set(queued);
        let linger = Linger {
            max: Duration::from_millis(max_ms),
            backlog: Some(backlog.clone()),
        };
        let commit = Arc::new(GroupCommit::start("test-flush", disk.clone(), linger).unwrap());
        (disk, backlog, commit)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn with_nothing_queued_upstream_a_write_is_flushed_at_once() {
        let (disk, _, commit) = lingering(60_000, 0);
        // Were the minute-long linger applied, this would time out.
        tokio::time::timeout(Duration::from_secs(20), commit.durable())
            .await
            .expect("flushed without lingering")
            .unwrap();
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flush_waits_while_work_is_queued_and_goes_when_the_queue_drains() {
        let (disk, backlog, commit) = lingering(60_000, 3);
        let first = write(&commit);
        tokio::time::sleep(Duration::from_millis(100)).await;
        let second = write(&commit);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!first.is_finished(), "flushed while work was queued");
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 0);
        backlog.set(1);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 0);
        backlog.set(0);
        let both = async { (first.await.unwrap(), second.await.unwrap()) };
        let (a, b) = tokio::time::timeout(Duration::from_secs(20), both)
            .await
            .expect("the drain ends the linger");
        assert!(a && b);
        // Both writes shared the one flush.
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_callback_runs_right_after_the_flush_that_covers_its_write() {
        let (disk, backlog, commit) = lingering(60_000, 1);
        let (sender, mut called) = tokio::sync::oneshot::channel();
        let seen = disk.clone();
        commit.then(move |durable| {
            let _ = sender.send((durable.is_ok(), seen.flushes.load(Ordering::SeqCst)));
        });
        let waiter = write(&commit);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(called.try_recv().is_err(), "called before its flush");
        backlog.set(0);
        let (durable, flushes) = tokio::time::timeout(Duration::from_secs(20), called)
            .await
            .expect("the drain ends the linger")
            .unwrap();
        assert!(durable);
        assert_eq!(flushes, 1, "called after the flush, not before");
        // The waiter shared that flush.
        assert!(waiter.await.unwrap());
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_queue_that_never_drains_holds_a_flush_back_no_longer_than_the_maximum() {
        let (disk, _backlog, commit) = lingering(300, 1);
        let started = Instant::now();
        tokio::time::timeout(Duration::from_secs(20), commit.durable())
            .await
            .expect("the maximum ends the linger")
            .unwrap();
        assert!(started.elapsed() >= Duration::from_millis(300));
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_arriving_within_the_delay_share_one_flush() {
        let disk = Disk::new(0);
        let delay = Duration::from_millis(300);
        let linger = Linger {
            max: delay,
            backlog: None,
        };
        let commit = Arc::new(GroupCommit::start("test-flush", disk.clone(), linger).unwrap());
        let started = Instant::now();
        let mut waiters = Vec::new();
        // Five writes 20 ms apart: an instant disk would flush each alone.
        for _ in 0..5 {
            waiters.push(write(&commit));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for waiter in waiters {
            assert!(waiter.await.unwrap());
        }
        assert_eq!(disk.flushes.load(Ordering::SeqCst), 1);
        assert!(started.elapsed() >= delay);
    }
}
