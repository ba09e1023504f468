//! Output file names for `settings.output.mode = file`.

use time::OffsetDateTime;

use crate::ir::Delivery;

/// Longest file name, in characters, before `.pdf` is added.
const MAX_NAME_CHARS: usize = 200;

/// The download name, or `None` when the PDF is answered inline.
pub fn file_name(delivery: &Delivery, now: OffsetDateTime) -> Option<String> {
    let Delivery::File { name } = delivery else {
        return None;
    };
    let cleaned = name
        .as_deref()
        .map(sanitise)
        .filter(|n| !n.is_empty() && n != ".pdf");
    Some(cleaned.unwrap_or_else(|| fallback_name(now)))
}

/// `doc-MMDDHHmmssSSS.pdf` in UTC.
pub fn fallback_name(now: OffsetDateTime) -> String {
    let now = now.to_offset(time::UtcOffset::UTC);
    format!(
        "doc-{:02}{:02}{:02}{:02}{:02}{:03}.pdf",
        now.month() as u8,
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.millisecond()
    )
}

/// Drops path separators, control characters and quotes, cuts to 200
/// characters, and appends `.pdf` unless the name ends in it.
pub fn sanitise(name: &str) -> String {
    let kept: String = name
        .chars()
        .filter(|c| !c.is_control() && !matches!(c, '/' | '\\' | '"' | '\''))
        .collect();
    let trimmed = kept.trim().trim_start_matches('.');
    let mut cut: String = trimmed.chars().take(MAX_NAME_CHARS).collect();
    if !cut.to_ascii_lowercase().ends_with(".pdf") {
        cut.push_str(".pdf");
    }
    cut
}

/// `Content-Disposition` with an ASCII `filename` and a UTF-8 `filename*`.
pub fn content_disposition(name: &str) -> String {
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .filter(|c| !matches!(c, ';' | '%'))
        .collect();
    let mut encoded = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn names_lose_separators_quotes_and_controls_and_gain_pdf() {
        assert_eq!(sanitise("../etc/pass\"wd\n"), "etcpasswd.pdf");
        assert_eq!(sanitise("Report.PDF"), "Report.PDF");
        assert_eq!(sanitise(&"x".repeat(300)).len(), 204);
    }

    #[test]
    fn fallback_uses_utc_month_day_to_millisecond() {
        let t = datetime!(2026-03-04 05:06:07.089 +02:00);
        assert_eq!(fallback_name(t), "doc-0304030607089.pdf");
    }

    #[test]
    fn disposition_carries_ascii_and_utf8_names() {
        let d = content_disposition("Rechnung März.pdf");
        assert_eq!(
            d,
            "attachment; filename=\"Rechnung M_rz.pdf\"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf"
        );
    }
}
