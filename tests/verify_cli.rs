//! `labelpress token ...` against a router on a loopback socket: every
//! subcommand, the admin token from flag, env or `--data-dir`, and errors.

mod verify_support;

use std::process::Output;

use serde_json::Value;
use verify_support::*;

/// Runs the binary off the runtime's threads (the server keeps serving).
async fn labelpress(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_labelpress"));
    command
        .args(args)
        .env_remove("LABELPRESS_ADMIN_TOKEN")
        .env_remove("LABELPRESS_URL")
        .env_remove("LABELPRESS_DATA_DIR");
    for (k, v) in envs {
        command.env(k, v);
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn json_out(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "{:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_token_subcommand_drives_the_admin_api() {
    let h = start().await;
    let base = ["--url", h.base.as_str(), "--admin-token", ADMIN];
    let run = |extra: &[&str]| {
        let args: Vec<&str> = ["token"]
            .iter()
            .chain(&base)
            .chain(extra)
            .copied()
            .collect();
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        async move {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            labelpress(&refs, &[]).await
        }
    };

    let created = json_out(
        &run(&[
            "create",
            "--account",
            "acme",
            "--balance",
            "10",
            "--expires",
            "+30d",
            "--rate-limit",
            "5/10",
        ])
        .await,
    );
    let secret = created["token"].as_str().unwrap().to_string();
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["balance"], 10);
    assert_eq!(
        created["rate_limit"],
        serde_json::json!({"per_second": 5, "burst": 10})
    );
    let expires = created["expires_at"].as_i64().unwrap();
    assert!((expires - now_ms() - 30 * 86_400_000).abs() < 60_000);
    // The secret works.
    assert_eq!(h.verify(&secret, 2).await.body["balance"], 8);

    let list = run(&["list"]).await;
    let table = String::from_utf8(list.stdout).unwrap();
    let row = table.lines().find(|l| l.starts_with(&id)).expect(&table);
    assert!(table.starts_with("ID "), "{table}");
    for cell in [&secret[..8], "acme", "8", "active"] {
        assert!(row.split_whitespace().any(|c| c == cell), "{cell} in {row}");
    }
    assert!(!table.contains(&secret));
    let listed = json_out(&run(&["list", "--json"]).await);
    assert_eq!(listed[0]["id"], id.as_str());
    assert!(!listed.to_string().contains(&secret));

    let shown = json_out(&run(&["show", &id]).await);
    assert_eq!(shown["usage"][0]["count"], 2);

    assert_eq!(json_out(&run(&["topup", &id, "5"]).await)["balance"], 13);
    assert_eq!(
        json_out(&run(&["expiry", &id, "never"]).await)["expires_at"],
        Value::Null
    );
    assert_eq!(
        json_out(&run(&["expiry", &id, "1000"]).await)["status"],
        "expired"
    );
    assert_rejected(&h.verify(&secret, 1).await, 403, "Token Expired");
    json_out(&run(&["expiry", &id, "never"]).await);

    assert_eq!(
        json_out(&run(&["ban", "acme"]).await),
        serde_json::json!({"account": "acme", "banned": true})
    );
    assert_rejected(&h.verify(&secret, 1).await, 403, "Banned");
    assert_eq!(json_out(&run(&["unban", "acme"]).await)["banned"], false);
    assert_eq!(h.verify(&secret, 1).await.body["balance"], 12);

    assert_eq!(json_out(&run(&["revoke", &id]).await)["status"], "revoked");
    assert_rejected(&h.verify(&secret, 1).await, 403, "Invalid Token");

    // An unknown id: exit 1 and the API's message.
    let missing = run(&["show", "tok_000000000000"]).await;
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("404"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_token_comes_from_flag_env_or_data_dir() {
    let dir = tempfile::tempdir().unwrap();
    let service = labelpress::verify::VerifyService::open(dir.path(), None).unwrap();
    let url = serve(service.clone()).await;
    let data_dir = dir.path().to_str().unwrap();

    let from_file = labelpress(
        &[
            "token",
            "list",
            "--json",
            "--url",
            &url,
            "--data-dir",
            data_dir,
        ],
        &[],
    )
    .await;
    assert_eq!(json_out(&from_file), serde_json::json!([]));
    let from_env = labelpress(
        &["token", "create", "--account", "e", "--balance", "1"],
        &[
            ("LABELPRESS_URL", &url),
            ("LABELPRESS_ADMIN_TOKEN", service.admin_token()),
        ],
    )
    .await;
    assert_eq!(json_out(&from_env)["account"], "e");

    let wrong = labelpress(
        &["token", "list", "--url", &url, "--admin-token", "nope"],
        &[],
    )
    .await;
    assert_eq!(wrong.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("403"));

    let nowhere = tempfile::tempdir().unwrap();
    let none = labelpress(
        &[
            "token",
            "list",
            "--url",
            &url,
            "--data-dir",
            nowhere.path().to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no admin token"));

    // Nothing listening: exit 2, not a panic.
    let unreachable = labelpress(
        &[
            "token",
            "list",
            "--url",
            "http://127.0.0.1:9",
            "--admin-token",
            "x",
        ],
        &[],
    )
    .await;
    assert_eq!(unreachable.status.code(), Some(2));
}
