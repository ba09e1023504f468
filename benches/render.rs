//! LABEL end to end (JSON in, PDF bytes out), with and without its two
//! barcodes, against the same label written by hand in Typst and compiled by
//! the same engine: the baseline of this run, without barcodes (the running
//! table's) and with them pre-drawn as SVG images (issue 33's).
//!
//! `label_scripts`: LABEL with the system's fonts (one engine, fonts scanned
//! once), against the same LABEL whose recipient name (the text at y = 29) is
//! a Japanese address line instead, which the fallback list sets in Noto Sans
//! CJK; prints the cjk/latin ratio of criterion's medians, then the median
//! ratio of 60 rounds rendering all variants of each in alternating order
//! (criterion measures one after the other, and this host drifts). Issue 16's goal:
//! at most 1.5. Skipped when no CJK font is installed (Debian's
//! `fonts-noto-cjk`).
//!
//! `label_png`: LABEL as a PNG of sheet 1 at 203 dpi against LABEL as PDF,
//! one engine, in one run (JSON in, bytes out, both): prints the png/pdf
//! ratio of criterion's medians and the median ratio of 60 alternating
//! rounds. Issue 19's goal: at most 2.
//!
//! `label_zpl`: LABEL as ZPL at 203 dpi against LABEL as a PNG of the same
//! sheet at 203 dpi, one engine, in one run: the median ratio of 60
//! alternating rounds (the request, the auth and the answer cost the same
//! for both over HTTP, so the render is what differs). Issue 30's goal: at
//! most 1.5.
//!
//! `label` also prints the running table's ratio (benches/README.md) as the
//! median of 60 rounds alternating between the hand-written label and
//! LABEL end to end, and where LABEL's time goes, phase by phase.
//!
//! Run: `cargo bench --profile dev --bench render` (the dev profile optimises
//! dependencies; a release build of typst takes ~17 minutes on 2 cores), or
//! one group: `cargo bench --profile dev --bench render -- label_scripts`.
//! Label documents come from benches/data/gen_requests.py (the generator the
//! performance goals are measured on), else from examples/label.json.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use criterion::{criterion_group, criterion_main, Criterion};
use labelpress::engine::fonts::FontOptions;
use labelpress::engine::{Output, PngOptions, ZplOptions};
use labelpress::Engine;

#[path = "support/predrawn.rs"]
mod predrawn;
use predrawn::with_predrawn_barcodes;

/// The benchmark labels as JSON values.
fn labels() -> Vec<serde_json::Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("benches/data/gen_requests.py");
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
    let since = SystemTime::now();
    let mut group = c.benchmark_group("label");
    // The hand-written label with each variant's own texts, so the baseline
    // lays out as much fresh content per iteration as our documents do.
    let sources: Vec<String> = full_values
        .iter()
        .map(|doc| hand_written(&by_hand, doc))
        .collect();
    let predrawn: Vec<String> = sources
        .iter()
        .zip(&full_values)
        .map(|(source, doc)| with_predrawn_barcodes(source, doc))
        .collect();
    for (name, sources) in [
        ("typst_by_hand_baseline", &sources),
        ("typst_by_hand_barcodes_predrawn", &predrawn),
    ] {
        let mut n = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                n = (n + 1) % sources.len();
                engine.render_typst(sources[n].clone()).unwrap()
            })
        });
    }
    for (name, docs) in [
        ("labelpress_without_barcodes", &plain),
        ("labelpress_end_to_end", &full),
    ] {
        bench_documents(&mut group, name, &engine, docs);
    }
    group.finish();
    if median_ns("label", "labelpress_end_to_end", since).is_none() {
        return;
    }
    // Criterion measures one after the other, and this host drifts within
    // a minute: the ratios in alternating rounds too, against the running
    // table's baseline (no barcodes at all) and against the one issue 33
    // names (the barcodes pre-drawn).
    for (baseline, sources) in [
        ("typst by hand", &sources),
        ("typst by hand with barcodes pre-drawn", &predrawn),
    ] {
        let rounds = alternating(
            60,
            (sources.len(), |i| {
                drop(engine.render_typst(sources[i].clone()).unwrap())
            }),
            (full.len(), |i| drop(engine.render_bytes(&full[i]).unwrap())),
        );
        println!(
            "label: 60 alternating rounds: median ms/render {baseline} {:.3}, labelpress end to end {:.3}; median of the rounds' labelpress/by hand = {:.3} (goal: at most 1.3)",
            median(rounds.iter().map(|r| r.0).collect()),
            median(rounds.iter().map(|r| r.1).collect()),
            median(rounds.iter().map(|r| r.1 / r.0).collect()),
        );
    }
    label_phases(&engine, &full);
}

/// Where LABEL's time goes: validation (parse, check, measure and lay out,
/// barcodes encoded), lowering to Typst, then the rest of a render
/// (lowering again, Typst's compile, the PDF export and its patch, the
/// warnings), ms per label, medians of 20 rounds over every variant.
fn label_phases(engine: &Engine, docs: &[Vec<u8>]) {
    let (mut validate, mut lower, mut render) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..20 {
        let (mut v, mut l, mut r) = (0.0, 0.0, 0.0);
        for body in docs {
            let t0 = std::time::Instant::now();
            let laid = engine.validate(body).unwrap();
            let t1 = std::time::Instant::now();
            drop(engine.lower(&laid));
            let t2 = std::time::Instant::now();
            drop(engine.render(&laid).unwrap());
            let t3 = std::time::Instant::now();
            v += (t1 - t0).as_secs_f64();
            l += (t2 - t1).as_secs_f64();
            r += (t3 - t2).as_secs_f64();
        }
        let per = |total: f64| total * 1000.0 / docs.len() as f64;
        validate.push(per(v));
        lower.push(per(l));
        render.push(per(r));
    }
    println!(
        "label phases, ms per label: validate {:.3}, lower {:.3}, render of the validated document {:.3} (lower, compile, PDF export, warnings)",
        median(validate),
        median(lower),
        median(render),
    );
}

/// Renders `docs` in turn, one per iteration.
fn bench_documents(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    engine: &Engine,
    docs: &[Vec<u8>],
) {
    let mut i = 0;
    group.bench_function(name, |b| {
        b.iter(|| {
            i = (i + 1) % docs.len();
            engine.render_bytes(&docs[i]).unwrap()
        })
    });
}

/// The labels with the recipient's name (the first line of the text at
/// y = 29) replaced by a Japanese address line, each variant its own (the
/// number and the name change, as the Latin names do).
fn with_cjk_recipient(docs: &[serde_json::Value]) -> Vec<serde_json::Value> {
    const NAMES: [&str; 5] = ["山田太郎", "佐藤花子", "鈴木一郎", "高橋美咲", "田中健太"];
    let mut docs = docs.to_vec();
    for (i, doc) in docs.iter_mut().enumerate() {
        let elements = doc["pages"][0]["elements"].as_array_mut();
        for e in elements.into_iter().flatten() {
            if e["type"] == "text" && e["y"].as_f64() == Some(29.0) {
                let content = e["content"].as_str().unwrap_or_default();
                let rest = content.find('\n').map_or("", |n| &content[n..]);
                let name = NAMES[i % NAMES.len()];
                e["content"] = format!("東京都千代田区千代田1-{} {name}{rest}", i + 1).into();
            }
        }
    }
    docs
}

/// The median time of a benchmark measured in this run, in ns, from
/// criterion's report (None when it did not run: filtered out, or `cargo test`).
fn median_ns(group: &str, name: &str, since: SystemTime) -> Option<f64> {
    let home = std::env::var_os("CRITERION_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
                .join("criterion")
        });
    let path = home.join(group).join(name).join("new/estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let estimates: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

/// LABEL in Latin script against the same LABEL with a CJK recipient line,
/// both with the system's fonts and the default fallback list.
fn label_scripts(c: &mut Criterion) {
    let engine = Engine::new(Default::default(), &FontOptions::SYSTEM, None);
    if !engine.fonts().fallback().iter().any(|f| f.contains("CJK")) {
        eprintln!("label_scripts skipped: no CJK family of the fallback list is installed");
        return;
    }
    let latin_values = labels();
    let latin = bytes(&latin_values);
    let cjk = bytes(&with_cjk_recipient(&latin_values));
    // Refused documents would be measured as errors: render each once first.
    for doc in latin.iter().chain(&cjk) {
        engine
            .render_bytes(doc)
            .expect("label_scripts renders its labels");
    }
    let since = SystemTime::now();
    let mut group = c.benchmark_group("label_scripts");
    for (name, docs) in [("latin", &latin), ("cjk", &cjk)] {
        bench_documents(&mut group, name, &engine, docs);
    }
    group.finish();
    if let (Some(latin_ns), Some(cjk_ns)) = (
        median_ns("label_scripts", "latin", since),
        median_ns("label_scripts", "cjk", since),
    ) {
        println!(
            "label_scripts: criterion medians latin {:.3} ms, cjk {:.3} ms; cjk/latin = {:.3} (goal: at most 1.5)",
            latin_ns / 1e6,
            cjk_ns / 1e6,
            cjk_ns / latin_ns
        );
        // Criterion measures one after the other, and this host drifts
        // within a minute: the same comparison in alternating rounds too,
        // each round's ratio taken between its two adjacent batches.
        let rounds = paired_rounds(&engine, &latin, &cjk, 60);
        println!(
            "label_scripts: 60 alternating rounds of all variants: median ms/render latin {:.3}, cjk {:.3}; median of the rounds' cjk/latin = {:.3}",
            median(rounds.iter().map(|r| r.0).collect()),
            median(rounds.iter().map(|r| r.1).collect()),
            median(rounds.iter().map(|r| r.1 / r.0).collect()),
        );
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Per round, ms per render of `a` and of `b`: each round renders every
/// document of both, in alternating order.
fn paired_rounds(engine: &Engine, a: &[Vec<u8>], b: &[Vec<u8>], rounds: usize) -> Vec<(f64, f64)> {
    alternating(
        rounds,
        (a.len(), |i| drop(engine.render_bytes(&a[i]).unwrap())),
        (b.len(), |i| drop(engine.render_bytes(&b[i]).unwrap())),
    )
}

/// Per round, ms per call of `a` and of `b` (each run on items `0..n`), the
/// one that goes first alternating between rounds, so that the host's
/// drift within a minute falls on both sides of each round's ratio.
fn alternating(
    rounds: usize,
    (a_n, mut a): (usize, impl FnMut(usize)),
    (b_n, mut b): (usize, impl FnMut(usize)),
) -> Vec<(f64, f64)> {
    let timed = |n: usize, f: &mut dyn FnMut(usize)| {
        let start = std::time::Instant::now();
        (0..n).for_each(&mut *f);
        start.elapsed().as_secs_f64() * 1000.0 / n as f64
    };
    (0..rounds)
        .map(|round| {
            if round % 2 == 0 {
                let a_ms = timed(a_n, &mut a);
                (a_ms, timed(b_n, &mut b))
            } else {
                let b_ms = timed(b_n, &mut b);
                (timed(a_n, &mut a), b_ms)
            }
        })
        .collect()
}

/// JSON in, PNG of sheet 1 at 203 dpi out (validation included, as in
/// `render_bytes`).
fn png_203(engine: &Engine, body: &[u8]) -> Vec<u8> {
    let doc = engine.validate(body).unwrap();
    let output = Output::Png(PngOptions {
        dpi: Some(203),
        ..PngOptions::default()
    });
    engine.render_as(&doc, &output).unwrap().bytes
}

/// LABEL as PNG at 203 dpi against LABEL as PDF.
fn label_png(c: &mut Criterion) {
    let engine = engine();
    let docs = bytes(&labels());
    let since = SystemTime::now();
    let mut group = c.benchmark_group("label_png");
    bench_documents(&mut group, "pdf", &engine, &docs);
    let mut n = 0;
    group.bench_function("png_203dpi", |b| {
        b.iter(|| {
            n = (n + 1) % docs.len();
            png_203(&engine, &docs[n])
        })
    });
    group.finish();
    if let (Some(pdf_ns), Some(png_ns)) = (
        median_ns("label_png", "pdf", since),
        median_ns("label_png", "png_203dpi", since),
    ) {
        println!(
            "label_png: criterion medians pdf {:.3} ms, png {:.3} ms; png/pdf = {:.3} (goal: at most 2)",
            pdf_ns / 1e6,
            png_ns / 1e6,
            png_ns / pdf_ns
        );
    }
    let batch = |png: bool| {
        let start = std::time::Instant::now();
        for doc in &docs {
            if png {
                png_203(&engine, doc);
            } else {
                engine.render_bytes(doc).unwrap();
            }
        }
        start.elapsed().as_secs_f64() * 1000.0 / docs.len() as f64
    };
    let rounds: Vec<(f64, f64)> = (0..60)
        .map(|round| {
            if round % 2 == 0 {
                let pdf = batch(false);
                (pdf, batch(true))
            } else {
                let png = batch(true);
                (batch(false), png)
            }
        })
        .collect();
    println!(
        "label_png: 60 alternating rounds: median ms/render pdf {:.3}, png {:.3}; median of the rounds' png/pdf = {:.3}",
        median(rounds.iter().map(|r| r.0).collect()),
        median(rounds.iter().map(|r| r.1).collect()),
        median(rounds.iter().map(|r| r.1 / r.0).collect()),
    );
}

/// JSON in, ZPL of every sheet at 203 dpi out (validation included).
fn zpl_203(engine: &Engine, body: &[u8]) -> Vec<u8> {
    let doc = engine.validate(body).unwrap();
    let output = Output::Zpl(ZplOptions {
        dpi: Some(203),
        ..ZplOptions::default()
    });
    engine.render_as(&doc, &output).unwrap().bytes
}

/// LABEL as ZPL against LABEL as PNG, both at 203 dpi.
fn label_zpl(c: &mut Criterion) {
    let engine = engine();
    let docs = bytes(&labels());
    let mut group = c.benchmark_group("label_zpl");
    let mut n = 0;
    group.bench_function("zpl_203dpi", |b| {
        b.iter(|| {
            n = (n + 1) % docs.len();
            zpl_203(&engine, &docs[n])
        })
    });
    group.finish();
    let batch = |zpl: bool| {
        let start = std::time::Instant::now();
        let mut bytes = 0;
        for doc in &docs {
            bytes += if zpl {
                zpl_203(&engine, doc).len()
            } else {
                png_203(&engine, doc).len()
            };
        }
        (
            start.elapsed().as_secs_f64() * 1000.0 / docs.len() as f64,
            bytes / docs.len(),
        )
    };
    let rounds: Vec<((f64, usize), (f64, usize))> = (0..60)
        .map(|round| {
            if round % 2 == 0 {
                let png = batch(false);
                (png, batch(true))
            } else {
                let zpl = batch(true);
                (batch(false), zpl)
            }
        })
        .collect();
    println!(
        "label_zpl: 60 alternating rounds: median ms/render png {:.3}, zpl {:.3}; median of the rounds' zpl/png = {:.3} (goal: at most 1.5); bytes png {}, zpl {}",
        median(rounds.iter().map(|r| r.0 .0).collect()),
        median(rounds.iter().map(|r| r.1 .0).collect()),
        median(rounds.iter().map(|r| r.1 .0 / r.0 .0).collect()),
        rounds[0].0 .1,
        rounds[0].1 .1,
    );
}

/// A wave of 100 LABELs (the 20 variants, five times each): one batch
/// (`Engine::render_batch`: one validation each, one compile, one PDF)
/// against 100 single renders, both on one render thread, so the ratio is
/// what a render slot gains per label.
fn label_batch(c: &mut Criterion) {
    let engine = engine();
    let docs = labels();
    let wave: Vec<serde_json::Value> = (0..100).map(|i| docs[i % docs.len()].clone()).collect();
    let singles = bytes(&wave);
    let batch = serde_json::to_vec(&serde_json::json!({ "documents": wave })).unwrap();
    let mut group = c.benchmark_group("label_batch");
    group.sample_size(10);
    group.bench_function("100_single_renders", |b| {
        b.iter(|| {
            for body in &singles {
                engine.render_bytes(body).unwrap();
            }
        })
    });
    group.bench_function("one_batch_of_100", |b| {
        b.iter(|| engine.render_batch(&batch, &Output::Pdf).unwrap())
    });
    group.finish();
}

/// Single-threaded, as a render in the server runs: on a render thread
/// whose rayon work stays on it (`engine::threads`).
fn label_single_threaded(c: &mut Criterion) {
    labelpress::engine::threads::become_render_thread();
    label(c);
    label_scripts(c);
    label_png(c);
    label_zpl(c);
    label_batch(c);
}

criterion_group!(benches, label_single_threaded);
criterion_main!(benches);
