//! What the render route answers with: the query's `format`, else the
//! `Accept` header, picks PDF or PNG; the query (`dpi`, `sheet`, `mono`)
//! shapes a PNG (docs/http-api.md, "PNG output").
//!
//! Invariants: an explicit `format` wins over `Accept` (a generated client
//! chooses the output with a parameter, not a header); without it, an
//! `Accept` that names neither type (or none at all) keeps the PDF, as
//! before PNG existed; a query parameter of this route that
//! cannot be read, or a dpi outside the configured range, is a client
//! mistake (400 API-006) found before anything is rendered or charged.
//! Other query parameters are ignored, as they always were.

use crate::api_error::ApiError;
use labelpress_document::config::Limits;
use labelpress_document::engine::raster::{dpi_problem, Format};
use labelpress_document::engine::{Output, PngOptions};

/// The media types the route produces, in its order of preference when a
/// client likes several equally.
const PRODUCED: [Format; 2] = [Format::Pdf, Format::Png];

/// The format an `Accept` header prefers (RFC 9110 12.5.1): each produced
/// type gets the q-value of the most specific range that matches it; the
/// highest non-zero q wins, ties going to PDF. No header, no match: PDF.
pub fn negotiate(accept: Option<&str>) -> Format {
    let Some(accept) = accept else {
        return Format::Pdf;
    };
    let ranges: Vec<(&str, &str, f32)> = accept.split(',').filter_map(media_range).collect();
    let quality = |format: Format| {
        let (kind, sub) = format
            .media_type()
            .split_once('/')
            .expect("media types have a slash");
        ranges
            .iter()
            .filter_map(|&(k, s, q)| {
                let specificity = match (k, s) {
                    _ if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(sub) => 2,
                    (_, "*") if k.eq_ignore_ascii_case(kind) => 1,
                    ("*", "*") => 0,
                    _ => return None,
                };
                Some((specificity, q))
            })
            .max_by_key(|&(specificity, _)| specificity)
            .map_or(0.0, |(_, q)| q)
    };
    let mut best = (Format::Pdf, 0.0);
    for format in PRODUCED {
        let q = quality(format);
        if q > best.1 {
            best = (format, q);
        }
    }
    best.0
}

/// `type/subtype;q=0.5;...` as (type, subtype, q); `None` for an entry that
/// is not a media range. A q that is not a number counts as 1, as most
/// servers read it.
fn media_range(entry: &str) -> Option<(&str, &str, f32)> {
    let mut parts = entry.split(';').map(str::trim);
    let (kind, sub) = parts.next()?.split_once('/')?;
    let q = parts
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
        .and_then(|(_, v)| v.trim().parse::<f32>().ok())
        .map_or(1.0, |q| q.clamp(0.0, 1.0));
    Some((kind.trim(), sub.trim(), q))
}

/// The route's query parameters, read and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Query {
    pub dpi: Option<u32>,
    pub sheet: Option<usize>,
    pub mono: Option<bool>,
    /// `format=pdf` or `format=png`: wins over `Accept`.
    pub format: Option<Format>,
}

/// The values of `?format=`, as written (ASCII case ignored).
pub const FORMATS: [(&str, Format); 2] = [("pdf", Format::Pdf), ("png", Format::Png)];

/// A whole number as the docs write one: decimal digits only, no sign, no
/// blank, no leading zero (`0` itself aside), within u64.
fn whole_number(text: &str) -> Option<u64> {
    let digits_only = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let leading_zero = text.len() > 1 && text.starts_with('0');
    (digits_only && !leading_zero).then(|| text.parse().ok())?
}

impl Query {
    /// Reads `dpi`, `sheet`, `mono` and `format` from a raw query string; a repeated
    /// parameter is refused (which one was meant is not clear).
    pub fn parse(query: Option<&str>, limits: &Limits) -> Result<Query, ApiError> {
        let mut parsed = Query::default();
        for pair in query
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
            // As written: `300 `, `+300` and `0300` are no whole numbers.
            let value = value.as_ref();
            let bad = |why: &str| ApiError::InvalidQuery(format!("?{key}={value}: {why}"));
            let repeated = || ApiError::InvalidQuery(format!("?{key} is given more than once"));
            match key {
                "dpi" => {
                    let dpi = whole_number(value)
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or_else(|| bad("dpi must be a whole number of dots per inch"))?;
                    if let Some(problem) = dpi_problem(f64::from(dpi), limits) {
                        return Err(bad(&problem));
                    }
                    if parsed.dpi.replace(dpi).is_some() {
                        return Err(repeated());
                    }
                }
                "sheet" => {
                    let sheet = whole_number(value)
                        .and_then(|n| usize::try_from(n).ok())
                        .filter(|&s| s >= 1)
                        .ok_or_else(|| bad("sheet must be a whole number from 1"))?;
                    if parsed.sheet.replace(sheet).is_some() {
                        return Err(repeated());
                    }
                }
                "mono" => {
                    let mono = match value.to_ascii_lowercase().as_str() {
                        "1" | "true" => true,
                        "0" | "false" => false,
                        _ => return Err(bad("mono must be 1, 0, true or false")),
                    };
                    if parsed.mono.replace(mono).is_some() {
                        return Err(repeated());
                    }
                }
                "format" => {
                    let format = FORMATS
                        .iter()
                        .find(|(name, _)| name.eq_ignore_ascii_case(value))
                        .map(|(_, f)| *f)
                        .ok_or_else(|| bad("format must be pdf or png"))?;
                    if parsed.format.replace(format).is_some() {
                        return Err(repeated());
                    }
                }
                _ => {}
            }
        }
        Ok(parsed)
    }

    /// The format asked: `format` when given, else what `accept` prefers.
    pub fn format(&self, accept: Option<&str>) -> Format {
        self.format.unwrap_or_else(|| negotiate(accept))
    }

    /// What to render in `format`: the query shapes only a PNG.
    pub fn output(self, format: Format) -> Output {
        match format {
            Format::Pdf => Output::Pdf,
            Format::Png => Output::Png(PngOptions {
                dpi: self.dpi,
                sheet: self.sheet.unwrap_or(1),
                mono: self.mono.unwrap_or(false),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_picks_the_preferred_produced_type() {
        let cases = [
            (None, Format::Pdf),
            (Some("image/png"), Format::Png),
            (Some("application/pdf"), Format::Pdf),
            (Some("*/*"), Format::Pdf),
            (Some("text/html"), Format::Pdf),
            (Some(""), Format::Pdf),
            (Some("image/*"), Format::Png),
            (Some("IMAGE/PNG"), Format::Png),
            (Some("application/pdf;q=0.5, image/png"), Format::Png),
            (Some("image/png;q=0.4, application/pdf;q=0.9"), Format::Pdf),
            (Some("image/png, application/pdf"), Format::Pdf),
            (Some("image/png;q=0.8, */*;q=0.1"), Format::Png),
            // The specific range decides, not the wildcard.
            (Some("*/*, application/pdf;q=0"), Format::Png),
            (Some("image/png;q=0"), Format::Pdf),
            (Some("image/png ; q=1.0 , text/plain"), Format::Png),
            (Some("garbage, image/png;q=abc"), Format::Png),
        ];
        for (accept, expected) in cases {
            assert_eq!(negotiate(accept), expected, "{accept:?}");
        }
    }

    #[test]
    fn the_query_is_read_and_bad_values_are_refused_with_api_006() {
        let limits = Limits::default();
        let q = Query::parse(Some("dpi=300&sheet=2&mono=true&x=y"), &limits).unwrap();
        assert_eq!(
            q,
            Query {
                dpi: Some(300),
                sheet: Some(2),
                mono: Some(true),
                format: None,
            }
        );
        assert_eq!(Query::parse(None, &limits).unwrap(), Query::default());
        assert_eq!(
            Query::parse(Some("mono=0"), &limits).unwrap().mono,
            Some(false)
        );
        for bad in [
            "dpi=abc",
            "dpi=0",
            "dpi=71",
            "dpi=1201",
            "dpi=-5",
            "dpi=203.5",
            // Issue 28: a whole number as written, nothing around it.
            "dpi=+300",
            "dpi=0300",
            "dpi=300%20",
            "dpi=%20300",
            "dpi=300%0A",
            "sheet=+2",
            "sheet=02",
            "mono=1%20",
            "sheet=0",
            "sheet=x",
            "sheet=-1",
            "mono=yes",
            "mono=",
            "dpi=203&dpi=300",
            "sheet",
            "format=jpeg",
            "format=",
            "format=pdf&format=png",
        ] {
            let error = Query::parse(Some(bad), &limits).unwrap_err();
            assert_eq!((error.code(), error.status()), ("API-006", 400), "{bad}");
        }
        let message = Query::parse(Some("dpi=5000"), &limits)
            .unwrap_err()
            .to_string();
        assert!(message.contains("72 to 1200"), "{message}");
    }

    #[test]
    fn an_explicit_format_wins_over_accept() {
        let limits = Limits::default();
        let png = Query::parse(Some("format=PNG"), &limits).unwrap();
        assert_eq!(png.format(Some("application/pdf")), Format::Png);
        assert_eq!(png.format(None), Format::Png);
        let pdf = Query::parse(Some("format=pdf"), &limits).unwrap();
        assert_eq!(pdf.format(Some("image/png")), Format::Pdf);
        let none = Query::parse(None, &limits).unwrap();
        assert_eq!(none.format(Some("image/png")), Format::Png);
        assert_eq!(none.format(None), Format::Pdf);
    }

    #[test]
    fn the_query_shapes_only_a_png() {
        let q = Query {
            dpi: Some(300),
            sheet: None,
            mono: None,
            format: None,
        };
        assert_eq!(q.output(Format::Pdf), Output::Pdf);
        assert_eq!(
            q.output(Format::Png),
            Output::Png(PngOptions {
                dpi: Some(300),
                sheet: 1,
                mono: false
            })
        );
    }
}
