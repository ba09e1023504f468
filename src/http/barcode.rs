//! The barcode image service: `GET /barcode/{symbology}/{content}?params`
//! answers an SVG that is a pure function of the URL, so it is cached for a
//! year and carries a strong ETag. Requests are parsed on the async side
//! ([`BarcodeRequest::parse`], also the fuzz target's entry) and encoded in
//! a bounded [`EncodePool`].

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::sync::Semaphore;

use labelpress_barcode::{BarcodeError, BarcodeRequest};
use labelpress_document::config::Limits;

const CACHE_CONTROL: &str = "public, max-age=31536000, immutable";
const PLAIN_TEXT: &str = "text/plain; charset=utf-8";

/// The barcode router, its encodes bounded by `limits` (see [`EncodePool`]).
pub fn router(limits: &Limits) -> Router {
    router_with(Arc::new(EncodePool::new(limits)))
}

/// The barcode router over a given pool (tests hold its slots).
pub fn router_with(pool: Arc<EncodePool>) -> Router {
    Router::new()
        .route("/barcode/{symbology}/{content}", get(barcode))
        // An empty content segment matches no `{content}`: without these the
        // answer would be the generic JSON 404 instead of this service's 400.
        .route("/barcode/{symbology}/", get(without_content))
        .route("/barcode/{symbology}", get(without_content))
        .with_state(pool)
}

/// Why the service gives no SVG.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The request's fault: 400 with the message.
    #[error(transparent)]
    Barcode(#[from] BarcodeError),
    /// Every encode slot busy and the wait queue full: 503 with `Retry-After`.
    #[error("the barcode service is busy (every encode slot taken and the queue full); retry after {retry_after_s} s")]
    Busy { retry_after_s: u64 },
    /// The encode task died (a panic outside the encoders' own guard).
    #[error("internal encoder failure")]
    Failed,
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        let message = self.to_string();
        match self {
            ServiceError::Barcode(_) => plain_text(StatusCode::BAD_REQUEST, message),
            ServiceError::Busy { retry_after_s } => {
                let mut response = plain_text(StatusCode::SERVICE_UNAVAILABLE, message);
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_s));
                response
            }
            ServiceError::Failed => plain_text(StatusCode::INTERNAL_SERVER_ERROR, message),
        }
    }
}

fn plain_text(status: StatusCode, message: String) -> Response {
    (status, [(header::CONTENT_TYPE, PLAIN_TEXT)], message).into_response()
}

/// Barcode encodes, off the async workers and bounded like renders: at
/// most `slots` run at once, each on one of tokio's blocking threads, and
/// at most `queue` more wait for a slot; past that the answer is 503 at
/// once. A large symbol costs tens of milliseconds of CPU: inline on the
/// async workers, a flood of them delayed every other route (`/healthz`
/// went from 1 ms to over a second).
pub struct EncodePool {
    /// One per encode running.
    slots: Arc<Semaphore>,
    /// One per encode running or waiting: `slots + queue` in all.
    tickets: Arc<Semaphore>,
    capacity: usize,
    retry_after_s: u64,
}

impl EncodePool {
    /// `render_slots()` slots, `barcode_queue` waiting, `retry_after_s`.
    pub fn new(limits: &Limits) -> EncodePool {
        EncodePool::with_capacity(
            limits.render_slots(),
            limits.barcode_queue,
            limits.retry_after_s,
        )
    }

    pub fn with_capacity(slots: usize, queue: usize, retry_after_s: u64) -> EncodePool {
        let slots = slots.max(1);
        EncodePool {
            slots: Arc::new(Semaphore::new(slots)),
            tickets: Arc::new(Semaphore::new(slots + queue)),
            capacity: slots + queue,
            retry_after_s: retry_after_s.max(1),
        }
    }

    /// Encodes running or waiting now.
    pub fn occupied(&self) -> usize {
        self.capacity - self.tickets.available_permits()
    }

    /// Runs `job` on a blocking thread once a slot is free, or answers
    /// [`ServiceError::Busy`] at once when the queue is full.
    pub async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let busy = ServiceError::Busy {
            retry_after_s: self.retry_after_s,
        };
        let ticket = self.tickets.clone().try_acquire_owned().map_err(|_| busy)?;
        // The semaphores are never closed.
        let slot = self
            .slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ServiceError::Failed)?;
        tokio::task::spawn_blocking(move || {
            // Held until the job ends, even when the client has gone and
            // nobody awaits it: the pool's counts stay true.
            let _held = (ticket, slot);
            job()
        })
        .await
        .map_err(|_| ServiceError::Failed)
    }
}

/// The route's two segments exactly as they came on the wire, still
/// percent-encoded: `/barcode/{symbology}/{content}`, or an empty content
/// for `/barcode/{symbology}/` and `/barcode/{symbology}`.
///
/// Read from the URI, not from axum's path parameters: those are already
/// percent-decoded, and decoding the content a second time in
/// [`BarcodeRequest::parse`] turned `50%25` into an invalid escape and
/// `%2520` into a space. Invariant: each segment is decoded exactly once.
fn raw_segments(uri: &Uri) -> (&str, &str) {
    let path = uri.path();
    let rest = path.strip_prefix("/barcode/").unwrap_or(path);
    rest.split_once('/').unwrap_or((rest, ""))
}

async fn barcode(
    State(pool): State<Arc<EncodePool>>,
    uri: Uri,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, ServiceError> {
    let (symbology, content) = raw_segments(&uri);
    let request = BarcodeRequest::parse(symbology, content, query.as_deref().unwrap_or(""))?;
    let etag = request.etag();
    let cache = [
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_CONTROL),
        ),
        (
            header::ETAG,
            HeaderValue::from_str(&etag).expect("hex digest is a valid header value"),
        ),
    ];
    if super::etag::not_modified(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, cache).into_response());
    }
    let svg = pool.run(move || request.svg()).await??;
    Ok((
        StatusCode::OK,
        cache,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("image/svg+xml"),
        )],
        svg,
    )
        .into_response())
}

/// `/barcode/{symbology}/` and `/barcode/{symbology}`: the same checks in
/// the same order, so an unknown symbology is named first, then the empty
/// content.
async fn without_content(uri: Uri, RawQuery(query): RawQuery) -> Result<Response, ServiceError> {
    let (symbology, _) = raw_segments(&uri);
    BarcodeRequest::parse(symbology, "", query.as_deref().unwrap_or(""))?;
    Err(BarcodeError::Empty.into())
}
