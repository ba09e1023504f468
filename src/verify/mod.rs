//! The token verification service (part B of
//! `barcode-and-verification-services.md`, DECISIONS section 5).
pub mod protocol;

pub use protocol::{Granted, RateLimit, Rejection, Unavailable, Verdict, Verifier, VerifyCall};
