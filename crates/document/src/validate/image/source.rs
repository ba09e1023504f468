//! Where an image element's bytes come from: its `data` field is a data URI,
//! a file name under the resource folder, or Base64 (docs/document-request.md, "Elements").
//! Nothing is ever read from the network or outside that folder.

use std::path::{Path, PathBuf};

use base64::Engine as _;

use crate::config::IMAGE_FORMATS;

/// The folder image file names resolve in (`--resources DIR`).
#[derive(Debug, Clone)]
pub struct ResourceDir {
    root: PathBuf,
}

impl ResourceDir {
    /// Opens a resource folder; its canonical path bounds every lookup.
    pub fn new(path: &Path) -> std::io::Result<Self> {
        Ok(Self {
            root: path.canonicalize()?,
        })
    }

    /// Reads a file by its request name. The name is already known to match
    /// `^[A-Za-z0-9_./-]+\.(ext)$`; `..`, absolute paths and links that leave
    /// the folder are refused.
    pub fn read(&self, name: &str, max_bytes: usize) -> Result<Vec<u8>, String> {
        if name.starts_with('/') || name.split('/').any(|part| part == ".." || part.is_empty()) {
            return Err(format!(
                "`{name}` must be a plain relative name inside the resource folder"
            ));
        }
        let path = self.root.join(name);
        let real = path
            .canonicalize()
            .map_err(|_| format!("no resource file `{name}`"))?;
        if !real.starts_with(&self.root) {
            return Err(format!("`{name}` leaves the resource folder"));
        }
        let meta = std::fs::metadata(&real).map_err(|_| format!("no resource file `{name}`"))?;
        if !meta.is_file() {
            return Err(format!("`{name}` is not a file"));
        }
        if meta.len() as usize > max_bytes {
            return Err(format!("`{name}` is larger than {max_bytes} bytes"));
        }
        std::fs::read(&real).map_err(|e| format!("cannot read `{name}`: {e}"))
    }
}

pub(super) fn is_file_name(data: &str) -> bool {
    let Some((stem, ext)) = data.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-".contains(&b))
        && IMAGE_FORMATS.contains(&ext)
}

/// Decodes the `data` field: data URI, resource file name, or Base64.
pub(super) fn data_bytes(
    data: &str,
    max: usize,
    resources: Option<&ResourceDir>,
) -> Result<Vec<u8>, String> {
    let b64 = |text: &str| {
        let cleaned: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if cleaned.len() / 4 * 3 > max + 3 {
            return Err(format!("the image is larger than {max} bytes"));
        }
        base64::engine::general_purpose::STANDARD
            .decode(cleaned.as_bytes())
            .map_err(|e| {
                format!("`data` is neither a data URI, a resource file name nor valid Base64 ({e})")
            })
    };
    if let Some(rest) = data.strip_prefix("data:") {
        let (header, payload) = rest
            .split_once(',')
            .ok_or("a data URI needs a `,` before its data")?;
        if header.ends_with(";base64") {
            b64(payload)
        } else {
            // `%XX` escapes decoded; a `%` without two hex digits after it
            // stays as it is (no error, and never a slice inside a character).
            let bytes: Vec<u8> = percent_encoding::percent_decode_str(payload).collect();
            if bytes.len() > max {
                return Err(format!("the image is larger than {max} bytes"));
            }
            Ok(bytes)
        }
    } else if is_file_name(data) {
        match resources {
            Some(dir) => dir.read(data, max),
            None => Err(format!(
                "`{data}` names a resource file, but no resource folder is configured"
            )),
        }
    } else {
        b64(data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_decisions_pattern() {
        assert!(is_file_name("logo.png"));
        assert!(is_file_name("img/logo-2.svg"));
        assert!(!is_file_name("logo.exe"));
        assert!(!is_file_name("iVBORw0KGgo="));
        assert!(!is_file_name("a b.png"));
    }

    #[test]
    fn resource_reads_cannot_leave_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ok.png"), b"x").unwrap();
        let res = ResourceDir::new(dir.path()).unwrap();
        assert_eq!(res.read("ok.png", 10).unwrap(), b"x");
        assert!(res.read("../ok.png", 10).is_err());
        assert!(res.read("/etc/passwd.png", 10).is_err());
        assert!(res.read("missing.png", 10).is_err());
        assert!(res.read("ok.png", 0).is_err());
    }

    /// The bytes of a percent-encoded (not Base64) data URI.
    fn percent_decode(payload: &str) -> Vec<u8> {
        data_bytes(&format!("data:text/plain,{payload}"), 1000, None).unwrap()
    }

    #[test]
    fn percent_decoding_never_slices_inside_a_character() {
        // Issue 14 item 8: `%a` followed by a two-byte character panicked.
        assert_eq!(percent_decode("%aé<svg/>"), "%aé<svg/>".as_bytes());
        assert_eq!(percent_decode("%é"), "%é".as_bytes());
        assert_eq!(percent_decode("é%"), "é%".as_bytes());
        assert_eq!(percent_decode("%€€"), "%€€".as_bytes());
    }

    #[test]
    fn percent_decoding_takes_exactly_two_hex_digits() {
        assert_eq!(percent_decode("%3Csvg%3e%20"), b"<svg> ");
        assert_eq!(percent_decode("%41%4"), b"A%4");
        assert_eq!(percent_decode("%"), b"%");
        assert_eq!(percent_decode("%zz"), b"%zz");
        // from_str_radix accepted a sign: `%+a` was decoded as 0x0a.
        assert_eq!(percent_decode("%+a"), b"%+a");
        assert_eq!(percent_decode("%%41"), b"%A");
    }

    #[test]
    fn data_uris_decode_base64_and_percent_escapes() {
        assert_eq!(
            data_bytes("data:image/svg+xml,%3Csvg/%3E", 100, None).unwrap(),
            b"<svg/>"
        );
        assert_eq!(
            data_bytes("data:image/png;base64,aGk=", 100, None).unwrap(),
            b"hi"
        );
        assert_eq!(data_bytes("aGk=", 100, None).unwrap(), b"hi");
        assert!(data_bytes("data:image/png;base64", 100, None).is_err());
        assert!(data_bytes("data:text/plain,abcdef", 3, None)
            .unwrap_err()
            .contains("larger than 3 bytes"));
        assert!(data_bytes("logo.png", 100, None)
            .unwrap_err()
            .contains("no resource folder"));
    }
}
