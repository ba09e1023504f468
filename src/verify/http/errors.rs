//! The verifier's error answers: every one is `{error, message}`
//! ([`RejectionBody`]) with its status, `WWW-Authenticate: Bearer` on a
//! 401 and `Retry-After` where a retry is the way out. Server-side
//! failures are logged here and answered without their detail.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::verify::admin::AdminError;
use crate::verify::protocol::{Rejection, RejectionBody};

/// Errors of `/v1/verify`: the spec's `{error, message}` body.
#[derive(Debug, thiserror::Error)]
pub(super) enum VerifyHttpError {
    #[error("{}", .1.as_deref().unwrap_or_else(|| default_message(*.0)))]
    Rejected(Rejection, Option<String>),
    /// 409: a return the ledger cannot match to its lease.
    #[error("{0}")]
    Conflict(String),
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
            VerifyHttpError::Conflict(_) => (StatusCode::CONFLICT, "Conflict"),
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

/// Errors of the admin API: the request's own ([`AdminHttpError::BadRequest`]
/// and the guard's) or the operation's ([`AdminError`]).
#[derive(Debug, thiserror::Error)]
pub enum AdminHttpError {
    #[error("Authorization: Bearer <admin token> is required")]
    MissingAdminToken,
    #[error("the admin token is wrong")]
    WrongAdminToken,
    /// A query string, a path segment or a body that cannot be read.
    #[error("{0}")]
    BadRequest(String),
    /// A body that is not declared as JSON: 415, as on the render route.
    #[error("Content-Type must be application/json, not {0}")]
    UnsupportedMediaType(String),
    /// Too many failed authentications from the client's address.
    #[error("too many failed authentications from this address; retry after {0} s")]
    RateLimited(u64),
    #[error(transparent)]
    Admin(#[from] AdminError),
}

impl AdminHttpError {
    fn status(&self) -> StatusCode {
        match self {
            AdminHttpError::MissingAdminToken => StatusCode::UNAUTHORIZED,
            AdminHttpError::WrongAdminToken => StatusCode::FORBIDDEN,
            AdminHttpError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AdminHttpError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AdminHttpError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            AdminHttpError::Admin(AdminError::Invalid(_)) => StatusCode::UNPROCESSABLE_ENTITY,
            AdminHttpError::Admin(AdminError::NotFound(_)) => StatusCode::NOT_FOUND,
            AdminHttpError::Admin(AdminError::Store(e)) if e.is_unavailable() => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AdminHttpError::Admin(AdminError::Store(_)) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for AdminHttpError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = if status.is_server_error() {
            tracing::error!(error = %self, "verifier admin API");
            if status == StatusCode::SERVICE_UNAVAILABLE {
                "the ledger is unavailable; retry".to_string()
            } else {
                "the token store failed; retry".to_string()
            }
        } else {
            self.to_string()
        };
        let error = status.canonical_reason().unwrap_or("Error").to_string();
        let mut response = error_response(status, error, message);
        if let AdminHttpError::RateLimited(seconds) = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// The verifier's error body `{error, message}`, with `WWW-Authenticate:
/// Bearer` on a 401; the verify route and the admin API both answer with it.
fn error_response(status: StatusCode, error: String, message: String) -> Response {
    let mut response = (status, Json(RejectionBody { error, message })).into_response();
    if status == StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    response
}
