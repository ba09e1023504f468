//! Tests of the modules below the engine that need a whole document
//! rendered: they are here, above those modules, so that no module imports
//! the engine it is part of; each module's own unit tests stay with it.

use std::sync::LazyLock;

use super::fonts::FontOptions;
use super::Engine;

mod display;
mod images;
mod lowering;
mod producer;

/// The default configuration with the embedded fonts and no resource folder.
static ENGINE: LazyLock<Engine> =
    LazyLock::new(|| Engine::new(Default::default(), &FontOptions::EMBEDDED, None));
