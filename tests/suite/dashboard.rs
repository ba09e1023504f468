//! The dashboard against a full `labelpress serve` in headless Chromium:
//! `tests/dashboard/drive.js render` creates a token in the page, renders a
//! label with it through `POST /api/v1/label`, and sees the balance drop,
//! then spends, tops up, expires, bans and revokes through the UI. Needs node
//! and Chromium (`tests/dashboard/install.sh`); fails, never skips, without.

use std::path::Path;

use crate::server::{self, ADMIN};

#[tokio::test(flavor = "multi_thread")]
async fn a_token_made_in_the_dashboard_renders_and_its_balance_drops() {
    let dashboard = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dashboard");
    assert!(
        dashboard.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: run tests/dashboard/install.sh"
    );
    let data = tempfile::tempdir().unwrap();
    let node = server::start(data.path(), &[]);
    let (script, base) = (dashboard.join("drive.js"), node.base.clone());
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node")
            .arg(script)
            .arg(base)
            .arg(ADMIN)
            .arg("render")
            .output()
    })
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
    let summary: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    // 10, one render, 3 verified, topped up by 5.
    assert_eq!(summary["balance"], 11);
    let id = summary["id"].as_str().unwrap();
    let token: serde_json::Value = server::client()
        .get(format!("{}/admin/api/tokens/{id}", node.base))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(token["balance"], 11, "{token}");
    assert_eq!(token["status"], "revoked");
}
