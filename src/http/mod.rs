//! The HTTP server (`labelpress serve`): one axum router for the services a
//! node runs (DECISIONS section 1).
//!
//! - [`render`]: `POST /api/v1/label` (auth in [`crate::auth`], the bounded
//!   render [`pool`]) and `GET /v1/doc/runtime-config`;
//! - barcode: [`crate::barcode::service::router`];
//! - verify: the verification service's router, in-process;
//! - always: `/healthz`, `/readyz`, `/metrics` ([`probes`]), API-005 fallbacks,
//!   and [`request_id`] around everything.

pub mod metrics;
pub mod pool;
pub mod probes;
pub mod render;
pub mod request_id;
pub mod state;

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::watch;

use self::metrics::Metrics;
use self::pool::RenderPool;
use self::state::{AppState, VerifierMode};
use crate::auth::remote::RemoteVerifier;
use crate::auth::{reporter, Auth};
use crate::config::RuntimeConfig;
use crate::engine::Engine;
use crate::verify::Verifier;

/// Which services a node runs (`--services`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Services {
    pub render: bool,
    pub barcode: bool,
    pub verify: bool,
}

impl Services {
    pub const ALL: Services = Services {
        render: true,
        barcode: true,
        verify: true,
    };
}

/// Everything a node is started with.
pub struct NodeOptions {
    pub services: Services,
    pub config: RuntimeConfig,
    /// Needed when `services.render`.
    pub engine: Option<Engine>,
    pub data_dir: PathBuf,
    pub verify_url: Option<String>,
    pub system_token: Option<String>,
    pub admin_token: Option<String>,
    /// Replaces the verifier of the render route (tests use a double).
    pub verifier: Option<Arc<dyn Verifier>>,
}

/// A node with its stores open, ready to serve.
pub struct Node {
    pub state: AppState,
    router: Router,
    verify: Option<InProcessVerify>,
}

/// Creates `dir` (and parents) and restricts it to its owner: the token
/// cache and outbox under the data dir hold tokens.
pub fn create_private_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(())
}

/// The data dir: created owner-only when new; an existing one (perhaps a
/// shared parent the operator chose) keeps its mode, since what holds
/// secrets below it is owner-only itself.
fn open_data_dir(dir: &Path) -> Result<(), String> {
    if dir.exists() {
        return Ok(());
    }
    create_private_dir(dir)
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

impl Node {
    pub fn open(options: NodeOptions) -> Result<Node, String> {
        let NodeOptions {
            services,
            config,
            engine,
            data_dir,
            verify_url,
            system_token,
            admin_token,
            verifier,
        } = options;
        open_data_dir(&data_dir)?;
        let metrics = Arc::new(Metrics::default());
        let verify = if services.verify {
            Some(InProcessVerify::open(&data_dir, admin_token)?)
        } else {
            None
        };
        let timeout = Duration::from_millis(config.limits.verify_timeout_ms);
        let (render_verifier, mode): (Option<Arc<dyn Verifier>>, VerifierMode) =
            match (verifier, &verify_url, &verify) {
                (Some(v), _, _) => (Some(v), VerifierMode::InProcess),
                (None, Some(url), _) => (
                    Some(Arc::new(RemoteVerifier::new(url, timeout)?)),
                    VerifierMode::Remote,
                ),
                (None, None, Some(local)) => (Some(local.verifier()), VerifierMode::InProcess),
                (None, None, None) => (None, VerifierMode::None),
            };
        let limits = &config.limits;
        let pool = Arc::new(RenderPool::new(limits));
        let (engine, auth) = if services.render {
            let Some(verifier) = render_verifier else {
                return Err(
                    "the render service needs a token verifier: add `verify` to \
                            --services or give --verify-url"
                        .into(),
                );
            };
            let engine = engine.ok_or("the render service needs an engine")?;
            let auth = Auth::open(
                &data_dir.join("render"),
                verifier,
                system_token,
                limits,
                pool.backlog(),
                metrics.clone(),
            )?;
            (Some(Arc::new(engine)), Some(auth))
        } else {
            (None, None)
        };
        let state = AppState {
            config: Arc::new(config),
            engine,
            auth,
            pool,
            metrics,
            ready: Arc::new(AtomicBool::new(true)),
            verifier: mode,
        };
        let router = router(
            &state,
            services,
            verify.as_ref().map(InProcessVerify::router),
        );
        Ok(Node {
            state,
            router,
            verify,
        })
    }

    /// Serves until `shutdown` resolves, then: stops accepting, lets in-flight
    /// requests (renders included) finish, stops the reporter, makes a last
    /// bounded report attempt and flushes every store.
    pub async fn run(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let (stop_tx, stop_rx) = watch::channel(false);
        let reporter = self
            .state
            .auth
            .clone()
            .map(|auth| tokio::spawn(reporter::run(auth, stop_rx)));
        let ready = self.state.ready.clone();
        let served = axum::serve(
            listener,
            self.router
                .into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            shutdown.await;
            ready.store(false, Ordering::Relaxed);
            tracing::info!("shutting down: finishing in-flight requests");
        })
        .await;
        let _ = stop_tx.send(true);
        if let Some(task) = reporter {
            let _ = task.await;
        }
        if let Some(auth) = &self.state.auth {
            reporter::final_report(auth, Duration::from_secs(5)).await;
        }
        if let Some(verify) = &self.verify {
            verify.flush().await;
        }
        served
    }
}

/// Every route of a node.
pub fn router(state: &AppState, services: Services, verify: Option<Router>) -> Router {
    let mut app = Router::new()
        .route("/healthz", get(probes::healthz))
        .route("/readyz", get(probes::readyz))
        .route("/metrics", get(probes::metrics));
    if services.render {
        let config_json = serde_json::to_string(state.config.as_ref()).unwrap_or_default();
        let etag = format!("\"{}\"", short_hash(config_json.as_bytes()));
        app = app
            .route(
                "/api/v1/label",
                post(render::label).layer(DefaultBodyLimit::max(state.config.limits.body_bytes)),
            )
            .route(
                "/v1/doc/runtime-config",
                get(move |headers: HeaderMap| {
                    let (body, etag) = (config_json.clone(), etag.clone());
                    async move { probes::runtime_config(&headers, &body, &etag) }
                }),
            );
    }
    let mut app = app.with_state(state.clone());
    if services.barcode {
        app = app.merge(crate::barcode::service::router(&state.config.limits));
    }
    if let Some(verify) = verify {
        app = app.merge(verify);
    }
    app.fallback(probes::not_found)
        .method_not_allowed_fallback(probes::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            request_id::layer,
        ))
}

/// The verification service running in this process.
struct InProcessVerify(Arc<crate::verify::VerifyService>);

impl InProcessVerify {
    fn open(data_dir: &Path, admin_token: Option<String>) -> Result<InProcessVerify, String> {
        crate::verify::VerifyService::open(data_dir, admin_token)
            .map(InProcessVerify)
            .map_err(|e| format!("verification service: {e}"))
    }

    /// The render route calls it directly: the handler's code path, no socket.
    fn verifier(&self) -> Arc<dyn Verifier> {
        self.0.clone()
    }

    fn router(&self) -> Router {
        crate::verify::router(self.0.clone())
    }

    async fn flush(&self) {
        self.0.flush().await;
    }
}

/// Registers for Ctrl-C and SIGTERM at once and returns a future that
/// resolves on either. Registering before the server answers anything
/// matters: axum polls its shutdown future from a task of its own, which a
/// busy runtime may first run after the server is already ready, and a
/// SIGTERM that came before the registration killed the process outright.
pub fn shutdown_signal() -> std::io::Result<impl Future<Output = ()> + Send + 'static> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! { _ = terminate.recv() => {}, _ = interrupt.recv() => {} }
        })
    }
    #[cfg(not(unix))]
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// `labelpress serve`: opens the node, binds, serves until SIGTERM.
pub async fn serve(listen: SocketAddr, options: NodeOptions) -> Result<(), String> {
    let shutdown = shutdown_signal().map_err(|e| format!("signal handlers: {e}"))?;
    let node = Node::open(options)?;
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("{listen}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    tracing::info!(listen = %local, "labelpress listening");
    node.run(listener, shutdown)
        .await
        .map_err(|e| format!("{listen}: {e}"))
}
