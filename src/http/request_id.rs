//! One request id per request: generated here, visible to the code answering
//! (so an [`ApiError`](crate::api_error::ApiError) body carries it as
//! `req_id`), sent back as `X-Request-Id`, and logged with the outcome.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

use super::metrics::Metrics;

tokio::task_local! {
    static REQ_ID: String;
}

/// What a handler tells the request log beyond status and duration.
#[derive(Debug, Clone, Default)]
pub struct LogInfo {
    pub sheets: Option<usize>,
    pub bytes: Option<usize>,
    /// First characters of the token's SHA-256, never the token.
    pub token: Option<String>,
}

/// The id of the request being answered. Outside a request (CLI, unit tests)
/// a fresh id, so an error body always has one.
pub fn current() -> String {
    REQ_ID
        .try_with(Clone::clone)
        .unwrap_or_else(|_| uuid::Uuid::new_v4().to_string())
}

/// Middleware around every route, fallbacks included.
pub async fn layer(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let id = uuid::Uuid::new_v4().to_string();
    let started = Instant::now();
    // Label by route pattern, not raw path: metrics must not grow with every URL tried.
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let method = request.method().clone();
    let mut response = REQ_ID.scope(id.clone(), next.run(request)).await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", value);
    }
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    metrics.request(&route, status);
    let info = response
        .extensions()
        .get::<LogInfo>()
        .cloned()
        .unwrap_or_default();
    tracing::info!(
        req_id = %id,
        %method,
        route = %route,
        status,
        duration_ms = elapsed.as_secs_f64() * 1e3,
        sheets = info.sheets,
        bytes = info.bytes,
        token = info.token.as_deref(),
        "request"
    );
    response
}
