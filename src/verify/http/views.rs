//! The admin API's JSON views: how a token, a page of tokens, a usage
//! series and an account's ban are shown (never a secret), and the small
//! request bodies of the token changes. Built from the plain values the
//! admin operations give. The OpenAPI document is generated from these
//! types: their names, fields and doc lines are the published schemas'.

use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::verify::history::{Bucket, Subject, Totals, UsageQuery};
use crate::verify::protocol::RateLimit;
use crate::verify::record::{TokenRecord, Usage};
use crate::verify::rules;
use crate::verify::search::TokenQuery;

/// A token as lists show it (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct TokenView {
    pub id: String,
    pub hint: String,
    pub account: String,
    pub balance: u64,
    pub expires_at: Option<i64>,
    /// `active`, `expired`, `exhausted`, `revoked` or `banned`.
    pub status: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
    /// Renders delivered on this token that the verifier refused to charge
    /// when a render node reported them (revoked, banned, expired or over
    /// the balance meanwhile). Never deducted; 0 for most tokens.
    #[serde(default)]
    pub uncharged: u64,
}

impl TokenView {
    /// `record` with its status at `now`.
    pub fn of(record: &TokenRecord, now: i64) -> TokenView {
        TokenView {
            id: record.id.clone(),
            hint: record.hint.clone(),
            account: record.account.clone(),
            balance: record.balance,
            expires_at: record.expires_at,
            status: rules::status(record, now).to_string(),
            created_at: record.created_at,
            last_used_at: record.last_used_at,
            rate_limit: record.rate_limit,
            uncharged: record.uncharged,
        }
    }
}

/// `GET /admin/api/tokens/{id}`: the token and its recent deductions.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct TokenDetail {
    #[serde(flatten)]
    pub token: TokenView,
    /// Newest first.
    pub usage: Vec<Usage>,
}

impl TokenDetail {
    pub fn of(record: &TokenRecord, now: i64) -> TokenDetail {
        TokenDetail {
            token: TokenView::of(record, now),
            usage: record.recent_usage(),
        }
    }
}

/// One page of matches, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TokenPage {
    pub items: Vec<TokenView>,
    /// Matches in all pages.
    pub total: u64,
    /// The `offset` of the next page; `null` on the last.
    pub next: Option<u64>,
}

impl TokenPage {
    /// The page of `records` (of `total` matches) `query` asked for.
    pub fn of(query: &TokenQuery, records: &[TokenRecord], total: u64, now: i64) -> TokenPage {
        TokenPage {
            items: records.iter().map(|r| TokenView::of(r, now)).collect(),
            total,
            next: query.next(records.len(), total),
        }
    }
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopUp {
    pub amount: u64,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expiry {
    pub expires_at: Option<i64>,
}

// The answer to a ban or an unban (no doc line: none in the schema).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct AccountView {
    pub account: String,
    pub banned: bool,
}

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

// Every bucket of the range is in it, empty ones at zero, so a chart
// needs no gap filling.
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

impl UsageSeries {
    /// Every bucket of the query's range, with the ledger's `totals` (by
    /// bucket start; starts outside the range are ignored).
    pub fn of(query: &UsageQuery, totals: &[Totals]) -> UsageSeries {
        let mut by_start = std::collections::BTreeMap::<i64, (u64, u64)>::new();
        for &(start, deductions, units) in totals {
            let sum = by_start.entry(query.bucket.start(start)).or_default();
            sum.0 = sum.0.saturating_add(deductions);
            sum.1 = sum.1.saturating_add(units);
        }
        let size = query.bucket.ms();
        let buckets: Vec<UsagePoint> = (0..(query.to - query.from) / size)
            .map(|i| {
                let start = query.from + i * size;
                let (deductions, units) = by_start.get(&start).copied().unwrap_or_default();
                UsagePoint {
                    start: rfc3339(start),
                    deductions,
                    units,
                }
            })
            .collect();
        let (token, account) = match &query.subject {
            Subject::Token(id) => (Some(id.clone()), None),
            Subject::Account(a) => (None, Some(a.clone())),
        };
        UsageSeries {
            token,
            account,
            bucket: query.bucket,
            from: rfc3339(query.from),
            to: rfc3339(query.to),
            deductions: buckets.iter().map(|b| b.deductions).sum(),
            units: buckets.iter().map(|b| b.units).sum(),
            buckets,
        }
    }
}

/// Unix milliseconds as RFC 3339 in UTC.
pub fn rfc3339(ms: i64) -> String {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_else(|| ms.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::history::{DAY_MS, HOUR_MS};

    #[test]
    fn the_series_holds_every_bucket_and_sums_totals_into_them() {
        let q = UsageQuery {
            subject: Subject::Token("tok_A".into()),
            bucket: Bucket::Day,
            from: 0,
            to: 3 * DAY_MS,
        };
        // Hourly totals as sled reports them, one outside the range.
        let s = UsageSeries::of(
            &q,
            &[
                (HOUR_MS, 1, 2),
                (5 * HOUR_MS, 2, 3),
                (2 * DAY_MS, 1, 1),
                (9 * DAY_MS, 7, 7),
            ],
        );
        let units: Vec<u64> = s.buckets.iter().map(|b| b.units).collect();
        assert_eq!(units, vec![5, 0, 1]);
        assert_eq!((s.deductions, s.units), (4, 6));
        assert_eq!(s.buckets[1].start, "1970-01-02T00:00:00Z");
        assert_eq!(s.token.as_deref(), Some("tok_A"));
    }

    #[test]
    fn a_view_shows_the_status_at_its_time_and_a_page_its_next_offset() {
        let record = TokenRecord {
            expires_at: Some(10),
            ..TokenRecord::sample(5)
        };
        assert_eq!(TokenView::of(&record, 9).status, "active");
        assert_eq!(TokenView::of(&record, 10).status, "expired");
        let query = TokenQuery {
            limit: 1,
            ..TokenQuery::default()
        };
        let page = TokenPage::of(&query, std::slice::from_ref(&record), 2, 0);
        assert_eq!((page.items.len(), page.total, page.next), (1, 2, Some(1)));
    }
}
