//! INVOICE (A4, 5 columns, 2,000 rows, repeated header, alternating fill,
//! "Page N of M" footer, totals block in a stack) and INVOICE20K end to end
//! (JSON in, PDF bytes out), against the naive lowering of the same table to
//! Typst's own `table(...)` with `table.header(repeat: true)`, compiled by the
//! same engine, untagged: the baseline of this run.
//!
//! Run: `cargo bench --profile dev --bench invoice` (add `-- 20k` for the
//! 20,000-row document and its peak RSS, measured in a child process each).
//! Under `cargo test` it runs once on a 200-row invoice as a smoke test.

use std::fmt::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use labelpress::engine::fonts::FontOptions;
use labelpress::Engine;
use serde_json::Value;

fn engine() -> Engine {
    Engine::new(Default::default(), &FontOptions::EMBEDDED, None)
}

/// Invoices from benches/data/gen_requests.py, the generator the performance
/// goals are measured on.
fn invoices(kind: &str, count: usize) -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("benches/data/gen_requests.py");
    let dir = tempfile::tempdir().unwrap();
    let ok = Command::new("python3")
        .arg(&script)
        .arg("--out")
        .arg(dir.path())
        .arg(format!("{kind}={count}"))
        .args(if kind == "invoice" {
            vec!["invoice20k=0"]
        } else {
            vec!["invoice=0"]
        })
        .arg("label=0")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "the benchmark documents come from {}", script.display());
    (0..count)
        .map(|i| {
            let path = dir.path().join(format!("{kind}-{i:02}.json"));
            serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
        })
        .collect()
}

/// The same document written as a Typst `table(...)`: what lowering to
/// Typst's native table would produce.
fn naive_typst(doc: &Value) -> String {
    let page = &doc["pages"][0];
    let stack = page["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "stack")
        .unwrap();
    let table = &stack["children"][0];
    let s = |v: &Value| {
        let t = v.as_str().unwrap_or("");
        format!("\"{}\"", t.replace('\\', "\\\\").replace('"', "\\\""))
    };
    let mut out = String::new();
    out.push_str(
        "#set page(paper: \"a4\", margin: (top: 30mm, bottom: 15mm, left: 15mm, right: 15mm),\n\
         header: place(top + left, dx: -15mm, dy: 8mm, block(width: 210mm, inset: (x: 15mm))[\
         #text(14pt, weight: \"bold\")[Acme Industrial Supply GmbH] \\ #text(8pt)[Industriering 12, 70173 Stuttgart, Germany]]),\n\
         footer: context align(center, text(8pt)[Page #counter(page).display() of #counter(page).final().first()]))\n\
         #set text(font: \"DejaVu Sans\", size: 9pt)\n",
    );
    for e in page["elements"].as_array().unwrap() {
        if e["type"] == "text" {
            let _ = writeln!(out, "#text({})\n", s(&e["content"]));
        }
    }
    let cols: Vec<&Value> = table["columns"].as_array().unwrap().iter().collect();
    let widths: Vec<String> = cols
        .iter()
        .map(|c| match c["width"]["mode"].as_str() {
            Some("fixed") => format!("{}mm", c["width"]["value"]),
            _ => "1fr".into(),
        })
        .collect();
    let _ = writeln!(
        out,
        "#set text(8pt)\n#table(columns: ({}), inset: (x: 1mm, y: 0.7mm), stroke: 0.18mm + rgb(\"#999999\"),\n\
         fill: (_, y) => if y == 0 {{ rgb(\"#d9d9d9\") }} else if calc.even(y) {{ rgb(\"#f2f2f2\") }},\n\
         align: (x, _) => if x >= 2 {{ right }} else {{ left }},",
        widths.join(", ")
    );
    let headers: Vec<String> = cols
        .iter()
        .map(|c| format!("text(weight: \"bold\", {})", s(&c["header"])))
        .collect();
    let _ = writeln!(out, "table.header(repeat: true, {}),", headers.join(", "));
    for row in table["rows"].as_array().unwrap() {
        for c in &cols {
            let _ = write!(out, "{}, ", s(&row[c["key"].as_str().unwrap()]));
        }
        out.push('\n');
    }
    out.push_str(")\n#align(right, block(width: 80mm)[Subtotal, VAT 19%, Total])\n");
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Seconds per document for labelpress and the naive lowering, interleaved.
fn compare(engine: &Engine, docs: &[Value], rounds: usize) -> (f64, f64, usize) {
    let bodies: Vec<Vec<u8>> = docs
        .iter()
        .map(|d| serde_json::to_vec(d).unwrap())
        .collect();
    let sources: Vec<String> = docs.iter().map(naive_typst).collect();
    let (mut ours, mut naive) = (Vec::new(), Vec::new());
    let mut sheets = 0;
    for round in 0..rounds {
        let i = round % docs.len();
        let start = Instant::now();
        let rendered = engine.render_bytes(&bodies[i]).unwrap();
        ours.push(start.elapsed().as_secs_f64());
        sheets = rendered.sheets;
        let start = Instant::now();
        engine.render_typst(sources[i].clone()).unwrap();
        naive.push(start.elapsed().as_secs_f64());
    }
    (median(ours), median(naive), sheets)
}

/// Peak RSS (MiB) of a child process that renders one document one way.
fn peak_rss_child(which: &str) -> f64 {
    let out = Command::new(std::env::current_exe().unwrap())
        .env("INVOICE_BENCH_CHILD", which)
        .output()
        .unwrap();
    // The generator reports on stdout first; the figure is the last line.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(f64::NAN)
}

/// INVOICE20K against INVOICE in a fresh process, every document new to
/// it (medians of 3 and 8 distinct invoices, ours only).
fn fresh_child() -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .env("INVOICE_BENCH_CHILD", "fresh")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

fn fresh() {
    let engine = engine();
    let median_of = |kind: &str, count: usize| {
        let bodies: Vec<Vec<u8>> = invoices(kind, count)
            .iter()
            .map(|d| serde_json::to_vec(d).unwrap())
            .collect();
        let times = bodies
            .iter()
            .map(|body| {
                let start = Instant::now();
                engine.render_bytes(body).unwrap();
                start.elapsed().as_secs_f64()
            })
            .collect();
        median(times)
    };
    let (small, large) = (median_of("invoice", 8), median_of("invoice20k", 3));
    println!(
        "INVOICE20K / INVOICE in a fresh process, every document new to it (medians of 3 and 8): {large:.2} s / {small:.3} s = {:.1}x",
        large / small
    );
}

fn child(which: &str) {
    // A forked child starts with its parent's current RSS as its peak (and
    // the parent has just rendered 20,000 rows): reset the peak first.
    std::fs::write("/proc/self/clear_refs", "5").expect("resetting the peak RSS");
    let engine = engine();
    let doc = &invoices("invoice20k", 1)[0];
    if which == "ours" {
        engine
            .render_bytes(&serde_json::to_vec(doc).unwrap())
            .unwrap();
    } else {
        engine.render_typst(naive_typst(doc)).unwrap();
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak_kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN);
    println!("{}", peak_kib / 1024.0);
}

fn main() {
    match std::env::var("INVOICE_BENCH_CHILD").as_deref() {
        Ok("fresh") => return fresh(),
        Ok(which) => return child(which),
        Err(_) => {}
    }
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let engine = engine();
    if !bench {
        // Smoke run under `cargo test`: a short invoice renders, sheets > 1.
        let mut doc = invoices("invoice", 1).remove(0);
        let rows = doc["pages"][0]["elements"][5]["children"][0]["rows"]
            .as_array_mut()
            .unwrap();
        rows.truncate(200);
        let (_, _, sheets) = compare(&engine, &[doc], 1);
        assert!(
            sheets >= 4,
            "200 rows should take several sheets, got {sheets}"
        );
        return;
    }
    let docs = invoices("invoice", 4);
    compare(&engine, &docs, 2); // warm-up
    let (ours, naive, sheets) = compare(&engine, &docs, 12);
    println!(
        "INVOICE 2,000 rows ({sheets} sheets): labelpress {:.3} s, naive table(...) {:.3} s, ratio {:.2}x faster",
        ours,
        naive,
        naive / ours
    );
    if args.iter().any(|a| a == "20k") {
        let docs = invoices("invoice20k", 1);
        let (ours20, naive20, sheets) = compare(&engine, &docs, 1);
        println!(
            "INVOICE20K ({sheets} sheets): labelpress {ours20:.2} s ({:.1}x the 2,000-row time), naive table(...) {naive20:.2} s, ratio {:.2}x faster",
            ours20 / ours,
            naive20 / ours20
        );
        // The ratio above sets one cold 20,000-row render against the
        // median of 2,000-row invoices rendered again and again, which
        // Typst's cache partly remembers, in a process that has just run
        // the naive tables. A fresh process renders documents new to it.
        println!("{}", fresh_child());
        println!(
            "INVOICE20K peak RSS (fresh process each): labelpress {:.0} MiB, naive table(...) {:.0} MiB",
            peak_rss_child("ours"),
            peak_rss_child("naive")
        );
    }
}
