//! The barcode HTTP service over a real socket: status, content type,
//! caching headers, conditional requests and plain-text errors.

use std::io::{Read, Write};

use tokio::net::TcpListener;

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

async fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, labelpress::barcode::service::router())
            .await
            .unwrap()
    });
    addr.to_string()
}

/// A minimal blocking HTTP/1.1 GET, off the runtime's threads.
async fn get(addr: &str, path: &str, extra_headers: &str) -> Reply {
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n{extra_headers}\r\n");
    let addr = addr.to_string();
    let raw = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        raw
    })
    .await
    .unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: body.to_string(),
    }
}

#[tokio::test]
async fn svg_with_year_long_cache_and_strong_etag() {
    let addr = serve().await;
    let r = get(&addr, "/barcode/qr/Hello%20World?ecl=H&m=2", "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("image/svg+xml"));
    assert_eq!(
        r.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let etag = r.header("etag").unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/"));
    assert!(r
        .body
        .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(
        r.body.contains("viewBox=\"0 0 29 29\""),
        "{}",
        &r.body[..200]
    ); // version 2: 25 modules + 2 x 2

    // Same URL, same tag; `margin` is `m`: same normalised options, same tag.
    let again = get(&addr, "/barcode/qrcode/Hello%20World?margin=2&ecl=H", "").await;
    assert_eq!(again.header("etag"), Some(etag.as_str()));
    let other = get(&addr, "/barcode/qr/Hello%20World?ecl=L", "").await;
    assert_ne!(other.header("etag"), Some(etag.as_str()));

    let cached = get(
        &addr,
        "/barcode/qr/Hello%20World?ecl=H&m=2",
        &format!("If-None-Match: \"x\", {etag}\r\n"),
    )
    .await;
    assert_eq!(cached.status, 304);
    assert_eq!(cached.header("etag"), Some(etag.as_str()));
    assert!(cached.body.is_empty());
    let stale = get(
        &addr,
        "/barcode/qr/Hello%20World?ecl=H&m=2",
        "If-None-Match: \"nope\"\r\n",
    )
    .await;
    assert_eq!(stale.status, 200);
}

#[tokio::test]
async fn content_is_one_percent_decoded_segment() {
    let addr = serve().await;
    let r = get(&addr, "/barcode/code128/a%2Fb%3Fc%20d", "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let gs1 = get(&addr, "/barcode/gs1_128/(01)09501101530003(10)AB1", "").await;
    assert_eq!(gs1.status, 200, "{}", gs1.body);
    let rotated = get(
        &addr,
        "/barcode/ean13/400638133393?rotate=90&fg=%23112233&bg=eeeeee&width=100",
        "",
    )
    .await;
    assert_eq!(rotated.status, 200, "{}", rotated.body);
    assert!(rotated.body.contains("#112233") && rotated.body.contains("#eeeeee"));
    assert!(rotated.body.contains("width=\"100\""));
}

#[tokio::test]
async fn errors_are_400_plain_text_naming_the_problem() {
    let addr = serve().await;
    let cases = [
        ("/barcode/nope/1", "unknown symbology 'nope'"),
        (
            "/barcode/ean13/12ab",
            "invalid character 'a' at position 3 for ean13",
        ),
        ("/barcode/qr/x?foo=1", "unknown parameter 'foo'"),
        (
            "/barcode/qr/x?ecl=M&ecl=H",
            "parameter 'ecl' given more than once",
        ),
        (
            "/barcode/qr/x?m=1&margin=1",
            "parameter 'margin' given more than once",
        ),
        (
            "/barcode/qr/x?version=0",
            "invalid value '0' for parameter 'version'",
        ),
        (
            "/barcode/code39/x?ecl=M",
            "parameter 'ecl' does not apply to code39",
        ),
        (
            "/barcode/gs1_qr/(01)123",
            "Invalid GS1 format: AI (01) must be 14 digits",
        ),
        (
            "/barcode/qr/x?width=99999",
            "invalid value '99999' for parameter 'width'",
        ),
        (
            "/barcode/qr/x?fg=%ZZ",
            "invalid value '' for parameter 'fg'",
        ),
    ];
    for (path, prefix) in cases {
        let r = get(&addr, path, "").await;
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert_eq!(
            r.header("content-type"),
            Some("text/plain; charset=utf-8"),
            "{path}"
        );
        assert!(
            r.body.starts_with(prefix),
            "{path}: {:?} should start with {prefix:?}",
            r.body
        );
    }
}

#[test]
fn cli_helper_takes_key_value_options() {
    use labelpress::barcode::cli_svg;
    let svg = cli_svg("datamatrix", "CLI", &["shape=rect".into(), "m=1".into()]).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(
        cli_svg("qr", "x", &["ecl".into()]).unwrap_err().to_string(),
        "invalid value '' for parameter 'ecl': expected key=value"
    );
    assert!(cli_svg("qr", "x", &["shape=rect".into()]).is_err());
}
