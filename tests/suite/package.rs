//! The container image's recipe (Dockerfile) and the compose example agree
//! with the CLI, the fonts script and `.ci/run`. No Docker daemon runs where
//! the tests do, so the recipe is read, and what it would run is run here:
//! the entrypoint with the image's flags, probed on the health check's path.

use std::process::Command;

use crate::server::{binary, free_port};
use crate::support::*;

fn read(path: &str) -> String {
    std::fs::read_to_string(manifest_dir().join(path)).unwrap()
}

/// Dockerfile instructions, continuation lines joined:
/// `(INSTRUCTION, arguments)`.
fn instructions() -> Vec<(String, String)> {
    let text = read("Dockerfile").replace("\\\n", " ");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let (op, args) = l.split_once(char::is_whitespace)?;
            Some((op.to_ascii_uppercase(), args.trim().to_string()))
        })
        .collect()
}

/// The instructions of the final stage.
pub fn runtime_stage() -> Vec<(String, String)> {
    let instructions = instructions();
    let last_from = instructions
        .iter()
        .rposition(|(op, _)| op == "FROM")
        .unwrap();
    instructions[last_from..].to_vec()
}

/// The instructions of the first stage (the build), up to the next `FROM`.
fn build_stage() -> Vec<(String, String)> {
    let instructions = instructions();
    let end = instructions
        .iter()
        .skip(1)
        .position(|(op, _)| op == "FROM")
        .unwrap()
        + 1;
    instructions[..end].to_vec()
}

pub fn one(stage: &[(String, String)], op: &str) -> String {
    let found: Vec<&String> = stage
        .iter()
        .filter(|(o, _)| o == op)
        .map(|(_, a)| a)
        .collect();
    assert_eq!(found.len(), 1, "one {op} in the runtime stage: {found:?}");
    found[0].clone()
}

/// A JSON-array (exec form) instruction's words.
pub fn exec_form(args: &str) -> Vec<String> {
    serde_json::from_str(args).unwrap_or_else(|e| panic!("exec form {args}: {e}"))
}

/// The value following `flag` in `words`.
fn flag<'a>(words: &'a [String], name: &str) -> &'a str {
    let i = words
        .iter()
        .position(|w| w == name)
        .unwrap_or_else(|| panic!("{name} in {words:?}"));
    &words[i + 1]
}

/// Packages an `apt-get install` line of the stage installs.
fn apt_packages(stage: &[(String, String)]) -> Vec<String> {
    stage
        .iter()
        .filter(|(op, _)| op == "RUN")
        .flat_map(|(_, args)| args.split("&&").map(str::to_string).collect::<Vec<_>>())
        .filter(|cmd| cmd.contains("apt-get install"))
        .flat_map(|cmd| {
            cmd.split_whitespace()
                .skip_while(|w| *w != "install")
                .skip(1)
                .filter(|w| !w.starts_with('-'))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn dockerfile_runs_the_cli_with_flags_it_accepts_and_checks_the_health_route() {
    let stage = runtime_stage();
    let entrypoint = exec_form(&one(&stage, "ENTRYPOINT"));
    assert_eq!(entrypoint, ["labelpress"]);
    let cmd = exec_form(&one(&stage, "CMD"));
    assert_eq!(cmd[0], "serve");

    // The exposed port is the one the server listens on, on every interface.
    let port: u16 = one(&stage, "EXPOSE").parse().unwrap();
    let listen = flag(&cmd, "--listen");
    assert_eq!(listen, format!("0.0.0.0:{port}"));

    // The volume is the data dir, and the user is not root.
    let volume = exec_form(&one(&stage, "VOLUME"));
    assert_eq!(volume, [flag(&cmd, "--data-dir")]);
    let user = one(&stage, "USER");
    assert!(user != "root" && user != "0", "USER {user}");
    let run = stage
        .iter()
        .filter(|(op, _)| op == "RUN")
        .map(|(_, a)| a.as_str())
        .collect::<String>();
    assert!(run.contains(&format!(
        "useradd --system --uid 10001 --home-dir {}",
        volume[0]
    )));
    assert!(run.contains(&format!("chown {user}:{user} {}", volume[0])));

    // The health check asks this port for a route the server answers.
    let healthcheck = one(&stage, "HEALTHCHECK");
    let probe = exec_form(healthcheck.split_once("CMD").unwrap().1.trim());
    let url = probe.last().unwrap();
    let path = url
        .strip_prefix(&format!("http://127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("{url} probes port {port} on loopback"));
    assert_eq!(path, "/healthz");
    assert_eq!(probe[0], "curl");
    assert!(apt_packages(&stage).contains(&"curl".to_string()));

    // The entrypoint with the image's flags starts, and answers the probe:
    // only the port and the folder are the test's own.
    let data = tempfile::tempdir().unwrap();
    let test_port = free_port();
    let args: Vec<String> = cmd
        .iter()
        .map(|w| {
            if w == listen {
                format!("127.0.0.1:{test_port}")
            } else if *w == volume[0] {
                data.path().to_str().unwrap().to_string()
            } else {
                w.clone()
            }
        })
        .collect();
    let mut child = Command::new(binary())
        .args(&args)
        .env("LABELPRESS_NO_SYSTEM_FONTS", "1")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let answer = loop {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the image's command exited: {status}");
        }
        let got = Command::new("curl")
            .args(&probe[1..probe.len() - 1])
            .args(["-w", "%{http_code}"])
            .arg(format!("http://127.0.0.1:{test_port}{path}"))
            .output()
            .unwrap();
        if got.status.success() {
            break String::from_utf8(got.stdout).unwrap();
        }
        assert!(std::time::Instant::now() < deadline, "no answer on {path}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(answer, "200");
    assert!(
        data.path().join("admin-token").exists(),
        "state went to the volume"
    );
}

#[test]
fn image_installs_the_fonts_the_tests_and_the_fallback_order_use() {
    // The fonts script's package list is what .ci/run installs for the tests.
    let script = read("scripts/install-fonts.sh");
    let list = script
        .lines()
        .find_map(|l| l.trim().strip_prefix("packages=("))
        .expect("packages=(...) in install-fonts.sh")
        .trim_end_matches(')');
    let fonts: Vec<&str> = list.split_whitespace().collect();
    assert!(!fonts.is_empty());
    assert!(read(".ci/run").contains("bash scripts/install-fonts.sh"));
    let installed = apt_packages(&runtime_stage());
    for font in &fonts {
        assert!(
            installed.iter().any(|p| p == font),
            "{font} in {installed:?}"
        );
    }
    // https verifier URLs need CA roots.
    assert!(installed.iter().any(|p| p == "ca-certificates"));

    // The build stage's Rust is at least the crate's rust-version.
    let manifest = read("Cargo.toml");
    let needed = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .unwrap()
        .trim_matches('"');
    let dockerfile = read("Dockerfile");
    let image = dockerfile
        .lines()
        .find_map(|l| l.strip_prefix("FROM rust:"))
        .expect("a rust: build stage");
    let version = image.split('-').next().unwrap();
    let parse = |v: &str| -> Vec<u32> { v.split('.').map(|n| n.parse().unwrap()).collect() };
    assert!(
        parse(version) >= parse(needed),
        "rust:{version} builds rust-version {needed}"
    );
    assert!(dockerfile.contains("cargo build --release --locked"));
}

/// Each service's `command:` list in compose.yaml (a block list of plain
/// scalars, the only form the file uses).
fn compose_commands() -> Vec<(String, Vec<String>)> {
    let text = read("compose.yaml");
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut service = String::new();
    let mut in_command = false;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if indent == 2 && trimmed.ends_with(':') {
            service = trimmed.trim_end_matches(':').to_string();
            in_command = false;
        } else if indent == 4 {
            in_command = trimmed == "command:";
            if in_command {
                out.push((service.clone(), Vec::new()));
            }
        } else if in_command && indent == 6 {
            let item = trimmed.strip_prefix("- ").expect("a list item");
            out.last_mut().unwrap().1.push(item.to_string());
        }
    }
    out
}

#[test]
fn compose_example_uses_flags_the_cli_accepts() {
    let commands = compose_commands();
    let names: Vec<&str> = commands.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(names, ["verifier", "render"]);
    for (service, command) in &commands {
        // clap parses every flag and value before it acts on --help, so an
        // unknown flag or a bad value fails here with exit 2.
        let out = Command::new(binary())
            .args(command)
            .arg("--help")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{service}: {command:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let verifier = &commands[0].1;
    let render = &commands[1].1;
    // The render node reaches the verifier where it listens.
    let verifier_port = flag(verifier, "--listen").rsplit(':').next().unwrap();
    assert_eq!(
        flag(render, "--verify-url"),
        format!("http://verifier:{verifier_port}")
    );
    assert!(flag(verifier, "--database-url").starts_with("postgres://"));
    // A PostgreSQL ledger needs an admin token shared by its verifiers.
    assert!(read("compose.yaml").contains("LABELPRESS_ADMIN_TOKEN:"));
}

/// `cargo metadata --no-deps` of the workspace in `dir`.
fn metadata(dir: &std::path::Path) -> serde_json::Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--locked", "--offline"])
        .args(["--format-version", "1"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A COPY's sources and destination (no `--from`: the build context).
fn copy_args(args: &str) -> (Vec<String>, String) {
    let mut words: Vec<String> = args.split_whitespace().map(str::to_string).collect();
    assert!(
        !words.iter().any(|w| w.starts_with("--")),
        "COPY {args}: no flags in the build stage"
    );
    let dest = words.pop().unwrap();
    (words, dest)
}

/// The build stage builds the dependencies from the manifests alone, then
/// the sources: a change to `src/` reuses the dependency layer. No Docker
/// runs here, so the layer's COPYs are made into a temporary folder and its
/// RUNs run there: cargo must then find every target it loads.
#[test]
fn dockerfile_builds_the_dependencies_before_copying_the_sources() {
    let stage = build_stage();
    let build = "cargo build --release --locked --bin labelpress";
    let workdir = one(&stage, "WORKDIR");
    let root = manifest_dir();

    // What the dependency layer needs: the lock file, every workspace
    // package's manifest and its build script (no other source).
    let repo = metadata(&root);
    let relative = |path: &str| {
        std::path::Path::new(path)
            .strip_prefix(&root)
            .unwrap()
            .to_str()
            .unwrap()
            .to_string()
    };
    let mut needed = std::collections::BTreeSet::from(["Cargo.lock".to_string()]);
    for package in repo["packages"].as_array().unwrap() {
        needed.insert(relative(package["manifest_path"].as_str().unwrap()));
        for target in package["targets"].as_array().unwrap() {
            if target["kind"][0] == "custom-build" {
                needed.insert(relative(target["src_path"].as_str().unwrap()));
            }
        }
    }
    assert!(needed.contains("crates/document/Cargo.toml"), "{needed:?}");
    assert!(!needed.iter().any(|p| p.starts_with("fuzz/")), "{needed:?}");
    // And every patched dependency ([patch.crates-io]: a crate under
    // vendor/), whole: it is built in that layer.
    let manifest = read("Cargo.toml");
    let patched: Vec<String> = manifest
        .split("[patch.crates-io]")
        .nth(1)
        .expect("a [patch.crates-io] table")
        .lines()
        .filter_map(|l| l.split("path = \"").nth(1)?.split('"').next())
        .map(str::to_string)
        .collect();
    assert!(!patched.is_empty());
    needed.extend(patched);

    // The COPYs before the sources copy exactly those, each to its place.
    let sources = stage
        .iter()
        .position(|(op, args)| op == "COPY" && copy_args(args).0 == ["."])
        .expect("COPY . . (the sources)");
    let layer = &stage[..sources];
    let context = tempfile::tempdir().unwrap();
    let work = context.path().join(workdir.trim_start_matches('/'));
    std::fs::create_dir_all(&work).unwrap();
    let mut copied = std::collections::BTreeSet::new();
    for (_, args) in layer.iter().filter(|(op, _)| op == "COPY") {
        let (from, dest) = copy_args(args);
        for file in &from {
            if root.join(file).is_dir() {
                // Docker copies a directory's contents into the destination.
                let to = work.join(&dest);
                assert_eq!(
                    relative_to(&to, &work),
                    *file,
                    "COPY {args}: lands where it was"
                );
                copy_dir(&root.join(file), &to);
                copied.extend(crate_dirs(&to, &work));
                continue;
            }
            let to = if dest.ends_with('/') {
                work.join(&dest)
                    .join(std::path::Path::new(file).file_name().unwrap())
            } else {
                work.join(&dest)
            };
            let placed = relative_to(&to, &work);
            assert_eq!(&placed, file, "COPY {args}: {file} lands where it was");
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(root.join(file), &to).unwrap_or_else(|e| panic!("{file}: {e}"));
            copied.insert(file.clone());
        }
    }
    assert_eq!(
        copied, needed,
        "the dependency layer copies the manifests and the patched crates only"
    );

    // Its RUNs: the stubs, then the build, in a layer of its own.
    let runs: Vec<&str> = layer
        .iter()
        .filter(|(op, _)| op == "RUN")
        .map(|(_, args)| args.as_str())
        .collect();
    assert_eq!(runs.last(), Some(&build), "the dependency build, alone");
    // The RUNs find the cargo that runs the tests first on PATH.
    let cargo = std::path::PathBuf::from(std::env::var_os("CARGO").unwrap_or_default());
    let path = std::env::join_paths(
        cargo
            .parent()
            .into_iter()
            .map(std::path::Path::to_path_buf)
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
    )
    .unwrap();
    for run in &runs[..runs.len() - 1] {
        let out = Command::new("sh")
            .args(["-c", run])
            .env("PATH", &path)
            .current_dir(&work)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "RUN {run}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Every target cargo lists for the stubbed workspace is there (a
    // missing bench or library stops `cargo build` before it compiles).
    let stubbed = metadata(&work);
    let mut targets = 0;
    for package in stubbed["packages"].as_array().unwrap() {
        for target in package["targets"].as_array().unwrap() {
            let path = target["src_path"].as_str().unwrap();
            assert!(std::path::Path::new(path).exists(), "{path}");
            targets += 1;
        }
    }
    let names = |m: &serde_json::Value| -> std::collections::BTreeSet<String> {
        m["packages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| p["targets"].as_array().unwrap().iter())
            .filter(|t| t["kind"][0] != "example" && t["kind"][0] != "test")
            .map(|t| {
                let kind = t["kind"][0].as_str().unwrap();
                format!("{kind} {}", t["name"].as_str().unwrap())
            })
            .collect()
    };
    // The stubs stand for the real targets (the root's library aside: it
    // is found from src/lib.rs, which the binary's stub does not need).
    let mut real = names(&repo);
    real.remove("lib labelpress");
    assert_eq!(names(&stubbed), real);
    assert!(targets >= 3);
    assert!(work.join("src/main.rs").exists());

    // Then the sources, touched (COPY keeps their times, which may be older
    // than the stubs' build), and the build again.
    let after: Vec<&str> = stage[sources..]
        .iter()
        .filter(|(op, _)| op == "RUN")
        .map(|(_, args)| args.as_str())
        .collect();
    assert_eq!(after.len(), 1, "{after:?}");
    let (touch, rest) = after[0].split_once(build).expect("the build again");
    assert!(
        touch.contains("find src crates -name '*.rs' -exec touch"),
        "{touch}"
    );
    assert!(rest.contains("cp target/release/labelpress /usr/local/bin/labelpress"));
    // The build context leaves out the target folder.
    assert!(read(".dockerignore").lines().any(|l| l == "target"));
}

/// The folders under `dir` (itself included) that hold a Cargo.toml,
/// relative to `base`.
fn crate_dirs(dir: &std::path::Path, base: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    if dir.join("Cargo.toml").exists() {
        found.push(relative_to(dir, base));
    }
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().is_dir() {
            found.extend(crate_dirs(&entry.path(), base));
        }
    }
    found
}

/// `path` below `base`, as a `/`-separated string.
fn relative_to(path: &std::path::Path, base: &std::path::Path) -> String {
    let mut parts = Vec::new();
    for c in path.strip_prefix(base).unwrap().components() {
        match c {
            std::path::Component::CurDir => {}
            c => parts.push(c.as_os_str().to_str().unwrap().to_string()),
        }
    }
    parts.join("/")
}
