//! The token verification service (`docs/admin-api.md`): its core (ledger
//! contract, both stores, verification and administration) is the
//! `labelpress_verify` crate, re-exported here under the same module
//! names; [`http`] (routes, request reading, views and error bodies) is
//! this crate's, above it.
pub mod http;

pub use http::{router, router_with};
pub use labelpress_verify::{
    admin, any_ledger, embedded, history, ledger, migrations, postgres, postgres_batch,
    postgres_gate, postgres_rows, protocol, record, rules, search, secret, service, store,
};
pub use labelpress_verify::{
    Granted, RateLimit, Rejection, Unavailable, Verdict, Verifier, VerifyCall, VerifyError,
    VerifyOptions, VerifyService,
};
