//! Instruction counts, for a reproducible ratio under load: renders N distinct
//! labels one way. Run each under callgrind and compare the totals:
//!
//! ```sh
//! cargo bench --profile dev --bench instructions --no-run
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/debug/deps/instructions-* baseline 50
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/debug/deps/instructions-* labelpress 50
//! ```
//! (`label` is LABEL, benches/data/label.json: gen_requests.py's label,
//! the content of the hand-written `baseline`; `baseline-barcodes` is that
//! baseline with LABEL's two barcodes pre-drawn as SVG images, the baseline
//! issue 33 names. `labelpress` is examples/label.json, a richer label (a
//! routing box, more lines of text), the mode of the older figures;
//! `labelpress-barcodes` adds two more barcodes to it.)

use labelpress::engine::fonts::FontOptions;
use labelpress::Engine;

#[path = "support/predrawn.rs"]
mod predrawn;

const MODES: [&str; 5] = [
    "baseline",
    "baseline-barcodes",
    "label",
    "labelpress",
    "labelpress-barcodes",
];

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with('-'));
    let mode = args.next().unwrap_or_else(|| "labelpress".into());
    // Any other word is a filter naming none of the modes (`cargo test --
    // <filter>` passes its filter to every target): run nothing, as a
    // criterion bench does.
    if !MODES.contains(&mode.as_str()) {
        eprintln!("instructions: no mode {mode:?} (modes: {MODES:?}); nothing run");
        return;
    }
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(20);
    let engine = Engine::new(Default::default(), &FontOptions::EMBEDDED, None);
    let by_hand = include_str!("label_by_hand.typ");
    let template: serde_json::Value =
        serde_json::from_str(include_str!("../examples/label.json")).unwrap();
    // LABEL as the performance goals define it (gen_requests.py's label,
    // the content of the hand-written one) and its barcodes, drawn before
    // anything is counted.
    let label: serde_json::Value = serde_json::from_str(include_str!("data/label.json")).unwrap();
    let by_hand_barcodes = predrawn::with_predrawn_barcodes(by_hand, &label);
    let recipient = label["pages"][0]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e["type"] == "text" && e["y"] == 29)
        .expect("LABEL's recipient line at y = 29");
    for i in 0..n {
        match mode.as_str() {
            "baseline" => {
                engine
                    .render_typst(by_hand.replace("RECIPIENT", &format!("Recipient {i}")))
                    .unwrap();
            }
            "baseline-barcodes" => {
                engine
                    .render_typst(by_hand_barcodes.replace("RECIPIENT", &format!("Recipient {i}")))
                    .unwrap();
            }
            "label" => {
                let mut doc = label.clone();
                doc["pages"][0]["elements"][recipient]["content"] = format!("Recipient {i}").into();
                engine
                    .render_bytes(&serde_json::to_vec(&doc).unwrap())
                    .unwrap();
            }
            "labelpress" | "labelpress-barcodes" => {
                let mut doc = template.clone();
                let elements = doc["pages"][0]["elements"].as_array_mut().unwrap();
                elements[9]["content"] =
                    format!("[B]Recipient {i}[/B]\nLindenallee 17\n10115 Berlin\n[B]GERMANY[/B]")
                        .into();
                if mode == "labelpress-barcodes" {
                    elements.push(serde_json::json!({"type": "barcode", "x": 10, "y": 69, "width": 80, "height": 25, "format": "code128", "content": format!("SHIP{i:013}")}));
                    elements.push(serde_json::json!({"type": "barcode", "x": 8, "y": 106, "width": 25, "height": 25, "format": "qrcode", "content": format!("https://track.example-shipping.com/parcel?id=SHIP{i:011}")}));
                }
                engine
                    .render_bytes(&serde_json::to_vec(&doc).unwrap())
                    .unwrap();
            }
            other => unreachable!("{other} is not one of MODES"),
        }
    }
}
