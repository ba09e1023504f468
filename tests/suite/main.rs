//! The integration suite: one test binary (typst links once), modules by topic.

mod support;

mod architecture;
mod barcodes;
mod cli;
mod contract;
mod dashboard;
mod docs;
mod document;
mod edge;
mod gallery;
mod generated_client;
mod geometry;
mod hostile;
mod http;
mod isolation;
mod ledger_contract;
mod ledger_postgres;
mod literal_text;
mod measured_boxes;
mod metadata_hostile;
mod openapi;
mod operations;
mod package;
mod png;
mod postgres;
mod quickstart;
mod quota;
mod runtime_config;
mod scripts;
mod serve_durability;
mod serve_render;
mod server;
mod tables;
mod validation;
mod warnings;
