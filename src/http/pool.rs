//! The bounded render pool: `slots` renders run at once on blocking threads,
//! at most `queue` more wait, and everything past that is API-503 at once.
//!
//! The deadline covers waiting and rendering. A Typst compile cannot be
//! cancelled, so at the deadline the client gets API-503 while the compile
//! runs on in the background, still holding its slot (capacity stays honest);
//! its result is dropped and nothing is charged.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::api_error::ApiError;

pub struct RenderPool {
    slots: usize,
    permits: Arc<Semaphore>,
    waiting: AtomicUsize,
    queue: usize,
    deadline: Duration,
    retry_after_s: u64,
}

/// Why [`RenderPool::run`] gave no result.
#[derive(Debug)]
pub enum PoolError {
    QueueFull,
    Deadline,
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
            PoolError::Deadline => ApiError::Overloaded {
                message: "the render deadline was exceeded".into(),
                retry_after_s,
            },
            PoolError::Panicked => ApiError::Internal("the render task failed".into()),
        }
    }
}

impl RenderPool {
    pub fn new(slots: usize, queue: usize, deadline: Duration, retry_after_s: u64) -> RenderPool {
        let slots = slots.max(1);
        RenderPool {
            slots,
            permits: Arc::new(Semaphore::new(slots)),
            waiting: AtomicUsize::new(0),
            queue,
            deadline,
            retry_after_s,
        }
    }

    pub fn running(&self) -> usize {
        self.slots - self.permits.available_permits().min(self.slots)
    }

    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    pub fn retry_after_s(&self) -> u64 {
        self.retry_after_s
    }

    /// Runs `job` on a blocking thread once a slot is free; `started` is when
    /// the request's deadline began.
    pub async fn run<T, F>(&self, started: Instant, job: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let deadline = started + self.deadline;
        let permit = match self.permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.queue {
                    self.waiting.fetch_sub(1, Ordering::SeqCst);
                    return Err(PoolError::QueueFull);
                }
                let acquired =
                    tokio::time::timeout_at(deadline, self.permits.clone().acquire_owned()).await;
                self.waiting.fetch_sub(1, Ordering::SeqCst);
                match acquired {
                    Ok(Ok(permit)) => permit,
                    Ok(Err(_)) => return Err(PoolError::Panicked),
                    Err(_) => return Err(PoolError::Deadline),
                }
            }
        };
        let task = tokio::task::spawn_blocking(move || {
            let out = job();
            drop(permit);
            out
        });
        match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(out)) => Ok(out),
            Ok(Err(_)) => Err(PoolError::Panicked),
            Err(_) => Err(PoolError::Deadline),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_queue_answers_at_once_and_a_slow_job_hits_the_deadline() {
        let pool = Arc::new(RenderPool::new(1, 0, Duration::from_millis(200), 1));
        let slow = {
            let pool = pool.clone();
            tokio::spawn(async move {
                pool.run(Instant::now(), || {
                    std::thread::sleep(Duration::from_millis(500))
                })
                .await
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(pool.running(), 1);
        let second = pool.run(Instant::now(), || ()).await;
        assert!(matches!(second, Err(PoolError::QueueFull)));
        assert!(matches!(slow.await.unwrap(), Err(PoolError::Deadline)));
        // The abandoned job still holds its slot until it finishes.
        assert_eq!(pool.running(), 1);
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(pool.running(), 0);
        assert_eq!(pool.run(Instant::now(), || 7).await.unwrap(), 7);
    }
}
