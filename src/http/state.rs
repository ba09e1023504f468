//! The state handlers share: [`AppState`], every route's, and
//! [`RenderRoutes`], the render service's routes', which also hold the
//! [`RenderService`]. Those routes are mounted only on a node that serves
//! renders, so their handlers never meet a missing engine.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use axum::extract::FromRef;
use tokio::sync::Semaphore;

use super::pool::RenderPool;
use crate::auth::Auth;
use crate::metrics::Metrics;
use crate::templates::Templates;
use crate::worker::Renderer;
use labelpress_document::config::RuntimeConfig;
use labelpress_document::engine::Engine;

/// Where the render route's verifier lives (shown by `/readyz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifierMode {
    None,
    InProcess,
    Remote,
}

/// What the render service runs on.
#[derive(Clone)]
pub struct RenderService {
    pub engine: Arc<Engine>,
    /// Where renders run.
    pub renderer: Renderer,
    pub auth: Arc<Auth>,
    /// The stored templates (`crate::templates`).
    pub templates: Arc<Templates>,
}

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<RuntimeConfig>,
    /// `None` when the render service is not served.
    pub render: Option<RenderService>,
    /// The verification service when this node serves it (its ledger's
    /// figures for `/metrics`).
    pub verify: Option<Arc<crate::verify::VerifyService>>,
    pub pool: Arc<RenderPool>,
    /// Turns of the check route: [`labelpress_document::config::Limits::check_slots`],
    /// so that checks never hold every render thread.
    pub checks: Arc<Semaphore>,
    pub metrics: Arc<Metrics>,
    /// True from the moment the stores are open until shutdown begins.
    pub ready: Arc<AtomicBool>,
    pub verifier: VerifierMode,
}

/// The state of the render service's routes.
#[derive(Clone)]
pub struct RenderRoutes {
    pub node: AppState,
    pub service: RenderService,
}

impl FromRef<RenderRoutes> for AppState {
    fn from_ref(routes: &RenderRoutes) -> AppState {
        routes.node.clone()
    }
}

impl FromRef<RenderRoutes> for RenderService {
    fn from_ref(routes: &RenderRoutes) -> RenderService {
        routes.service.clone()
    }
}

/// What authenticating a request needs ([`crate::auth::Reservation`]'s
/// extractor).
impl FromRef<RenderRoutes> for Arc<Auth> {
    fn from_ref(routes: &RenderRoutes) -> Arc<Auth> {
        routes.service.auth.clone()
    }
}

/// What reading a request's query and body needs: their limits.
impl FromRef<RenderRoutes> for Arc<RuntimeConfig> {
    fn from_ref(routes: &RenderRoutes) -> Arc<RuntimeConfig> {
        routes.node.config.clone()
    }
}
