//! Bounded waiting per token on the PostgreSQL ledger: at most
//! [`PER_TOKEN`] writes of one token hold a pooled connection at once; the
//! rest of that token's writes wait here, in memory, holding nothing.
//!
//! Why: a write waits on its token's row lock while holding a connection.
//! Without a bound, one hot or locked row (a long transaction, an
//! administrator's `SELECT ... FOR UPDATE`) took every connection of the
//! pool, and every other token's calls on that node timed out (503). With
//! it, a locked row costs its own token's calls their timeout and at most
//! [`PER_TOKEN`] connections; other tokens keep the rest of the pool.
//!
//! A token that held up a group commit ([`super::postgres_batch`], whose
//! one transaction would otherwise wait on that row for every token in it)
//! is also marked [`Gates::mark_slow`] for a while, so its plain
//! deductions go one by one through its gate instead of into the next
//! batch.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::credential::TokenHash;

/// Writes of one token holding a connection at once.
pub const PER_TOKEN: usize = 2;

/// How long a token whose row held up a batch stays out of batches.
const SLOW_FOR: Duration = Duration::from_secs(5);

/// Gates kept before the idle ones are swept.
const SWEEP_AT: usize = 4096;

#[derive(Default)]
pub struct Gates {
    open: Mutex<HashMap<TokenHash, Weak<Semaphore>>>,
    slow: Mutex<HashMap<TokenHash, Instant>>,
}

impl Gates {
    /// A turn for a write of `hash`: held while it uses a connection.
    pub async fn turn(&self, hash: &TokenHash) -> OwnedSemaphorePermit {
        let gate = {
            let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
            if open.len() >= SWEEP_AT {
                open.retain(|_, gate| gate.strong_count() > 0);
            }
            match open.get(hash).and_then(Weak::upgrade) {
                Some(gate) => gate,
                None => {
                    let gate = Arc::new(Semaphore::new(PER_TOKEN));
                    open.insert(*hash, Arc::downgrade(&gate));
                    gate
                }
            }
        };
        // The semaphore is never closed.
        gate.acquire_owned()
            .await
            .expect("a token gate is never closed")
    }

    /// `hash`'s row held up a batch: keep it out of batches for a while.
    pub fn mark_slow(&self, hash: &TokenHash) {
        let mut slow = self.slow.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        slow.retain(|_, until| *until > now);
        slow.insert(*hash, now + SLOW_FOR);
    }

    /// Whether `hash` is out of batches now.
    pub fn is_slow(&self, hash: &TokenHash) -> bool {
        let slow = self.slow.lock().unwrap_or_else(|e| e.into_inner());
        slow.get(hash).is_some_and(|until| *until > Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_token_holds_at_most_its_share_and_others_are_not_held() {
        let gates = Gates::default();
        let (a, b) = (TokenHash::of("a"), TokenHash::of("b"));
        let held: Vec<_> = [gates.turn(&a).await, gates.turn(&a).await].into();
        let third = tokio::time::timeout(Duration::from_millis(50), gates.turn(&a)).await;
        assert!(third.is_err(), "a third write of one token waits");
        let other = tokio::time::timeout(Duration::from_millis(50), gates.turn(&b)).await;
        assert!(other.is_ok(), "another token does not");
        drop(held);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), gates.turn(&a))
                .await
                .is_ok()
        );
        assert!(!gates.is_slow(&a));
        gates.mark_slow(&a);
        assert!(gates.is_slow(&a) && !gates.is_slow(&b));
    }
}
