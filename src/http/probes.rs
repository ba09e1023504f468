//! Public routes beside the render route: liveness, readiness, metrics,
//! version, runtime-config, the OpenAPI document, and the API-005 fallbacks.

use std::sync::atomic::Ordering;

use axum::body::Body;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::state::{AppState, VerifierMode};
use crate::api_error::ApiError;
use crate::metrics::Gauges;

pub async fn healthz() -> &'static str {
    "ok"
}

/// Ready while the stores are open and shutdown has not begun. A remote
/// verifier being down does not make the node unready: cached tokens keep
/// rendering (docs/http-api.md, "Authentication and usage"); its last known state is reported.
pub async fn readyz(State(state): State<AppState>) -> Response {
    let ready = state.ready.load(Ordering::Relaxed);
    let verifier = match state.verifier {
        VerifierMode::None => "none",
        VerifierMode::InProcess => "in-process",
        VerifierMode::Remote => "remote",
    };
    let reachable = state.render.as_ref().map(|r| r.auth.verifier_reachable());
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = serde_json::json!({
        "ready": ready,
        "verifier": verifier,
        "verifier_reachable": reachable,
    });
    (status, Json(body)).into_response()
}

pub async fn metrics(State(state): State<AppState>) -> Response {
    let gauges = Gauges {
        outbox_depth: state.render.as_ref().map_or(0, |r| r.auth.outbox_depth()),
        leased_units: state.render.as_ref().map_or(0, |r| r.auth.leased_units()),
        renders_running: state.pool.running() as u64,
        renders_waiting: state.pool.waiting() as u64,
        workers_replaced: state
            .render
            .as_ref()
            .map_or(0, |r| r.renderer.workers_replaced()),
        uncharged_unreported: state
            .render
            .as_ref()
            .map_or(0, |r| r.auth.uncharged_unreported()),
        uncharged_unrecorded: state
            .render
            .as_ref()
            .map_or(0, |r| r.auth.uncharged_unrecorded()),
        process: crate::metrics::process::ProcessStats::read(),
        ledger: match &state.verify {
            Some(service) => match service.uncharged().await {
                Ok((uncharged, uncharged_total)) => Some(crate::metrics::LedgerGauges {
                    uncharged,
                    uncharged_total,
                }),
                Err(e) => {
                    tracing::warn!(error = %e, "metrics: the ledger's uncharged renders");
                    None
                }
            },
            None => None,
        },
    };
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(&gauges),
    )
        .into_response()
}

/// `GET /openapi.json`: the document of every route ([`super::openapi`]),
/// whatever services this node runs.
pub async fn openapi() -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        super::openapi::bytes(),
    )
        .into_response()
}

/// `GET /version`: which build answers (name, version, Typst's version,
/// git commit, target, profile).
pub async fn version() -> Json<crate::build_info::BuildInfo> {
    Json(crate::build_info::BUILD)
}

/// `GET /v1/doc/runtime-config`: the serialised [`RuntimeConfig`](crate::config::RuntimeConfig), with an ETag.
pub fn runtime_config(headers: &HeaderMap, body: &str, etag: &str) -> Response {
    if super::etag::not_modified(headers, etag) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag.to_string())]).into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (header::ETAG, etag.to_string()),
        ],
        body.to_string(),
    )
        .into_response()
}

/// A connection beyond `limits.max_connections`, or one opened while the
/// server drains: 503 API-503 with `Retry-After`, and the connection closes.
/// Up to 64 KiB of the body are read first (within the connection's short
/// deadline): a socket closed with unread data is reset, and the client
/// might lose the answer.
pub async fn turned_away(State(state): State<AppState>, body: Body) -> ApiError {
    let _ = axum::body::to_bytes(body, 64 * 1024).await;
    let message = if state.ready.load(Ordering::Relaxed) {
        "the server has too many open connections; retry later"
    } else {
        "the server is shutting down; retry later"
    };
    ApiError::Overloaded {
        message: message.into(),
        retry_after_s: state.config.limits.retry_after_s,
    }
}

pub async fn not_found() -> ApiError {
    ApiError::NotFound
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}
