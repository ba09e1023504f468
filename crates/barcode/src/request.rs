//! One barcode image request, parsed from its raw (still percent-encoded)
//! parts: the symbology and content path segments and the query string of
//! `GET /barcode/{symbology}/{content}?params`. Everything the SVG depends on
//! is here, so the SVG and its ETag are pure functions of a request; the
//! HTTP route, its encode pool and the fuzz target read it. Also the CLI
//! helper behind `labelpress barcode SYMBOLOGY CONTENT --opt k=v`.

use sha2::{Digest, Sha256};

use crate::{to_svg, BarcodeError, Options, Symbology};

/// One barcode request, parsed and checked: everything its SVG depends on.
#[derive(Debug, Clone)]
pub struct BarcodeRequest {
    pub symbology: Symbology,
    pub content: String,
    pub options: Options,
}

impl BarcodeRequest {
    /// Parses `GET /barcode/{symbology}/{content}?{query}` from the raw
    /// (still percent-encoded) path segments and query string: the
    /// symbology, then the content (one percent-decoded segment, not empty),
    /// then the strict parameters. Cheap: nothing is encoded yet.
    pub fn parse(symbology: &str, content: &str, query: &str) -> Result<Self, BarcodeError> {
        let symbology: Symbology = percent_decode(symbology, false)
            .ok_or_else(|| bad_segment("symbology"))?
            .parse()?;
        let content = percent_decode(content, false).ok_or_else(|| bad_segment("content"))?;
        if content.is_empty() {
            return Err(BarcodeError::Empty);
        }
        let pairs = decode_query(query)?;
        let options = Options::from_pairs(
            symbology,
            pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        )?;
        Ok(BarcodeRequest {
            symbology,
            content,
            options,
        })
    }

    /// Encodes and draws: CPU-bound, bounded by the per-symbology length
    /// limits (tens of milliseconds at most); the HTTP route runs it in
    /// its bounded encode pool.
    pub fn svg(&self) -> Result<String, BarcodeError> {
        to_svg(self.symbology, &self.content, &self.options)
    }

    /// Strong validator over everything the output depends on; options are
    /// hashed in their parsed form, so `m=2` and `margin=2` share an ETag.
    pub fn etag(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.symbology.name().as_bytes());
        h.update([0]);
        h.update(self.content.as_bytes());
        h.update([0]);
        h.update(format!("{:?}", self.options).as_bytes());
        // The renderer's version: bump when the SVG output changes (v2: PDF417's
        // automatic error-correction level follows the data length).
        h.update(b"\0svg-v2");
        let digest = h.finalize();
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("\"{hex}\"")
    }
}

/// `a=1&b=2` into decoded pairs (`+` is a space). Duplicates are left for
/// `Options::from_pairs` to refuse.
fn decode_query(query: &str) -> Result<Vec<(String, String)>, BarcodeError> {
    let mut out = Vec::new();
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let key = percent_decode(k, true).ok_or_else(|| bad_encoding(k))?;
        let value = percent_decode(v, true).ok_or_else(|| bad_encoding(k))?;
        out.push((key, value));
    }
    Ok(out)
}

fn bad_encoding(param: &str) -> BarcodeError {
    BarcodeError::InvalidParameter {
        param: param.chars().take(64).collect(),
        value: String::new(),
        expected: "valid percent-encoded UTF-8".into(),
    }
}

fn bad_segment(segment: &str) -> BarcodeError {
    BarcodeError::InvalidContent {
        symbology: "the barcode service",
        reason: format!("the {segment} path segment is not valid percent-encoded UTF-8"),
    }
}

/// Percent-decoding into UTF-8; `+` is a space in a query string
/// (`plus_is_space`), itself in a path segment. Strict: a `%` not followed
/// by two hex digits is refused (the decoder itself would keep it as is).
fn percent_decode(s: &str, plus_is_space: bool) -> Option<String> {
    let escapes_valid = s.split('%').skip(1).all(|after| {
        after
            .as_bytes()
            .get(..2)
            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if !escapes_valid {
        return None;
    }
    let s = match plus_is_space {
        true => std::borrow::Cow::Owned(s.replace('+', " ")),
        false => std::borrow::Cow::Borrowed(s),
    };
    let decoded = percent_encoding::percent_decode_str(&s)
        .decode_utf8()
        .ok()?;
    Some(decoded.into_owned())
}

/// The `labelpress barcode` subcommand: `opts` are `key=value` strings with
/// the service's parameter names and rules.
pub fn cli_svg(symbology: &str, content: &str, opts: &[String]) -> Result<String, BarcodeError> {
    let symbology: Symbology = symbology.parse()?;
    let mut pairs = Vec::with_capacity(opts.len());
    for opt in opts {
        let (k, v) = opt
            .split_once('=')
            .ok_or_else(|| BarcodeError::InvalidParameter {
                param: opt.clone(),
                value: String::new(),
                expected: "key=value".into(),
            })?;
        pairs.push((k, v));
    }
    let options = Options::from_pairs(symbology, pairs)?;
    to_svg(symbology, content, &options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_decoding() {
        assert_eq!(
            decode_query("fg=%23ff0000&m=2&x=a+b").unwrap(),
            vec![
                ("fg".into(), "#ff0000".into()),
                ("m".into(), "2".into()),
                ("x".into(), "a b".into())
            ]
        );
        assert!(decode_query("fg=%zz").is_err());
        assert!(decode_query("fg=%+1").is_err());
        assert!(decode_query("fg=%é").is_err());
        assert!(decode_query("fg=%4").is_err());
        // An escaped plus is a plus; only a bare one is a space.
        assert_eq!(
            decode_query("t=a%2Bb+c").unwrap(),
            vec![("t".into(), "a+b c".into())]
        );
    }

    #[test]
    fn a_path_segment_keeps_its_plus_and_must_not_be_empty() {
        let r = BarcodeRequest::parse("qr", "a+b%2Fc", "ecl=H").unwrap();
        assert_eq!(r.content, "a+b/c");
        assert_eq!(
            BarcodeRequest::parse("qr", "", "").unwrap_err(),
            BarcodeError::Empty
        );
        assert!(BarcodeRequest::parse("nope", "", "")
            .unwrap_err()
            .to_string()
            .starts_with("unknown symbology 'nope'"));
        assert!(BarcodeRequest::parse("qr", "%FF", "").is_err());
    }
}
