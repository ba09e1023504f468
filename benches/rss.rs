//! Memory over many distinct documents: renders N labels, each with different
//! text, and prints RSS every N/10 renders. RSS must stay flat (comemo's cache
//! is evicted after each render).
//!
//! `mixed`: the same with the system's fonts and the default fallback list,
//! the recipient's name and address lines rotating label by label among
//! Latin, Japanese, Korean, Chinese, Thai, Devanagari, Arabic and Hebrew (the
//! CJK labels with their `metadata.language`), so that every fallback face in
//! use is loaded and shaped from, over and over. RSS must stay flat after the
//! warm-up here too (faces are loaded once and kept). Each line also shows
//! RSS's heap and mapped-file parts.
//! Only run when asked (it needs `fonts-noto-core` and `fonts-noto-cjk`).
//!
//! Run: `cargo bench --profile dev --bench rss -- 10000`
//! and `cargo bench --profile dev --bench rss -- mixed 10000` (10,000 by default)

use labelpress::engine::fonts::FontOptions;
use labelpress::Engine;
use serde_json::Value;

fn rss_mib() -> f64 {
    status_mib("VmRSS:")
}

/// A line of /proc/self/status in MiB (VmRSS, RssAnon: the heap, RssFile:
/// mapped files such as fonts and the binary).
fn status_mib(key: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    // `cargo test --all-targets` runs this without `--bench`: a short smoke run.
    let benching = std::env::args().any(|a| a == "--bench");
    let mixed = std::env::args().skip(1).any(|a| a == "mixed");
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(match (benching, mixed) {
            (true, true) => 10_000,
            (true, false) => 2000,
            (false, _) => 20,
        });
    let template: Value = serde_json::from_str(include_str!("../examples/label.json")).unwrap();
    if mixed {
        let engine = Engine::new(Default::default(), &FontOptions::SYSTEM, None);
        let missing: Vec<&str> = SCRIPTS
            .iter()
            .filter_map(|s| s.family)
            .filter(|f| !engine.fonts().fallback().iter().any(|g| g == f))
            .collect();
        if !missing.is_empty() {
            eprintln!("mixed needs these fallback families installed: {missing:?}");
            std::process::exit(1);
        }
        println!(
            "mixed scripts: {}",
            SCRIPTS
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
        run(&engine, n, true, |i| mixed_label(&template, i, n));
    } else {
        let engine = Engine::new(Default::default(), &FontOptions::EMBEDDED, None);
        run(&engine, n, false, |i| {
            let mut doc = template.clone();
            let elements = doc["pages"][0]["elements"].as_array_mut().unwrap();
            elements.push(serde_json::json!({"type": "text", "x": 6, "y": 60, "content": format!("Parcel {i} of {n}: {}", i * 7919 % 100_003)}));
            elements[9]["content"] = format!(
                "[B]Recipient {i}[/B]\nStreet {}\n{} City",
                i % 200,
                10_000 + i
            )
            .into();
            doc
        });
    }
}

/// Renders `n` documents, `doc(i)` the i-th, printing RSS every n/10 (with
/// `split`, also its heap and mapped-file parts) and the growth after the
/// first tenth.
fn run(engine: &Engine, n: usize, split: bool, doc: impl Fn(usize) -> Value) {
    let start = std::time::Instant::now();
    let mut first = 0.0;
    for i in 0..n {
        engine
            .render_bytes(&serde_json::to_vec(&doc(i)).unwrap())
            .unwrap();
        if i == n / 10 {
            first = rss_mib();
        }
        if (i + 1) % (n / 10).max(1) == 0 {
            labelpress::engine::memory::trim();
            let parts = if split {
                format!(
                    " (anon {:.1}, file {:.1})",
                    status_mib("RssAnon:"),
                    status_mib("RssFile:")
                )
            } else {
                String::new()
            };
            println!(
                "{:>6} renders  RSS {:>7.1} MiB{parts}  {:.2} ms/render",
                i + 1,
                rss_mib(),
                start.elapsed().as_secs_f64() * 1000.0 / (i + 1) as f64
            );
        }
    }
    println!("RSS growth after warm-up: {:+.1} MiB", rss_mib() - first);
}

/// One script of the mixed mode: its recipient lines for label i.
struct Script {
    name: &'static str,
    /// The fallback family that draws it (None: the text's own family).
    family: Option<&'static str>,
    /// `metadata.language`, for Han characters' forms.
    language: Option<&'static str>,
    lines: fn(usize) -> String,
}

const SCRIPTS: [Script; 8] = [
    Script {
        name: "Latin",
        family: None,
        language: None,
        lines: |i| {
            format!(
                "[B]Recipient {i}[/B]\nStreet {}\n{} City",
                i % 200,
                10_000 + i
            )
        },
    },
    Script {
        name: "Japanese",
        family: Some("Noto Sans CJK JP"),
        language: Some("ja"),
        lines: |i| {
            format!(
                "[B]山田太郎 {i}[/B]\n東京都千代田区千代田{}-1\n〒100-{:04} 日本",
                i % 200,
                i % 10_000
            )
        },
    },
    Script {
        name: "Korean",
        family: Some("Noto Sans CJK JP"),
        language: Some("ko"),
        lines: |i| {
            format!(
                "[B]김민준 {i}[/B]\n서울특별시 종로구 세종대로 {}\n{:05} 대한민국",
                i % 200,
                3000 + i % 1000
            )
        },
    },
    Script {
        name: "Chinese",
        family: Some("Noto Sans CJK JP"),
        language: Some("zh-CN"),
        lines: |i| {
            format!(
                "[B]王伟 {i}[/B]\n北京市朝阳区建国路{}号\n{} 中国",
                i % 200,
                100_000 + i % 1000
            )
        },
    },
    Script {
        name: "Thai",
        family: Some("Noto Sans Thai"),
        language: None,
        lines: |i| {
            format!(
                "[B]สมชาย ใจดี {i}[/B]\n{} ถนนสุขุมวิท กรุงเทพมหานคร\n{} ประเทศไทย",
                i % 200,
                10_110 + i % 100
            )
        },
    },
    Script {
        name: "Devanagari",
        family: Some("Noto Sans Devanagari"),
        language: None,
        lines: |i| {
            format!(
                "[B]राहुल शर्मा {i}[/B]\n{} कनॉट प्लेस, नई दिल्ली\n{} भारत",
                i % 200,
                110_001 + i % 100
            )
        },
    },
    Script {
        name: "Arabic",
        family: Some("Noto Sans Arabic"),
        language: None,
        lines: |i| {
            format!(
                "[B]محمد العتيبي {i}[/B]\nشارع الملك فهد {}\nالرياض {}",
                i % 200,
                11_564 + i % 100
            )
        },
    },
    Script {
        name: "Hebrew",
        family: Some("Noto Sans Hebrew"),
        language: None,
        lines: |i| {
            format!(
                "[B]דוד כהן {i}[/B]\nשדרות רוטשילד {}\nתל אביב {}",
                i % 200,
                6_688_101 + i % 100
            )
        },
    },
];

/// Label i of the mixed mode: the recipient's lines in script i mod 8.
fn mixed_label(template: &Value, i: usize, n: usize) -> Value {
    let script = &SCRIPTS[i % SCRIPTS.len()];
    let mut doc = template.clone();
    if let Some(language) = script.language {
        doc["settings"]["metadata"]["language"] = language.into();
    }
    let elements = doc["pages"][0]["elements"].as_array_mut().unwrap();
    elements.push(serde_json::json!({"type": "text", "x": 6, "y": 60, "content": format!("Parcel {i} of {n}: {}", i * 7919 % 100_003)}));
    elements[9]["content"] = (script.lines)(i).into();
    doc
}
