//! A 200 from `/v1/verify` is on disk before it is sent: it survives the
//! service being dropped and reopened, and the process being killed.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use super::support::*;
use labelpress::verify::admin::NewToken;
use labelpress::verify::{Verdict, Verifier, VerifyCall, VerifyService};
use serde_json::json;

const CHILD_DIR: &str = "LABELPRESS_TEST_VERIFY_CHILD_DIR";

#[tokio::test]
async fn deductions_survive_reopening_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let service = VerifyService::open(dir.path(), None).unwrap();
    let admin = service.admin_token().to_string();
    let created = service
        .create_token(NewToken {
            account: "acme".into(),
            balance: 10,
            expires_at: None,
            rate_limit: None,
        })
        .await
        .unwrap();
    let call = VerifyCall {
        token: created.token.clone(),
        count: 4,
        dry_run: false,
        idempotency_key: Some("once".into()),
        uncharged: false,
        purpose: Default::default(),
    };
    let syncs = service.syncs().expect("the embedded ledger");
    assert!(matches!(
        service.verify(call.clone()).await.unwrap(),
        Verdict::Granted(g) if g.balance == 6
    ));
    // The answer waited for an fdatasync of the store's log, not only for
    // sled's flush.
    assert!(service.syncs().unwrap() > syncs);
    // A dry run writes nothing and waits for no sync.
    let syncs = service.syncs().unwrap();
    let dry = VerifyCall {
        dry_run: true,
        idempotency_key: None,
        ..call.clone()
    };
    assert!(matches!(
        service.verify(dry).await.unwrap(),
        Verdict::Granted(_)
    ));
    assert_eq!(service.syncs().unwrap(), syncs);
    drop(service);
    let reopened = VerifyService::open(dir.path(), None).unwrap();
    assert_eq!(
        reopened.admin_token(),
        admin,
        "the admin token file is reused"
    );
    assert_eq!(reopened.token(&created.id).await.unwrap().balance, 6);
    // The idempotency answer survived too: the same key deducts nothing.
    assert!(matches!(
        reopened.verify(call).await.unwrap(),
        Verdict::Granted(g) if g.balance == 6
    ));
    assert_eq!(reopened.token(&created.id).await.unwrap().balance, 6);
}

#[test]
fn a_granted_deduction_survives_the_process_being_killed() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "verify::durability::verifier_child_process",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD_DIR, dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines
            .next()
            .expect("the child printed its address")
            .unwrap();
        if let Some(addr) = line.strip_prefix("LISTEN ") {
            break format!("http://{addr}");
        }
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (id, balances) = runtime.block_on(async {
        let client = reqwest::Client::new();
        let created: serde_json::Value = client
            .post(format!("{base}/admin/api/tokens"))
            .bearer_auth(ADMIN)
            .json(&json!({"account": "acme", "balance": 100}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let secret = created["token"].as_str().unwrap().to_string();
        let mut balances = Vec::new();
        for count in [3, 4, 5] {
            let r: serde_json::Value = client
                .post(format!("{base}/v1/verify"))
                .bearer_auth(&secret)
                .json(&json!({ "count": count }))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            balances.push(r["balance"].as_u64().unwrap());
        }
        (created["id"].as_str().unwrap().to_string(), balances)
    });
    assert_eq!(balances, vec![97, 93, 88]);
    // SIGKILL: no destructor, no sled flush on drop. Only what was synced
    // before each answer is on disk (sled's own periodic flush is off).
    child.kill().unwrap();
    child.wait().unwrap();
    let reopened = VerifyService::open(dir.path(), Some(ADMIN.into())).unwrap();
    let detail = runtime.block_on(reopened.token(&id)).unwrap();
    assert_eq!(detail.balance, 88);
    assert_eq!(detail.usage.len(), 3);
}

/// Not a test: the process `a_granted_deduction_survives_the_process_being_killed`
/// starts and kills.
#[test]
#[ignore = "run by a_granted_deduction_survives_the_process_being_killed"]
fn verifier_child_process() {
    let Some(dir) = std::env::var_os(CHILD_DIR) else {
        return;
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let service = VerifyService::open(std::path::Path::new(&dir), Some(ADMIN.into())).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        println!("LISTEN {}", listener.local_addr().unwrap());
        axum::serve(listener, labelpress::verify::router(service))
            .await
            .unwrap();
    });
}
