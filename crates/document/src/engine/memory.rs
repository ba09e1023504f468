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

/// Called after each slice of a document compiled in slices: every
/// cached result goes, since the next slice's pages share none of this
/// one's, and the cache holds the pages' frames that the slice's compiled
/// document just let go (a render thread beside it only loses its warm
/// cache).
pub fn after_slice() {
    typst::comemo::evict(0);
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
