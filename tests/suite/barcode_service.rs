//! The barcode HTTP service over a real socket: status, content type,
//! caching headers, conditional requests, plain-text errors and the bounded
//! encode pool.

#[path = "../../crates/barcode/tests/common/mod.rs"]
mod common;

use std::io::{Read, Write};
use std::sync::Arc;

use axum::routing::get as route_get;
use axum::Router;
use labelpress::config::Limits;
use labelpress::http::barcode::{router, router_with, EncodePool};
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
    serve_app(router(&Limits::default())).await
}

async fn serve_app(app: Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
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

/// The content segment is percent-decoded exactly once: a literal `%`
/// comes as `%25`, `%2520` is the three characters `%20`, `%2F` a slash,
/// and a `+` stays a plus (only a query string makes it a space). Each SVG
/// the route answers is decoded with zxing-cpp, so the test sees what a
/// scanner reads, not what the service thinks it drew.
#[tokio::test]
async fn a_literal_percent_in_the_content_encodes_as_sent() {
    let addr = serve().await;
    let cases = [
        ("code128", "50%25%20OFF", "50% OFF"),
        ("code128", "100%25", "100%"),
        ("code128", "A%2FB%20C%2520%3F", "A/B C%20?"),
        ("code128", "a+b", "a+b"),
        ("qr", "%25%2525%25", "%%25%"),
    ];
    let dir = common::workdir("route-percent");
    let mut files = Vec::new();
    for (i, (symbology, segment, _)) in cases.iter().enumerate() {
        let r = get(&addr, &format!("/barcode/{symbology}/{segment}"), "").await;
        assert_eq!(r.status, 200, "{segment}: {}", r.body);
        let path = dir.join(format!("case{i}.svg"));
        std::fs::write(&path, &r.body).unwrap();
        files.push(path);
    }
    let decoded = common::decode_files(&files, 4.0);
    for (path, (_, segment, want)) in files.iter().zip(cases) {
        let got = &decoded[&path.display().to_string()];
        assert_eq!(got.len(), 1, "{segment}: {got:?}");
        assert_eq!(got[0].text, want, "{segment} decodes to what was sent");
    }
}

/// A `%` that does not start a two-digit escape is not percent-encoding:
/// 400 naming the content segment, whether raw at the end, before a
/// non-hex character, or in the symbology segment.
#[tokio::test]
async fn a_lone_percent_sent_raw_is_400() {
    let addr = serve().await;
    for path in [
        "/barcode/code128/50%",
        "/barcode/code128/50%%20OFF",
        "/barcode/code128/%zz",
        "/barcode/code128/%4",
    ] {
        let r = get(&addr, path, "").await;
        assert_plain_400(path, &r, "");
        assert!(
            r.body
                .contains("content path segment is not valid percent-encoded UTF-8"),
            "{path}: {}",
            r.body
        );
    }
    let r = get(&addr, "/barcode/code%/x", "").await;
    assert_plain_400("/barcode/code%/x", &r, "");
    assert!(r.body.contains("symbology"), "{}", r.body);
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
        assert_plain_400(path, &r, prefix);
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

#[track_caller]
fn assert_plain_400(path: &str, r: &Reply, prefix: &str) {
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

#[tokio::test]
async fn an_empty_content_is_the_services_400_not_a_json_404() {
    let addr = serve().await;
    for path in [
        "/barcode/qr/",
        "/barcode/qr",
        "/barcode/qr/?ecl=H",
        "/barcode/code128/",
    ] {
        assert_plain_400(path, &get(&addr, path, "").await, "content is empty");
    }
    // The symbology is checked first, as with a content.
    assert_plain_400(
        "/barcode/nope/",
        &get(&addr, "/barcode/nope/", "").await,
        "unknown symbology 'nope'",
    );
}

#[tokio::test]
async fn parameter_holes_are_400_naming_the_parameter() {
    let addr = serve().await;
    let cases = [
        // The spec's MaxiCode modes are 2 to 5.
        (
            "/barcode/maxicode/x?mode=6",
            "invalid value '6' for parameter 'mode': expected 2, 3, 4 or 5",
        ),
        // 30 x 90 = 2,700 codewords; a symbol holds 928.
        (
            "/barcode/pdf417/x?cols=30&rows=90&ecl=8",
            "invalid value '90' for parameter 'rows': expected at most 30 with cols=30",
        ),
        (
            "/barcode/pdf417/0123456789?cols=1&rows=3",
            "data does not fit pdf417: the content needs",
        ),
        (
            "/barcode/pdf417/x?cols=1&ecl=8",
            "data does not fit pdf417: the content needs 515 codewords (2 data, 1 length, 512 error correction at ecl=8), but cols=1 holds at most 90",
        ),
        // A repeated parameter, also when its name is percent-encoded.
        (
            "/barcode/qr/x?ecl=L&ecl=H",
            "parameter 'ecl' given more than once",
        ),
        (
            "/barcode/qr/x?ecl=L&%65cl=H",
            "parameter 'ecl' given more than once",
        ),
        (
            "/barcode/qr/x?width=150.5&width=2",
            "parameter 'width' given more than once",
        ),
        (
            "/barcode/qr/x?width=-150.5",
            "invalid value '-150.5' for parameter 'width': expected a number of pixels greater than 0",
        ),
        (
            "/barcode/qr/x?height=0.0",
            "invalid value '0.0' for parameter 'height'",
        ),
        (
            "/barcode/qr/x?width=1.0001",
            "invalid value '1.0001' for parameter 'width'",
        ),
        (
            "/barcode/qr/x?width=NaN",
            "invalid value 'NaN' for parameter 'width'",
        ),
    ];
    for (path, prefix) in cases {
        assert_plain_400(path, &get(&addr, path, "").await, prefix);
    }
}

#[tokio::test]
async fn width_and_height_take_decimal_pixels() {
    let addr = serve().await;
    let r = get(&addr, "/barcode/qr/x?width=150.5&height=0.25", "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body.contains("width=\"150.5\" height=\"0.25\""),
        "{}",
        &r.body[..200]
    );
    let one = get(&addr, "/barcode/code128/x?width=99.125", "").await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert!(
        one.body.contains("width=\"99.125\""),
        "{}",
        &one.body[..200]
    );
}

/// The pool's only slot held by an encode that waits for the test, its
/// only queue place by another: the next barcode is 503 at once, and the
/// async side still answers everything else (this test runs on a
/// one-thread runtime, so an encode on it would stall every route).
#[tokio::test]
async fn a_full_encode_queue_is_503_with_retry_after_while_other_routes_answer() {
    let pool = Arc::new(EncodePool::with_capacity(1, 1, 7));
    let app = Router::new()
        .route("/healthz", route_get(labelpress::http::probes::healthz))
        .merge(router_with(pool.clone()));
    let addr = serve_app(app).await;
    let first = get(&addr, "/barcode/aztec/held", "").await;
    assert_eq!(first.status, 200, "{}", first.body);
    let etag = first.header("etag").unwrap().to_string();

    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let running = tokio::spawn({
        let pool = pool.clone();
        async move {
            pool.run(move || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                common::svg("aztec", &"slow ".repeat(600), &[])
            })
            .await
        }
    });
    started_rx.await.unwrap();
    let queued = tokio::spawn({
        let pool = pool.clone();
        async move { pool.run(|| "queued").await }
    });
    for _ in 0..10_000 {
        if pool.occupied() == 2 {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(pool.occupied(), 2, "one encode running, one waiting");

    let busy = get(&addr, "/barcode/aztec/more", "").await;
    assert_eq!(busy.status, 503, "{}", busy.body);
    assert_eq!(busy.header("retry-after"), Some("7"));
    assert_eq!(
        busy.header("content-type"),
        Some("text/plain; charset=utf-8")
    );
    assert!(
        busy.body.starts_with("the barcode service is busy"),
        "{}",
        busy.body
    );
    let health = get(&addr, "/healthz", "").await;
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
    // Refusals and revalidations need no slot.
    assert_plain_400(
        "/barcode/qr/",
        &get(&addr, "/barcode/qr/", "").await,
        "content is empty",
    );
    let cached = get(
        &addr,
        "/barcode/aztec/held",
        &format!("If-None-Match: {etag}\r\n"),
    )
    .await;
    assert_eq!(cached.status, 304);

    release_tx.send(()).unwrap();
    assert!(running.await.unwrap().unwrap().starts_with("<svg"));
    assert_eq!(queued.await.unwrap().unwrap(), "queued");
    assert_eq!(pool.occupied(), 0);
    let after = get(&addr, "/barcode/aztec/more", "").await;
    assert_eq!(after.status, 200, "{}", after.body);
}
