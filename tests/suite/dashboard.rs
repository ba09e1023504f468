//! The dashboard against a full `labelpress serve` in headless Chromium:
//! `tests/dashboard/drive.js render` creates a token in the page, renders a
//! label with it through `POST /api/v1/label`, and sees the balance drop and
//! the render in the usage chart, then spends, tops up, expires, searches
//! and pages, bans, unbans and revokes through the UI, and checks the layout
//! from 360 to 1,920 px (screenshots kept, see `driver::artifacts`). Needs
//! node and Chromium (`tests/dashboard/install.sh`); fails, never skips,
//! without.

use crate::server::{self, ADMIN};

#[path = "../dashboard/drive.rs"]
pub(crate) mod driver;
use driver::drive;

async fn get(base: &str, path: &str) -> serde_json::Value {
    server::client()
        .get(format!("{base}/admin/api{path}"))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_made_in_the_dashboard_renders_and_its_balance_drops() {
    let data = tempfile::tempdir().unwrap();
    let node = server::start(data.path(), &[]);
    let summary = drive(&node.base, ADMIN, Some("render"), "serve").await;
    driver::check_screenshots("serve", &summary);
    // 10, one render, 3 verified, topped up by 5.
    assert_eq!(summary["balance"], 11);
    assert_eq!(summary["units"], 4, "the render and the 3 verified");
    let id = summary["id"].as_str().unwrap();
    let token = get(&node.base, &format!("/tokens/{id}")).await;
    assert_eq!(token["balance"], 11, "{token}");
    assert_eq!(token["status"], "revoked");
    // The chart's numbers are the ledger's.
    let usage = get(&node.base, &format!("/usage?token={id}&bucket=day")).await;
    assert_eq!(
        (usage["units"].as_u64(), usage["deductions"].as_u64()),
        (Some(4), Some(2)),
        "{usage}"
    );
    // Both accounts were unbanned at the end.
    assert_eq!(
        get(&node.base, "/accounts/banned").await,
        serde_json::json!([])
    );
    let others = summary["others"].as_str().unwrap();
    let page = get(
        &node.base,
        &format!("/tokens?account={others}&status=revoked"),
    )
    .await;
    assert_eq!(page["total"], 1, "{page}");
}
