//! Where renders run: each on a thread that is the only worker of its own
//! rayon pool.
//!
//! Typst lays pages out with rayon and the PDF exporter (krilla) prepares
//! fonts, images and pages as deferred rayon jobs. From a plain thread those
//! jobs go to rayon's global pool: every render wakes its workers, waits for
//! them, and leaves them spinning idle, which takes CPU from the other
//! renders of a busy server (one label measured 0.96 ms of CPU per render on
//! a plain thread, 0.83 ms on its own pool, and rendered faster too). On a
//! render thread rayon work lands in the thread's own queue and runs there,
//! when the exporter waits for it.
//!
//! A server's render threads also run at a lower priority than its other
//! threads ([`crate::config::Limits::render_thread_nice`]), so that the short
//! work that answers a request and hands the next one over never waits for a
//! render's time slice to end.

use crate::config::Nice;

/// Stack of a thread that renders: deep enough for every nesting the
/// validated limits allow (Typst and usvg recurse per level).
pub const RENDER_STACK_BYTES: usize = 256 << 20;

/// A one-thread rayon pool whose thread is named `name` and runs `nice`
/// steps below the priority it starts with. Work spawned on it (and rayon
/// work that work spawns) stays on that thread.
pub fn render_thread(name: String, nice: Nice) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(move |_| name.clone())
        .stack_size(RENDER_STACK_BYTES)
        .start_handler(move |_| {
            if let Err(e) = lower_priority(nice) {
                tracing::warn!(error = %e, "a render thread keeps its priority");
            }
        })
        .build()
        .expect("a render thread can be started")
}

/// Lowers the calling thread's priority by `nice` steps (Linux keeps a nice
/// value per thread; elsewhere `setpriority` would lower the whole process,
/// so this does nothing there).
fn lower_priority(nice: Nice) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    if nice.get() > 0 {
        // SAFETY: gettid has no preconditions; get/setpriority only read
        // their integer arguments. getpriority may return -1 as a value, so
        // errno is cleared first to tell that from an error.
        unsafe {
            let thread = libc::gettid() as libc::id_t;
            *libc::__errno_location() = 0;
            let current = libc::getpriority(libc::PRIO_PROCESS, thread);
            if current == -1 && *libc::__errno_location() != 0 {
                return Err(std::io::Error::last_os_error());
            }
            let lowered = (current + nice.get()).min(19);
            if libc::setpriority(libc::PRIO_PROCESS, thread, lowered) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
    Ok(())
}

/// The calling thread's nice value (Linux), for tests.
#[cfg(all(test, target_os = "linux"))]
fn current_nice() -> i32 {
    // SAFETY: as in lower_priority; the values tested are never -1.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
}

/// Makes the calling thread a render thread for the rest of its life, for
/// code that measures renders single-threaded where it stands (benchmark
/// harnesses, which cannot move to another thread).
pub fn become_render_thread() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .expect("the current thread can become a render thread");
    // The thread stays the pool's worker; rayon never frees such a pool's
    // registry anyway.
    std::mem::forget(pool);
}

/// Runs rayon work a finished job left queued on the current render thread
/// (work nobody waited for), so none of it stays behind to run in the next
/// job's time.
pub fn finish_local_work() {
    while let Some(rayon::Yield::Executed) = rayon::yield_now() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_render_thread_runs_its_nice_steps_below_the_thread_that_started_it() {
        let started_at = current_nice();
        let steps = (19 - started_at).min(7);
        let pool = render_thread(
            "nice-test".into(),
            Nice::try_from(i64::from(steps)).unwrap(),
        );
        assert_eq!(pool.install(current_nice), started_at + steps);
        assert_eq!(
            current_nice(),
            started_at,
            "the starting thread keeps its priority"
        );
        let unchanged = render_thread("nice-test".into(), Nice::try_from(0).unwrap());
        assert_eq!(unchanged.install(current_nice), started_at);
    }

    #[test]
    fn parallel_work_of_a_render_thread_stays_on_it() {
        use rayon::prelude::*;
        let on_their_own_thread = |start: fn()| {
            std::thread::spawn(move || {
                start();
                let own = std::thread::current().id();
                let (sender, receiver) = std::sync::mpsc::channel();
                rayon::spawn(move || sender.send(std::thread::current().id()).unwrap());
                finish_local_work();
                let mut ids: Vec<_> = (0..64)
                    .into_par_iter()
                    .map(|_| std::thread::current().id())
                    .collect();
                ids.push(receiver.recv().unwrap());
                ids.iter().all(|id| *id == own)
            })
            .join()
            .unwrap()
        };
        assert!(on_their_own_thread(become_render_thread));
        // A plain thread hands the same work to rayon's global pool.
        assert!(!on_their_own_thread(|| ()));
    }
}
