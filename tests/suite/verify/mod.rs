//! The verification service: its HTTP API on both ledgers, the admin API,
//! `labelpress token`, the dashboard in a browser, and durability across a
//! killed process. [`support`] starts a service on a loopback socket.

mod admin;
mod cli;
mod dashboard;
mod durability;
mod http;
pub mod support;
