//! What the render route answers with: the query's `format`, else the
//! `Accept` header, picks PDF, PNG or ZPL; the query (`dpi`, `sheet`,
//! `mono`) shapes a PNG or the ZPL (docs/http-api.md, "PNG and ZPL output").
//!
//! Invariants: an explicit `format` wins over `Accept` (a generated client
//! chooses the output with a parameter, not a header); without it, no
//! `Accept` (or one with no media range in it) keeps the PDF, as before PNG
//! existed, and an `Accept` whose ranges match none of the produced types
//! is 406 API-007, never a silent PDF; a query parameter of this route that
//! cannot be read, or a dpi outside the configured range (or, for ZPL, not
//! a printer's), is a client mistake (400 API-006) found before anything is
//! rendered or charged. Other query parameters are ignored, as they always
//! were.

use crate::api_error::ApiError;
use labelpress_document::config::Limits;
use labelpress_document::engine::raster::{dpi_problem, Format};
use labelpress_document::engine::{zpl, Output, PngOptions, ZplOptions};

/// The media types the route produces, each with the names it answers
/// to, in its order of preference when a client likes several equally.
pub const PRODUCED: [(Format, &[&str]); 3] = [
    (Format::Pdf, &["application/pdf"]),
    (Format::Png, &["image/png"]),
    (
        Format::Zpl,
        &["application/zpl", "application/x-zpl", "text/x-zpl"],
    ),
];

/// The format an `Accept` header prefers (RFC 9110 12.5.1): each produced
/// type gets the q-value of the most specific range that matches one of its
/// names; the highest non-zero q wins, ties going to the earlier type. No
/// header, or no media range in it: PDF. Ranges that give every produced
/// type q = 0: 406 API-007.
pub fn negotiate(accept: Option<&str>) -> Result<Format, ApiError> {
    let Some(accept) = accept else {
        return Ok(Format::Pdf);
    };
    let ranges: Vec<(&str, &str, f32)> = accept.split(',').filter_map(media_range).collect();
    if ranges.is_empty() {
        return Ok(Format::Pdf);
    }
    let quality = |names: &[&str]| {
        ranges
            .iter()
            .filter_map(|&(k, s, q)| {
                let specificity = names
                    .iter()
                    .filter_map(|name| {
                        let (kind, sub) = name.split_once('/')?;
                        match (k, s) {
                            _ if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(sub) => {
                                Some(2)
                            }
                            (_, "*") if k.eq_ignore_ascii_case(kind) => Some(1),
                            ("*", "*") => Some(0),
                            _ => None,
                        }
                    })
                    .max()?;
                Some((specificity, q))
            })
            .max_by_key(|&(specificity, _)| specificity)
            .map_or(0.0, |(_, q)| q)
    };
    let mut best = None;
    for (format, names) in PRODUCED {
        let q = quality(names);
        if q > best.map_or(0.0, |(_, q)| q) {
            best = Some((format, q));
        }
    }
    best.map(|(format, _)| format).ok_or_else(|| {
        let produced: Vec<&str> = PRODUCED
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        ApiError::NotAcceptable(format!(
            "this route answers {}; Accept: {accept} names none of them",
            produced.join(", ")
        ))
    })
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
    /// `format=pdf`, `png` or `zpl`: wins over `Accept`.
    pub format: Option<Format>,
    /// `barcodes=native` (ZPL: the printer draws the barcodes it can) or
    /// `graphic`.
    pub native_barcodes: Option<bool>,
}

/// The values of `?format=`, as written (ASCII case ignored).
pub const FORMATS: [(&str, Format); 3] = [
    ("pdf", Format::Pdf),
    ("png", Format::Png),
    ("zpl", Format::Zpl),
];

/// A whole number as the docs write one: decimal digits only, no sign, no
/// blank, no leading zero (`0` itself aside), within u64.
fn whole_number(text: &str) -> Option<u64> {
    let digits_only = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    let leading_zero = text.len() > 1 && text.starts_with('0');
    (digits_only && !leading_zero).then(|| text.parse().ok())?
}

impl Query {
    /// Reads `dpi`, `sheet`, `mono`, `format` and `barcodes` from a raw query string; a repeated
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
                "barcodes" => {
                    let native = match value.to_ascii_lowercase().as_str() {
                        "native" => true,
                        "graphic" => false,
                        _ => return Err(bad("barcodes must be native or graphic")),
                    };
                    if parsed.native_barcodes.replace(native).is_some() {
                        return Err(repeated());
                    }
                }
                "format" => {
                    let format = FORMATS
                        .iter()
                        .find(|(name, _)| name.eq_ignore_ascii_case(value))
                        .map(|(_, f)| *f)
                        .ok_or_else(|| bad("format must be pdf, png or zpl"))?;
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
    pub fn format(&self, accept: Option<&str>) -> Result<Format, ApiError> {
        match self.format {
            Some(format) => Ok(format),
            None => negotiate(accept),
        }
    }

    /// What to render in `format`: the query shapes a PNG or the ZPL (whose
    /// dpi must be a printer's: 400 API-006 otherwise).
    pub fn output(self, format: Format) -> Result<Output, ApiError> {
        Ok(match format {
            Format::Pdf => Output::Pdf,
            // An archive is how several PNG sheets are answered, never
            // negotiated on its own.
            Format::Png | Format::Zip => Output::Png(PngOptions {
                dpi: self.dpi,
                sheet: self.sheet,
                mono: self.mono.unwrap_or(false),
            }),
            Format::Zpl => {
                if let Some(problem) = self.dpi.and_then(zpl::dpi_problem) {
                    return Err(ApiError::InvalidQuery(format!(
                        "?dpi={}: {problem}",
                        self.dpi.unwrap_or_default()
                    )));
                }
                Output::Zpl(ZplOptions {
                    dpi: self.dpi,
                    sheet: self.sheet,
                    copies: 1,
                    native_barcodes: self.native_barcodes.unwrap_or(false),
                })
            }
        })
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
            (Some(""), Format::Pdf),
            (Some("garbage"), Format::Pdf),
            (Some("image/*"), Format::Png),
            (Some("IMAGE/PNG"), Format::Png),
            (Some("application/pdf;q=0.5, image/png"), Format::Png),
            (Some("image/png;q=0.4, application/pdf;q=0.9"), Format::Pdf),
            (Some("image/png, application/pdf"), Format::Pdf),
            (Some("image/png;q=0.8, */*;q=0.1"), Format::Png),
            // The specific range decides, not the wildcard.
            (Some("*/*, application/pdf;q=0"), Format::Png),
            (Some("image/png ; q=1.0 , text/plain"), Format::Png),
            (Some("garbage, image/png;q=abc"), Format::Png),
            // ZPL under each of its names, and `application/*` prefers PDF.
            (Some("application/zpl"), Format::Zpl),
            (Some("application/x-zpl"), Format::Zpl),
            (Some("Text/X-ZPL"), Format::Zpl),
            (Some("application/*"), Format::Pdf),
            (Some("application/*, application/pdf;q=0"), Format::Zpl),
            (Some("application/pdf;q=0.5, application/zpl"), Format::Zpl),
            (Some("image/png, application/zpl"), Format::Png),
        ];
        for (accept, expected) in cases {
            assert_eq!(negotiate(accept).unwrap(), expected, "{accept:?}");
        }
    }

    #[test]
    fn an_accept_the_route_cannot_produce_is_406_naming_what_it_can() {
        for accept in [
            "text/html",
            "application/json",
            "image/png;q=0",
            "*/*;q=0",
            "image/jpeg, text/plain",
        ] {
            let error = negotiate(Some(accept)).unwrap_err();
            assert_eq!((error.code(), error.status()), ("API-007", 406), "{accept}");
            let message = error.to_string();
            for name in ["application/pdf", "image/png", "application/zpl"] {
                assert!(message.contains(name), "{message}");
            }
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
                native_barcodes: None,
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
            "format=jpg",
            "barcodes=vector",
            "barcodes=native&barcodes=graphic",
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
        assert_eq!(png.format(Some("application/pdf")).unwrap(), Format::Png);
        assert_eq!(png.format(Some("text/html")).unwrap(), Format::Png);
        assert_eq!(png.format(None).unwrap(), Format::Png);
        let pdf = Query::parse(Some("format=pdf"), &limits).unwrap();
        assert_eq!(pdf.format(Some("image/png")).unwrap(), Format::Pdf);
        let zpl = Query::parse(Some("format=zpl"), &limits).unwrap();
        assert_eq!(zpl.format(Some("application/pdf")).unwrap(), Format::Zpl);
        let none = Query::parse(None, &limits).unwrap();
        assert_eq!(none.format(Some("image/png")).unwrap(), Format::Png);
        assert_eq!(none.format(None).unwrap(), Format::Pdf);
    }

    #[test]
    fn the_query_shapes_a_png_or_the_zpl() {
        let q = Query {
            dpi: Some(300),
            sheet: None,
            mono: None,
            format: None,
            native_barcodes: Some(true),
        };
        assert_eq!(q.output(Format::Pdf).unwrap(), Output::Pdf);
        assert_eq!(
            q.output(Format::Png).unwrap(),
            Output::Png(PngOptions {
                dpi: Some(300),
                sheet: None,
                mono: false
            })
        );
        assert_eq!(
            q.output(Format::Zpl).unwrap(),
            Output::Zpl(ZplOptions {
                dpi: Some(300),
                sheet: None,
                copies: 1,
                native_barcodes: true,
            })
        );
        let not_a_printers = Query {
            dpi: Some(250),
            ..q
        };
        let error = not_a_printers.output(Format::Zpl).unwrap_err();
        assert_eq!(error.code(), "API-006");
        assert!(
            error.to_string().contains("152, 203, 300 or 600"),
            "{error}"
        );
    }
}
