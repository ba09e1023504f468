//! What the render and check routes take from a request, as extractors, so
//! that a handler's arguments state the order of the checks
//! (docs/http-api.md, "Errors"): axum runs them left to right, the body
//! last. [`Arrived`] notes the time, [`Reservation`] authenticates (401, 403, 429, 502)
//! ([`Identified`] too, for the stored-template routes, reserving nothing), [`Wanted`]
//! reads the query and `Accept` (400 API-006, 406 API-007), [`JsonBody`] the body (413,
//! 415). A handler that must still log or decorate a refusal takes the
//! later ones as `Result<_, ApiError>`.

use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use tokio::time::Instant;

use super::output::Query;
use crate::api_error::ApiError;
use crate::auth::{Auth, Reservation};
use crate::credential::Owner;
use labelpress_document::config::RuntimeConfig;
use labelpress_document::engine::Output;
use labelpress_document::json_strict::is_json_media_type;

/// When the handler began, before authentication: a render's deadline
/// counts from here. Put it first among a handler's arguments.
pub struct Arrived(pub Instant);

impl<S: Send + Sync> FromRequestParts<S> for Arrived {
    type Rejection = Infallible;

    async fn from_request_parts(_: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(Arrived(Instant::now()))
    }
}

impl<S> FromRequestParts<S> for Reservation
where
    S: Send + Sync,
    Arc<Auth>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let auth = Arc::<Auth>::from_ref(state);
        auth.admit(&parts.headers, client_address(parts)).await
    }
}

/// Whose stored templates the request sees: its token authenticated as
/// for a render, nothing reserved ([`Auth::identify`]).
pub struct Identified(pub Owner);

impl<S> FromRequestParts<S> for Identified
where
    S: Send + Sync,
    Arc<Auth>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let auth = Arc::<Auth>::from_ref(state);
        auth.identify(&parts.headers, client_address(parts))
            .await
            .map(Identified)
    }
}

/// The address a request's connection came from (unspecified for a router
/// served without connect info), which authentication limits by.
fn client_address(parts: &Parts) -> IpAddr {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip())
}

/// What the caller asked the document to be: the query's options and the
/// format `Accept` (or `?format=`) chose.
pub struct Wanted(pub Output);

impl<S> FromRequestParts<S> for Wanted
where
    S: Send + Sync,
    Arc<RuntimeConfig>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let config = Arc::<RuntimeConfig>::from_ref(state);
        // Several Accept lines are one comma-separated list (RFC 9110 5.3).
        let accept: Vec<&str> = parts
            .headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let query = Query::parse(parts.uri.query(), &config.limits)?;
        let format = query.format((!accept.is_empty()).then(|| accept.join(",")).as_deref())?;
        Ok(Wanted(query.output(format)?))
    }
}

/// A request body declared as JSON, within `limits.body_bytes`: checked by
/// the declared length (413), the length read (413), then the content type
/// (415). Its JSON is not parsed here: validation does that, with paths.
pub struct JsonBody(pub Bytes);

impl<S> FromRequest<S> for JsonBody
where
    S: Send + Sync,
    Arc<RuntimeConfig>: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let limit = Arc::<RuntimeConfig>::from_ref(state).limits.body_bytes;
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
                    ApiError::InvalidJson(format!(
                        "the request body could not be read: {rejection}"
                    ))
                }
            })?;
        match content_type.as_deref() {
            Some(ct) if is_json_media_type(ct) => Ok(JsonBody(body)),
            Some(ct) => Err(ApiError::UnsupportedMediaType(ct.to_string())),
            None => Err(ApiError::UnsupportedMediaType("none".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_json_media_type as is_json;

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
