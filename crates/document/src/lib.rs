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
pub mod color;
pub mod config;
pub mod engine;
pub mod ir;
pub mod json_strict;
pub mod layout;
pub mod lower;
pub mod model;
pub mod pdf;
pub mod profile;
pub mod rich_text;
pub mod style;
pub mod validate;
pub mod warnings;

pub use engine::{Engine, RenderError, Rendered};
/// The request schema is part of the model ([`model::schema`]); its old path
/// stays for the OpenAPI document, the CLI and the tests.
pub use model::schema as request_schema;
