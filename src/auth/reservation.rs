//! A request's claim on one unit of its token's balance, from admission
//! ([`Auth::admit`]) to the end of the request.
//!
//! Invariant: a reservation ends exactly once, charged or given back. The
//! request keeps the [`Reservation`]; dropping it gives the unit back unless
//! a [`Charger`] charged it first. So every way a request can end without a
//! delivered document (an error answer, a job the pool refused or withdrew,
//! a deadline, a client that hung up and had its handler dropped) returns
//! the unit, and no handler has to remember to.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use super::{Auth, Grant};
use crate::api_error::ApiError;

const HELD: u8 = 0;
const CHARGED: u8 = 1;
const GIVEN_BACK: u8 = 2;

struct Held {
    auth: Arc<Auth>,
    grant: Grant,
    state: AtomicU8,
}

impl Held {
    /// Moves the reservation from held to `to`; false when it had already
    /// ended.
    fn settle(&self, to: u8) -> bool {
        self.state
            .compare_exchange(HELD, to, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// One unit reserved for a request (nothing for the system token, which is
/// neither verified nor charged). Given back when dropped uncharged.
pub struct Reservation(Arc<Held>);

/// The right to charge a [`Reservation`], for the render thread that
/// produces the document. It does not keep the reservation alive: once the
/// request has dropped its reservation there is nothing left to charge.
pub struct Charger(Arc<Held>);

impl Reservation {
    pub(super) fn new(auth: Arc<Auth>, grant: Grant) -> Reservation {
        Reservation(Arc::new(Held {
            auth,
            grant,
            state: AtomicU8::new(HELD),
        }))
    }

    /// What the request log shows instead of the token.
    pub fn log_tag(&self) -> String {
        self.0.grant.log_tag()
    }

    /// Whose stored templates the request sees.
    pub fn owner(&self) -> &super::Owner {
        self.0.grant.owner()
    }

    /// One more unit on the same token, for the same request (a batch
    /// reserves one per document): given back when dropped uncharged, like
    /// this one.
    pub async fn another(&self) -> Result<Reservation, ApiError> {
        let held = &self.0;
        let grant = held.auth.reserve_again(&held.grant).await?;
        Ok(Reservation::new(held.auth.clone(), grant))
    }

    pub fn charger(&self) -> Charger {
        Charger(self.0.clone())
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if self.0.settle(GIVEN_BACK) {
            self.0.auth.refund(&self.0.grant);
        }
    }
}

impl Charger {
    /// Charges the unit, then calls `then` once the charge is on disk (at
    /// once for the system token). A charge that cannot be recorded gives
    /// the unit back and passes the error on; a reservation the request
    /// already gave back is not charged (nobody receives the document).
    /// `then` runs on the outbox's flusher thread: it should only hand a
    /// result on.
    pub fn charge_then(self, then: impl FnOnce(Result<(), ApiError>) + Send + 'static) {
        let held = self.0;
        if !held.settle(CHARGED) {
            return then(Err(ApiError::Internal(
                "the request ended before its document was charged".into(),
            )));
        }
        let refund = held.clone();
        held.auth.charge_then(&held.grant, move |charged| {
            if charged.is_err() {
                refund.auth.refund(&refund.grant);
            }
            then(charged)
        });
    }
}

impl Charger {
    /// Charges every charger's unit, then calls `then` once all are on
    /// disk (at once when there are none), with the first error if any
    /// could not be recorded (each such unit is given back).
    pub fn charge_all(
        chargers: impl IntoIterator<Item = Charger>,
        then: impl FnOnce(Result<(), ApiError>) + Send + 'static,
    ) {
        let chargers: Vec<Charger> = chargers.into_iter().collect();
        if chargers.is_empty() {
            return then(Ok(()));
        }
        struct Waiting<F> {
            left: usize,
            result: Result<(), ApiError>,
            then: Option<F>,
        }
        let waiting = Arc::new(std::sync::Mutex::new(Waiting {
            left: chargers.len(),
            result: Ok(()),
            then: Some(then),
        }));
        for charger in chargers {
            let waiting = waiting.clone();
            charger.charge_then(move |charged| {
                let mut w = waiting.lock().unwrap_or_else(|e| e.into_inner());
                if let (Err(e), Ok(())) = (charged, &w.result) {
                    w.result = Err(e);
                }
                w.left -= 1;
                if w.left == 0 {
                    let result = std::mem::replace(&mut w.result, Ok(()));
                    let then = w.then.take();
                    drop(w);
                    if let Some(then) = then {
                        then(result);
                    }
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};

    use axum::http::HeaderMap;

    use super::*;
    use crate::group_commit::Backlog;
    use crate::metrics::Metrics;
    use crate::verify::protocol::VerifyFuture;
    use crate::verify::{Granted, Verdict, Verifier, VerifyCall};
    use labelpress_document::config::Limits;

    /// A verifier that knows one token with a balance of one unit.
    struct OneUnit;

    impl Verifier for OneUnit {
        fn verify(&self, _: VerifyCall) -> VerifyFuture<'_> {
            Box::pin(async {
                Ok(Verdict::Granted(Granted {
                    status: "ok".into(),
                    balance: 1,
                    expires_at: None,
                    remaining: "unlimited".into(),
                    rate_limit: None,
                    uncharged: None,
                    account: Some("acme".into()),
                    leased: None,
                    retry_after_ms: None,
                    returned: None,
                }))
            })
        }
    }

    fn auth(dir: &std::path::Path) -> Arc<Auth> {
        Auth::open(
            dir,
            Arc::new(OneUnit),
            Some("system".into()),
            &Limits::default(),
            Arc::new(Backlog::default()),
            Arc::new(Metrics::default()),
            false,
        )
        .unwrap()
    }

    fn bearer(token: &str) -> HeaderMap {
        crate::credential::authorization(&format!("Bearer {token}"))
    }

    const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    #[tokio::test]
    async fn a_dropped_reservation_gives_its_unit_back() {
        let dir = tempfile::tempdir().unwrap();
        let auth = auth(dir.path());
        let first = auth.admit(&bearer("lp_one"), CLIENT).await.unwrap();
        // The only unit is held: a second request is refused meanwhile.
        assert!(auth.admit(&bearer("lp_one"), CLIENT).await.is_err());
        drop(first);
        let again = auth.admit(&bearer("lp_one"), CLIENT).await;
        assert!(again.is_ok(), "the unit came back: {:?}", again.err());
    }

    #[tokio::test]
    async fn a_charged_reservation_keeps_its_unit_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let auth = auth(dir.path());
        let reservation = auth.admit(&bearer("lp_one"), CLIENT).await.unwrap();
        let (sent, charged) = tokio::sync::oneshot::channel();
        reservation.charger().charge_then(move |result| {
            let _ = sent.send(result);
        });
        charged.await.unwrap().unwrap();
        drop(reservation);
        // Charged, not given back: the node counts the unit as used.
        assert!(auth.admit(&bearer("lp_one"), CLIENT).await.is_err());
    }

    #[tokio::test]
    async fn a_reservation_given_back_cannot_be_charged() {
        let dir = tempfile::tempdir().unwrap();
        let auth = auth(dir.path());
        let reservation = auth.admit(&bearer("lp_one"), CLIENT).await.unwrap();
        let charger = reservation.charger();
        drop(reservation);
        let (sent, charged) = tokio::sync::oneshot::channel();
        charger.charge_then(move |result| {
            let _ = sent.send(result);
        });
        assert!(charged.await.unwrap().is_err());
        assert!(auth.admit(&bearer("lp_one"), CLIENT).await.is_ok());
    }

    #[tokio::test]
    async fn the_system_token_is_admitted_and_charged_for_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let auth = auth(dir.path());
        let reservation = auth.admit(&bearer("system"), CLIENT).await.unwrap();
        assert_eq!(reservation.log_tag(), "system");
        let (sent, charged) = tokio::sync::oneshot::channel();
        reservation.charger().charge_then(move |result| {
            let _ = sent.send(result);
        });
        charged.await.unwrap().unwrap();
        assert_eq!(auth.outbox_depth(), 0);
    }
}
