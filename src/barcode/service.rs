//! The barcode image service: `GET /barcode/{symbology}/{content}?params`
//! answers an SVG that is a pure function of the URL, so it is cached for a
//! year and carries a strong ETag. Requests are parsed on the async side
//! ([`BarcodeRequest::parse`], also the fuzz target's entry) and encoded in
//! a bounded [`EncodePool`]. Also the CLI helper behind
//! `labelpress barcode SYMBOLOGY CONTENT --opt k=v`.

use std::sync::Arc;

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;

use super::{to_svg, BarcodeError, Options, Symbology};
use crate::config::Limits;

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

impl IntoResponse for BarcodeError {
    fn into_response(self) -> Response {
        plain_text(StatusCode::BAD_REQUEST, self.to_string())
    }
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        let message = self.to_string();
        match self {
            ServiceError::Barcode(e) => e.into_response(),
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

/// One barcode request, parsed and checked: everything its SVG depends on.
#[derive(Debug, Clone)]
pub struct BarcodeRequest {
    pub symbology: Symbology,
    pub content: String,
    pub options: Options,
}

impl BarcodeRequest {
    /// Parses `GET /barcode/{symbology}/{content}?{query}` from the raw
    /// (still percent-encoded) path segments and query string: the
    /// symbology, then the content (one percent-decoded segment, not empty),
    /// then the strict parameters. Cheap: nothing is encoded yet.
    pub fn parse(symbology: &str, content: &str, query: &str) -> Result<Self, BarcodeError> {
        let symbology: Symbology = percent_decode(symbology, false)
            .ok_or_else(|| bad_segment("symbology"))?
            .parse()?;
        let content = percent_decode(content, false).ok_or_else(|| bad_segment("content"))?;
        if content.is_empty() {
            return Err(BarcodeError::Empty);
        }
        let pairs = decode_query(query)?;
        let options = Options::from_pairs(
            symbology,
            pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )?;
        Ok(BarcodeRequest {
            symbology,
            content,
            options,
        })
    }

    /// Encodes and draws: CPU-bound, bounded by the per-symbology length
    /// limits (tens of milliseconds at most); the route runs it in the
    /// [`EncodePool`].
    pub fn svg(&self) -> Result<String, BarcodeError> {
        to_svg(self.symbology, &self.content, &self.options)
    }

    /// Strong validator over everything the output depends on; options are
    /// hashed in their parsed form, so `m=2` and `margin=2` share an ETag.
    pub fn etag(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.symbology.name().as_bytes());
        h.update([0]);
        h.update(self.content.as_bytes());
        h.update([0]);
        h.update(format!("{:?}", self.options).as_bytes());
        // The renderer's version: bump when the SVG output changes (v2: PDF417's
        // automatic error-correction level follows the data length).
        h.update(b"\0svg-v2");
        let digest = h.finalize();
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("\"{hex}\"")
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
    if crate::http::etag::not_modified(&headers, &etag) {
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

/// `a=1&b=2` into decoded pairs (`+` is a space). Duplicates are left for
/// `Options::from_pairs` to refuse.
fn decode_query(query: &str) -> Result<Vec<(String, String)>, BarcodeError> {
    let mut out = Vec::new();
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let key = percent_decode(k, true).ok_or_else(|| bad_encoding(k))?;
        let value = percent_decode(v, true).ok_or_else(|| bad_encoding(k))?;
        out.push((key, value));
    }
    Ok(out)
}

fn bad_encoding(param: &str) -> BarcodeError {
    BarcodeError::InvalidParameter {
        param: param.chars().take(64).collect(),
        value: String::new(),
        expected: "valid percent-encoded UTF-8".into(),
    }
}

fn bad_segment(segment: &str) -> BarcodeError {
    BarcodeError::InvalidContent {
        symbology: "the barcode service",
        reason: format!("the {segment} path segment is not valid percent-encoded UTF-8"),
    }
}

/// Percent-decoding into UTF-8; `+` is a space in a query string
/// (`plus_is_space`), itself in a path segment. Strict: a `%` not followed
/// by two hex digits is refused (the decoder itself would keep it as is).
fn percent_decode(s: &str, plus_is_space: bool) -> Option<String> {
    let escapes_valid = s.split('%').skip(1).all(|after| {
        after
            .as_bytes()
            .get(..2)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if !escapes_valid {
        return None;
    }
    let s = match plus_is_space {
        true => std::borrow::Cow::Owned(s.replace('+', " ")),
        false => std::borrow::Cow::Borrowed(s),
    };
    let decoded = percent_encoding::percent_decode_str(&s)
        .decode_utf8()
        .ok()?;
    Some(decoded.into_owned())
}

/// The `labelpress barcode` subcommand: `opts` are `key=value` strings with
/// the service's parameter names and rules.
pub fn cli_svg(symbology: &str, content: &str, opts: &[String]) -> Result<String, BarcodeError> {
    let symbology: Symbology = symbology.parse()?;
    let mut pairs = Vec::with_capacity(opts.len());
    for opt in opts {
        let (k, v) = opt
            .split_once('=')
            .ok_or_else(|| BarcodeError::InvalidParameter {
                param: opt.clone(),
                value: String::new(),
                expected: "key=value".into(),
            })?;
        pairs.push((k, v));
    }
    let options = Options::from_pairs(symbology, pairs)?;
    to_svg(symbology, content, &options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_decoding() {
        assert_eq!(
            decode_query("fg=%23ff0000&m=2&x=a+b").unwrap(),
            vec![
                ("fg".into(), "#ff0000".into()),
                ("m".into(), "2".into()),
                ("x".into(), "a b".into())
            ]
        );
        assert!(decode_query("fg=%zz").is_err());
        assert!(decode_query("fg=%+1").is_err());
        assert!(decode_query("fg=%é").is_err());
        assert!(decode_query("fg=%4").is_err());
        // An escaped plus is a plus; only a bare one is a space.
        assert_eq!(
            decode_query("t=a%2Bb+c").unwrap(),
            vec![("t".into(), "a+b c".into())]
        );
    }

    #[test]
    fn a_path_segment_keeps_its_plus_and_must_not_be_empty() {
        let r = BarcodeRequest::parse("qr", "a+b%2Fc", "ecl=H").unwrap();
        assert_eq!(r.content, "a+b/c");
        assert_eq!(
            BarcodeRequest::parse("qr", "", "").unwrap_err(),
            BarcodeError::Empty
        );
        assert!(BarcodeRequest::parse("nope", "", "")
            .unwrap_err()
            .to_string()
            .starts_with("unknown symbology 'nope'"));
        assert!(BarcodeRequest::parse("qr", "%FF", "").is_err());
    }
}
