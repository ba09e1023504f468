//! PDF concerns around the Typst exporter: metadata it cannot write, output
//! file names. The profiles a request may ask for are `crate::profile`'s
//! (re-exported here), below `config`, which publishes them.

mod info;
mod links;
pub mod output;
mod slices;
mod syntax;

#[cfg(test)]
pub(crate) use self::info::inspect;
pub use self::info::{patch, set_producer, ProducerError};
pub use self::slices::{JoinError, Joined};
pub use crate::profile::{Profile, ProfileInfo};
