//! labelpress: JSON document descriptions to print-exact PDF, served.
//!
//! Four crates, imports one way: `labelpress_barcode` (symbologies, SVG)
//! <- `labelpress_document` (model, validation, layout, lowering, engine,
//! PDF/PNG) and `labelpress_verify` (the verifier's ledger contract, stores
//! and operations, credentials, storage helpers), both re-exported here
//! under the same module names <- this crate.
//! Its own modules go one way too (`scripts/module_cycles.py` checks it),
//! from the top:
//!
//! - [`cli`]: the binary's commands, `labelpress token` included;
//! - [`http`]: the routes of all three services and the OpenAPI document;
//! - [`worker`]: render worker processes;
//! - [`templates`]: the render nodes' stored templates (embedded or
//!   PostgreSQL);
//! - [`auth`]: the render route's guard (token cache, outbox, limits), which
//!   asks [`verify`]: the verification service (its HTTP layer here, its
//!   core from `labelpress_verify`);
//! - shared below them: [`api_error`], [`request_context`], [`metrics`],
//!   [`data_dir`], [`exit`]; and from `labelpress_verify`, [`credential`]
//!   (token digest, bearer header, clock, rate limits) and the storage
//!   helpers [`group_commit`], [`synced_sled`], [`postgres_pool`] and its
//!   [`postgres_tls`].
pub mod api_error;
pub mod auth;
pub mod build_info;
pub mod cli;
pub mod data_dir;
pub mod exit;
pub mod http;
pub mod logging;
pub mod metrics;
pub mod request_context;
pub mod templates;
pub mod verify;
pub mod worker;

pub use labelpress_barcode as barcode;
pub use labelpress_document::{
    config, engine, ir, json_strict, layout, lower, model, native_barcode, pdf, request_schema,
    rich_text, style, template, validate, warnings, Engine, RenderError, Rendered,
};
pub use labelpress_verify::{credential, group_commit, postgres_pool, postgres_tls, synced_sled};

/// mimalloc for every binary built on this crate (server, CLI, benches,
/// tests); a render worker reports a failed allocation to its server
/// ([`worker::oom`]).
#[global_allocator]
static GLOBAL: worker::oom::Allocator = worker::oom::Allocator;
