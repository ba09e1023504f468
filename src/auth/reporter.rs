//! The background usage reporter: drains the [`outbox`](super::outbox) into
//! the verifier, one `count=N` call per token with the batch's
//! `Idempotency-Key`. On a verifier outage it keeps the batches and retries
//! with exponential backoff (250 ms doubling to 5 s), reusing each batch's
//! key, so a call that did reach the verifier before the failure is not
//! deducted twice.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::Auth;
use crate::verify::{Rejection, Verdict, VerifyCall};

/// How often the outbox is looked at when all is well.
const INTERVAL: Duration = Duration::from_millis(250);
const BACKOFF_MIN: Duration = Duration::from_millis(250);
const BACKOFF_MAX: Duration = Duration::from_secs(5);

/// Why a reporting pass stopped early.
#[derive(Debug)]
pub enum ReportError {
    VerifierUnavailable,
    Storage(sled::Error),
}

impl Auth {
    /// Sends every token's outstanding batch once.
    pub async fn report_once(&self) -> Result<(), ReportError> {
        for hash in self.outbox.tokens() {
            let batch = match self.outbox.next_batch(&hash).await {
                Ok(Some(batch)) => batch,
                Ok(None) => continue,
                Err(e) => return Err(ReportError::Storage(e)),
            };
            let Some(key) = batch.key.clone() else {
                continue;
            };
            let call = VerifyCall {
                token: batch.token.clone(),
                count: batch.count,
                dry_run: false,
                idempotency_key: Some(key.clone()),
            };
            match self.verify(call).await {
                Ok(Verdict::Granted(_)) => {
                    tracing::debug!(token = %hash.prefix(), count = batch.count, "usage reported");
                }
                Ok(Verdict::Rejected(Rejection::QuotaExceeded)) if batch.count > 1 => {
                    // More usage than balance (another node, or the balance
                    // spent directly): charge what the balance still covers.
                    if let Some(left) = self.balance_left(&batch.token).await {
                        tracing::warn!(
                            token = %hash.prefix(),
                            count = batch.count,
                            charged = left,
                            "usage beyond the balance; charging what is left, token blacklisted"
                        );
                        self.blacklist(&hash, Rejection::QuotaExceeded)
                            .map_err(ReportError::Storage)?;
                        self.outbox
                            .shrink(&hash, &key, left)
                            .await
                            .map_err(ReportError::Storage)?;
                        continue;
                    }
                    tracing::warn!(
                        token = %hash.prefix(),
                        count = batch.count,
                        "usage refused by the verifier (quota exceeded); token blacklisted"
                    );
                    self.blacklist(&hash, Rejection::QuotaExceeded)
                        .map_err(ReportError::Storage)?;
                }
                Ok(Verdict::Rejected(rejection)) => {
                    // The verifier will never take this batch (revoked, banned,
                    // expired, or more usage than balance): stop the token at once.
                    tracing::warn!(
                        token = %hash.prefix(),
                        count = batch.count,
                        error = rejection.error(),
                        "usage refused by the verifier; token blacklisted"
                    );
                    if rejection.status() == 403 {
                        self.blacklist(&hash, rejection)
                            .map_err(ReportError::Storage)?;
                    }
                }
                Err(_) => return Err(ReportError::VerifierUnavailable),
            }
            self.outbox
                .complete(&hash, &key)
                .await
                .map_err(ReportError::Storage)?;
        }
        Ok(())
    }
}

impl Auth {
    /// The token's balance when it is positive (a dry run), else `None`.
    async fn balance_left(&self, token: &str) -> Option<u64> {
        match self.verify(VerifyCall::dry_run(token)).await {
            Ok(Verdict::Granted(granted)) if granted.balance > 0 => Some(granted.balance),
            _ => None,
        }
    }
}

/// Runs until `stop` turns true, then makes one last pass.
pub async fn run(auth: Arc<Auth>, mut stop: watch::Receiver<bool>) {
    let mut backoff = BACKOFF_MIN;
    let mut housekeeping = tokio::time::interval(Duration::from_secs(60));
    loop {
        let delay = match auth.report_once().await {
            Ok(()) => {
                backoff = BACKOFF_MIN;
                INTERVAL
            }
            Err(e) => {
                tracing::warn!(
                    ?e,
                    retry_in_ms = backoff.as_millis() as u64,
                    "usage report failed"
                );
                let delay = backoff;
                backoff = (backoff * 2).min(BACKOFF_MAX);
                delay
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = housekeeping.tick() => auth.housekeeping(),
            _ = stop.changed() => break,
        }
    }
}

/// The last attempt at shutdown, bounded so a dead verifier cannot hold the
/// process; what is not delivered stays in the outbox for the next start.
pub async fn final_report(auth: &Auth, limit: Duration) {
    match tokio::time::timeout(limit, auth.report_once()).await {
        Ok(Ok(())) => tracing::info!("usage outbox drained"),
        Ok(Err(e)) => tracing::warn!(
            ?e,
            depth = auth.outbox_depth(),
            "usage kept for the next start"
        ),
        Err(_) => tracing::warn!(
            depth = auth.outbox_depth(),
            "final usage report timed out; kept for the next start"
        ),
    }
    auth.flush().await;
}
