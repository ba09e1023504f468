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
