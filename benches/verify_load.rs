//! Verifier throughput over HTTP on loopback: N keep-alive clients call
//! `POST /v1/verify` (count 1) for a fixed time against the router with
//! durability on (group commit: every 200 is synced before it is sent),
//! then the same with durability off (sled's own 500 ms background flush),
//! and prints verifies/s, p50/p99 latency and the ratio. A third pass sends
//! a fresh `Idempotency-Key` with every call (the render side's usage
//! reports do), which takes the transactional path.
//!
//! `cargo bench --bench verify_load -- [--duration SECS] [--clients N]`
//! (defaults 10 s, 64 clients; `--only durable|baseline|keyed|keyed-baseline` runs one mode). Without `--bench` (as under
//! `cargo test --all-targets`) it runs a short smoke pass that checks the
//! answers and the final balance.
//!
//! With `--database-url postgres://...` it measures the ledger on that
//! PostgreSQL instead, against the embedded ledger in the same run
//! (durable both: group commit with `fdatasync`, and `synchronous_commit`
//! as the server has it; `benches/verify_postgres.sh` starts a throwaway
//! server with `synchronous_commit = on`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use labelpress::verify::admin::NewToken;
use labelpress::verify::{VerifyOptions, VerifyService};
use tokio::net::{TcpListener, TcpStream};

struct Stats {
    verifies: u64,
    elapsed: Duration,
    p50: Duration,
    p99: Duration,
}

impl Stats {
    fn rate(&self) -> f64 {
        self.verifies as f64 / self.elapsed.as_secs_f64()
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let duration =
        Duration::from_secs_f64(arg(&args, "--duration").unwrap_or(if bench { 10.0 } else { 0.3 }));
    let clients: usize = arg(&args, "--clients").unwrap_or(64);
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(async {
        let only: Option<String> = arg(&args, "--only");
        let durable = Ledger::Embedded { durable: true };
        if let Some(url) = arg::<String>(&args, "--database-url") {
            let pg = Ledger::Postgres(url);
            let mut rounds = Vec::new();
            for keyed in [false, true] {
                let embedded = load(&durable, keyed, clients, duration).await;
                let postgres = load(&pg, keyed, clients, duration).await;
                rounds.push((keyed, embedded, postgres));
            }
            for (keyed, embedded, postgres) in rounds {
                let what = if keyed { "Idempotency-Key" } else { "plain" };
                for (name, s) in [("embedded", &embedded), ("postgresql", &postgres)] {
                    println!(
                        "verify_load {name:<10} {what:<15} {clients} clients, {:.1} s: {:>8.0} verifies/s  p50 {:>6.2} ms  p99 {:>6.2} ms",
                        s.elapsed.as_secs_f64(),
                        s.rate(),
                        s.p50.as_secs_f64() * 1e3,
                        s.p99.as_secs_f64() * 1e3,
                    );
                }
                println!(
                    "verify_load {what}: postgresql / embedded = {:.2}",
                    postgres.rate() / embedded.rate()
                );
            }
            return;
        }
        if let Some(only) = only {
            // One mode alone, for profiling.
            let ledger = Ledger::Embedded {
                durable: !only.contains("baseline"),
            };
            let s = load(&ledger, only.contains("keyed"), clients, duration).await;
            println!("verify_load {only}: {:.0} verifies/s p50 {:?} p99 {:?}", s.rate(), s.p50, s.p99);
            return;
        }
        let baseline = load(&Ledger::Embedded { durable: false }, false, clients, duration).await;
        let keyed = load(&durable, true, clients, duration).await;
        let durable = load(&durable, false, clients, duration).await;
        for (name, s) in [
            ("durable (group commit)", &durable),
            ("no flush (baseline)", &baseline),
            ("durable, Idempotency-Key", &keyed),
        ] {
            println!(
                "verify_load {name:<24} {clients} clients, {:.1} s: {:>8.0} verifies/s  p50 {:>6.2} ms  p99 {:>6.2} ms",
                s.elapsed.as_secs_f64(),
                s.rate(),
                s.p50.as_secs_f64() * 1e3,
                s.p99.as_secs_f64() * 1e3,
            );
        }
        println!(
            "verify_load durable / baseline = {:.2}",
            durable.rate() / baseline.rate()
        );
    });
}

/// Where the ledger lives.
enum Ledger {
    Embedded { durable: bool },
    Postgres(String),
}

async fn load(ledger: &Ledger, keyed: bool, clients: usize, duration: Duration) -> Stats {
    let dir = tempfile::tempdir().expect("temp dir");
    let service = match ledger {
        Ledger::Embedded { durable } => VerifyService::open_with(
            dir.path(),
            Some("bench-admin".into()),
            VerifyOptions { durable: *durable },
        ),
        Ledger::Postgres(url) => {
            let limits = labelpress::config::Limits::default();
            let options = labelpress::verify::postgres::PgOptions {
                connections: limits.ledger_connections,
                timeout: Duration::from_millis(limits.ledger_timeout_ms),
            };
            VerifyService::connect(url, Some("bench-admin".into()), options).await
        }
    }
    .expect("open the verifier");
    const START: u64 = 1 << 40;
    let token = service
        .create_token(NewToken {
            account: "bench".into(),
            balance: START,
            expires_at: None,
            rate_limit: None,
        })
        .await
        .expect("create a token");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("address");
    let router = labelpress::verify::router(service.clone());
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    // Headers up to the blank line; the key (if any), blank line and body follow.
    let head = Arc::new(format!(
        "POST /v1/verify HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: 11\r\n",
        token.token
    ));
    let started = Instant::now();
    let deadline = started + duration;
    let tasks: Vec<_> = (0..clients)
        .map(|c| {
            let head = head.clone();
            tokio::spawn(async move { client(addr, &head, keyed.then_some(c), deadline).await })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("client task"));
    }
    let elapsed = started.elapsed();
    server.abort();
    latencies.sort_unstable();
    let verifies = latencies.len() as u64;
    assert!(verifies > 0, "no verification succeeded");
    let balance = service.token(&token.id).await.expect("token").balance;
    assert_eq!(balance, START - verifies, "one unit per 200");
    let pick = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    Stats {
        verifies,
        elapsed,
        p50: pick(0.50),
        p99: pick(0.99),
    }
}

/// One keep-alive connection sending verifications until `deadline`;
/// returns the latency of each 200.
async fn client(
    addr: std::net::SocketAddr,
    head: &str,
    keyed: Option<usize>,
    deadline: Instant,
) -> Vec<Duration> {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let mut latencies = Vec::new();
    let mut buf = Vec::with_capacity(1024);
    let plain = format!("{head}\r\n{{\"count\":1}}").into_bytes();
    let mut n = 0u64;
    while Instant::now() < deadline {
        let request = match keyed {
            Some(c) => {
                n += 1;
                format!("{head}Idempotency-Key: bench-{c}-{n}\r\n\r\n{{\"count\":1}}").into_bytes()
            }
            None => plain.clone(),
        };
        let sent = Instant::now();
        write_all(&stream, &request).await;
        buf.clear();
        let body_start = loop {
            let mut chunk = [0u8; 1024];
            let n = read_some(&stream, &mut chunk).await;
            assert!(n > 0, "server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
        };
        let head = std::str::from_utf8(&buf[..body_start]).expect("ASCII head");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        let length: usize = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse().expect("length"))
            })
            .expect("content-length");
        while buf.len() < body_start + length {
            let mut chunk = [0u8; 1024];
            let n = read_some(&stream, &mut chunk).await;
            assert!(n > 0, "server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
        }
        latencies.push(sent.elapsed());
    }
    latencies
}

// Readiness plus try_read/try_write: the crate's tokio has no io-util feature.
async fn write_all(stream: &TcpStream, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        stream.writable().await.expect("writable");
        match stream.try_write(bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("send: {e}"),
        }
    }
}

async fn read_some(stream: &TcpStream, chunk: &mut [u8]) -> usize {
    loop {
        stream.readable().await.expect("readable");
        match stream.try_read(chunk) {
            Ok(n) => return n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => panic!("receive: {e}"),
        }
    }
}
