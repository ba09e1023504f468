//! labelpress: JSON document descriptions to print-exact PDF, served.
//!
//! Three crates, imports one way: `labelpress_barcode` (symbologies, SVG)
//! <- `labelpress_document` (model, validation, layout, lowering, engine,
//! PDF/PNG; re-exported here under the same module names) <- this crate:
//! [`cli`] and [`http`] (the routes of all three services, with [`auth`] in
//! front of the render route and [`verify`] beside it; renders run in
//! [`worker`] processes).
pub mod api_error;
pub mod auth;
pub mod build_info;
pub mod cli;
pub mod group_commit;
pub mod http;
pub mod logging;
pub mod openapi;
pub mod synced_sled;
pub mod verify;
pub mod worker;

pub use labelpress_barcode as barcode;
pub use labelpress_document::{
    config, engine, ir, json_strict, layout, lower, model, pdf, request_schema, rich_text, style,
    validate, warnings, Engine, RenderError, Rendered,
};

/// mimalloc for every binary built on this crate (server, CLI, benches,
/// tests); a render worker reports a failed allocation to its server
/// ([`worker::oom`]).
#[global_allocator]
static GLOBAL: worker::oom::Allocator = worker::oom::Allocator;
