//! Rate limits of the render route (docs/http-api.md, "Authentication and usage"): one per token, with
//! the quota the verifier's answer carries or the configured default, and one
//! per client address that only failed authentications draw from
//! ([`FailedAuth`], which the verifier's routes use too).

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::TokenHash;
use crate::verify::RateLimit;

pub struct RateLimits {
    default: RateLimit,
    /// One keyed limiter per distinct quota: governor's keyed limiters share
    /// one quota, and tokens carry their own. Distinct quotas are few.
    per_token: Mutex<HashMap<(u32, u32), Arc<DefaultKeyedRateLimiter<TokenHash>>>>,
    failed_auth: FailedAuth,
    clock: DefaultClock,
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

fn quota(limit: RateLimit) -> Quota {
    let per_second = NonZeroU32::new(limit.per_second).unwrap_or(NonZeroU32::MIN);
    let burst = NonZeroU32::new(limit.burst).unwrap_or(per_second);
    Quota::per_second(per_second).allow_burst(burst)
}

/// Whole seconds to wait, at least 1 (a `Retry-After: 0` invites a hot loop).
fn whole_seconds(d: Duration) -> u64 {
    (d.as_secs() + u64::from(d.subsec_nanos() > 0)).max(1)
}

impl RateLimits {
    pub fn new(default: RateLimit, failed_auth: RateLimit) -> RateLimits {
        RateLimits {
            default,
            per_token: Mutex::new(HashMap::new()),
            failed_auth: FailedAuth::new(failed_auth),
            clock: DefaultClock::default(),
        }
    }

    /// One request of a token; `Err(seconds)` when over its limit.
    pub fn token(&self, hash: &TokenHash, limit: Option<RateLimit>) -> Result<(), u64> {
        let limit = limit.unwrap_or(self.default);
        let limiter = {
            let mut map = self.per_token.lock().unwrap_or_else(|p| p.into_inner());
            map.entry((limit.per_second, limit.burst))
                .or_insert_with(|| Arc::new(RateLimiter::keyed(quota(limit))))
                .clone()
        };
        limiter
            .check_key(hash)
            .map_err(|n| whole_seconds(n.wait_time_from(self.clock.now())))
    }

    /// One failed authentication from `addr`; `Err(seconds)` when over the limit.
    pub fn failed_auth(&self, addr: IpAddr) -> Result<(), u64> {
        self.failed_auth.check(addr)
    }

    /// Forgets keys whose limits have fully recovered (housekeeping).
    pub fn retain_recent(&self) {
        self.failed_auth.retain_recent();
        let map = self.per_token.lock().unwrap_or_else(|p| p.into_inner());
        for limiter in map.values() {
            limiter.retain_recent();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_over_its_burst_waits_whole_seconds() {
        let limits = RateLimits::new(
            RateLimit {
                per_second: 1,
                burst: 2,
            },
            RateLimit {
                per_second: 1,
                burst: 1,
            },
        );
        let h = TokenHash::of("lp_t");
        assert!(limits.token(&h, None).is_ok());
        assert!(limits.token(&h, None).is_ok());
        assert_eq!(limits.token(&h, None), Err(1));
        // Its own quota from the verifier replaces the default.
        let own = Some(RateLimit {
            per_second: 100,
            burst: 100,
        });
        assert!(limits.token(&h, own).is_ok());
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(limits.failed_auth(ip).is_ok());
        assert_eq!(limits.failed_auth(ip), Err(1));
        assert_eq!(whole_seconds(Duration::from_millis(1500)), 2);
        assert_eq!(whole_seconds(Duration::ZERO), 1);
    }
}
