//! Rate limits as quotas (requests a second and a burst), and the limit on
//! failed authentications per client address that the render route and the
//! verifier's routes both keep: a guessing client is slowed down, a correct
//! credential never is.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::{Deserialize, Serialize};

/// Per-token rate limit (extension field of the verifier's 200 body).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RateLimit {
    pub per_second: u32,
    pub burst: u32,
}

/// Failed authentications per client address. Only failures draw from it,
/// and it is consulted after the credential was judged: a correct
/// credential is never refused by it, whatever its address did before.
pub struct FailedAuth {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
    /// When idle addresses were last forgotten, in ms since `created`.
    swept_at: std::sync::atomic::AtomicU64,
    created: std::time::Instant,
}

impl FailedAuth {
    pub fn new(limit: RateLimit) -> FailedAuth {
        FailedAuth {
            limiter: RateLimiter::keyed(quota(limit)),
            clock: DefaultClock::default(),
            swept_at: std::sync::atomic::AtomicU64::new(0),
            created: std::time::Instant::now(),
        }
    }

    /// One failed authentication from `addr`; `Err(seconds)` when over the limit.
    pub fn check(&self, addr: IpAddr) -> Result<(), u64> {
        self.limiter
            .check_key(&addr)
            .map_err(|n| whole_seconds(n.wait_time_from(self.clock.now())))
    }

    /// As [`FailedAuth::check`], and forgets addresses whose limits have
    /// fully recovered at most once a minute, so that a caller without a
    /// housekeeping task keeps the map bounded by the addresses of the
    /// last minute or so.
    pub fn check_and_sweep(&self, addr: IpAddr) -> Result<(), u64> {
        use std::sync::atomic::Ordering;
        let now = self.created.elapsed().as_millis() as u64;
        let last = self.swept_at.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= 60_000
            && self
                .swept_at
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            self.retain_recent();
        }
        self.check(addr)
    }

    /// Forgets addresses whose limits have fully recovered.
    pub fn retain_recent(&self) {
        self.limiter.retain_recent();
    }
}

/// governor's quota for `limit` (a zero rate is one a second; a zero burst
/// is the rate).
pub fn quota(limit: RateLimit) -> Quota {
    let per_second = NonZeroU32::new(limit.per_second).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(limit.burst).unwrap_or(per_second);
    Quota::per_second(per_second).allow_burst(burst)
}

/// Whole seconds to wait, at least 1 (a `Retry-After: 0` invites a hot loop).
pub fn whole_seconds(d: Duration) -> u64 {
    (d.as_secs() + u64::from(d.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_are_whole_seconds_and_never_zero() {
        assert_eq!(whole_seconds(Duration::from_millis(1500)), 2);
        assert_eq!(whole_seconds(Duration::from_secs(2)), 2);
        assert_eq!(whole_seconds(Duration::ZERO), 1);
    }

    #[test]
    fn failed_authentications_are_limited_per_address() {
        let failed = FailedAuth::new(RateLimit {
            per_second: 1,
            burst: 2,
        });
        let guessing: IpAddr = "192.0.2.1".parse().unwrap();
        let other: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(failed.check(guessing).is_ok());
        assert!(failed.check_and_sweep(guessing).is_ok());
        assert_eq!(failed.check(guessing), Err(1));
        assert!(failed.check(other).is_ok());
    }
}
