//! The HTTP face of the verification service: `POST /v1/verify`, the
//! dashboard at `/admin` and the JSON API under `/admin/api`. The routes
//! here read requests ([`request`]), call the service and the admin
//! operations, and answer views ([`views`]) or error bodies ([`errors`]);
//! no rule of the ledger is decided in this layer.

pub mod errors;
pub mod request;
pub mod views;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRef, Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};

use self::errors::{AdminHttpError, VerifyHttpError};
use self::request::{
    bearer, json, parse_count, query_flag, token_query, unique_query, usage_query,
};
use self::views::{AccountView, Expiry, TokenDetail, TokenPage, TokenView, TopUp, UsageSeries};
use crate::credential::rate_limit::FailedAuth;
use crate::verify::admin::NewToken;
use crate::verify::protocol::{Purpose, RateLimit, Rejection, Verdict, VerifyCall};
use crate::verify::service::VerifyService;

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
        .route("/v1/leases", post(lease))
        .route("/v1/leases/return", post(give_back))
        .route("/admin", get(dashboard))
        .nest("/admin/api", api)
        .with_state(shared)
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
    answer(shared, peer, Purpose::Charge, query, headers, body).await
}

/// `POST /v1/leases` (docs/leases.md): a quota lease of up to `count`
/// units, under its required `Idempotency-Key`.
async fn lease(
    State(shared): State<Shared>,
    peer: Peer,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, VerifyHttpError> {
    answer(shared, peer, Purpose::Lease, query, headers, body).await
}

/// `POST /v1/leases/return`: `count` unused units of the lease taken
/// under the same `Idempotency-Key` given back.
async fn give_back(
    State(shared): State<Shared>,
    peer: Peer,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, VerifyHttpError> {
    answer(shared, peer, Purpose::GiveBack, query, headers, body).await
}

async fn answer(
    shared: Shared,
    peer: Peer,
    purpose: Purpose,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, VerifyHttpError> {
    let result = check(&shared.service, purpose, query, &headers, &body).await;
    if let Err(VerifyHttpError::Rejected(Rejection::MissingToken | Rejection::InvalidToken, _)) =
        &result
    {
        failed_auth(&shared, &peer).map_err(VerifyHttpError::RateLimited)?;
    }
    result
}

async fn check(
    service: &VerifyService,
    purpose: Purpose,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, VerifyHttpError> {
    let Some(token) = bearer(headers) else {
        return Err(VerifyHttpError::Rejected(Rejection::MissingToken, None));
    };
    let bad = |m: String| VerifyHttpError::Rejected(Rejection::BadRequest, Some(m));
    let query = unique_query(query).map_err(bad)?;
    // A lease and a return are neither dry runs nor uncharged: their
    // routes read no flag.
    let flag = |name| match purpose {
        Purpose::Charge => query_flag(&query, name).map_err(bad),
        _ => Ok(false),
    };
    let dry_run = flag("dry_run")?;
    let uncharged = flag("uncharged")?;
    if dry_run && uncharged {
        return Err(bad(
            "dry_run and uncharged cannot both be true: recording uncharged renders writes".into(),
        ));
    }
    if purpose != Purpose::Charge && headers.get("idempotency-key").is_none() {
        return Err(bad(
            "a lease and its return need an Idempotency-Key (the lease's, for its return)".into(),
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
        purpose,
    };
    match service.check(&call).await {
        Ok(Verdict::Granted(granted)) => {
            Ok(([(header::CACHE_CONTROL, "no-store")], Json(granted)).into_response())
        }
        // A well-formed return the ledger cannot match to its lease: a
        // conflict with the ledger's state, not a malformed request.
        Ok(Verdict::Rejected(Rejection::BadRequest))
            if purpose == Purpose::GiveBack && body_error.is_none() =>
        {
            Err(VerifyHttpError::Conflict(
                "no lease of this token under this Idempotency-Key within 24 h, or a count above the units it leased or unlike its first return's".into(),
            ))
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
) -> Result<Response, AdminHttpError> {
    let authenticated = match bearer(request.headers()) {
        None => Err(AdminHttpError::MissingAdminToken),
        Some(token) if !shared.service.is_admin(token) => Err(AdminHttpError::WrongAdminToken),
        Some(_) => Ok(()),
    };
    if let Err(refused) = authenticated {
        failed_auth(&shared, &peer).map_err(AdminHttpError::RateLimited)?;
        return Err(refused);
    }
    unique_query(Query::try_from_uri(request.uri())).map_err(AdminHttpError::BadRequest)?;
    json_declared(request.headers())?;
    Ok(next.run(request).await)
}

/// A request that carries a body declares it as JSON (`application/json`,
/// at most a UTF-8 charset), as the docs say; a bodiless call (revoke, ban)
/// needs no Content-Type.
fn json_declared(headers: &axum::http::HeaderMap) -> Result<(), AdminHttpError> {
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
        Some(v) => Err(AdminHttpError::UnsupportedMediaType(
            String::from_utf8_lossy(v.as_bytes()).into_owned(),
        )),
        None => Err(AdminHttpError::UnsupportedMediaType("none".into())),
    }
}

/// A path parameter, or a JSON 400 (bad percent-encoding, not UTF-8).
fn segment(param: Result<Path<String>, PathRejection>) -> Result<String, AdminHttpError> {
    param
        .map(|Path(value)| value)
        .map_err(|e| AdminHttpError::BadRequest(e.body_text()))
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

async fn create_token(State(service): Service, body: Bytes) -> Result<Response, AdminHttpError> {
    let new: NewToken = json(&body)?;
    let created = service.create_token(new).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

/// The admin API's query parameters, each at most once (the guard
/// [`admin_only`] already refused repeats; this is its answer again).
fn admin_query(
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<HashMap<String, String>, AdminHttpError> {
    unique_query(query).map_err(AdminHttpError::BadRequest)
}

/// `GET /admin/api/tokens`: without parameters every token as an array
/// (the older answer, which `labelpress token list` reads); with any of
/// `q`, `account`, `status`, `limit`, `offset` one page `{items, total, next}`.
async fn list_tokens(
    State(service): Service,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, AdminHttpError> {
    let query = admin_query(query)?;
    match token_query(&query).map_err(AdminHttpError::BadRequest)? {
        None => {
            let records = service.list_tokens().await?;
            let now = crate::credential::now_ms();
            let views: Vec<TokenView> = records.iter().map(|r| TokenView::of(r, now)).collect();
            Ok(Json(views).into_response())
        }
        Some(search) => {
            let (records, total) = service.search_tokens(&search).await?;
            let page = TokenPage::of(&search, &records, total, crate::credential::now_ms());
            Ok(Json(page).into_response())
        }
    }
}

async fn usage(
    State(service): Service,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, AdminHttpError> {
    let query = admin_query(query)?;
    let query =
        usage_query(&query, crate::credential::now_ms()).map_err(AdminHttpError::BadRequest)?;
    let totals = service.usage(&query).await?;
    Ok(Json(UsageSeries::of(&query, &totals)).into_response())
}

async fn banned_accounts(State(service): Service) -> Result<Response, AdminHttpError> {
    Ok(Json(service.banned_accounts().await?).into_response())
}

async fn show_token(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminHttpError> {
    let id = segment(id)?;
    let record = service.token(&id).await?;
    Ok(Json(TokenDetail::of(&record, crate::credential::now_ms())).into_response())
}

/// A token as a change left it.
fn changed(record: &crate::verify::record::TokenRecord) -> Response {
    Json(TokenView::of(record, crate::credential::now_ms())).into_response()
}

async fn top_up(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
    body: Bytes,
) -> Result<Response, AdminHttpError> {
    let id = segment(id)?;
    let TopUp { amount } = json(&body)?;
    Ok(changed(&service.top_up(&id, amount).await?))
}

async fn set_expiry(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
    body: Bytes,
) -> Result<Response, AdminHttpError> {
    let id = segment(id)?;
    let Expiry { expires_at } = json(&body)?;
    Ok(changed(&service.set_expiry(&id, expires_at).await?))
}

async fn revoke(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminHttpError> {
    let id = segment(id)?;
    Ok(changed(&service.revoke(&id).await?))
}

/// A ban or an unban of the account in the path.
async fn set_banned(
    service: &VerifyService,
    account: Result<Path<String>, PathRejection>,
    banned: bool,
) -> Result<Response, AdminHttpError> {
    let account = segment(account)?;
    service.set_banned(&account, banned).await?;
    Ok(Json(AccountView { account, banned }).into_response())
}

async fn ban(
    State(service): Service,
    account: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminHttpError> {
    set_banned(&service, account, true).await
}

async fn unban(
    State(service): Service,
    account: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminHttpError> {
    set_banned(&service, account, false).await
}
