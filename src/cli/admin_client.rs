//! The HTTP side of `labelpress token`: one call to a server's admin API
//! (`/admin/api/...`), and its failures as types whose one-line messages say
//! what was tried, why it failed and what to check.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::exit::{Exit, Failure};

/// How long a connection may take to open, and a whole call.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

/// Where the admin token came from, so a refusal can say which one to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    Flag,
    Env,
    File(PathBuf),
}

impl std::fmt::Display for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenSource::Flag => f.write_str("--admin-token"),
            TokenSource::Env => f.write_str("LABELPRESS_ADMIN_TOKEN"),
            TokenSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// One admin API call.
#[derive(Debug, Clone)]
pub struct AdminCall {
    pub method: reqwest::Method,
    /// The server's base URL, as `--url` gave it.
    pub base: String,
    /// The path under `/admin/api`, percent-encoded.
    pub path: String,
    pub body: Option<Value>,
}

/// Why a connection or an exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Cause {
    #[error("connection refused")]
    ConnectionRefused,
    #[error("timed out")]
    TimedOut,
    #[error("host not found ({0})")]
    UnknownHost(String),
    #[error("TLS failed ({0})")]
    Tls(String),
    #[error("{0}")]
    Other(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientError {
    #[error("--url {0:?} is not an http:// or https:// URL (LABELPRESS_URL sets it too)")]
    BadUrl(String),
    #[error(
        "{method} {url}: {cause}; is `labelpress serve --services verify` running there? \
         Point --url (or LABELPRESS_URL) at the server that runs the verification service{}",
        tls_hint(cause)
    )]
    Unreachable {
        method: String,
        url: String,
        cause: Cause,
    },
    #[error(
        "{method} {url}: the admin token (from {token_from}) was refused ({status}: {message}); \
         pass the server's admin token with --admin-token or LABELPRESS_ADMIN_TOKEN, or \
         --data-dir pointing at the server's data directory (its admin-token file)"
    )]
    TokenRefused {
        method: String,
        url: String,
        token_from: TokenSource,
        status: String,
        message: String,
    },
    #[error(
        "{method} {url}: no admin API there ({status}); is the verification service running \
         on that server (`labelpress serve --services verify`)?"
    )]
    NoAdminApi {
        method: String,
        url: String,
        status: String,
    },
    /// The admin API refused the command (4xx): an unknown id, a bad value.
    #[error("{status}: {message}")]
    Refused { status: String, message: String },
    #[error("{method} {url}: the server failed ({status}: {message}); try again later")]
    ServerFailed {
        method: String,
        url: String,
        status: String,
        message: String,
    },
}

fn tls_hint(cause: &Cause) -> &'static str {
    match cause {
        Cause::Tls(_) => {
            "; an https server's certificate must be trusted by this machine's roots and \
             name the host in --url"
        }
        _ => "",
    }
}

impl ClientError {
    pub fn exit(&self) -> Exit {
        match self {
            ClientError::BadUrl(_) => Exit::Usage,
            ClientError::Unreachable { .. } | ClientError::ServerFailed { .. } => Exit::Unavailable,
            ClientError::TokenRefused { .. }
            | ClientError::NoAdminApi { .. }
            | ClientError::Refused { .. } => Exit::Refused,
        }
    }
}

impl From<ClientError> for Failure {
    fn from(e: ClientError) -> Failure {
        Failure::new(e.exit(), e.to_string())
    }
}

impl AdminCall {
    pub fn url(&self) -> String {
        format!("{}/admin/api{}", self.base.trim_end_matches('/'), self.path)
    }

    /// Sends the call with `admin_token`; the answer's JSON on a 2xx.
    pub async fn send(
        &self,
        admin_token: &str,
        source: &TokenSource,
    ) -> Result<Value, ClientError> {
        let url = self.url();
        let parsed =
            reqwest::Url::parse(&url).map_err(|_| ClientError::BadUrl(self.base.clone()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(ClientError::BadUrl(self.base.clone()));
        }
        let unreachable = |e: reqwest::Error| ClientError::Unreachable {
            method: self.method.to_string(),
            url: url.clone(),
            cause: cause(&e),
        };
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(CALL_TIMEOUT)
            .build()
            .map_err(unreachable)?;
        let mut request = client
            .request(self.method.clone(), parsed)
            .bearer_auth(admin_token);
        if let Some(body) = &self.body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let text = response.text().await.map_err(unreachable)?;
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if status.is_success() {
            return Ok(value);
        }
        Err(self.refusal(status, &value, source))
    }

    /// The error for a non-2xx answer.
    fn refusal(
        &self,
        status: reqwest::StatusCode,
        answer: &Value,
        source: &TokenSource,
    ) -> ClientError {
        let message = answer["message"]
            .as_str()
            .or(answer.as_str())
            .unwrap_or_default()
            .trim()
            .to_string();
        let method = self.method.to_string();
        let url = self.url();
        let status_text = status.to_string();
        match status.as_u16() {
            401 | 403 => ClientError::TokenRefused {
                method,
                url,
                token_from: source.clone(),
                status: status_text,
                message,
            },
            // The render route's "no such route" body: this node has no
            // admin API, it does not run the verification service.
            404 | 405 if answer["code"] == "API-005" || answer["message"].is_null() => {
                ClientError::NoAdminApi {
                    method,
                    url,
                    status: status_text,
                }
            }
            500.. => ClientError::ServerFailed {
                method,
                url,
                status: status_text,
                message,
            },
            _ => ClientError::Refused {
                status: status_text,
                message,
            },
        }
    }
}

/// The cause of a failed exchange, from the error's sources: the I/O
/// error's kind, the resolver's or TLS's own error.
pub fn cause(e: &reqwest::Error) -> Cause {
    if e.is_timeout() {
        return Cause::TimedOut;
    }
    let mut innermost = e.to_string();
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(error) = next {
        if let Some(cause) = known_cause(error) {
            return cause;
        }
        innermost = error.to_string();
        next = error.source();
    }
    Cause::Other(innermost)
}

/// The cause `error` itself names, looking inside I/O errors: a custom I/O
/// error's `source` skips the error it wraps, and TLS failures arrive as an
/// I/O error in an I/O error around rustls's.
fn known_cause(error: &(dyn std::error::Error + 'static)) -> Option<Cause> {
    if let Some(tls) = error.downcast_ref::<tokio_rustls::rustls::Error>() {
        return Some(Cause::Tls(tls.to_string()));
    }
    if let Some(io) = error.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return Some(Cause::ConnectionRefused),
            std::io::ErrorKind::TimedOut => return Some(Cause::TimedOut),
            _ => {}
        }
        let inner: &(dyn std::error::Error + 'static) = io.get_ref()?;
        return known_cause(inner);
    }
    // hyper-util's resolver failure is "dns error" over the system's
    // getaddrinfo message.
    if error.to_string() == "dns error" {
        let detail = error
            .source()
            .map_or_else(|| "dns error".into(), |s| s.to_string());
        return Some(Cause::UnknownHost(detail));
    }
    None
}
