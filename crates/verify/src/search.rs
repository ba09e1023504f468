//! Token search as a plain value: what a [`TokenQuery`] matches and which
//! page it asks for. The embedded ledger filters with
//! [`TokenQuery::matches`]; PostgreSQL runs the same rules in SQL. The HTTP
//! layer reads it from `GET /admin/api/tokens?q=&account=&status=&limit=&offset=`
//! (docs/admin-api.md) and shapes the page it answers.

use super::record::TokenRecord;
use super::rules;

pub const DEFAULT_LIMIT: usize = 50;
pub const MAX_LIMIT: usize = 500;

/// Longest search text.
pub const MAX_QUERY_LEN: usize = 128;

/// Every status a token can have ([`rules::status`]).
pub const STATUSES: &[&str] = &["active", "expired", "exhausted", "revoked", "banned"];

/// A checked search. `q` is kept lowercased (ASCII only: ids are ASCII,
/// and PostgreSQL lowercases the same way, whatever its locale); `status`
/// is one of [`STATUSES`]; `limit` is 1 to [`MAX_LIMIT`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenQuery {
    /// Part of the id or of the account, ASCII case ignored.
    pub q: Option<String>,
    /// The account, exactly.
    pub account: Option<String>,
    pub status: Option<&'static str>,
    pub limit: usize,
    pub offset: usize,
}

impl Default for TokenQuery {
    /// Every token, the first page.
    fn default() -> Self {
        TokenQuery {
            q: None,
            account: None,
            status: None,
            limit: DEFAULT_LIMIT,
            offset: 0,
        }
    }
}

impl TokenQuery {
    /// Whether `record` is a match at `now`.
    pub fn matches(&self, record: &TokenRecord, now: i64) -> bool {
        self.q.as_ref().is_none_or(|q| {
            record.id.to_ascii_lowercase().contains(q.as_str())
                || record.account.to_ascii_lowercase().contains(q.as_str())
        }) && self.account.as_ref().is_none_or(|a| *a == record.account)
            && self.status.is_none_or(|s| s == rules::status(record, now))
    }

    /// `next` for a page of `shown` items out of `total`.
    pub fn next(&self, shown: usize, total: u64) -> Option<u64> {
        let end = (self.offset + shown) as u64;
        (shown > 0 && end < total).then_some(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_id_or_account_part_exact_account_and_status() {
        let mut r = TokenRecord::sample(5);
        r.account = "Acme-Labels".into();
        let q = |query: TokenQuery| query.matches(&r, 0);
        let text = |q: &str| TokenQuery {
            q: Some(q.into()),
            ..TokenQuery::default()
        };
        let account = |a: &str| TokenQuery {
            account: Some(a.into()),
            ..TokenQuery::default()
        };
        let status = |s: &'static str| TokenQuery {
            status: Some(s),
            ..TokenQuery::default()
        };
        assert!(q(TokenQuery::default()));
        assert!(q(text("aaaa")));
        assert!(q(text("acme-l")));
        assert!(!q(text("bbbb")));
        assert!(q(account("Acme-Labels")));
        assert!(!q(account("acme-labels")));
        assert!(q(status("active")));
        assert!(!q(status("revoked")));
        r.balance = 0;
        assert!(status("exhausted").matches(&r, 0));
    }

    #[test]
    fn next_is_the_offset_after_this_page_until_the_last() {
        let q = TokenQuery {
            limit: 2,
            offset: 2,
            ..TokenQuery::default()
        };
        assert_eq!(q.next(2, 5), Some(4));
        assert_eq!(q.next(2, 4), None);
        assert_eq!(q.next(0, 1), None);
    }
}
