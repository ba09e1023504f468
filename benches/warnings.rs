//! The cost of the validation warnings (`labelpress::warnings::check`),
//! which every render computes for its `X-Labelpress-Warnings` header,
//! against the request they ride on (validation, lowering, compile and
//! export), on the benchmark documents (benches/data/gen_requests.py):
//! LABEL (20 variants) and INVOICE (2,000 rows; `-- 20k` adds INVOICE20K).
//! Then two stress pages of text elements against their validation alone:
//! a grid of 10,000 texts, and a column of 1,000 texts at one x (the overlap
//! sweep's worst case: every text stays open, so the pair budget ends it).
//!
//! Medians over rounds that alternate the two measurements, so the host's
//! drift cancels out. Run: `cargo bench --profile dev --bench warnings`.
//! Under `cargo test` it runs once on one LABEL as a smoke test.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use labelpress::engine::fonts::FontOptions;
use labelpress::warnings::check;
use labelpress::Engine;
use serde_json::{json, Value};

fn engine() -> Engine {
    Engine::new(Default::default(), &FontOptions::EMBEDDED, None)
}

/// `count` documents of `kind` from the benchmark generator.
fn generated(kind: &str, count: usize) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("benches/data/gen_requests.py");
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec![
        "label=0".to_string(),
        "invoice=0".into(),
        "invoice20k=0".into(),
    ];
    args.push(format!("{kind}={count}"));
    let ok = Command::new("python3")
        .arg(&script)
        .arg("--out")
        .arg(dir.path())
        .args(&args)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "the benchmark documents come from {}", script.display());
    (0..count)
        .map(|i| std::fs::read(dir.path().join(format!("{kind}-{i:02}.json"))).unwrap())
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds of one call of `f`, the median of `n` (at least 1).
fn time(n: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..n.max(1))
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// Rounds of: the warnings of each document (`checks` times each), then a
/// whole request of each. Returns (warnings, request) medians in seconds
/// per document and the warnings the documents have.
fn against_requests(
    engine: &Engine,
    docs: &[Vec<u8>],
    rounds: usize,
    checks: usize,
) -> (f64, f64, usize) {
    let laid: Vec<_> = docs.iter().map(|d| engine.validate(d).unwrap()).collect();
    let found: usize = laid.iter().map(|l| check(l).len()).sum();
    let (mut warned, mut requests) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for l in &laid {
            warned.push(time(checks, || {
                std::hint::black_box(check(l));
            }));
        }
        for d in docs {
            requests.push(time(1, || {
                std::hint::black_box(engine.render_bytes(d).unwrap());
            }));
        }
    }
    (median(warned), median(requests), found)
}

/// Rounds of: the warnings, then validation alone.
fn against_validation(engine: &Engine, doc: &[u8], rounds: usize) -> (f64, f64, usize) {
    let laid = engine.validate(doc).unwrap();
    let found = check(&laid).len();
    let (mut warned, mut validated) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        warned.push(time(3, || {
            std::hint::black_box(check(&laid));
        }));
        validated.push(time(1, || {
            std::hint::black_box(engine.validate(doc).unwrap());
        }));
    }
    (median(warned), median(validated), found)
}

/// 10,000 texts in 100 columns of 100, none touching another.
fn grid() -> Vec<u8> {
    let elements: Vec<Value> = (0..10_000)
        .map(|i| json!({"type": "text", "x": 5 + (i % 100) * 40, "y": 5 + (i / 100) * 5, "content": format!("Item {i}"), "style": {"font_size": 8}}))
        .collect();
    serde_json::to_vec(&json!({"pages": [{"width": 4010, "height": 510, "elements": elements}]}))
        .unwrap()
}

/// 1,000 texts one below the other at the same x.
fn column() -> Vec<u8> {
    let elements: Vec<Value> = (0..1_000)
        .map(|i| json!({"type": "text", "x": 5, "y": 5 + i * 5, "content": format!("Line {i}"), "style": {"font_size": 8}}))
        .collect();
    serde_json::to_vec(&json!({"pages": [{"width": 100, "height": 5010, "elements": elements}]}))
        .unwrap()
}

fn report(what: &str, warned: f64, other: f64, against: &str, found: usize) {
    println!(
        "{what}: warnings {:.1} us, {against} {:.2} ms, ratio {:.5} ({found} warnings)",
        warned * 1e6,
        other * 1e3,
        warned / other
    );
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let engine = engine();
    if !bench {
        let docs = generated("label", 1);
        let (warned, request, found) = against_requests(&engine, &docs, 1, 1);
        assert!(
            warned < request,
            "{warned} s of warnings, {request} s for the request"
        );
        assert_eq!(found, 0, "the benchmark label is clean");
        return;
    }
    let labels = generated("label", 20);
    against_requests(&engine, &labels, 2, 10); // warm-up
    let (w, r, n) = against_requests(&engine, &labels, 15, 50);
    report("LABEL", w, r, "request", n);
    let invoices = generated("invoice", 2);
    let (w, r, n) = against_requests(&engine, &invoices, 5, 10);
    report("INVOICE 2,000 rows", w, r, "request", n);
    if std::env::args().any(|a| a == "20k") {
        let big = generated("invoice20k", 1);
        let (w, r, n) = against_requests(&engine, &big, 2, 3);
        report("INVOICE20K", w, r, "request", n);
    }
    let (w, v, n) = against_validation(&engine, &grid(), 5);
    report("10,000 texts in a grid", w, v, "validation", n);
    let (w, v, n) = against_validation(&engine, &column(), 9);
    report("1,000 texts in a column", w, v, "validation", n);
}
