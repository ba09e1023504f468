//! Single-thread render rate of one document, in-process (no HTTP, no auth),
//! the baseline `benches/load.sh` compares the server against. It renders on
//! a render thread as the server does ([`labelpress::engine::threads`]), so
//! rayon work stays on that one thread and the rate is truly single-threaded.
//!
//! `cargo run --example render_rate -- BODY_FILE SECONDS [THREADS]` prints one
//! JSON line. A BODY_FILE ending in `.typ` is Typst source (the
//! hand-written baseline, `benches/label_by_hand.typ`) rendered through the
//! same engine and fonts, with its order number `ORD-2026-000001` replaced
//! by a counter on every render: a new document each time, as
//! `benches/throughput.sh` sends LABEL with a new order number each time.
//! With THREADS > 1, that many render threads of one process render at once
//! (the server's situation without HTTP): against THREADS separate
//! processes it shows what sharing one process costs.
//! `RENDER_RATE_PAUSE_US=N` sleeps N microseconds after each render: a
//! server answering one request at a time idles between renders (the
//! client's round trip), and a render after an idle gap costs more CPU than
//! one right after another (caches and the virtual CPU gone cold), which
//! this shows in-process. `RENDER_RATE_VARY=1` gives a JSON body a new
//! order number on every render too (`ORD-2026-000000` replaced by a
//! counter, as `benches/wrk_post.lua` does with VARY).

use std::time::{Duration, Instant};

use labelpress::engine::fonts::FontOptions;
use labelpress::engine::threads;
use labelpress::Engine;

/// CPU seconds (user + system) this process has used so far.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are 14 and 15.
    let rest = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (body, seconds, threads) = match &args[..] {
        [body, seconds] => (body, seconds, 1),
        [body, seconds, threads] => (body, seconds, threads.parse().expect("threads")),
        _ => {
            eprintln!("usage: render_rate BODY_FILE SECONDS [THREADS]");
            std::process::exit(2);
        }
    };
    let typst = body.ends_with(".typ");
    let body = std::fs::read(body).expect("body file");
    let duration = Duration::from_secs_f64(seconds.parse().expect("seconds"));
    let engine = Engine::new(Default::default(), &FontOptions::EMBEDDED, None);
    let cpu_started = cpu_seconds();
    let started = Instant::now();
    let n: u64 = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    threads::become_render_thread();
                    measure(&engine, &body, typst, duration)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("renders"))
            .sum()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu_started;
    println!(
        "{}",
        serde_json::json!({"renders": n, "seconds": elapsed, "rps": n as f64 / elapsed,
            "cpu_ms_per_render": cpu * 1e3 / n.max(1) as f64})
    );
}

/// Renders `body` for `duration` after one warm-up render: the renders done.
fn measure(engine: &Engine, body: &[u8], typst: bool, duration: Duration) -> u64 {
    let source = String::from_utf8_lossy(body).into_owned();
    // The order number a new document replaces with the counter.
    let placeholder = if typst {
        "ORD-2026-000001"
    } else {
        "ORD-2026-000000"
    };
    let vary = typst || std::env::var_os("RENDER_RATE_VARY").is_some();
    let mut counter = 0u64;
    let mut render = || {
        counter += 1;
        let varied = vary.then(|| source.replace(placeholder, &format!("ORD-2026-{counter:06}")));
        if typst {
            let source = varied.expect("the hand-written source always varies");
            drop(engine.render_typst(source).expect("the source compiles"));
        } else {
            let body = varied.as_deref().map_or(body, str::as_bytes);
            drop(engine.render_bytes(body).expect("the document renders"));
        }
    };
    // Warm-up: fonts and caches as a running server has them.
    render();
    let started = Instant::now();
    let mut n = 0u64;
    let pause = std::env::var("RENDER_RATE_PAUSE_US")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_micros);
    while started.elapsed() < duration {
        render();
        n += 1;
        if let Some(pause) = pause {
            std::thread::sleep(pause);
        }
    }
    n
}
