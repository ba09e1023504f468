//! The one state every handler shares.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::pool::RenderPool;
use crate::auth::Auth;
use crate::metrics::Metrics;
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

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<RuntimeConfig>,
    /// `None` when the render service is not served.
    pub engine: Option<Arc<Engine>>,
    /// Where renders run; set with `engine`.
    pub renderer: Option<Renderer>,
    pub auth: Option<Arc<Auth>>,
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
