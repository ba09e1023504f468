//! The HTTP server (`labelpress serve`): one axum router for the services a
//! node runs (docs/operations.md).
//!
//! - [`render`]: `POST /api/v1/label` (auth in [`crate::auth`], the bounded
//!   render [`pool`]), [`check`]: `POST /api/v1/label/check` (validation and
//!   warnings, never charged), and `GET /v1/doc/runtime-config`;
//! - barcode: [`crate::http::barcode::router`];
//! - verify: the verification service's router, in-process;
//! - always: `/healthz`, `/readyz`, `/metrics`, `/version`, `/openapi.json` ([`probes`]),
//!   API-005 fallbacks, and [`request_id`] around everything.
//!
//! Connections are accepted and read by [`edge`]: timeouts for heads and
//! bodies, a cap on connections, and TLS when [`tls`] is configured.

pub mod barcode;
pub mod batch;
mod batch_stream;
pub mod check;
pub mod edge;
pub mod etag;
pub mod extract;
pub mod openapi;
pub mod output;
pub mod pool;
pub mod probes;
pub mod render;
pub mod request_id;
pub mod state;
pub mod templates;
pub mod tls;

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::HeaderMap;
use axum::routing::{get, post, put};
use axum::Router;
use tokio::sync::watch;

use self::pool::RenderPool;
use self::state::{AppState, RenderRoutes, RenderService, VerifierMode};
use crate::auth::remote::RemoteVerifier;
use crate::auth::{reporter, Auth};
use crate::data_dir::DataDir;
use crate::metrics::Metrics;
use crate::templates::embedded::EmbeddedTemplates;
use crate::templates::postgres::PgTemplates;
use crate::templates::Templates;
use crate::verify::Verifier;
use crate::worker::{Renderer, Workers};
use labelpress_document::config::{Isolation, Limits, Nice, RuntimeConfig};
use labelpress_document::engine::Engine;

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
    /// How render worker processes build the same engine; without it (or
    /// with `limits.render_isolation = "thread"`) renders run on the render
    /// threads.
    pub worker: Option<crate::worker::Spec>,
    pub data_dir: PathBuf,
    /// The verifier's ledger on PostgreSQL; `None`: the embedded one.
    pub database_url: Option<String>,
    /// Remote verifiers, tried in turn when one is unavailable
    /// ([`RemoteVerifier`]); empty: the in-process one.
    pub verify_urls: Vec<String>,
    /// PEM file of extra roots trusted for `https` verifier URLs.
    pub verify_ca: Option<PathBuf>,
    /// The listener speaks HTTPS only when set (`--tls-cert`, `--tls-key`).
    pub tls: Option<tls::TlsAcceptor>,
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
    tls: Option<tls::TlsAcceptor>,
    /// Held while the node lives: no other process opens its stores.
    _data_dir: Option<DataDir>,
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
    /// Locks the data folder, then opens the stores in it; a failure
    /// removes what this start created.
    pub async fn open(options: NodeOptions) -> Result<Node, String> {
        if options.database_url.is_some() && !options.services.verify && !options.services.render {
            return Err(
                "--database-url holds the verify service's ledger and the render service's stored templates: add `verify` or `render` to --services".into(),
            );
        }
        let data_dir = DataDir::open(&options.data_dir).map_err(|e| e.to_string())?;
        match Node::open_stores(options).await {
            Ok(node) => Ok(Node {
                _data_dir: Some(data_dir),
                ..node
            }),
            Err(e) => {
                data_dir.abandon();
                Err(e)
            }
        }
    }

    async fn open_stores(options: NodeOptions) -> Result<Node, String> {
        let NodeOptions {
            services,
            config,
            engine,
            worker,
            data_dir,
            database_url,
            verify_urls,
            verify_ca,
            tls,
            system_token,
            admin_token,
            verifier,
        } = options;
        // Checked before any store opens: a bad URL or CA file stops the
        // start before the verifier's store or its admin token is written.
        if verify_ca.is_some() && verify_urls.is_empty() {
            return Err("--verify-ca needs --verify-url".into());
        }
        let timeout = Duration::from_millis(config.limits.verify_timeout_ms);
        let remote = match (&verifier, verify_urls.is_empty()) {
            (None, false) => Some(
                RemoteVerifier::new(&verify_urls, verify_ca.as_deref(), timeout)
                    .map_err(|e| e.to_string())?,
            ),
            _ => None,
        };
        let metrics = Arc::new(Metrics::default());
        let verify = if services.verify {
            Some(
                InProcessVerify::open(
                    &data_dir,
                    database_url.as_deref(),
                    admin_token,
                    &config.limits,
                )
                .await?,
            )
        } else {
            None
        };
        let (render_verifier, mode): (Option<Arc<dyn Verifier>>, VerifierMode) =
            match (verifier, remote, &verify) {
                (Some(v), _, _) => (Some(v), VerifierMode::InProcess),
                (None, Some(remote), _) => (Some(Arc::new(remote)), VerifierMode::Remote),
                (None, None, Some(local)) => (Some(local.verifier()), VerifierMode::InProcess),
                (None, None, None) => (None, VerifierMode::None),
            };
        let limits = &config.limits;
        let engine = match engine {
            Some(engine) if services.render => Some(Arc::new(engine)),
            _ => None,
        };
        let renderer = match (&engine, worker) {
            (None, _) => None,
            (Some(_), Some(spec)) if limits.render_isolation == Isolation::Process => {
                let binary = std::env::current_exe()
                    .map_err(|e| format!("the render workers' executable: {e}"))?;
                Some(Renderer::Processes(Arc::new(Workers::new(binary, spec)?)))
            }
            (Some(engine), _) => Some(Renderer::InProcess(engine.clone())),
        };
        let pool = Arc::new(match renderer.clone() {
            // Each render thread starts its worker before its first job, and
            // a new one when it finds its worker dead after a job. With
            // workers, the render threads only hand work over, short work
            // that gates the next render: they keep the server's priority
            // and the workers run `render_thread_nice` steps below it.
            Some(renderer @ Renderer::Processes(_)) => RenderPool::with_ready(
                &Limits {
                    render_thread_nice: Nice::default(),
                    ..limits.clone()
                },
                Arc::new(move || renderer.prepare()),
            ),
            _ => RenderPool::new(limits),
        });
        let render = if services.render {
            let Some(verifier) = render_verifier else {
                return Err(
                    "the render service needs a token verifier: add `verify` to \
                            --services or give --verify-url"
                        .into(),
                );
            };
            let engine = engine.ok_or("the render service needs an engine")?;
            let renderer = renderer.ok_or("the render service needs an engine")?;
            let auth = Auth::open(
                &data_dir.join("render"),
                verifier,
                system_token,
                limits,
                pool.backlog(),
                metrics.clone(),
                mode == VerifierMode::Remote,
            )?;
            let templates = match &database_url {
                Some(url) => Templates::Postgres(
                    PgTemplates::connect(url, Duration::from_millis(limits.ledger_timeout_ms))
                        .await
                        .map_err(|e| format!("stored templates: {e}"))?,
                ),
                None => Templates::Embedded(EmbeddedTemplates::open(&data_dir.join("templates"))?),
            };
            Some(RenderService {
                engine,
                renderer,
                auth,
                templates: Arc::new(templates),
            })
        } else {
            None
        };
        let checks = Arc::new(tokio::sync::Semaphore::new(config.limits.check_slots()));
        let state = AppState {
            config: Arc::new(config),
            render,
            verify: verify.as_ref().map(|v| v.0.clone()),
            pool,
            checks,
            metrics,
            ready: Arc::new(AtomicBool::new(true)),
            verifier: mode,
        };
        let router = router(
            &state,
            services,
            verify.as_ref().map(|v| v.router(&state.config.limits)),
        );
        Ok(Node {
            state,
            router,
            verify,
            tls,
            _data_dir: None,
        })
    }

    /// Serves until `shutdown` resolves, then: lets in-flight requests
    /// (renders included) finish while new connections are turned away
    /// (`/readyz` says 503), stops accepting, stops the reporter, makes a
    /// last bounded report attempt and flushes every store.
    pub async fn run(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let (stop_tx, stop_rx) = watch::channel(false);
        let auth = self.state.render.as_ref().map(|render| render.auth.clone());
        let reporter = auth
            .clone()
            .map(|auth| tokio::spawn(reporter::run(auth, stop_rx)));
        let ready = self.state.ready.clone();
        let edge = edge::Edge {
            turn_away: turn_away_router(&self.state),
            served: self.router,
            limits: edge::EdgeLimits::new(&self.state.config.limits),
            tls: self.tls,
        };
        // `ready` turns false before draining begins, so that `/readyz`
        // (answered by the turn-away router meanwhile) says 503.
        let served = edge
            .run(listener, async move {
                shutdown.await;
                ready.store(false, Ordering::Relaxed);
                tracing::info!("shutting down: finishing in-flight requests");
            })
            .await;
        let _ = stop_tx.send(true);
        if let Some(task) = reporter {
            let _ = task.await;
        }
        if let Some(auth) = &auth {
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
        .route("/metrics", get(probes::metrics))
        .route("/version", get(probes::version))
        .route("/openapi.json", get(probes::openapi))
        .with_state(state.clone());
    if let Some(service) = &state.render {
        app = app.merge(render_routes(state, service));
    }
    if services.barcode {
        app = app.merge(crate::http::barcode::router(&state.config.limits));
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

/// The render service's routes; their handlers take the [`RenderService`]
/// from [`RenderRoutes`], which only a node serving renders has.
fn render_routes(state: &AppState, service: &RenderService) -> Router {
    let published = service.engine.published_config();
    let config_json = serde_json::to_string(&published).unwrap_or_default();
    let etag = format!("\"{}\"", short_hash(config_json.as_bytes()));
    let body_limit = DefaultBodyLimit::max(state.config.limits.body_bytes);
    Router::new()
        .route("/api/v1/label", post(render::label).layer(body_limit))
        .route("/api/v1/batch", post(batch::batch).layer(body_limit))
        .route("/api/v1/templates", get(templates::list))
        .route(
            "/api/v1/templates/{name}",
            put(templates::put)
                .layer(body_limit)
                .get(templates::get)
                .delete(templates::delete),
        )
        .route(
            "/api/v1/label/check",
            post(check::label_check).layer(body_limit),
        )
        .route(
            "/v1/doc/runtime-config",
            get(move |headers: HeaderMap| {
                let (body, etag) = (config_json.clone(), etag.clone());
                async move { probes::runtime_config(&headers, &body, &etag) }
            }),
        )
        .with_state(RenderRoutes {
            node: state.clone(),
            service: service.clone(),
        })
}

/// What connections beyond the cap, and new ones while the server drains,
/// get (see [`edge`]): `/healthz` and `/readyz` as usual, 503 API-503 for
/// anything else.
fn turn_away_router(state: &AppState) -> Router {
    Router::new()
        .route("/healthz", get(probes::healthz))
        .route("/readyz", get(probes::readyz))
        .fallback(probes::turned_away)
        .with_state(state.clone())
        .layer(axum::middleware::from_fn_with_state(
            state.metrics.clone(),
            request_id::layer,
        ))
}

/// The verification service running in this process.
struct InProcessVerify(Arc<crate::verify::VerifyService>);

impl InProcessVerify {
    /// On the PostgreSQL ledger at `database_url`, else on the embedded one
    /// in `data_dir`.
    async fn open(
        data_dir: &Path,
        database_url: Option<&str>,
        admin_token: Option<String>,
        limits: &Limits,
    ) -> Result<InProcessVerify, String> {
        use crate::verify::VerifyService;
        let service = match database_url {
            Some(url) => {
                let options = crate::verify::postgres::PgOptions {
                    connections: limits.ledger_connections,
                    timeout: Duration::from_millis(limits.ledger_timeout_ms),
                };
                VerifyService::connect(url, admin_token, options).await
            }
            None => VerifyService::open(data_dir, admin_token),
        };
        service
            .map(InProcessVerify)
            .map_err(|e| format!("verification service: {e}"))
    }

    /// The render route calls it directly: the handler's code path, no socket.
    fn verifier(&self) -> Arc<dyn Verifier> {
        self.0.clone()
    }

    fn router(&self, limits: &labelpress_document::config::Limits) -> Router {
        let failed_auth = crate::verify::RateLimit {
            per_second: limits.failed_auth_per_second,
            burst: limits.failed_auth_burst,
        };
        crate::verify::router_with(self.0.clone(), failed_auth)
    }

    async fn flush(&self) {
        self.0.flush().await;
    }
}

/// Registers for Ctrl-C and SIGTERM at once and returns a future that
/// resolves on either. Registering before the server answers anything
/// matters: a future registering on its first poll would do so only once
/// the accept loop runs, possibly after the server already answered, and
/// a SIGTERM that came before the registration killed the process outright.
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

/// `labelpress serve`: binds, opens the node, serves until SIGTERM.
pub async fn serve(listen: SocketAddr, options: NodeOptions) -> Result<(), String> {
    let shutdown = shutdown_signal().map_err(|e| format!("signal handlers: {e}"))?;
    // Connections are file descriptors: the more the process may open, the
    // less the connection cap has to be lowered to fit (see `edge`).
    if let Some(fds) = edge::raise_fd_limit() {
        tracing::debug!(fds, "open file limit");
    }
    // Bound first: a port in use stops the start before anything is
    // created in the data folder.
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| format!("{listen}: {e}"))?;
    let node = Node::open(options).await?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let scheme = if node.tls.is_some() { "https" } else { "http" };
    tracing::info!(listen = %local, scheme, "labelpress listening");
    node.run(listener, shutdown)
        .await
        .map_err(|e| format!("{listen}: {e}"))
}
