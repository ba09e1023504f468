//! The dashboard against a full `labelpress serve` in headless Chromium:
//! `tests/dashboard/drive.js render` creates a token in the page, renders a
//! label with it through `POST /api/v1/label`, and sees the balance drop,
//! then spends, tops up, expires, bans and revokes through the UI. Needs node
//! and Chromium (`tests/dashboard/install.sh`); fails, never skips, without.

use crate::server::{self, ADMIN};

#[path = "../dashboard/drive.rs"]
mod driver;
use driver::drive;

#[tokio::test(flavor = "multi_thread")]
async fn a_token_made_in_the_dashboard_renders_and_its_balance_drops() {
    let data = tempfile::tempdir().unwrap();
    let node = server::start(data.path(), &[]);
    let summary = drive(&node.base, ADMIN, Some("render")).await;
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
