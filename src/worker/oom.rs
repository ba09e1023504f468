//! A render worker that reaches its memory cap says so before it dies.
//!
//! Workers run under an address-space cap (`limits.render_worker_memory_mb`).
//! When an allocation fails there, Rust would print a line to stderr and
//! abort, and the server would only see a closed socket: a 500 that tells
//! the client nothing. Instead the worker's allocator, on a failed
//! allocation, writes a prepared [`Answer::OutOfMemory`] frame straight to
//! its socket and exits at once, so the server answers what happened. The
//! frame is built when the worker starts ([`arm`]): writing it allocates
//! nothing. In the server and the CLI nothing is armed, and a failed
//! allocation goes to Rust's own handler as before.
//!
//! [`Answer::OutOfMemory`]: super::protocol::Answer::OutOfMemory

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use super::child::SOCKET_FD;

/// mimalloc, with the worker's notice on a failed allocation.
pub struct Allocator;

/// The notice frame (length prefix and JSON), leaked once armed.
static NOTICE: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static NOTICE_LEN: AtomicUsize = AtomicUsize::new(0);

/// Exit code of a worker that ran out of memory.
pub const EXIT_OUT_OF_MEMORY: i32 = 12;

/// Arms the notice: `frame` is written as is when an allocation fails.
pub fn arm(frame: Vec<u8>) {
    let frame = frame.leak();
    NOTICE_LEN.store(frame.len(), Ordering::SeqCst);
    NOTICE.store(frame.as_mut_ptr(), Ordering::SeqCst);
}

#[cold]
fn allocation_failed() {
    let notice = NOTICE.swap(std::ptr::null_mut(), Ordering::SeqCst);
    if notice.is_null() {
        return;
    }
    let len = NOTICE_LEN.load(Ordering::SeqCst);
    // SAFETY: `notice` points at `len` leaked bytes; write(2) and _exit(2)
    // allocate nothing. The worker answers nothing after this, so the
    // frame cannot interleave with another answer.
    unsafe {
        libc::write(SOCKET_FD, notice.cast(), len);
        libc::_exit(EXIT_OUT_OF_MEMORY);
    }
}

// SAFETY: every call goes to mimalloc unchanged; only a null result is
// looked at.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = mimalloc::MiMalloc.alloc(layout);
        if p.is_null() {
            allocation_failed();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = mimalloc::MiMalloc.alloc_zeroed(layout);
        if p.is_null() {
            allocation_failed();
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = mimalloc::MiMalloc.realloc(ptr, layout, new_size);
        if p.is_null() {
            allocation_failed();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        mimalloc::MiMalloc.dealloc(ptr, layout)
    }
}
