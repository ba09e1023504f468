//! Runs `tests/dashboard/drive.js` against a server and returns the JSON
//! summary it prints last. Shared by the verifier's and the full node's
//! dashboard tests (`#[path]`-included into both test crates).

use std::path::{Path, PathBuf};

/// Where the screenshots of the run named `run` are kept:
/// `<CARGO_TARGET_TMPDIR>/dashboard/<run>/dashboard-{390,1280}.png`.
pub fn artifacts(run: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("dashboard")
        .join(run)
}

/// Drives the dashboard at `base` in headless Chromium; `mode` is the
/// script's optional third argument (e.g. `render`); screenshots go to
/// [`artifacts`]`(run)`. Fails, never skips, without node and Chromium
/// (`tests/dashboard/install.sh`).
pub async fn drive(base: &str, admin: &str, mode: Option<&str>, run: &str) -> serde_json::Value {
    let dashboard = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dashboard");
    assert!(
        dashboard.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: run tests/dashboard/install.sh"
    );
    let shots = artifacts(run);
    // Screenshots of an earlier run must not pass for this one's.
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).unwrap();
    println!("dashboard screenshots: {}", shots.display());
    let mut command = std::process::Command::new("node");
    command.arg(dashboard.join("drive.js")).arg(base).arg(admin);
    command.args(mode);
    command.env("DASHBOARD_ARTIFACTS", &shots);
    // Off the runtime's threads: the server keeps answering the browser.
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .expect("node is required: run tests/dashboard/install.sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "drive.js failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap()
}

/// The width and height of the PNG at `path`, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        path.display()
    );
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

/// The run's full-page screenshots exist and are exactly as wide as the
/// window they were taken in: a page wider than its window (horizontal
/// overflow) would make a wider full-page image.
pub fn check_screenshots(run: &str, summary: &serde_json::Value) {
    let listed: Vec<&str> = summary["screenshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    for width in [390, 1280] {
        let path = artifacts(run).join(format!("dashboard-{width}.png"));
        assert!(listed.contains(&path.to_str().unwrap()), "{listed:?}");
        let (w, h) = png_size(&path);
        assert_eq!(w, width, "{}: {w}x{h}", path.display());
        assert!(h >= 900, "{}: {w}x{h}", path.display());
    }
}
