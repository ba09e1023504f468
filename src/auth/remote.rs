//! A verifier over HTTP or HTTPS (`--verify-url`): `POST {url}/v1/verify` as
//! docs/admin-api.md describes it. Anything that is not a
//! verdict (connection refused, timeout, 5xx, an unreadable body) is
//! [`Unavailable`], so the caller falls back on its cache.
//!
//! Several URLs make a failover list. A call starts at the verifier that
//! last gave a verdict and, while the answer is [`Unavailable`], goes on to
//! the next, each at most once; a verdict (200, 400, 401, 403, 429) ends the
//! call wherever it comes from, since another verifier would judge the same
//! token alike (the verifiers of one list must share one ledger,
//! `--database-url`: a token unknown to the one that answers is refused).
//! Moving a charge to another URL is safe: usage reports carry their
//! `Idempotency-Key` ([`super::reporter`]), and the shared ledger keeps the
//! key's first answer whichever node took it, so it is charged once.
//!
//! One call takes at most the per-call timeout once per URL, and a verifier
//! that is down costs little: a refused connection fails at once, one that
//! goes unanswered within the connect timeout (at most 2 s).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::request_context::{self, RequestContext};
use crate::verify::protocol::{Purpose, RejectionBody, VerifyFuture};
use crate::verify::{Granted, Rejection, Unavailable, Verdict, Verifier, VerifyCall};

/// Why a remote verifier cannot be set up: refused at start.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("--verify-url: no URL given")]
    NoUrl,
    #[error("--verify-url {url}: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("--verify-ca {}: {reason}", path.display())]
    BadCa { path: PathBuf, reason: String },
    #[error("the verifier client: {0}")]
    Client(String),
}

pub struct RemoteVerifier {
    client: reqwest::Client,
    /// In the order given; never empty.
    endpoints: Vec<Endpoint>,
    /// Index of the endpoint that last gave a verdict, where calls start.
    /// Only a verdict moves it; concurrent calls may each store theirs, and
    /// any of them is a verifier that just answered.
    current: AtomicUsize,
}

/// One verifier of the list.
struct Endpoint {
    /// `{base}/v1/verify`.
    url: reqwest::Url,
    /// `scheme://host:port`, for messages: never a path, query or userinfo.
    name: String,
}

impl Endpoint {
    fn parse(base: &str) -> Result<Endpoint, RemoteError> {
        let bad = |reason: String| RemoteError::BadUrl {
            url: base.to_string(),
            reason,
        };
        if base.trim().is_empty() {
            return Err(bad(
                "empty (expected http://host:port or https://host:port)".into(),
            ));
        }
        let parsed = reqwest::Url::parse(base).map_err(|e| bad(e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
            return Err(bad("expected http://host:port or https://host:port".into()));
        }
        let url = reqwest::Url::parse(&format!("{}/v1/verify", base.trim_end_matches('/')))
            .map_err(|e| bad(e.to_string()))?;
        Ok(Endpoint {
            name: parsed.origin().ascii_serialization(),
            url,
        })
    }
}

impl RemoteVerifier {
    /// A client of the verifiers at `base_urls`, trusting the system's root
    /// certificates and those in the PEM file `ca`. `timeout` bounds each
    /// request to one verifier.
    pub fn new(
        base_urls: &[String],
        ca: Option<&Path>,
        timeout: Duration,
    ) -> Result<RemoteVerifier, RemoteError> {
        if base_urls.is_empty() {
            return Err(RemoteError::NoUrl);
        }
        let endpoints = base_urls
            .iter()
            .map(|url| Endpoint::parse(url))
            .collect::<Result<Vec<_>, _>>()?;
        let mut builder = reqwest::Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(2)))
            .timeout(timeout);
        if let Some(path) = ca {
            for root in roots(path)? {
                builder = builder.add_root_certificate(root);
            }
        }
        let client = builder
            .build()
            .map_err(|e| RemoteError::Client(with_sources(&e)))?;
        Ok(RemoteVerifier {
            client,
            endpoints,
            current: AtomicUsize::new(0),
        })
    }

    /// `context`: the request this call is made for, whose id and trace the
    /// verifier receives (`X-Request-Id`, `traceparent`), so its log lines
    /// join this node's.
    async fn call(
        &self,
        call: VerifyCall,
        context: Option<RequestContext>,
    ) -> Result<Verdict, Unavailable> {
        let n = self.endpoints.len();
        let first = self.current.load(Ordering::Relaxed) % n;
        let mut failures = Vec::new();
        for index in (first..n).chain(0..first) {
            let endpoint = &self.endpoints[index];
            match self.ask(endpoint, &call, context.as_ref()).await {
                Ok(verdict) => {
                    if index != first {
                        tracing::warn!(verifier = %endpoint.name, "failed over to this verifier");
                        self.current.store(index, Ordering::Relaxed);
                    }
                    return Ok(verdict);
                }
                Err(reason) => failures.push(format!("{}: {reason}", endpoint.name)),
            }
        }
        Err(Unavailable(match failures.as_slice() {
            [one] => one.clone(),
            all => format!("all {} verifiers tried: {}", all.len(), all.join("; ")),
        }))
    }

    /// One verifier's verdict, or why it gave none.
    async fn ask(
        &self,
        endpoint: &Endpoint,
        call: &VerifyCall,
        context: Option<&RequestContext>,
    ) -> Result<Verdict, String> {
        // Leases have routes of their own beside `/v1/verify`.
        let url = match call.purpose {
            Purpose::Charge => endpoint.url.clone(),
            Purpose::Lease => endpoint
                .url
                .join("leases")
                .unwrap_or_else(|_| endpoint.url.clone()),
            Purpose::GiveBack => endpoint
                .url
                .join("leases/return")
                .unwrap_or_else(|_| endpoint.url.clone()),
        };
        let mut request = self
            .client
            .post(url)
            .bearer_auth(&call.token)
            .json(&serde_json::json!({ "count": call.count }));
        if call.dry_run {
            request = request.query(&[("dry_run", "true")]);
        }
        if call.uncharged {
            request = request.query(&[("uncharged", "true")]);
        }
        if let Some(key) = &call.idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        if let Some(context) = context {
            request = request.header("X-Request-Id", &context.id);
            if let Some(traceparent) = context.outgoing_traceparent() {
                request = request.header("traceparent", traceparent);
            }
        }
        let response = request.send().await.map_err(|e| describe(&e))?;
        let status = response.status().as_u16();
        match status {
            200 => response
                .json::<Granted>()
                .await
                .map(Verdict::Granted)
                .map_err(|e| format!("unreadable 200 body: {}", describe(&e))),
            400 | 401 | 403 | 409 => {
                let error = response
                    .json::<RejectionBody>()
                    .await
                    .ok()
                    .and_then(|b| Rejection::from_error(&b.error));
                Ok(Verdict::Rejected(error.unwrap_or(match status {
                    // 409: a return the ledger cannot match to its lease.
                    400 | 409 => Rejection::BadRequest,
                    401 => Rejection::MissingToken,
                    _ => Rejection::InvalidToken,
                })))
            }
            // labelpress's verifier answers 429 only to a missing or
            // invalid token (the limiter of failed authentications per
            // address, which a render node's address draws from for every
            // bad token it forwards): a verdict, not an outage.
            429 => Ok(Verdict::Rejected(Rejection::InvalidToken)),
            other => Err(format!("verifier answered {other}")),
        }
    }
}

/// The certificates of a PEM file, to trust as roots.
fn roots(path: &Path) -> Result<Vec<reqwest::Certificate>, RemoteError> {
    let bad = |reason: String| RemoteError::BadCa {
        path: path.to_path_buf(),
        reason,
    };
    let pem = std::fs::read(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let roots = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| bad(with_sources(&e)))?;
    if roots.is_empty() {
        return Err(bad(
            "no certificate in it (expected PEM `BEGIN CERTIFICATE` sections)".into(),
        ));
    }
    Ok(roots)
}

/// What went wrong in a request, without the URL. The request's headers,
/// the bearer token among them, are in no reqwest error or its sources;
/// for a failed connection the innermost source says why (refused, or the
/// TLS error: an unknown issuer, a name mismatch).
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timeout".into()
    } else if e.is_connect() {
        let mut cause: &dyn std::error::Error = e;
        while let Some(source) = cause.source() {
            cause = source;
        }
        format!("connection failed ({cause})")
    } else if e.is_decode() {
        "bad body".into()
    } else {
        "request failed".into()
    }
}

/// An error and its sources, `: `-separated.
fn with_sources(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(source) = cause {
        text = format!("{text}: {source}");
        cause = source.source();
    }
    text
}

impl Verifier for RemoteVerifier {
    fn verify(&self, call: VerifyCall) -> VerifyFuture<'_> {
        // Read now, while the request's task-local context is in scope.
        Box::pin(self.call(call, request_context::context()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::post;
    use axum::Json;

    /// A stand-in verifier whose answer depends on the bearer token.
    async fn answer(headers: HeaderMap) -> (StatusCode, Json<serde_json::Value>) {
        let auth = headers["authorization"].to_str().unwrap_or_default();
        match auth {
            "Bearer ok" => granted(),
            "Bearer banned" => banned(),
            _ => (
                StatusCode::INTERNAL_SERVER_ERROR,
                Json(serde_json::json!({})),
            ),
        }
    }

    fn granted() -> (StatusCode, Json<serde_json::Value>) {
        (
            StatusCode::OK,
            Json(
                serde_json::json!({"status": "ok", "balance": 7, "expires_at": null,
                "remaining": "unlimited", "rate_limit": {"per_second": 3, "burst": 4}}),
            ),
        )
    }

    fn banned() -> (StatusCode, Json<serde_json::Value>) {
        (
            StatusCode::FORBIDDEN,
            Json(serde_json::json!({"error": "Banned", "message": "account banned"})),
        )
    }

    async fn serve(app: axum::Router) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        format!("http://{addr}")
    }

    /// A stand-in that gives every request the same answer (`status`: 200
    /// grants, 403 bans, anything else is an empty body), and counts them.
    async fn stand_in(status: u16) -> (String, Arc<AtomicUsize>) {
        let count = Arc::new(AtomicUsize::new(0));
        let counted = count.clone();
        let app = axum::Router::new().route(
            "/v1/verify",
            post(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                async move {
                    match status {
                        200 => granted(),
                        403 => banned(),
                        other => (
                            StatusCode::from_u16(other).unwrap(),
                            Json(serde_json::json!({})),
                        ),
                    }
                }
            }),
        );
        (serve(app).await, count)
    }

    /// An address nothing listens on.
    async fn dead() -> String {
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let gone = closed.local_addr().unwrap();
        drop(closed);
        format!("http://{gone}")
    }

    fn remote(urls: &[&str]) -> RemoteVerifier {
        let urls: Vec<String> = urls.iter().map(|u| u.to_string()).collect();
        RemoteVerifier::new(&urls, None, Duration::from_secs(2)).unwrap()
    }

    fn hits(count: &AtomicUsize) -> usize {
        count.load(Ordering::SeqCst)
    }

    const TOKEN: &str = "lp_secret_token_never_in_errors";

    fn call(token: &str) -> VerifyCall {
        VerifyCall {
            token: token.into(),
            count: 1,
            dry_run: true,
            idempotency_key: Some("k".into()),
            uncharged: false,
            purpose: Default::default(),
        }
    }

    #[tokio::test]
    async fn answers_map_to_verdicts_and_failures_to_unavailable() {
        let base = serve(axum::Router::new().route("/v1/verify", post(answer))).await;
        let remote = remote(&[&format!("{base}/")]);

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
        let e = remote.verify(call(TOKEN)).await.unwrap_err().to_string();
        assert!(e.contains("answered 500"), "{e}");
        assert!(!e.contains(TOKEN), "{e}");

        // Nothing listening: unavailable, not a verdict.
        let e = self::remote(&[&dead().await])
            .verify(call(TOKEN))
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("connection failed"), "{e}");
        assert!(!e.contains(TOKEN), "{e}");
    }

    #[tokio::test]
    async fn a_dead_verifier_fails_over_to_the_next() {
        let (ok, ok_hits) = stand_in(200).await;
        let remote = remote(&[&dead().await, &ok]);
        assert!(matches!(
            remote.verify(call("t")).await.unwrap(),
            Verdict::Granted(_)
        ));
        assert_eq!(hits(&ok_hits), 1);
    }

    #[tokio::test]
    async fn a_verifier_answering_503_fails_over_and_the_one_that_answered_is_asked_first_next() {
        let (down, down_hits) = stand_in(503).await;
        let (ok, ok_hits) = stand_in(200).await;
        let remote = remote(&[&down, &ok]);
        for expected_ok_hits in 1..=3 {
            assert!(matches!(
                remote.verify(call("t")).await.unwrap(),
                Verdict::Granted(_)
            ));
            assert_eq!(hits(&ok_hits), expected_ok_hits);
            // Asked once, on the first call; afterwards the call starts at
            // the verifier that answered.
            assert_eq!(hits(&down_hits), 1);
        }
    }

    #[tokio::test]
    async fn a_verdict_is_not_retried_elsewhere() {
        let (refusing, refusing_hits) = stand_in(403).await;
        let (ok, ok_hits) = stand_in(200).await;
        let remote = remote(&[&refusing, &ok]);
        assert_eq!(
            remote.verify(call("t")).await.unwrap(),
            Verdict::Rejected(Rejection::Banned)
        );
        assert_eq!((hits(&refusing_hits), hits(&ok_hits)), (1, 0));
        // A 429 is a verdict too.
        let (limited, limited_hits) = stand_in(429).await;
        let remote = self::remote(&[&limited, &ok]);
        assert_eq!(
            remote.verify(call("t")).await.unwrap(),
            Verdict::Rejected(Rejection::InvalidToken)
        );
        assert_eq!((hits(&limited_hits), hits(&ok_hits)), (1, 0));
    }

    #[tokio::test]
    async fn when_all_are_unavailable_each_was_tried_once_and_the_error_says_how_many() {
        let (down, down_hits) = stand_in(503).await;
        let (broken, broken_hits) = stand_in(500).await;
        let remote = remote(&[&down, &dead().await, &broken]);
        let e = remote.verify(call(TOKEN)).await.unwrap_err().to_string();
        assert!(e.contains("all 3 verifiers tried"), "{e}");
        assert!(
            e.contains("answered 503") && e.contains("connection failed"),
            "{e}"
        );
        assert!(!e.contains(TOKEN), "{e}");
        assert_eq!((hits(&down_hits), hits(&broken_hits)), (1, 1));
    }

    #[tokio::test]
    async fn the_request_id_and_trace_reach_the_verifier() {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = seen.clone();
        let app = axum::Router::new().route(
            "/v1/verify",
            post(move |headers: HeaderMap| {
                let header = |name| {
                    headers
                        .get(name)
                        .map(|v: &axum::http::HeaderValue| v.to_str().unwrap().to_string())
                };
                record
                    .lock()
                    .unwrap()
                    .push((header("x-request-id"), header("traceparent")));
                async { granted() }
            }),
        );
        let remote = remote(&[&serve(app).await]);
        let mut headers = HeaderMap::new();
        headers.insert("x-request-id", "render-7".parse().unwrap());
        headers.insert(
            "traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                .parse()
                .unwrap(),
        );
        let context = RequestContext::from_headers(&headers);
        let span_id = context.span_id.clone();
        request_context::within(context, async { remote.verify(call("t")).await })
            .await
            .unwrap();
        // Outside a request (the usage reporter): neither header.
        remote.verify(call("t")).await.unwrap();
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen,
            [
                (
                    Some("render-7".to_string()),
                    Some(format!("00-4bf92f3577b34da6a3ce929d0e0e4736-{span_id}-01"))
                ),
                (None, None)
            ]
        );
    }

    #[test]
    fn urls_and_ca_files_are_checked_at_start() {
        let new = |urls: &[&str], ca: Option<&Path>| {
            let urls: Vec<String> = urls.iter().map(|u| u.to_string()).collect();
            RemoteVerifier::new(&urls, ca, Duration::from_secs(1)).map(|_| ())
        };
        for bad in ["localhost:8080", "ftp://x", "http://", "file:///tmp/v", ""] {
            let error = new(&[bad], None).unwrap_err();
            assert!(
                matches!(error, RemoteError::BadUrl { .. }),
                "{bad}: {error:?}"
            );
            assert!(error.to_string().starts_with("--verify-url"), "{error}");
        }
        // One bad URL in a list refuses the list.
        assert!(new(&["http://a:1", "ftp://x"], None).is_err());
        assert!(matches!(new(&[], None), Err(RemoteError::NoUrl)));
        new(
            &["https://verifier.internal:8443", "http://10.0.0.2:8080/"],
            None,
        )
        .unwrap();

        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let error = new(&["https://h"], Some(&missing)).unwrap_err();
        assert!(matches!(error, RemoteError::BadCa { .. }), "{error:?}");
        assert!(error.to_string().contains("missing.pem"), "{error}");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no PEM here\n").unwrap();
        let error = new(&["https://h"], Some(&empty)).unwrap_err();
        assert!(error.to_string().contains("no certificate"), "{error}");
        let key = rcgen::KeyPair::generate().unwrap();
        let ca = rcgen::CertificateParams::new(vec!["ca.test".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let good = dir.path().join("ca.pem");
        std::fs::write(&good, ca.pem()).unwrap();
        new(&["https://h"], Some(&good)).unwrap();
    }
}
