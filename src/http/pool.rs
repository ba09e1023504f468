//! The bounded render pool: `slots` render threads, at most `queue` jobs
//! waiting for them, and everything past that is API-503 at once.
//!
//! Each render thread is the only worker of its own one-thread rayon pool
//! (see [`labelpress_document::engine::threads`]): Typst and the PDF exporter hand work to
//! rayon, and with a private pool that work runs on the render's own thread
//! instead of waking shared rayon workers that then spin idle beside the
//! other renders. A thread takes the next job as soon as it finishes one, so
//! a busy server switches threads once per request, not once per phase.
//!
//! Idle threads are woken last in, first out: at low load one thread (and
//! its worker process) takes every request while its caches are warm,
//! instead of requests going round all threads in turn.
//!
//! The deadline covers waiting and rendering. A job still waiting at its
//! deadline is withdrawn ([`PoolError::Deadline`] with `started: false`). A
//! Typst compile cannot be cancelled, so a job already running goes on in the
//! background, still holding its thread (capacity stays honest); its result
//! is dropped and nothing is charged. A job that has claimed its result
//! ([`Reply::claim`]) before the deadline is waited for however long its
//! answer then takes: what it did for the answer (the charge) is not undone.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::time::Instant;

use crate::api_error::ApiError;
use crate::group_commit::Backlog;
use labelpress_document::config::Limits;
use labelpress_document::engine::threads;

pub struct RenderPool {
    shared: Arc<Shared>,
    /// One per slot; kept so the threads live as long as the pool.
    threads: Vec<rayon::ThreadPool>,
    queue: usize,
    deadline: Duration,
    retry_after_s: u64,
}

/// Why [`RenderPool::run`] gave no result.
#[derive(Debug)]
pub enum PoolError {
    QueueFull,
    /// The deadline passed; `started` tells whether the job had begun.
    Deadline {
        started: bool,
    },
    /// The job panicked.
    Panicked,
}

impl PoolError {
    pub fn into_api(self, retry_after_s: u64) -> ApiError {
        match self {
            PoolError::QueueFull => ApiError::Overloaded {
                message: "the render queue is full".into(),
                retry_after_s,
            },
            PoolError::Deadline { .. } => ApiError::Overloaded {
                message: "the render deadline was exceeded".into(),
                retry_after_s,
            },
            PoolError::Panicked => ApiError::Internal("the render task failed".into()),
        }
    }
}

/// Where a job is; whoever moves it out of `WAITING` or `RUNNING` accounts
/// for it: the caller when it gives up at the deadline (`WITHDRAWN`,
/// `ABANDONED`), the job when it claims its result first (`CLAIMED`).
const WAITING: u8 = 0;
const RUNNING: u8 = 1;
const WITHDRAWN: u8 = 2;
const ABANDONED: u8 = 3;
const CLAIMED: u8 = 4;

/// How a job answers its caller, now or later (from another thread).
pub struct Reply<T> {
    sender: oneshot::Sender<T>,
    state: Arc<AtomicU8>,
}

impl<T> Reply<T> {
    /// Takes the answer over from the deadline: from now on the caller waits
    /// for [`Reply::send`]. False when the caller has already given up, and
    /// nothing should be done for an answer nobody will get.
    pub fn claim(&self) -> bool {
        self.state
            .compare_exchange(RUNNING, CLAIMED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

impl<T: 'static> Reply<T> {
    /// Answers the caller (if it still listens: an unclaimed answer may
    /// come after the caller gave up). Given on a render thread, the answer
    /// is held until its job has returned and the thread is idle again
    /// (see [`Shared::next`]); given elsewhere, at once.
    pub fn send(self, value: T) {
        let sender = self.sender;
        if ON_RENDER_THREAD.get() {
            HELD_ANSWER.set(Some(Box::new(move || {
                let _ = sender.send(value);
            })));
        } else {
            let _ = sender.send(value);
        }
    }
}

/// An answer given on a render thread, waiting to be sent.
type HeldAnswer = Box<dyn FnOnce()>;

thread_local! {
    static ON_RENDER_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The answer the running job gave on this render thread, if any.
    static HELD_ANSWER: std::cell::RefCell<Option<HeldAnswer>> = const { std::cell::RefCell::new(None) };
}

struct Job {
    state: Arc<AtomicU8>,
    work: Box<dyn FnOnce() + Send>,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Jobs in `jobs` still `WAITING` (withdrawn ones are skipped when popped).
    waiting: usize,
    running: usize,
    /// Threads waiting for a job (their indices), the one that finished
    /// last on top: a new job wakes that one. A notify is a system call even
    /// when nobody waits, so a job only signals when this is not empty.
    idle: Vec<usize>,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    /// One per thread, all used with `queue`: each thread waits on its own,
    /// so that a new job wakes the thread it chooses.
    wakes: Vec<Condvar>,
    /// The count of waiting jobs, for the usage outbox's group commit: while
    /// renders wait, its sync may wait too (see [`crate::group_commit`]).
    backlog: Arc<Backlog>,
}

impl Shared {
    fn new(threads: usize) -> Shared {
        Shared {
            queue: Mutex::default(),
            wakes: (0..threads).map(|_| Condvar::new()).collect(),
            backlog: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A job never runs under the lock, so a poisoned lock holds consistent data.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next job for thread `me` to run, or `None` once the pool is
    /// dropped. `finished` is whether `me` just ran a job, and `answer`
    /// the answer that job gave on this thread ([`Reply::send`]): it is
    /// given once `me` is back on the idle stack, so that a caller's next
    /// request, which may follow at once, finds this thread (its caches
    /// warm) rather than waking another. Then, before waiting, `ready`
    /// readies the thread for its next job.
    fn next(
        &self,
        me: usize,
        finished: bool,
        mut answer: Option<HeldAnswer>,
        ready: &dyn Fn(),
    ) -> Option<Job> {
        let mut queue = self.lock();
        let mut unready = finished;
        if finished {
            queue.running -= 1;
        }
        let job = loop {
            if let Some(job) = self.take_waiting(&mut queue) {
                break Some(job);
            }
            if queue.closed {
                break None;
            }
            queue.idle.push(me);
            if answer.is_some() || unready {
                drop(queue);
                if let Some(give) = answer.take() {
                    give();
                }
                if std::mem::take(&mut unready) {
                    ready();
                }
                queue = self.lock();
                if !queue.idle.contains(&me) {
                    // A job took `me` off the stack meanwhile: its signal
                    // came before this thread waited.
                    continue;
                }
            }
            queue = self.wakes[me]
                .wait(queue)
                .unwrap_or_else(|e| e.into_inner());
            // A job's signal took `me` off the stack; a spurious wake-up did not.
            queue.idle.retain(|&thread| thread != me);
        };
        drop(queue);
        // Not given yet when a job was waiting (or the pool closed) at once.
        if let Some(give) = answer {
            give();
        }
        job
    }

    /// The first job still waiting, now running.
    fn take_waiting(&self, queue: &mut Queue) -> Option<Job> {
        while let Some(job) = queue.jobs.pop_front() {
            if job
                .state
                .compare_exchange(WAITING, RUNNING, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                queue.waiting -= 1;
                queue.running += 1;
                self.backlog.set(queue.waiting);
                return Some(job);
            }
        }
        None
    }

    fn worker(&self, me: usize, ready: &dyn Fn()) {
        ON_RENDER_THREAD.set(true);
        ready();
        let mut next = self.next(me, false, None, ready);
        while let Some(job) = next {
            // A panic drops the job's result sender: the caller sees `Panicked`.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(job.work));
            threads::finish_local_work();
            next = self.next(me, true, HELD_ANSWER.take(), ready);
        }
    }
}

impl RenderPool {
    /// Starts the render threads and sizes the queue as `limits` say.
    pub fn new(limits: &Limits) -> RenderPool {
        RenderPool::with_ready(limits, Arc::new(|| ()))
    }

    /// As [`RenderPool::new`], with `ready` run on each render thread when
    /// it starts and whenever it goes idle after a job, once the job's
    /// answer is out: a render worker process is started there, and one
    /// that died is replaced before the next job needs it.
    pub fn with_ready(limits: &Limits, ready: Arc<dyn Fn() + Send + Sync>) -> RenderPool {
        let slots = limits.render_slots();
        let shared = Arc::new(Shared::new(slots));
        let threads = (0..slots)
            .map(|i| {
                let name = format!("render-{i}");
                let pool = threads::render_thread(name, limits.render_thread_nice);
                let shared = shared.clone();
                let ready = ready.clone();
                pool.spawn(move || shared.worker(i, &*ready));
                pool
            })
            .collect();
        RenderPool {
            shared,
            threads,
            queue: limits.render_queue,
            deadline: Duration::from_millis(limits.render_deadline_ms),
            retry_after_s: limits.retry_after_s,
        }
    }

    /// Render threads: jobs that can run at once.
    pub fn slots(&self) -> usize {
        self.threads.len()
    }

    pub fn running(&self) -> usize {
        self.shared.lock().running
    }

    pub fn waiting(&self) -> usize {
        self.shared.lock().waiting
    }

    pub fn retry_after_s(&self) -> u64 {
        self.retry_after_s
    }

    /// How long a request may take from its arrival, queueing included.
    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// The count of jobs waiting for a thread, kept up to date for others.
    pub fn backlog(&self) -> Arc<Backlog> {
        self.shared.backlog.clone()
    }

    /// Runs `job` on a render thread and answers with what it returns (the
    /// tests' shorthand for [`RenderPool::run_with_reply`]).
    #[cfg(test)]
    pub async fn run<T, F>(&self, started: Instant, job: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.run_with_reply(started, move |reply| {
            let value = job();
            if reply.claim() {
                reply.send(value);
            }
        })
        .await
    }

    /// Runs `job` on a render thread, which answers through its [`Reply`]:
    /// before it returns, or later from elsewhere once it has claimed it.
    /// `started` is when the request's deadline began.
    pub async fn run_with_reply<T, F>(&self, started: Instant, job: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce(Reply<T>) + Send + 'static,
    {
        let (sender, mut receiver) = oneshot::channel();
        let state = Arc::new(AtomicU8::new(WAITING));
        let signal = {
            let mut queue = self.shared.lock();
            let free = self
                .threads
                .len()
                .saturating_sub(queue.running + queue.waiting);
            if free == 0 && queue.waiting >= self.queue {
                return Err(PoolError::QueueFull);
            }
            queue.waiting += 1;
            self.shared.backlog.set(queue.waiting);
            let reply = Reply {
                sender,
                state: state.clone(),
            };
            queue.jobs.push_back(Job {
                state: state.clone(),
                work: Box::new(move || job(reply)),
            });
            queue.idle.pop()
        };
        if let Some(thread) = signal {
            self.shared.wakes[thread].notify_one();
        }
        let answer = match tokio::time::timeout_at(started + self.deadline, &mut receiver).await {
            Ok(answer) => answer,
            Err(_) if self.withdraw(&state) => return Err(PoolError::Deadline { started: false }),
            Err(_) => {
                let abandoned = state
                    .compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
                if abandoned {
                    return Err(PoolError::Deadline { started: true });
                }
                // The job claimed its answer in time: it is on its way.
                receiver.await
            }
        };
        answer.map_err(|_| PoolError::Panicked)
    }

    /// Takes a job that has not started out of the queue; false when it has.
    fn withdraw(&self, state: &AtomicU8) -> bool {
        let mut queue = self.shared.lock();
        let withdrawn = state
            .compare_exchange(WAITING, WITHDRAWN, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if withdrawn {
            queue.waiting -= 1;
            self.shared.backlog.set(queue.waiting);
        }
        withdrawn
    }
}

impl Drop for RenderPool {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        for wake in &self.shared.wakes {
            wake.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pool of `slots` threads, `queue` places and a deadline of `deadline_ms`.
    fn pool(slots: usize, queue: usize, deadline_ms: u64) -> RenderPool {
        RenderPool::new(&Limits {
            render_concurrency: slots,
            render_queue: queue,
            render_deadline_ms: deadline_ms,
            retry_after_s: 1,
            ..Limits::default()
        })
    }

    /// Starts a job that keeps a render thread busy for `ms`.
    fn occupy(pool: &Arc<RenderPool>, ms: u64) -> tokio::task::JoinHandle<Result<(), PoolError>> {
        let pool = pool.clone();
        tokio::spawn(async move {
            pool.run(Instant::now(), move || {
                std::thread::sleep(Duration::from_millis(ms))
            })
            .await
        })
    }

    #[tokio::test]
    async fn a_full_queue_answers_at_once_and_a_slow_job_hits_the_deadline() {
        let pool = Arc::new(pool(1, 0, 200));
        let slow = occupy(&pool, 500);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(pool.running(), 1);
        let second = pool.run(Instant::now(), || ()).await;
        assert!(matches!(second, Err(PoolError::QueueFull)));
        assert!(matches!(
            slow.await.unwrap(),
            Err(PoolError::Deadline { started: true })
        ));
        // The abandoned job still holds its thread until it finishes.
        assert_eq!(pool.running(), 1);
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(pool.running(), 0);
        assert_eq!(pool.run(Instant::now(), || 7).await.unwrap(), 7);
    }

    #[tokio::test]
    async fn a_job_still_waiting_at_its_deadline_is_withdrawn_and_never_runs() {
        // The deadline is long enough for the last job to find the thread
        // on a loaded machine (the render threads run niced).
        let pool = Arc::new(pool(1, 1, 500));
        let ran = Arc::new(AtomicU8::new(0));
        let blocker = occupy(&pool, 1000);
        tokio::time::sleep(Duration::from_millis(30)).await;
        let flag = ran.clone();
        let waiting = pool.run(Instant::now(), move || flag.store(1, Ordering::SeqCst));
        assert!(matches!(
            waiting.await,
            Err(PoolError::Deadline { started: false })
        ));
        assert_eq!(pool.waiting(), 0);
        assert_eq!(pool.backlog().queued(), 0);
        let _ = blocker.await;
        // The thread is free again and skipped the withdrawn job.
        assert_eq!(pool.run(Instant::now(), || 5).await.unwrap(), 5);
        assert_eq!(ran.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn the_backlog_counts_the_jobs_waiting_for_a_thread() {
        let pool = Arc::new(pool(1, 4, 5000));
        let backlog = pool.backlog();
        let blocker = occupy(&pool, 300);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(backlog.queued(), 0, "a running job is not waiting");
        let waiting: Vec<_> = (0..2).map(|_| occupy(&pool, 1)).collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(backlog.queued(), 2);
        blocker.await.unwrap().unwrap();
        for job in waiting {
            job.await.unwrap().unwrap();
        }
        assert_eq!(backlog.queued(), 0);
    }

    #[tokio::test]
    async fn a_panicking_job_is_reported_and_the_thread_lives_on() {
        // A deadline far off: printing the panic's backtrace took more than
        // 5 s on a machine loaded by two builds, which reported a deadline.
        let pool = pool(1, 4, 60_000);
        let panicked = pool.run(Instant::now(), || panic!("boom")).await;
        assert!(matches!(panicked, Err(PoolError::Panicked)));
        // The thread gives its slot back just after the caller hears of it.
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while pool.running() != 0 {
            assert!(std::time::Instant::now() < deadline, "slot never freed");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(pool.run(Instant::now(), || 3).await.unwrap(), 3);
    }

    #[tokio::test]
    async fn a_claimed_answer_is_waited_for_past_the_deadline() {
        let pool = pool(1, 4, 100);
        let answer = pool
            .run_with_reply(Instant::now(), |reply| {
                assert!(reply.claim());
                // Answered from another thread, well after the deadline.
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(300));
                    reply.send(9);
                });
            })
            .await;
        assert_eq!(answer.unwrap(), 9);
    }

    #[tokio::test]
    async fn a_job_still_running_at_its_deadline_can_no_longer_claim_its_answer() {
        let pool = pool(1, 4, 100);
        let (claimed, late) = std::sync::mpsc::channel();
        let answer = pool
            .run_with_reply(Instant::now(), move |reply| {
                std::thread::sleep(Duration::from_millis(300));
                let _ = claimed.send(reply.claim());
                reply.send(1);
            })
            .await;
        assert!(matches!(answer, Err(PoolError::Deadline { started: true })));
        let claimed = tokio::task::spawn_blocking(move || late.recv().unwrap());
        assert!(!claimed.await.unwrap());
    }

    #[tokio::test]
    async fn one_request_at_a_time_stays_on_the_thread_that_finished_last() {
        let pool = pool(4, 4, 5000);
        // Every thread started and idle.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut threads = std::collections::HashSet::new();
        // Back to back: each request is sent as soon as the last one's
        // answer is in, which a thread that answered before going idle
        // would miss.
        for _ in 0..200 {
            let thread = pool.run(Instant::now(), || std::thread::current().id());
            threads.insert(thread.await.unwrap());
        }
        assert_eq!(
            threads.len(),
            1,
            "requests went round {} threads",
            threads.len()
        );
    }

    #[tokio::test]
    async fn rayon_work_of_a_job_runs_on_the_job_s_own_thread() {
        let pool = pool(2, 4, 5000);
        let (outer, inner) = pool
            .run(Instant::now(), || {
                let outer = std::thread::current().id();
                let (sender, receiver) = std::sync::mpsc::channel();
                rayon::spawn(move || sender.send(std::thread::current().id()).unwrap());
                threads::finish_local_work();
                (outer, receiver.recv().unwrap())
            })
            .await
            .unwrap();
        assert_eq!(outer, inner);
    }
}
