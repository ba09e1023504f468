//! Token administration (docs/admin-api.md): the operations behind
//! `/admin/api`, their request and answer bodies and their errors.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::history::{Subject, UsageQuery, UsageSeries};
use super::ledger::{Change, Ledger, StoreError, UpdateError};
use super::protocol::RateLimit;
use super::record::{BannedAccount, TokenRecord, Usage};
use super::rules;
use super::search::{TokenPage, TokenQuery};
use super::secret;
use super::service::VerifyService;
use crate::credential::TokenHash;

/// Longest account name.
pub const MAX_ACCOUNT_LEN: usize = 128;

/// Most tokens `/metrics` shows uncharged renders for, one series each
/// (those with the most): a scrape stays bounded however many tokens have
/// some; the total covers them all.
pub const UNCHARGED_SERIES: usize = 100;

/// Largest balance a token may hold (2^63 - 1): what PostgreSQL's `bigint`
/// holds, the same limit on either ledger.
pub const MAX_BALANCE: u64 = i64::MAX as u64;

/// Errors of the admin API; the body is `{error, message}` like the
/// verifier's own.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("Authorization: Bearer <admin token> is required")]
    MissingAdminToken,
    #[error("the admin token is wrong")]
    WrongAdminToken,
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Invalid(String),
    #[error("no token with id {0:?}")]
    NotFound(String),
    /// A body that is not declared as JSON: 415, as on the render route.
    #[error("Content-Type must be application/json, not {0}")]
    UnsupportedMediaType(String),
    /// Too many failed authentications from the client's address.
    #[error("too many failed authentications from this address; retry after {0} s")]
    RateLimited(u64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl AdminError {
    fn status(&self) -> StatusCode {
        match self {
            AdminError::MissingAdminToken => StatusCode::UNAUTHORIZED,
            AdminError::WrongAdminToken => StatusCode::FORBIDDEN,
            AdminError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AdminError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            AdminError::NotFound(_) => StatusCode::NOT_FOUND,
            AdminError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AdminError::RateLimited(_) => StatusCode::TOO_MANY_REQUESTS,
            AdminError::Store(e) if e.is_unavailable() => StatusCode::SERVICE_UNAVAILABLE,
            AdminError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for AdminError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = if status.is_server_error() {
            tracing::error!(error = %self, "verifier admin API");
            if status == StatusCode::SERVICE_UNAVAILABLE {
                "the ledger is unavailable; retry".to_string()
            } else {
                "the token store failed; retry".to_string()
            }
        } else {
            self.to_string()
        };
        let error = status.canonical_reason().unwrap_or("Error").to_string();
        let mut response = super::http::error_response(status, error, message);
        if let AdminError::RateLimited(seconds) = self {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(seconds),
            );
        }
        response
    }
}

/// An id this verifier could have issued (`tok_` + 12 base62), else 404
/// before any store sees it: an id with a NUL, which PostgreSQL cannot
/// even compare, was a 500.
fn issued_id(id: &str) -> Result<(), AdminError> {
    if super::secret::well_formed_id(id) {
        Ok(())
    } else {
        Err(AdminError::NotFound(id.to_string()))
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

/// A token as lists show it (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct TokenView {
    pub id: String,
    pub hint: String,
    pub account: String,
    pub balance: u64,
    pub expires_at: Option<i64>,
    /// `active`, `expired`, `exhausted`, `revoked` or `banned`.
    pub status: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimit>,
    /// Renders delivered on this token that the verifier refused to charge
    /// when a render node reported them (revoked, banned, expired or over
    /// the balance meanwhile). Never deducted; 0 for most tokens.
    #[serde(default)]
    pub uncharged: u64,
}

/// `GET /admin/api/tokens/{id}`: the token and its recent deductions.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct TokenDetail {
    #[serde(flatten)]
    pub token: TokenView,
    /// Newest first.
    pub usage: Vec<Usage>,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TopUp {
    pub amount: u64,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expiry {
    pub expires_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
pub struct AccountView {
    pub account: String,
    pub banned: bool,
}

fn view(record: &TokenRecord, now: i64) -> TokenView {
    TokenView {
        id: record.id.clone(),
        hint: record.hint.clone(),
        account: record.account.clone(),
        balance: record.balance,
        expires_at: record.expires_at,
        status: rules::status(record, now).to_string(),
        created_at: record.created_at,
        last_used_at: record.last_used_at,
        rate_limit: record.rate_limit,
        uncharged: record.uncharged,
    }
}

pub(super) fn valid_account(account: &str) -> Result<(), AdminError> {
    if account.trim().is_empty() || account.len() > MAX_ACCOUNT_LEN {
        return Err(AdminError::Invalid(format!(
            "account must be 1 to {MAX_ACCOUNT_LEN} bytes"
        )));
    }
    if account.chars().any(char::is_control) {
        return Err(AdminError::Invalid(
            "account must not contain control characters".into(),
        ));
    }
    Ok(())
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

    pub async fn list_tokens(&self) -> Result<Vec<TokenView>, AdminError> {
        let now = crate::credential::now_ms();
        Ok(self
            .ledger
            .list()
            .await?
            .iter()
            .map(|r| view(r, now))
            .collect())
    }

    /// One page of the tokens `query` matches.
    pub async fn search_tokens(&self, query: &TokenQuery) -> Result<TokenPage, AdminError> {
        let now = crate::credential::now_ms();
        let (records, total) = self.ledger.search(query, now).await?;
        Ok(TokenPage {
            next: query.next(records.len(), total),
            items: records.iter().map(|r| view(r, now)).collect(),
            total,
        })
    }

    /// Usage over time of a token or an account.
    pub async fn usage(&self, query: &UsageQuery) -> Result<UsageSeries, AdminError> {
        if let Subject::Token(id) = &query.subject {
            issued_id(id)?;
        }
        match self.ledger.usage(query).await? {
            Some(totals) => Ok(query.series(&totals)),
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

    pub async fn token(&self, id: &str) -> Result<TokenDetail, AdminError> {
        issued_id(id)?;
        let record = self
            .ledger
            .get(id)
            .await?
            .ok_or_else(|| AdminError::NotFound(id.to_string()))?;
        Ok(TokenDetail {
            token: view(&record, crate::credential::now_ms()),
            usage: record.recent_usage(),
        })
    }

    async fn change(&self, id: &str, change: Change<'_>) -> Result<TokenView, AdminError> {
        issued_id(id)?;
        let record = self.ledger.update(id, change).await.map_err(|e| match e {
            UpdateError::NotFound => AdminError::NotFound(id.to_string()),
            e => e.into(),
        })?;
        Ok(view(&record, crate::credential::now_ms()))
    }

    pub async fn top_up(&self, id: &str, amount: u64) -> Result<TokenView, AdminError> {
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
    ) -> Result<TokenView, AdminError> {
        tracing::info!(%id, ?expires_at, "verifier: expiry set");
        self.change(id, &|r| {
            r.expires_at = expires_at;
            Ok(())
        })
        .await
    }

    /// Revocation is final: a revoked token stays invalid.
    pub async fn revoke(&self, id: &str) -> Result<TokenView, AdminError> {
        tracing::info!(%id, "verifier: token revoked");
        self.change(id, &|r| {
            r.revoked = true;
            Ok(())
        })
        .await
    }

    /// Bans (or unbans) an account and so all of its tokens. An account
    /// without tokens can be banned ahead of time.
    pub async fn set_banned(&self, account: &str, banned: bool) -> Result<AccountView, AdminError> {
        valid_account(account)?;
        self.ledger
            .set_banned(account, banned, crate::credential::now_ms())
            .await?;
        tracing::info!(%account, banned, "verifier: account ban changed");
        Ok(AccountView {
            account: account.to_string(),
            banned,
        })
    }
}
