//! Memory hygiene between renders.
//!
//! comemo's global cache grows without bound (20 distinct 2,000-row invoices
//! reached 3.3 GB RSS), so old entries are evicted after renders. Eviction is
//! done by one thread at a time (a try-lock), not by every render thread.

use std::sync::Mutex;

/// Cache generations kept: enough for the prelude and fonts to stay warm.
const MAX_AGE: usize = 4;

static EVICTING: Mutex<()> = Mutex::new(());

/// Called after every render.
pub fn after_render() {
    if let Ok(_guard) = EVICTING.try_lock() {
        typst::comemo::evict(MAX_AGE);
    }
}

/// Slices a cached result may go unused before it is evicted, between the
/// slices of one document: one, so that what every slice uses (the
/// prelude, fonts, styles, a header's content) is hit again and stays,
/// while a slice's own pages, which the next slice never asks for, go
/// after that next slice.
const SLICE_MAX_AGE: usize = 1;

/// Called after each slice of a document compiled in slices: evicts what
/// the slice just compiled did not use (see [`SLICE_MAX_AGE`]), then
/// returns freed heap to the OS. A render thread beside it may lose the
/// part of its warm cache this slice did not touch.
pub fn after_slice() {
    typst::comemo::evict(SLICE_MAX_AGE);
    trim();
}

/// Returns freed heap to the OS (mimalloc also does this on its own after a
/// short delay); for idle moments and memory measurements.
pub fn trim() {
    // SAFETY: mi_collect only walks mimalloc's own heaps; `true` forces
    // freed pages back to the OS.
    unsafe {
        libmimalloc_sys::mi_collect(true);
    }
}
