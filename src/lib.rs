//! labelpress: JSON document descriptions to print-exact PDF, served.
//!
//! Three crates, imports one way: `labelpress_barcode` (symbologies, SVG)
//! <- `labelpress_document` (model, validation, layout, lowering, engine,
//! PDF/PNG; re-exported here under the same module names) <- this crate.
//! Its own modules go one way too (`scripts/module_cycles.py` checks it),
//! from the top:
//!
//! - [`cli`]: the binary's commands, `labelpress token` included;
//! - [`http`]: the routes of all three services and the OpenAPI document;
//! - [`worker`]: render worker processes;
//! - [`templates`]: the render nodes' stored templates (embedded or
//!   PostgreSQL);
//! - [`auth`]: the render route's guard (token cache, outbox, limits), which
//!   asks [`verify`]: the verification service and its ledger;
//! - shared below them: [`credential`] (token digest, bearer header, clock,
//!   rate limits), [`api_error`], [`request_context`], [`metrics`],
//!   [`data_dir`], [`exit`], and the storage helpers [`group_commit`],
//!   [`synced_sled`], [`postgres_pool`] and its [`postgres_tls`].
pub mod api_error;
pub mod auth;
pub mod build_info;
pub mod cli;
pub mod credential;
pub mod data_dir;
pub mod exit;
pub mod group_commit;
pub mod http;
pub mod logging;
pub mod metrics;
pub mod postgres_pool;
pub mod postgres_tls;
pub mod request_context;
pub mod synced_sled;
pub mod templates;
pub mod verify;
pub mod worker;

pub use labelpress_barcode as barcode;
pub use labelpress_document::{
    config, engine, ir, json_strict, layout, lower, model, pdf, request_schema, rich_text, style,
    template, validate, warnings, Engine, RenderError, Rendered,
};

/// mimalloc for every binary built on this crate (server, CLI, benches,
/// tests); a render worker reports a failed allocation to its server
/// ([`worker::oom`]).
#[global_allocator]
static GLOBAL: worker::oom::Allocator = worker::oom::Allocator;
