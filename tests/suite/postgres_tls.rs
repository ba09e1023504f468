//! `--database-url` over TLS (issue 32): the `sslmode`s against a
//! PostgreSQL that takes TLS connections only, with a password, its
//! certificate signed by a CA made here for `localhost` only (so
//! `127.0.0.1` is a name it does not hold). Through the pool every store
//! uses (`postgres_pool::pool`), and through a verifier process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::postgres::Cluster;
use crate::server;

const PASSWORD: &str = "pg-Secret-4711";

/// The PEM files of a test CA and the server certificate it signs for
/// `localhost`, and of another CA that signed nothing here.
struct Pki {
    ca: PathBuf,
    wrong_ca: PathBuf,
    cert: String,
    key: String,
}

fn pki(dir: &Path) -> Pki {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    };
    let ca = |name: &str| {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let cert = params.self_signed(&key).unwrap();
        (cert, Issuer::new(params, key))
    };
    let (ca_cert, issuer) = ca("labelpress test CA");
    let (wrong_cert, _) = ca("another CA");
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string()])
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
        wrong_ca: write("wrong-ca.pem", wrong_cert.pem()),
        cert: cert.pem(),
        key: key.serialize_pem(),
    }
}

/// The URL of database `db` on `host`, with `query` (`sslmode=...`).
fn url(pg: &Cluster, host: &str, db: &str, query: &str) -> String {
    format!(
        "postgres://postgres:{PASSWORD}@{host}:{}/{db}?{query}",
        pg.port
    )
}

/// Connects to `url` through the stores' pool: whether the session is
/// encrypted, or the error with its causes.
async fn connect(url: &str) -> Result<bool, String> {
    let pool = labelpress::postgres_pool::pool(url, 1, Duration::from_secs(10))?;
    let client = pool
        .get()
        .await
        .map_err(|e| labelpress::postgres_pool::describe(&e))?;
    let row = client
        .query_one(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            &[],
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(row.get(0))
}

#[track_caller]
fn refused(result: Result<bool, String>, url: &str, expected: &str) -> String {
    let error = result.expect_err(url);
    assert!(error.contains(expected), "{url}: {error}");
    assert!(
        !error.contains(PASSWORD),
        "{url}: the error quotes the password: {error}"
    );
    error
}

#[tokio::test(flavor = "multi_thread")]
async fn each_sslmode_connects_or_refuses_as_libpq_does() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let pg = Cluster::start_tls(&pki.cert, &pki.key, PASSWORD);
    pg.database("tls");
    let (ca, wrong_ca) = (pki.ca.display(), pki.wrong_ca.display());

    // Plain TCP: the server has no line for it.
    let plain = url(&pg, "localhost", "tls", "sslmode=disable");
    refused(connect(&plain).await, &plain, "no encryption");

    // Encrypted, the certificate unchecked: require, and prefer (the
    // default) against a server that offers TLS.
    for query in ["sslmode=require", "sslmode=prefer", "application_name=x"] {
        let url = url(&pg, "127.0.0.1", "tls", query);
        assert_eq!(connect(&url).await, Ok(true), "{url}");
    }

    // verify-full: the chain and the name. SCRAM's channel binding comes
    // with the TLS stream, so requiring it works too.
    for query in [
        format!("sslmode=verify-full&sslrootcert={ca}"),
        format!("sslmode=verify-full&sslrootcert={ca}&channel_binding=require"),
    ] {
        let url = url(&pg, "localhost", "tls", &query);
        assert_eq!(connect(&url).await, Ok(true), "{url}");
    }
    // The key=value form reads the same.
    let key_values = format!(
        "host=localhost port={} user=postgres password='{PASSWORD}' dbname=tls \
         sslmode=verify-full sslrootcert='{ca}'",
        pg.port
    );
    assert_eq!(connect(&key_values).await, Ok(true), "{key_values}");

    // Another CA's roots: the handshake fails, on the certificate.
    let url_wrong_ca = url(
        &pg,
        "localhost",
        "tls",
        &format!("sslmode=verify-full&sslrootcert={wrong_ca}"),
    );
    let error = refused(
        connect(&url_wrong_ca).await,
        &url_wrong_ca,
        "invalid peer certificate: UnknownIssuer",
    );
    assert!(error.contains("TLS"), "{error}");
    // A name the certificate does not hold (it names `localhost` only).
    let url_by_address = url(
        &pg,
        "127.0.0.1",
        "tls",
        &format!("sslmode=verify-full&sslrootcert={ca}"),
    );
    refused(
        connect(&url_by_address).await,
        &url_by_address,
        "not valid for name",
    );

    // verify-ca checks the chain, not the name.
    let ca_only = url(
        &pg,
        "127.0.0.1",
        "tls",
        &format!("sslmode=verify-ca&sslrootcert={ca}"),
    );
    assert_eq!(connect(&ca_only).await, Ok(true), "{ca_only}");
    let ca_only_wrong = url(
        &pg,
        "127.0.0.1",
        "tls",
        &format!("sslmode=verify-ca&sslrootcert={wrong_ca}"),
    );
    refused(
        connect(&ca_only_wrong).await,
        &ca_only_wrong,
        "invalid peer certificate: UnknownIssuer",
    );
    // require with a root file checks the chain as libpq does.
    let require_wrong = url(
        &pg,
        "127.0.0.1",
        "tls",
        &format!("sslmode=require&sslrootcert={wrong_ca}"),
    );
    refused(
        connect(&require_wrong).await,
        &require_wrong,
        "invalid peer certificate: UnknownIssuer",
    );

    // A root file that is not there: refused before connecting, naming it.
    let missing = dir.path().join("missing.pem");
    let url_missing = url(
        &pg,
        "localhost",
        "tls",
        &format!("sslmode=verify-full&sslrootcert={}", missing.display()),
    );
    let error = refused(
        labelpress::postgres_pool::pool(&url_missing, 1, Duration::from_secs(10)).map(|_| true),
        &url_missing,
        &format!("--database-url: sslrootcert {}: ", missing.display()),
    );
    assert!(!error.contains("postgres://"), "{error}");
}

/// Against a server without TLS (the suite's shared cluster): `prefer`,
/// the default, falls back to plain; `require` and up do not.
#[tokio::test(flavor = "multi_thread")]
async fn prefer_falls_back_to_plain_and_require_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let ca = pki(dir.path()).ca;
    let plain = crate::postgres::shared().fresh();
    for url in [plain.clone(), format!("{plain}?sslmode=prefer")] {
        assert_eq!(connect(&url).await, Ok(false), "{url}");
    }
    for mode in ["require", "verify-ca", "verify-full"] {
        let url = format!("{plain}?sslmode={mode}&sslrootcert={}", ca.display());
        let error = connect(&url).await.expect_err(&url);
        assert!(
            error.contains("server does not support TLS"),
            "{url}: {error}"
        );
    }
}

/// `labelpress serve --services verify --database-url url`, which must
/// stop at start (exit 2): what it wrote (the log on standard output,
/// the refusal on standard error), which must not quote the URL.
fn refused_start(url: &str) -> String {
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(server::binary())
        .args(["serve", "--services", "verify", "--no-system-fonts"])
        .args(["--listen", &server::free_addr()])
        .args(["--admin-token", server::ADMIN, "--database-url", url])
        .arg("--data-dir")
        .arg(data.path())
        .env("RUST_LOG", "warn")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let written = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{written}");
    assert!(!written.contains(PASSWORD), "{written}");
    assert!(!written.contains("postgres://"), "{written}");
    written.into_owned()
}

/// `POST /v1/verify` of one label with `token`: the status.
async fn verify(base: &str, token: &str) -> u16 {
    server::client()
        .post(format!("{base}/v1/verify"))
        .timeout(Duration::from_secs(30))
        .bearer_auth(token)
        .json(&json!({ "count": 1 }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_verifier_keeps_its_ledger_on_postgresql_over_verified_tls() {
    let dir = tempfile::tempdir().unwrap();
    let pki = pki(dir.path());
    let pg = Cluster::start_tls(&pki.cert, &pki.key, PASSWORD);
    pg.database("ledger");

    // A root file that cannot be read stops the start, naming the file;
    // so does a certificate that fails its check, saying why. Neither
    // quotes the URL.
    let missing = dir.path().join("missing.pem");
    let written = refused_start(&url(
        &pg,
        "localhost",
        "ledger",
        &format!("sslmode=verify-full&sslrootcert={}", missing.display()),
    ));
    assert!(
        written.contains(&missing.display().to_string()),
        "{written}"
    );
    let written = refused_start(&url(
        &pg,
        "localhost",
        "ledger",
        &format!("sslmode=verify-full&sslrootcert={}", pki.wrong_ca.display()),
    ));
    assert!(
        written.contains("invalid peer certificate: UnknownIssuer"),
        "{written}"
    );

    let url = url(
        &pg,
        "localhost",
        "ledger",
        &format!("sslmode=verify-full&sslrootcert={}", pki.ca.display()),
    );
    let data = tempfile::tempdir().unwrap();
    let verifier = server::start(
        data.path(),
        &["--services", "verify", "--database-url", &url],
    );
    let (id, token) = server::new_token(&verifier.base, 3, None).await;
    assert_eq!(verify(&verifier.base, &token).await, 200);
    assert_eq!(server::balance(&verifier.base, &id).await, 2);
    assert_eq!(
        verify(&verifier.base, "lp_unknown_token_0123456789").await,
        403
    );
    // The ledger is in that database, and every session of the verifier's
    // is encrypted.
    assert_eq!(pg.sql("ledger", "SELECT count(*) FROM lp_tokens"), "1");
    assert_eq!(
        pg.sql(
            "postgres",
            "SELECT count(*) > 0 AND bool_and(s.ssl) FROM pg_stat_activity a \
             JOIN pg_stat_ssl s USING (pid) WHERE a.datname = 'ledger' \
             AND a.application_name = 'labelpress'"
        ),
        "t"
    );
}
