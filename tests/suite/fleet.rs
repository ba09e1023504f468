//! Issue 32: a fleet of render nodes charges exactly. Three render nodes
//! and two verifiers on one PostgreSQL, each a separate process on
//! loopback, the nodes on quota leases (docs/leases.md) with a short
//! lifetime so the tests see leases end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::server::{self, Server};

/// The lease lifetime of most of these fleets (s): short, so the tests
/// see leases end.
const LEASE_S: u64 = 2;

struct Fleet {
    verifiers: Vec<(Server, tempfile::TempDir)>,
    nodes: Vec<(Server, tempfile::TempDir)>,
    lease_s: u64,
    _config: tempfile::TempDir,
}

impl Fleet {
    /// Two verifiers on a fresh database, three render nodes asking them
    /// in turn, on leases of [`LEASE_S`]; `limits` are added to the nodes'
    /// `[limits]`.
    fn start(limits: &str) -> Fleet {
        Fleet::with_lease(LEASE_S, limits)
    }

    fn with_lease(lease_s: u64, limits: &str) -> Fleet {
        let url = crate::postgres::shared().fresh();
        let verifiers: Vec<_> = (0..2)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let args = ["--services", "verify", "--database-url", &url];
                (server::start(dir.path(), &args), dir)
            })
            .collect();
        let urls = format!("{},{}", verifiers[0].0.base, verifiers[1].0.base);
        let config = tempfile::tempdir().unwrap();
        let file = config.path().join("node.toml");
        std::fs::write(
            &file,
            format!("[limits]\nlease_s = {lease_s}\nblacklist_recheck_s = 1\n{limits}\n"),
        )
        .unwrap();
        let nodes = (0..3)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let args = [
                    "--services",
                    "render",
                    "--verify-url",
                    &urls,
                    "--config",
                    file.to_str().unwrap(),
                ];
                (server::start(dir.path(), &args), dir)
            })
            .collect();
        Fleet {
            verifiers,
            nodes,
            lease_s,
            _config: config,
        }
    }

    fn verifier(&self) -> &str {
        &self.verifiers[0].0.base
    }

    fn node(&self, i: usize) -> String {
        self.nodes[i % self.nodes.len()].0.base.clone()
    }

    /// Verifier calls the render nodes have made so far.
    async fn verifier_calls(&self) -> u64 {
        let mut calls = 0;
        for (node, _) in &self.nodes {
            calls += server::metric(&node.base, "labelpress_verifier_duration_seconds_count").await
                as u64;
        }
        calls
    }

    /// The balance once every lease has ended and been given back.
    async fn settled_balance(&self, id: &str) -> u64 {
        // A lifetime for the verdict, half of one more before an idle
        // token's leases go back, and the returner's 250 ms tick.
        let idle = Duration::from_millis(self.lease_s * 1500 + 1000);
        tokio::time::sleep(idle).await;
        server::balance(self.verifier(), id).await
    }
}

fn label(i: usize) -> Value {
    server::label(&format!("F-{i}"))
}

/// `n` renders, `concurrency` at a time, request `i` on node `i % 3`: the
/// statuses in request order.
async fn renders(fleet: &Fleet, token: &str, n: usize, concurrency: usize) -> Vec<u16> {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let statuses = Arc::new(std::sync::Mutex::new(vec![0u16; n]));
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (next, statuses) = (next.clone(), statuses.clone());
            let token = token.to_string();
            let nodes: Vec<String> = (0..3).map(|i| fleet.node(i)).collect();
            tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if i >= n {
                        return;
                    }
                    let r = server::render(&nodes[i % 3], &token, &label(i)).await;
                    statuses.lock().unwrap()[i] = r.status;
                }
            })
        })
        .collect();
    for w in workers {
        w.await.unwrap();
    }
    let statuses = statuses.lock().unwrap().clone();
    statuses
}

fn count(statuses: &[u16], status: u16) -> usize {
    statuses.iter().filter(|s| **s == status).count()
}

/// A balance of 20 gives exactly 20 PDFs, from a burst of 60 split over
/// the three nodes and from sequential renders alternating between them,
/// and the ledger shows exactly 20 charged.
#[tokio::test(flavor = "multi_thread")]
async fn a_balance_of_20_gives_exactly_20_pdfs_across_three_nodes() {
    let fleet = Fleet::start("");
    for concurrency in [60, 1] {
        let (id, token) = server::new_token(fleet.verifier(), 20, None).await;
        let statuses = renders(&fleet, &token, 60, concurrency).await;
        assert_eq!(
            count(&statuses, 200),
            20,
            "concurrency {concurrency}: {statuses:?}"
        );
        assert_eq!(
            count(&statuses, 200) + count(&statuses, 403),
            60,
            "{statuses:?}"
        );
        assert_eq!(fleet.settled_balance(&id).await, 0, "20 charged");
    }
}

/// With a large balance, the nodes ask the verifier once per lease
/// lifetime (the default 5 s here), not per render: the calls per 1,000
/// renders, from the first and once the leases have grown.
#[tokio::test(flavor = "multi_thread")]
async fn a_large_balance_costs_a_few_verifier_calls_per_thousand_renders() {
    let fleet = Fleet::with_lease(5, "");
    // No rate limit in the way (a token without one gets the nodes' default
    // of 50/s each).
    let unlimited = Some((1_000_000, 1_000_000));
    let (id, token) = server::new_token(fleet.verifier(), 1_000_000, unlimited).await;
    let before = fleet.verifier_calls().await;
    let cold = renders(&fleet, &token, 1000, 6).await;
    assert_eq!(count(&cold, 200), 1000, "{cold:?}");
    let middle = fleet.verifier_calls().await;
    let warm = renders(&fleet, &token, 1000, 6).await;
    assert_eq!(count(&warm, 200), 1000, "{warm:?}");
    let after = fleet.verifier_calls().await;
    eprintln!(
        "verifier calls per 1000 renders over 3 nodes: {} cold, {} warm",
        middle - before,
        after - middle
    );
    assert!(after - middle <= 10, "{} calls", after - middle);
    assert_eq!(fleet.settled_balance(&id).await, 1_000_000 - 2000);
    for (node, _) in &fleet.nodes {
        assert_eq!(
            server::metric(&node.base, "labelpress_leased_units").await,
            0.0
        );
    }
}

/// A node SIGKILLed while it holds a lease: the balance drops by at least
/// what was delivered, and by at most that plus one lease's unused part
/// (`lease_max_units` here); nothing is charged twice.
#[tokio::test(flavor = "multi_thread")]
async fn a_node_killed_with_a_lease_loses_at_most_its_unused_part() {
    let mut fleet = Fleet::start("lease_max_units = 10");
    let (id, token) = server::new_token(fleet.verifier(), 1000, None).await;
    let first = renders(&fleet, &token, 30, 3).await;
    // Node 0 now holds a lease it took for its last renders.
    fleet.nodes[0].0.kill();
    let mut delivered = count(&first, 200);
    for i in 0..30 {
        let r = server::render(&fleet.node(1 + i % 2), &token, &label(i)).await;
        assert_eq!(r.status, 200);
        delivered += 1;
    }
    let charged = 1000 - fleet.settled_balance(&id).await;
    assert!(
        charged as usize >= delivered && charged as usize <= delivered + 10,
        "{charged} charged for {delivered} delivered"
    );
}

/// A token limited to 10 renders/s (burst 10), hammered through three
/// nodes for 4 s: at most the burst plus 10 per second, fleet-wide (the
/// verifier judges every lease against one limit kept in the ledger).
#[tokio::test(flavor = "multi_thread")]
async fn a_rate_limit_holds_across_the_fleet() {
    let fleet = Fleet::start("");
    let (_, token) = server::new_token(fleet.verifier(), 100_000, Some((10, 10))).await;
    let started = Instant::now();
    let window = Duration::from_secs(4);
    let mut workers = Vec::new();
    for w in 0..9 {
        let node = fleet.node(w);
        let token = token.clone();
        workers.push(tokio::spawn(async move {
            let (mut ok, mut limited) = (0, 0);
            while started.elapsed() < window {
                match server::render(&node, &token, &label(w)).await.status {
                    200 => ok += 1,
                    429 => {
                        limited += 1;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    other => panic!("status {other}"),
                }
            }
            (ok, limited)
        }));
    }
    let (mut ok, mut limited) = (0, 0);
    for w in workers {
        let (o, l) = w.await.unwrap();
        ok += o;
        limited += l;
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("{ok} renders and {limited} 429s in {seconds:.1} s at 10/s, burst 10");
    assert!(limited > 0);
    assert!(
        ok as f64 <= 10.0 + 10.0 * seconds,
        "{ok} renders in {seconds:.1} s"
    );
    assert!(ok >= 30, "{ok} renders: the limit is not a wall");
}

/// A token revoked while three nodes serve it: every node refuses within
/// the lease lifetime, and every PDF delivered is charged (the leases come
/// back with exactly their unused units).
#[tokio::test(flavor = "multi_thread")]
async fn a_revocation_reaches_every_node_within_a_lease_and_every_pdf_is_charged() {
    let fleet = Fleet::start("");
    let (id, token) = server::new_token(fleet.verifier(), 10_000, None).await;
    let started = Instant::now();
    let revoke_at = Duration::from_secs(2);
    let stop_at = revoke_at + Duration::from_secs(LEASE_S + 2);
    let mut workers = Vec::new();
    for w in 0..3 {
        let node = fleet.node(w);
        let token = token.clone();
        workers.push(tokio::spawn(async move {
            let mut seen = Vec::new();
            while started.elapsed() < stop_at {
                let sent = started.elapsed();
                let status = server::render(&node, &token, &label(w)).await.status;
                seen.push((sent, status));
            }
            seen
        }));
    }
    tokio::time::sleep(revoke_at).await;
    server::admin(
        fleet.verifier(),
        reqwest::Method::POST,
        &format!("/tokens/{id}/revoke"),
        None,
    )
    .await;
    let revoked = started.elapsed();
    let mut delivered = 0;
    for (node, w) in workers.into_iter().enumerate() {
        let seen = w.await.unwrap();
        delivered += seen.iter().filter(|(_, s)| *s == 200).count();
        // Sent after the revocation plus a lease's lifetime (and a little
        // for the request in flight): refused.
        let late: Vec<_> = seen
            .iter()
            .filter(|(sent, _)| *sent > revoked + Duration::from_millis(LEASE_S * 1000 + 300))
            .collect();
        assert!(!late.is_empty(), "node {node} was asked after the lease");
        // 403, or 429 once the refusals have used up the client address's
        // allowance of failed authentications.
        assert!(
            late.iter().all(|(_, s)| *s == 403 || *s == 429),
            "node {node}: {late:?}"
        );
        assert!(seen.iter().any(|(_, s)| *s == 403));
        assert!(seen.iter().any(|(_, s)| *s == 200));
    }
    let balance = fleet.settled_balance(&id).await;
    assert_eq!(
        10_000 - balance,
        delivered as u64,
        "every PDF charged, no more"
    );
}
