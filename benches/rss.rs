//! Memory over many distinct documents: renders N labels, each with different
//! text, and prints RSS every N/10 renders. RSS must stay flat (comemo's cache
//! is evicted after each render).
//!
//! Run: `cargo bench --profile dev --bench rss -- 10000`

use labelpress::engine::fonts::FontOptions;
use labelpress::Engine;

fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    // `cargo test --all-targets` runs this without `--bench`: a short smoke run.
    let benching = std::env::args().any(|a| a == "--bench");
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(if benching { 2000 } else { 20 });
    let engine = Engine::new(Default::default(), &FontOptions::EMBEDDED, None);
    let template: serde_json::Value =
        serde_json::from_str(include_str!("../examples/label.json")).unwrap();
    let start = std::time::Instant::now();
    let mut first = 0.0;
    for i in 0..n {
        let mut doc = template.clone();
        let elements = doc["pages"][0]["elements"].as_array_mut().unwrap();
        elements.push(serde_json::json!({"type": "text", "x": 6, "y": 60, "content": format!("Parcel {i} of {n}: {}", i * 7919 % 100_003)}));
        elements[9]["content"] = format!(
            "[B]Recipient {i}[/B]\nStreet {}\n{} City",
            i % 200,
            10_000 + i
        )
        .into();
        engine
            .render_bytes(&serde_json::to_vec(&doc).unwrap())
            .unwrap();
        if i == n / 10 {
            first = rss_mib();
        }
        if (i + 1) % (n / 10).max(1) == 0 {
            labelpress::engine::memory::trim();
            println!(
                "{:>6} renders  RSS {:>7.1} MiB  {:.2} ms/render",
                i + 1,
                rss_mib(),
                start.elapsed().as_secs_f64() * 1000.0 / (i + 1) as f64
            );
        }
    }
    println!("RSS growth after warm-up: {:+.1} MiB", rss_mib() - first);
}
