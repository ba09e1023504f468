//! The HTTP face of the verification service: `POST /v1/verify`, the
//! dashboard at `/admin` and the JSON API under `/admin/api`.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRef, Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use serde::de::DeserializeOwned;

use super::admin::{AdminError, Expiry, NewToken, TopUp};
use super::history::UsageQuery;
use super::protocol::{RateLimit, Rejection, RejectionBody, Verdict, VerifyCall};
use super::search::TokenQuery;
use super::service::VerifyService;
use crate::credential::{self, rate_limit::FailedAuth};

type Service = State<Arc<VerifyService>>;

/// What the verifier's routes share: the service, and the limiter failed
/// authentications draw from (per client address).
#[derive(Clone)]
struct Shared {
    service: Arc<VerifyService>,
    failed_auth: Arc<FailedAuth>,
}

impl FromRef<Shared> for Arc<VerifyService> {
    fn from_ref(shared: &Shared) -> Self {
        shared.service.clone()
    }
}

/// The client address of a request, when the server recorded one (it
/// does; a router served without connect info has none, and such requests
/// are not limited).
type Peer = Option<Extension<ConnectInfo<SocketAddr>>>;

/// A failed authentication from `peer`: `Err(seconds)` once over the limit.
fn failed_auth(shared: &Shared, peer: &Peer) -> Result<(), u64> {
    match peer {
        Some(Extension(ConnectInfo(addr))) => shared.failed_auth.check_and_sweep(addr.ip()),
        None => Ok(()),
    }
}

/// [`router_with`] with the default failed-authentication limit.
pub fn router(service: Arc<VerifyService>) -> Router {
    let limits = labelpress_document::config::Limits::default();
    router_with(
        service,
        RateLimit {
            per_second: limits.failed_auth_per_second,
            burst: limits.failed_auth_burst,
        },
    )
}

/// `/v1/verify`, `/admin` and `/admin/api/...`, ready to merge into the
/// server's router. Failed authentications (401, 403 Invalid Token, a
/// wrong admin token) draw from a limiter per client address with
/// `failed_auth`; past it the answer is 429 with `Retry-After`.
pub fn router_with(service: Arc<VerifyService>, failed_auth: RateLimit) -> Router {
    let shared = Shared {
        service,
        failed_auth: Arc::new(FailedAuth::new(failed_auth)),
    };
    let api = Router::new()
        .route("/tokens", get(list_tokens).post(create_token))
        .route("/tokens/{id}", get(show_token))
        .route("/tokens/{id}/topup", post(top_up))
        .route("/tokens/{id}/expiry", post(set_expiry))
        .route("/tokens/{id}/revoke", post(revoke))
        .route("/usage", get(usage))
        .route("/accounts/banned", get(banned_accounts))
        .route("/accounts/{account}/ban", post(ban))
        .route("/accounts/{account}/unban", post(unban))
        .route_layer(middleware::from_fn_with_state(shared.clone(), admin_only));
    Router::new()
        .route("/v1/verify", post(verify))
        .route("/admin", get(dashboard))
        .nest("/admin/api", api)
        .with_state(shared)
}

/// Errors of `/v1/verify`: the spec's `{error, message}` body.
#[derive(Debug, thiserror::Error)]
enum VerifyHttpError {
    #[error("{}", .1.as_deref().unwrap_or_else(|| default_message(*.0)))]
    Rejected(Rejection, Option<String>),
    #[error("the verifier could not record the answer; retry")]
    Internal,
    /// The ledger cannot be reached now; nothing was deducted.
    #[error("the ledger is unavailable; nothing was deducted, retry")]
    Unavailable,
    /// Too many failed authentications from the client's address.
    #[error("too many failed authentications from this address; retry after {0} s")]
    RateLimited(u64),
}

fn default_message(rejection: Rejection) -> &'static str {
    match rejection {
        Rejection::BadRequest => "the body must be {\"count\": integer >= 1} or empty",
        Rejection::MissingToken => "send the token as Authorization: Bearer <token>",
        Rejection::InvalidToken => "the token is malformed, unknown or revoked",
        Rejection::TokenExpired => "the token has expired",
        Rejection::QuotaExceeded => "the balance is lower than count; nothing was deducted",
        Rejection::Banned => "the token's account is banned",
    }
}

impl IntoResponse for VerifyHttpError {
    fn into_response(self) -> Response {
        let (status, error) = match &self {
            VerifyHttpError::Rejected(r, _) => (
                StatusCode::from_u16(r.status()).unwrap_or(StatusCode::FORBIDDEN),
                r.error(),
            ),
            VerifyHttpError::Internal => {
                (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error")
            }
            VerifyHttpError::Unavailable => {
                (StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable")
            }
            VerifyHttpError::RateLimited(_) => (StatusCode::TOO_MANY_REQUESTS, "Too Many Requests"),
        };
        let mut response = error_response(status, error.to_string(), self.to_string());
        match self {
            VerifyHttpError::RateLimited(seconds) => {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
            }
            VerifyHttpError::Unavailable => {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(1));
            }
            _ => {}
        }
        response
    }
}

/// The verifier's error body `{error, message}`, with `WWW-Authenticate:
/// Bearer` on a 401; the verify route and the admin API both answer with it.
pub(crate) fn error_response(status: StatusCode, error: String, message: String) -> Response {
    let mut response = (status, Json(RejectionBody { error, message })).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            header::HeaderValue::from_static("Bearer"),
        );
    }
    response
}

/// The token of `Authorization: Bearer <token>`; `None` when absent or not
/// a bearer credential (both are "Missing Token").
fn bearer(headers: &HeaderMap) -> Option<&str> {
    credential::bearer(headers).ok()
}

/// The count of a `/v1/verify` body, or why the body is not acceptable
/// (a duplicate key included: which `count` would count?).
fn parse_count(body: &[u8]) -> Result<u64, String> {
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
fn unique_query(
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
/// deducting, see [`VerifyCall::uncharged`]): absent, `false` or `0` is
/// false; `true`, `1` or empty is true.
fn query_flag(query: &HashMap<String, String>, name: &str) -> Result<bool, String> {
    match query.get(name).map(String::as_str) {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1" | "") => Ok(true),
        Some(other) => Err(format!("{name} must be true or false, not {other:?}")),
    }
}

/// `POST /v1/verify`. A missing or invalid token (401, 403 Invalid Token)
/// draws from the client address's failed-authentication limit; past it
/// the answer is 429 instead. Other answers never draw from it.
async fn verify(
    State(shared): State<Shared>,
    peer: Peer,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, VerifyHttpError> {
    let result = check(&shared.service, query, &headers, &body).await;
    if let Err(VerifyHttpError::Rejected(Rejection::MissingToken | Rejection::InvalidToken, _)) =
        &result
    {
        failed_auth(&shared, &peer).map_err(VerifyHttpError::RateLimited)?;
    }
    result
}

async fn check(
    service: &VerifyService,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, VerifyHttpError> {
    let Some(token) = bearer(headers) else {
        return Err(VerifyHttpError::Rejected(Rejection::MissingToken, None));
    };
    let bad = |m: String| VerifyHttpError::Rejected(Rejection::BadRequest, Some(m));
    let query = unique_query(query).map_err(bad)?;
    let dry_run = query_flag(&query, "dry_run").map_err(bad)?;
    let uncharged = query_flag(&query, "uncharged").map_err(bad)?;
    if dry_run && uncharged {
        return Err(bad(
            "dry_run and uncharged cannot both be true: recording uncharged renders writes".into(),
        ));
    }
    let idempotency_key = match headers.get("idempotency-key") {
        Some(v) => Some(
            v.to_str()
                .map_err(|_| bad("Idempotency-Key must be visible ASCII".into()))?
                .to_string(),
        ),
        None => None,
    };
    // A bad body is judged after the token (rules, step 7): count 0 carries it.
    let (count, body_error) = match parse_count(body) {
        Ok(n) => (n, None),
        Err(m) => (0, Some(m)),
    };
    let call = VerifyCall {
        token: token.to_string(),
        count,
        dry_run,
        idempotency_key,
        uncharged,
    };
    match service.check(&call).await {
        Ok(Verdict::Granted(granted)) => {
            Ok(([(header::CACHE_CONTROL, "no-store")], Json(granted)).into_response())
        }
        Ok(Verdict::Rejected(Rejection::BadRequest)) => Err(VerifyHttpError::Rejected(
            Rejection::BadRequest,
            Some(body_error.unwrap_or_else(|| {
                "Idempotency-Key must be 1 to 255 visible ASCII characters, and a reused key needs the same count".into()
            })),
        )),
        Ok(Verdict::Rejected(r)) => Err(VerifyHttpError::Rejected(r, None)),
        Err(e) if e.is_unavailable() => {
            tracing::warn!(error = %e, "verifier: ledger unavailable");
            Err(VerifyHttpError::Unavailable)
        }
        Err(e) => {
            tracing::error!(error = %e, "verifier: verification failed");
            Err(VerifyHttpError::Internal)
        }
    }
}

/// Guards `/admin/api`: `Authorization: Bearer <admin token>`. A missing
/// or wrong one draws from the client address's failed-authentication
/// limit (429 past it). Then, as for `/v1/verify`, a query parameter given
/// twice is a 400.
async fn admin_only(
    State(shared): State<Shared>,
    peer: Peer,
    request: Request,
    next: Next,
) -> Result<Response, AdminError> {
    let authenticated = match bearer(request.headers()) {
        None => Err(AdminError::MissingAdminToken),
        Some(token) if !shared.service.is_admin(token) => Err(AdminError::WrongAdminToken),
        Some(_) => Ok(()),
    };
    if let Err(refused) = authenticated {
        failed_auth(&shared, &peer).map_err(AdminError::RateLimited)?;
        return Err(refused);
    }
    unique_query(Query::try_from_uri(request.uri())).map_err(AdminError::BadRequest)?;
    json_declared(request.headers())?;
    Ok(next.run(request).await)
}

/// A request that carries a body declares it as JSON (`application/json`,
/// at most a UTF-8 charset), as the docs say; a bodiless call (revoke, ban)
/// needs no Content-Type.
fn json_declared(headers: &axum::http::HeaderMap) -> Result<(), AdminError> {
    let has_body = headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
            .is_some_and(|n| n > 0);
    if !has_body {
        return Ok(());
    }
    match headers.get(header::CONTENT_TYPE) {
        Some(v)
            if labelpress_document::json_strict::is_json_media_type(&String::from_utf8_lossy(
                v.as_bytes(),
            )) =>
        {
            Ok(())
        }
        Some(v) => Err(AdminError::UnsupportedMediaType(
            String::from_utf8_lossy(v.as_bytes()).into_owned(),
        )),
        None => Err(AdminError::UnsupportedMediaType("none".into())),
    }
}

/// JSON body parsing with the admin API's errors: 400 for what is not JSON
/// (a duplicate key included), 422 for JSON of the wrong shape.
/// An integral number written with a fraction (`3.0`) is the integer it is
/// (JSON Schema's `integer` admits it; serde's integer fields would not).
fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T, AdminError> {
    let mut value = labelpress_document::json_strict::from_slice(body)
        .map_err(|e| AdminError::BadRequest(format!("the body is not JSON: {e}")))?;
    integral(&mut value);
    serde_json::from_value(value).map_err(|e| AdminError::Invalid(e.to_string()))
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

/// A path parameter, or a JSON 400 (bad percent-encoding, not UTF-8).
fn segment(param: Result<Path<String>, PathRejection>) -> Result<String, AdminError> {
    param
        .map(|Path(value)| value)
        .map_err(|e| AdminError::BadRequest(e.body_text()))
}

/// The dashboard's Content-Security-Policy.
pub const DASHBOARD_CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

async fn dashboard() -> impl IntoResponse {
    (
        [
            (header::CACHE_CONTROL, "no-store"),
            // No other origin may frame the page (clickjacking of Ban,
            // Revoke, Top up), and it may neither re-base its links nor
            // post forms anywhere: the page talks to the API by fetch.
            (header::CONTENT_SECURITY_POLICY, DASHBOARD_CSP),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Html(include_str!("dashboard.html")),
    )
}

async fn create_token(State(service): Service, body: Bytes) -> Result<Response, AdminError> {
    let new: NewToken = json(&body)?;
    let created = service.create_token(new).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// The admin API's query parameters, each at most once (the guard
/// [`admin_only`] already refused repeats; this is its answer again).
fn admin_query(
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<HashMap<String, String>, AdminError> {
    unique_query(query).map_err(AdminError::BadRequest)
}

/// `GET /admin/api/tokens`: without parameters every token as an array
/// (the older answer, which `labelpress token list` reads); with any of
/// `q`, `account`, `status`, `limit`, `offset` one page `{items, total, next}`.
async fn list_tokens(
    State(service): Service,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, AdminError> {
    let query = admin_query(query)?;
    match TokenQuery::parse(&query).map_err(AdminError::BadRequest)? {
        None => Ok(Json(service.list_tokens().await?).into_response()),
        Some(search) => Ok(Json(service.search_tokens(&search).await?).into_response()),
    }
}

async fn usage(
    State(service): Service,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, AdminError> {
    let query = admin_query(query)?;
    let query =
        UsageQuery::parse(&query, crate::credential::now_ms()).map_err(AdminError::BadRequest)?;
    Ok(Json(service.usage(&query).await?).into_response())
}

async fn banned_accounts(State(service): Service) -> Result<Response, AdminError> {
    Ok(Json(service.banned_accounts().await?).into_response())
}

async fn show_token(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminError> {
    let id = segment(id)?;
    Ok(Json(service.token(&id).await?).into_response())
}

async fn top_up(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let id = segment(id)?;
    let TopUp { amount } = json(&body)?;
    Ok(Json(service.top_up(&id, amount).await?).into_response())
}

async fn set_expiry(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
    body: Bytes,
) -> Result<Response, AdminError> {
    let id = segment(id)?;
    let Expiry { expires_at } = json(&body)?;
    Ok(Json(service.set_expiry(&id, expires_at).await?).into_response())
}

async fn revoke(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminError> {
    let id = segment(id)?;
    Ok(Json(service.revoke(&id).await?).into_response())
}

async fn ban(
    State(service): Service,
    account: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminError> {
    let account = segment(account)?;
    Ok(Json(service.set_banned(&account, true).await?).into_response())
}

async fn unban(
    State(service): Service,
    account: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminError> {
    let account = segment(account)?;
    Ok(Json(service.set_banned(&account, false).await?).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
