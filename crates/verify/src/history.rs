//! Usage over time as plain values: whose usage ([`Subject`]), in which
//! buckets ([`Bucket`]: whole UTC hours or days) over which range
//! ([`UsageQuery`]), and a ledger's sums per bucket ([`Totals`]). The
//! ledgers sum per bucket (sled keeps hourly totals, PostgreSQL groups its
//! usage rows); the HTTP layer reads the query from `GET /admin/api/usage`
//! (docs/admin-api.md) and answers every bucket of the range.

use serde::{Deserialize, Serialize};

pub const HOUR_MS: i64 = 3_600_000;
pub const DAY_MS: i64 = 24 * HOUR_MS;

/// Most buckets one answer holds: 62 days of hours. Bounds the answer and
/// the ledger's work: sled reads at most one hourly total per token of the
/// account per hour of the range.
pub const MAX_BUCKETS: i64 = 24 * 62;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Bucket {
    Hour,
    Day,
}

impl Bucket {
    pub fn ms(self) -> i64 {
        match self {
            Bucket::Hour => HOUR_MS,
            Bucket::Day => DAY_MS,
        }
    }

    /// The name the query and the answer give it.
    pub fn name(self) -> &'static str {
        match self {
            Bucket::Hour => "hour",
            Bucket::Day => "day",
        }
    }

    /// The start of the bucket holding `at` (UTC).
    pub fn start(self, at: i64) -> i64 {
        at - at.rem_euclid(self.ms())
    }
}

/// Whose usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    Token(String),
    Account(String),
}

/// A checked usage query: `from` and `to` on bucket boundaries, `from <
/// to`, at most [`MAX_BUCKETS`] buckets in between, not before 1970.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageQuery {
    pub subject: Subject,
    pub bucket: Bucket,
    /// Unix milliseconds, inclusive.
    pub from: i64,
    /// Unix milliseconds, exclusive.
    pub to: i64,
}

/// One bucket's sums as a ledger reports them: (bucket start in Unix
/// milliseconds, deductions, units).
pub type Totals = (i64, u64, u64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_starts_at_its_utc_hour_or_day() {
        assert_eq!(Bucket::Hour.start(HOUR_MS + 5), HOUR_MS);
        assert_eq!(Bucket::Hour.start(HOUR_MS), HOUR_MS);
        assert_eq!(Bucket::Day.start(DAY_MS - 1), 0);
        assert_eq!(Bucket::Day.start(-1), -DAY_MS);
        assert_eq!(
            serde_json::to_value([Bucket::Hour, Bucket::Day]).unwrap(),
            serde_json::json!([Bucket::Hour.name(), Bucket::Day.name()])
        );
    }
}
