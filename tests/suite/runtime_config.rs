//! runtime-config as the one description of what the renderer accepts: the
//! catalogs it publishes (page sizes, PDF profiles, barcode options) agree
//! with what validation, the renderer and the barcode service do; its
//! settings come from defaults, `--config` and `LABELPRESS_<SECTION>__<KEY>`
//! variables in that order; and `serve --listen :PORT`.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::server;
use crate::support::*;

fn labelpress(env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(server::binary());
    c.current_dir(manifest_dir())
        .env("LABELPRESS_NO_SYSTEM_FONTS", "1")
        .envs(env.iter().copied());
    c
}

/// `labelpress config ARGS` with `env`; its JSON, or a failed test.
fn config_json(args: &[&str], env: &[(&str, &str)]) -> Value {
    let out = labelpress(env).arg("config").args(args).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].as_str().unwrap())
        .collect()
}

fn valid(request: &Value) -> bool {
    ENGINE
        .validate(&serde_json::to_vec(request).unwrap())
        .is_ok()
}

#[test]
fn every_page_size_is_published_with_the_size_a_render_gets() {
    let config = config_json(&[], &[]);
    let sizes = config["page_sizes"].as_array().unwrap();
    assert_eq!(
        names(&config["page_sizes"]),
        [
            "a4",
            "a6",
            "letter",
            "legal",
            "label_100_100",
            "label_100_150",
            "label_4_6_in"
        ]
    );
    let a4 = &sizes[0];
    assert_eq!((f(a4, "width_mm"), f(a4, "height_mm")), (210.0, 297.0));
    for size in sizes {
        let name = size["name"].as_str().unwrap();
        // Upper case too: presets match case-insensitively.
        let pdf = render(json!({"pages": [{"size": name.to_uppercase(), "elements": [
            {"type": "text", "x": 5, "y": 5, "content": name}
        ]}]}));
        approx(f(pdf.page(0), "width"), f(size, "width_mm"), 0.01, name);
        approx(f(pdf.page(0), "height"), f(size, "height_mm"), 0.01, name);
    }
    assert_violation(
        json!({"pages": [{"size": "a3", "elements": []}]}),
        "pages[0].size",
        "expected one of a4, a6, letter, legal, label_100_100, label_100_150, label_4_6_in",
    );
}

#[test]
fn every_profile_is_published_with_what_validation_requires() {
    let config = config_json(&[], &[]);
    let profiles = config["profiles"].as_array().unwrap();
    let mut all: Vec<&str> = Vec::new();
    for p in profiles {
        all.push(p["name"].as_str().unwrap());
        for alias in p["aliases"].as_array().into_iter().flatten() {
            all.push(alias.as_str().unwrap());
        }
    }
    for expected in [
        "pdfa-1b", "pdfa-1a", "pdfa-2b", "pdfa-2u", "pdfa-2a", "pdfa-3b", "pdfa-3u", "pdfa-3a",
        "pdfa-4", "pdfa-4f", "pdfa-4e", "pdfa-ua1", "pdfua-1",
    ] {
        assert!(all.contains(&expected), "{expected} in {all:?}");
    }
    assert_eq!(all.len(), 13, "{all:?}");
    let ua = profiles.iter().find(|p| p["name"] == "pdfa-ua1").unwrap();
    assert_eq!(ua["aliases"], json!(["pdfua-1"]));
    assert_eq!(ua["standard"], "PDF/UA-1");
    assert_eq!(ua["requires_title"], true);
    let a1b = profiles.iter().find(|p| p["name"] == "pdfa-1b").unwrap();
    assert_eq!(a1b["allows_transparency"], false);

    // A document that breaks every requirement a profile can have: no
    // title, an image and a link without alt text, a translucent fill.
    let probe = |profile: &str| {
        json!({"settings": {"profile": profile}, "pages": [{"size": "a6", "elements": [
            {"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "dot.png"},
            {"type": "rect", "x": 10, "y": 10, "width": 5, "height": 5,
             "fill": {"color": "#ff0000", "opacity": 0.5}},
        ]}]})
    };
    for p in profiles {
        let mut spellings = vec![p["name"].as_str().unwrap()];
        spellings.extend(
            p["aliases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| a.as_str().unwrap()),
        );
        for name in spellings {
            // Profiles that require none of it accept the probe.
            let body = serde_json::to_vec(&probe(name)).unwrap();
            let found = match ENGINE.validate(&body) {
                Ok(_) => Vec::new(),
                Err(labelpress::validate::RequestError::Invalid(v)) => v,
                Err(e) => panic!("{name}: {e}"),
            };
            let at = |suffix: &str| found.iter().any(|v| v.path.ends_with(suffix));
            assert_eq!(
                at("settings.metadata.title"),
                p["requires_title"] == true,
                "{name}: {found:?}"
            );
            assert_eq!(
                at("].alt"),
                p["requires_alt_text"] == true,
                "{name}: {found:?}"
            );
            assert_eq!(
                at("fill.opacity"),
                p["allows_transparency"] == false,
                "{name}: {found:?}"
            );
            assert!(
                !at("settings.profile"),
                "{name} is a known profile: {found:?}"
            );
        }
    }
}

/// An option's published integer range: (min, max).
fn range(option: &Value) -> (i64, i64) {
    (
        option["min"].as_i64().unwrap(),
        option["max"].as_i64().unwrap(),
    )
}

fn option<'a>(config: &'a Value, symbology: &str, name: &str) -> &'a Value {
    let symbology = config["barcodes"]["symbologies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == symbology)
        .unwrap_or_else(|| panic!("{symbology} published"));
    symbology["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("{name} of {symbology}"))
}

#[test]
fn every_symbology_is_published_with_its_options_ranges_and_defaults() {
    let config = config_json(&[], &[]);
    let barcodes = &config["barcodes"];
    let published = names(&barcodes["symbologies"]);
    let known: Vec<&str> = labelpress::barcode::Symbology::all()
        .iter()
        .map(|s| s.name())
        .collect();
    assert_eq!(published, known);
    assert_eq!(published.len(), 19);
    assert_eq!(
        names(&barcodes["service_options"]),
        ["width", "height", "rotate", "margin", "fg", "bg"]
    );
    let version = option(&config, "qr", "version");
    assert_eq!(version["type"], "integer");
    assert_eq!(range(version), (1, 40));
    assert_eq!(version["default"], Value::Null);
    let ecl = option(&config, "qr", "ecl");
    assert_eq!(ecl["values"], json!(["L", "M", "Q", "H"]));
    assert_eq!(ecl["default"], "M");
    assert_eq!(option(&config, "aztec", "ecl")["default"], 23);
    assert_eq!(
        option(&config, "maxicode", "mode")["values"],
        json!([2, 3, 4, 5])
    );
    assert_eq!(option(&config, "code128", "quiet")["default"], 10);
    for s in barcodes["symbologies"].as_array().unwrap() {
        let name = s["name"].as_str().unwrap();
        let expected = if name.starts_with("gs1_") {
            true
        } else {
            false
        };
        assert_eq!(s["gs1"], expected, "{name}");
        assert!(s["options"].is_array(), "{name}");
    }

    // A barcode element at the published bounds is accepted; one past
    // them is refused (API-002) with the published range in the message.
    let element = |format: &str, options: Value| {
        json!({"pages": [{"size": "a4", "elements": [{"type": "barcode", "format": format,
            "x": 10, "y": 10, "width": 150, "height": 150, "content": "HELLO", "options": options}]}]})
    };
    for (format, key) in [
        ("qr", "version"),
        ("aztec", "ecl"),
        ("pdf417", "cols"),
        ("aztec", "layers"),
    ] {
        let (min, max) = range(option(&config, format, key));
        for inside in [min, max] {
            assert!(
                valid(&element(format, json!({key: inside}))),
                "{format} {key}={inside}"
            );
        }
        for outside in [min - 1, max + 1] {
            assert_violation(
                element(format, json!({key: outside})),
                "pages[0].elements[0].options",
                &format!("expected an integer from {min} to {max}"),
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_barcode_service_enforces_the_ranges_the_server_publishes() {
    let dir = tempfile::tempdir().unwrap();
    let s = server::start(dir.path(), &[]);
    let config = server::get(&s.base, "/v1/doc/runtime-config").await.json();
    let families = config["fonts"]["families"].as_array().unwrap();
    assert!(families.iter().any(|f| f == "DejaVu Sans"), "{families:?}");
    for (symbology, key) in [("qr", "version"), ("pdf417", "rows"), ("code128", "quiet")] {
        let (min, max) = range(option(&config, symbology, key));
        for (value, status) in [(min, 200), (max, 200), (min - 1, 400), (max + 1, 400)] {
            let path = format!("/barcode/{symbology}/HELLO?{key}={value}");
            let reply = server::get(&s.base, &path).await;
            assert_eq!(
                reply.status,
                status,
                "{path}: {}",
                String::from_utf8_lossy(&reply.bytes)
            );
        }
    }
    let margin = config["barcodes"]["service_options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "margin")
        .unwrap();
    assert_eq!(margin["aliases"], json!(["m"]));
    let (_, max) = range(margin);
    assert_eq!(
        server::get(&s.base, &format!("/barcode/qr/x?m={max}"))
            .await
            .status,
        200
    );
    assert_eq!(
        server::get(&s.base, &format!("/barcode/qr/x?m={}", max + 1))
            .await
            .status,
        400
    );
}

#[test]
fn the_environment_overrides_the_config_file_and_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "[limits]\nrender_queue = 4\nsheets = 10\n").unwrap();
    let file = file.to_str().unwrap();
    let from_file = config_json(&["--config", file], &[]);
    assert_eq!(from_file["limits"]["render_queue"], 4);
    let env = [
        ("LABELPRESS_LIMITS__RENDER_QUEUE", "8"),
        ("LABELPRESS_DEFAULTS__TEXT_COLOR", "#112233"),
        ("LABELPRESS_FONTS__FALLBACK", "DejaVu Sans, Noto Sans"),
    ];
    let both = config_json(&["--config", file], &env);
    assert_eq!(
        both["limits"]["render_queue"], 8,
        "the variable wins over the file"
    );
    assert_eq!(both["limits"]["sheets"], 10, "the file's other keys stay");
    assert_eq!(both["limits"]["elements"], 100_000, "defaults stay");
    assert_eq!(both["defaults"]["text_color"], "#112233");
    assert_eq!(
        both["fonts"]["fallback"],
        json!(["DejaVu Sans", "Noto Sans"])
    );
    // The same file named by LABELPRESS_CONFIG (a flag's twin, not a key).
    let twin = config_json(&[], &[("LABELPRESS_CONFIG", file)]);
    assert_eq!(twin["limits"]["sheets"], 10);

    // Not only published: validation uses it.
    let request = dir.path().join("two.json");
    std::fs::write(
        &request,
        r#"{"pages": [{"size": "a6", "elements": [
            {"type": "text", "x": 1, "y": 1, "content": "a"},
            {"type": "text", "x": 1, "y": 9, "content": "b"}]}]}"#,
    )
    .unwrap();
    let check = |env: &[(&str, &str)]| labelpress(env).arg("check").arg(&request).output().unwrap();
    assert!(check(&[]).status.success());
    let refused = check(&[("LABELPRESS_LIMITS__ELEMENTS", "1")]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let body: Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(body["code"], "API-002");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_running_server_publishes_the_environment_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(&file, "[limits]\nrender_queue = 4\nretry_after_s = 9\n").unwrap();
    let data = dir.path().join("data");
    let s = server::start_with_env(
        &data,
        &["--config", file.to_str().unwrap()],
        &[
            ("LABELPRESS_LIMITS__RENDER_QUEUE", "7"),
            ("LABELPRESS_DEFAULTS__FONT_SIZE", "11.5"),
        ],
    );
    let config = server::get(&s.base, "/v1/doc/runtime-config").await.json();
    assert_eq!(config["limits"]["render_queue"], 7);
    assert_eq!(config["limits"]["retry_after_s"], 9);
    assert_eq!(config["defaults"]["font_size"], 11.5);
    assert!(config["page_sizes"].is_array() && config["barcodes"].is_object());
}

#[test]
fn a_bad_configuration_variable_stops_the_start_with_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "LABELPRESS_LIMITS__RENDER_QUEU",
            "8",
            "did you mean `render_queue`",
        ),
        (
            "LABELPRESS_LIMITS__RENDER_QUEUE",
            "many",
            "is not an integer",
        ),
        (
            "LABELPRESS_LIMITS__RENDER_THREAD_NICE",
            "25",
            "a nice increment is 0 to 19",
        ),
        ("LABELPRESS_PAGE_SIZES__A4", "1", "read-only"),
    ];
    for (variable, value, expected) in cases {
        for args in [vec!["config"], vec!["check", "examples/label.json"]] {
            let out = labelpress(&[(variable, value)])
                .args(&args)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{variable}={value} {args:?}");
            let message = stderr(&out);
            assert_eq!(message.lines().count(), 1, "one line: {message}");
            assert!(
                message.starts_with(&format!("labelpress: {variable}: ")),
                "{message}"
            );
            assert!(message.contains(expected), "{message}");
        }
    }
    let out = serve_once(
        &[("LABELPRESS_LIMITS__RENDER_QUEUE", "-3")],
        dir.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("LABELPRESS_LIMITS__RENDER_QUEUE"),
        "{}",
        stderr(&out)
    );
    let file = dir.path().join("ro.toml");
    std::fs::write(&file, "[fonts]\nfamilies = [\"X\"]\n").unwrap();
    let out = labelpress(&[])
        .arg("config")
        .arg("--config")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`fonts.families` is read-only"),
        "{}",
        stderr(&out)
    );
}

/// `labelpress serve` on a free port and `data_dir`, run to its end (these
/// tests give it configurations that stop it at start).
fn serve_once(env: &[(&str, &str)], data_dir: &std::path::Path, args: &[&str]) -> Output {
    labelpress(env)
        .args(["serve", "--listen", &server::free_addr(), "--data-dir"])
        .arg(data_dir)
        .args(args)
        .output()
        .unwrap()
}

/// Issue 28: configuration values that aborted the start, left a server
/// that failed every request, or were silently replaced. `serve` stops
/// with exit 2 before it listens, naming the variable, the key's value and
/// its range; the same value in the TOML file too.
#[test]
fn hostile_configuration_stops_serve_naming_key_value_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("LIMITS__RENDER_CONCURRENCY", "100000"),
        ("LIMITS__RENDER_WORKER_MEMORY_MB", "400"),
        ("LIMITS__RENDER_DEADLINE_MS", "0"),
        ("LIMITS__BODY_BYTES", "0"),
        ("LIMITS__PNG_DPI_MAX", "71"),
        ("DEFAULTS__FONT_SIZE", "1e308"),
        ("DEFAULTS__FONT_SIZE", "-1"),
        ("LIMITS__MAX_CONNECTIONS", "0"),
        ("LIMITS__RATE_LIMIT_BURST", "0"),
        ("LIMITS__BODY_BYTES", "18446744073709551615"),
    ];
    for (name, value) in cases {
        let variable = format!("LABELPRESS_{name}");
        let out = serve_once(&[(&variable, value)], dir.path(), &[]);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{variable}={value}: {message}");
        assert!(
            message.starts_with(&format!("labelpress: {variable}: ")),
            "{message}"
        );
        assert!(message.contains("out of range: "), "{message}");
    }
    let file = dir.path().join("hostile.toml");
    std::fs::write(&file, "[limits]\nrender_concurrency = 2000\n").unwrap();
    let out = serve_once(&[], dir.path(), &["--config", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("limits.render_concurrency = 2000 is out of range: 0 to 128"),
        "{}",
        stderr(&out)
    );
}

/// runtime-config publishes each numeric key's range, and the start
/// enforces exactly it: the bounds are accepted, one step past them is not.
#[test]
fn every_published_range_is_what_the_start_enforces() {
    let config = config_json(&[], &[]);
    let ranges = config["ranges"].as_object().unwrap();
    let mut checked = 0;
    for (section, keys) in ranges {
        for (key, range) in keys.as_object().unwrap() {
            let default = &config[section][key];
            assert!(
                default.is_number(),
                "{section}.{key} is published: {config}"
            );
            let (min, max) = (
                range["minimum"].as_f64().unwrap(),
                range["maximum"].as_f64().unwrap(),
            );
            let integer = default.is_u64() || default.is_i64();
            let variable = format!(
                "LABELPRESS_{}__{}",
                section.to_uppercase(),
                key.to_uppercase()
            );
            let text = |v: f64| {
                if integer {
                    format!("{}", v as i64)
                } else {
                    format!("{v}")
                }
            };
            // Keys related to others are tried where the rules between keys hold.
            if [
                "png_dpi",
                "min_font_size",
                "blacklist_recheck_s",
                "table_cells",
                "font_size",
                "png_dpi_max",
                "auth_cache_ttl_s",
            ]
            .contains(&key.as_str())
            {
                continue;
            }
            for edge in [min, max] {
                let out = labelpress(&[(&variable, &text(edge))])
                    .arg("config")
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{variable}={}: {}",
                    text(edge),
                    stderr(&out)
                );
            }
            let step = if integer {
                1.0
            } else {
                min.abs().max(1.0) * 1e-3
            };
            for outside in [min - step, max + step] {
                if range["zero_disables"] == true && outside == 0.0 {
                    continue;
                }
                if outside < 0.0 && integer {
                    continue; // unsigned keys: a type error, tried above
                }
                let out = labelpress(&[(&variable, &text(outside))])
                    .arg("config")
                    .output()
                    .unwrap();
                assert_eq!(
                    out.status.code(),
                    Some(2),
                    "{variable}={} must be refused",
                    text(outside)
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "{checked} keys");
}

#[test]
fn listen_on_a_bare_port_serves_every_interface() {
    let dir = tempfile::tempdir().unwrap();
    let port = server::free_port();
    let mut child = Command::new(server::binary())
        .args([
            "serve",
            "--listen",
            &format!(":{port}"),
            "--no-system-fonts",
        ])
        .args(["--services", "barcode", "--data-dir"])
        .arg(dir.path())
        .env("RUST_LOG", "warn")
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let answer = loop {
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::{Read, Write};
            let _ = write!(
                s,
                "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
            );
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            break out;
        }
        assert!(child.try_wait().unwrap().is_none(), "the server exited");
        assert!(
            Instant::now() < deadline,
            "nothing listens on 127.0.0.1:{port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("ok"), "{answer}");

    let out = labelpress(&[])
        .args(["serve", "--listen", "8080", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value '8080' for '--listen"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains(":PORT"), "{}", stderr(&out));
}
