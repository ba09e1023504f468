//! [`VerifyService`]: the verification service as one value the HTTP
//! handlers and the in-process [`Verifier`] share, so both take the same
//! code path.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::any_ledger::AnyLedger;
use super::embedded::Embedded;
use super::ledger::{Deduction, Ledger, Outcome, StoreError};
use super::postgres::{PgLedger, PgOptions};
use super::protocol::{
    Purpose, Rejection, Unavailable, Verdict, Verifier, VerifyCall, VerifyFuture,
};
use super::secret;
use crate::credential::TokenHash;

/// Longest accepted `Idempotency-Key`.
pub const MAX_IDEMPOTENCY_KEY: usize = 255;

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: the admin token file is empty", .0.display())]
    EmptyAdminTokenFile(PathBuf),
    #[error("the admin token must not be empty")]
    EmptyAdminToken,
    #[error("--database-url needs --admin-token (or LABELPRESS_ADMIN_TOKEN): every verifier node on the ledger must share it")]
    SharedLedgerNeedsAdminToken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl VerifyError {
    /// Whether the ledger cannot be reached now (503), not broken (500).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, VerifyError::Store(e) if e.is_unavailable())
    }
}

/// How the service runs; [`Default`] is what `labelpress serve` uses.
#[derive(Debug, Clone, Copy)]
pub struct VerifyOptions {
    /// Answer a deduction only once it is on disk (group commit). Off only
    /// for benchmark baselines: sled then syncs every 500 ms by itself.
    pub durable: bool,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions { durable: true }
    }
}

pub struct VerifyService {
    pub(crate) ledger: AnyLedger,
    admin_token: String,
    admin_digest: [u8; 32],
}

impl VerifyService {
    /// Opens the store in `<data_dir>/verifier/`. Without `admin_token`, the
    /// one in `<data_dir>/admin-token` is used, generated (mode 0600) on the
    /// first start.
    pub fn open(
        data_dir: &Path,
        admin_token: Option<String>,
    ) -> Result<Arc<VerifyService>, VerifyError> {
        VerifyService::open_with(data_dir, admin_token, VerifyOptions::default())
    }

    pub fn open_with(
        data_dir: &Path,
        admin_token: Option<String>,
        options: VerifyOptions,
    ) -> Result<Arc<VerifyService>, VerifyError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| VerifyError::Io { path, source }
        };
        std::fs::create_dir_all(data_dir).map_err(io(data_dir))?;
        let admin_token = match admin_token {
            Some(t) if t.trim().is_empty() => return Err(VerifyError::EmptyAdminToken),
            Some(t) => t.trim().to_string(),
            None => admin_token_file(&data_dir.join("admin-token"))?,
        };
        let ledger = Embedded::open(&data_dir.join("verifier"), options.durable)?;
        Ok(VerifyService::with(
            AnyLedger::Embedded(ledger),
            admin_token,
        ))
    }

    /// The service on the PostgreSQL ledger at `database_url` (schema
    /// migrated first). Every node on one ledger must be given the same
    /// admin token, so it cannot be generated per node.
    pub async fn connect(
        database_url: &str,
        admin_token: Option<String>,
        options: PgOptions,
    ) -> Result<Arc<VerifyService>, VerifyError> {
        let admin_token = match admin_token {
            Some(t) if t.trim().is_empty() => return Err(VerifyError::EmptyAdminToken),
            Some(t) => t.trim().to_string(),
            None => return Err(VerifyError::SharedLedgerNeedsAdminToken),
        };
        let ledger = PgLedger::connect(database_url, options).await?;
        Ok(VerifyService::with(
            AnyLedger::Postgres(ledger),
            admin_token,
        ))
    }

    fn with(ledger: AnyLedger, admin_token: String) -> Arc<VerifyService> {
        Arc::new(VerifyService {
            ledger,
            admin_digest: Sha256::digest(admin_token.as_bytes()).into(),
            admin_token,
        })
    }

    /// The token that guards `/admin` and `/admin/api`.
    pub fn admin_token(&self) -> &str {
        &self.admin_token
    }

    /// Whether `presented` is the admin token; compares digests in constant
    /// time, so neither content nor length leaks through timing.
    pub fn is_admin(&self, presented: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        digest.ct_eq(&self.admin_digest).into()
    }

    /// Waits until every write so far is on disk (graceful shutdown).
    pub async fn flush(&self) {
        if let Err(e) = self.ledger.flush().await {
            tracing::error!(error = %e, "verifier: final flush failed");
        }
    }

    /// The embedded ledger's flushes that reached the disk (`None` on
    /// PostgreSQL).
    pub fn syncs(&self) -> Option<u64> {
        self.ledger.syncs()
    }

    /// One verification: the code path of `POST /v1/verify` and of the
    /// in-process [`Verifier`]. A 200 is durable before this returns it.
    /// `call.count == 0` stands for a bad body (400 after the token checks).
    pub async fn check(&self, call: &VerifyCall) -> Result<Verdict, VerifyError> {
        // The call's own form first (docs/admin-api.md, order of checks):
        // a bad key is 400 whatever the token. Recording uncharged renders
        // writes; a dry run never does.
        if let Some(key) = &call.idempotency_key {
            if !valid_idempotency_key(key) {
                return Ok(Verdict::Rejected(Rejection::BadRequest));
            }
        }
        if call.uncharged && call.dry_run {
            return Ok(Verdict::Rejected(Rejection::BadRequest));
        }
        if call.purpose != Purpose::Charge
            && (call.dry_run || call.uncharged || call.idempotency_key.is_none())
        {
            return Ok(Verdict::Rejected(Rejection::BadRequest));
        }
        if !secret::well_formed(&call.token) {
            return Ok(Verdict::Rejected(Rejection::InvalidToken));
        }
        let hash = TokenHash::of(&call.token);
        let deduction = Deduction {
            hash: &hash,
            count: call.count,
            dry_run: call.dry_run,
            idempotency_key: call.idempotency_key.as_deref(),
            now: crate::credential::now_ms(),
            uncharged: call.uncharged,
            purpose: call.purpose,
        };
        let outcome = self.ledger.verify(&deduction).await?;
        tracing::debug!(token = %hash.log_prefix(), count = call.count, dry_run = call.dry_run, uncharged = call.uncharged, purpose = ?call.purpose, ?outcome, "verify");
        if let (true, Outcome::Granted { granted, .. }) = (call.uncharged, &outcome) {
            tracing::warn!(
                token = %hash.log_prefix(),
                count = call.count,
                uncharged = granted.uncharged,
                "verifier: renders delivered but refused at report time recorded as uncharged"
            );
        }
        Ok(match outcome {
            Outcome::Granted { granted, .. } | Outcome::Replayed(granted) => {
                Verdict::Granted(granted)
            }
            Outcome::Rejected(r) => Verdict::Rejected(r),
        })
    }
}

/// Visible ASCII, 1 to 255 characters.
pub fn valid_idempotency_key(key: &str) -> bool {
    (1..=MAX_IDEMPOTENCY_KEY).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_graphic())
}

impl Verifier for VerifyService {
    fn verify(&self, call: VerifyCall) -> VerifyFuture<'_> {
        Box::pin(async move {
            self.check(&call)
                .await
                .map_err(|e| Unavailable(e.to_string()))
        })
    }
}

/// Reads the admin token file, or creates it (mode 0600) with a new token.
fn admin_token_file(path: &Path) -> Result<String, VerifyError> {
    let io = |source| VerifyError::Io {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => {
            Err(VerifyError::EmptyAdminTokenFile(path.to_path_buf()))
        }
        Ok(text) => Ok(text.trim().to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let token = secret::new_admin_token();
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut file = options.open(path).map_err(io)?;
            file.write_all(format!("{token}\n").as_bytes())
                .and_then(|_| file.sync_all())
                .map_err(io)?;
            tracing::info!(path = %path.display(), "verifier: generated an admin token");
            Ok(token)
        }
        Err(e) => Err(io(e)),
    }
}
