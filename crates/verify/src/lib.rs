//! labelpress-verify: the token verification service's core, no routes
//! (`docs/admin-api.md`), and the storage helpers the render nodes share
//! with it. The HTTP layer (routes, request reading, views and error
//! bodies) is the `labelpress` crate's `verify::http`, above this crate.
//!
//! What the server mounts and the render side calls (kept stable):
//! - [`VerifyService::open`]`(data_dir: &Path, admin_token: Option<String>)
//!   -> Result<Arc<VerifyService>, VerifyError>`: opens the embedded ledger
//!   in `<data_dir>/verifier/`; without an admin token, reads or generates
//!   `<data_dir>/admin-token` (mode 0600). [`VerifyService::admin_token`]
//!   returns the one in force.
//! - [`VerifyService::connect`] (async): the ledger on PostgreSQL
//!   (`--database-url`), shared by several verifier nodes; the admin token
//!   must be given.
//! - `impl `[`Verifier`]` for VerifyService`: the in-process verifier, the
//!   same code path as the HTTP handler ([`VerifyService::check`]).
//! - [`VerifyService::flush`]`(&self)` (async): every write so far on disk;
//!   call it on graceful shutdown.
//!
//! Modules, one job each, each importing only those listed before it:
//! - shared with the render side: [`credential`] (token digest, bearer
//!   header, clock, rate limits) and the storage helpers [`group_commit`],
//!   [`synced_sled`], [`postgres_pool`] and its [`postgres_tls`];
//! - the protocol and the records: [`protocol`] (the verification call and
//!   its answers, shared with the render side), [`secret`] (token shapes,
//!   hashing), [`record`] (what a ledger keeps, and its limits), [`rules`]
//!   (check order, status, `remaining`);
//! - the questions a ledger answers, as plain values: [`search`] (token
//!   search and paging) and [`history`] (usage over time);
//! - the ledger contract, [`ledger`]: the [`ledger::Ledger`] trait every
//!   store implements, and the types it speaks;
//! - the stores: [`store`] (sled, atomic deduction) under [`embedded`]
//!   (its group commit); [`migrations`], [`postgres_rows`],
//!   [`postgres_batch`] (its group commit) under [`postgres`]; and
//!   [`any_ledger`], whichever a service runs on;
//! - the service: [`service`] (verification, the in-process
//!   [`Verifier`]) and [`admin`] (administration operations).
//!
//! Its command-line client, `labelpress token`, is in the `labelpress`
//! crate's `cli::token`.
pub mod admin;
pub mod any_ledger;
pub mod credential;
pub mod embedded;
pub mod group_commit;
pub mod history;
pub mod ledger;
pub mod migrations;
pub mod postgres;
pub mod postgres_batch;
pub mod postgres_gate;
pub mod postgres_pool;
pub mod postgres_rows;
pub mod postgres_tls;
pub mod protocol;
pub mod record;
pub mod rules;
pub mod search;
pub mod secret;
pub mod service;
pub mod store;
pub mod synced_sled;

pub use protocol::{Granted, RateLimit, Rejection, Unavailable, Verdict, Verifier, VerifyCall};
pub use service::{VerifyError, VerifyOptions, VerifyService};
