//! Authentication of the render route (docs/http-api.md, "Authentication and usage"): bearer token,
//! sled-backed cache with a locally counted-down balance, blacklist, rate
//! limits, and the durable usage outbox that the [`reporter`] drains into the
//! verifier. The verifier is anything implementing
//! [`Verifier`](crate::verify::Verifier): the in-process service or
//! [`remote::RemoteVerifier`].

pub mod cache;
pub mod leases;
pub mod limits;
pub mod outbox;
pub mod remote;
pub mod reporter;
mod reservation;

pub use reservation::{Charger, Reservation};

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use axum::http::HeaderMap;
use subtle::ConstantTimeEq;

use self::cache::{Blacklisted, Entry, Reserve, TokenCache};
use self::leases::{Leases, Take};
use self::limits::RateLimits;
use self::outbox::Outbox;
use crate::api_error::ApiError;
use crate::credential::{self, now_ms, BearerError, Owner, TokenHash};
use crate::group_commit::{Backlog, Linger};
use crate::metrics::Metrics;
use crate::verify::{RateLimit, Rejection, Unavailable, Verdict, Verifier, VerifyCall};
use labelpress_document::config::Limits;

/// Longest bearer token looked at; anything longer is malformed (API-101).
const MAX_TOKEN_LEN: usize = 512;

/// Verifications run one at a time per token: tokens are spread over this
/// many locks by their hash (two tokens sharing one only wait for each
/// other's verifier call).
const VERIFY_STRIPES: usize = 64;

/// Who a request is charged to.
#[derive(Debug, Clone)]
enum Grant {
    /// `--system-token`: not verified, not charged.
    System,
    /// A verified token; one unit is reserved in the cache, or held from
    /// the lease with this serial ([`leases`]).
    Token {
        hash: TokenHash,
        token: String,
        owner: Owner,
        lease: Option<u64>,
    },
}

impl Grant {
    /// What the request log shows instead of the token.
    fn log_tag(&self) -> String {
        match self {
            Grant::System => "system".into(),
            Grant::Token { hash, .. } => hash.log_prefix(),
        }
    }

    fn owner(&self) -> &Owner {
        static SYSTEM: std::sync::LazyLock<Owner> = std::sync::LazyLock::new(Owner::system);
        match self {
            Grant::System => &SYSTEM,
            Grant::Token { owner, .. } => owner,
        }
    }
}

pub struct Auth {
    verifier: Arc<dyn Verifier>,
    cache: TokenCache,
    outbox: Outbox,
    /// With a remote verifier and `lease_s` > 0, units come from leases
    /// and neither the cached balance nor the outbox is used.
    leases: Option<Leases>,
    limits: RateLimits,
    system_token: Option<String>,
    ttl_ms: i64,
    retry_after_s: u64,
    metrics: Arc<Metrics>,
    /// Outcome of the last verifier call (shown by `/readyz`).
    verifier_reachable: AtomicBool,
    /// Renders admitted and neither charged nor refunded yet.
    in_flight: Arc<InFlight>,
    verifying: [tokio::sync::Mutex<()>; VERIFY_STRIPES],
    /// How soon a blacklisted token whose rejection can be lifted (balance,
    /// expiry, ban) is asked about again (ms).
    recheck_ms: i64,
}

/// Renders admitted per token that are neither charged nor refunded yet.
///
/// Invariant: a cache reservation and the count here change together under
/// this lock, and a render leaves this count only after its charge is in the
/// outbox. So a verification that reads this count, then the outbox, then
/// asks the verifier, sees every admitted render at least once: the tokens
/// it grants are never more than the balance can pay for.
#[derive(Default)]
struct InFlight(Mutex<HashMap<TokenHash, u64>>);

impl InFlight {
    fn lock(&self) -> MutexGuard<'_, HashMap<TokenHash, u64>> {
        // Counts are only added to and taken from: a poisoned map is still whole.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn count(&self, hash: &TokenHash) -> u64 {
        self.lock().get(hash).copied().unwrap_or(0)
    }

    fn leave(counts: &mut HashMap<TokenHash, u64>, hash: &TokenHash) {
        if let Some(count) = counts.get_mut(hash) {
            *count -= 1;
            if *count == 0 {
                counts.remove(hash);
            }
        }
    }
}

fn storage(e: sled::Error) -> ApiError {
    tracing::error!(error = %e, "token store");
    ApiError::Internal("token store failure".into())
}

/// The token of `Authorization: Bearer <token>`, or API-101.
fn bearer(headers: &HeaderMap) -> Result<&str, ApiError> {
    let malformed =
        || ApiError::Unauthorized("the Authorization header must be `Bearer <token>`".into());
    let token = credential::bearer(headers).map_err(|e| match e {
        BearerError::Missing => {
            ApiError::Unauthorized("the Authorization header is missing".into())
        }
        BearerError::Malformed => malformed(),
    })?;
    if token.len() > MAX_TOKEN_LEN || token.contains(char::is_whitespace) {
        return Err(malformed());
    }
    Ok(token)
}

impl Auth {
    /// Opens (or creates, mode 0700) the cache and outbox under `dir`. The
    /// outbox's syncs wait for more renders while `render_backlog` has some.
    /// With `leasing` (a remote verifier) and `lease_s` > 0, units come
    /// from quota leases instead ([`leases`]).
    pub fn open(
        dir: &Path,
        verifier: Arc<dyn Verifier>,
        system_token: Option<String>,
        limits: &Limits,
        render_backlog: Arc<Backlog>,
        metrics: Arc<Metrics>,
        leasing: bool,
    ) -> Result<Arc<Auth>, String> {
        crate::data_dir::create_private_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
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
                dir,
                Linger {
                    max: std::time::Duration::from_micros(limits.outbox_commit_delay_us),
                    backlog: Some(render_backlog),
                },
            )
            .map_err(open)?,
            leases: (leasing && limits.lease_s > 0).then(|| {
                Leases::new(
                    std::time::Duration::from_secs(limits.lease_s),
                    limits.lease_max_units,
                )
            }),
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
            in_flight: Arc::default(),
            verifying: std::array::from_fn(|_| tokio::sync::Mutex::new(())),
            recheck_ms: (limits.blacklist_recheck_s * 1000) as i64,
        }))
    }

    /// Decides whether a request may render (401, 403, 429, 502 or one
    /// unit reserved for it, given back when the reservation is dropped
    /// uncharged). Failed authentications also draw from the client
    /// address's limiter.
    pub async fn admit(
        self: &Arc<Self>,
        headers: &HeaderMap,
        client: IpAddr,
    ) -> Result<Reservation, ApiError> {
        let grant = self.authenticate(headers, client).await?;
        Ok(Reservation::new(self.clone(), grant))
    }

    /// Whose stored templates a request may see: its token authenticated
    /// as for a render (401, 403, 502; a failure draws from the client
    /// address's limiter), but nothing reserved or charged and the token's
    /// render rate limit untouched: managing templates is not rendering.
    /// A token the verifier refuses (its balance used up included) is 403.
    pub async fn identify(&self, headers: &HeaderMap, client: IpAddr) -> Result<Owner, ApiError> {
        let (grant, _) = self.failures_limited(self.verified(headers).await, client)?;
        let owner = grant.owner().clone();
        self.refund(&grant);
        Ok(owner)
    }

    /// One more unit for the request already admitted on `grant` (a
    /// batch's further documents), as its own grant: from the cache, a
    /// lease, or the verifier as on admission; a token without it is 403.
    /// The rate limit and a blacklisting were checked at admission and are
    /// not again: it is the same request.
    async fn reserve_again(&self, grant: &Grant) -> Result<Grant, ApiError> {
        let Grant::Token { hash, token, .. } = grant else {
            return Ok(Grant::System);
        };
        if self.leases.is_some() {
            return self.leased(*hash, token).await.map(|(grant, _)| grant);
        }
        if self.reserve(hash, now_ms())?.is_some() {
            self.metrics.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(grant.clone());
        }
        self.metrics.cache_misses.fetch_add(1, Ordering::Relaxed);
        self.admit_by_verifier(hash, token).await?;
        Ok(grant.clone())
    }

    async fn authenticate(&self, headers: &HeaderMap, client: IpAddr) -> Result<Grant, ApiError> {
        self.failures_limited(self.authenticate_token(headers).await, client)
    }

    /// `result`, unless it is a failed authentication (401, 403) and the
    /// client address has used up its allowance of those: then 429.
    fn failures_limited<T>(
        &self,
        result: Result<T, ApiError>,
        client: IpAddr,
    ) -> Result<T, ApiError> {
        if let Err(ApiError::Unauthorized(_) | ApiError::Forbidden(_)) = &result {
            if let Err(retry_after_s) = self.limits.failed_auth(client) {
                return Err(ApiError::RateLimited { retry_after_s });
            }
        }
        result
    }

    async fn authenticate_token(&self, headers: &HeaderMap) -> Result<Grant, ApiError> {
        let (grant, rate_limit) = self.verified(headers).await?;
        if let Grant::Token { hash, .. } = &grant {
            if let Err(retry_after_s) = self.limits.token(hash, rate_limit) {
                self.refund(&grant);
                return Err(ApiError::RateLimited { retry_after_s });
            }
        }
        Ok(grant)
    }

    /// The request's grant, one unit reserved for a token, and the token's
    /// rate limit; no limiter drawn from.
    async fn verified(&self, headers: &HeaderMap) -> Result<(Grant, Option<RateLimit>), ApiError> {
        let token = bearer(headers)?;
        if let Some(system) = &self.system_token {
            if bool::from(system.as_bytes().ct_eq(token.as_bytes())) {
                return Ok((Grant::System, None));
            }
        }
        let hash = TokenHash::of(token);
        if self.leases.is_some() {
            return self.leased(hash, token).await;
        }
        let now = now_ms();
        let cached = match self.cache.blacklisted(&hash, now).map_err(storage)? {
            Blacklisted::Yes => return Err(blacklisted()),
            Blacklisted::Recheck => None,
            Blacklisted::No => self.reserve(&hash, now)?,
        };
        let entry = match cached {
            Some(entry) => {
                self.metrics.cache_hits.fetch_add(1, Ordering::Relaxed);
                entry
            }
            None => {
                self.metrics.cache_misses.fetch_add(1, Ordering::Relaxed);
                self.admit_by_verifier(&hash, token).await?
            }
        };
        let grant = Grant::Token {
            hash,
            token: token.to_string(),
            owner: entry.owner,
            lease: None,
        };
        Ok((grant, entry.rate_limit))
    }

    /// [`Auth::verified`] on leases: a unit of the token's current lease,
    /// or of a new one from the verifier (one call at a time per token).
    /// A blacklisted token is refused without a call until its recheck.
    async fn leased(
        &self,
        hash: TokenHash,
        token: &str,
    ) -> Result<(Grant, Option<RateLimit>), ApiError> {
        let leases = self.leases.as_ref().expect("called with leases");
        let grant = |held: leases::Held| {
            let rate_limit = held.rate_limit;
            let grant = Grant::Token {
                hash,
                token: token.to_string(),
                owner: held.owner,
                lease: Some(held.lease),
            };
            (grant, rate_limit)
        };
        let wait = |wait: std::time::Duration| ApiError::RateLimited {
            retry_after_s: wait.as_secs_f64().ceil().max(1.0) as u64,
        };
        // A unit of the book, or `None`: ask the verifier.
        let take = || match leases.take(&hash, Instant::now()) {
            Take::Held(held) => Some(Ok(grant(held))),
            Take::Wait(w) => Some(Err(wait(w))),
            Take::Ask => None,
        };
        if let Blacklisted::Yes = self.cache.blacklisted(&hash, now_ms()).map_err(storage)? {
            return Err(blacklisted());
        }
        if let Some(taken) = take() {
            if taken.is_ok() {
                self.metrics.cache_hits.fetch_add(1, Ordering::Relaxed);
            }
            return taken;
        }
        self.metrics.cache_misses.fetch_add(1, Ordering::Relaxed);
        let _turn = self.verifying[hash.0[0] as usize % VERIFY_STRIPES]
            .lock()
            .await;
        // Another request for this token may have taken a lease meanwhile.
        if let Some(taken) = take() {
            return taken;
        }
        let ask = leases.ask(&hash, Instant::now());
        if ask.want == 0 {
            // The units held cover the token's pace: renew the verdict only.
            match self.verify(VerifyCall::dry_run(token)).await {
                Ok(Verdict::Granted(granted)) => {
                    self.cache.unblacklist(&hash).map_err(storage)?;
                    if let Some(held) = leases.renewed(&hash, Some(&granted), Instant::now()) {
                        return Ok(grant(held));
                    }
                }
                // Over quota: the balance is in the fleet's leases, some of
                // it in this node's hands.
                Ok(Verdict::Rejected(Rejection::QuotaExceeded)) => {
                    if let Some(held) = leases.renewed(&hash, None, Instant::now()) {
                        return Ok(grant(held));
                    }
                }
                Ok(Verdict::Rejected(rejection)) => return Err(self.refused(&hash, rejection)?),
                Err(_) => return Err(self.unavailable()),
            }
        }
        let ask = leases::Ask {
            want: ask.want.max(1),
            ..ask
        };
        match self
            .verify(VerifyCall::lease(token, ask.want, &ask.key))
            .await
        {
            Ok(Verdict::Granted(granted)) => {
                self.cache.unblacklist(&hash).map_err(storage)?;
                leases
                    .granted(&hash, token, &ask, &granted, Instant::now())
                    .map(grant)
                    .map_err(wait)
            }
            Ok(Verdict::Rejected(Rejection::QuotaExceeded)) => {
                match leases.renewed(&hash, None, Instant::now()) {
                    Some(held) => Ok(grant(held)),
                    None => Err(self.refused(&hash, Rejection::QuotaExceeded)?),
                }
            }
            Ok(Verdict::Rejected(rejection)) => Err(self.refused(&hash, rejection)?),
            Err(_) => {
                leases.unanswered(&hash, token, &ask);
                Err(self.unavailable())
            }
        }
    }

    /// One unit from a fresh cache entry, counted in flight; `None` when the
    /// cache cannot grant it.
    fn reserve(&self, hash: &TokenHash, now: i64) -> Result<Option<Entry>, ApiError> {
        let mut in_flight = self.in_flight.lock();
        match self.cache.reserve(hash, now).map_err(storage)? {
            Reserve::Hit(entry) => {
                *in_flight.entry(*hash).or_default() += 1;
                Ok(Some(entry))
            }
            Reserve::Miss => Ok(None),
        }
    }

    /// A render leaves the in-flight count: charged (its usage is in the
    /// outbox) or not (`refund`: its unit goes back to the cache).
    fn release(&self, hash: &TokenHash, refund: bool) {
        let mut in_flight = self.in_flight.lock();
        if refund {
            if let Err(e) = self.cache.refund(hash) {
                tracing::error!(error = %e, "token cache refund");
            }
        }
        InFlight::leave(&mut in_flight, hash);
    }

    /// Cache miss, used-up cached balance, or a blacklisting due for a
    /// recheck: a synchronous dry run, one at a time per token. The
    /// verifier's balance does not include what this node has admitted but
    /// not yet reported: renders in flight and usage in the outbox.
    async fn admit_by_verifier(&self, hash: &TokenHash, token: &str) -> Result<Entry, ApiError> {
        let _turn = self.verifying[hash.0[0] as usize % VERIFY_STRIPES]
            .lock()
            .await;
        let now = now_ms();
        // Another request for this token may have verified while this one waited.
        match self.cache.blacklisted(hash, now).map_err(storage)? {
            Blacklisted::Yes => return Err(blacklisted()),
            Blacklisted::Recheck => {}
            Blacklisted::No => {
                if let Some(entry) = self.reserve(hash, now)? {
                    return Ok(entry);
                }
            }
        }
        // In this order (see `InFlight`): a render is recorded in the outbox
        // before it leaves the in-flight count, and a batch is deducted by
        // the verifier before it leaves the outbox.
        let in_flight = self.in_flight.count(hash);
        let outstanding = self.outbox.outstanding(hash).map_err(storage)?;
        match self.verify(VerifyCall::dry_run(token)).await {
            Ok(Verdict::Granted(granted)) => {
                let available = granted
                    .balance
                    .saturating_sub(outstanding.saturating_add(in_flight));
                if available == 0 {
                    return Err(ApiError::Forbidden(
                        "Quota Exceeded: the balance is used up by renders not yet reported".into(),
                    ));
                }
                let entry = Entry {
                    balance: available - 1,
                    fresh_until: (now + self.ttl_ms).min(granted.expires_at.unwrap_or(i64::MAX)),
                    rate_limit: granted.rate_limit,
                    owner: Owner::of(granted.account.as_deref(), hash),
                };
                let mut in_flight = self.in_flight.lock();
                self.cache.unblacklist(hash).map_err(storage)?;
                self.cache.put(hash, &entry).map_err(storage)?;
                *in_flight.entry(*hash).or_default() += 1;
                Ok(entry)
            }
            Ok(Verdict::Rejected(rejection)) => Err(self.refused(hash, rejection)?),
            Err(_) => Err(self.unavailable()),
        }
    }

    /// 403 at once for the TTL; a rejection an administrator can lift is
    /// asked about again after `blacklist_recheck_s`.
    fn blacklist(&self, hash: &TokenHash, rejection: Rejection) -> sled::Result<()> {
        let now = now_ms();
        let until = now + self.ttl_ms;
        let recheck_at = if liftable(rejection) {
            now + self.recheck_ms
        } else {
            until
        };
        self.cache.blacklist(hash, until, recheck_at)
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
    fn charge_then(&self, grant: &Grant, then: impl FnOnce(Result<(), ApiError>) + Send + 'static) {
        match grant {
            Grant::System => then(Ok(())),
            // Paid for when the lease was taken: nothing to write.
            Grant::Token {
                hash,
                lease: Some(serial),
                ..
            } => {
                if let Some(leases) = &self.leases {
                    leases.settle(hash, *serial, true);
                }
                then(Ok(()))
            }
            Grant::Token { hash, token, .. } => {
                let in_flight = self.in_flight.clone();
                let charged = *hash;
                self.outbox.record_then(hash, token, move |recorded| {
                    if recorded.is_ok() {
                        InFlight::leave(&mut in_flight.lock(), &charged);
                    }
                    then(recorded.map_err(storage))
                })
            }
        }
    }

    /// Gives back the unit reserved by [`Auth::admit`] when no document
    /// was sent (including when its charge could not be recorded).
    fn refund(&self, grant: &Grant) {
        match (grant, &self.leases) {
            (
                Grant::Token {
                    hash,
                    lease: Some(serial),
                    ..
                },
                Some(leases),
            ) => leases.settle(hash, *serial, false),
            (Grant::Token { hash, .. }, _) => self.release(hash, true),
            (Grant::System, _) => {}
        }
    }

    /// 503 API-502: no verifier answered.
    fn unavailable(&self) -> ApiError {
        ApiError::VerifierUnavailable {
            retry_after_s: self.retry_after_s,
        }
    }

    /// The verifier refused the token: its leases here, if any, end (to go
    /// back), a 403 blacklists it, and the request gets the refusal.
    fn refused(&self, hash: &TokenHash, rejection: Rejection) -> Result<ApiError, ApiError> {
        if let Some(leases) = &self.leases {
            leases.refused(hash);
        }
        if rejection.status() == 403 {
            self.blacklist(hash, rejection).map_err(storage)?;
        }
        Ok(ApiError::Forbidden(format!(
            "{}: the verifier rejected the token",
            rejection.error()
        )))
    }

    /// Gives back the leases that ended (with `all`, every lease: the node
    /// is stopping) once no request holds their units; a return the
    /// verifier cannot take now is tried again on the next call.
    pub async fn return_leases(&self, all: bool) -> Result<(), Unavailable> {
        let Some(leases) = &self.leases else {
            return Ok(());
        };
        let mut unavailable = None;
        for due in leases.due(Instant::now(), all) {
            if due.unused == 0 {
                leases.returned(&due.hash, due.serial);
                continue;
            }
            let call = VerifyCall::give_back(&due.token, due.unused, &due.key);
            match self.verify(call).await {
                Ok(Verdict::Granted(granted)) => {
                    if granted.returned.is_none() {
                        tracing::error!(token = %due.hash.log_prefix(), "the verifier does not know returns: unused lease units stay charged");
                    }
                    tracing::debug!(token = %due.hash.log_prefix(), unused = due.unused, "lease given back");
                    leases.returned(&due.hash, due.serial);
                }
                Ok(Verdict::Rejected(rejection)) => {
                    tracing::warn!(token = %due.hash.log_prefix(), unused = due.unused, error = rejection.error(), "lease return refused; its unused units stay charged");
                    leases.returned(&due.hash, due.serial);
                }
                Err(e) => {
                    leases.retry(&due.hash, due.serial);
                    unavailable = Some(e);
                }
            }
        }
        unavailable.map_or(Ok(()), Err)
    }

    /// Units leased to this node and not given back.
    pub fn leased_units(&self) -> u64 {
        self.leases.as_ref().map_or(0, Leases::units_held)
    }

    pub fn outbox_depth(&self) -> u64 {
        self.outbox.depth()
    }

    /// Uncharged renders waiting to be recorded by the verifier.
    pub fn uncharged_unreported(&self) -> u64 {
        self.outbox.uncharged_depth()
    }

    /// Uncharged renders the verifier could not record (unknown token),
    /// kept on this node.
    pub fn uncharged_unrecorded(&self) -> u64 {
        self.outbox.unrecorded_depth()
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

fn blacklisted() -> ApiError {
    ApiError::Forbidden("the token was rejected recently and is blacklisted".into())
}

/// Rejections an administrator can lift: a top-up, a later expiry, an unban.
/// An unknown or revoked token stays what it is.
fn liftable(rejection: Rejection) -> bool {
    matches!(
        rejection,
        Rejection::QuotaExceeded | Rejection::TokenExpired | Rejection::Banned
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credential::authorization as headers;

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
