//! The background usage reporter: drains the [`outbox`](super::outbox) into
//! the verifier, one `count=N` call per token with the batch's
//! `Idempotency-Key`. On a verifier outage it keeps the batches and retries
//! with exponential backoff (250 ms doubling to 5 s), reusing each batch's
//! key, so a call that did reach the verifier before the failure is not
//! deducted twice.
//!
//! A batch the verifier refuses (revoked, banned, expired, or more than the
//! balance: usage the node delivered while its cache still admitted the
//! token) is never dropped: what the balance does not cover becomes an
//! uncharged record ([`super::outbox::Outbox::refuse`]), sent as
//! `uncharged=true` under the refused batch's key until the verifier has
//! recorded it on the token, and then counted in
//! `labelpress_usage_uncharged_total` (a key the verifier had deducted
//! before answers with that deduction: charged, not counted). One the
//! verifier cannot record (an unknown token) stays on this node, shown by
//! `labelpress_usage_uncharged_unrecorded`, and is not sent again: no
//! answer would ever change.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::outbox::Uncharged;
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
    /// Sends every token's outstanding batch once, then every uncharged
    /// record.
    pub async fn report_once(&self) -> Result<(), ReportError> {
        // Leases that ended go back first: their units are the balance
        // other nodes are waiting for.
        self.return_leases(false)
            .await
            .map_err(|_| ReportError::VerifierUnavailable)?;
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
                uncharged: false,
                purpose: Default::default(),
            };
            let rejection = match self.verify(call).await {
                Ok(Verdict::Granted(_)) => {
                    tracing::debug!(token = %hash.log_prefix(), count = batch.count, "usage reported");
                    self.outbox
                        .complete(&hash, &key)
                        .await
                        .map_err(ReportError::Storage)?;
                    continue;
                }
                Ok(Verdict::Rejected(rejection)) => rejection,
                Err(_) => return Err(ReportError::VerifierUnavailable),
            };
            // More usage than balance (another node, or the balance spent
            // directly): what the balance still covers is charged under a
            // new key, the rest is uncharged. Any other refusal: all of it.
            let charge = match rejection {
                Rejection::QuotaExceeded if batch.count > 1 => {
                    self.balance_left(&batch.token).await?.min(batch.count)
                }
                _ => 0,
            };
            if rejection.status() == 403 && charge < batch.count {
                // The verifier will not take this token's usage now: stop it at once.
                self.blacklist(&hash, rejection)
                    .map_err(ReportError::Storage)?;
            }
            let uncharged = self
                .outbox
                .refuse(&hash, &key, charge)
                .await
                .map_err(ReportError::Storage)?;
            if let Some(uncharged) = uncharged.filter(|n| *n > 0) {
                tracing::warn!(
                    token = %hash.log_prefix(),
                    count = batch.count,
                    charged = charge,
                    uncharged,
                    error = rejection.error(),
                    "usage refused by the verifier; kept as uncharged renders, token blacklisted"
                );
            }
        }
        self.report_uncharged().await
    }

    /// Sends each uncharged record as `uncharged=true` with its own key.
    async fn report_uncharged(&self) -> Result<(), ReportError> {
        let records = self.outbox.uncharged().map_err(ReportError::Storage)?;
        for Uncharged { id, hash, batch } in records {
            let call = VerifyCall {
                token: batch.token.clone(),
                count: batch.count,
                dry_run: false,
                idempotency_key: batch.key.clone(),
                uncharged: true,
                purpose: Default::default(),
            };
            match self.verify(call).await {
                Ok(Verdict::Granted(granted)) => {
                    match granted.uncharged {
                        Some(total) => {
                            self.metrics
                                .usage_uncharged
                                .fetch_add(batch.count, Ordering::Relaxed);
                            tracing::info!(
                                token = %hash.log_prefix(),
                                count = batch.count,
                                total,
                                "uncharged renders recorded by the verifier"
                            )
                        }
                        // The verifier answered with a deduction: the key
                        // was charged before its answer was lost (then the
                        // token was revoked, which refuses replays), or a
                        // verifier without the extension took the call as
                        // one. Either way these renders are charged.
                        None => tracing::warn!(
                            token = %hash.log_prefix(),
                            count = batch.count,
                            "these renders were charged after all (their key was deducted before, \
                             or the verifier does not know uncharged=true)"
                        ),
                    }
                    self.outbox
                        .uncharged_recorded(&id)
                        .await
                        .map_err(ReportError::Storage)?;
                }
                Ok(Verdict::Rejected(rejection)) => {
                    // Only a token the verifier does not know is refused
                    // (or a verifier-side bug): no retry can change that.
                    tracing::warn!(
                        token = %hash.log_prefix(),
                        count = batch.count,
                        error = rejection.error(),
                        "the verifier cannot record these uncharged renders; kept on this node \
                         (labelpress_usage_uncharged_unrecorded)"
                    );
                    self.metrics
                        .usage_uncharged
                        .fetch_add(batch.count, Ordering::Relaxed);
                    self.outbox
                        .uncharged_unrecorded(&id)
                        .await
                        .map_err(ReportError::Storage)?;
                }
                Err(_) => return Err(ReportError::VerifierUnavailable),
            }
        }
        Ok(())
    }

    /// The token's balance (a dry run): 0 when the verifier refuses it.
    async fn balance_left(&self, token: &str) -> Result<u64, ReportError> {
        match self.verify(VerifyCall::dry_run(token)).await {
            Ok(Verdict::Granted(granted)) => Ok(granted.balance),
            Ok(Verdict::Rejected(_)) => Ok(0),
            Err(_) => Err(ReportError::VerifierUnavailable),
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
    let last = async {
        // Every lease goes back: the requests that held units are done.
        auth.return_leases(true)
            .await
            .map_err(|_| ReportError::VerifierUnavailable)?;
        auth.report_once().await
    };
    match tokio::time::timeout(limit, last).await {
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
