//! 1-D symbologies backed by rxing's writers: validated here (character
//! set, length, check digit) so that rxing only ever sees input it accepts,
//! then encoded to bare bars (no quiet zone; the renderer adds margins).

use rxing::oned::{
    CodaBarWriter, Code128Writer, Code39Writer, Code93Writer, EAN13Writer, EAN8Writer, ITFWriter,
    OneDimensionalCodeWriter, UPCEWriter,
};

use super::gs1::{self, Element};
use super::guard::{guarded, rejected};
use super::{check_len, BarcodeError, Symbol, Symbology};

/// Code 39's own character set (no full-ASCII extension: readers disagree
/// on whether to apply it).
const CODE39_SET: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%";
const CODE93_NATIVE: &str = CODE39_SET;
const CODABAR_DATA: &str = "0123456789-$:/.+";
/// rxing's limit for Code 39/93/128 and ITF, in symbol characters.
const RXING_MAX: usize = 80;

pub(crate) fn encode(symbology: Symbology, content: &str) -> Result<Symbol, BarcodeError> {
    let name = symbology.name();
    let bars = match symbology {
        Symbology::Code128 => {
            only(name, content, "ASCII characters 0-127", |c| c.is_ascii())?;
            check_len(name, content, RXING_MAX, "characters")?;
            run(name, || Code128Writer.encode_oned(content))?
        }
        Symbology::Ean13 => {
            let digits = gtin_with_check(name, content, 12)?;
            run(name, || EAN13Writer.encode_oned(&digits))?
        }
        Symbology::Ean8 => {
            let digits = gtin_with_check(name, content, 7)?;
            run(name, || EAN8Writer.encode_oned(&digits))?
        }
        Symbology::Upca => {
            // A UPC-A symbol is the EAN-13 symbol with a leading 0.
            let digits = gtin_with_check(name, content, 11)?;
            run(name, || EAN13Writer.encode_oned(&format!("0{digits}")))?
        }
        Symbology::Upce => {
            let digits = upce_with_check(content)?;
            run(name, || UPCEWriter.encode_oned(&digits))?
        }
        Symbology::Code39 => {
            only(name, content, CODE39_SET_DESC, |c| CODE39_SET.contains(c))?;
            check_len(name, content, RXING_MAX, "characters")?;
            run(name, || Code39Writer.encode_oned(content))?
        }
        Symbology::Code93 => {
            only(name, content, "ASCII characters 0-127", |c| c.is_ascii())?;
            // Characters outside the native set take two symbol characters.
            let length: usize = content
                .chars()
                .map(|c| if CODE93_NATIVE.contains(c) { 1 } else { 2 })
                .sum();
            if length > RXING_MAX {
                return Err(BarcodeError::TooLong {
                    symbology: name,
                    length,
                    limit: RXING_MAX,
                    unit: "symbol characters",
                });
            }
            run(name, || Code93Writer.encode_oned(content))?
        }
        Symbology::Codabar => {
            let text = codabar_checked(content)?;
            run(name, || CodaBarWriter.encode_oned(&text))?
        }
        Symbology::Itf => {
            digits_only(name, content)?;
            check_len(name, content, RXING_MAX, "digits")?;
            if !content.len().is_multiple_of(2) {
                return Err(BarcodeError::InvalidLength {
                    symbology: name,
                    rule: "ITF needs an even number of digits",
                    length: content.len(),
                });
            }
            run(name, || ITFWriter.encode_oned(content))?
        }
        Symbology::Itf14 => {
            let digits = gtin_with_check(name, content, 13)?;
            run(name, || ITFWriter.encode_oned(&digits))?
        }
        other => unreachable!("{other} is not an rxing-backed 1-D symbology"),
    };
    Ok(Symbol::Linear { bars })
}

/// GS1-128: Code 128 starting with FNC1, FNC1 again as the separator after
/// each element that is not of predefined length.
pub(crate) fn encode_gs1_128(elements: &[Element]) -> Result<Symbol, BarcodeError> {
    const NAME: &str = "gs1_128";
    // rxing's Code 128 writer reads U+00F1 as FNC1.
    let data = gs1::element_string(elements);
    // GS1 General Specifications 5.4.1: at most 48 data characters.
    check_len(NAME, &data.replace(gs1::GS, ""), 48, "data characters")?;
    let text = format!("\u{f1}{}", data.replace(gs1::GS, "\u{f1}"));
    let bars = run(NAME, || Code128Writer.encode_oned(&text))?;
    Ok(Symbol::Linear { bars })
}

const CODE39_SET_DESC: &str = "0-9, A-Z and - . space $ / + %";

fn run(
    name: &'static str,
    f: impl FnOnce() -> Result<Vec<bool>, rxing::Exceptions>,
) -> Result<Vec<bool>, BarcodeError> {
    guarded(name, || f().map_err(|e| rejected(name, e)))
}

/// Every character must satisfy `ok`; the first that does not is named.
pub(crate) fn only(
    symbology: &'static str,
    content: &str,
    allowed: &'static str,
    ok: impl Fn(char) -> bool,
) -> Result<(), BarcodeError> {
    match content.chars().enumerate().find(|(_, c)| !ok(*c)) {
        Some((i, ch)) => Err(BarcodeError::InvalidCharacter {
            symbology,
            ch,
            position: i + 1,
            allowed,
        }),
        None => Ok(()),
    }
}

fn digits_only(symbology: &'static str, content: &str) -> Result<(), BarcodeError> {
    only(symbology, content, "digits 0-9", |c| c.is_ascii_digit())
}

/// GS1 modulo-10 check digit of `digits` (the check digit position excluded).
pub(crate) fn gs1_check_digit(digits: &str) -> char {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| u32::from(b - b'0') * if i % 2 == 0 { 3 } else { 1 })
        .sum();
    char::from(b'0' + ((10 - sum % 10) % 10) as u8)
}

/// `data_len` digits (check digit computed) or `data_len + 1` (verified).
fn gtin_with_check(
    symbology: &'static str,
    content: &str,
    data_len: usize,
) -> Result<String, BarcodeError> {
    digits_only(symbology, content)?;
    let rule = match data_len {
        7 => "8 digits, or 7 without the check digit",
        11 => "12 digits, or 11 without the check digit",
        12 => "13 digits, or 12 without the check digit",
        _ => "14 digits, or 13 without the check digit",
    };
    if content.len() == data_len {
        Ok(format!("{content}{}", gs1_check_digit(content)))
    } else if content.len() == data_len + 1 {
        let expected = gs1_check_digit(&content[..data_len]);
        let found = char::from(content.as_bytes()[data_len]);
        if expected != found {
            return Err(BarcodeError::CheckDigit {
                symbology,
                expected,
                found,
            });
        }
        Ok(content.to_string())
    } else {
        Err(BarcodeError::InvalidLength {
            symbology,
            rule,
            length: content.chars().count(),
        })
    }
}

/// UPC-E: number system 0 or 1, six digits, optional check digit (which is
/// the check digit of the equivalent UPC-A number).
fn upce_with_check(content: &str) -> Result<String, BarcodeError> {
    const NAME: &str = "upce";
    digits_only(NAME, content)?;
    if content.len() != 7 && content.len() != 8 {
        return Err(BarcodeError::InvalidLength {
            symbology: NAME,
            rule: "8 digits, or 7 without the check digit",
            length: content.chars().count(),
        });
    }
    if !content.starts_with(['0', '1']) {
        return Err(BarcodeError::InvalidContent {
            symbology: NAME,
            reason: "the number system (first digit) must be 0 or 1".into(),
        });
    }
    let expected = gs1_check_digit(&upce_to_upca(&content[..7]));
    match content.as_bytes().get(7) {
        None => Ok(format!("{content}{expected}")),
        Some(&found) if char::from(found) == expected => Ok(content.to_string()),
        Some(&found) => Err(BarcodeError::CheckDigit {
            symbology: NAME,
            expected,
            found: char::from(found),
        }),
    }
}

/// The 11 data digits of the UPC-A number a 7-digit UPC-E body stands for.
fn upce_to_upca(upce: &str) -> String {
    let d: Vec<char> = upce.chars().collect();
    let (ns, m) = (d[0], &d[1..7]);
    let body: String = match m[5] {
        '0' | '1' | '2' => [m[0], m[1], m[5], '0', '0', '0', '0', m[2], m[3], m[4]]
            .iter()
            .collect(),
        '3' => [m[0], m[1], m[2], '0', '0', '0', '0', '0', m[3], m[4]]
            .iter()
            .collect(),
        '4' => [m[0], m[1], m[2], m[3], '0', '0', '0', '0', '0', m[4]]
            .iter()
            .collect(),
        _ => [m[0], m[1], m[2], m[3], m[4], '0', '0', '0', '0', m[5]]
            .iter()
            .collect(),
    };
    format!("{ns}{body}")
}

/// Codabar: data characters, optionally framed by start/stop A-D (both or
/// neither; rxing adds A...A when absent).
fn codabar_checked(content: &str) -> Result<String, BarcodeError> {
    const NAME: &str = "codabar";
    const GUARDS: &str = "ABCDabcd";
    check_len(NAME, content, RXING_MAX, "characters")?;
    let chars: Vec<char> = content.chars().collect();
    let first = chars[0];
    let last = chars[chars.len() - 1];
    let framed = GUARDS.contains(first);
    let (start, end) = if framed {
        if chars.len() < 2 || !GUARDS.contains(last) {
            return Err(BarcodeError::InvalidContent {
                symbology: NAME,
                reason: "a start character A-D needs a stop character A-D at the end".into(),
            });
        }
        (1, chars.len() - 1)
    } else {
        (0, chars.len())
    };
    for (i, &ch) in chars.iter().enumerate().take(end).skip(start) {
        if !CODABAR_DATA.contains(ch) {
            return Err(BarcodeError::InvalidCharacter {
                symbology: NAME,
                ch,
                position: i + 1,
                allowed: "0-9 and - $ : / . + (A-D only as start and stop)",
            });
        }
    }
    if framed && end == start {
        return Err(BarcodeError::Empty);
    }
    Ok(content.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upce_expands_like_the_gs1_table() {
        assert_eq!(upce_to_upca("0123456"), "01234500006");
        assert_eq!(upce_to_upca("0654321"), "06510000432");
        assert_eq!(gs1_check_digit("01234500006"), '5');
    }

    #[test]
    fn ean13_check_digit() {
        assert_eq!(gs1_check_digit("400638133393"), '1');
    }
}
