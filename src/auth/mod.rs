//! Authentication of the render route (DECISIONS section 4): bearer token,
//! sled-backed cache with a locally counted-down balance, blacklist, rate
//! limits, and the durable usage outbox that the [`reporter`] drains into the
//! verifier. The verifier is anything implementing
//! [`Verifier`](crate::verify::Verifier): the in-process service or
//! [`remote::RemoteVerifier`].

pub mod cache;
pub mod limits;
pub mod outbox;
pub mod remote;
pub mod reporter;

use std::net::IpAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use axum::http::{header, HeaderMap};
use subtle::ConstantTimeEq;

use self::cache::{Entry, Reserve, TokenCache};
use self::limits::RateLimits;
use self::outbox::Outbox;
use crate::api_error::ApiError;
use crate::config::Limits;
use crate::group_commit::{Backlog, Linger};
use crate::http::metrics::Metrics;
use crate::verify::{RateLimit, Unavailable, Verdict, Verifier, VerifyCall};

/// Longest bearer token looked at; anything longer is malformed (API-101).
const MAX_TOKEN_LEN: usize = 512;

/// SHA-256 of a token: the only form in which tokens are keyed or logged.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct TokenHash(pub [u8; 32]);

impl TokenHash {
    pub fn of(token: &str) -> TokenHash {
        use sha2::Digest;
        TokenHash(sha2::Sha256::digest(token.as_bytes()).into())
    }

    pub fn from_slice(bytes: &[u8]) -> Option<TokenHash> {
        bytes.try_into().ok().map(TokenHash)
    }

    /// First 8 hex digits, for logs.
    pub fn prefix(&self) -> String {
        self.0[..4].iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Who a request is charged to.
#[derive(Debug, Clone)]
pub enum Grant {
    /// `--system-token`: not verified, not charged.
    System,
    /// A verified token; one unit is reserved in the cache.
    Token { hash: TokenHash, token: String },
}

impl Grant {
    /// What the request log shows instead of the token.
    pub fn log_tag(&self) -> String {
        match self {
            Grant::System => "system".into(),
            Grant::Token { hash, .. } => hash.prefix(),
        }
    }
}

pub struct Auth {
    verifier: Arc<dyn Verifier>,
    cache: TokenCache,
    outbox: Outbox,
    limits: RateLimits,
    system_token: Option<String>,
    ttl_ms: i64,
    retry_after_s: u64,
    metrics: Arc<Metrics>,
    /// Outcome of the last verifier call (shown by `/readyz`).
    verifier_reachable: AtomicBool,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn storage(e: sled::Error) -> ApiError {
    tracing::error!(error = %e, "token store");
    ApiError::Internal("token store failure".into())
}

/// The token of `Authorization: Bearer <token>`, or API-101.
fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or_else(|| ApiError::Unauthorized("the Authorization header is missing".into()))?;
    let malformed =
        || ApiError::Unauthorized("the Authorization header must be `Bearer <token>`".into());
    let value = value.to_str().map_err(|_| malformed())?;
    let (scheme, token) = value.split_once(' ').ok_or_else(malformed)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer")
        || token.is_empty()
        || token.len() > MAX_TOKEN_LEN
        || token.contains(char::is_whitespace)
    {
        return Err(malformed());
    }
    Ok(token)
}

impl Auth {
    /// Opens (or creates, mode 0700) the cache and outbox under `dir`. The
    /// outbox's syncs wait for more renders while `render_backlog` has some.
    pub fn open(
        dir: &Path,
        verifier: Arc<dyn Verifier>,
        system_token: Option<String>,
        limits: &Limits,
        render_backlog: Arc<Backlog>,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<Auth>, String> {
        crate::http::create_private_dir(dir)?;
        let db = sled::Config::new()
            .path(dir)
            .open()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        let open = |e: sled::Error| format!("{}: {e}", dir.display());
        Ok(Arc::new(Auth {
            verifier,
            cache: TokenCache::open(&db).map_err(open)?,
            outbox: Outbox::open(
                &db,
                Linger {
                    max: std::time::Duration::from_micros(limits.outbox_commit_delay_us),
                    backlog: Some(render_backlog),
                },
            )
            .map_err(open)?,
            limits: RateLimits::new(
                RateLimit {
                    per_second: limits.rate_limit_per_second,
                    burst: limits.rate_limit_burst,
                },
                RateLimit {
                    per_second: limits.failed_auth_per_second,
                    burst: limits.failed_auth_burst,
                },
            ),
            system_token: system_token.filter(|t| !t.is_empty()),
            ttl_ms: (limits.auth_cache_ttl_s * 1000) as i64,
            retry_after_s: limits.retry_after_s,
            metrics,
            verifier_reachable: AtomicBool::new(true),
        }))
    }

    /// Decides whether a request may render (401, 403, 429, 502 or a grant).
    /// Failed authentications also draw from the client address's limiter.
    pub async fn authenticate(
        &self,
        headers: &HeaderMap,
        client: IpAddr,
    ) -> Result<Grant, ApiError> {
        let result = self.authenticate_token(headers).await;
        if let Err(ApiError::Unauthorized(_) | ApiError::Forbidden(_)) = &result {
            if let Err(retry_after_s) = self.limits.failed_auth(client) {
                return Err(ApiError::RateLimited { retry_after_s });
            }
        }
        result
    }

    async fn authenticate_token(&self, headers: &HeaderMap) -> Result<Grant, ApiError> {
        let token = bearer(headers)?;
        if let Some(system) = &self.system_token {
            if bool::from(system.as_bytes().ct_eq(token.as_bytes())) {
                return Ok(Grant::System);
            }
        }
        let hash = TokenHash::of(token);
        let now = now_ms();
        if self.cache.blacklisted(&hash, now).map_err(storage)? {
            return Err(ApiError::Forbidden(
                "the token was rejected recently and is blacklisted".into(),
            ));
        }
        let entry = match self.cache.reserve(&hash, now).map_err(storage)? {
            Reserve::Hit(entry) => {
                self.metrics.cache_hits.fetch_add(1, Ordering::Relaxed);
                entry
            }
            Reserve::Miss => {
                self.metrics.cache_misses.fetch_add(1, Ordering::Relaxed);
                self.admit_by_verifier(&hash, token, now).await?
            }
        };
        if let Err(retry_after_s) = self.limits.token(&hash, entry.rate_limit) {
            self.cache.refund(&hash).map_err(storage)?;
            return Err(ApiError::RateLimited { retry_after_s });
        }
        Ok(Grant::Token {
            hash,
            token: token.to_string(),
        })
    }

    /// Cache miss (or cached balance used up): a synchronous dry run. The
    /// verifier's balance does not yet include usage still in the outbox.
    async fn admit_by_verifier(
        &self,
        hash: &TokenHash,
        token: &str,
        now: i64,
    ) -> Result<Entry, ApiError> {
        match self.verify(VerifyCall::dry_run(token)).await {
            Ok(Verdict::Granted(granted)) => {
                let outstanding = self.outbox.outstanding(hash).map_err(storage)?;
                let balance = granted.balance.saturating_sub(outstanding);
                if balance == 0 {
                    return Err(ApiError::Forbidden(
                        "Quota Exceeded: the balance is used up by usage not yet reported".into(),
                    ));
                }
                // A concurrent miss for the same token may have refreshed the
                // entry meanwhile: take from it rather than overwrite its count.
                if let Reserve::Hit(entry) = self.cache.reserve(hash, now).map_err(storage)? {
                    return Ok(entry);
                }
                let entry = Entry {
                    balance: balance - 1,
                    fresh_until: (now + self.ttl_ms).min(granted.expires_at.unwrap_or(i64::MAX)),
                    rate_limit: granted.rate_limit,
                };
                self.cache.put(hash, &entry).map_err(storage)?;
                Ok(entry)
            }
            Ok(Verdict::Rejected(rejection)) => {
                if rejection.status() == 403 {
                    self.cache
                        .blacklist(hash, now + self.ttl_ms)
                        .map_err(storage)?;
                }
                Err(ApiError::Forbidden(format!(
                    "{}: the verifier rejected the token",
                    rejection.error()
                )))
            }
            Err(_) => Err(ApiError::VerifierUnavailable {
                retry_after_s: self.retry_after_s,
            }),
        }
    }

    /// A verifier call, timed for the metrics.
    pub async fn verify(&self, call: VerifyCall) -> Result<Verdict, Unavailable> {
        let started = Instant::now();
        let result = self.verifier.verify(call).await;
        self.metrics.verifier_seconds.observe(started.elapsed());
        self.verifier_reachable
            .store(result.is_ok(), Ordering::Relaxed);
        if let Err(e) = &result {
            tracing::warn!(error = %e, "verifier call failed");
        }
        result
    }

    /// Charges one successful render, then calls `then` once the charge is
    /// on disk (at once for the system token, which is not charged). `then`
    /// runs on the outbox's flusher thread: it should only hand a result on.
    pub fn charge_then(
        &self,
        grant: &Grant,
        then: impl FnOnce(Result<(), ApiError>) + Send + 'static,
    ) {
        match grant {
            Grant::System => then(Ok(())),
            Grant::Token { hash, token } => self
                .outbox
                .record_then(hash, token, move |recorded| then(recorded.map_err(storage))),
        }
    }

    /// Gives back the unit reserved by [`Auth::authenticate`] when no PDF was sent.
    pub fn refund(&self, grant: &Grant) {
        if let Grant::Token { hash, .. } = grant {
            if let Err(e) = self.cache.refund(hash) {
                tracing::error!(error = %e, "token cache refund");
            }
        }
    }

    pub fn outbox_depth(&self) -> u64 {
        self.outbox.depth()
    }

    pub fn verifier_reachable(&self) -> bool {
        self.verifier_reachable.load(Ordering::Relaxed)
    }

    /// Periodic cleanup: stale cache entries, ended blacklistings, idle limiters.
    pub fn housekeeping(&self) {
        if let Err(e) = self.cache.purge(now_ms()) {
            tracing::warn!(error = %e, "token cache purge");
        }
        self.limits.retain_recent();
    }

    pub async fn flush(&self) {
        if let Err(e) = self.outbox.flush().await {
            tracing::error!(error = %e, "outbox flush");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn only_a_non_empty_bearer_token_is_well_formed() {
        assert!(bearer(&HeaderMap::new()).is_err());
        assert!(bearer(&headers("Basic x")).is_err());
        assert!(bearer(&headers("Bearer ")).is_err());
        assert!(bearer(&headers("Bearer")).is_err());
        assert!(bearer(&headers("Bearer a b")).is_err());
        assert_eq!(bearer(&headers("bearer lp_abc")).unwrap(), "lp_abc");
    }
}
