//! Conditional GETs: whether a client's `If-None-Match` already names the
//! current representation, so the answer is 304 without a body. Parsing and
//! comparison are the `headers` crate's (RFC 7232: weak comparison, `*`,
//! lists, several header lines).

use axum::http::HeaderMap;
use headers::{ETag, HeaderMapExt, IfNoneMatch};

/// True when `If-None-Match` matches `etag` (a quoted entity tag, as sent in
/// the `ETag` header). A malformed `If-None-Match` matches nothing: the
/// client gets the full answer.
pub fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    let Ok(etag) = etag.parse::<ETag>() else {
        return false;
    };
    headers
        .typed_get::<IfNoneMatch>()
        .is_some_and(|condition| !condition.precondition_passes(&etag))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("if-none-match", HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn matches_strong_weak_listed_and_any() {
        let etag = "\"abc\"";
        for values in [
            &["\"abc\""][..],
            &["W/\"abc\""],
            &["\"x\", \"abc\""],
            &["\"x\"", "\"abc\""],
            &["*"],
        ] {
            assert!(not_modified(&with(values), etag), "{values:?}");
        }
        for values in [&[][..], &["\"x\""], &["abc"], &["\"abcd\""]] {
            assert!(!not_modified(&with(values), etag), "{values:?}");
        }
    }
}
