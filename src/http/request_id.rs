//! One request id per request: the caller's `X-Request-Id` when it is valid
//! ([`request_context::is_valid_request_id`]), else a fresh UUID; visible to the code
//! answering (so an [`ApiError`](crate::api_error::ApiError) body carries it
//! as `req_id`, and the remote verifier receives it), sent back as
//! `X-Request-Id`, and logged: every log line written while the request is
//! answered belongs to its `request` span (`req_id`, and with a valid
//! `traceparent` the caller's `trace_id` and `parent_id` and this node's
//! `span_id`), and one access line closes it.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

use crate::metrics::Metrics;
use crate::request_context::{self, RequestContext};

/// What a handler tells the request log beyond status and duration.
#[derive(Debug, Clone, Default)]
pub struct LogInfo {
    pub sheets: Option<usize>,
    pub bytes: Option<usize>,
    /// First characters of the token's SHA-256, never the token.
    pub token: Option<String>,
}

/// Middleware around every route, fallbacks included.
pub async fn layer(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let context = RequestContext::from_headers(request.headers());
    let started = Instant::now();
    // Label by route pattern, not raw path: metrics must not grow with every URL tried.
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let method = request.method().clone();
    // The path only: a query may carry secrets, and the log keeps none.
    let path = request.uri().path().to_string();
    let span = tracing::info_span!(
        "request",
        req_id = %context.id,
        trace_id = tracing::field::Empty,
        parent_id = tracing::field::Empty,
        span_id = tracing::field::Empty,
    );
    if let Some(trace) = &context.trace {
        // Display, as `req_id`: unquoted in text lines.
        use tracing::field::display;
        span.record("trace_id", display(&trace.trace_id));
        span.record("parent_id", display(&trace.parent_id));
        span.record("span_id", display(&context.span_id));
    }
    let id = context.id.clone();
    let mut response =
        request_context::within(context, next.run(request).instrument(span.clone())).await;
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
    span.in_scope(|| {
        tracing::info!(
            %method,
            %path,
            route = %route,
            status,
            duration_ms = elapsed.as_secs_f64() * 1e3,
            sheets = info.sheets,
            bytes = info.bytes,
            token = info.token.as_deref(),
            "request"
        )
    });
    response
}
