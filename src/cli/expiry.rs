//! Expiry times as a person types them on the command line (`token create
//! --expires`, `token expiry ID WHEN`), resolved to the Unix milliseconds of
//! the admin API's `expires_at`.
//!
//! `expires_at` is the first instant a token is refused (a token is expired
//! when `now >= expires_at`, see `verify::rules::expired`). So a bare date
//! means "valid through that whole day, UTC": `2026-12-31` is
//! `2027-01-01T00:00:00Z`. A time without an offset is UTC, as the admin
//! views show times (`2026-12-31 18:00Z`).

use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

/// An expiry resolved to Unix milliseconds; `None` never expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry(pub Option<i64>);

/// Every form [`parse`] takes, for the one-line error.
pub const ACCEPTED: &str = "use a date (2026-12-31: valid through that day, UTC), \
a date and time (2026-12-31T18:00, \"2026-12-31 18:00:00\"; UTC unless it ends in Z \
or an offset such as +02:00), a time from now (30d, +12h, 90m, 60s, 2w), \
Unix milliseconds, or never/none";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpiryError {
    #[error("{0:?} is not an expiry: {ACCEPTED}")]
    Unrecognised(String),
    /// The shape is right, a field is not (`2026-02-30`, `25:00`, `+26:00`).
    #[error("{text:?}: {reason}; {ACCEPTED}")]
    Invalid { text: String, reason: String },
    #[error("{0:?} is out of range")]
    OutOfRange(String),
}

/// `text` as an expiry, relative forms counted from `now_ms`.
pub fn parse(text: &str, now_ms: i64) -> Result<Expiry, ExpiryError> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("never") || text.eq_ignore_ascii_case("none") {
        return Ok(Expiry(None));
    }
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse()
            .map(|ms| Expiry(Some(ms)))
            .map_err(|_| ExpiryError::OutOfRange(text.into()));
    }
    if let Some(ms) = relative_ms(text)? {
        return now_ms
            .checked_add(ms)
            .map(|at| Expiry(Some(at)))
            .ok_or_else(|| ExpiryError::OutOfRange(text.into()));
    }
    absolute(text).map(|at| Expiry(Some(unix_ms(at))))
}

/// `parse` against the clock: the value parser of clap arguments.
pub fn parse_now(text: &str) -> Result<Expiry, ExpiryError> {
    parse(text, crate::credential::now_ms())
}

/// `30d`, `+12h`, `90m`, `60s`, `2w` in milliseconds; `None` when `text`
/// is not of that shape (digits then one unit letter).
fn relative_ms(text: &str) -> Result<Option<i64>, ExpiryError> {
    let body = text.strip_prefix('+').unwrap_or(text);
    let Some(digits_end) = body.find(|c: char| !c.is_ascii_digit()) else {
        return Ok(None);
    };
    let (digits, unit) = body.split_at(digits_end);
    let unit_ms: i64 = match unit {
        "w" => 7 * 86_400_000,
        "d" => 86_400_000,
        "h" => 3_600_000,
        "m" => 60_000,
        "s" => 1_000,
        _ if digits.is_empty() => return Ok(None),
        // `5x`, `5days`: a duration with a unit we do not know.
        _ if unit.chars().all(|c| c.is_ascii_alphabetic()) => {
            return Err(ExpiryError::Invalid {
                text: text.into(),
                reason: format!("unknown unit {unit:?} (w, d, h, m or s)"),
            })
        }
        _ => return Ok(None),
    };
    if digits.is_empty() {
        return Ok(None);
    }
    digits
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(unit_ms))
        .map(Some)
        .ok_or_else(|| ExpiryError::OutOfRange(text.into()))
}

/// A date, or a date and time with an optional offset.
fn absolute(text: &str) -> Result<OffsetDateTime, ExpiryError> {
    if let Ok(at) = OffsetDateTime::parse(text, &Rfc3339) {
        return Ok(at);
    }
    let unrecognised = || ExpiryError::Unrecognised(text.into());
    let invalid = |e: time::error::Parse| ExpiryError::Invalid {
        text: text.into(),
        reason: e.to_string(),
    };
    // The date is the first ten characters (`YYYY-MM-DD`), then `T` or one
    // space and the time.
    let (date, rest) = match (text.get(..10), text.get(10..)) {
        (Some(date), Some(rest)) if date.as_bytes().get(4) == Some(&b'-') => (date, rest),
        _ => return Err(unrecognised()),
    };
    let date = Date::parse(date, format_description!("[year]-[month]-[day]")).map_err(invalid)?;
    if rest.is_empty() {
        // Through the whole day: expired from the next midnight.
        return date
            .next_day()
            .map(|next| next.midnight().assume_utc())
            .ok_or_else(|| ExpiryError::OutOfRange(text.into()));
    }
    let rest = rest
        .strip_prefix(['T', 't', ' '])
        .ok_or_else(unrecognised)?;
    let offset_at = rest.find(['Z', 'z', '+', '-']).unwrap_or(rest.len());
    let (clock, offset) = rest.split_at(offset_at);
    let clock = if clock.len() == 5 {
        Time::parse(clock, format_description!("[hour]:[minute]"))
    } else {
        Time::parse(clock, format_description!("[hour]:[minute]:[second]"))
    }
    .map_err(invalid)?;
    let offset = match offset {
        "" | "Z" | "z" => UtcOffset::UTC,
        _ => UtcOffset::parse(
            offset,
            format_description!("[offset_hour sign:mandatory]:[offset_minute]"),
        )
        .map_err(invalid)?,
    };
    Ok(PrimitiveDateTime::new(date, clock).assume_offset(offset))
}

fn unix_ms(at: OffsetDateTime) -> i64 {
    // Whole milliseconds: the dates `time` parses (years 1..9999) fit i64 ms.
    (at - OffsetDateTime::UNIX_EPOCH).whole_milliseconds() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_780_000_000_000;
    /// 2027-01-01T00:00:00Z in Unix milliseconds.
    const NEW_YEAR_2027: i64 = 1_798_761_600_000;

    fn ms(text: &str) -> Option<i64> {
        parse(text, NOW).unwrap_or_else(|e| panic!("{text}: {e}")).0
    }

    #[test]
    fn a_date_is_valid_through_that_day_utc() {
        assert_eq!(ms("2026-12-31"), Some(NEW_YEAR_2027));
        assert_eq!(ms("2024-02-29"), Some(1_709_251_200_000)); // 2024-03-01Z
    }

    #[test]
    fn a_date_and_time_is_utc_unless_it_has_an_offset() {
        let six_pm = NEW_YEAR_2027 - 6 * 3_600_000;
        for text in [
            "2026-12-31T18:00",
            "2026-12-31 18:00",
            "2026-12-31t18:00:00",
            "2026-12-31 18:00:00",
            "2026-12-31T18:00:00Z",
            "2026-12-31T18:00Z",
            "2026-12-31T18:00:00.000Z",
        ] {
            assert_eq!(ms(text), Some(six_pm), "{text}");
        }
        // 18:00 at +02:00 is 16:00 UTC; at -05:30, 23:30 UTC.
        assert_eq!(ms("2026-12-31T18:00+02:00"), Some(six_pm - 2 * 3_600_000));
        assert_eq!(
            ms("2026-12-31 18:00:00+02:00"),
            Some(six_pm - 2 * 3_600_000)
        );
        assert_eq!(ms("2026-12-31T18:00:00-05:30"), Some(six_pm + 19_800_000));
    }

    #[test]
    fn relative_times_count_from_now() {
        for (text, delta) in [
            ("30d", 30 * 86_400_000),
            ("+30d", 30 * 86_400_000),
            ("12h", 12 * 3_600_000),
            ("+90m", 90 * 60_000),
            ("60s", 60_000),
            ("2w", 14 * 86_400_000),
        ] {
            assert_eq!(ms(text), Some(NOW + delta), "{text}");
        }
    }

    #[test]
    fn never_none_and_unix_milliseconds() {
        assert_eq!(ms("never"), None);
        assert_eq!(ms("None"), None);
        assert_eq!(ms("1000"), Some(1000));
    }

    #[test]
    fn anything_else_is_refused_naming_the_accepted_forms() {
        for text in [
            "tomorrow",
            "",
            "+5",
            "2026-12",
            "31/12/2026",
            "2026-12-31X18:00",
        ] {
            let err = parse(text, NOW).unwrap_err();
            assert!(
                matches!(err, ExpiryError::Unrecognised(_)),
                "{text}: {err:?}"
            );
            assert!(err.to_string().contains("2026-12-31T18:00"), "{err}");
        }
        for text in [
            "2026-02-30",
            "2026-12-31T25:00",
            "2026-12-31T18:00+26:00",
            "5x",
        ] {
            let err = parse(text, NOW).unwrap_err();
            assert!(
                matches!(err, ExpiryError::Invalid { .. }),
                "{text}: {err:?}"
            );
            assert_eq!(err.to_string().lines().count(), 1, "{err}");
        }
        for text in ["99999999999999999999", "9999999999999999d", "9999-12-31"] {
            assert!(
                matches!(parse(text, NOW), Err(ExpiryError::OutOfRange(_))),
                "{text}"
            );
        }
    }
}
