//! Token search (`GET /admin/api/tokens?q=&account=&status=&limit=&offset=`,
//! docs/admin-api.md): the checked query, what it matches, and the page it
//! answers. The embedded ledger filters with [`TokenQuery::matches`];
//! PostgreSQL runs the same rules in SQL (`super::postgres`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::admin::TokenView;
use super::record::TokenRecord;
use super::rules;

pub const DEFAULT_LIMIT: usize = 50;
pub const MAX_LIMIT: usize = 500;

/// Longest search text.
pub const MAX_QUERY_LEN: usize = 128;

/// Every status a token can have ([`rules::status`]).
pub const STATUSES: &[&str] = &["active", "expired", "exhausted", "revoked", "banned"];

const PARAMETERS: &[&str] = &["q", "account", "status", "limit", "offset"];

/// A checked search. `q` is kept lowercased (ASCII only: ids are ASCII,
/// and PostgreSQL lowercases the same way, whatever its locale).
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

/// One page of matches, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TokenPage {
    pub items: Vec<TokenView>,
    /// Matches in all pages.
    pub total: u64,
    /// The `offset` of the next page; `null` on the last.
    pub next: Option<u64>,
}

fn number(name: &str, value: &str, min: usize, max: usize) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("{name} must be an integer from {min} to {max}, not {value:?}"))
}

impl TokenQuery {
    /// The search from its query parameters; `None` without any (the plain
    /// list, the older answer shape).
    pub fn parse(query: &HashMap<String, String>) -> Result<Option<TokenQuery>, String> {
        if query.is_empty() {
            return Ok(None);
        }
        if let Some(unknown) = query.keys().find(|k| !PARAMETERS.contains(&k.as_str())) {
            return Err(format!(
                "unknown query parameter {unknown:?}; known: {}",
                PARAMETERS.join(", ")
            ));
        }
        let q = match query.get("q").map(|q| q.trim()) {
            None | Some("") => None,
            Some(q) if q.len() > MAX_QUERY_LEN || q.chars().any(char::is_control) => {
                return Err(format!(
                    "q must be at most {MAX_QUERY_LEN} bytes without control characters"
                ))
            }
            Some(q) => Some(q.to_ascii_lowercase()),
        };
        let account = match query.get("account").map(String::as_str) {
            None | Some("") => None,
            Some(account) => {
                super::admin::valid_account(account).map_err(|e| e.to_string())?;
                Some(account.to_string())
            }
        };
        let status = match query.get("status").map(String::as_str) {
            None | Some("") => None,
            Some(s) => Some(*STATUSES.iter().find(|known| **known == s).ok_or_else(|| {
                format!("status must be one of {}, not {s:?}", STATUSES.join(", "))
            })?),
        };
        let limit = match query.get("limit") {
            None => DEFAULT_LIMIT,
            Some(v) => number("limit", v, 1, MAX_LIMIT)?,
        };
        let offset = match query.get("offset") {
            None => 0,
            Some(v) => number("offset", v, 0, i64::MAX as usize)?,
        };
        Ok(Some(TokenQuery {
            q,
            account,
            status,
            limit,
            offset,
        }))
    }

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

    fn parse(pairs: &[(&str, &str)]) -> Result<Option<TokenQuery>, String> {
        let map = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        TokenQuery::parse(&map)
    }

    #[test]
    fn no_parameters_is_the_plain_list_and_defaults_fill_the_rest() {
        assert_eq!(parse(&[]), Ok(None));
        let q = parse(&[("q", " ToK_Ab ")]).unwrap().unwrap();
        assert_eq!(q.q.as_deref(), Some("tok_ab"));
        assert_eq!((q.limit, q.offset, q.status), (DEFAULT_LIMIT, 0, None));
    }

    #[test]
    fn bad_parameters_say_what_is_wrong() {
        for (pairs, expected) in [
            (&[("status", "gone")][..], "status must be one of"),
            (&[("limit", "501")], "limit must be"),
            (&[("limit", "0")], "limit must be an integer from 1 to 500"),
            (&[("limit", "-1")], "limit must be"),
            (&[("offset", "x")], "offset must be"),
            (&[("account", "a\u{7}")], "control"),
            (&[("q", "a\u{0}")], "control"),
            (&[("page", "2")], "unknown query parameter"),
        ] {
            let e = parse(pairs).unwrap_err();
            assert!(e.contains(expected), "{pairs:?}: {e}");
        }
    }

    #[test]
    fn matches_id_or_account_part_exact_account_and_status() {
        let mut r = TokenRecord::sample(5);
        r.account = "Acme-Labels".into();
        let q = |pairs: &[(&str, &str)]| parse(pairs).unwrap().unwrap().matches(&r, 0);
        assert!(q(&[("q", "aaaa")]));
        assert!(q(&[("q", "acme-l")]));
        assert!(!q(&[("q", "bbbb")]));
        assert!(q(&[("account", "Acme-Labels")]));
        assert!(!q(&[("account", "acme-labels")]));
        assert!(q(&[("status", "active")]));
        assert!(!q(&[("status", "revoked")]));
        r.balance = 0;
        assert!(parse(&[("status", "exhausted")])
            .unwrap()
            .unwrap()
            .matches(&r, 0));
    }

    #[test]
    fn next_is_the_offset_after_this_page_until_the_last() {
        let q = parse(&[("limit", "2"), ("offset", "2")]).unwrap().unwrap();
        assert_eq!(q.next(2, 5), Some(4));
        assert_eq!(q.next(2, 4), None);
        assert_eq!(q.next(0, 1), None);
    }
}
