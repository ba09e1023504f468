//! labelpress: JSON document descriptions to print-exact PDF.
//!
//! The pipeline is the module tree: [`model`] (serde types) ->
//! [`validate`] (rules, paths; it calls [`layout`] for table cells, rows and
//! the flow onto continuation sheets) -> [`lower`] (Typst source) ->
//! [`engine`] (Typst World, compile, PDF export) -> [`cli`] and [`http`]
//! (render route, with [`auth`] in front and [`verify`] beside it; renders
//! run in [`worker`] processes).
pub mod api_error;
pub mod auth;
pub mod barcode;
pub mod build_info;
pub mod cli;
pub mod config;
pub mod engine;
pub mod group_commit;
pub mod http;
pub mod ir;
pub mod json_strict;
pub mod layout;
pub mod logging;
pub mod lower;
pub mod model;
pub mod openapi;
pub mod pdf;
pub mod request_schema;
pub mod rich_text;
pub mod style;
pub mod synced_sled;
pub mod validate;
pub mod verify;
pub mod warnings;
pub mod worker;

pub use engine::{Engine, RenderError, Rendered};

/// mimalloc for every binary built on this crate (server, CLI, benches,
/// tests); a render worker reports a failed allocation to its server
/// ([`worker::oom`]).
#[global_allocator]
static GLOBAL: worker::oom::Allocator = worker::oom::Allocator;
