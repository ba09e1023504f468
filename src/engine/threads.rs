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

/// A one-thread rayon pool whose thread is named `name`. Work spawned on it
/// (and rayon work that work spawns) stays on that thread.
pub fn render_thread(name: String) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .thread_name(move |_| name.clone())
        .build()
        .expect("a render thread can be started")
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
