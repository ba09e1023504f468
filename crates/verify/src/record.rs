//! What a ledger keeps per token, account and idempotency key, and the
//! limits every record is held to (account names, balances).

use serde::{Deserialize, Serialize};

use super::protocol::{Granted, RateLimit};

/// How many deductions a token record remembers for the admin views. Kept
/// small: every deduction rewrites the record, and its size is what the
/// disk pays per verification.
pub const RECENT_USAGE: usize = 10;

/// Longest account name.
pub const MAX_ACCOUNT_LEN: usize = 128;

/// Largest balance a token may hold (2^63 - 1): what PostgreSQL's `bigint`
/// holds, the same limit on either ledger.
pub const MAX_BALANCE: u64 = i64::MAX as u64;

/// Why a name cannot be an account's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum InvalidAccount {
    #[error("account must be 1 to {MAX_ACCOUNT_LEN} bytes")]
    Length,
    #[error("account must not contain control characters")]
    ControlCharacter,
}

/// An account name: 1 to [`MAX_ACCOUNT_LEN`] bytes, not only white space,
/// no control characters. The embedded store relies on the last: an
/// account never contains the `0x00` that ends it in a usage key.
pub fn valid_account(account: &str) -> Result<(), InvalidAccount> {
    if account.trim().is_empty() || account.len() > MAX_ACCOUNT_LEN {
        return Err(InvalidAccount::Length);
    }
    if account.chars().any(char::is_control) {
        return Err(InvalidAccount::ControlCharacter);
    }
    Ok(())
}

/// One token, stored under the SHA-256 of its secret (never the secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    pub id: String,
    /// The first 8 characters of the secret.
    pub hint: String,
    pub account: String,
    pub balance: u64,
    /// Unix milliseconds; `None` never expires.
    pub expires_at: Option<i64>,
    #[serde(default)]
    pub rate_limit: Option<RateLimit>,
    #[serde(default)]
    pub revoked: bool,
    /// The account's ban, copied into each of its tokens: a ban rewrites
    /// every record of the account, so a deduction (which writes the record
    /// only if it is unchanged since it was judged) can never land after
    /// the ban on a judgement made before it.
    #[serde(default)]
    pub banned: bool,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds of the last deduction (dry runs write nothing).
    #[serde(default)]
    pub last_used_at: Option<i64>,
    /// The last [`RECENT_USAGE`] deductions, oldest first, as compact
    /// `[at, count, balance]` triples.
    #[serde(default)]
    pub usage: Vec<(i64, u64, u64)>,
    /// Renders delivered on this token that the verifier refused to charge
    /// when they were reported (revoked, banned, expired or over the
    /// balance meanwhile): recorded by `uncharged=true` calls, never
    /// deducted, only ever growing.
    #[serde(default)]
    pub uncharged: u64,
    /// The latest deduction made with an `Idempotency-Key`, written in the
    /// same compare-and-swap as the deduction. Its answer is then copied to
    /// the `idempotency` tree; if the process dies in between, this copy is
    /// what the next call with that key (or any key) finds and rolls forward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_key: Option<PendingKey>,
    /// The rate limit's state for leases ([`super::rules::lease`]): Unix
    /// milliseconds, 0 before the first lease.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lease_tat: i64,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// See [`TokenRecord::pending_key`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingKey {
    pub key: String,
    pub first: IdempotencyRecord,
}

/// One deduction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Usage {
    /// Unix milliseconds.
    pub at: i64,
    pub count: u64,
    /// Balance after the deduction.
    pub balance: u64,
}

#[cfg(any(test, feature = "test-support"))]
impl TokenRecord {
    /// An active record of account `acme` for unit tests (this crate's, and
    /// the HTTP layer's through the `test-support` feature).
    pub fn sample(balance: u64) -> TokenRecord {
        TokenRecord {
            id: "tok_AAAAAAAAAAAA".into(),
            hint: "lp_AAAAA".into(),
            account: "acme".into(),
            balance,
            expires_at: None,
            rate_limit: None,
            revoked: false,
            banned: false,
            created_at: 0,
            last_used_at: None,
            usage: vec![],
            uncharged: 0,
            pending_key: None,
            lease_tat: 0,
        }
    }
}

impl TokenRecord {
    /// Records a deduction of `count` (already checked against the balance).
    pub fn deduct(&mut self, count: u64, now: i64) {
        self.balance -= count;
        self.last_used_at = Some(now);
        if self.usage.len() >= RECENT_USAGE {
            self.usage.remove(0);
        }
        self.usage.push((now, count, self.balance));
    }

    /// Credits `count` units a lease did not use.
    pub fn give_back(&mut self, count: u64) {
        self.balance = self.balance.saturating_add(count);
    }

    /// Records `count` uncharged renders (nothing deducted).
    pub fn add_uncharged(&mut self, count: u64) {
        self.uncharged = self.uncharged.saturating_add(count);
    }

    /// The recent deductions, newest first.
    pub fn recent_usage(&self) -> Vec<Usage> {
        self.usage
            .iter()
            .rev()
            .map(|&(at, count, balance)| Usage { at, count, balance })
            .collect()
    }
}

/// An account: the owner of tokens, banned as a whole.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountRecord {
    pub banned: bool,
    /// Unix milliseconds of the ban in force; `None` when not banned, or
    /// banned before the time was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banned_at: Option<i64>,
}

/// A banned account as `GET /admin/api/accounts/banned` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BannedAccount {
    pub account: String,
    /// Unix milliseconds; `null` for a ban older than this field.
    pub banned_at: Option<i64>,
}

/// The first answer given for an idempotency key (only deducting answers are
/// kept: a rejection changed nothing, so a retry is judged afresh).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdempotencyRecord {
    /// Unix milliseconds of the first call; kept [`super::rules::IDEMPOTENCY_TTL_MS`].
    pub at: i64,
    /// The count of the first call; a replay with another count is refused.
    pub count: u64,
    pub granted: Granted,
    /// Whether the first call was `uncharged=true`. A deduction replayed
    /// as uncharged answers the deduction (see [`Self::replay`]); an
    /// uncharged record replayed as a deduction is refused like one with
    /// another count.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncharged: bool,
}

impl IdempotencyRecord {
    /// The first answer again for a call of the same count and kind, or an
    /// `uncharged=true` call under the key of a deduction of that count:
    /// the renders it reports were charged under that key (a render node
    /// whose report was deducted but never answered, and then refused
    /// because the token was revoked, which refuses replays, reports them
    /// as uncharged under the same key). The charge is its answer, and no
    /// render is counted both charged and uncharged.
    pub fn replay(
        self,
        count: u64,
        uncharged: bool,
    ) -> Result<Granted, super::protocol::Rejection> {
        // Only an uncharged first answer is refused to the other kind.
        if self.count == count && (uncharged || !self.uncharged) {
            Ok(self.granted)
        } else {
            Err(super::protocol::Rejection::BadRequest)
        }
    }
}
