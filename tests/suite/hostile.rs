//! The hostile-input corpus (`tests/hostile/cases/*.json`, format in
//! `tests/hostile/README.md`): every case is sent to one real server, and
//! each must get its documented answer while the server stays up and
//! `/healthz` keeps answering within 100 ms.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::Value;

use crate::server::{self, client, reply, Reply, Server, ADMIN, SYSTEM};

/// The longest `/healthz` may take while a hostile request runs.
const HEALTH_WITHIN: Duration = Duration::from_millis(100);

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/cases")
}

/// One case file.
struct Case {
    name: String,
    spec: Value,
}

fn cases() -> Vec<Case> {
    let mut cases: Vec<Case> = std::fs::read_dir(cases_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let spec: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            Case {
                name: path.file_stem().unwrap().to_string_lossy().into_owned(),
                spec,
            }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

/// Bytes or text produced by a generator object (or a plain string).
enum Generated {
    Text(String),
    Bytes(Vec<u8>),
}

impl Generated {
    fn bytes(self) -> Vec<u8> {
        match self {
            Generated::Text(t) => t.into_bytes(),
            Generated::Bytes(b) => b,
        }
    }

    fn text(self, what: &str) -> String {
        match self {
            Generated::Text(t) => t,
            Generated::Bytes(_) => panic!("{what} makes bytes where text is needed"),
        }
    }
}

/// Evaluates a generator (`$repeat`, `$concat`, `$base64`, `$data_uri`,
/// `$png`, `$fixture`), or passes a plain string through.
fn generate(value: &Value) -> Generated {
    let Some(object) = value.as_object().filter(|o| o.len() == 1) else {
        return match value {
            Value::String(s) => Generated::Text(s.clone()),
            other => panic!("not a string or generator: {other}"),
        };
    };
    let (name, args) = object.iter().next().unwrap();
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    match name.as_str() {
        "$repeat" => {
            let unit = generate(&args[0]).text("$repeat");
            Generated::Text(unit.repeat(args[1].as_u64().unwrap() as usize))
        }
        "$concat" => {
            let parts: Vec<Generated> = args.as_array().unwrap().iter().map(generate).collect();
            if parts.iter().all(|p| matches!(p, Generated::Text(_))) {
                Generated::Text(parts.into_iter().map(|p| p.text("$concat")).collect())
            } else {
                Generated::Bytes(parts.into_iter().flat_map(Generated::bytes).collect())
            }
        }
        "$base64" => Generated::Text(b64(&generate(args).bytes())),
        "$data_uri" => {
            let mime = args[0].as_str().unwrap();
            let data = generate(&args[1]).bytes();
            Generated::Text(format!("data:{mime};base64,{}", b64(&data)))
        }
        "$png" => Generated::Bytes(png(args)),
        "$fixture" => {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(args.as_str().unwrap());
            Generated::Bytes(std::fs::read(path).unwrap())
        }
        other => panic!("unknown generator {other}"),
    }
}

/// A valid PNG of the given size, every pixel zero, streamed row by row so
/// that a 60,000 x 60,000 image is never held in memory.
fn png(args: &Value) -> Vec<u8> {
    let width = args["width"].as_u64().unwrap() as u32;
    let height = args["height"].as_u64().unwrap() as u32;
    let depth = args["bit_depth"].as_u64().unwrap_or(8);
    let color = args["color"].as_str().unwrap_or("gray");
    let out = Shared::default();
    let mut encoder = png::Encoder::new(out.clone(), width, height);
    encoder.set_depth(match depth {
        1 => png::BitDepth::One,
        _ => png::BitDepth::Eight,
    });
    let channels = match color {
        "rgba" => {
            encoder.set_color(png::ColorType::Rgba);
            4
        }
        _ => {
            encoder.set_color(png::ColorType::Grayscale);
            1
        }
    };
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder
        .write_header()
        .unwrap()
        .into_stream_writer()
        .unwrap();
    let row = (u64::from(width) * channels * depth).div_ceil(8) as usize;
    let zeros = vec![0u8; row.max(1) * 64];
    let mut left = row as u64 * u64::from(height);
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        std::io::Write::write_all(&mut writer, &zeros[..n]).unwrap();
        left -= n as u64;
    }
    writer.finish().unwrap();
    out.0.take()
}

/// A byte buffer the PNG stream writer (which must own its output) shares.
#[derive(Clone, Default)]
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A JSON value with every generator object replaced by its string.
fn expand(value: &Value) -> Value {
    match value {
        Value::Object(o) if o.len() == 1 && o.keys().next().unwrap().starts_with('$') => {
            Value::String(generate(value).text("a JSON string"))
        }
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), expand(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(expand).collect()),
        other => other.clone(),
    }
}

/// The request of one case as its file says, payload generated (before any
/// probe runs: generating a large one is work of the test process).
fn request(server: &Server, case: &Case, token: &str) -> reqwest::RequestBuilder {
    let spec = &case.spec;
    let method = spec["method"].as_str().unwrap_or("POST");
    let path = spec["path"].as_str().unwrap_or("/api/v1/label");
    let mut request = client().request(
        reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
        format!("{}{path}", server.base),
    );
    request = match spec["auth"].as_str().unwrap_or("system") {
        "system" => request.bearer_auth(SYSTEM),
        "token" => request.bearer_auth(token),
        "admin" => request.bearer_auth(ADMIN),
        "none" => request,
        other => panic!("{}: unknown auth {other}", case.name),
    };
    if let Some(json) = spec.get("json") {
        request = request
            .header("content-type", "application/json")
            .body(serde_json::to_vec(&expand(json)).unwrap());
    } else if let Some(body) = spec.get("body") {
        request = request.body(generate(body).bytes());
    }
    if let Some(headers) = spec["headers"].as_object() {
        for (name, value) in headers {
            request = request.header(name, value.as_str().unwrap());
        }
    }
    request
}

/// `/healthz` latencies, measured every 20 ms while `work` runs and once
/// after it (a failed probe counts as `Duration::MAX`).
async fn health_while<F: std::future::Future>(base: &str, work: F) -> (F::Output, Vec<Duration>) {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let probes = {
        let stop = stop.clone();
        let url = format!("{base}/healthz");
        tokio::spawn(async move {
            let probe = client();
            let mut latencies = Vec::new();
            loop {
                let last = stop.load(std::sync::atomic::Ordering::SeqCst);
                let started = Instant::now();
                let ok = probe
                    .get(&url)
                    .timeout(Duration::from_secs(5))
                    .send()
                    .await
                    .is_ok_and(|r| r.status() == 200);
                latencies.push(if ok { started.elapsed() } else { Duration::MAX });
                if last {
                    return latencies;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let output = work.await;
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    (output, probes.await.unwrap())
}

/// Why a ZPL answer is not only labelpress's own labels: each `^XA` closed
/// by a `^XZ`, and nothing but graphic fields and the label's size between
/// them (whatever the document's text said, no command of it reached the
/// printer).
fn zpl_problem(zpl: &str) -> Option<String> {
    let mut labels = 0;
    for line in zpl.lines() {
        let known = ["^XA", "^XZ", "^PW", "^LL", "^LH0,0", "^FO0,", "^PQ"];
        if !known.iter().any(|k| line.starts_with(k)) {
            return Some(format!("an unexpected line {:.60}", line));
        }
        if line.starts_with("^FO0,") && !(line.contains("^GFA,") && line.ends_with("^FS")) {
            return Some("a field that is not one graphic".into());
        }
        labels += usize::from(line == "^XA");
        labels -= usize::from(line == "^XZ").min(labels);
    }
    (!zpl.starts_with("^XA\n") || !zpl.ends_with("^XZ\n") || labels != 0 || zpl.contains('~'))
        .then(|| "labels not closed, or a ~ command".into())
}

/// What went wrong with one case, if anything.
fn check(case: &Case, reply: &Reply) -> Option<String> {
    let expect = &case.spec["expect"];
    let status = expect["status"].as_u64().unwrap() as u16;
    let text = String::from_utf8_lossy(&reply.bytes);
    let shown = text.chars().take(300).collect::<String>();
    if reply.status != status {
        return Some(format!("status {} (want {status}): {shown}", reply.status));
    }
    let path = case.spec["path"].as_str().unwrap_or("/api/v1/label");
    let route = path.split('?').next();
    if status == 200 && route == Some("/api/v1/batch") {
        let ok = reply.bytes.starts_with(b"%PDF-")
            || reply.bytes.starts_with(b"^XA")
            || reply.bytes.starts_with(b"PK\x03\x04");
        if !ok {
            return Some(format!("200 without a PDF, ZPL or ZIP: {shown}"));
        }
    }
    if status == 200 && route == Some("/api/v1/label") {
        let zpl = reply.header("content-type").as_deref() == Some("application/zpl");
        if zpl {
            if let Some(why) = zpl_problem(&text) {
                return Some(format!("200 with bad ZPL ({why}): {shown}"));
            }
        } else if !reply.bytes.starts_with(b"%PDF-") {
            return Some(format!("200 without a PDF: {shown}"));
        }
    }
    if let Some(code) = expect["code"].as_str() {
        let body: Value = serde_json::from_slice(&reply.bytes).unwrap_or(Value::Null);
        if body["code"] != code {
            return Some(format!("code {} (want {code}): {shown}", body["code"]));
        }
        if let Some(path) = expect["detail_path"].as_str() {
            let paths: Vec<&str> = body["details"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d["path"].as_str())
                .collect();
            if !paths.contains(&path) {
                return Some(format!("no violation at {path}: {shown}"));
            }
        }
    }
    if let Some(needle) = expect["text_contains"].as_str() {
        if !text.contains(needle) {
            return Some(format!("body lacks {needle:?}: {shown}"));
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread")]
async fn every_hostile_case_gets_its_answer_and_the_server_stays_up() {
    let cases = cases();
    assert!(cases.len() >= 40, "the corpus has {} cases", cases.len());
    let dir = tempfile::tempdir().unwrap();
    let mut server = server::start(dir.path(), &[]);
    let (_id, token) = server::new_token(&server.base, 1_000_000, None).await;
    let mut failures = Vec::new();
    for case in &cases {
        for field in ["item", "why", "expect"] {
            assert!(
                case.spec.get(field).is_some(),
                "{}: no `{field}`",
                case.name
            );
        }
        let request = request(&server, case, &token);
        let (reply, latencies) = health_while(&server.base, async {
            reply(request.send().await.unwrap()).await
        })
        .await;
        if let Some(problem) = check(case, &reply) {
            failures.push(format!("{}: {problem}", case.name));
        }
        let slowest = latencies.iter().max().copied().unwrap_or_default();
        if slowest > HEALTH_WITHIN {
            failures.push(format!(
                "{}: /healthz took {slowest:?} while it ran ({} probes)",
                case.name,
                latencies.len()
            ));
        }
        assert!(
            server.child.try_wait().unwrap().is_none(),
            "the server died on {}",
            case.name
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Still serving real work afterwards.
    let r = server::render(&server.base, SYSTEM, &server::label("after")).await;
    assert_eq!(r.status, 200);
    assert_eq!(server.stop().code(), Some(0));
}
