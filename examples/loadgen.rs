//! A small closed-loop HTTP load generator for `benches/load.sh` (no external
//! tool to install): `concurrency` clients each send the next request as soon
//! as the previous answer is read, for `seconds`.
//!
//! `cargo run --example loadgen -- URL TOKEN BODY_FILE CONCURRENCY SECONDS`
//! prints one JSON line: requests, ok, errors, rps, p50_ms, p99_ms, statuses.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, token, body, concurrency, seconds] = &args[..] else {
        eprintln!("usage: loadgen URL TOKEN BODY_FILE CONCURRENCY SECONDS");
        std::process::exit(2);
    };
    let body = Arc::new(std::fs::read(body).expect("body file"));
    let concurrency: usize = concurrency.parse().expect("concurrency");
    let duration = Duration::from_secs_f64(seconds.parse().expect("seconds"));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .unwrap();
    let latencies = Arc::new(Mutex::new(Vec::<f64>::new()));
    let statuses = Arc::new(Mutex::new(BTreeMap::<String, u64>::new()));
    let started = Instant::now();
    let end = started + duration;
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (client, url, token, body) = (client.clone(), url.clone(), token.clone(), body.clone());
        let (latencies, statuses) = (latencies.clone(), statuses.clone());
        tasks.push(tokio::spawn(async move {
            while Instant::now() < end {
                let sent = Instant::now();
                let result = client
                    .post(&url)
                    .bearer_auth(&token)
                    .header("content-type", "application/json")
                    .body(body.as_ref().clone())
                    .send()
                    .await;
                let status = match result {
                    Ok(r) => {
                        let s = r.status().as_u16().to_string();
                        match r.bytes().await {
                            Ok(_) => s,
                            Err(_) => "body-error".into(),
                        }
                    }
                    Err(_) => "connect-error".into(),
                };
                let ms = sent.elapsed().as_secs_f64() * 1e3;
                if status == "200" {
                    latencies.lock().unwrap().push(ms);
                }
                *statuses.lock().unwrap().entry(status).or_default() += 1;
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let mut latencies = latencies.lock().unwrap().clone();
    latencies.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        if latencies.is_empty() {
            0.0
        } else {
            latencies[((latencies.len() - 1) as f64 * p).round() as usize]
        }
    };
    let statuses = statuses.lock().unwrap().clone();
    let requests: u64 = statuses.values().sum();
    let ok = latencies.len() as u64;
    println!(
        "{}",
        serde_json::json!({
            "requests": requests,
            "ok": ok,
            "errors": requests - ok,
            "seconds": elapsed,
            "rps": ok as f64 / elapsed,
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "statuses": statuses,
        })
    );
}
