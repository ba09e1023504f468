//! The HTTP face of the verification service: `POST /v1/verify`, the
//! dashboard at `/admin` and the JSON API under `/admin/api`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;

use super::admin::{AdminError, Expiry, NewToken, TopUp};
use super::protocol::{Rejection, RejectionBody, Verdict, VerifyCall};
use super::service::VerifyService;

type Service = State<Arc<VerifyService>>;

/// `/v1/verify`, `/admin` and `/admin/api/...`, ready to merge into the
/// server's router.
pub fn router(service: Arc<VerifyService>) -> Router {
    let api = Router::new()
        .route("/tokens", get(list_tokens).post(create_token))
        .route("/tokens/{id}", get(show_token))
        .route("/tokens/{id}/topup", post(top_up))
        .route("/tokens/{id}/expiry", post(set_expiry))
        .route("/tokens/{id}/revoke", post(revoke))
        .route("/accounts/{account}/ban", post(ban))
        .route("/accounts/{account}/unban", post(unban))
        .route_layer(middleware::from_fn_with_state(service.clone(), admin_only));
    Router::new()
        .route("/v1/verify", post(verify))
        .route("/admin", get(dashboard))
        .nest("/admin/api", api)
        .with_state(service)
}

/// Errors of `/v1/verify`: the spec's `{error, message}` body.
#[derive(Debug, thiserror::Error)]
enum VerifyHttpError {
    #[error("{}", .1.as_deref().unwrap_or_else(|| default_message(*.0)))]
    Rejected(Rejection, Option<String>),
    #[error("the verifier could not record the answer; retry")]
    Internal,
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
        };
        error_response(status, error.to_string(), self.to_string())
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
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The count of a `/v1/verify` body, or why the body is not acceptable.
fn parse_count(body: &[u8]) -> Result<u64, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(1);
    }
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let Some(object) = value.as_object() else {
        return Err("the body must be a JSON object like {\"count\": 1}".into());
    };
    match object.get("count") {
        None => Ok(1),
        Some(count) => match count.as_u64() {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(format!("count must be an integer >= 1, not {count}")),
        },
    }
}

fn parse_dry_run(query: &HashMap<String, String>) -> Result<bool, String> {
    match query.get("dry_run").map(String::as_str) {
        None | Some("false" | "0") => Ok(false),
        Some("true" | "1" | "") => Ok(true),
        Some(other) => Err(format!("dry_run must be true or false, not {other:?}")),
    }
}

async fn verify(
    State(service): Service,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, VerifyHttpError> {
    let Some(token) = bearer(&headers) else {
        return Err(VerifyHttpError::Rejected(Rejection::MissingToken, None));
    };
    let bad = |m: String| VerifyHttpError::Rejected(Rejection::BadRequest, Some(m));
    let Query(query) = query.map_err(|e| bad(e.body_text()))?;
    let dry_run = parse_dry_run(&query).map_err(bad)?;
    let idempotency_key = match headers.get("idempotency-key") {
        Some(v) => Some(
            v.to_str()
                .map_err(|_| bad("Idempotency-Key must be visible ASCII".into()))?
                .to_string(),
        ),
        None => None,
    };
    // A bad body is judged after the token (rules, step 7): count 0 carries it.
    let (count, body_error) = match parse_count(&body) {
        Ok(n) => (n, None),
        Err(m) => (0, Some(m)),
    };
    let call = VerifyCall {
        token: token.to_string(),
        count,
        dry_run,
        idempotency_key,
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
        Err(e) => {
            tracing::error!(error = %e, "verifier: verification failed");
            Err(VerifyHttpError::Internal)
        }
    }
}

/// Guards `/admin/api`: `Authorization: Bearer <admin token>`.
async fn admin_only(
    State(service): Service,
    request: Request,
    next: Next,
) -> Result<Response, AdminError> {
    let token = bearer(request.headers()).ok_or(AdminError::MissingAdminToken)?;
    if !service.is_admin(token) {
        return Err(AdminError::WrongAdminToken);
    }
    Ok(next.run(request).await)
}

/// JSON body parsing with the admin API's errors: 400 for what is not JSON,
/// 422 for JSON of the wrong shape.
fn json<T: DeserializeOwned>(body: &[u8]) -> Result<T, AdminError> {
    serde_json::from_slice(body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => AdminError::Invalid(e.to_string()),
        _ => AdminError::BadRequest(format!("the body is not JSON: {e}")),
    })
}

/// A path parameter, or a JSON 400 (bad percent-encoding, not UTF-8).
fn segment(param: Result<Path<String>, PathRejection>) -> Result<String, AdminError> {
    param
        .map(|Path(value)| value)
        .map_err(|e| AdminError::BadRequest(e.body_text()))
}

async fn dashboard() -> impl IntoResponse {
    (
        [
            (header::CACHE_CONTROL, "no-store"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
            ),
        ],
        Html(include_str!("dashboard.html")),
    )
}

async fn create_token(State(service): Service, body: Bytes) -> Result<Response, AdminError> {
    let new: NewToken = json(&body)?;
    let created = service.create_token(new).await?;
    Ok((StatusCode::CREATED, Json(created)).into_response())
}

async fn list_tokens(State(service): Service) -> Result<Response, AdminError> {
    Ok(Json(service.list_tokens()?).into_response())
}

async fn show_token(
    State(service): Service,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, AdminError> {
    let id = segment(id)?;
    Ok(Json(service.token(&id)?).into_response())
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
