//! The README's quickstart, run as a newcomer would paste it into a shell:
//! start the server, wait for it, create a token, render with curl, fetch a
//! barcode. Only what cannot work in a test changes: `cargo run -q --` is
//! the built binary, and the port is a free one instead of 8080 (given to
//! the server as `LABELPRESS_LISTEN` and to `labelpress token` as
//! `LABELPRESS_URL`, and replaced in the URLs the block sends to).

use std::process::Command;

use crate::server::{binary, free_port};
use crate::support::*;

/// The shell block that follows the `<!-- quickstart` marker in README.md.
fn quickstart_block() -> String {
    let readme = std::fs::read_to_string(manifest_dir().join("README.md")).unwrap();
    let after = readme
        .split_once("<!-- quickstart")
        .expect("README has a quickstart marker")
        .1;
    let block = after
        .split_once("```sh\n")
        .expect("a sh block after the marker")
        .1;
    block
        .split_once("```")
        .expect("the block ends")
        .0
        .to_string()
}

#[test]
fn readme_quickstart_renders_a_label_over_http() {
    let block = quickstart_block();
    assert!(
        block.contains("cargo run -q -- serve") && block.contains("/api/v1/label"),
        "the quickstart starts the server and renders: {block}"
    );
    // The newcomer's checkout: the examples the block sends, nothing else.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &manifest_dir().join("examples"),
        &dir.path().join("examples"),
    );
    let port = free_port();
    let script = block
        .replace("cargo run -q --", "\"$LABELPRESS_BIN\"")
        .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}"));
    // The background server goes when the script ends, however it ends.
    // The background server goes when the script ends, however it ends;
    // before that, the ledger is read back through the admin API (usage
    // reaches it from the render node's outbox within moments).
    let script = format!(
        "set -eu\ntrap 'kill $(jobs -p) 2>/dev/null; wait' EXIT\n{script}\n\
         for _ in $(seq 100); do\n\
           \"$LABELPRESS_BIN\" token list --json > tokens.json\n\
           grep -q '\"balance\": 100' tokens.json || break\n\
           sleep 0.1\n\
         done\n"
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("LABELPRESS_BIN", binary())
        .env("LABELPRESS_LISTEN", format!("127.0.0.1:{port}"))
        .env("LABELPRESS_URL", format!("http://127.0.0.1:{port}"))
        .env_remove("LABELPRESS_ADMIN_TOKEN")
        .env_remove("LABELPRESS_DATA_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "quickstart failed: {stderr}");

    // The label as the README renders it offline: same pages and text.
    let pdf = std::fs::read(dir.path().join("label.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"), "label.pdf is a PDF: {stderr}");
    let served = read_pdf(pdf);
    let request: serde_json::Value =
        serde_json::from_slice(&std::fs::read(manifest_dir().join("examples/label.json")).unwrap())
            .unwrap();
    assert_eq!(
        served.page_count(),
        request["pages"].as_array().unwrap().len()
    );
    let first_text = request["pages"][0]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "text" && !e["content"].as_str().unwrap().contains('['))
        .expect("the example has a plain text element")["content"]
        .as_str()
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(
        served.text(0).contains(&first_text),
        "{first_text:?} in {:?}",
        served.text(0)
    );

    // The barcode is an SVG of a QR Code that decodes to the URL it was
    // asked for (percent-decoded).
    let svg_path = dir.path().join("qr.svg");
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.contains("<svg"), "{svg}");
    let decoded = python_json("../barcode/decode.py", &[svg_path.as_os_str()], "zxing-cpp");
    let symbols = decoded[svg_path.to_str().unwrap()].as_array().unwrap();
    assert_eq!(symbols.len(), 1, "{decoded}");
    assert_eq!(symbols[0]["format"], "QR Code");
    assert_eq!(symbols[0]["text"], "https://example.com");

    // The token the block created paid for exactly the one render.
    let tokens: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("tokens.json")).unwrap()).unwrap();
    let demo: Vec<_> = tokens
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["account"] == "demo")
        .collect();
    assert_eq!(demo.len(), 1, "{tokens}");
    assert_eq!(demo[0]["balance"], 99, "{tokens}");
}
