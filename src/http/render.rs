//! `POST /api/v1/label`. Checks run in the order of docs/http-api.md ("Errors"):
//! auth (401/403/429/502), then the query (400 API-006), then the body (413,
//! 415, 400, 422), then the render (503 when the pool is full or the deadline
//! passes, 500 when no PDF comes out). Only a 200 is charged; everything else
//! gives the reserved unit back. `Accept: image/png` answers one sheet as PNG
//! ([`super::output`]); every answer carries `Vary: Accept`.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::time::Instant;

use super::output::Query;
use super::pool::{PoolError, Reply};
use super::request_id::LogInfo;
use super::state::AppState;
use crate::api_error::ApiError;
use crate::auth::{Auth, Grant};
use crate::worker::{RenderFailure, Renderer, WorkerError};
use labelpress_document::engine::{Engine, Format, Rendered};
use labelpress_document::json_strict::is_json_media_type as is_json;

pub async fn label(State(state): State<AppState>, request: Request) -> Response {
    let started = Instant::now();
    let (Some(engine), Some(auth), Some(renderer)) = (
        state.engine.clone(),
        state.auth.clone(),
        state.renderer.clone(),
    ) else {
        return ApiError::NotFound.into_response();
    };
    let grant = match auth
        .authenticate(request.headers(), client_address(&request))
        .await
    {
        Ok(grant) => grant,
        Err(e) => return e.into_response(),
    };
    let mut info = LogInfo {
        token: Some(grant.log_tag()),
        ..LogInfo::default()
    };
    let mut response =
        match produce(&state, engine, renderer, &auth, &grant, started, request).await {
            Ok(document) => {
                info.sheets = Some(document.sheets);
                info.bytes = Some(document.bytes.len());
                document.into_response()
            }
            Err(e) => {
                auth.refund(&grant);
                e.into_response()
            }
        };
    // The answer depends on Accept (PDF or PNG), so caches must key on it.
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response.extensions_mut().insert(info);
    response
}

/// The address a request's connection came from (unspecified for a router
/// served without connect info), which authentication limits by.
pub(super) fn client_address(request: &Request) -> IpAddr {
    request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

/// A rendered PDF, or one sheet as PNG.
struct Document {
    bytes: Vec<u8>,
    format: Format,
    sheets: usize,
    file_name: Option<String>,
    warnings: usize,
}

/// The header of a 200 that counts the document's validation warnings
/// (`0` too), as `POST /api/v1/label/check` lists them.
pub const WARNINGS_HEADER: &str = "x-labelpress-warnings";

impl IntoResponse for Document {
    fn into_response(self) -> Response {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(self.format.media_type()),
        );
        headers.insert(WARNINGS_HEADER, HeaderValue::from(self.warnings));
        if let Some(name) = &self.file_name {
            let disposition = labelpress_document::pdf::output::content_disposition(name);
            if let Ok(value) = HeaderValue::from_str(&disposition) {
                headers.insert(header::CONTENT_DISPOSITION, value);
            }
        }
        (StatusCode::OK, headers, self.bytes).into_response()
    }
}

/// The request body, with the render route's checks in its order: the
/// declared length (413), the length read (413), then the content type (415).
pub(super) async fn read_body(state: &AppState, request: Request) -> Result<Bytes, ApiError> {
    let limit = state.config.limits.body_bytes;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::PayloadTooLarge { limit });
    }
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    // The route's DefaultBodyLimit layer bounds this read to `limit`.
    let body = Bytes::from_request(request, &())
        .await
        .map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge { limit }
            } else {
                ApiError::InvalidJson(format!("the request body could not be read: {rejection}"))
            }
        })?;
    match content_type.as_deref() {
        Some(ct) if is_json(ct) => {}
        Some(ct) => return Err(ApiError::UnsupportedMediaType(ct.to_string())),
        None => return Err(ApiError::UnsupportedMediaType("none".into())),
    }
    Ok(body)
}

async fn produce(
    state: &AppState,
    engine: Arc<Engine>,
    renderer: Renderer,
    auth: &Arc<Auth>,
    grant: &Grant,
    started: Instant,
    request: Request,
) -> Result<Document, ApiError> {
    // Several Accept lines are one comma-separated list (RFC 9110 5.3).
    let accept: Vec<&str> = request
        .headers()
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let query = Query::parse(request.uri().query(), &state.config.limits)?;
    let format = query.format((!accept.is_empty()).then(|| accept.join(",")).as_deref());
    let output = query.output(format);
    let body = read_body(state, request).await?;
    // Validation, render and charge run as one job on a render thread: one
    // thread switch per request. The job hands its answer over once the
    // charge is on disk (the outbox's flusher delivers it), so this task is
    // woken once for both. A job the pool refuses (queue full) or withdraws
    // unstarted (deadline) is validated on its own, so that a bad body still
    // answers 400/422 rather than 503 (docs/http-api.md).
    let job = {
        let body = body.clone();
        let auth = auth.clone();
        let grant = grant.clone();
        let deadline = (started + state.pool.deadline()).into_std();
        let retry_after_s = state.pool.retry_after_s();
        move |reply: Reply<Result<(Rendered, Duration), ApiError>>| {
            let rendered = renderer.render(&body, &output, deadline);
            // After the deadline nobody gets this PDF: it is not charged.
            if reply.claim() {
                match rendered {
                    Ok(done) => auth.charge_then(&grant, move |charged| {
                        reply.send(charged.map(|()| done));
                    }),
                    Err(e) => reply.send(Err(failure(e, retry_after_s))),
                }
            }
            renderer.prepare();
        }
    };
    let pool = &state.pool;
    let (rendered, took) = match pool.run_with_reply(started, job).await {
        Ok(result) => result?,
        Err(e) => {
            if let PoolError::Deadline { started: true } = e {
                state
                    .metrics
                    .renders_abandoned
                    .fetch_add(1, Ordering::Relaxed);
            }
            if let PoolError::QueueFull | PoolError::Deadline { started: false } = e {
                tokio::task::spawn_blocking(move || engine.validate(&body))
                    .await
                    .map_err(|_| ApiError::Internal("the validation task failed".into()))??;
            }
            return Err(e.into_api(pool.retry_after_s()));
        }
    };
    state.metrics.render_seconds.observe(took);
    state
        .metrics
        .sheets
        .fetch_add(rendered.delivered_sheets() as u64, Ordering::Relaxed);
    Ok(Document {
        bytes: rendered.bytes,
        format: rendered.format,
        sheets: rendered.sheets,
        file_name: rendered.file_name,
        warnings: rendered.warnings,
    })
}

/// The answer to a render (or a check) that gave no document.
pub(super) fn failure(e: RenderFailure, retry_after_s: u64) -> ApiError {
    match e {
        RenderFailure::Render(e) => e.into(),
        RenderFailure::Worker(WorkerError::Deadline) => {
            PoolError::Deadline { started: true }.into_api(retry_after_s)
        }
        RenderFailure::Worker(e @ WorkerError::Died(_)) => ApiError::Render(e.to_string()),
        // The document, not the server: it will not render on this
        // deployment as it is, so a 4xx that says why (never a 500).
        RenderFailure::Worker(e @ WorkerError::OutOfMemory { .. }) => {
            ApiError::Validation(vec![labelpress_document::validate::Violation {
                path: String::new(),
                message: e.to_string(),
            }])
        }
        // A fresh worker that also died before taking the job: the machine,
        // not the request (an idle worker found dead is replaced silently).
        RenderFailure::Worker(e @ (WorkerError::Start(_) | WorkerError::Gone(_))) => {
            ApiError::Internal(e.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_json;

    #[test]
    fn json_content_types() {
        assert!(is_json("application/json"));
        assert!(is_json("Application/JSON; charset=utf-8"));
        assert!(is_json("application/json;charset=\"UTF-8\""));
        assert!(!is_json("application/json; charset=latin1"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/jsonx"));
    }
}
