//! Arbitrary numbers as a quota lease and its return (`POST
//! /v1/verify?lease=true`, `?return=true`; docs/leases.md), judged by the
//! verifier's rules: never a panic or an overflow, a lease never grants
//! more than was asked, than the balance, or than the rate limit's bucket
//! holds, its rate state never goes back in time, and a return never gives
//! back more than its lease granted.
#![no_main]

use labelpress::verify::record::TokenRecord;
use labelpress::verify::rules;
use labelpress::verify::{RateLimit, Rejection};
use libfuzzer_sys::fuzz_target;

fn word(data: &[u8], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    for (i, b) in data.iter().skip(at * 8).take(8).enumerate() {
        bytes[i] = *b;
    }
    u64::from_le_bytes(bytes)
}

fuzz_target!(|data: &[u8]| {
    let balance = word(data, 0);
    let want = word(data, 1);
    let tat = word(data, 2) as i64;
    let now = word(data, 3) as i64;
    let per_second = word(data, 4) as u32;
    let burst = (word(data, 4) >> 32) as u32;
    let leased = word(data, 5);
    let flags = word(data, 6);
    let record = TokenRecord {
        id: "tok_AAAAAAAAAAAA".into(),
        hint: "lp_AAAAA".into(),
        account: "acme".into(),
        balance,
        expires_at: (flags & 1 == 1).then_some(now.wrapping_add(1)),
        rate_limit: (flags & 2 == 2).then_some(RateLimit { per_second, burst }),
        revoked: flags & 4 == 4,
        banned: flags & 8 == 8,
        created_at: 0,
        last_used_at: None,
        usage: Vec::new(),
        uncharged: 0,
        pending_key: None,
        lease_tat: tat,
    };
    match rules::lease(Some(&record), want, now) {
        Ok((_, lease)) => {
            assert!(!record.revoked && !record.banned);
            assert!(lease.units <= want && lease.units <= balance, "{lease:?}");
            if lease.units > 0 {
                assert!(lease.tat >= tat.max(now) || record.rate_limit.is_none_or(|r| r.per_second == 0));
            } else {
                assert!(lease.retry_after_ms >= 1);
            }
        }
        Err(rejection) => assert!(matches!(
            rejection,
            Rejection::InvalidToken
                | Rejection::Banned
                | Rejection::TokenExpired
                | Rejection::BadRequest
                | Rejection::QuotaExceeded
        )),
    }
    let unused = want;
    let leased = (flags & 16 == 16).then_some(leased);
    if rules::give_back(Some(&record), unused, leased).is_ok() {
        assert!(unused >= 1 && Some(unused) <= leased);
    }
});
