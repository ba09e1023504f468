//! The Kubernetes manifests in deploy/kubernetes agree with each other, with
//! the image (Dockerfile) and with the CLI. No cluster runs where the tests
//! do, so the manifests are read (PyYAML, tests/support/yamlread.py) and
//! what their containers would run is run here: one verifier and two render
//! nodes with the manifests' own args and environment, on a throwaway
//! PostgreSQL. Only what a pod has and a test machine has not is the test's
//! own: loopback ports for the Service names and ports, temporary folders
//! for the volumes, test values for the Secret's placeholders.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::package::{exec_form, one, runtime_stage};
use crate::server::{binary, client, free_port, label, reply};
use crate::support::*;

const DIR: &str = "deploy/kubernetes";

/// The bound of the last usage report at shutdown (src/http/mod.rs,
/// `final_report` in `Node::run`): not a configuration key.
const FINAL_REPORT_S: u64 = 5;

/// `(file name, document)` for every document of every YAML file in DIR.
fn documents() -> Vec<(String, Value)> {
    let dir = manifest_dir().join(DIR);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "YAML files in {DIR}");
    let args: Vec<&std::ffi::OsStr> = files.iter().map(|f| f.as_os_str()).collect();
    let parsed = python_json("yamlread.py", &args, "PyYAML");
    let mut out = Vec::new();
    for file in &files {
        let docs = parsed[file.to_str().unwrap()].as_array().unwrap();
        assert!(!docs.is_empty(), "{}: no document", file.display());
        let name = file.file_name().unwrap().to_str().unwrap().to_string();
        out.extend(docs.iter().map(|d| (name.clone(), d.clone())));
    }
    out
}

fn kind_name(doc: &Value) -> (String, String) {
    let kind = doc["kind"].as_str().expect("kind").to_string();
    let name = doc["metadata"]["name"].as_str().expect("metadata.name");
    (kind, name.to_string())
}

/// The manifests by `(kind, name)`.
fn objects() -> BTreeMap<(String, String), (String, Value)> {
    let mut out = BTreeMap::new();
    for (file, doc) in documents() {
        let key = kind_name(&doc);
        assert!(
            out.insert(key.clone(), (file, doc)).is_none(),
            "{key:?} twice"
        );
    }
    out
}

fn object<'a>(
    objects: &'a BTreeMap<(String, String), (String, Value)>,
    kind: &str,
    name: &str,
) -> &'a Value {
    &objects
        .get(&(kind.to_string(), name.to_string()))
        .unwrap_or_else(|| panic!("{kind} {name} in {DIR}"))
        .1
}

/// A Deployment's one container.
fn container(deployment: &Value) -> &Value {
    let containers = deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap();
    assert_eq!(containers.len(), 1, "one container");
    &containers[0]
}

/// A container's args: strings only (Kubernetes takes no numbers there).
fn args(container: &Value) -> Vec<String> {
    container["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| {
            a.as_str()
                .unwrap_or_else(|| panic!("arg {a} is not a string"))
                .to_string()
        })
        .collect()
}

/// The value after `name` in `args`.
fn flag<'a>(args: &'a [String], name: &str) -> &'a str {
    let i = args
        .iter()
        .position(|a| a == name)
        .unwrap_or_else(|| panic!("{name} in {args:?}"));
    &args[i + 1]
}

/// What the image says (Dockerfile, final stage).
struct Image {
    entrypoint: Vec<String>,
    command: String,
    port: u16,
    volume: String,
    uid: u64,
}

fn image() -> Image {
    let stage = runtime_stage();
    let user = one(&stage, "USER");
    let run: String = stage
        .iter()
        .filter(|(op, _)| op == "RUN")
        .map(|(_, a)| a.as_str())
        .collect();
    let useradd = run
        .split("&&")
        .find(|c| c.contains("useradd") && c.trim_end().ends_with(&format!(" {user}")))
        .expect("useradd of the image's USER");
    let words: Vec<&str> = useradd.split_whitespace().collect();
    let uid = words[words.iter().position(|w| *w == "--uid").unwrap() + 1];
    Image {
        entrypoint: exec_form(&one(&stage, "ENTRYPOINT")),
        command: exec_form(&one(&stage, "CMD"))[0].clone(),
        port: one(&stage, "EXPOSE").parse().unwrap(),
        volume: exec_form(&one(&stage, "VOLUME"))[0].clone(),
        uid: uid.parse().unwrap(),
    }
}

/// The `LABELPRESS_*` variables `serve` reads (`[env: NAME` in its help).
fn serve_env_names() -> BTreeSet<String> {
    let out = Command::new(binary())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    help.split("[env: ")
        .skip(1)
        .map(|rest| rest.split(['=', ']']).next().unwrap().to_string())
        .collect()
}

/// The Secret's keys and values (stringData, or base64 data).
fn secret_values(secret: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(data) = secret["stringData"].as_object() {
        for (k, v) in data {
            out.insert(k.clone(), v.as_str().unwrap().to_string());
        }
    }
    if let Some(data) = secret["data"].as_object() {
        use base64::Engine as _;
        for (k, v) in data {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(v.as_str().unwrap())
                .unwrap();
            out.insert(k.clone(), String::from_utf8(bytes).unwrap());
        }
    }
    out
}

/// A container's environment, secrets taken from `secrets`: `(name, value)`.
fn environment(
    container: &Value,
    secret_name: &str,
    secrets: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let Some(env) = container["env"].as_array() else {
        return Vec::new();
    };
    env.iter()
        .map(|e| {
            let name = e["name"].as_str().unwrap().to_string();
            let value = if let Some(v) = e.get("value") {
                v.as_str()
                    .unwrap_or_else(|| panic!("{name}: {v} is not a string"))
                    .to_string()
            } else {
                let from = &e["valueFrom"]["secretKeyRef"];
                assert_eq!(from["name"], secret_name, "{name}: the Secret");
                let key = from["key"].as_str().unwrap();
                secrets
                    .get(key)
                    .unwrap_or_else(|| panic!("{name}: key {key} is not in the Secret"))
                    .clone()
            };
            (name, value)
        })
        .collect()
}

/// A probe's path and the container port it asks.
fn probe(container: &Value, which: &str) -> Option<(String, u16)> {
    let get = container[which].get("httpGet")?;
    let path = get["path"].as_str().unwrap().to_string();
    let port = match &get["port"] {
        Value::String(name) => container["ports"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{which}: no port named {name}"))["containerPort"]
            .as_u64()
            .unwrap(),
        Value::Number(n) => n.as_u64().unwrap(),
        other => panic!("{which}: port {other}"),
    };
    Some((path, port as u16))
}

/// `preStop` sleep seconds (0 without one).
fn pre_stop_s(container: &Value) -> u64 {
    match container["lifecycle"]["preStop"]["exec"]["command"].as_array() {
        Some(command) => {
            assert_eq!(command[0], "sleep", "{command:?}");
            command[1].as_str().unwrap().parse().unwrap()
        }
        None => 0,
    }
}

/// The limits a container's serve applies: `labelpress config` with its
/// literal environment (the configuration keys are never secrets).
fn limits(container: &Value) -> Value {
    let mut command = Command::new(binary());
    command.arg("config").env("LABELPRESS_NO_SYSTEM_FONTS", "1");
    for e in container["env"].as_array().into_iter().flatten() {
        if let Some(v) = e["value"].as_str() {
            command.env(e["name"].as_str().unwrap(), v);
        }
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout).unwrap()["limits"].clone()
}

fn seconds(limits: &Value, key: &str) -> u64 {
    limits[key]
        .as_u64()
        .unwrap_or_else(|| panic!("limits.{key}"))
        .div_ceil(1000)
}

/// Checks one Deployment against the image and the CLI; its args.
fn check_deployment(
    deployment: &Value,
    image: &Image,
    env_names: &BTreeSet<String>,
) -> Vec<String> {
    let name = kind_name(deployment).1;
    assert_eq!(deployment["apiVersion"], "apps/v1");
    let spec = &deployment["spec"];
    let pod = &spec["template"]["spec"];
    let labels = spec["template"]["metadata"]["labels"].as_object().unwrap();
    for (k, v) in spec["selector"]["matchLabels"].as_object().unwrap() {
        assert_eq!(labels.get(k), Some(v), "{name}: selector {k} on its pods");
    }

    // The image's entrypoint and user; no root, no writable root filesystem.
    let c = container(deployment);
    assert!(
        c.get("command").is_none() || exec_strings(&c["command"]) == image.entrypoint,
        "{name}: the image's entrypoint"
    );
    let args = args(c);
    assert_eq!(args[0], image.command, "{name}: `labelpress serve`");
    assert_eq!(
        pod["securityContext"]["runAsUser"], image.uid,
        "{name}: the image's user"
    );
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let security = &c["securityContext"];
    assert_eq!(security["readOnlyRootFilesystem"], true, "{name}");
    assert_eq!(security["allowPrivilegeEscalation"], false, "{name}");
    assert!(
        security["capabilities"]["drop"]
            .as_array()
            .is_some_and(|d| d.iter().any(|c| c == "ALL")),
        "{name}: capabilities dropped"
    );
    // Service links would add `<SERVICE>_PORT` variables, some of them
    // starting with LABELPRESS_.
    assert_eq!(pod["enableServiceLinks"], false, "{name}");

    // The image's port, on every interface.
    let ports = c["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 1);
    assert_eq!(ports[0]["containerPort"], image.port, "{name}: EXPOSE");
    assert_eq!(flag(&args, "--listen"), format!("0.0.0.0:{}", image.port));

    // The data dir is the image's volume, mounted from an emptyDir: scratch
    // that is gone with the pod. No claim of any kind.
    let data_dir = flag(&args, "--data-dir");
    assert_eq!(data_dir, image.volume, "{name}: the image's VOLUME");
    let mount = c["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mountPath"] == data_dir)
        .unwrap_or_else(|| panic!("{name}: {data_dir} mounted"));
    let volumes = pod["volumes"].as_array().unwrap();
    let volume = volumes.iter().find(|v| v["name"] == mount["name"]).unwrap();
    assert!(volume.get("emptyDir").is_some(), "{name}: {volume}");
    for v in volumes {
        assert!(v.get("persistentVolumeClaim").is_none(), "{name}: {v}");
        assert!(v.get("ephemeral").is_none(), "{name}: {v}");
        assert!(v.get("hostPath").is_none(), "{name}: {v}");
    }
    assert!(spec.get("volumeClaimTemplates").is_none());

    // Probes: readiness on /readyz, liveness (and startup) on /healthz, at
    // the port the server listens on.
    assert_eq!(
        probe(c, "readinessProbe"),
        Some(("/readyz".into(), image.port))
    );
    assert_eq!(
        probe(c, "livenessProbe"),
        Some(("/healthz".into(), image.port))
    );
    if c.get("startupProbe").is_some() {
        assert_eq!(
            probe(c, "startupProbe"),
            Some(("/healthz".into(), image.port))
        );
    }

    // Requests and limits.
    for (section, resource) in [
        ("requests", "cpu"),
        ("requests", "memory"),
        ("limits", "cpu"),
        ("limits", "memory"),
    ] {
        assert!(
            c["resources"][section][resource].is_string(),
            "{name}: resources.{section}.{resource}"
        );
    }

    // Every variable is one serve reads.
    for e in c["env"].as_array().into_iter().flatten() {
        let var = e["name"].as_str().unwrap();
        let config_key = var.starts_with("LABELPRESS_") && var.contains("__");
        assert!(
            env_names.contains(var) || config_key,
            "{name}: serve reads no {var}"
        );
    }
    args
}

fn exec_strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The Service whose selector picks `deployment`'s pods, and only those.
fn service_for<'a>(
    objects: &'a BTreeMap<(String, String), (String, Value)>,
    deployment: &Value,
) -> &'a Value {
    let labels = &deployment["spec"]["template"]["metadata"]["labels"];
    let selects = |service: &Value, labels: &Value| {
        service["spec"]["selector"]
            .as_object()
            .unwrap()
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
    };
    let found: Vec<&Value> = objects
        .iter()
        .filter(|((kind, _), _)| kind == "Service")
        .map(|(_, (_, s))| s)
        .filter(|s| selects(s, labels))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one Service for {:?}",
        kind_name(deployment)
    );
    let service = found[0];
    for ((kind, other), (_, d)) in objects {
        if kind == "Deployment" && *other != kind_name(deployment).1 {
            assert!(
                !selects(service, &d["spec"]["template"]["metadata"]["labels"]),
                "{:?} also selects {other}",
                kind_name(service)
            );
        }
    }
    // Its target is the container's port.
    let c = container(deployment);
    let ports = service["spec"]["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 1);
    let target = &ports[0]["targetPort"];
    let container_port = &c["ports"][0];
    assert!(
        *target == container_port["name"] || *target == container_port["containerPort"],
        "targetPort {target}"
    );
    service
}

#[test]
fn manifests_agree_with_the_image_the_cli_and_each_other() {
    let objects = objects();
    let found: BTreeSet<(String, String, String)> = objects
        .iter()
        .map(|((kind, name), (file, _))| (file.clone(), kind.clone(), name.clone()))
        .collect();
    let expected: BTreeSet<(String, String, String)> = [
        ("render.yaml", "Deployment", "labelpress-render"),
        ("render.yaml", "Service", "labelpress-render"),
        ("secret.example.yaml", "Secret", "labelpress"),
        ("verifier.yaml", "Deployment", "labelpress-verifier"),
        ("verifier.yaml", "Service", "labelpress-verifier"),
    ]
    .iter()
    .map(|(f, k, n)| (f.to_string(), k.to_string(), n.to_string()))
    .collect();
    assert_eq!(found, expected);
    // Namespace-free: applied with `-n`, into any namespace.
    for (_, (file, doc)) in &objects {
        assert!(doc["metadata"].get("namespace").is_none(), "{file}");
    }

    // The Secret's values are placeholders, marked as such.
    let secret = object(&objects, "Secret", "labelpress");
    let values = secret_values(secret);
    assert_eq!(
        values.keys().collect::<Vec<_>>(),
        ["admin-token", "database-url"]
    );
    for (key, value) in &values {
        assert!(
            value.contains("REPLACE-ME"),
            "{key}: {value} is a placeholder"
        );
    }
    assert!(values["database-url"].starts_with("postgres://"));

    let image = image();
    let env_names = serve_env_names();
    assert!(
        env_names.contains("LABELPRESS_DATABASE_URL"),
        "{env_names:?}"
    );
    let verifier = object(&objects, "Deployment", "labelpress-verifier");
    let render = object(&objects, "Deployment", "labelpress-render");
    let verifier_args = check_deployment(verifier, &image, &env_names);
    let render_args = check_deployment(render, &image, &env_names);
    assert_eq!(verifier["spec"]["replicas"], 2);
    assert_eq!(render["spec"]["replicas"], 3);
    assert_eq!(container(verifier)["image"], container(render)["image"]);

    // The verifier: the verification service only, its ledger and admin
    // token from the Secret (a PostgreSQL ledger needs one, the same on
    // every verifier).
    assert_eq!(flag(&verifier_args, "--services"), "verify");
    let env_of = |d: &Value| -> BTreeMap<String, String> {
        environment(container(d), "labelpress", &values)
            .into_iter()
            .collect()
    };
    let verifier_env = env_of(verifier);
    assert_eq!(
        verifier_env["LABELPRESS_ADMIN_TOKEN"],
        values["admin-token"]
    );
    assert_eq!(
        verifier_env["LABELPRESS_DATABASE_URL"],
        values["database-url"]
    );
    // Secrets come from the Secret, never from args.
    for args in [&verifier_args, &render_args] {
        for flag in ["--admin-token", "--database-url", "--system-token"] {
            assert!(
                !args.iter().any(|a| a.starts_with(flag)),
                "{flag} in {args:?}"
            );
        }
    }

    // Render nodes: the render service, the verifiers through their Service,
    // the stored templates in the same database; no admin token.
    assert_eq!(flag(&render_args, "--services"), "render");
    let verifier_service = service_for(&objects, verifier);
    let verifier_url = format!(
        "http://{}:{}",
        kind_name(verifier_service).1,
        verifier_service["spec"]["ports"][0]["port"]
    );
    assert_eq!(flag(&render_args, "--verify-url"), verifier_url);
    let render_env = env_of(render);
    assert_eq!(
        render_env["LABELPRESS_DATABASE_URL"],
        values["database-url"]
    );
    assert!(!render_env.contains_key("LABELPRESS_ADMIN_TOKEN"));
    let render_service = service_for(&objects, render);
    assert_eq!(kind_name(render_service).1, "labelpress-render");

    // The grace period covers the shutdown docs/operations.md describes:
    // the preStop sleep, then the in-flight requests (a render: its verifier
    // call and its deadline; a verifier call: one ledger operation), then
    // the last usage report.
    let grace = |d: &Value| {
        d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
            .as_u64()
            .unwrap()
    };
    let render_limits = limits(container(render));
    let render_needs = pre_stop_s(container(render))
        + seconds(&render_limits, "verify_timeout_ms")
        + seconds(&render_limits, "render_deadline_ms")
        + FINAL_REPORT_S;
    assert!(
        grace(render) >= render_needs,
        "render: {} < {render_needs} s",
        grace(render)
    );
    let verifier_limits = limits(container(verifier));
    let verifier_needs =
        pre_stop_s(container(verifier)) + seconds(&verifier_limits, "ledger_timeout_ms");
    assert!(
        grace(verifier) >= verifier_needs,
        "verifier: {} < {verifier_needs} s",
        grace(verifier)
    );
    // Kubernetes' default of 30 s is not enough for a render node.
    assert!(render_needs > 30);

    // The README applies every file.
    let readme = std::fs::read_to_string(manifest_dir().join(DIR).join("README.md")).unwrap();
    for file in ["secret.example.yaml", "verifier.yaml", "render.yaml"] {
        assert!(readme.contains(file), "README.md names {file}");
    }
}

/// A process started as a container of a Deployment would be.
struct Pod {
    child: Child,
    base: String,
    port: u16,
    log: PathBuf,
    /// The working folder, HOME and TMPDIR: nothing may be written there
    /// (the root filesystem is read-only in the pod).
    scratch: tempfile::TempDir,
    _data: tempfile::TempDir,
    _logs: tempfile::TempDir,
}

impl Pod {
    /// Starts `deployment`'s container: its args and environment, with the
    /// listen address and data dir replaced by a loopback port and a
    /// temporary folder, and the Service names in `hosts` by local URLs.
    fn start(
        deployment: &Value,
        secrets: &BTreeMap<String, String>,
        hosts: &BTreeMap<String, String>,
    ) -> Pod {
        let c = container(deployment);
        let port = free_port();
        let data = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let logs = tempfile::tempdir().unwrap();
        for sub in ["cwd", "home", "tmp"] {
            std::fs::create_dir(scratch.path().join(sub)).unwrap();
        }
        let args = args(c);
        let mut replaced: Vec<String> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let previous = if i > 0 { args[i - 1].as_str() } else { "" };
            replaced.push(match previous {
                "--listen" => format!("127.0.0.1:{port}"),
                "--data-dir" => data.path().to_str().unwrap().to_string(),
                "--verify-url" => hosts
                    .get(a)
                    .unwrap_or_else(|| panic!("{a}: no such Service"))
                    .clone(),
                _ => a.clone(),
            });
        }
        let log = logs.path().join("log");
        let file = std::fs::File::create(&log).unwrap();
        let mut command = Command::new(binary());
        for (var, _) in std::env::vars() {
            if var.starts_with("LABELPRESS_") {
                command.env_remove(var);
            }
        }
        command
            .args(&replaced)
            .envs(environment(c, "labelpress", secrets))
            // The test machine's own: embedded fonts only (fast, as
            // package.rs runs the image's command).
            .env("LABELPRESS_NO_SYSTEM_FONTS", "1")
            .env("HOME", scratch.path().join("home"))
            .env("TMPDIR", scratch.path().join("tmp"))
            .current_dir(scratch.path().join("cwd"))
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        let mut pod = Pod {
            child: command.spawn().unwrap(),
            base: format!("http://127.0.0.1:{port}"),
            port,
            log,
            scratch,
            _data: data,
            _logs: logs,
        };
        pod.wait_healthy();
        pod
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_healthy(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("exited at start ({status}):\n{}", self.log());
            }
            let ok = std::net::TcpStream::connect(("127.0.0.1", self.port))
                .ok()
                .and_then(|mut s| {
                    use std::io::{Read, Write};
                    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
                    write!(
                        s,
                        "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
                    )
                    .ok()?;
                    let mut out = String::new();
                    s.read_to_string(&mut out).ok()?;
                    Some(out.starts_with("HTTP/1.1 200"))
                })
                .unwrap_or(false);
            if ok {
                return;
            }
            assert!(Instant::now() < deadline, "no /healthz:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGTERM, as the kubelet sends it after the preStop hook; the exit
    /// status, within `within`.
    fn terminate(&mut self, within: Duration) -> std::process::ExitStatus {
        // SAFETY: signalling our own child process.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "still running {within:?} after SIGTERM:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Asserts that nothing was written outside the data dir.
    fn assert_wrote_only_its_data_dir(&self) {
        for sub in ["cwd", "home", "tmp"] {
            let dir = self.scratch.path().join(sub);
            let entries: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .collect();
            assert!(
                entries.is_empty(),
                "written outside the data dir: {entries:?}"
            );
        }
    }
}

impl Drop for Pod {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn get_status(base: &str, path: &str) -> (u16, Vec<u8>) {
    let r = reply(client().get(format!("{base}{path}")).send().await.unwrap()).await;
    (r.status, r.bytes)
}

/// The manifests' commands run: a verifier and two render nodes on one
/// PostgreSQL, started with the containers' args and environment, answer
/// their probes; a token made with the Secret's admin token renders a label
/// through each render node; SIGTERM stops each within its grace period.
#[tokio::test(flavor = "multi_thread")]
async fn manifests_commands_serve_a_verifier_and_render_nodes_on_postgresql() {
    let objects = objects();
    let verifier = object(&objects, "Deployment", "labelpress-verifier");
    let render = object(&objects, "Deployment", "labelpress-render");
    let secret = object(&objects, "Secret", "labelpress");

    // The Secret's keys, with test values.
    let pg = crate::postgres::shared();
    let admin_token = format!("deploy-test-admin-{}", uuid::Uuid::new_v4().simple());
    let secrets: BTreeMap<String, String> = secret_values(secret)
        .into_keys()
        .map(|key| {
            let value = match key.as_str() {
                "admin-token" => admin_token.clone(),
                "database-url" => pg.database("deploy_manifests"),
                other => panic!("a test value for the Secret's {other}"),
            };
            (key, value)
        })
        .collect();

    let mut verifier_pod = Pod::start(verifier, &secrets, &BTreeMap::new());
    let service = service_for(&objects, verifier);
    let url = format!(
        "http://{}:{}",
        kind_name(service).1,
        service["spec"]["ports"][0]["port"]
    );
    let hosts = BTreeMap::from([(url, verifier_pod.base.clone())]);
    let mut render_pods: Vec<Pod> = (0..2)
        .map(|_| Pod::start(render, &secrets, &hosts))
        .collect();

    // Every probe answers 200 on the port it asks (the port is checked
    // against the listen address by the other test).
    for (deployment, pod) in
        std::iter::once((verifier, &verifier_pod)).chain(render_pods.iter().map(|p| (render, p)))
    {
        for which in ["startupProbe", "readinessProbe", "livenessProbe"] {
            if let Some((path, _)) = probe(container(deployment), which) {
                let (status, body) = get_status(&pod.base, &path).await;
                assert_eq!(
                    status,
                    200,
                    "{which} {path}: {}",
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }
    // Render nodes know their verifier is remote.
    let (_, body) = get_status(&render_pods[0].base, "/readyz").await;
    let ready: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(ready["verifier"], "remote", "{ready}");

    // A token from the verifier's admin API, with the Secret's admin token.
    let created = reply(
        client()
            .post(format!("{}/admin/api/tokens", verifier_pod.base))
            .bearer_auth(&admin_token)
            .json(&json!({"account": "kubernetes", "balance": 10, "expires_at": null}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        created.status,
        201,
        "{}",
        String::from_utf8_lossy(&created.bytes)
    );
    let token = created.json()["token"].as_str().unwrap().to_string();

    // A label through each render node.
    for pod in &render_pods {
        let r = crate::server::render(&pod.base, &token, &label("deploy")).await;
        assert_eq!(
            r.status,
            200,
            "{}\n{}",
            String::from_utf8_lossy(&r.bytes),
            pod.log()
        );
        assert!(r.bytes.starts_with(b"%PDF-"));
    }

    // SIGTERM: each exits 0 within the grace period left after its preStop
    // sleep; render nodes first (they report to the verifier on the way out).
    let left = |d: &Value| {
        let spec = &d["spec"]["template"]["spec"];
        Duration::from_secs(
            spec["terminationGracePeriodSeconds"].as_u64().unwrap() - pre_stop_s(container(d)),
        )
    };
    for pod in &mut render_pods {
        let status = pod.terminate(left(render));
        assert!(status.success(), "{status}:\n{}", pod.log());
        pod.assert_wrote_only_its_data_dir();
    }
    let status = verifier_pod.terminate(left(verifier));
    assert!(status.success(), "{status}:\n{}", verifier_pod.log());
    verifier_pod.assert_wrote_only_its_data_dir();
}
