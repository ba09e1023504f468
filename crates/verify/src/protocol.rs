//! The verification protocol, shared by both sides: the verification service
//! (`POST /v1/verify`, in [`crate::verify`]) and the render route's
//! authenticator, which calls it in-process or over HTTP through the
//! [`Verifier`] trait. Bodies and statuses follow
//! `docs/admin-api.md`.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

/// One verification call: what `POST /v1/verify` carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyCall {
    /// The bearer token exactly as the client sent it (never logged or stored).
    pub token: String,
    /// Units to deduct, >= 1 (empty body = 1).
    pub count: u64,
    /// Validate only; deduct nothing.
    pub dry_run: bool,
    /// Same key within 24 h: the first answer again, deducted once.
    pub idempotency_key: Option<String>,
    /// `uncharged=true` (extension): record `count` renders the token was
    /// not charged for (usage the verifier refused at report time), whatever
    /// the token's status; deduct nothing. Only an unknown token is refused.
    pub uncharged: bool,
    /// What the call is for: a plain verification, or one of the lease
    /// extensions render nodes of a fleet use (docs/leases.md).
    pub purpose: Purpose,
}

/// What a verification call is for. Leases and returns need an
/// `Idempotency-Key` and are neither dry runs nor uncharged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Purpose {
    /// `POST /v1/verify` as the spec has it (with `dry_run` or `uncharged`).
    #[default]
    Charge,
    /// `POST /v1/leases`: deduct up to `count` units as one block a render node
    /// spends on its own; the verifier grants fewer when the balance is low
    /// or the token's rate limit allows fewer now ([`Granted::leased`]).
    Lease,
    /// `POST /v1/leases/return`: give `count` unused units of the lease taken under
    /// the same `Idempotency-Key` back to the balance, once.
    GiveBack,
}

impl VerifyCall {
    /// Checks `token` for one unit without deducting: how the render node
    /// asks on a cache miss and before reporting usage.
    pub fn dry_run(token: &str) -> VerifyCall {
        VerifyCall {
            token: token.to_string(),
            count: 1,
            dry_run: true,
            idempotency_key: None,
            uncharged: false,
            purpose: Purpose::Charge,
        }
    }

    /// A lease of up to `units` under `key` (retried with the same key,
    /// the verifier grants it once).
    pub fn lease(token: &str, units: u64, key: &str) -> VerifyCall {
        VerifyCall {
            token: token.to_string(),
            count: units,
            dry_run: false,
            idempotency_key: Some(key.to_string()),
            uncharged: false,
            purpose: Purpose::Lease,
        }
    }

    /// Gives `unused` units of the lease taken under `key` back.
    pub fn give_back(token: &str, unused: u64, key: &str) -> VerifyCall {
        VerifyCall {
            purpose: Purpose::GiveBack,
            ..VerifyCall::lease(token, unused, key)
        }
    }
}

pub use crate::credential::rate_limit::RateLimit;

/// The 200 body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Granted {
    /// Always `"ok"`.
    pub status: String,
    /// Balance after the deduction.
    pub balance: u64,
    /// Expiry in Unix milliseconds; `None` never expires.
    pub expires_at: Option<i64>,
    /// ISO 8601 duration until expiry (`P29DT23H59M`) or `"unlimited"`.
    pub remaining: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
    /// Extension, only in the answer to an `uncharged=true` call: the
    /// token's uncharged renders in all after this call. A render node takes
    /// its presence as the proof that the verifier recorded the call as
    /// uncharged (a verifier without the extension would have deducted it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncharged: Option<u64>,
    /// Extension: the token's account, which render nodes file stored
    /// templates under (`crate::credential::Owner`). In the answers to dry
    /// runs, which is how render nodes ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// Extension, only in the answer to a lease: the units granted, at
    /// most the `count` asked for. 0 when the token's rate limit allows
    /// none now ([`Granted::retry_after_ms`] says when).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leased: Option<u64>,
    /// Extension, with a lease of 0 units: how long until the token's
    /// rate limit allows one (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// Extension, only in the answer to a return: the units given back.
    /// A render node takes its presence as the proof that the verifier
    /// understood the return (one without the extension would deduct).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returned: Option<u64>,
}

/// Why the verifier said no. Each maps to one status and `error` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// 400 `Bad Request` (count not an integer >= 1, body not JSON).
    BadRequest,
    /// 401 `Missing Token`.
    MissingToken,
    /// 403 `Invalid Token`: malformed, unknown or revoked.
    InvalidToken,
    /// 403 `Token Expired`.
    TokenExpired,
    /// 403 `Quota Exceeded`: balance below `count`; nothing deducted.
    QuotaExceeded,
    /// 403 `Banned`: the token's account is banned.
    Banned,
}

impl Rejection {
    /// Every rejection, in the order of the enum.
    pub const ALL: [Rejection; 6] = [
        Rejection::BadRequest,
        Rejection::MissingToken,
        Rejection::InvalidToken,
        Rejection::TokenExpired,
        Rejection::QuotaExceeded,
        Rejection::Banned,
    ];

    pub fn status(self) -> u16 {
        match self {
            Rejection::BadRequest => 400,
            Rejection::MissingToken => 401,
            _ => 403,
        }
    }

    /// The `error` value of the `{error, message}` body.
    pub fn error(self) -> &'static str {
        match self {
            Rejection::BadRequest => "Bad Request",
            Rejection::MissingToken => "Missing Token",
            Rejection::InvalidToken => "Invalid Token",
            Rejection::TokenExpired => "Token Expired",
            Rejection::QuotaExceeded => "Quota Exceeded",
            Rejection::Banned => "Banned",
        }
    }

    /// Inverse of [`Rejection::error`], for the HTTP client side.
    pub fn from_error(error: &str) -> Option<Rejection> {
        Rejection::ALL.into_iter().find(|r| r.error() == error)
    }
}

/// The error body of a rejection: `{error, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RejectionBody {
    pub error: String,
    pub message: String,
}

/// A verifier's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Granted(Granted),
    Rejected(Rejection),
}

/// The verifier could not answer (network down, 5xx, timeout): the caller
/// decides from its cache (docs/http-api.md, "Authentication and usage"; API-502 when uncached).
#[derive(Debug, thiserror::Error)]
#[error("verifier unavailable: {0}")]
pub struct Unavailable(pub String);

pub type VerifyFuture<'a> = Pin<Box<dyn Future<Output = Result<Verdict, Unavailable>> + Send + 'a>>;

/// Anything that answers verification calls: the in-process service or a
/// remote one over HTTP (`--verify-url`).
pub trait Verifier: Send + Sync + 'static {
    fn verify(&self, call: VerifyCall) -> VerifyFuture<'_>;
}
