//! The HTTP server (`labelpress serve`): the routes that exist so far, mounted
//! on one axum router. The render route with authentication comes with the
//! HTTP services work; until then only public routes are served.

use std::net::SocketAddr;

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::config::RuntimeConfig;

/// Every route of this build.
pub fn router(config: RuntimeConfig) -> Router {
    let config_json = serde_json::to_string(&config).unwrap_or_default();
    let etag = format!("\"{}\"", crate::http::short_hash(config_json.as_bytes()));
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route(
            "/v1/doc/runtime-config",
            get(move |headers: HeaderMap| {
                let (body, etag) = (config_json.clone(), etag.clone());
                async move { runtime_config(headers, body, etag) }
            }),
        )
        .merge(crate::barcode::service::router())
        .fallback(not_found)
}

fn runtime_config(headers: HeaderMap, body: String, etag: String) -> Response {
    if headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        == Some(etag.as_str())
    {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (header::ETAG, etag),
        ],
        body,
    )
        .into_response()
}

/// Unknown routes: the JSON error body with API-005 (DECISIONS section 1).
async fn not_found() -> Response {
    let req_id = uuid::Uuid::new_v4().to_string();
    let body = serde_json::json!({"error": true, "code": "API-005", "message": "no such route", "req_id": req_id});
    (
        StatusCode::NOT_FOUND,
        [("x-request-id", req_id)],
        Json(body),
    )
        .into_response()
}

/// First 16 hex digits of the SHA-256 of `bytes`.
pub fn short_hash(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Serves until Ctrl-C or SIGTERM, then finishes in-flight requests.
pub async fn serve(listen: SocketAddr, config: RuntimeConfig) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    tracing::info!(%listen, "labelpress listening");
    axum::serve(listener, router(config))
        .with_graceful_shutdown(shutdown())
        .await
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
