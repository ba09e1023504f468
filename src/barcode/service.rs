//! The barcode image service: `GET /barcode/{symbology}/{content}?params`
//! answers an SVG that is a pure function of the URL, so it is cached for a
//! year and carries a strong ETag. Also the CLI helper behind
//! `labelpress barcode SYMBOLOGY CONTENT --opt k=v`.

use axum::extract::{Path, RawQuery};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};

use super::{to_svg, BarcodeError, Options, Symbology};

const CACHE_CONTROL: &str = "public, max-age=31536000, immutable";

/// The stateless barcode router.
pub fn router() -> Router {
    Router::new().route("/barcode/{symbology}/{content}", get(barcode))
}

impl IntoResponse for BarcodeError {
    fn into_response(self) -> Response {
        (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            self.to_string(),
        )
            .into_response()
    }
}

async fn barcode(
    Path((symbology, content)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, BarcodeError> {
    let symbology: Symbology = symbology.parse()?;
    let pairs = decode_query(query.as_deref().unwrap_or(""))?;
    let options = Options::from_pairs(
        symbology,
        pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )?;
    let etag = etag(symbology, &content, &options);
    let cache = [
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static(CACHE_CONTROL),
        ),
        (
            header::ETAG,
            HeaderValue::from_str(&etag).expect("hex digest is a valid header value"),
        ),
    ];
    if if_none_match(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, cache).into_response());
    }
    // Encoding is CPU-bound but bounded (milliseconds) by the per-symbology
    // length limits, so it runs inline.
    let svg = to_svg(symbology, &content, &options)?;
    Ok((
        StatusCode::OK,
        cache,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("image/svg+xml"),
        )],
        svg,
    )
        .into_response())
}

/// Strong validator over everything the output depends on; options are
/// hashed in their parsed form, so `m=2` and `margin=2` share an ETag.
fn etag(symbology: Symbology, content: &str, options: &Options) -> String {
    let mut h = Sha256::new();
    h.update(symbology.name().as_bytes());
    h.update([0]);
    h.update(content.as_bytes());
    h.update([0]);
    h.update(format!("{options:?}").as_bytes());
    // The renderer's version: bump when the SVG output changes (v2: PDF417's
    // automatic error-correction level follows the data length).
    h.update(b"\0svg-v2");
    let digest = h.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim())
        .any(|t| t == "*" || t == etag || t.strip_prefix("W/") == Some(etag))
}

/// `a=1&b=2` into decoded pairs (`+` is a space). Duplicates are left for
/// `Options::from_pairs` to refuse.
fn decode_query(query: &str) -> Result<Vec<(String, String)>, BarcodeError> {
    let mut out = Vec::new();
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        let key = percent_decode(k).ok_or_else(|| bad_encoding(k))?;
        let value = percent_decode(v).ok_or_else(|| bad_encoding(k))?;
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

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
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
    }
}
