//! Rate limits of the render route (docs/http-api.md, "Authentication and usage"): one per token, with
//! the quota the verifier's answer carries or the configured default, and one
//! per client address that only failed authentications draw from
//! ([`FailedAuth`], which the verifier's routes use too).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, RateLimiter};

use crate::credential::rate_limit::{quota, whole_seconds, FailedAuth, RateLimit};
use crate::credential::TokenHash;

pub struct RateLimits {
    default: RateLimit,
    /// One keyed limiter per distinct quota: governor's keyed limiters share
    /// one quota, and tokens carry their own. Distinct quotas are few.
    per_token: Mutex<HashMap<(u32, u32), Arc<DefaultKeyedRateLimiter<TokenHash>>>>,
    failed_auth: FailedAuth,
    clock: DefaultClock,
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
    }
}
