//! `POST /api/v1/label`. Checks run in the order of docs/http-api.md ("Errors"):
//! auth (401/403/429/502), then the query (400 API-006), then the body (413,
//! 415, 400, 422), then the render (503 when the pool is full or the deadline
//! passes, 500 when no PDF comes out). Only a 200 is charged; everything else
//! gives the reserved unit back. `Accept: image/png` answers one sheet as PNG
//! ([`super::output`]); every answer carries `Vary: Accept`.

use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::time::Instant;

use super::extract::{Arrived, JsonBody, Wanted};
use super::pool::{PoolError, Reply};
use super::request_id::LogInfo;
use super::state::{AppState, RenderService};
use crate::api_error::ApiError;
use crate::auth::{Charger, Reservation};
use crate::worker::{RenderFailure, Work, WorkerError};
use labelpress_document::engine::{Format, Rendered};

/// The arguments run in the documented order: auth, query, body. The
/// reservation is held to the end: dropped uncharged, it gives its unit
/// back, whatever ended the request.
pub async fn label(
    Arrived(started): Arrived,
    State(node): State<AppState>,
    State(service): State<RenderService>,
    reservation: Reservation,
    wanted: Result<Wanted, ApiError>,
    body: Result<JsonBody, ApiError>,
) -> Response {
    let info = LogInfo {
        token: Some(reservation.log_tag()),
        ..LogInfo::default()
    };
    let produced = async {
        let Wanted(output) = wanted?;
        let JsonBody(body) = body?;
        let retry_after_s = node.pool.retry_after_s();
        let owner = reservation.owner();
        let body =
            super::templates::resolve(&service.templates, owner, body, retry_after_s).await?;
        let work = Work::Document(output);
        produce(&node, service, &[&reservation], started, body, work).await
    }
    .await;
    if produced.is_err() {
        // Given back before the answer leaves: a client that retries at
        // once finds its unit there.
        drop(reservation);
    }
    answer(produced, info)
}

/// The answer of a render or batch: the document, or the error, with
/// `Vary: accept` (it depends on Accept, so caches must key on it) and
/// what the request log records.
pub(super) fn answer(produced: Result<Document, ApiError>, mut info: LogInfo) -> Response {
    let response = match produced {
        Ok(document) => {
            info.sheets = Some(document.sheets);
            info.bytes = Some(document.bytes.len());
            document.into_response()
        }
        Err(e) => e.into_response(),
    };
    finish(response, info)
}

/// Any answer of the render or batch route: `Vary: accept`, and what the
/// request log records.
pub(super) fn finish(mut response: Response, info: LogInfo) -> Response {
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response.extensions_mut().insert(info);
    response
}

/// A rendered PDF, one sheet as PNG, ZPL, or an archive.
pub(super) struct Document {
    pub bytes: Vec<u8>,
    pub format: Format,
    pub sheets: usize,
    pub file_name: Option<String>,
    pub warnings: usize,
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

/// Validation, render and charge run as one job on a render thread: one
/// thread switch per request. The job hands its answer over once the charge
/// is on disk (the outbox's flusher delivers it), so this task is woken once
/// for both. A job holds one reservation per document it may render and
/// charges one per document it rendered; the rest are given back when the
/// request drops them.
pub(super) async fn produce(
    node: &AppState,
    service: RenderService,
    reservations: &[&Reservation],
    started: Instant,
    body: axum::body::Bytes,
    work: Work,
) -> Result<Document, ApiError> {
    let pool = &node.pool;
    let job = {
        let body = body.clone();
        let chargers: Vec<_> = reservations.iter().map(|r| r.charger()).collect();
        let renderer = service.renderer;
        let deadline = (started + pool.deadline()).into_std();
        let retry_after_s = pool.retry_after_s();
        move |reply: Reply<Result<(Rendered, Duration), ApiError>>| {
            let rendered = renderer.render(&work, &body, deadline);
            // After the deadline nobody gets this document: it is not charged.
            if reply.claim() {
                match rendered {
                    Ok(done) => {
                        let documents = done.0.documents;
                        Charger::charge_all(chargers.into_iter().take(documents), move |charged| {
                            reply.send(charged.map(|()| done));
                        })
                    }
                    Err(e) => reply.send(Err(failure(e, retry_after_s))),
                }
            }
        }
    };
    let (rendered, took) = match pool.run_with_reply(started, job).await {
        Ok(result) => result?,
        Err(e) => {
            if let PoolError::Deadline { started: true } = e {
                node.metrics
                    .renders_abandoned
                    .fetch_add(1, Ordering::Relaxed);
            }
            // A job the pool refused (queue full) or withdrew unstarted
            // (deadline) is validated on its own, so that a bad body still
            // answers 400/422 rather than 503 (docs/http-api.md).
            if let PoolError::QueueFull | PoolError::Deadline { started: false } = e {
                let engine = service.engine;
                tokio::task::spawn_blocking(move || work.validate(&engine, &body))
                    .await
                    .map_err(|_| ApiError::Internal("the validation task failed".into()))??;
            }
            return Err(e.into_api(pool.retry_after_s()));
        }
    };
    node.metrics.render_seconds.observe(took);
    node.metrics
        .sheets
        .fetch_add(rendered.delivered_sheets as u64, Ordering::Relaxed);
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
