//! The error codes of the render route (docs/http-api.md, "Errors") and their JSON body.
//! The CLI prints the same body, so `labelpress check` shows what the service answers.
//!
//! [`ApiError`] implements `IntoResponse` once: status, the JSON body, the
//! `req_id` of the request being answered (see [`crate::http::request_id`]) and
//! the headers some codes need (`WWW-Authenticate`, `Retry-After`).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use labelpress_document::engine::RenderError;
use labelpress_document::validate::{RequestError, Violation};

/// One error of the render route.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiError {
    /// API-001: the body is not JSON.
    #[error("{0}")]
    InvalidJson(String),
    /// API-002: schema or rule violations.
    #[error("{}", RequestError::Invalid(.0.clone()))]
    Validation(Vec<Violation>),
    /// API-003: the body is larger than `limits.body_bytes`.
    #[error("the request body is larger than {limit} bytes")]
    PayloadTooLarge { limit: usize },
    /// API-004: the Content-Type is not `application/json`.
    #[error("Content-Type must be application/json, not {0}")]
    UnsupportedMediaType(String),
    /// API-006: a query parameter of the render route is not valid
    /// (`dpi`, `sheet`, `mono`).
    #[error("{0}")]
    InvalidQuery(String),
    /// API-007 (406): `Accept` names only media types the route cannot
    /// produce (the message lists those it can).
    #[error("{0}")]
    NotAcceptable(String),
    /// API-005 (404): no such route.
    #[error("no such route")]
    NotFound,
    /// API-005 (404): the route exists, the stored template it names (in the
    /// path or in a body's `template`) does not, for this token's account.
    #[error("{0}")]
    Missing(String),
    /// API-005 (405): the route exists, the method does not.
    #[error("method not allowed on this route")]
    MethodNotAllowed,
    /// API-101: Authorization missing or malformed.
    #[error("{0}")]
    Unauthorized(String),
    /// API-102: the token was rejected or is blacklisted.
    #[error("{0}")]
    Forbidden(String),
    /// API-103: a rate limit was hit.
    #[error("rate limit exceeded; retry after {retry_after_s} s")]
    RateLimited { retry_after_s: u64 },
    /// API-500: internal failure (storage, a panicked task).
    #[error("internal error: {0}")]
    Internal(String),
    /// API-501: the PDF could not be produced.
    #[error("{0}")]
    Render(String),
    /// API-502: the verifier is unreachable and the token is not cached.
    #[error("the token verifier is unreachable; retry after {retry_after_s} s")]
    VerifierUnavailable { retry_after_s: u64 },
    /// API-503: render queue full or render deadline exceeded.
    #[error("{message}")]
    Overloaded { message: String, retry_after_s: u64 },
}

/// `{"error": true, "code", "message", "req_id", "details"?}`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub struct ErrorBody {
    pub error: bool,
    pub code: &'static str,
    pub message: String,
    /// The request's id, as in the `X-Request-Id` answer header: the
    /// caller's valid `X-Request-Id` echoed, else a fresh UUID v4.
    #[schemars(schema_with = "crate::request_context::request_id_field")]
    pub req_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Vec<Violation>>,
}

impl ApiError {
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::InvalidJson(_) => "API-001",
            ApiError::Validation(_) => "API-002",
            ApiError::PayloadTooLarge { .. } => "API-003",
            ApiError::UnsupportedMediaType(_) => "API-004",
            ApiError::NotFound | ApiError::Missing(_) | ApiError::MethodNotAllowed => "API-005",
            ApiError::InvalidQuery(_) => "API-006",
            ApiError::NotAcceptable(_) => "API-007",
            ApiError::Unauthorized(_) => "API-101",
            ApiError::Forbidden(_) => "API-102",
            ApiError::RateLimited { .. } => "API-103",
            ApiError::Internal(_) => "API-500",
            ApiError::Render(_) => "API-501",
            ApiError::VerifierUnavailable { .. } => "API-502",
            ApiError::Overloaded { .. } => "API-503",
        }
    }

    /// HTTP status of the code.
    pub fn status(&self) -> u16 {
        match self {
            ApiError::InvalidJson(_) | ApiError::InvalidQuery(_) => 400,
            ApiError::Validation(_) => 422,
            ApiError::PayloadTooLarge { .. } => 413,
            ApiError::UnsupportedMediaType(_) => 415,
            ApiError::NotFound | ApiError::Missing(_) => 404,
            ApiError::MethodNotAllowed => 405,
            ApiError::NotAcceptable(_) => 406,
            ApiError::Unauthorized(_) => 401,
            ApiError::Forbidden(_) => 403,
            ApiError::RateLimited { .. } => 429,
            ApiError::Internal(_) | ApiError::Render(_) => 500,
            ApiError::VerifierUnavailable { .. } | ApiError::Overloaded { .. } => 503,
        }
    }

    /// Seconds for the `Retry-After` header, for the codes that carry one.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited { retry_after_s }
            | ApiError::VerifierUnavailable { retry_after_s }
            | ApiError::Overloaded { retry_after_s, .. } => Some((*retry_after_s).max(1)),
            _ => None,
        }
    }

    pub fn body(&self, req_id: &str) -> ErrorBody {
        let details = match self {
            ApiError::Validation(v) => Some(v.clone()),
            _ => None,
        };
        ErrorBody {
            error: true,
            code: self.code(),
            message: self.to_string(),
            req_id: req_id.to_string(),
            details,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let req_id = crate::request_context::current();
        let status =
            StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(self.body(&req_id))).into_response();
        let headers = response.headers_mut();
        if let ApiError::Unauthorized(_) = self {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(seconds) = self.retry_after() {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl From<RequestError> for ApiError {
    fn from(e: RequestError) -> Self {
        match e {
            RequestError::Json { .. } => ApiError::InvalidJson(e.to_string()),
            RequestError::Invalid(v) => ApiError::Validation(v),
        }
    }
}

impl From<RenderError> for ApiError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Request(r) => r.into(),
            other => ApiError::Render(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_the_status_and_headers_of_decisions_section_2() {
        let cases = [
            (ApiError::InvalidJson("x".into()), "API-001", 400),
            (ApiError::Validation(vec![]), "API-002", 422),
            (ApiError::PayloadTooLarge { limit: 1 }, "API-003", 413),
            (
                ApiError::UnsupportedMediaType("text/plain".into()),
                "API-004",
                415,
            ),
            (ApiError::NotFound, "API-005", 404),
            (ApiError::MethodNotAllowed, "API-005", 405),
            (ApiError::InvalidQuery("x".into()), "API-006", 400),
            (ApiError::Unauthorized("x".into()), "API-101", 401),
            (ApiError::Forbidden("x".into()), "API-102", 403),
            (ApiError::RateLimited { retry_after_s: 2 }, "API-103", 429),
            (ApiError::Internal("x".into()), "API-500", 500),
            (ApiError::Render("x".into()), "API-501", 500),
            (
                ApiError::VerifierUnavailable { retry_after_s: 5 },
                "API-502",
                503,
            ),
            (
                ApiError::Overloaded {
                    message: "full".into(),
                    retry_after_s: 0,
                },
                "API-503",
                503,
            ),
        ];
        for (error, code, status) in cases {
            assert_eq!((error.code(), error.status()), (code, status));
            let retry = error.retry_after();
            let response = error.into_response();
            assert_eq!(response.status().as_u16(), status);
            let header = |name| {
                response
                    .headers()
                    .get(name)
                    .map(|v: &HeaderValue| v.to_str().unwrap().to_string())
            };
            assert_eq!(
                header(header::WWW_AUTHENTICATE).as_deref(),
                (status == 401).then_some("Bearer"),
                "{code}"
            );
            let expected_retry = matches!(code, "API-103" | "API-502" | "API-503");
            assert_eq!(
                header(header::RETRY_AFTER).is_some(),
                expected_retry,
                "{code}"
            );
            // Whole seconds, never 0.
            assert!(retry.is_none_or(|s| s >= 1));
        }
    }
}
