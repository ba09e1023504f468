//! Runs `tests/dashboard/drive.js` against a server and returns the JSON
//! summary it prints last. Shared by the verifier's and the full node's
//! dashboard tests (`#[path]`-included into both test crates).

use std::path::Path;

/// Drives the dashboard at `base` in headless Chromium; `mode` is the
/// script's optional third argument (e.g. `render`). Fails, never skips,
/// without node and Chromium (`tests/dashboard/install.sh`).
pub async fn drive(base: &str, admin: &str, mode: Option<&str>) -> serde_json::Value {
    let dashboard = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dashboard");
    assert!(
        dashboard.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: run tests/dashboard/install.sh"
    );
    let mut command = std::process::Command::new("node");
    command.arg(dashboard.join("drive.js")).arg(base).arg(admin);
    command.args(mode);
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
