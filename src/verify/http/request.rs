//! Reading requests: query strings into plain values ([`TokenQuery`],
//! [`UsageQuery`], flags), the `/v1/verify` body's count and the admin
//! API's JSON bodies. Each function says what is wrong in a message the
//! caller answers 400 (or 422) with; none touches the ledger.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use axum::extract::rejection::QueryRejection;
use axum::extract::Query;
use axum::http::HeaderMap;
use serde::de::DeserializeOwned;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::errors::AdminHttpError;
use super::views::rfc3339;
use crate::credential;
use crate::verify::admin::AdminError;
use crate::verify::history::{Bucket, Subject, UsageQuery, MAX_BUCKETS};
use crate::verify::record::valid_account;
use crate::verify::search::{TokenQuery, DEFAULT_LIMIT, MAX_LIMIT, MAX_QUERY_LEN, STATUSES};

/// The query parameters `GET /admin/api/tokens` knows.
const SEARCH_PARAMETERS: &[&str] = &["q", "account", "status", "limit", "offset"];

/// The query parameters `GET /admin/api/usage` knows.
const USAGE_PARAMETERS: &[&str] = &["token", "account", "bucket", "from", "to"];

/// Buckets of the default usage range, ending with the current one.
const DEFAULT_HOURS: i64 = 24;
const DEFAULT_DAYS: i64 = 30;

/// The latest time a query may name (9999-12-31T23:59:59.999Z), so bucket
/// arithmetic never overflows.
const LATEST_MS: i64 = 253_402_300_799_999;

/// The token of `Authorization: Bearer <token>`; `None` when absent or not
/// a bearer credential (both are "Missing Token").
pub(super) fn bearer(headers: &HeaderMap) -> Option<&str> {
    credential::bearer(headers).ok()
}

/// The count of a `/v1/verify` body, or why the body is not acceptable
/// (a duplicate key included: which `count` would count?).
pub(super) fn parse_count(body: &[u8]) -> Result<u64, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(1);
    }
    let value = labelpress_document::json_strict::from_slice(body)
        .map_err(|e| format!("the body is not JSON: {e}"))?;
    let Some(object) = value.as_object() else {
        return Err("the body must be a JSON object like {\"count\": 1}".into());
    };
    match object.get("count") {
        None => Ok(1),
        // 3.0 is the integer 3 in JSON (and in JSON Schema's `integer`).
        Some(count) => match count.as_u64().or_else(|| {
            count
                .as_f64()
                .filter(|f| f.fract() == 0.0 && (1.0..=u64::MAX as f64).contains(f))
                .map(|f| f as u64)
        }) {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(format!("count must be an integer >= 1, not {count}")),
        },
    }
}

/// Query parameters by name, each name at most once: with two values,
/// which one counts would be anyone's guess (a proxy may read the first,
/// a framework the last), so a repeated name is a 400.
pub(super) fn unique_query(
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<HashMap<String, String>, String> {
    let Query(pairs) = query.map_err(|e| e.body_text())?;
    let mut by_name = HashMap::with_capacity(pairs.len());
    for (name, value) in pairs {
        match by_name.entry(name) {
            Entry::Occupied(taken) => {
                return Err(format!(
                    "the query parameter {:?} is given more than once",
                    taken.key()
                ))
            }
            Entry::Vacant(slot) => {
                slot.insert(value);
            }
        }
    }
    Ok(by_name)
}

/// A boolean query flag of `/v1/verify` (`dry_run`, and the extension
/// `uncharged`: record renders refused at report time instead of
/// deducting, see [`crate::verify::VerifyCall::uncharged`]): absent,
/// `false` or `0` is false; `true`, `1` or empty is true.
pub(super) fn query_flag(query: &HashMap<String, String>, name: &str) -> Result<bool, String> {
    match query.get(name).map(String::as_str) {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1" | "") => Ok(true),
        Some(other) => Err(format!("{name} must be true or false, not {other:?}")),
    }
}

/// A name not in `known`, as the error naming the known ones.
fn unknown_parameter(query: &HashMap<String, String>, known: &[&str]) -> Result<(), String> {
    match query.keys().find(|k| !known.contains(&k.as_str())) {
        Some(unknown) => Err(format!(
            "unknown query parameter {unknown:?}; known: {}",
            known.join(", ")
        )),
        None => Ok(()),
    }
}

/// An account named by a query: the rules of [`valid_account`].
fn account(name: &str) -> Result<String, String> {
    valid_account(name).map_err(|e| e.to_string())?;
    Ok(name.to_string())
}

fn number(name: &str, value: &str, min: usize, max: usize) -> Result<usize, String> {
    value
        .parse::<usize>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("{name} must be an integer from {min} to {max}, not {value:?}"))
}

/// The search `GET /admin/api/tokens` asks for; `None` without any
/// parameter (the plain list, the older answer shape).
pub(super) fn token_query(query: &HashMap<String, String>) -> Result<Option<TokenQuery>, String> {
    if query.is_empty() {
        return Ok(None);
    }
    unknown_parameter(query, SEARCH_PARAMETERS)?;
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
        Some(name) => Some(account(name)?),
    };
    let status =
        match query.get("status").map(String::as_str) {
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

/// The usage `GET /admin/api/usage` asks for (each parameter given at most
/// once); `now` places the default range: the last 24 hours or 30 days,
/// the current bucket included. The range is rounded out to whole
/// buckets.
pub(super) fn usage_query(query: &HashMap<String, String>, now: i64) -> Result<UsageQuery, String> {
    unknown_parameter(query, USAGE_PARAMETERS)?;
    let subject = match (query.get("token"), query.get("account")) {
        (Some(id), None) if !id.is_empty() => Subject::Token(id.clone()),
        (None, Some(name)) => Subject::Account(account(name)?),
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

/// JSON body parsing with the admin API's errors: 400 for what is not JSON
/// (a duplicate key included), 422 for JSON of the wrong shape.
/// An integral number written with a fraction (`3.0`) is the integer it is
/// (JSON Schema's `integer` admits it; serde's integer fields would not).
pub(super) fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T, AdminHttpError> {
    let mut value = labelpress_document::json_strict::from_slice(body)
        .map_err(|e| AdminHttpError::BadRequest(format!("the body is not JSON: {e}")))?;
    integral(&mut value);
    serde_json::from_value(value).map_err(|e| AdminError::Invalid(e.to_string()).into())
}

/// Rewrites integral floats inside `value` (within `i64`'s range) as integers.
fn integral(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64() {
                if f.fract() == 0.0 && f.abs() < 9.0e15 {
                    *value = serde_json::Value::from(f as i64);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral),
        serde_json::Value::Object(map) => map.values_mut().for_each(integral),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::history::{DAY_MS, HOUR_MS};
    use axum::http::header;

    fn map(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn counts_are_integers_of_at_least_one() {
        assert_eq!(parse_count(b""), Ok(1));
        assert_eq!(parse_count(b"  \n"), Ok(1));
        assert_eq!(parse_count(b"{}"), Ok(1));
        assert_eq!(parse_count(br#"{"count": 7}"#), Ok(7));
        for bad in [
            &br#"{"count": 0}"#[..],
            br#"{"count": -1}"#,
            br#"{"count": "x"}"#,
            br#"{"count": 1.5}"#,
            br#"{"count": null}"#,
            b"count=1",
            b"[1]",
        ] {
            assert!(
                parse_count(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn bearer_needs_the_scheme_and_a_token() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h), None);
        h.insert(header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert_eq!(bearer(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, "bearer  abc ".parse().unwrap());
        assert_eq!(bearer(&h), Some("abc"));
        h.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&h), None);
        h.insert(header::AUTHORIZATION, "Bearer ".parse().unwrap());
        assert_eq!(bearer(&h), None);
    }

    fn search(pairs: &[(&str, &str)]) -> Result<Option<TokenQuery>, String> {
        token_query(&map(pairs))
    }

    #[test]
    fn no_search_parameters_is_the_plain_list_and_defaults_fill_the_rest() {
        assert_eq!(search(&[]), Ok(None));
        let q = search(&[("q", " ToK_Ab ")]).unwrap().unwrap();
        assert_eq!(q.q.as_deref(), Some("tok_ab"));
        assert_eq!((q.limit, q.offset, q.status), (DEFAULT_LIMIT, 0, None));
        let q = search(&[("status", "banned"), ("limit", "2"), ("offset", "4")]);
        assert_eq!(
            q.unwrap().unwrap(),
            TokenQuery {
                status: Some("banned"),
                limit: 2,
                offset: 4,
                ..TokenQuery::default()
            }
        );
    }

    #[test]
    fn bad_search_parameters_say_what_is_wrong() {
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
            let e = search(pairs).unwrap_err();
            assert!(e.contains(expected), "{pairs:?}: {e}");
        }
    }

    fn usage(pairs: &[(&str, &str)], now: i64) -> Result<UsageQuery, String> {
        usage_query(&map(pairs), now)
    }

    /// 2026-11-26T03:20:00Z.
    const NOW: i64 = 1_795_663_200_000;

    #[test]
    fn the_default_range_is_the_last_24_hours_or_30_days_ending_with_the_current_bucket() {
        let q = usage(&[("token", "tok_A")], NOW).unwrap();
        assert_eq!(rfc3339(q.to), "2026-11-26T04:00:00Z");
        assert_eq!(rfc3339(q.from), "2026-11-25T04:00:00Z");
        let q = usage(&[("account", "acme"), ("bucket", "day")], NOW).unwrap();
        assert_eq!(rfc3339(q.to), "2026-11-27T00:00:00Z");
        assert_eq!(rfc3339(q.from), "2026-10-28T00:00:00Z");
        assert_eq!(q.subject, Subject::Account("acme".into()));
    }

    #[test]
    fn times_are_rounded_out_to_bucket_boundaries_in_either_form() {
        let q = usage(
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
        let q = usage(
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
    fn bad_usage_queries_say_what_is_wrong() {
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
            let e = usage(pairs, NOW).unwrap_err();
            assert!(e.contains(expected), "{pairs:?}: {e}");
        }
        // 62 days of hours is the most; one more hour is refused.
        let from = (NOW - 62 * DAY_MS + HOUR_MS).to_string();
        assert!(usage(&[("token", "a"), ("from", &from)], NOW).is_ok());
        let from = (NOW - 62 * DAY_MS).to_string();
        assert!(usage(&[("token", "a"), ("from", &from)], NOW).is_err());
    }
}
