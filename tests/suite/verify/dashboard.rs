//! The dashboard at `/admin` in headless Chromium: `tests/dashboard/drive.js`
//! signs in, creates a token, spends with the secret it reads from the page,
//! reads the usage chart, tops up, sets expiry, searches and pages, bans,
//! unbans and revokes through the UI, and checks the layout from 360 to
//! 1,920 px (screenshots kept, see `driver::artifacts`). Needs node and
//! Chromium (`tests/dashboard/install.sh`); fails, never skips, without.

use super::support::*;
use crate::dashboard::driver::{self, drive};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_manages_tokens_in_a_browser() {
    let h = start().await;
    let summary = drive(&h.base, ADMIN, None, "verifier").await;
    driver::check_screenshots("verifier", &summary);
    let id = summary["id"].as_str().unwrap();
    // The store agrees with what the page showed.
    let record = h.service.token(id).await.unwrap();
    assert_eq!(record.account, summary["account"].as_str().unwrap());
    assert_eq!(record.balance, 12, "10 - 3 + 5");
    assert_eq!(
        labelpress::verify::rules::status(&record, now_ms()),
        "revoked"
    );
    assert_eq!(record.expires_at, None);
    assert_eq!(
        record
            .recent_usage()
            .iter()
            .map(|u| u.count)
            .collect::<Vec<_>>(),
        vec![3]
    );
    assert_eq!(summary["units"], 3);
    let banned = h
        .admin("GET", "/tokens", None)
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["status"] == "banned");
    assert!(!banned, "the accounts were unbanned");
    assert_eq!(
        h.admin("GET", "/accounts/banned", None).await.body,
        serde_json::json!([])
    );
}
