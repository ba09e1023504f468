//! Shared helpers of the barcode tests: render to SVG files and decode them
//! with zxing-cpp through `tests/barcode/decode.py`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use labelpress_barcode::{self as barcode, Options, Symbology};

/// One decoded symbol as reported by decode.py.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Decoded {
    pub format: String,
    pub text: String,
    pub hri: Option<String>,
    pub symbology_identifier: String,
    pub bytes_hex: String,
    /// The error-correction level the symbol declares, as zxing-cpp reports
    /// it (PDF417: the level's number).
    #[serde(default)]
    pub ec_level: Option<String>,
}

pub fn svg(symbology: &str, content: &str, opts: &[(&str, &str)]) -> String {
    let sym: Symbology = symbology.parse().expect("symbology");
    let options = Options::from_pairs(sym, opts.iter().copied())
        .unwrap_or_else(|e| panic!("{symbology} {opts:?}: {e}"));
    barcode::to_svg(sym, content, &options)
        .unwrap_or_else(|e| panic!("{symbology} {content:?} {opts:?}: {e}"))
}

/// `tests/barcode/decode.py` of the workspace, found from the crate the
/// test belongs to (the barcode crate's tests and the root suite share it).
/// The crate's folder is the one cargo runs the test in, when it says so:
/// a test binary reused from a target folder shared between clones (CI's)
/// was built in another clone, whose path `env!` kept.
fn script() -> PathBuf {
    let mut dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    loop {
        let script = dir.join("tests/barcode/decode.py");
        if script.exists() {
            return script;
        }
        assert!(dir.pop(), "tests/barcode/decode.py not found");
    }
}

/// Decode every SVG file in one Python run. Fails (never skips) when
/// Python or its packages are missing: CI installs them.
pub fn decode_files(paths: &[PathBuf], zoom: f64) -> HashMap<String, Vec<Decoded>> {
    let python = std::env::var("LABELPRESS_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .arg(script())
        .arg("--zoom")
        .arg(zoom.to_string())
        .args(paths)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {python} (needed to decode barcodes; install python3 and `pip install -r tests/barcode/requirements.txt`): {e}")
        });
    assert!(
        out.status.success(),
        "decode.py failed ({}): {}\nInstall: pip install -r tests/barcode/requirements.txt",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("decode.py prints JSON")
}

/// A fresh directory for this test's SVG files.
pub fn workdir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("labelpress-barcode-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
