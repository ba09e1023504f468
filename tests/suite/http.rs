//! `labelpress serve` as a real process on loopback.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let child = Command::new(crate::server::binary())
        .args([
            "serve",
            "--listen",
            &addr,
            "--no-system-fonts",
            "--data-dir",
        ])
        .arg(std::env::temp_dir().join(format!("labelpress-http-{}", uuid::Uuid::new_v4())))
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&addr).is_err() {
        assert!(Instant::now() < deadline, "server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Server { child, addr }
}

/// (status, headers in lower case, body)
fn get(addr: &str, path: &str, headers: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n{headers}\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_string())
}

#[test]
fn serve_answers_health_config_barcodes_and_unknown_routes() {
    let server = start();
    let (status, _, body) = get(&server.addr, "/healthz", "");
    assert_eq!((status, body.as_str()), (200, "ok"));

    let (status, head, body) = get(&server.addr, "/v1/doc/runtime-config", "");
    assert_eq!(status, 200);
    let config: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(config["limits"]["sheets"], 2000);
    assert_eq!(config["defaults"]["font_family"], "DejaVu Sans");
    let etag = head
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .expect("etag")
        .to_string();
    let (status, _, _) = get(
        &server.addr,
        "/v1/doc/runtime-config",
        &format!("If-None-Match: {etag}\r\n"),
    );
    assert_eq!(status, 304);

    let (status, head, body) = get(&server.addr, "/barcode/qr/hello", "");
    assert_eq!(status, 200);
    assert!(head.contains("content-type: image/svg+xml"), "{head}");
    assert!(body.starts_with("<svg"));

    let (status, _, body) = get(&server.addr, "/api/v2/label", "");
    assert_eq!(status, 404);
    let err: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(err["code"], "API-005");
    assert_eq!(err["error"], true);
}

#[test]
fn sigterm_stops_the_server_cleanly() {
    let mut server = start();
    let pid = server.child.id() as i32;
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}
