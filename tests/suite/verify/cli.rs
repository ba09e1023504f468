//! `labelpress token ...` against a router on a loopback socket: every
//! subcommand, the admin token from flag, env or `--data-dir`, and errors.

use std::process::Output;

use super::support::*;
use serde_json::Value;

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
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("403") && stderr.contains("admin token (from --admin-token) was refused"),
        "{stderr}"
    );
    // An empty token is no token to the admin API: 401, said the same way.
    let empty = labelpress(
        &["token", "list", "--url", &url],
        &[("LABELPRESS_ADMIN_TOKEN", "")],
    )
    .await;
    let stderr = String::from_utf8_lossy(&empty.stderr);
    assert_eq!(empty.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("401") && stderr.contains("admin token") && stderr.contains("refused"),
        "{stderr}"
    );

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
}

/// Nothing listening: one line naming the URL tried, the cause and what to
/// check; exit 4 (docs/exit-codes.md), not a panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_port_is_named_with_its_cause_and_what_to_check() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}");
    let unreachable =
        labelpress(&["token", "list", "--url", &url, "--admin-token", "x"], &[]).await;
    let stderr = String::from_utf8_lossy(&unreachable.stderr);
    assert_eq!(unreachable.status.code(), Some(4), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    for part in [
        format!("GET {url}/admin/api/tokens"),
        "connection refused".into(),
        "labelpress serve --services verify".into(),
        "--url".into(),
        "LABELPRESS_URL".into(),
    ] {
        assert!(stderr.contains(&part), "{part} in {stderr}");
    }
    // Not an http(s) URL: a usage error.
    let bad = labelpress(
        &[
            "token",
            "list",
            "--url",
            "127.0.0.1:8080",
            "--admin-token",
            "x",
        ],
        &[],
    )
    .await;
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not an http:// or https:// URL"));
}

/// A stand-in server answering every request with `status` and `body`.
async fn answering(status: u16, body: Value) -> String {
    let router = axum::Router::new().fallback(move || {
        let body = body.clone();
        async move {
            (
                axum::http::StatusCode::from_u16(status).unwrap(),
                axum::Json(body),
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_server_and_a_node_without_the_admin_api_are_told_apart() {
    // The ledger down: the admin API's 503; try again later, exit 4.
    let down = answering(
        503,
        serde_json::json!({"error": "Service Unavailable", "message": "the ledger is unavailable; retry"}),
    )
    .await;
    let out = labelpress(
        &["token", "list", "--url", &down, "--admin-token", "x"],
        &[],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("503")
            && stderr.contains("the ledger is unavailable")
            && stderr.contains("try again later"),
        "{stderr}"
    );
    // A render-only node answers the render route's 404 API-005.
    let render_only = answering(
        404,
        serde_json::json!({"error": true, "code": "API-005", "message": "no such route", "req_id": "r"}),
    )
    .await;
    let out = labelpress(
        &[
            "token",
            "show",
            "tok_x",
            "--url",
            &render_only,
            "--admin-token",
            "x",
        ],
        &[],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no admin API there") && stderr.contains("--services verify"),
        "{stderr}"
    );
}

/// Expiries as a person types them, read back through `token show`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expiries_take_dates_times_offsets_durations_and_never() {
    let h = start().await;
    let token = |extra: &[&str]| {
        let mut args: Vec<String> = ["token", "--url", &h.base, "--admin-token", ADMIN]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        async move {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            labelpress(&refs, &[]).await
        }
    };
    // 2027-01-01T00:00:00Z: a date is valid through that whole day, UTC.
    const NEW_YEAR_2027: i64 = 1_798_761_600_000;
    let created = json_out(
        &token(&[
            "create",
            "--account",
            "dates",
            "--balance",
            "1",
            "--expires",
            "2026-12-31",
        ])
        .await,
    );
    assert_eq!(created["expires_at"], NEW_YEAR_2027);
    let id = created["id"].as_str().unwrap().to_string();
    let shown_expiry = || async { json_out(&token(&["show", &id]).await)["expires_at"].clone() };
    assert_eq!(shown_expiry().await, NEW_YEAR_2027);

    for (when, expected) in [
        ("2026-12-31T18:00", NEW_YEAR_2027 - 6 * 3_600_000),
        ("2026-12-31 18:00", NEW_YEAR_2027 - 6 * 3_600_000),
        ("2026-12-31T18:00:00Z", NEW_YEAR_2027 - 6 * 3_600_000),
        ("2026-12-31T18:00+02:00", NEW_YEAR_2027 - 8 * 3_600_000),
        ("2026-12-31", NEW_YEAR_2027),
    ] {
        let set = json_out(&token(&["expiry", &id, when]).await);
        assert_eq!(set["expires_at"], expected, "{when}");
        assert_eq!(shown_expiry().await, expected, "{when}");
    }
    for (when, ahead) in [("30d", 30 * 86_400_000), ("+12h", 12 * 3_600_000)] {
        json_out(&token(&["expiry", &id, when]).await);
        let at = shown_expiry().await.as_i64().unwrap();
        assert!((at - now_ms() - ahead).abs() < 60_000, "{when}: {at}");
    }
    for clear in ["none", "never"] {
        json_out(&token(&["expiry", &id, "2026-12-31"]).await);
        assert_eq!(
            json_out(&token(&["expiry", &id, clear]).await)["expires_at"],
            Value::Null
        );
        assert_eq!(shown_expiry().await, Value::Null, "{clear}");
    }

    // Anything else: refused before any call, naming the forms it takes.
    let bad = token(&["expiry", &id, "31/12/2026"]).await;
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    let line = stderr.lines().next().unwrap();
    for form in ["2026-12-31", "2026-12-31T18:00", "+02:00", "30d", "never"] {
        assert!(line.contains(form), "{form} in {line}");
    }
    assert_eq!(shown_expiry().await, Value::Null, "unchanged");
}
