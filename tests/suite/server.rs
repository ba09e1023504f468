//! `labelpress serve` as real processes on loopback, and small clients for
//! the render route and the verifier's admin API.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const ADMIN: &str = "test-admin-token";
pub const SYSTEM: &str = "test-system-token-0123456789";

pub struct Server {
    pub child: Child,
    pub addr: String,
    pub base: String,
    pub data_dir: PathBuf,
    args: Vec<String>,
}

/// The `labelpress` binary, copied once per test run: a target dir shared
/// with other checkouts may have its binary replaced mid-run, and the
/// process tests restart servers long after the build.
pub fn binary() -> &'static Path {
    static BIN: LazyLock<PathBuf> = LazyLock::new(|| {
        let dir = std::env::temp_dir().join("labelpress-test-bin");
        std::fs::create_dir_all(&dir).unwrap();
        // Copies left by earlier runs.
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().unwrap_or_default() > Duration::from_secs(3600));
            if old {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        let copy = dir.join(format!("labelpress-{}", std::process::id()));
        let ours = |bin: &Path| {
            Command::new(bin)
                .args(["serve", "--help"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("--services"))
        };
        let built = PathBuf::from(env!("CARGO_BIN_EXE_labelpress"));
        // Another checkout building into a shared target dir overwrites the
        // uplifted binary; this checkout's build is still in deps/.
        let source = if ours(&built) {
            built
        } else {
            let deps = built.parent().unwrap().join("deps");
            let mut candidates: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(&deps)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    name.starts_with("labelpress-") && p.extension().is_none()
                })
                .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
                .collect();
            candidates.sort();
            candidates
                .into_iter()
                .rev()
                .map(|(_, p)| p)
                .find(|p| ours(p))
                .expect("no build of this checkout's labelpress binary")
        };
        std::fs::copy(&source, &copy).unwrap();
        copy
    });
    &BIN
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn free_addr() -> String {
    format!("127.0.0.1:{}", free_port())
}

/// Starts `labelpress serve` with `args` on a free port and `data_dir`, with
/// embedded fonts only and the test admin and system tokens; waits for /healthz.
pub fn start(data_dir: &Path, args: &[&str]) -> Server {
    start_on(&free_addr(), data_dir, args)
}

pub fn start_on(addr: &str, data_dir: &Path, args: &[&str]) -> Server {
    start_with_log(addr, data_dir, args, None)
}

/// As [`start`], with the request log (`RUST_LOG=info`) and anything else
/// the server writes (standard output and error) in `log`. `NO_COLOR` is
/// unset: a log going to a file must be plain by itself.
pub fn start_logged(data_dir: &Path, args: &[&str], log: &Path) -> Server {
    start_with_log(&free_addr(), data_dir, args, Some(log))
}

/// As [`start`], with `env` set for the server process (configuration
/// variables). A restart does not keep them.
pub fn start_with_env(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
    start_with(&free_addr(), data_dir, args, None, env)
}

fn start_with_log(addr: &str, data_dir: &Path, args: &[&str], log: Option<&Path>) -> Server {
    start_with(addr, data_dir, args, log, &[])
}

fn start_with(
    addr: &str,
    data_dir: &Path,
    args: &[&str],
    log: Option<&Path>,
    env: &[(&str, &str)],
) -> Server {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut command = Command::new(binary());
    command
        .args(["serve", "--listen", addr, "--no-system-fonts"])
        .arg("--data-dir")
        .arg(data_dir)
        .args(["--admin-token", ADMIN, "--system-token", SYSTEM])
        .args(&args)
        .envs(env.iter().copied());
    match log {
        Some(path) => {
            let file = std::fs::File::create(path).unwrap();
            command
                .env("RUST_LOG", "info")
                .env_remove("NO_COLOR")
                .stderr(file.try_clone().unwrap())
                .stdout(file)
        }
        None => command
            .env("RUST_LOG", "warn")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null()),
    };
    let child = command.spawn().unwrap();
    let mut server = Server {
        child,
        addr: addr.to_string(),
        base: format!("http://{addr}"),
        data_dir: data_dir.to_path_buf(),
        args,
    };
    server.wait_healthy();
    server
}

impl Server {
    fn wait_healthy(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("server exited at start: {status:?}");
            }
            if let Ok(mut s) = std::net::TcpStream::connect(&self.addr) {
                use std::io::{Read, Write};
                let _ = write!(
                    s,
                    "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                );
                let mut out = String::new();
                let _ = s.read_to_string(&mut out);
                if out.starts_with("HTTP/1.1 200") {
                    return;
                }
            }
            assert!(Instant::now() < deadline, "server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn signal(&self, signal: i32) {
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// SIGKILL, as a crash.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM and wait for a clean exit.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        self.signal(libc::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "still running after SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The same server again (same address, data dir and flags).
    pub fn restart(&mut self) {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        *self = start_on(&self.addr.clone(), &self.data_dir.clone(), &args);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub bytes: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes).unwrap_or_else(|_| {
            panic!(
                "not JSON ({}): {}",
                self.status,
                String::from_utf8_lossy(&self.bytes)
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    /// Asserts an error answer: status, code, JSON shape, and
    /// `X-Request-Id` equal to `req_id`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) -> Value {
        let body = self.json();
        assert_eq!(
            (self.status, body["code"].as_str()),
            (status, Some(code)),
            "{body}"
        );
        assert_eq!(body["error"], true);
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert_request_id(self, body["req_id"].as_str().unwrap());
        body
    }
}

#[track_caller]
pub fn assert_request_id(reply: &Reply, req_id: &str) {
    let header = reply.header("x-request-id").expect("X-Request-Id");
    assert_eq!(header, req_id);
    let id = uuid::Uuid::parse_str(&header).expect("a UUID");
    assert_eq!(id.get_version_num(), 4);
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

pub async fn reply(response: reqwest::Response) -> Reply {
    Reply {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        bytes: response.bytes().await.unwrap().to_vec(),
    }
}

pub async fn get(base: &str, path: &str) -> Reply {
    reply(client().get(format!("{base}{path}")).send().await.unwrap()).await
}

/// A small valid label.
pub fn label(text: &str) -> Value {
    json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": text}
    ]}]})
}

/// `POST /api/v1/label` with a bearer token and a JSON body.
pub async fn render(base: &str, token: &str, body: &Value) -> Reply {
    let response = client()
        .post(format!("{base}/api/v1/label"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    reply(response).await
}

pub async fn admin(base: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
    let mut request = client()
        .request(method, format!("{base}/admin/api{path}"))
        .bearer_auth(ADMIN);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let r = reply(request.send().await.unwrap()).await;
    assert!(
        r.status < 300,
        "admin {path}: {} {}",
        r.status,
        String::from_utf8_lossy(&r.bytes)
    );
    r.json()
}

/// A new token: (id, secret).
pub async fn new_token(
    base: &str,
    balance: u64,
    rate_limit: Option<(u32, u32)>,
) -> (String, String) {
    let mut body = json!({"account": "acme", "balance": balance, "expires_at": null});
    if let Some((per_second, burst)) = rate_limit {
        body["rate_limit"] = json!({"per_second": per_second, "burst": burst});
    }
    let created = admin(base, reqwest::Method::POST, "/tokens", Some(body)).await;
    (
        created["id"].as_str().unwrap().to_string(),
        created["token"].as_str().unwrap().to_string(),
    )
}

pub async fn balance(base: &str, id: &str) -> u64 {
    admin(base, reqwest::Method::GET, &format!("/tokens/{id}"), None).await["balance"]
        .as_u64()
        .unwrap()
}

/// Polls until the token's balance is `expected` (the reporter runs in the background).
pub async fn await_balance(base: &str, id: &str, expected: u64, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let now = balance(base, id).await;
        if now == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "balance {now}, expected {expected}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A metric's value from `/metrics` (first line starting with `name`).
pub async fn metric(base: &str, name: &str) -> f64 {
    let text = String::from_utf8(get(base, "/metrics").await.bytes).unwrap();
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no metric {name} in\n{text}"))
}
