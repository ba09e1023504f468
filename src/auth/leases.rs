//! Quota leases: how a render node of a fleet spends a token's balance
//! (docs/leases.md). The node takes a block of units from the verifier as
//! one real, idempotent deduction (`POST /v1/leases`), spends it
//! on its own, and gives back what it did not use once the token is idle
//! (`POST /v1/leases/return`). Every PDF is paid for before it is rendered, so no
//! number of nodes delivers more than the balance, and the node keeps
//! nothing on disk: the book here is memory only.
//!
//! A lease call is also the token's verdict: units are lent only while the
//! last lease call is younger than the lease lifetime. After that the next
//! request asks the verifier again (a revoked, banned or expired token is
//! refused then), for as many more units as the token's recent pace needs;
//! units still unspent stay in the book, paid for.
//!
//! Invariants, each kept under the book's one lock:
//! - a unit is held by at most one request: `spent + held <= units`;
//! - units are lent only under a fresh verdict;
//! - a lease is given back once, when the token has been idle past its
//!   verdict (or was refused, or the node stops) and no request holds one
//!   of its units (`returning` then freezes it): the units it gives back
//!   were neither delivered nor can be.
//!
//! A node that dies loses at most the unused part of its leases: the
//! verifier charged them and nobody gives them back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::credential::{Owner, TokenHash};
use crate::verify::{Granted, RateLimit};

/// Units the first lease of a token asks for. The verifier grants at most
/// a quarter of the balance, so a large first ask costs a small balance
/// nothing; later leases are sized by the token's pace ([`next_want`]).
const FIRST_WANT: u64 = 64;

/// The leases of a node, by token.
pub struct Leases {
    books: Mutex<HashMap<TokenHash, Book>>,
    lifetime: Duration,
    max_units: u64,
    next_serial: AtomicU64,
}

/// One token's leases on this node.
struct Book {
    /// The secret, to give leases back (memory only, never logged).
    token: String,
    owner: Owner,
    rate_limit: Option<RateLimit>,
    /// Prepaid units, oldest lease first.
    leases: Vec<Lease>,
    /// Until when the last lease call's verdict lets units be lent;
    /// `None` after a refusal.
    fresh_until: Option<Instant>,
    /// Units delivered since the last lease call, and when it was made:
    /// the pace the next lease is sized by.
    spent_since: u64,
    since: Instant,
    /// A lease asked for that got no answer (the verifier unreachable):
    /// asked again under the same key, so a lease granted whose answer was
    /// lost is found again rather than paid twice.
    unanswered: Option<(String, u64)>,
    /// The token's rate limit allows no lease before this.
    wait_until: Option<Instant>,
}

struct Lease {
    serial: u64,
    key: String,
    units: u64,
    spent: u64,
    held: u64,
    /// Its return is under way: it lends nothing and its counts are final.
    returning: bool,
}

impl Lease {
    fn free(&self) -> u64 {
        self.units - self.spent - self.held
    }
}

/// A unit held for a request: the lease it came from, and what the last
/// lease call said of the token.
#[derive(Debug, Clone)]
pub struct Held {
    pub lease: u64,
    pub owner: Owner,
    pub rate_limit: Option<RateLimit>,
}

/// What the book can do for a request without the verifier.
pub enum Take {
    Held(Held),
    /// The verdict is stale or no unit is free: ask the verifier.
    Ask,
    /// The token's rate limit allows no lease for this long.
    Wait(Duration),
}

/// A lease to ask the verifier for: its key and size.
pub struct Ask {
    pub key: String,
    pub want: u64,
}

/// A lease due to be given back.
pub struct Due {
    pub hash: TokenHash,
    pub token: String,
    pub key: String,
    pub unused: u64,
    pub serial: u64,
}

impl Leases {
    pub fn new(lifetime: Duration, max_units: u64) -> Leases {
        Leases {
            books: Mutex::default(),
            lifetime,
            max_units: max_units.max(1),
            next_serial: AtomicU64::new(1),
        }
    }

    fn books(&self) -> MutexGuard<'_, HashMap<TokenHash, Book>> {
        // Every change below leaves the counts whole: a poisoned lock's map
        // is still right.
        self.books.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One prepaid unit, if the token's verdict is fresh and one is free.
    pub fn take(&self, hash: &TokenHash, now: Instant) -> Take {
        let mut books = self.books();
        let Some(book) = books.get_mut(hash) else {
            return Take::Ask;
        };
        if let Some(until) = book.wait_until {
            if now < until {
                return Take::Wait(until - now);
            }
            book.wait_until = None;
        }
        if book.fresh_until.is_none_or(|until| now >= until) {
            return Take::Ask;
        }
        book.lend().map_or(Take::Ask, Take::Held)
    }

    /// The key and size of the token's next lease: the unanswered one's
    /// again, or a new one sized by the token's pace.
    pub fn ask(&self, hash: &TokenHash, now: Instant) -> Ask {
        let books = self.books();
        let book = books.get(hash);
        if let Some((key, want)) = book.and_then(|b| b.unanswered.clone()) {
            return Ask { key, want };
        }
        let want = book.map_or(FIRST_WANT, |b| next_want(b, now, self.lifetime));
        Ask {
            key: format!("lease-{}", uuid::Uuid::new_v4()),
            want: want.min(self.max_units),
        }
    }

    /// A fresh verdict without a new lease: an [`Ask`] of 0 units (the
    /// units the node holds cover the token's pace) granted by a dry run,
    /// or a lease refused as over quota while the node still holds units
    /// (the balance is in the fleet's leases: `granted` is `None`, the
    /// token is otherwise in good standing). One of the units held for the
    /// request, or `None` if none is free.
    pub fn renewed(
        &self,
        hash: &TokenHash,
        granted: Option<&Granted>,
        now: Instant,
    ) -> Option<Held> {
        let mut books = self.books();
        let book = books.get_mut(hash)?;
        if book.free() == 0 {
            return None;
        }
        if let Some(granted) = granted {
            book.owner = Owner::of(granted.account.as_deref(), hash);
            book.rate_limit = granted.rate_limit;
        }
        book.fresh_until = Some(now + self.lifetime);
        book.spent_since = 0;
        book.since = now;
        book.lend()
    }

    /// The verifier did not answer `ask`: the next lease asks again with
    /// its key (the verifier may have granted it).
    pub fn unanswered(&self, hash: &TokenHash, token: &str, ask: &Ask) {
        let mut books = self.books();
        let book = books
            .entry(*hash)
            .or_insert_with(|| Book::new(token, Instant::now()));
        book.unanswered = Some((ask.key.clone(), ask.want));
    }

    /// The verifier granted `granted` for `ask`: a fresh verdict and the
    /// units leased, one of them held for the request that asked; or with
    /// no unit leased (the rate limit), how long to wait.
    pub fn granted(
        &self,
        hash: &TokenHash,
        token: &str,
        ask: &Ask,
        granted: &Granted,
        now: Instant,
    ) -> Result<Held, Duration> {
        let mut books = self.books();
        let book = books.entry(*hash).or_insert_with(|| Book::new(token, now));
        book.unanswered = None;
        book.owner = Owner::of(granted.account.as_deref(), hash);
        book.rate_limit = granted.rate_limit;
        book.fresh_until = Some(now + self.lifetime);
        book.spent_since = 0;
        book.since = now;
        // A verifier without the extension deducted `want` and said nothing.
        let units = granted.leased.unwrap_or(ask.want);
        if units > 0 {
            book.leases.push(Lease {
                serial: self.next_serial.fetch_add(1, Ordering::Relaxed),
                key: ask.key.clone(),
                units,
                spent: 0,
                held: 0,
                returning: false,
            });
        }
        match book.lend() {
            Some(held) => Ok(held),
            None => {
                let wait = Duration::from_millis(granted.retry_after_ms.unwrap_or(1000).max(1));
                book.wait_until = Some(now + wait);
                Err(wait)
            }
        }
    }

    /// The verifier refused the token: nothing more is lent, and its
    /// leases go back once their requests are done.
    pub fn refused(&self, hash: &TokenHash) {
        if let Some(book) = self.books().get_mut(hash) {
            book.unanswered = None;
            book.fresh_until = None;
        }
    }

    /// A request's unit ends: delivered (`charged`) or free again.
    pub fn settle(&self, hash: &TokenHash, serial: u64, charged: bool) {
        let mut books = self.books();
        let Some(book) = books.get_mut(hash) else {
            return;
        };
        if let Some(lease) = book.leases.iter_mut().find(|l| l.serial == serial) {
            lease.held -= 1;
            if charged {
                lease.spent += 1;
                book.spent_since += 1;
            }
        }
    }

    /// The leases to give back now, each marked as under way: those of
    /// tokens refused, or idle for half a lifetime past their verdict
    /// (with `all`, every token: the node is stopping), whose units no
    /// request holds. Spent leases are dropped on the way.
    pub fn due(&self, now: Instant, all: bool) -> Vec<Due> {
        let mut books = self.books();
        let mut due = Vec::new();
        let grace = self.lifetime / 2;
        for (hash, book) in books.iter_mut() {
            book.leases.retain(|l| l.free() > 0 || l.held > 0);
            let idle = match book.fresh_until {
                Some(until) => now >= until + grace,
                None => true,
            };
            if !(all || idle) {
                continue;
            }
            for lease in book.leases.iter_mut() {
                if lease.held == 0 && !lease.returning {
                    lease.returning = true;
                    due.push(Due {
                        hash: *hash,
                        token: book.token.clone(),
                        key: lease.key.clone(),
                        unused: lease.free(),
                        serial: lease.serial,
                    });
                }
            }
        }
        // A token with nothing left on this node is forgotten (its secret
        // with it); its next request starts a new book.
        books.retain(|_, b| {
            !b.leases.is_empty()
                || b.unanswered.is_some()
                || b.fresh_until.is_some_and(|until| now < until)
                || b.wait_until.is_some_and(|until| now < until)
        });
        due
    }

    /// A return is over: given back, or refused for good.
    pub fn returned(&self, hash: &TokenHash, serial: u64) {
        if let Some(book) = self.books().get_mut(hash) {
            book.leases.retain(|l| l.serial != serial);
        }
    }

    /// A return the verifier could not take now: due again next time.
    pub fn retry(&self, hash: &TokenHash, serial: u64) {
        if let Some(book) = self.books().get_mut(hash) {
            for lease in book.leases.iter_mut().filter(|l| l.serial == serial) {
                lease.returning = false;
            }
        }
    }

    /// Units leased to this node and not yet given back (for `/metrics`).
    pub fn units_held(&self) -> u64 {
        self.books()
            .values()
            .flat_map(|b| b.leases.iter())
            .map(Lease::free)
            .sum()
    }
}

impl Book {
    fn new(token: &str, now: Instant) -> Book {
        Book {
            token: token.to_string(),
            owner: Owner::system(),
            rate_limit: None,
            leases: Vec::new(),
            fresh_until: None,
            spent_since: 0,
            since: now,
            unanswered: None,
            wait_until: None,
        }
    }

    /// A free unit of the oldest lease that has one, held.
    fn lend(&mut self) -> Option<Held> {
        let lease = self
            .leases
            .iter_mut()
            .find(|l| !l.returning && l.free() > 0)?;
        lease.held += 1;
        Some(Held {
            lease: lease.serial,
            owner: self.owner.clone(),
            rate_limit: self.rate_limit,
        })
    }

    fn free(&self) -> u64 {
        self.leases
            .iter()
            .filter(|l| !l.returning)
            .map(Lease::free)
            .sum()
    }
}

/// The size of the token's next lease: what its pace since the last lease
/// call would spend in a lifetime and a quarter, less the units it still
/// has; 0 when those cover it (the verdict alone is renewed, by a dry run),
/// at least one when none is free.
fn next_want(book: &Book, now: Instant, lifetime: Duration) -> u64 {
    let elapsed = now
        .saturating_duration_since(book.since)
        .max(Duration::from_millis(1));
    let pace = book.spent_since as f64 / elapsed.as_secs_f64();
    let need = (pace * lifetime.as_secs_f64() * 1.25).ceil() as u64;
    let free = book.free();
    if free == 0 {
        need.max(1)
    } else {
        need.saturating_sub(free)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(units: u64) -> Granted {
        Granted {
            status: "ok".into(),
            balance: 100,
            expires_at: None,
            remaining: "unlimited".into(),
            rate_limit: None,
            uncharged: None,
            account: Some("acme".into()),
            leased: Some(units),
            retry_after_ms: None,
            returned: None,
        }
    }

    fn held(take: Take) -> Held {
        match take {
            Take::Held(held) => held,
            _ => panic!("no unit lent"),
        }
    }

    #[test]
    fn a_lease_lends_its_units_once_and_gives_back_what_was_not_delivered() {
        let leases = Leases::new(Duration::from_secs(4), 1000);
        let hash = TokenHash::of("lp_t");
        let t0 = Instant::now();
        assert!(matches!(leases.take(&hash, t0), Take::Ask));
        let ask = leases.ask(&hash, t0);
        assert_eq!(ask.want, FIRST_WANT);
        let first = leases.granted(&hash, "lp_t", &ask, &grant(3), t0).unwrap();
        assert_eq!(first.owner.as_str(), "account:acme");
        let second = held(leases.take(&hash, t0));
        let third = held(leases.take(&hash, t0));
        // Three units, three requests: the fourth must ask.
        assert!(matches!(leases.take(&hash, t0), Take::Ask));
        leases.settle(&hash, first.lease, true);
        leases.settle(&hash, second.lease, false);
        // The unit given back is lent again while the verdict is fresh.
        let fourth = held(leases.take(&hash, t0));
        leases.settle(&hash, fourth.lease, false);
        assert!(leases.due(t0, false).is_empty(), "not idle");
        // Stale: the next request asks; idle past the grace, but a request
        // still holds a unit: not yet.
        let later = t0 + Duration::from_secs(7);
        assert!(matches!(leases.take(&hash, later), Take::Ask));
        assert!(leases.due(later, false).is_empty());
        leases.settle(&hash, third.lease, true);
        let due = leases.due(later, false);
        assert_eq!(due.len(), 1);
        assert_eq!((due[0].unused, due[0].key.as_str()), (1, ask.key.as_str()));
        // Under way: not due twice, and lends nothing.
        assert!(leases.due(later, false).is_empty());
        leases.returned(&hash, due[0].serial);
        assert_eq!(leases.units_held(), 0);
    }

    #[test]
    fn a_lost_answer_is_asked_for_again_under_its_key() {
        let leases = Leases::new(Duration::from_secs(5), 1000);
        let hash = TokenHash::of("lp_t");
        let t0 = Instant::now();
        let ask = leases.ask(&hash, t0);
        leases.unanswered(&hash, "lp_t", &ask);
        let again = leases.ask(&hash, t0);
        assert_eq!((again.key, again.want), (ask.key.clone(), ask.want));
        leases.granted(&hash, "lp_t", &ask, &grant(2), t0).unwrap();
        assert_ne!(leases.ask(&hash, t0).key, ask.key);
    }

    #[test]
    fn no_units_from_the_rate_limit_means_waiting() {
        let leases = Leases::new(Duration::from_secs(5), 1000);
        let hash = TokenHash::of("lp_t");
        let t0 = Instant::now();
        let ask = leases.ask(&hash, t0);
        let none = Granted {
            retry_after_ms: Some(300),
            ..grant(0)
        };
        assert_eq!(
            leases.granted(&hash, "lp_t", &ask, &none, t0).unwrap_err(),
            Duration::from_millis(300)
        );
        assert!(matches!(leases.take(&hash, t0), Take::Wait(_)));
        assert!(matches!(
            leases.take(&hash, t0 + Duration::from_millis(300)),
            Take::Ask
        ));
    }

    #[test]
    fn a_refused_token_lends_nothing_and_gives_its_units_back() {
        let leases = Leases::new(Duration::from_secs(5), 1000);
        let hash = TokenHash::of("lp_t");
        let t0 = Instant::now();
        let ask = leases.ask(&hash, t0);
        let h = leases.granted(&hash, "lp_t", &ask, &grant(10), t0).unwrap();
        leases.settle(&hash, h.lease, true);
        leases.refused(&hash);
        assert!(matches!(leases.take(&hash, t0), Take::Ask));
        let due = leases.due(t0, false);
        assert_eq!(due.iter().map(|d| d.unused).collect::<Vec<_>>(), [9]);
    }

    #[test]
    fn a_lease_is_sized_by_the_pace_since_the_last_one() {
        let leases = Leases::new(Duration::from_secs(4), 1000);
        let hash = TokenHash::of("lp_t");
        let t0 = Instant::now();
        let ask = leases.ask(&hash, t0);
        let first = leases.granted(&hash, "lp_t", &ask, &grant(64), t0).unwrap();
        leases.settle(&hash, first.lease, true);
        for _ in 1..64 {
            let h = held(leases.take(&hash, t0));
            leases.settle(&hash, h.lease, true);
        }
        // 64 in a second: 320 for a lifetime and a quarter.
        let t1 = t0 + Duration::from_secs(1);
        let ask = leases.ask(&hash, t1);
        assert_eq!(ask.want, 320);
        let h = leases
            .granted(&hash, "lp_t", &ask, &grant(320), t1)
            .unwrap();
        leases.settle(&hash, h.lease, true);
        // One in 5 s, 319 still free: no more units, the verdict alone.
        let t2 = t1 + Duration::from_secs(5);
        assert_eq!(leases.ask(&hash, t2).want, 0);
        assert!(matches!(leases.take(&hash, t2), Take::Ask));
        let renewed = leases
            .renewed(&hash, Some(&grant(0)), t2)
            .expect("a unit is free");
        leases.settle(&hash, renewed.lease, true);
        assert_eq!(leases.units_held(), 318);
        // Over quota at the verifier (the balance is in leases) while units
        // are held here: they are still lent; with none held, nothing is.
        let t3 = t2 + Duration::from_secs(5);
        assert!(leases.renewed(&hash, None, t3).is_some());
        let empty = TokenHash::of("lp_other");
        assert!(leases.renewed(&empty, None, t3).is_none());
    }
}
