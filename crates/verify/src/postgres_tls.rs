//! TLS to PostgreSQL (`--database-url`, issue 32): libpq's `sslmode` and
//! `sslrootcert` in the URL, over rustls with ring.
//!
//! tokio-postgres reads `sslmode=disable|prefer|require` itself but neither
//! `verify-ca`/`verify-full` nor `sslrootcert`. So both are taken out of the
//! URL here (its `postgres://` form and its `key=value` form alike), the
//! rest is parsed by tokio-postgres, its `ssl_mode` is set from ours, and
//! the certificate is checked by this module's rustls verifier, as libpq
//! checks it:
//!
//! | `sslmode` | TLS | the server's certificate |
//! |---|---|---|
//! | `disable` | never | - |
//! | `prefer` (the default) | if the server offers it, else plain | not checked; with `sslrootcert`, its chain is |
//! | `require` | always | not checked; with `sslrootcert`, its chain is (libpq's rule) |
//! | `verify-ca` | always | chain to the roots; the host name is not checked |
//! | `verify-full` | always | chain to the roots, and the host name |
//!
//! The roots: the PEM file `sslrootcert=PATH`, else (or with
//! `sslrootcert=system`) the system's, read by rustls-native-certs. A file
//! that cannot be read or holds no certificate is an error at start naming
//! it. Errors never quote the URL: it may hold a password.

use std::borrow::Cow;
use std::sync::Arc;

use tokio_postgres::config::SslMode as DriverMode;
use tokio_postgres_rustls::MakeRustlsConnect;
use tokio_rustls::rustls;
use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::client::{
    verify_server_cert_signed_by_trust_anchor, WebPkiServerVerifier,
};
use tokio_rustls::rustls::crypto::WebPkiSupportedAlgorithms;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_rustls::rustls::server::ParsedCertificate;
use tokio_rustls::rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

/// libpq's `sslmode`s, `allow` aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> Result<SslMode, String> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            // The value is not quoted: a URL misread could put a password here.
            _ => {
                return Err(
                    "sslmode must be disable, prefer, require, verify-ca or verify-full".into(),
                )
            }
        })
    }

    /// Its name in a URL.
    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn driver(self) -> DriverMode {
        match self {
            SslMode::Disable => DriverMode::Disable,
            SslMode::Prefer => DriverMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => DriverMode::Require,
        }
    }
}

/// What to connect with: tokio-postgres's configuration (its `ssl_mode`
/// set) and the TLS connector for it.
pub struct Connection {
    pub config: tokio_postgres::Config,
    pub tls: MakeRustlsConnect,
    pub mode: SslMode,
}

/// `url` read as libpq reads it, `sslmode` and `sslrootcert` included; the
/// root certificates are read now.
pub fn connection(url: &str) -> Result<Connection, String> {
    let Split {
        rest,
        sslmode,
        sslrootcert,
    } = split(url)?;
    let mut config: tokio_postgres::Config = rest.parse().map_err(|e| format!("{e}"))?;
    let mode = match sslmode {
        Some(value) => SslMode::parse(&value)?,
        None => SslMode::Prefer,
    };
    config.ssl_mode(mode.driver());
    let tls = connector(mode, sslrootcert.as_deref())?;
    Ok(Connection { config, tls, mode })
}

/// A URL without its `sslmode` and `sslrootcert`, and their values (the
/// last one given, as libpq takes it).
#[derive(Debug, Default, PartialEq)]
struct Split {
    rest: String,
    sslmode: Option<String>,
    sslrootcert: Option<String>,
}

impl Split {
    /// Takes `key = value` if it is ours; false if it is not.
    fn take(&mut self, key: &str, value: String) -> bool {
        match key {
            "sslmode" => self.sslmode = Some(value),
            "sslrootcert" => self.sslrootcert = Some(value),
            _ => return false,
        }
        true
    }
}

fn split(url: &str) -> Result<Split, String> {
    for scheme in ["postgres://", "postgresql://"] {
        if url.starts_with(scheme) {
            return split_url(url, scheme.len());
        }
    }
    Ok(split_key_values(url))
}

/// `%XX` decoded, as tokio-postgres decodes a URL's parameters.
fn decode(s: &str) -> Result<String, String> {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .map(Cow::into_owned)
        .map_err(|_| "a URL parameter is not UTF-8 once decoded".to_string())
}

/// The URL form, cut where tokio-postgres cuts it: the credentials end at
/// the first `@`, the query starts at the next `?`, a parameter's key ends
/// at the next `=` and its value at the next `&`.
fn split_url(url: &str, after_scheme: usize) -> Result<Split, String> {
    let body = url[after_scheme..]
        .find('@')
        .map_or(after_scheme, |at| after_scheme + at + 1);
    let Some(question) = url[body..].find('?') else {
        return Ok(Split {
            rest: url.to_string(),
            ..Split::default()
        });
    };
    let query = body + question + 1;
    let mut split = Split {
        rest: url[..query].to_string(),
        ..Split::default()
    };
    let mut kept = Vec::new();
    let mut rest = &url[query..];
    while !rest.is_empty() {
        let Some(equals) = rest.find('=') else {
            // Not a parameter: tokio-postgres says so.
            kept.push(rest);
            break;
        };
        let (parameter, value, next) = match rest[equals + 1..].find('&') {
            Some(amp) => {
                let end = equals + 1 + amp;
                (&rest[..end], &rest[equals + 1..end], &rest[end + 1..])
            }
            None => (rest, &rest[equals + 1..], ""),
        };
        let key = decode(&rest[..equals])?;
        if !split.take(&key, decode(value)?) {
            kept.push(parameter);
        }
        rest = next;
    }
    if kept.is_empty() {
        split.rest.pop(); // the `?`
    } else {
        split.rest.push_str(&kept.join("&"));
    }
    Ok(split)
}

/// The `key=value` form, read as tokio-postgres reads it (whitespace
/// between parameters and around `=`, values in single quotes or bare,
/// `\` escaping the next character). A string it cannot read is handed
/// over whole, for tokio-postgres to say what is wrong with it.
fn split_key_values(s: &str) -> Split {
    let whole = || Split {
        rest: s.to_string(),
        ..Split::default()
    };
    let mut split = Split::default();
    let mut kept: Vec<&str> = Vec::new();
    let mut at = 0;
    let rest = |at: usize| &s[at..];
    loop {
        at += rest(at).len() - rest(at).trim_start().len();
        let start = at;
        let key_len = rest(at)
            .find(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or(rest(at).len());
        if key_len == 0 {
            if !rest(at).is_empty() {
                // tokio-postgres stops reading here too (a stray `=`).
                kept.push(rest(at));
            }
            break;
        }
        let key = &s[at..at + key_len];
        at += key_len;
        at += rest(at).len() - rest(at).trim_start().len();
        if !rest(at).starts_with('=') {
            return whole();
        }
        at += 1;
        at += rest(at).len() - rest(at).trim_start().len();
        let Some((value, len)) = key_value(rest(at)) else {
            return whole();
        };
        at += len;
        if !split.take(key, value) {
            kept.push(&s[start..at]);
        }
    }
    split.rest = kept.join(" ");
    split
}

/// A `key=value` value at the start of `s`: (the value, bytes read).
fn key_value(s: &str) -> Option<(String, usize)> {
    let quoted = s.starts_with('\'');
    let mut value = String::new();
    let mut chars = s.char_indices().skip(usize::from(quoted));
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' if quoted => return Some((value, i + 1)),
            c if c.is_whitespace() && !quoted => return (!value.is_empty()).then_some((value, i)),
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            c => value.push(c),
        }
    }
    // An unterminated quote, or a bare value at the end.
    (!quoted && !value.is_empty()).then_some((value, s.len()))
}

/// The connector for `mode`, with the roots it checks against.
fn connector(mode: SslMode, sslrootcert: Option<&str>) -> Result<MakeRustlsConnect, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = match (mode, sslrootcert) {
        (SslMode::Disable, _) => None,
        (_, Some("system")) => Some(system_roots(mode)?),
        (_, Some(path)) => Some(file_roots(path)?),
        (SslMode::VerifyCa | SslMode::VerifyFull, None) => Some(system_roots(mode)?),
        (SslMode::Prefer | SslMode::Require, None) => None,
    };
    let verifier: Arc<dyn ServerCertVerifier> = match (mode, roots) {
        (SslMode::VerifyFull, Some(roots)) => {
            WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                .build()
                .map_err(|e| format!("sslrootcert: {e}"))?
        }
        (SslMode::VerifyCa | SslMode::VerifyFull, None) => {
            unreachable!("the verifying modes have roots or stop above")
        }
        (_, roots) => Arc::new(ChainOnly {
            roots,
            algorithms: provider.signature_verification_algorithms,
        }),
    };
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    // What libpq 17 offers (and PostgreSQL 17 needs for `sslnegotiation=direct`).
    config.alpn_protocols = vec![b"postgresql".to_vec()];
    Ok(MakeRustlsConnect::new(config))
}

/// The certificates of the PEM file `path`.
fn file_roots(path: &str) -> Result<RootCertStore, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("sslrootcert {path}: {e}"))?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("sslrootcert {path}: not PEM certificates ({e})"))?;
    if certs.is_empty() {
        return Err(format!("sslrootcert {path}: no certificate in it"));
    }
    let mut roots = RootCertStore::empty();
    for cert in certs {
        roots
            .add(cert)
            .map_err(|e| format!("sslrootcert {path}: {e}"))?;
    }
    Ok(roots)
}

/// The system's root certificates (those rustls can use).
fn system_roots(mode: SslMode) -> Result<RootCertStore, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(found.certs);
    if roots.is_empty() {
        let why = found
            .errors
            .first()
            .map(|e| format!(" ({e})"))
            .unwrap_or_default();
        return Err(format!(
            "sslmode={}: no root certificates found on this system{why}; \
             name a PEM file with sslrootcert=PATH",
            mode.name()
        ));
    }
    Ok(roots)
}

/// `verify-ca` (and `prefer`/`require`): the chain is checked when there
/// are roots, the host name never. The handshake's own signatures are
/// always checked, so the server holds the key of the certificate it shows.
#[derive(Debug)]
struct ChainOnly {
    roots: Option<RootCertStore>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(roots) = &self.roots {
            let cert = ParsedCertificate::try_from(end_entity)?;
            verify_server_cert_signed_by_trust_anchor(
                &cert,
                roots,
                intermediates,
                now,
                self.algorithms.all,
            )?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(url: &str) -> (String, Option<String>, Option<String>) {
        let s = split(url).unwrap();
        (s.rest, s.sslmode, s.sslrootcert)
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    #[test]
    fn a_url_loses_its_sslmode_and_sslrootcert_and_keeps_the_rest() {
        assert_eq!(
            parts("postgres://u:p@h:5432/db?sslmode=verify-full&sslrootcert=/etc/ca.pem"),
            (
                "postgres://u:p@h:5432/db".into(),
                some("verify-full"),
                some("/etc/ca.pem")
            )
        );
        assert_eq!(
            parts("postgresql://h/db?connect_timeout=5&sslmode=verify-ca&application_name=x"),
            (
                "postgresql://h/db?connect_timeout=5&application_name=x".into(),
                some("verify-ca"),
                None
            )
        );
        // Percent-escapes decoded; the last value wins; a `?` or `&` in the
        // password is no parameter.
        assert_eq!(
            parts("postgres://u:a?b&sslmode=x@h/db?ssl%6Dode=require&sslrootcert=%2Fa%20b.pem&sslmode=disable"),
            ("postgres://u:a?b&sslmode=x@h/db".into(), some("disable"), some("/a b.pem"))
        );
        assert_eq!(
            parts("postgres://u@h/db"),
            ("postgres://u@h/db".into(), None, None)
        );
        assert_eq!(
            parts("postgres://h?sslmode=require&"),
            ("postgres://h".into(), some("require"), None)
        );
    }

    #[test]
    fn a_key_value_string_loses_its_sslmode_and_sslrootcert_and_keeps_the_rest() {
        assert_eq!(
            parts("host=db port=5432 sslmode=verify-full sslrootcert='/my certs/ca.pem' password='a b\\'c'"),
            (
                "host=db port=5432 password='a b\\'c'".into(),
                some("verify-full"),
                some("/my certs/ca.pem")
            )
        );
        assert_eq!(
            parts("  host = db   sslmode =  require user=a\\ b"),
            ("host = db user=a\\ b".into(), some("require"), None)
        );
        // What tokio-postgres cannot read reaches it unchanged.
        assert_eq!(
            parts("host=db password='open"),
            ("host=db password='open".into(), None, None)
        );
        assert_eq!(parts("host"), ("host".into(), None, None));
    }

    #[test]
    fn the_driver_gets_require_for_the_verifying_modes() {
        for (url, mode, driver) in [
            ("postgres://h/db", SslMode::Prefer, DriverMode::Prefer),
            (
                "postgres://h/db?sslmode=disable",
                SslMode::Disable,
                DriverMode::Disable,
            ),
            (
                "postgres://h/db?sslmode=require",
                SslMode::Require,
                DriverMode::Require,
            ),
            (
                "host=h sslmode=verify-ca sslrootcert=system",
                SslMode::VerifyCa,
                DriverMode::Require,
            ),
        ] {
            let c = match connection(url) {
                Ok(c) => c,
                // A machine without system roots: verify-ca says so.
                Err(e) => {
                    assert!(e.contains("no root certificates"), "{e}");
                    continue;
                }
            };
            assert_eq!((c.mode, c.config.get_ssl_mode()), (mode, driver), "{url}");
        }
    }

    #[test]
    fn errors_name_the_root_file_and_never_quote_the_url() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let url = format!(
            "postgres://u:s3cret@h/db?sslmode=verify-full&sslrootcert={}",
            missing.display()
        );
        let e = connection(&url).err().unwrap();
        assert!(
            e.starts_with(&format!("sslrootcert {}: ", missing.display())),
            "{e}"
        );
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        let url = format!(
            "postgres://u:s3cret@h/db?sslmode=verify-ca&sslrootcert={}",
            empty.display()
        );
        let e = connection(&url).err().unwrap();
        assert_eq!(
            e,
            format!("sslrootcert {}: no certificate in it", empty.display())
        );
        for url in [
            "postgres://u:s3cret@h/db?sslmode=s3cret",
            "postgres://u:s3cret@h/db?sslmode=allow",
            "user=u password=s3cret sslmode=s3cret",
        ] {
            let e = connection(url).err().unwrap();
            assert!(e.starts_with("sslmode must be"), "{e}");
            assert!(!e.contains("s3cret"), "{e}");
        }
        // sslmode=disable never reads the file.
        let url = format!(
            "postgres://u@h/db?sslmode=disable&sslrootcert={}",
            missing.display()
        );
        assert!(connection(&url).is_ok());
    }
}
