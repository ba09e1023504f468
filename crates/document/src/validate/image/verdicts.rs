//! Verdicts on images already checked, so that the same bytes are decoded
//! or parsed once per process, not once per element: the same logo on
//! every label, or one resource file named by 10,000 elements of a request,
//! costs one check. Only the verdict is kept (a few words), never pixels.
//!
//! The key is the SHA-256 of the bytes with the limits that decided, so an
//! entry can only ever answer for the very same image under the same rules.

use std::collections::{HashMap, VecDeque};
use std::sync::{LazyLock, Mutex};

use sha2::{Digest, Sha256};

use super::{ImageError, Inspected};
use crate::config::Limits;

/// Verdicts kept; the oldest goes first.
const CAPACITY: usize = 512;

/// What a verdict depends on besides the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Rules {
    image_pixels: u64,
    image_bytes: usize,
    svg_depth: u64,
    svg_elements: u64,
    svg_text_chars: u64,
    svg_text_element_chars: u64,
    svg_filter_primitives: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    sha256: [u8; 32],
    rules: Rules,
}

impl Key {
    pub fn new(bytes: &[u8], limits: &Limits) -> Self {
        Self {
            sha256: Sha256::digest(bytes).into(),
            rules: Rules {
                image_pixels: limits.image_pixels,
                image_bytes: limits.image_bytes,
                svg_depth: limits.svg_depth,
                svg_elements: limits.svg_elements,
                svg_text_chars: limits.svg_text_chars,
                svg_text_element_chars: limits.svg_text_element_chars,
                svg_filter_primitives: limits.svg_filter_primitives,
            },
        }
    }
}

type Verdict = Result<Inspected, ImageError>;

/// A bounded map of verdicts, first in first out.
pub struct Verdicts {
    capacity: usize,
    known: HashMap<Key, Verdict>,
    order: VecDeque<Key>,
}

impl Verdicts {
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            known: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    fn get(&self, key: &Key) -> Option<Verdict> {
        self.known.get(key).cloned()
    }

    fn insert(&mut self, key: Key, verdict: Verdict) {
        if self.known.insert(key, verdict).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.known.remove(&oldest);
            }
        }
    }
}

static VERDICTS: LazyLock<Mutex<Verdicts>> = LazyLock::new(|| Mutex::new(Verdicts::new(CAPACITY)));

/// The verdict on these bytes: a known one, or `check`'s, then kept. The
/// lock is not held while checking (a check may take a second).
pub fn verdict(key: Key, check: impl FnOnce() -> Verdict) -> Verdict {
    cached(&VERDICTS, key, check)
}

fn cached(verdicts: &Mutex<Verdicts>, key: Key, check: impl FnOnce() -> Verdict) -> Verdict {
    // A poisoned lock only means a panic elsewhere; the map is still whole.
    let lock = || verdicts.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = lock().get(&key) {
        return known;
    }
    let verdict = check();
    lock().insert(key, verdict.clone());
    verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inspected(width: f64) -> Verdict {
        Ok(Inspected {
            width,
            height: 1.0,
            decoded_bytes: 0,
            transparent: false,
        })
    }

    #[test]
    fn the_same_bytes_under_the_same_limits_are_checked_once() {
        let verdicts = Mutex::new(Verdicts::new(8));
        let limits = Limits::default();
        let key = Key::new(b"logo", &limits);
        assert_eq!(cached(&verdicts, key, || inspected(1.0)), inspected(1.0));
        let again = cached(&verdicts, key, || panic!("checked twice"));
        assert_eq!(again, inspected(1.0));
        // Other bytes, or other limits, are other images.
        let other = Key::new(b"logo2", &limits);
        assert_eq!(cached(&verdicts, other, || inspected(2.0)), inspected(2.0));
        let stricter = Key::new(
            b"logo",
            &Limits {
                image_pixels: 1,
                ..Limits::default()
            },
        );
        assert_eq!(
            cached(&verdicts, stricter, || Err(ImageError::NoPixels)),
            Err(ImageError::NoPixels)
        );
    }

    #[test]
    fn the_oldest_verdicts_go_first() {
        let verdicts = Mutex::new(Verdicts::new(2));
        let limits = Limits::default();
        let keys: Vec<_> = (0u8..3).map(|i| Key::new(&[i], &limits)).collect();
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(
                cached(&verdicts, *key, || inspected(i as f64)),
                inspected(i as f64)
            );
        }
        let map = verdicts.lock().unwrap();
        assert!(map.get(&keys[0]).is_none());
        assert_eq!(map.get(&keys[2]), Some(inspected(2.0)));
        assert_eq!(map.known.len(), 2);
    }
}
