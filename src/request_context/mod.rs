//! Who is asking: the request id and trace of the request being answered,
//! held in a task-local for the code that answers it (so an
//! [`ApiError`](crate::api_error::ApiError) body carries the id as `req_id`,
//! and the remote verifier receives id and trace). The HTTP middleware that
//! sets it per request is [`crate::http::request_id`]; outside a request
//! (CLI, background tasks) there is none.

pub mod trace;

use axum::http::HeaderMap;
use schemars::gen::SchemaGenerator;
use serde_json::{json, Value};

use trace::{new_span_id, TraceParent};

/// Longest caller-chosen request id kept.
pub const MAX_REQUEST_ID_LEN: usize = 128;

tokio::task_local! {
    static CONTEXT: RequestContext;
}

/// Who is asking, as far as logs and calls to other nodes are concerned.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// Valid by [`is_valid_request_id`]: safe in a log line and a header.
    pub id: String,
    /// The caller's trace, when it sent a valid `traceparent`.
    pub trace: Option<TraceParent>,
    /// This node's span within `trace` (the parent of its outgoing calls).
    pub span_id: String,
}

impl RequestContext {
    /// The context of a request with these headers: what the caller sent
    /// when valid, fresh values otherwise. An invalid id is replaced, never
    /// echoed or logged: it could forge log lines (newlines, quotes) or
    /// bloat every line of the request.
    pub fn from_headers(headers: &HeaderMap) -> RequestContext {
        let id = headers
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .filter(|id| is_valid_request_id(id))
            .map_or_else(|| uuid::Uuid::new_v4().to_string(), str::to_string);
        let trace = headers
            .get("traceparent")
            .and_then(|v| v.to_str().ok())
            .and_then(TraceParent::parse);
        RequestContext {
            id,
            trace,
            span_id: new_span_id(),
        }
    }

    /// The `traceparent` for a call this request makes to another node.
    pub fn outgoing_traceparent(&self) -> Option<String> {
        self.trace.as_ref().map(|t| t.child_header(&self.span_id))
    }
}

/// A request id kept from the caller: 1 to [`MAX_REQUEST_ID_LEN`] characters
/// of `A-Z a-z 0-9 . _ : -` (UUIDs, ULIDs and most tracers' ids fit).
pub fn is_valid_request_id(id: &str) -> bool {
    (1..=MAX_REQUEST_ID_LEN).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_:".contains(&b))
}

/// The id of the request being answered. Outside a request (CLI, unit tests)
/// a fresh id, so an error body always has one.
pub fn current() -> String {
    CONTEXT
        .try_with(|c| c.id.clone())
        .unwrap_or_else(|_| uuid::Uuid::new_v4().to_string())
}

/// The context of the request being answered; `None` outside a request
/// (the usage reporter's background calls).
pub fn context() -> Option<RequestContext> {
    CONTEXT.try_with(Clone::clone).ok()
}

/// Runs `future` as part of the request `context` ([`current`] and
/// [`context`] see it).
pub async fn within<F: std::future::Future>(context: RequestContext, future: F) -> F::Output {
    CONTEXT.scope(context, future).await
}

/// A request id as the server sends it back (`X-Request-Id`, `req_id`): a
/// caller's valid id is echoed, so it is no UUID in general.
pub fn request_id_schema() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_REQUEST_ID_LEN,
        "pattern": format!("^[A-Za-z0-9._:-]{{1,{MAX_REQUEST_ID_LEN}}}$"),
    })
}

/// [`request_id_schema`] for a schemars field (`ErrorBody::req_id`).
pub fn request_id_field(_: &mut SchemaGenerator) -> schemars::schema::Schema {
    let mut schema = request_id_schema();
    schema["description"] = json!("The request's id, as in the `X-Request-Id` answer header: the caller's valid `X-Request-Id` echoed, else a fresh UUID v4.");
    serde_json::from_value(schema).expect("a JSON object is a schema")
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn request_ids_are_short_plain_tokens() {
        assert!(is_valid_request_id("a"));
        assert!(is_valid_request_id("01J9ZK3V0Q5R8X:web-1_2.3"));
        assert!(is_valid_request_id(&"x".repeat(MAX_REQUEST_ID_LEN)));
        assert!(!is_valid_request_id(""));
        assert!(!is_valid_request_id(&"x".repeat(MAX_REQUEST_ID_LEN + 1)));
        for bad in ["a b", "a\nb", "a\"b", "a=b", "a/b", "é"] {
            assert!(!is_valid_request_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_valid_id_is_kept_and_an_invalid_one_replaced() {
        let mut headers = HeaderMap::new();
        headers.insert("x-request-id", HeaderValue::from_static("client-42"));
        assert_eq!(RequestContext::from_headers(&headers).id, "client-42");
        headers.insert("x-request-id", HeaderValue::from_static("two words"));
        let fresh = RequestContext::from_headers(&headers).id;
        assert_eq!(uuid::Uuid::parse_str(&fresh).unwrap().get_version_num(), 4);
    }

    #[test]
    fn the_outgoing_traceparent_keeps_the_trace_and_names_this_span() {
        let mut headers = HeaderMap::new();
        assert_eq!(
            RequestContext::from_headers(&headers).outgoing_traceparent(),
            None
        );
        headers.insert(
            "traceparent",
            HeaderValue::from_static("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        );
        let context = RequestContext::from_headers(&headers);
        assert_eq!(
            context.outgoing_traceparent().unwrap(),
            format!("00-4bf92f3577b34da6a3ce929d0e0e4736-{}-01", context.span_id)
        );
    }
}
