//! The dashboard at `/admin` in headless Chromium: `tests/dashboard/drive.js`
//! signs in, creates a token, spends with the secret it reads from the page,
//! tops up, sets expiry, bans, unbans and revokes through the UI. Needs node
//! and Chromium (`tests/dashboard/install.sh`); fails, never skips, without.

mod verify_support;

use std::path::Path;

use verify_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_manages_tokens_in_a_browser() {
    let dashboard = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/dashboard");
    assert!(
        dashboard.join("node_modules/playwright-core").is_dir(),
        "playwright-core is not installed: run tests/dashboard/install.sh"
    );
    let h = start().await;
    let (script, base) = (dashboard.join("drive.js"), h.base.clone());
    // Off the runtime's threads: the server keeps answering the browser.
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node")
            .arg(script)
            .arg(base)
            .arg(ADMIN)
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
    let id = summary["id"].as_str().unwrap();
    // The store agrees with what the page showed.
    let detail = h.service.token(id).unwrap();
    assert_eq!(detail.token.account, summary["account"].as_str().unwrap());
    assert_eq!(detail.token.balance, 12, "10 - 3 + 5");
    assert_eq!(detail.token.status, "revoked");
    assert_eq!(detail.token.expires_at, None);
    assert_eq!(
        detail.usage.iter().map(|u| u.count).collect::<Vec<_>>(),
        vec![3]
    );
    let banned = h
        .admin("GET", "/tokens", None)
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["status"] == "banned");
    assert!(!banned, "the account was unbanned");
}
