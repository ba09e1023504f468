//! Render isolation: where a server's renders run.
//!
//! A Typst compile cannot be cancelled, and a request can still find a way
//! to crash it (an upstream panic, a stack overflow, the allocator failing).
//! So by default (`limits.render_isolation = "process"`) each render thread
//! of the server drives one pre-started worker process and renders there:
//! at the deadline the worker is killed and replaced, and a crash takes down
//! only that worker and its one request. Workers run with a capped address
//! space (`limits.render_worker_memory_mb`) and a deep render stack.
//!
//! With `"thread"` renders run on the render threads themselves: less
//! overhead, no such protection (benchmarks and tests of the pool use it).

pub mod child;
pub mod oom;
mod process;
pub mod protocol;

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use self::process::{Worker, WorkerError};
pub use self::protocol::{Job, Spec, Work};
use labelpress_document::engine::{Engine, Output, RenderError, Rendered};
use labelpress_document::warnings::CheckReport;

/// How a render thread turns a request body into a PDF.
#[derive(Clone)]
pub enum Renderer {
    /// On the calling thread, with the server's engine.
    InProcess(Arc<Engine>),
    /// In the calling render thread's own worker process.
    Processes(Arc<Workers>),
}

/// Why no PDF came out.
#[derive(Debug, thiserror::Error)]
pub enum RenderFailure {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Worker(#[from] WorkerError),
}

/// How the workers of one server are started.
pub struct Workers {
    binary: PathBuf,
    spec: Spec,
    memory_bytes: u64,
    /// Workers started to replace one that died or was killed.
    replaced: AtomicU64,
}

thread_local! {
    /// This render thread's worker, once started.
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
}

impl Workers {
    /// Workers of `binary` (normally this executable) built from `spec`.
    /// Starts one and stops it again, so that a setup that cannot start a
    /// worker fails at once rather than at the first request.
    pub fn new(binary: PathBuf, spec: Spec) -> Result<Workers, String> {
        let memory_bytes = spec.config.limits.render_worker_memory_mb << 20;
        let workers = Workers {
            binary,
            spec,
            memory_bytes,
            replaced: AtomicU64::new(0),
        };
        workers.start().map_err(|e| e.to_string())?;
        Ok(workers)
    }

    /// Runs `job` on the calling render thread's worker. A worker that
    /// fails is dropped (and counted as replaced). A job that provably
    /// never reached its worker (the worker died while idle) gets one fresh
    /// worker; a job that may have run, and may be what killed the worker,
    /// never runs twice.
    fn on_own_worker<T>(
        &self,
        mut job: impl FnMut(&mut Worker) -> Result<T, WorkerError>,
    ) -> Result<T, WorkerError> {
        WORKER.with_borrow_mut(|slot| {
            let mut fresh_tries = 1;
            loop {
                let worker = self.live_worker(slot)?;
                match job(worker) {
                    Ok(value) => return Ok(value),
                    Err(e) => {
                        *slot = None;
                        self.replaced.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(error = %e, "render worker replaced");
                        match e {
                            WorkerError::Gone(_) if fresh_tries > 0 => fresh_tries -= 1,
                            e => return Err(e),
                        }
                    }
                }
            }
        })
    }

    /// The calling thread's worker, started anew when there is none or the
    /// one there has died since its last job.
    fn live_worker<'a>(&self, slot: &'a mut Option<Worker>) -> Result<&'a mut Worker, WorkerError> {
        if let Some(worker) = slot.as_mut() {
            if !worker.is_alive() {
                tracing::warn!(
                    pid = worker.pid(),
                    "idle render worker found dead; replacing it"
                );
                *slot = None;
                self.replaced.fetch_add(1, Ordering::Relaxed);
            }
        }
        match slot {
            Some(worker) => Ok(worker),
            None => Ok(slot.insert(self.start()?)),
        }
    }

    fn start(&self) -> Result<Worker, WorkerError> {
        let nice = self.spec.config.limits.render_thread_nice.get();
        Worker::start(&self.binary, &self.spec, self.memory_bytes, nice)
    }
}

impl Renderer {
    /// Does `work` on `body`; a worker gives up at `deadline`.
    pub fn render(
        &self,
        work: &Work,
        body: &[u8],
        deadline: Instant,
    ) -> Result<(Rendered, Duration), RenderFailure> {
        match self {
            Renderer::InProcess(engine) => Ok(work.run(engine, body)?),
            Renderer::Processes(workers) => {
                let outcome = workers.on_own_worker(|w| w.render(work, body, deadline))?;
                Ok(outcome?)
            }
        }
    }

    /// Validates `body` and reports what the check route answers; in the
    /// render thread's worker, so the deadline and the memory cap bound it.
    pub fn check(&self, body: &[u8], deadline: Instant) -> Result<CheckReport, RenderFailure> {
        match self {
            Renderer::InProcess(engine) => Ok(CheckReport::of(&engine.validate(body))),
            Renderer::Processes(workers) => {
                Ok(workers.on_own_worker(|w| w.check(&Job::Check, body, deadline))?)
            }
        }
    }

    /// Validates the batch `body` for `output` and reports it: the refusal,
    /// or its valid documents' sheets and warnings. In the render thread's
    /// worker, as [`Renderer::check`].
    pub fn check_batch(
        &self,
        output: &Output,
        body: &[u8],
        deadline: Instant,
    ) -> Result<CheckReport, RenderFailure> {
        match self {
            Renderer::InProcess(engine) => Ok(engine.check_batch(body, output)),
            Renderer::Processes(workers) => {
                let job = Job::CheckBatch(*output);
                Ok(workers.on_own_worker(|w| w.check(&job, body, deadline))?)
            }
        }
    }

    /// Worker processes started to replace one that was stopped or died.
    pub fn workers_replaced(&self) -> u64 {
        match self {
            Renderer::InProcess(_) => 0,
            Renderer::Processes(workers) => workers.replaced.load(Ordering::Relaxed),
        }
    }

    /// Makes sure the calling render thread has a running worker, so that
    /// the next request does not wait for one to start. Called when a render
    /// thread starts and when it goes idle after a job
    /// (`RenderPool::with_ready`); a job that comes first finds a missing or
    /// dead worker itself (`live_worker`).
    pub fn prepare(&self) {
        let Renderer::Processes(workers) = self else {
            return;
        };
        WORKER.with_borrow_mut(|slot| {
            if slot.is_none() {
                match workers.start() {
                    Ok(worker) => *slot = Some(worker),
                    Err(e) => tracing::error!(error = %e, "render worker"),
                }
            }
        });
    }
}
