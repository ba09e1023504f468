//! A verification service on a loopback socket, and small clients for its
//! two APIs, shared by the verifier's tests.

use std::sync::Arc;
use std::time::Duration;

use labelpress::verify::admin::CreatedToken;
use labelpress::verify::postgres::PgOptions;
use labelpress::verify::VerifyService;
use serde_json::{json, Value};
use tokio::net::TcpListener;

use crate::postgres;

pub const ADMIN: &str = "test-admin-token";

pub struct Harness {
    pub base: String,
    pub service: Arc<VerifyService>,
    pub client: reqwest::Client,
    pub dir: tempfile::TempDir,
}

/// Which ledger a harness's service runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// The embedded ledger in the harness's data dir.
    Sled,
    /// A fresh database of the test binary's shared PostgreSQL cluster,
    /// with the server's default connections and timeout.
    Postgres,
}

/// Serves `router` for a service in a fresh data dir on 127.0.0.1:0.
pub async fn start() -> Harness {
    start_on(Store::Sled).await
}

/// [`start`] on the ledger `store`.
pub async fn start_on(store: Store) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let service = match store {
        Store::Sled => VerifyService::open(dir.path(), Some(ADMIN.to_string())).unwrap(),
        Store::Postgres => {
            let limits = labelpress::config::Limits::default();
            let options = PgOptions {
                connections: limits.ledger_connections,
                timeout: Duration::from_millis(limits.ledger_timeout_ms),
            };
            let url = postgres::shared().fresh();
            VerifyService::connect(&url, Some(ADMIN.to_string()), options)
                .await
                .unwrap()
        }
    };
    let base = serve(service.clone()).await;
    Harness {
        base,
        service,
        client: reqwest::Client::new(),
        dir,
    }
}

pub async fn serve(service: Arc<VerifyService>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, labelpress::verify::router(service))
            .await
            .unwrap()
    });
    format!("http://{addr}")
}

pub struct Reply {
    pub status: u16,
    pub body: Value,
    pub headers: reqwest::header::HeaderMap,
}

async fn reply(response: reqwest::Response) -> Reply {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Reply {
        status,
        body,
        headers,
    }
}

impl Harness {
    /// `POST /v1/verify` with an optional bearer token, raw body and extras.
    pub async fn verify_with(
        &self,
        token: Option<&str>,
        query: &str,
        body: &str,
        idempotency_key: Option<&str>,
    ) -> Reply {
        self.post(&format!("/v1/verify{query}"), token, body, idempotency_key)
            .await
    }

    /// `POST {path}` with a JSON body, a bearer token and a key, if given.
    pub async fn post(
        &self,
        path: &str,
        token: Option<&str>,
        body: &str,
        idempotency_key: Option<&str>,
    ) -> Reply {
        let mut request = self
            .client
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(key) = idempotency_key {
            request = request.header("idempotency-key", key);
        }
        reply(request.send().await.unwrap()).await
    }

    pub async fn verify(&self, token: &str, count: u64) -> Reply {
        self.verify_with(
            Some(token),
            "",
            &json!({ "count": count }).to_string(),
            None,
        )
        .await
    }

    pub async fn admin(&self, method: &str, path: &str, body: Option<Value>) -> Reply {
        self.admin_as(Some(ADMIN), method, path, body).await
    }

    pub async fn admin_as(
        &self,
        admin: Option<&str>,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Reply {
        let url = format!("{}/admin/api{path}", self.base);
        let mut request = match method {
            "GET" => self.client.get(url),
            _ => self.client.post(url),
        };
        if let Some(admin) = admin {
            request = request.bearer_auth(admin);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        reply(request.send().await.unwrap()).await
    }

    pub async fn create(&self, body: Value) -> CreatedToken {
        let r = self.admin("POST", "/tokens", Some(body)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        serde_json::from_value(r.body).unwrap()
    }

    /// A token of `account` with `balance`, never expiring.
    pub async fn token(&self, account: &str, balance: u64) -> CreatedToken {
        self.create(json!({"account": account, "balance": balance, "expires_at": null}))
            .await
    }

    pub async fn balance(&self, id: &str) -> u64 {
        let r = self.admin("GET", &format!("/tokens/{id}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        r.body["balance"].as_u64().unwrap()
    }
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Asserts a `{error, message}` rejection.
pub fn assert_rejected(reply: &Reply, status: u16, error: &str) {
    assert_eq!(reply.status, status, "{:?}", reply.body);
    assert_eq!(reply.body["error"], error, "{:?}", reply.body);
    assert!(
        reply.body["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{:?}",
        reply.body
    );
    assert_eq!(
        reply.body.as_object().map(|o| o.len()),
        Some(2),
        "{:?}",
        reply.body
    );
}
