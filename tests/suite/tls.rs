//! TLS between nodes (issue 17, part 3), with real processes on loopback: a
//! verifier serving HTTPS only (`--tls-cert`, `--tls-key`), render nodes
//! verifying tokens through it (`--verify-url https://...`, `--verify-ca`),
//! failover from a dead verifier, and the start refusals.
//!
//! Certificates are made at test time: a CA, and a server certificate it
//! signs for `localhost` and `127.0.0.1`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::server::free_port;

const ADMIN: &str = "tls-test-admin-token";

/// The PEM files of a test PKI.
struct Pki {
    ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

fn pki(dir: &Path) -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    Pki {
        ca: write("ca.pem", ca_cert.pem()),
        cert: write("cert.pem", cert.pem()),
        key: write("key.pem", key.serialize_pem()),
    }
}

/// `labelpress serve` with `args`, its own data folder and a free port;
/// killed when dropped.
struct Node {
    child: Child,
    port: u16,
    _data: tempfile::TempDir,
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_labelpress"));
    command
        .arg("serve")
        .args(["--no-system-fonts", "--admin-token", ADMIN])
        .args(args)
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1");
    for name in [
        "LABELPRESS_VERIFY_URL",
        "LABELPRESS_VERIFY_CA",
        "LABELPRESS_TLS_CERT",
        "LABELPRESS_TLS_KEY",
        "LABELPRESS_SERVICES",
        "LABELPRESS_CONFIG",
    ] {
        command.env_remove(name);
    }
    command
}

/// Starts a node and waits until `GET /healthz` answers 200 through `client`
/// (so over TLS for a TLS node).
async fn start(args: &[&str], client: &reqwest::Client, scheme: &str) -> Node {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let child = command(args)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .arg("--data-dir")
        .arg(data.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut node = Node {
        child,
        port,
        _data: data,
    };
    let health = format!("{scheme}://localhost:{port}/healthz");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = node.child.try_wait().unwrap() {
            panic!("labelpress serve {args:?} exited at start: {status}");
        }
        if let Ok(response) = client.get(&health).send().await {
            if response.status() == 200 {
                return node;
            }
        }
        assert!(Instant::now() < deadline, "{health} did not answer");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A client trusting the test CA. Each request gets a connection of its
/// own: one kept alive would hold one of a node's served slots, which the
/// over-the-cap test counts.
fn client(ca: &Path) -> reqwest::Client {
    let pem = std::fs::read(ca).unwrap();
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&pem).unwrap())
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// A verifier serving HTTPS only, with the test PKI, and `extra` flags.
async fn tls_verifier_with(pki: &Pki, client: &reqwest::Client, extra: &[&str]) -> Node {
    let (cert, key) = (pki.cert.to_str().unwrap(), pki.key.to_str().unwrap());
    let mut args = vec!["--services", "verify", "--tls-cert", cert, "--tls-key", key];
    args.extend_from_slice(extra);
    start(&args, client, "https").await
}

async fn tls_verifier(pki: &Pki, client: &reqwest::Client) -> Node {
    tls_verifier_with(pki, client, &[]).await
}

/// A new token of the verifier at `base`: (id, secret).
async fn new_token(client: &reqwest::Client, base: &str) -> (String, String) {
    let created: Value = client
        .post(format!("{base}/admin/api/tokens"))
        .bearer_auth(ADMIN)
        .json(&json!({"account": "acme", "balance": 10, "expires_at": null}))
        .send()
        .await
        .unwrap()
        .error_for_status()
        .unwrap()
        .json()
        .await
        .unwrap();
    let field = |name: &str| created[name].as_str().unwrap().to_string();
    (field("id"), field("token"))
}

/// `POST /api/v1/label` of a small label: (status, body).
async fn render(client: &reqwest::Client, port: u16, token: &str) -> (u16, Vec<u8>) {
    let label = json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "between nodes"}
    ]}]});
    let response = client
        .post(format!("http://127.0.0.1:{port}/api/v1/label"))
        .bearer_auth(token)
        .json(&label)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.bytes().await.unwrap().to_vec())
}

#[track_caller]
fn assert_code(status: u16, body: &[u8], expected: (u16, &str)) {
    let text = String::from_utf8_lossy(body);
    let code = serde_json::from_slice::<Value>(body)
        .ok()
        .map(|b| b["code"].clone());
    assert_eq!(
        (status, code.as_ref().and_then(Value::as_str)),
        (expected.0, Some(expected.1)),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_node_verifies_tokens_with_a_tls_verifier() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let client = client(&pki.ca);
    let verifier = tls_verifier(&pki, &client).await;
    let base = format!("https://localhost:{}", verifier.port);
    let (_, token) = new_token(&client, &base).await;
    let (revoked_id, revoked) = new_token(&client, &base).await;
    client
        .post(format!("{base}/admin/api/tokens/{revoked_id}/revoke"))
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap()
        .error_for_status()
        .unwrap();

    let ca = pki.ca.to_str().unwrap();
    let args = [
        "--services",
        "render",
        "--verify-url",
        &base,
        "--verify-ca",
        ca,
    ];
    let node = start(&args, &client, "http").await;
    let (status, pdf) = render(&client, node.port, &token).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&pdf));
    assert!(pdf.starts_with(b"%PDF-"));
    // Verdicts come through TLS as they do in the clear.
    let (status, body) = render(&client, node.port, &revoked).await;
    assert_code(status, &body, (403, "API-102"));
    let (status, body) = render(&client, node.port, "lp_unknown_token_0123456789").await;
    assert_code(status, &body, (403, "API-102"));

    // Without --verify-ca the verifier's certificate is not trusted: the
    // verifier is unavailable (API-502), which is not a verdict on the token.
    let untrusting = start(
        &["--services", "render", "--verify-url", &base],
        &client,
        "http",
    )
    .await;
    let (status, body) = render(&client, untrusting.port, &token).await;
    assert_code(status, &body, (503, "API-502"));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tls_port_gives_plain_http_no_http_answer() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let verifier = tls_verifier(&pki, &client(&pki.ca)).await;
    let port = verifier.port;
    let answer = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        write!(
            stream,
            "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = Vec::new();
        // Closed by the server (a read timeout would be an error here).
        let read = stream.read_to_end(&mut answer);
        (read.map_err(|e| e.kind()), answer)
    })
    .await
    .unwrap();
    let (read, bytes) = answer;
    assert!(
        read.is_ok() || read == Err(std::io::ErrorKind::ConnectionReset),
        "the connection was not closed: {read:?}"
    );
    assert!(
        !bytes.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
}

/// Reads until the server closes the connection (or resets it): what came,
/// or `None` if it is still open after 30 s.
fn until_closed(stream: &mut std::net::TcpStream) -> Option<Vec<u8>> {
    use std::io::{ErrorKind, Read};
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut bytes = Vec::new();
    match stream.read_to_end(&mut bytes) {
        Ok(_) => Some(bytes),
        Err(e) if e.kind() == ErrorKind::ConnectionReset => Some(bytes),
        Err(_) => None,
    }
}

/// A verifier with these `[limits]`.
async fn tls_verifier_limited(pki: &Pki, dir: &Path, limits: &str) -> Node {
    let config = dir.join("limits.toml");
    std::fs::write(&config, format!("[limits]\n{limits}\n")).unwrap();
    let config = config.to_str().unwrap();
    tls_verifier_with(pki, &client(&pki.ca), &["--config", config]).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_that_never_handshakes_is_closed_at_the_header_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let verifier = tls_verifier_limited(&pki, dir.path(), "header_timeout_ms = 1500").await;
    let port = verifier.port;
    let started = Instant::now();
    let closed = tokio::task::spawn_blocking(move || {
        let mut idle: Vec<_> = (0..3)
            .map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).unwrap())
            .collect();
        idle.iter_mut().map(until_closed).collect::<Vec<_>>()
    })
    .await
    .unwrap();
    for (i, answer) in closed.iter().enumerate() {
        let answer = answer
            .as_ref()
            .unwrap_or_else(|| panic!("idle connection {i} still open after 30 s"));
        assert!(answer.is_empty(), "connection {i} got {answer:?}");
    }
    // Closed by the timeout, not refused outright.
    assert!(started.elapsed() >= Duration::from_millis(1400));
    let health = client(&pki.ca)
        .get(format!("https://localhost:{port}/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_over_the_cap_are_turned_away_inside_tls() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let verifier = tls_verifier_limited(
        &pki,
        dir.path(),
        "max_connections = 1\nheader_timeout_ms = 20000",
    )
    .await;
    let tokens = format!("https://localhost:{}/admin/api/tokens", verifier.port);
    // A connection kept alive takes the only slot once a request on it is
    // served (the start's health checks may hold it a moment longer: until
    // then, requests are turned away).
    let pem = std::fs::read(&pki.ca).unwrap();
    let keeper = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&pem).unwrap())
        .build()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while keeper
        .get(&tokens)
        .bearer_auth(ADMIN)
        .send()
        .await
        .unwrap()
        .status()
        != 200
    {
        assert!(Instant::now() < deadline, "never served");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Other connections are answered by the turn-away router, over TLS.
    let other = client(&pki.ca);
    let over = other.get(&tokens).bearer_auth(ADMIN).send().await.unwrap();
    let status = over.status().as_u16();
    assert_code(status, &over.bytes().await.unwrap(), (503, "API-503"));
    let health = other
        .get(tokens.replace("/admin/api/tokens", "/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    // The kept-alive connection is still served.
    let served = keeper.get(&tokens).bearer_auth(ADMIN).send().await.unwrap();
    assert_eq!(served.status(), 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_render_node_fails_over_from_a_dead_verifier_to_a_tls_one() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let client = client(&pki.ca);
    let verifier = tls_verifier(&pki, &client).await;
    let base = format!("https://localhost:{}", verifier.port);
    let (_, token) = new_token(&client, &base).await;
    let urls = format!("http://127.0.0.1:{},{base}", free_port());
    let ca = pki.ca.to_str().unwrap();
    let args = [
        "--services",
        "render",
        "--verify-url",
        &urls,
        "--verify-ca",
        ca,
    ];
    let node = start(&args, &client, "http").await;
    // The token is in no cache yet: only the second verifier can grant it.
    let (status, pdf) = render(&client, node.port, &token).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&pdf));
    assert!(pdf.starts_with(b"%PDF-"));
}

/// Runs a `serve` expected to refuse to start, on a free port.
async fn refused(args: &[&str]) -> Output {
    let data = tempfile::tempdir().unwrap();
    let mut command = command(args);
    command
        .args(["--listen", &format!("127.0.0.1:{}", free_port())])
        .arg("--data-dir")
        .arg(data.path());
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

#[track_caller]
fn assert_one_line_exit_2(output: &Output, naming: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(naming), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_tls_and_verifier_options_stop_the_start_with_one_line() {
    let out = refused(&["--services", "render", "--verify-url", "ftp://x"]).await;
    assert_one_line_exit_2(&out, "--verify-url ftp://x");
    let list = "http://127.0.0.1:1,https://";
    let out = refused(&["--services", "render", "--verify-url", list]).await;
    assert_one_line_exit_2(&out, "--verify-url https://");

    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let cert = pki.cert.to_str().unwrap();
    let out = refused(&["--services", "verify", "--tls-cert", cert]).await;
    assert_one_line_exit_2(&out, "--tls-cert needs --tls-key");
    // The certificate where the key belongs.
    let out = refused(&[
        "--services",
        "verify",
        "--tls-cert",
        cert,
        "--tls-key",
        cert,
    ])
    .await;
    assert_one_line_exit_2(&out, "no private key");
}

/// An expired `--tls-cert` stops the start naming the file and the date,
/// rather than serving a certificate every client refuses.
#[tokio::test(flavor = "multi_thread")]
async fn an_expired_certificate_stops_the_start() {
    use rcgen::{CertificateParams, KeyPair};
    let dir = tempfile::tempdir().unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    params.not_before = rcgen::date_time_ymd(2020, 1, 1);
    params.not_after = rcgen::date_time_ymd(2021, 1, 1);
    let cert = params.self_signed(&key).unwrap();
    let cert_path = dir.path().join("expired.pem");
    let key_path = dir.path().join("key.pem");
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    let out = refused(&[
        "--services",
        "verify",
        "--tls-cert",
        cert_path.to_str().unwrap(),
        "--tls-key",
        key_path.to_str().unwrap(),
    ])
    .await;
    assert_one_line_exit_2(&out, "expired.pem: the certificate expired on");
    assert!(String::from_utf8_lossy(&out.stderr).contains("2021"));
}

/// `labelpress token` against an HTTPS verifier whose certificate this
/// machine does not trust (the test CA is in no system store): the TLS
/// failure is named, with what to check, and exits 4 (docs/exit-codes.md).
#[tokio::test(flavor = "multi_thread")]
async fn token_commands_name_an_untrusted_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let verifier = tls_verifier(&pki, &client(&pki.ca)).await;
    let url = format!("https://localhost:{}", verifier.port);
    let mut command = Command::new(env!("CARGO_BIN_EXE_labelpress"));
    command
        .args(["token", "list", "--url", &url, "--admin-token", ADMIN])
        .env_remove("LABELPRESS_URL")
        .env_remove("LABELPRESS_ADMIN_TOKEN");
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    for part in [url.as_str(), "TLS failed", "certificate", "trusted"] {
        assert!(stderr.contains(part), "{part} in {stderr}");
    }
}
