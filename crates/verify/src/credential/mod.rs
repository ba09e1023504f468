//! What the render route's guard and the verifier's routes (both in the
//! `labelpress` crate) share about credentials, written once: the token's
//! digest, the `Authorization: Bearer` header, the wall clock expiry and
//! cache times are read from, and rate limits ([`rate_limit`]).

pub mod rate_limit;

use http::{header, HeaderMap};
use sha2::{Digest, Sha256};

/// SHA-256 of a token: the only form in which a token is stored, keyed or
/// logged (and then only its [`TokenHash::log_prefix`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenHash(pub [u8; 32]);

impl TokenHash {
    pub fn of(token: &str) -> TokenHash {
        TokenHash(Sha256::digest(token.as_bytes()).into())
    }

    pub fn from_slice(bytes: &[u8]) -> Option<TokenHash> {
        bytes.try_into().ok().map(TokenHash)
    }

    /// First 8 hex digits: enough to follow one token through the logs,
    /// useless for finding the secret.
    pub fn log_prefix(&self) -> String {
        self.0[..4].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Only the prefix: a digest in a debug line is still a key to the store.
impl std::fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenHash({}..)", self.log_prefix())
    }
}

/// Whose stored templates a request sees: the account of its token, as the
/// verifier names it. A verifier that does not name accounts (the
/// `account` field of its answer is an extension) leaves each token its
/// own owner; the system token is one owner of its own.
#[derive(Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Owner(String);

impl Owner {
    pub fn account(name: &str) -> Owner {
        Owner(format!("account:{name}"))
    }

    /// A token whose verifier does not say its account: keyed by its digest,
    /// never by the secret.
    pub fn token(hash: &TokenHash) -> Owner {
        let hex: String = hash.0.iter().map(|b| format!("{b:02x}")).collect();
        Owner(format!("token:{hex}"))
    }

    pub fn system() -> Owner {
        Owner("system".into())
    }

    /// The owner from a verifier's answer for the token `hash`.
    pub fn of(account: Option<&str>, hash: &TokenHash) -> Owner {
        account.map_or_else(|| Owner::token(hash), Owner::account)
    }

    /// The key stores file it under (`account:acme`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Accounts are not secret, but a digest is a store key: shown shortened.
impl std::fmt::Debug for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.strip_prefix("token:") {
            Some(hex) => write!(f, "Owner(token:{}..)", &hex[..8.min(hex.len())]),
            None => write!(f, "Owner({})", self.0),
        }
    }
}

/// Why a request carries no bearer token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BearerError {
    /// No `Authorization` header.
    Missing,
    /// A header that is not `Bearer <token>` (another scheme, no token, not
    /// visible ASCII).
    Malformed,
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive,
/// the token trimmed). Each route judges the token itself: the render route
/// also refuses long tokens and inner whitespace, the verifier looks any up.
pub fn bearer(headers: &HeaderMap) -> Result<&str, BearerError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or(BearerError::Missing)?;
    let value = value.to_str().map_err(|_| BearerError::Malformed)?;
    let (scheme, token) = value.trim().split_once(' ').ok_or(BearerError::Malformed)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(BearerError::Malformed);
    }
    Ok(token)
}

/// Headers carrying `Authorization: <value>`, for tests of the routes'
/// credential handling (the verifier's and the render route's, through the
/// `test-support` feature).
#[cfg(any(test, feature = "test-support"))]
pub fn authorization(value: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let value = http::HeaderValue::from_str(value).expect("a header value");
    headers.insert(header::AUTHORIZATION, value);
    headers
}

/// Unix milliseconds now (0 on a clock before 1970, which no expiry or
/// cache time can be compared with anyway).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    #[test]
    fn a_bearer_token_needs_the_scheme_and_a_token() {
        assert_eq!(bearer(&HeaderMap::new()), Err(BearerError::Missing));
        assert_eq!(bearer(&authorization("Bearer abc")), Ok("abc"));
        assert_eq!(bearer(&authorization("bearer  abc ")), Ok("abc"));
        for malformed in ["Basic abc", "Bearer ", "Bearer", "Bearerabc"] {
            assert_eq!(
                bearer(&authorization(malformed)),
                Err(BearerError::Malformed),
                "{malformed:?}"
            );
        }
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_bytes(b"Bearer \xff").unwrap(),
        );
        assert_eq!(bearer(&h), Err(BearerError::Malformed));
    }

    #[test]
    fn a_token_hash_shows_only_its_prefix() {
        let hash = TokenHash::of("lp_secret");
        assert_eq!(hash.log_prefix().len(), 8);
        assert_eq!(
            format!("{hash:?}"),
            format!("TokenHash({}..)", hash.log_prefix())
        );
        assert_eq!(TokenHash::from_slice(&hash.0), Some(hash));
        assert_eq!(TokenHash::from_slice(&hash.0[..31]), None);
    }
}
