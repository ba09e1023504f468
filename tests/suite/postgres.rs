//! A throwaway PostgreSQL cluster for the ledger tests: `initdb` in a
//! temporary folder, a free loopback port, trust authentication, run as
//! the `postgres` user when the tests run as root (PostgreSQL refuses to
//! run as root). Dropping it stops the server and removes the folder.
//!
//! The binaries come from `LABELPRESS_PG_BIN`, else the newest Debian
//! `/usr/lib/postgresql/*/bin`, else `PATH`; `.ci/run` installs Debian's
//! `postgresql` package when it is missing.
//!
//! Tests that only need a database of their own share one cluster per
//! test binary ([`shared`], a new database each from [`Cluster::fresh`]):
//! one `initdb` instead of one per test. Included by the suite and, with
//! `#[path]`, by the `verify_*` test crates, so it names nothing of either.
//!
//! [`Cluster::start_tls`] starts one that takes TLS connections only, with
//! a password, for the `sslmode` tests (`postgres_tls.rs`).

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::server::free_port;

pub struct Cluster {
    root: PathBuf,
    data: PathBuf,
    bin: PathBuf,
    pub port: u16,
    as_postgres: bool,
    /// The `postgres` user's password on a TLS-only cluster, which `psql`
    /// then gives (over TLS).
    password: Option<String>,
}

fn bin_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("LABELPRESS_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_string_lossy().parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    debian.sort();
    debian.pop().map(|(_, bin)| bin).unwrap_or_default()
}

#[track_caller]
fn succeeded(what: &str, output: Output) -> String {
    assert!(
        output.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

impl Cluster {
    /// `initdb` and start; panics (naming the step) if PostgreSQL is missing.
    pub fn start() -> Cluster {
        let bin = bin_dir();
        // SAFETY: geteuid has no preconditions.
        let as_postgres = unsafe { libc::geteuid() } == 0;
        let root = std::env::temp_dir().join(format!("labelpress-pg-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&root).unwrap();
        let data = root.join("data");
        std::fs::create_dir(&data).unwrap();
        if as_postgres {
            let id = |flag| {
                let out = Command::new("id")
                    .args([flag, "postgres"])
                    .output()
                    .unwrap();
                succeeded("id postgres", out).trim().parse::<u32>().unwrap()
            };
            std::os::unix::fs::chown(&data, Some(id("-u")), Some(id("-g"))).unwrap();
        }
        let cluster = Cluster {
            root,
            data,
            bin,
            port: free_port(),
            as_postgres,
            password: None,
        };
        let initdb = cluster
            .command("initdb")
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
            .arg("-D")
            .arg(&cluster.data)
            .output()
            .expect("initdb: is PostgreSQL installed? (.ci/run installs it)");
        succeeded("initdb", initdb);
        cluster.resume();
        cluster
    }

    /// As [`Cluster::start`], but speaking TLS only: `ssl = on` with the PEM
    /// certificate chain `cert` and its key `key`, and `hostssl` lines only
    /// in `pg_hba.conf`, so a plain TCP connection is refused. The
    /// `postgres` user logs in with `password` (SCRAM) over TCP.
    pub fn start_tls(cert: &str, key: &str, password: &str) -> Cluster {
        let mut cluster = Cluster::start();
        cluster.sql(
            "postgres",
            &format!("ALTER USER postgres PASSWORD '{password}'"),
        );
        cluster.stop("fast");
        let write = |name: &str, text: &str| {
            let path = cluster.data.join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        write("server.crt", cert);
        let key = write("server.key", key);
        // PostgreSQL refuses a key others may read, or owned by another user.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
        if cluster.as_postgres {
            let owner = std::fs::metadata(&cluster.data).unwrap();
            use std::os::unix::fs::MetadataExt;
            std::os::unix::fs::chown(&key, Some(owner.uid()), Some(owner.gid())).unwrap();
        }
        write(
            "pg_hba.conf",
            "local all all trust\n\
             hostssl all all 127.0.0.1/32 scram-sha-256\n\
             hostssl all all ::1/128 scram-sha-256\n",
        );
        let mut conf = std::fs::OpenOptions::new()
            .append(true)
            .open(cluster.data.join("postgresql.conf"))
            .unwrap();
        use std::io::Write;
        writeln!(
            conf,
            "ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'"
        )
        .unwrap();
        cluster.password = Some(password.to_string());
        cluster.resume();
        cluster
    }

    /// A `bin`'s command, run as `postgres` when needed.
    fn command(&self, bin: &str) -> Command {
        let path = self.bin.join(bin);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        }
    }

    /// Starts the server (again) and waits until it accepts connections.
    /// Durable as the benchmark measures it: `fsync` and
    /// `synchronous_commit` on.
    pub fn resume(&self) {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} \
             -c fsync=on -c synchronous_commit=on -c max_connections=200",
            self.port,
            self.data.display()
        );
        let out = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(self.data.join("server.log"))
            .args(["-w", "-t", "60", "-o", &options, "start"])
            .output()
            .unwrap();
        succeeded("pg_ctl start", out);
    }

    /// Stops the server; `mode` is `fast` (clients disconnected) or
    /// `immediate` (as a crash).
    pub fn stop(&self, mode: &str) {
        let out = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-w", "-m", mode, "stop"])
            .output()
            .unwrap();
        succeeded("pg_ctl stop", out);
    }

    /// Runs `sql` in database `db` and returns psql's unaligned output.
    pub fn sql(&self, db: &str, sql: &str) -> String {
        let mut psql = Command::new(self.bin.join("psql"));
        if let Some(password) = &self.password {
            psql.env("PGPASSWORD", password).env("PGSSLMODE", "require");
        }
        let out = psql
            .args(["-h", "127.0.0.1", "-U", "postgres", "-X", "-A", "-t", "-v"])
            .arg("ON_ERROR_STOP=1")
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-d", db, "-c", sql])
            .output()
            .unwrap();
        succeeded(sql, out).trim().to_string()
    }

    /// A new empty database; its URL.
    pub fn database(&self, name: &str) -> String {
        // One at a time: every new database is a copy of template1, and
        // tests sharing a cluster must not race on it.
        static CREATING: Mutex<()> = Mutex::new(());
        let _one = CREATING.lock().unwrap_or_else(|e| e.into_inner());
        self.sql("postgres", &format!("CREATE DATABASE {name}"));
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// A new empty database with a name no other call in this process
    /// got; its URL.
    pub fn fresh(&self) -> String {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        self.database(&format!("t{}", NEXT.fetch_add(1, Ordering::Relaxed)))
    }

    /// Stops the server at once and removes its folder.
    fn remove(&self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(&self.data)
            .args(["-w", "-m", "immediate", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.remove();
    }
}

/// The test binary's shared cluster, started on first use and removed when
/// the process exits (a static is never dropped, so `atexit` does it; the
/// harness exits through `exit` whether tests passed or not).
pub fn shared() -> &'static Cluster {
    static SHARED: OnceLock<Cluster> = OnceLock::new();
    extern "C" fn remove_shared() {
        if let Some(cluster) = SHARED.get() {
            cluster.remove();
        }
    }
    SHARED.get_or_init(|| {
        let cluster = Cluster::start();
        // SAFETY: registers a plain function; nothing else is required.
        assert_eq!(unsafe { libc::atexit(remove_shared) }, 0, "atexit");
        cluster
    })
}
