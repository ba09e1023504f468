//! The one state every handler shares.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::metrics::Metrics;
use super::pool::RenderPool;
use crate::auth::Auth;
use crate::config::RuntimeConfig;
use crate::engine::Engine;
use crate::worker::Renderer;

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
    pub pool: Arc<RenderPool>,
    /// Turns of the check route: [`crate::config::Limits::check_slots`],
    /// so that checks never hold every render thread.
    pub checks: Arc<Semaphore>,
    pub metrics: Arc<Metrics>,
    /// True from the moment the stores are open until shutdown begins.
    pub ready: Arc<AtomicBool>,
    pub verifier: VerifierMode,
}
