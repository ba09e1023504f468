//! labelpress's document core: JSON document descriptions to print-exact
//! PDF and PNG, with no HTTP.
//!
//! The pipeline is the module tree: [`model`] (serde types) ->
//! [`validate`] (rules, paths; it calls [`layout`] for table cells, rows and
//! the flow onto continuation sheets) -> [`lower`] (Typst source) ->
//! [`engine`] (Typst World, compile, PDF and PNG export). [`config`] holds
//! every default and limit (runtime-config); [`warnings`] reads a laid-out
//! document. Barcodes come from `labelpress_barcode`; the server, its
//! workers and the CLI are in the `labelpress` crate above.
//!
//! Imports go one way, each module importing only modules listed before it
//! (`scripts/module_cycles.py` finds no cycle): [`json_strict`], [`color`]
//! and [`profile`]; [`config`]; [`model`] with its JSON Schema; [`style`],
//! [`rich_text`], [`ir`], [`layout`], [`validate`]; [`template`] (fills a
//! template body into a DocumentRequest before validation); [`warnings`] and
//! [`lower`]; [`pdf`]; [`engine`]. So a test that needs a document validated
//! or rendered by the engine is the engine's (`engine/tests/`) or the root
//! crate's, never a test module of the module it checks.
pub mod color;
pub mod config;
pub mod engine;
pub mod ir;
pub mod json_strict;
pub mod layout;
pub mod lower;
pub mod model;
pub mod native_barcode;
pub mod paginate;
pub mod pdf;
pub mod profile;
pub mod rich_text;
pub mod style;
pub mod template;
pub mod validate;
pub mod warnings;

pub use engine::{Engine, RenderError, Rendered};
/// The request schema is part of the model ([`model::schema`]); its old path
/// stays for the OpenAPI document, the CLI and the tests.
pub use model::schema as request_schema;
