//! One way to connect to `--database-url`, for every store on PostgreSQL
//! (the verifier's ledger, the render nodes' stored templates): a bounded
//! pool whose every wait (a connection, its creation, its check on reuse)
//! ends after `timeout`, with TCP keepalives so a vanished server is
//! noticed.

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

/// A pool of at most `connections` to `url`. Errors never quote the URL
/// (it may hold a password). Nothing connects until the pool is used.
pub fn pool(url: &str, connections: usize, timeout: Duration) -> Result<Pool, String> {
    let mut config: tokio_postgres::Config =
        url.parse().map_err(|e| format!("--database-url: {e}"))?;
    config
        .connect_timeout(timeout)
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(30))
        .application_name("labelpress");
    let manager = Manager::from_config(
        config,
        NoTls,
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
