//! HTTPS on the listener (`--tls-cert`, `--tls-key`): the certificate chain
//! and private key from PEM files as a rustls server configuration, and the
//! bounded handshake of one accepted connection.
//!
//! With TLS the listener speaks HTTPS only: a plain-HTTP request fails the
//! handshake and is closed, never answered in the clear.
//!
//! The crypto provider is ring, the one reqwest's rustls already builds, and
//! ALPN offers `http/1.1` alone: the edge serves HTTP/1.1 only, so a client
//! must not be led to speak h2 to it.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpStream;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::{self, PemObject};
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;
pub use tokio_rustls::TlsAcceptor;

/// Why the certificate or key files cannot serve TLS. Each names the file
/// at fault; none quotes the key's contents.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{}: cannot read it: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: broken PEM: {reason}", path.display())]
    Malformed { path: PathBuf, reason: String },
    #[error("{}: no certificate in it (expected PEM `BEGIN CERTIFICATE` sections)", path.display())]
    NoCertificate { path: PathBuf },
    #[error(
        "{}: no private key in it (expected PEM `BEGIN PRIVATE KEY`, \
         `BEGIN RSA PRIVATE KEY` or `BEGIN EC PRIVATE KEY`)",
        path.display()
    )]
    NoPrivateKey { path: PathBuf },
    #[error("{}: the certificate expired on {not_after}; renew it", path.display())]
    Expired { path: PathBuf, not_after: String },
    #[error("{}: the certificate is not valid before {not_before}; check the certificate and this machine's clock", path.display())]
    NotYetValid { path: PathBuf, not_before: String },
    #[error("{}: the private key does not match the certificate in {}", key.display(), cert.display())]
    KeyMismatch { cert: PathBuf, key: PathBuf },
    /// rustls refused the pair otherwise (an unsupported key type, a
    /// certificate it cannot parse).
    #[error("{} and {}: {reason}", cert.display(), key.display())]
    Unusable {
        cert: PathBuf,
        key: PathBuf,
        reason: String,
    },
}

/// The acceptor for the certificate chain in `cert` (leaf first, as PEM
/// files list it) and the private key in `key`.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let chain = certificates(cert)?;
    if let Some(leaf) = chain.first() {
        in_validity(cert, leaf)?;
    }
    let private_key = private_key(key)?;
    let unusable = |e: rustls::Error| match e {
        rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
            TlsError::KeyMismatch {
                cert: cert.to_path_buf(),
                key: key.to_path_buf(),
            }
        }
        other => TlsError::Unusable {
            cert: cert.to_path_buf(),
            key: key.to_path_buf(),
            reason: other.to_string(),
        },
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(unusable)?
        .with_no_client_auth()
        .with_single_cert(chain, private_key)
        .map_err(unusable)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// The leaf certificate is within its validity dates: every client would
/// refuse an expired one, so a server must not start quietly with it. A
/// certificate whose dates cannot be read is left to rustls to judge.
fn in_validity(path: &Path, leaf: &CertificateDer<'_>) -> Result<(), TlsError> {
    let Some((not_before, not_after)) = validity::of(leaf.as_ref()) else {
        return Ok(());
    };
    let now = time::OffsetDateTime::now_utc();
    if not_after < now {
        return Err(TlsError::Expired {
            path: path.to_path_buf(),
            not_after: validity::show(not_after),
        });
    }
    if not_before > now {
        return Err(TlsError::NotYetValid {
            path: path.to_path_buf(),
            not_before: validity::show(not_before),
        });
    }
    Ok(())
}

/// The validity dates of an X.509 certificate (RFC 5280 4.1.2.5), read
/// from its DER by hand: the one field needed, where x509-parser would
/// change the feature set of `syn` for the whole build (a full rebuild of
/// typst).
mod validity {
    use time::{Date, Month, OffsetDateTime, PrimitiveDateTime, Time};

    /// (tag, contents, rest) of the DER element at the start of `der`.
    fn element(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let (&tag, rest) = der.split_first()?;
        let (&first, rest) = rest.split_first()?;
        let (len, rest) = if first < 0x80 {
            (usize::from(first), rest)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || rest.len() < n {
                return None;
            }
            let len = rest[..n]
                .iter()
                .fold(0usize, |acc, &b| acc << 8 | usize::from(b));
            (len, &rest[n..])
        };
        (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
    }

    const SEQUENCE: u8 = 0x30;
    const VERSION: u8 = 0xa0;
    const UTC_TIME: u8 = 0x17;
    const GENERALIZED_TIME: u8 = 0x18;

    /// (notBefore, notAfter) of a DER certificate.
    pub fn of(der: &[u8]) -> Option<(OffsetDateTime, OffsetDateTime)> {
        let (SEQUENCE, certificate, _) = element(der)? else {
            return None;
        };
        let (SEQUENCE, tbs, _) = element(certificate)? else {
            return None;
        };
        // [0] version (optional), serialNumber, signature, issuer, validity.
        let (tag, _, after) = element(tbs)?;
        let after_serial = if tag == VERSION {
            element(after)?.2
        } else {
            after
        };
        let (_, _, after_signature) = element(after_serial)?;
        let (_, _, after_issuer) = element(after_signature)?;
        let (SEQUENCE, validity, _) = element(after_issuer)? else {
            return None;
        };
        let (before_tag, before, rest) = element(validity)?;
        let (after_tag, after, _) = element(rest)?;
        Some((time(before_tag, before)?, time(after_tag, after)?))
    }

    /// UTCTime `YYMMDDHHMMSSZ` (years 1950-2049) or GeneralizedTime
    /// `YYYYMMDDHHMMSSZ`, as RFC 5280 requires them (UTC, seconds).
    fn time(tag: u8, text: &[u8]) -> Option<OffsetDateTime> {
        let text = std::str::from_utf8(text).ok()?.strip_suffix('Z')?;
        let (year, rest) = match tag {
            UTC_TIME if text.len() == 12 => {
                let yy: i32 = text.get(..2)?.parse().ok()?;
                (if yy < 50 { 2000 + yy } else { 1900 + yy }, &text[2..])
            }
            GENERALIZED_TIME if text.len() == 14 => (text.get(..4)?.parse().ok()?, &text[4..]),
            _ => return None,
        };
        let two = |i: usize| rest.get(i..i + 2)?.parse::<u8>().ok();
        let date = Date::from_calendar_date(year, Month::try_from(two(0)?).ok()?, two(2)?).ok()?;
        let time = Time::from_hms(two(4)?, two(6)?, two(8)?).ok()?;
        Some(PrimitiveDateTime::new(date, time).assume_utc())
    }

    /// `2021-01-01 00:00:00 UTC`.
    pub fn show(at: OffsetDateTime) -> String {
        let format =
            time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second] UTC");
        at.format(&format).unwrap_or_else(|_| at.to_string())
    }
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Unreadable {
        path: path.to_path_buf(),
        source,
    })
}

fn malformed(path: &Path, e: pem::Error) -> TlsError {
    TlsError::Malformed {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// Every certificate in the file; other sections (a key kept in the same
/// file) are skipped.
fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let chain = CertificateDer::pem_slice_iter(&read(path)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| malformed(path, e))?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate {
            path: path.to_path_buf(),
        });
    }
    Ok(chain)
}

/// The first private key in the file (PKCS#8, PKCS#1 or SEC1).
fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    match PrivateKeyDer::from_pem_slice(&read(path)?) {
        Ok(key) => Ok(key),
        Err(pem::Error::NoItemsFound) => Err(TlsError::NoPrivateKey {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(malformed(path, e)),
    }
}

/// The TLS handshake of an accepted connection, within `timeout` (`None`:
/// unbounded, as the header timeout it comes from). `None` when it fails
/// or times out: a client that connects and never handshakes (or speaks
/// plain HTTP) is dropped, closing its socket, and holds no slot longer
/// than a client that never sends its headers would.
pub async fn handshake(
    acceptor: TlsAcceptor,
    stream: TcpStream,
    timeout: Option<Duration>,
) -> Option<TlsStream<TcpStream>> {
    let accept = acceptor.accept(stream);
    let result = match timeout {
        Some(timeout) => match tokio::time::timeout(timeout, accept).await {
            Ok(result) => result,
            Err(_) => Err(std::io::ErrorKind::TimedOut.into()),
        },
        None => accept.await,
    };
    result
        .inspect_err(|e| tracing::debug!(error = %e, "TLS handshake failed"))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate for `localhost` and its key, as PEM.
    fn pair() -> (String, String) {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_matching_pair_loads_and_offers_http_1_1_only() {
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = pair();
        let acceptor = acceptor(
            &write(dir.path(), "cert.pem", &cert),
            &write(dir.path(), "key.pem", &key),
        )
        .unwrap();
        assert_eq!(acceptor.config().alpn_protocols, vec![b"http/1.1".to_vec()]);
        // One file holding both serves as either.
        let both = write(dir.path(), "both.pem", &format!("{key}{cert}"));
        assert!(super::acceptor(&both, &both).is_ok());
    }

    /// The dates read from DER are the ones the certificate was made with:
    /// UTCTime up to 2049, GeneralizedTime from 2050 (RFC 5280).
    #[test]
    fn validity_dates_are_read_from_the_der() {
        let key = rcgen::KeyPair::generate().unwrap();
        for (from, until) in [((2020, 1, 2), (2021, 3, 4)), ((1999, 12, 31), (2051, 6, 7))] {
            let mut params = rcgen::CertificateParams::new(vec!["localhost".into()]).unwrap();
            params.not_before = rcgen::date_time_ymd(from.0, from.1, from.2);
            params.not_after = rcgen::date_time_ymd(until.0, until.1, until.2);
            let cert = params.self_signed(&key).unwrap();
            let (not_before, not_after) = validity::of(cert.der()).unwrap();
            assert_eq!(not_before, params.not_before);
            assert_eq!(not_after, params.not_after);
        }
        assert_eq!(validity::of(b"\x30\x03\x30\x01"), None, "truncated");
        assert_eq!(validity::of(&[]), None);
    }

    #[test]
    fn an_expired_or_future_certificate_is_refused_naming_the_date() {
        let dir = tempfile::tempdir().unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let key_path = write(dir.path(), "key.pem", &key.serialize_pem());
        for (from, until, wanted) in [
            (
                2019,
                2021,
                "the certificate expired on 2021-01-01 00:00:00 UTC",
            ),
            (2200, 2201, "not valid before 2200-01-01 00:00:00 UTC"),
        ] {
            let mut params = rcgen::CertificateParams::new(vec!["localhost".into()]).unwrap();
            params.not_before = rcgen::date_time_ymd(from, 1, 1);
            params.not_after = rcgen::date_time_ymd(until, 1, 1);
            let cert = params.self_signed(&key).unwrap();
            let cert_path = write(dir.path(), "cert.pem", &cert.pem());
            let message = refused(&cert_path, &key_path).to_string();
            assert!(message.contains(wanted), "{message}");
            assert!(
                message.starts_with(&cert_path.display().to_string()),
                "{message}"
            );
        }
    }

    fn refused(cert: &Path, key: &Path) -> TlsError {
        match acceptor(cert, key) {
            Ok(_) => panic!("{} and {} were accepted", cert.display(), key.display()),
            Err(e) => e,
        }
    }

    #[test]
    fn bad_or_missing_files_name_what_is_wrong_and_where() {
        let dir = tempfile::tempdir().unwrap();
        let (cert_pem, key_pem) = pair();
        let (_, other_key_pem) = pair();
        let cert = write(dir.path(), "cert.pem", &cert_pem);
        let key = write(dir.path(), "key.pem", &key_pem);
        let other_key = write(dir.path(), "other-key.pem", &other_key_pem);
        let empty = write(dir.path(), "empty.pem", "not PEM at all\n");
        let missing = dir.path().join("missing.pem");
        let broken = write(
            dir.path(),
            "broken.pem",
            "-----BEGIN CERTIFICATE-----\nMIIB\n",
        );

        let error = refused(&missing, &key);
        assert!(
            matches!(&error, TlsError::Unreadable { path, .. } if *path == missing),
            "{error:?}"
        );
        assert!(error.to_string().contains("missing.pem"), "{error}");
        let error = refused(&cert, &missing);
        assert!(
            matches!(&error, TlsError::Unreadable { path, .. } if *path == missing),
            "{error:?}"
        );
        // A key where the certificate belongs, and the other way round.
        let error = refused(&key, &key);
        assert!(
            matches!(&error, TlsError::NoCertificate { path } if *path == key),
            "{error:?}"
        );
        let error = refused(&cert, &cert);
        assert!(
            matches!(&error, TlsError::NoPrivateKey { path } if *path == cert),
            "{error:?}"
        );
        assert!(matches!(
            refused(&empty, &key),
            TlsError::NoCertificate { .. }
        ));
        assert!(matches!(refused(&broken, &key), TlsError::Malformed { .. }));
        let error = refused(&cert, &other_key);
        assert!(
            matches!(&error, TlsError::KeyMismatch { key, .. } if *key == other_key),
            "{error:?}"
        );
        assert!(error.to_string().contains("does not match"), "{error}");
    }
}
