//! LABEL end to end (JSON in, PDF bytes out), with and without its two
//! barcodes, against the same label (no barcodes) written by hand in Typst and
//! compiled by the same engine: the baseline of this run.
//!
//! Run: `cargo bench --profile dev --bench render` (the dev profile optimises
//! dependencies; a release build of typst takes ~17 minutes on 2 cores).
//! Label documents come from ../shared/bench/gen_requests.py when it exists,
//! else from examples/label.json.

use std::path::Path;
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion};
use labelpress::engine::fonts::FontOptions;
use labelpress::Engine;

/// The benchmark labels as JSON values.
fn labels() -> Vec<serde_json::Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("../shared/bench/gen_requests.py");
    let dir = tempfile::tempdir().unwrap();
    let generated = script.exists()
        && Command::new("python3")
            .arg(&script)
            .args(["--out"])
            .arg(dir.path())
            .args(["label=20"])
            .status()
            .is_ok_and(|s| s.success());
    if generated {
        (0..20)
            .map(|i| {
                let text = std::fs::read(dir.path().join(format!("label-{i:02}.json"))).unwrap();
                serde_json::from_slice(&text).unwrap()
            })
            .collect()
    } else {
        vec![
            serde_json::from_slice(&std::fs::read(root.join("examples/label.json")).unwrap())
                .unwrap(),
        ]
    }
}

/// The same labels without their barcodes: the content of the hand-written baseline.
fn without_barcodes(docs: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let mut docs = docs.to_vec();
    for doc in &mut docs {
        if let Some(elements) = doc["pages"][0]["elements"].as_array_mut() {
            elements.retain(|e| e["type"] != "barcode");
        }
    }
    docs
}

fn bytes(docs: &[serde_json::Value]) -> Vec<Vec<u8>> {
    docs.iter()
        .map(|d| serde_json::to_vec(d).unwrap())
        .collect()
}

/// The baseline source with a variant's texts put in place of the template's.
fn hand_written(template: &str, doc: &serde_json::Value) -> String {
    let text_at = |y: f64| {
        doc["pages"][0]["elements"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|e| e["type"] == "text" && e["y"].as_f64() == Some(y))
            .and_then(|e| e["content"].as_str())
            .unwrap_or("?")
            .to_string()
    };
    let mut out = template.to_string();
    for (placeholder, y) in [
        ("RECIPIENT", 29.0),
        ("Lindenallee 17", 36.0),
        ("10115 Berlin", 41.0),
        ("Weight: 12.5 kg", 56.0),
        ("Ref: ORD-2026-000001", 56.5),
        ("ROUTE 4700-B / SORT 10", 105.0),
    ] {
        out = out.replace(placeholder, &text_at(y));
    }
    out
}

fn engine() -> Engine {
    Engine::new(Default::default(), &FontOptions::EMBEDDED, None)
}

fn label(c: &mut Criterion) {
    let engine = engine();
    let full_values = labels();
    let plain = bytes(&without_barcodes(&full_values));
    let full = bytes(&full_values);
    let by_hand = include_str!("label_by_hand.typ").to_string();
    let mut group = c.benchmark_group("label");
    // The hand-written label with each variant's own texts, so the baseline
    // lays out as much fresh content per iteration as our documents do.
    let sources: Vec<String> = full_values
        .iter()
        .map(|doc| hand_written(&by_hand, doc))
        .collect();
    let mut n = 0;
    group.bench_function("typst_by_hand_baseline", |b| {
        b.iter(|| {
            n = (n + 1) % sources.len();
            engine.render_typst(sources[n].clone()).unwrap()
        })
    });
    for (name, docs) in [
        ("labelpress_without_barcodes", &plain),
        ("labelpress_end_to_end", &full),
    ] {
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                i = (i + 1) % docs.len();
                engine.render_bytes(&docs[i]).unwrap()
            })
        });
    }
    group.finish();
}

/// Single-threaded, as a render in the server runs: on a render thread
/// whose rayon work stays on it (`engine::threads`).
fn label_single_threaded(c: &mut Criterion) {
    labelpress::engine::threads::become_render_thread();
    label(c);
}

criterion_group!(benches, label_single_threaded);
criterion_main!(benches);
