//! One way to connect to `--database-url`, for every store on PostgreSQL
//! (the verifier's ledger, the render nodes' stored templates): a bounded
//! pool whose every wait (a connection, its creation, its check on reuse)
//! ends after `timeout`, with TCP keepalives so a vanished server is
//! noticed, and TLS as the URL's `sslmode` asks ([`crate::postgres_tls`]).
//! A connection that fails says why in the log (tokio-postgres's errors
//! say only "error performing TLS handshake", "db error").

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use deadpool_postgres::{Connect, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio::task::JoinHandle;
use tokio_postgres_rustls::MakeRustlsConnect;

/// A pool of at most `connections` to `url`. Errors never quote the URL
/// (it may hold a password). Nothing connects until the pool is used; the
/// URL's `sslrootcert` is read now.
pub fn pool(url: &str, connections: usize, timeout: Duration) -> Result<Pool, String> {
    let crate::postgres_tls::Connection {
        mut config, tls, ..
    } = crate::postgres_tls::connection(url).map_err(|e| format!("--database-url: {e}"))?;
    config
        .connect_timeout(timeout)
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(30))
        .application_name("labelpress");
    let connector = Connector {
        tls,
        logged: Mutex::new(None),
    };
    let manager = Manager::from_connect(
        config,
        connector,
        ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        },
    );
    Pool::builder(manager)
        .max_size(connections.max(1))
        .wait_timeout(Some(timeout))
        .create_timeout(Some(timeout))
        .recycle_timeout(Some(timeout))
        .runtime(Runtime::Tokio1)
        .build()
        .map_err(|e| e.to_string())
}

/// `error` and its causes, `: `-separated: what the driver's own message
/// leaves out (the server's refusal, the certificate's fault). They quote
/// no password: the driver's causes are the server's messages, I/O and TLS
/// errors.
pub fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let part = e.to_string();
        if !text.ends_with(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        cause = e.source();
    }
    text
}

/// Connects as deadpool-postgres's own connector does, and logs why a
/// connection failed, at most every 10 s (every caller retries while the
/// database is away).
struct Connector {
    tls: MakeRustlsConnect,
    logged: Mutex<Option<Instant>>,
}

type Connected = Result<(tokio_postgres::Client, JoinHandle<()>), tokio_postgres::Error>;

impl Connector {
    fn log(&self, error: &tokio_postgres::Error) {
        let mut logged = self.logged.lock().unwrap_or_else(|e| e.into_inner());
        if logged.is_none_or(|at| at.elapsed() >= Duration::from_secs(10)) {
            *logged = Some(Instant::now());
            tracing::warn!(error = %describe(error), "--database-url: cannot connect");
        }
    }
}

impl Connect for Connector {
    fn connect(
        &self,
        config: &tokio_postgres::Config,
    ) -> Pin<Box<dyn Future<Output = Connected> + Send + '_>> {
        let (config, tls) = (config.clone(), self.tls.clone());
        Box::pin(async move {
            let (client, connection) = config.connect(tls).await.inspect_err(|e| self.log(e))?;
            let task = tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::warn!(error = %describe(&e), "--database-url: connection lost");
                }
            });
            Ok((client, task))
        })
    }
}

/// `op`, or `timed_out` with a message once `timeout` has passed: every
/// store operation on PostgreSQL, waiting for a connection included, is
/// bounded so.
pub async fn bounded<T, E>(
    timeout: Duration,
    op: impl std::future::Future<Output = Result<T, E>>,
    timed_out: impl FnOnce(String) -> E,
) -> Result<T, E> {
    tokio::time::timeout(timeout, op).await.unwrap_or_else(|_| {
        Err(timed_out(format!(
            "no answer within {} ms",
            timeout.as_millis()
        )))
    })
}
