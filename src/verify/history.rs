//! Usage over time (`GET /admin/api/usage`, docs/admin-api.md): which
//! series is asked for, its buckets, and the answer. Every bucket of the
//! range is in the answer, empty ones at zero, so a chart needs no gap
//! filling. Buckets are whole UTC hours or days; the ledgers sum per bucket
//! (sled keeps hourly totals, PostgreSQL groups its usage rows).

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

pub const HOUR_MS: i64 = 3_600_000;
pub const DAY_MS: i64 = 24 * HOUR_MS;

/// Most buckets one answer holds: 62 days of hours. Bounds the answer and
/// the ledger's work: sled reads at most one hourly total per token of the
/// account per hour of the range.
pub const MAX_BUCKETS: i64 = 24 * 62;

/// Buckets of the default range, ending with the current one.
const DEFAULT_HOURS: i64 = 24;
const DEFAULT_DAYS: i64 = 30;

/// The latest time a query may name (9999-12-31T23:59:59.999Z), so bucket
/// arithmetic never overflows.
const LATEST_MS: i64 = 253_402_300_799_999;

/// The query parameters `GET /admin/api/usage` knows.
const PARAMETERS: &[&str] = &["token", "account", "bucket", "from", "to"];

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

    fn name(self) -> &'static str {
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
/// to`, at most [`MAX_BUCKETS`] buckets in between.
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

/// One bucket of the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UsagePoint {
    /// The bucket's start, RFC 3339 in UTC (`2026-11-26T03:00:00Z`).
    pub start: String,
    /// Deductions recorded in the bucket (a render node reports several
    /// renders of one token in one deduction).
    pub deductions: u64,
    /// Units deducted in the bucket: the renders charged.
    pub units: u64,
}

/// The answer of `GET /admin/api/usage`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UsageSeries {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    pub bucket: Bucket,
    /// The first bucket's start, RFC 3339 in UTC.
    pub from: String,
    /// The end of the last bucket (exclusive), RFC 3339 in UTC.
    pub to: String,
    pub deductions: u64,
    pub units: u64,
    /// Every bucket from `from` to `to`, oldest first.
    pub buckets: Vec<UsagePoint>,
}

/// Unix milliseconds as RFC 3339 in UTC.
pub fn rfc3339(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| ms.to_string())
}

/// A time parameter: Unix milliseconds, RFC 3339 with an offset, or a
/// date (its start, UTC), between 1970 and 9999.
fn parse_time(name: &str, value: &str) -> Result<i64, String> {
    let date = time::macros::format_description!("[year]-[month]-[day]");
    let ms = match value.parse::<i64>() {
        Ok(ms) => ms,
        Err(_) => {
            let at = OffsetDateTime::parse(value, &Rfc3339)
                .or_else(|_| time::Date::parse(value, date).map(|d| d.midnight().assume_utc()))
                .map_err(|_| {
                    format!(
                        "{name} must be RFC 3339 (2026-11-26T03:00:00Z), a date (2026-11-26, UTC) or Unix milliseconds, not {value:?}"
                    )
                })?;
            i64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(-1)
        }
    };
    if !(0..=LATEST_MS).contains(&ms) {
        return Err(format!(
            "{name} must be between 1970 and 9999, not {value:?}"
        ));
    }
    Ok(ms)
}

impl UsageQuery {
    /// The query from its parameters (each given at most once); `now`
    /// places the default range: the last 24 hours or 30 days, the current
    /// bucket included.
    pub fn parse(query: &HashMap<String, String>, now: i64) -> Result<UsageQuery, String> {
        if let Some(unknown) = query.keys().find(|k| !PARAMETERS.contains(&k.as_str())) {
            return Err(format!(
                "unknown query parameter {unknown:?}; known: {}",
                PARAMETERS.join(", ")
            ));
        }
        let subject = match (query.get("token"), query.get("account")) {
            (Some(id), None) if !id.is_empty() => Subject::Token(id.clone()),
            (None, Some(account)) => {
                super::admin::valid_account(account).map_err(|e| e.to_string())?;
                Subject::Account(account.clone())
            }
            _ => return Err("give exactly one of token=ID and account=NAME".into()),
        };
        let bucket = match query.get("bucket").map(String::as_str) {
            None | Some("hour") => Bucket::Hour,
            Some("day") => Bucket::Day,
            Some(other) => return Err(format!("bucket must be hour or day, not {other:?}")),
        };
        let size = bucket.ms();
        let to = match query.get("to") {
            Some(v) => parse_time("to", v)?,
            None => bucket.start(now.clamp(0, LATEST_MS)) + size,
        };
        // `to` rounded up to a bucket boundary: the bucket it falls in counts.
        let to = bucket.start(to + size - 1);
        let from = match query.get("from") {
            Some(v) => bucket.start(parse_time("from", v)?),
            None => {
                let count = match bucket {
                    Bucket::Hour => DEFAULT_HOURS,
                    Bucket::Day => DEFAULT_DAYS,
                };
                (to - count * size).max(0)
            }
        };
        if from >= to {
            return Err(format!(
                "from ({}) must be before to ({})",
                rfc3339(from),
                rfc3339(to)
            ));
        }
        let count = (to - from) / size;
        if count > MAX_BUCKETS {
            return Err(format!(
                "from {} to {} holds {count} {} buckets; at most {MAX_BUCKETS} per answer: narrow the range{}",
                rfc3339(from),
                rfc3339(to),
                bucket.name(),
                if bucket == Bucket::Hour { " or use bucket=day" } else { "" }
            ));
        }
        Ok(UsageQuery {
            subject,
            bucket,
            from,
            to,
        })
    }

    /// The answer: every bucket of the range, with the ledger's `totals`
    /// (by bucket start; starts outside the range are ignored).
    pub fn series(&self, totals: &[Totals]) -> UsageSeries {
        let mut by_start: BTreeMap<i64, (u64, u64)> = BTreeMap::new();
        for &(start, deductions, units) in totals {
            let sum = by_start.entry(self.bucket.start(start)).or_default();
            sum.0 = sum.0.saturating_add(deductions);
            sum.1 = sum.1.saturating_add(units);
        }
        let size = self.bucket.ms();
        let buckets: Vec<UsagePoint> = (0..(self.to - self.from) / size)
            .map(|i| {
                let start = self.from + i * size;
                let (deductions, units) = by_start.get(&start).copied().unwrap_or_default();
                UsagePoint {
                    start: rfc3339(start),
                    deductions,
                    units,
                }
            })
            .collect();
        let (token, account) = match &self.subject {
            Subject::Token(id) => (Some(id.clone()), None),
            Subject::Account(a) => (None, Some(a.clone())),
        };
        UsageSeries {
            token,
            account,
            bucket: self.bucket,
            from: rfc3339(self.from),
            to: rfc3339(self.to),
            deductions: buckets.iter().map(|b| b.deductions).sum(),
            units: buckets.iter().map(|b| b.units).sum(),
            buckets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)], now: i64) -> Result<UsageQuery, String> {
        let map = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        UsageQuery::parse(&map, now)
    }

    /// 2026-11-26T03:20:00Z.
    const NOW: i64 = 1_795_663_200_000;

    #[test]
    fn the_default_range_is_the_last_24_hours_or_30_days_ending_with_the_current_bucket() {
        let q = parse(&[("token", "tok_A")], NOW).unwrap();
        assert_eq!(rfc3339(q.to), "2026-11-26T04:00:00Z");
        assert_eq!(rfc3339(q.from), "2026-11-25T04:00:00Z");
        let q = parse(&[("account", "acme"), ("bucket", "day")], NOW).unwrap();
        assert_eq!(rfc3339(q.to), "2026-11-27T00:00:00Z");
        assert_eq!(rfc3339(q.from), "2026-10-28T00:00:00Z");
        assert_eq!(q.subject, Subject::Account("acme".into()));
    }

    #[test]
    fn times_are_rounded_out_to_bucket_boundaries_in_either_form() {
        let q = parse(
            &[
                ("token", "tok_A"),
                ("from", "2026-11-26T04:20:00+02:00"),
                ("to", &(NOW + 1).to_string()),
            ],
            0,
        )
        .unwrap();
        assert_eq!(rfc3339(q.from), "2026-11-26T02:00:00Z");
        assert_eq!(rfc3339(q.to), "2026-11-26T04:00:00Z");
        let q = parse(
            &[
                ("account", "a"),
                ("bucket", "day"),
                ("from", "2026-11-24"),
                ("to", "2026-11-27"),
            ],
            0,
        )
        .unwrap();
        assert_eq!(
            (rfc3339(q.from).as_str(), rfc3339(q.to).as_str()),
            ("2026-11-24T00:00:00Z", "2026-11-27T00:00:00Z")
        );
    }

    #[test]
    fn bad_queries_say_what_is_wrong() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[], "exactly one of"),
            (&[("token", "a"), ("account", "b")], "exactly one of"),
            (&[("token", "")], "exactly one of"),
            (&[("account", "")], "account must be"),
            (&[("token", "a"), ("bucket", "week")], "hour or day"),
            (&[("token", "a"), ("from", "yesterday")], "RFC 3339"),
            (&[("token", "a"), ("from", "2026-02-30")], "RFC 3339"),
            (&[("token", "a"), ("from", "-5")], "between 1970"),
            (
                &[("token", "a"), ("to", "99999999999999999")],
                "between 1970",
            ),
            (
                &[("token", "a"), ("from", "2026-11-26T05:00:00Z")],
                "before",
            ),
            (&[("token", "a"), ("from", "0")], "at most 1488"),
            (&[("token", "a"), ("limit", "5")], "unknown query parameter"),
        ];
        for (pairs, expected) in cases {
            let e = parse(pairs, NOW).unwrap_err();
            assert!(e.contains(expected), "{pairs:?}: {e}");
        }
        // 62 days of hours is the most; one more hour is refused.
        let from = (NOW - 62 * DAY_MS + HOUR_MS).to_string();
        assert!(parse(&[("token", "a"), ("from", &from)], NOW).is_ok());
        let from = (NOW - 62 * DAY_MS).to_string();
        assert!(parse(&[("token", "a"), ("from", &from)], NOW).is_err());
    }

    #[test]
    fn the_series_holds_every_bucket_and_sums_totals_into_them() {
        let q = UsageQuery {
            subject: Subject::Token("tok_A".into()),
            bucket: Bucket::Day,
            from: 0,
            to: 3 * DAY_MS,
        };
        // Hourly totals as sled reports them, one outside the range.
        let s = q.series(&[
            (HOUR_MS, 1, 2),
            (5 * HOUR_MS, 2, 3),
            (2 * DAY_MS, 1, 1),
            (9 * DAY_MS, 7, 7),
        ]);
        let units: Vec<u64> = s.buckets.iter().map(|b| b.units).collect();
        assert_eq!(units, vec![5, 0, 1]);
        assert_eq!((s.deductions, s.units), (4, 6));
        assert_eq!(s.buckets[1].start, "1970-01-02T00:00:00Z");
        assert_eq!(s.token.as_deref(), Some("tok_A"));
    }
}
