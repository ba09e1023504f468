//! A verifier over HTTP (`--verify-url`): `POST {url}/v1/verify` as part B of
//! the verification spec describes it. Anything that is not a verdict
//! (connection refused, timeout, 5xx, an unreadable body) is [`Unavailable`],
//! so the caller falls back on its cache.

use std::time::Duration;

use crate::verify::protocol::{RejectionBody, VerifyFuture};
use crate::verify::{Granted, Rejection, Unavailable, Verdict, Verifier, VerifyCall};

pub struct RemoteVerifier {
    client: reqwest::Client,
    url: String,
}

impl RemoteVerifier {
    pub fn new(base_url: &str, timeout: Duration) -> Result<RemoteVerifier, String> {
        let parsed =
            reqwest::Url::parse(base_url).map_err(|e| format!("--verify-url {base_url}: {e}"))?;
        // The client is built without TLS (verifiers sit on a private network
        // beside the render nodes): an https URL could never connect.
        if parsed.scheme() != "http" || parsed.host().is_none() {
            return Err(format!(
                "--verify-url {base_url}: expected http://host:port (no TLS in this build)"
            ));
        }
        let client = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(2)))
            .timeout(timeout)
            .build()
            .map_err(|e| format!("verifier client: {e}"))?;
        Ok(RemoteVerifier {
            client,
            url: format!("{}/v1/verify", base_url.trim_end_matches('/')),
        })
    }

    async fn call(&self, call: VerifyCall) -> Result<Verdict, Unavailable> {
        let mut request = self
            .client
            .post(&self.url)
            .bearer_auth(&call.token)
            .json(&serde_json::json!({ "count": call.count }));
        if call.dry_run {
            request = request.query(&[("dry_run", "true")]);
        }
        if let Some(key) = &call.idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        // reqwest's errors can quote the URL, never the token; keep only the kind.
        let response = request
            .send()
            .await
            .map_err(|e| Unavailable(describe(&e)))?;
        let status = response.status().as_u16();
        match status {
            200 => response
                .json::<Granted>()
                .await
                .map(Verdict::Granted)
                .map_err(|e| Unavailable(format!("unreadable 200 body: {}", describe(&e)))),
            400 | 401 | 403 => {
                let error = response
                    .json::<RejectionBody>()
                    .await
                    .ok()
                    .and_then(|b| Rejection::from_error(&b.error));
                Ok(Verdict::Rejected(error.unwrap_or(match status {
                    400 => Rejection::BadRequest,
                    401 => Rejection::MissingToken,
                    _ => Rejection::InvalidToken,
                })))
            }
            // labelpress's verifier answers 429 only to a missing or
            // invalid token (the limiter of failed authentications per
            // address, which a render node's address draws from for every
            // bad token it forwards): a verdict, not an outage.
            429 => Ok(Verdict::Rejected(Rejection::InvalidToken)),
            other => Err(Unavailable(format!("verifier answered {other}"))),
        }
    }
}

fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timeout".into()
    } else if e.is_connect() {
        "connection failed".into()
    } else if e.is_decode() {
        "bad body".into()
    } else {
        "request failed".into()
    }
}

impl Verifier for RemoteVerifier {
    fn verify(&self, call: VerifyCall) -> VerifyFuture<'_> {
        Box::pin(self.call(call))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::post;
    use axum::Json;

    /// A stand-in verifier whose answer depends on the bearer token.
    async fn answer(headers: HeaderMap) -> (StatusCode, Json<serde_json::Value>) {
        let auth = headers["authorization"].to_str().unwrap_or_default();
        match auth {
            "Bearer ok" => (
                StatusCode::OK,
                Json(
                    serde_json::json!({"status": "ok", "balance": 7, "expires_at": null,
                    "remaining": "unlimited", "rate_limit": {"per_second": 3, "burst": 4}}),
                ),
            ),
            "Bearer banned" => (
                StatusCode::FORBIDDEN,
                Json(serde_json::json!({"error": "Banned", "message": "account banned"})),
            ),
            _ => (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(serde_json::json!({})),
            ),
        }
    }

    fn call(token: &str) -> VerifyCall {
        VerifyCall {
            token: token.into(),
            count: 1,
            dry_run: true,
            idempotency_key: Some("k".into()),
        }
    }

    #[tokio::test]
    async fn answers_map_to_verdicts_and_failures_to_unavailable() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new().route("/v1/verify", post(answer));
        tokio::spawn(async move { axum::serve(listener, app).await });
        let remote =
            RemoteVerifier::new(&format!("http://{addr}/"), Duration::from_secs(2)).unwrap();

        match remote.verify(call("ok")).await.unwrap() {
            Verdict::Granted(g) => {
                assert_eq!(g.balance, 7);
                assert_eq!(
                    g.rate_limit,
                    Some(crate::verify::RateLimit {
                        per_second: 3,
                        burst: 4
                    })
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            remote.verify(call("banned")).await.unwrap(),
            Verdict::Rejected(Rejection::Banned)
        );
        assert!(remote.verify(call("boom")).await.is_err());

        // Nothing listening: unavailable, not a verdict.
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let gone = closed.local_addr().unwrap();
        drop(closed);
        let remote =
            RemoteVerifier::new(&format!("http://{gone}"), Duration::from_secs(2)).unwrap();
        let e = remote.verify(call("ok")).await.unwrap_err();
        assert!(e.to_string().contains("connection"), "{e}");

        assert!(RemoteVerifier::new("localhost:8080", Duration::from_secs(1)).is_err());
        assert!(RemoteVerifier::new("https://h", Duration::from_secs(1)).is_err());
    }
}
