//! Token administration (docs/admin-api.md): the operations behind
//! `/admin/api` on the ledger contract, with their limits and errors. They
//! take and give plain values (records, query values, the ledger's sums);
//! the HTTP layer reads requests into them and shapes their answers.

use serde::{Deserialize, Serialize};

use super::history::{Subject, Totals, UsageQuery};
use super::ledger::{Change, Ledger, StoreError, UpdateError};
use super::protocol::RateLimit;
use super::record::{valid_account, BannedAccount, InvalidAccount, TokenRecord, MAX_BALANCE};
use super::search::TokenQuery;
use super::secret;
use super::service::VerifyService;
use crate::credential::TokenHash;

/// Most tokens `/metrics` shows uncharged renders for, one series each
/// (those with the most): a scrape stays bounded however many tokens have
/// some; the total covers them all.
pub const UNCHARGED_SERIES: usize = 100;

/// Why an administration operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// A value the operation refuses (an account name, an amount, a
    /// balance past [`MAX_BALANCE`]).
    #[error("{0}")]
    Invalid(String),
    #[error("no token with id {0:?}")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<InvalidAccount> for AdminError {
    fn from(e: InvalidAccount) -> Self {
        AdminError::Invalid(e.to_string())
    }
}

impl From<UpdateError> for AdminError {
    fn from(e: UpdateError) -> Self {
        match e {
            // `VerifyService::change` names the id instead.
            UpdateError::NotFound => AdminError::NotFound(String::new()),
            UpdateError::Refused(m) => AdminError::Invalid(m),
            UpdateError::Store(e) => AdminError::Store(e),
        }
    }
}

/// An id this verifier could have issued (`tok_` + 12 base62), else 404
/// before any store sees it: an id with a NUL, which PostgreSQL cannot
/// even compare, was a 500.
fn issued_id(id: &str) -> Result<(), AdminError> {
    if secret::well_formed_id(id) {
        Ok(())
    } else {
        Err(AdminError::NotFound(id.to_string()))
    }
}

// A new token's terms, read from the JSON body as they are. (Its doc line
// is the OpenAPI schema's description.)
/// `POST /admin/api/tokens`.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    pub account: String,
    pub balance: u64,
    /// Unix milliseconds; absent or `null`: never expires.
    #[serde(default)]
    pub expires_at: Option<i64>,
    #[serde(default)]
    pub rate_limit: Option<RateLimit>,
}

// A token just created, with its secret, answered as it is.
/// The answer to `POST /admin/api/tokens`: the only time `token` is shown.
#[derive(Debug, Clone, Deserialize, Serialize, schemars::JsonSchema)]
pub struct CreatedToken {
    pub id: String,
    pub token: String,
    pub account: String,
    pub balance: u64,
    pub expires_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
}

impl VerifyService {
    pub async fn create_token(&self, new: NewToken) -> Result<CreatedToken, AdminError> {
        valid_account(&new.account)?;
        if new.balance > MAX_BALANCE {
            return Err(AdminError::Invalid(format!(
                "balance must be at most {MAX_BALANCE}"
            )));
        }
        if let Some(rl) = new.rate_limit {
            if rl.per_second == 0 || rl.burst == 0 {
                return Err(AdminError::Invalid(
                    "rate_limit.per_second and rate_limit.burst must be >= 1".into(),
                ));
            }
        }
        let now = crate::credential::now_ms();
        // Ids and secrets are random: a collision means drawing again.
        loop {
            let secret = secret::new_secret();
            let record = TokenRecord {
                id: secret::new_id(),
                hint: secret::hint(&secret),
                account: new.account.clone(),
                balance: new.balance,
                expires_at: new.expires_at,
                rate_limit: new.rate_limit,
                revoked: false,
                banned: false,
                created_at: now,
                last_used_at: None,
                usage: Vec::new(),
                uncharged: 0,
                pending_key: None,
                lease_tat: 0,
            };
            if self.ledger.insert(&TokenHash::of(&secret), &record).await? {
                tracing::info!(id = %record.id, account = %record.account, "verifier: token created");
                return Ok(CreatedToken {
                    id: record.id,
                    token: secret,
                    account: record.account,
                    balance: record.balance,
                    expires_at: record.expires_at,
                    rate_limit: record.rate_limit,
                });
            }
        }
    }

    /// Every token, oldest first.
    pub async fn list_tokens(&self) -> Result<Vec<TokenRecord>, AdminError> {
        Ok(self.ledger.list().await?)
    }

    /// One page of the tokens `query` matches now, and how many match in
    /// all.
    pub async fn search_tokens(
        &self,
        query: &TokenQuery,
    ) -> Result<(Vec<TokenRecord>, u64), AdminError> {
        let now = crate::credential::now_ms();
        Ok(self.ledger.search(query, now).await?)
    }

    /// Usage over time of a token or an account: the ledger's sums of the
    /// buckets with usage.
    pub async fn usage(&self, query: &UsageQuery) -> Result<Vec<Totals>, AdminError> {
        if let Subject::Token(id) = &query.subject {
            issued_id(id)?;
        }
        match self.ledger.usage(query).await? {
            Some(totals) => Ok(totals),
            // Only a token can be unknown: an account's series is empty.
            None => Err(AdminError::NotFound(match &query.subject {
                Subject::Token(name) | Subject::Account(name) => name.clone(),
            })),
        }
    }

    /// Uncharged renders for `/metrics`: the [`UNCHARGED_SERIES`] tokens
    /// with the most (by id), and the total over every token.
    pub async fn uncharged(&self) -> Result<(Vec<(String, u64)>, u64), AdminError> {
        Ok(self.ledger.uncharged(UNCHARGED_SERIES).await?)
    }

    /// The banned accounts, by name.
    pub async fn banned_accounts(&self) -> Result<Vec<BannedAccount>, AdminError> {
        Ok(self.ledger.banned().await?)
    }

    /// The token `id` with its recent deductions.
    pub async fn token(&self, id: &str) -> Result<TokenRecord, AdminError> {
        issued_id(id)?;
        self.ledger
            .get(id)
            .await?
            .ok_or_else(|| AdminError::NotFound(id.to_string()))
    }

    async fn change(&self, id: &str, change: Change<'_>) -> Result<TokenRecord, AdminError> {
        issued_id(id)?;
        self.ledger.update(id, change).await.map_err(|e| match e {
            UpdateError::NotFound => AdminError::NotFound(id.to_string()),
            e => e.into(),
        })
    }

    pub async fn top_up(&self, id: &str, amount: u64) -> Result<TokenRecord, AdminError> {
        if amount == 0 {
            return Err(AdminError::Invalid("amount must be >= 1".into()));
        }
        tracing::info!(%id, amount, "verifier: top-up");
        self.change(id, &|r| {
            r.balance = r
                .balance
                .checked_add(amount)
                .filter(|b| *b <= MAX_BALANCE)
                .ok_or_else(|| format!("the balance would overflow (at most {MAX_BALANCE})"))?;
            Ok(())
        })
        .await
    }

    pub async fn set_expiry(
        &self,
        id: &str,
        expires_at: Option<i64>,
    ) -> Result<TokenRecord, AdminError> {
        tracing::info!(%id, ?expires_at, "verifier: expiry set");
        self.change(id, &|r| {
            r.expires_at = expires_at;
            Ok(())
        })
        .await
    }

    /// Revocation is final: a revoked token stays invalid.
    pub async fn revoke(&self, id: &str) -> Result<TokenRecord, AdminError> {
        tracing::info!(%id, "verifier: token revoked");
        self.change(id, &|r| {
            r.revoked = true;
            Ok(())
        })
        .await
    }

    /// Bans (or unbans) an account and so all of its tokens. An account
    /// without tokens can be banned ahead of time.
    pub async fn set_banned(&self, account: &str, banned: bool) -> Result<(), AdminError> {
        valid_account(account)?;
        self.ledger
            .set_banned(account, banned, crate::credential::now_ms())
            .await?;
        tracing::info!(%account, banned, "verifier: account ban changed");
        Ok(())
    }
}
