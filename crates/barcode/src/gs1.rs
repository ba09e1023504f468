//! GS1 element strings: `(AI)value(AI)value...` checked against the GS1
//! Application Identifier table (GS1 General Specifications, section 3, and
//! the GS1 Barcode Syntax Dictionary): lengths, character sets, check digits
//! and dates. Encoders take the result as an element string with FNC1
//! separators written as GS (ASCII 29).

use super::linear::gs1_check_digit;
use super::BarcodeError;

/// Group separator, the FNC1 stand-in between elements.
pub const GS: char = '\u{1d}';

/// One parsed element: an AI and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub ai: String,
    pub value: String,
}

/// Parse and validate `(AI)value...`. A value runs to the next `(`; the GS1
/// character set 82 has no use for parentheses in practice, so they are not
/// escaped.
pub fn parse(input: &str) -> Result<Vec<Element>, BarcodeError> {
    let mut elements = Vec::new();
    let mut rest = input;
    if rest.is_empty() {
        return Err(err("the content is empty; expected (AI)value"));
    }
    while !rest.is_empty() {
        let Some(after_open) = rest.strip_prefix('(') else {
            return Err(err(
                "each element must start with an AI in parentheses, e.g. (01)",
            ));
        };
        let Some(close) = after_open.find(')') else {
            return Err(err("an AI's '(' has no closing ')'"));
        };
        let ai = &after_open[..close];
        if !(2..=4).contains(&ai.len()) || !ai.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err(&format!(
                "AI ({}) is not an AI: AIs are 2 to 4 digits",
                ai.chars().take(8).collect::<String>()
            )));
        }
        let after_ai = &after_open[close + 1..];
        let end = after_ai.find('(').unwrap_or(after_ai.len());
        let value = &after_ai[..end];
        rest = &after_ai[end..];
        let spec = lookup(ai).ok_or_else(|| {
            err(&format!(
                "AI ({ai}) is not a known GS1 Application Identifier"
            ))
        })?;
        check_value(ai, spec, value)?;
        elements.push(Element {
            ai: ai.to_string(),
            value: value.to_string(),
        });
    }
    Ok(elements)
}

/// The element string: AIs and values concatenated, with GS after every
/// element that is not of predefined length (GS1 GenSpecs 5.10.1, figure
/// 5.10.1-2: only these AI prefixes may run into the next AI), except the last.
pub fn element_string(elements: &[Element]) -> String {
    let mut out = String::new();
    for (i, e) in elements.iter().enumerate() {
        out.push_str(&e.ai);
        out.push_str(&e.value);
        if i + 1 < elements.len() && !predefined_length(&e.ai) {
            out.push(GS);
        }
    }
    out
}

fn predefined_length(ai: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "00", "01", "02", "03", "04", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20",
        "31", "32", "33", "34", "35", "36", "41",
    ];
    PREFIXES.iter().any(|p| ai.starts_with(p))
}

fn err(msg: &str) -> BarcodeError {
    BarcodeError::Gs1(msg.to_string())
}

/// Character sets of AI values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cset {
    /// Digits.
    N,
    /// GS1 AI encodable character set 82.
    X,
    /// Character set 39 (AI 8010).
    Y,
    /// Character set 64, file-safe base64 (AI 8030).
    Z,
}

/// Extra checks on a component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    None,
    /// Last digit is a GS1 modulo-10 check digit.
    Csum,
    /// YYMMDD; DD may be 00 (end of month).
    Date,
    /// YYMMDDHHMM.
    DateTime,
    /// YYYYMMDD.
    Date8,
}

#[derive(Debug, Clone, Copy)]
struct Comp {
    cset: Cset,
    fixed: bool,
    len: usize,
    check: Check,
}

/// A `'static` component list (const fn calls are not promoted to statics
/// inline).
macro_rules! spec {
    ($($e:expr),* $(,)?) => {{
        const S: &[Comp] = &[$($e),*];
        S
    }};
}

const fn c(cset: Cset, fixed: bool, len: usize, check: Check) -> Comp {
    Comp {
        cset,
        fixed,
        len,
        check,
    }
}

use Check::{Csum, Date, Date8, DateTime, None as Plain};
use Cset::{N, X, Y, Z};

const N6_DATE: &[Comp] = &[c(N, true, 6, Date)];
const N6: &[Comp] = &[c(N, true, 6, Plain)];
const N14_CSUM: &[Comp] = &[c(N, true, 14, Csum)];
const N13_CSUM: &[Comp] = &[c(N, true, 13, Csum)];
const N18_CSUM: &[Comp] = &[c(N, true, 18, Csum)];
const N3: &[Comp] = &[c(N, true, 3, Plain)];
const N15V: &[Comp] = &[c(N, false, 15, Plain)];
const N3_N15V: &[Comp] = &[c(N, true, 3, Plain), c(N, false, 15, Plain)];
const N3_N12V: &[Comp] = &[c(N, true, 3, Plain), c(N, false, 12, Plain)];
const N3_X27V: &[Comp] = &[c(N, true, 3, Plain), c(X, false, 27, Plain)];
const X2_X28V: &[Comp] = &[c(X, true, 2, Plain), c(X, false, 28, Plain)];

const fn xv(n: usize) -> &'static [Comp] {
    match n {
        2 => spec![c(X, false, 2, Plain)],
        3 => spec![c(X, false, 3, Plain)],
        10 => spec![c(X, false, 10, Plain)],
        12 => spec![c(X, false, 12, Plain)],
        20 => spec![c(X, false, 20, Plain)],
        25 => spec![c(X, false, 25, Plain)],
        28 => spec![c(X, false, 28, Plain)],
        30 => spec![c(X, false, 30, Plain)],
        34 => spec![c(X, false, 34, Plain)],
        35 => spec![c(X, false, 35, Plain)],
        40 => spec![c(X, false, 40, Plain)],
        50 => spec![c(X, false, 50, Plain)],
        70 => spec![c(X, false, 70, Plain)],
        _ => spec![c(X, false, 90, Plain)],
    }
}

const fn nf(n: usize) -> &'static [Comp] {
    match n {
        1 => spec![c(N, true, 1, Plain)],
        2 => spec![c(N, true, 2, Plain)],
        4 => spec![c(N, true, 4, Plain)],
        10 => spec![c(N, true, 10, Plain)],
        12 => spec![c(N, true, 12, Plain)],
        13 => spec![c(N, true, 13, Plain)],
        14 => spec![c(N, true, 14, Plain)],
        _ => spec![c(N, true, 20, Plain)],
    }
}

const fn nv(n: usize) -> &'static [Comp] {
    match n {
        4 => spec![c(N, false, 4, Plain)],
        6 => spec![c(N, false, 6, Plain)],
        8 => spec![c(N, false, 8, Plain)],
        10 => spec![c(N, false, 10, Plain)],
        _ => spec![c(N, false, 12, Plain)],
    }
}

/// The format of `ai`, or `None` if it is not in the table.
fn lookup(ai: &str) -> Option<&'static [Comp]> {
    let n: u32 = ai.parse().ok()?;
    let spec: &'static [Comp] = match (ai.len(), n) {
        (2, 0) => N18_CSUM,
        (2, 1..=3) => N14_CSUM,
        (2, 10) | (2, 21) | (2, 22) => xv(20),
        (2, 11..=13) | (2, 15..=17) => N6_DATE,
        (2, 20) => nf(2),
        (2, 30) | (2, 37) => nv(8),
        (2, 90) => xv(30),
        (2, 91..=99) => xv(90),
        (3, 235) => xv(28),
        (3, 240) | (3, 241) | (3, 250) | (3, 251) => xv(30),
        (3, 242) => nv(6),
        (3, 243) | (3, 254) => xv(20),
        (3, 253) => spec![c(N, true, 13, Csum), c(X, false, 17, Plain)],
        (3, 255) => spec![c(N, true, 13, Csum), c(N, false, 12, Plain)],
        (3, 400) | (3, 401) | (3, 403) => xv(30),
        (3, 402) => spec![c(N, true, 17, Csum)],
        (3, 410..=417) => N13_CSUM,
        (3, 420) => xv(20),
        (3, 421) => spec![c(N, true, 3, Plain), c(X, false, 9, Plain)],
        (3, 422) | (3, 424) | (3, 426) => N3,
        (3, 423) | (3, 425) => N3_N12V,
        (3, 427) => xv(3),
        (3, 710..=717) => xv(20),
        // Measures: 31nn-36nn, the last digit is the decimal point position.
        (4, 3100..=3699) => {
            let group = n / 10;
            let decimals = n % 10;
            let known = matches!(group, 310..=316 | 320..=329 | 330..=337 | 340..=349 | 350..=357 | 360..=369);
            if !known || decimals > 5 {
                return None;
            }
            N6
        }
        (4, 3900..=3909) | (4, 3920..=3929) => N15V,
        (4, 3910..=3919) | (4, 3930..=3939) => N3_N15V,
        (4, 3940..=3943) => nf(4),
        (4, 3950..=3955) => N6,
        (4, 4300) | (4, 4301) | (4, 4310) | (4, 4311) | (4, 4320) => xv(35),
        (4, 4302..=4306) | (4, 4312..=4316) => xv(70),
        (4, 4307) | (4, 4317) => spec![c(X, true, 2, Plain)],
        (4, 4308) | (4, 4319) => xv(30),
        (4, 4309) => nf(20),
        (4, 4318) => xv(20),
        (4, 4321..=4323) => nf(1),
        (4, 4324) | (4, 4325) => spec![c(N, true, 10, DateTime)],
        (4, 4326) => N6_DATE,
        (4, 4330..=4333) => spec![c(N, true, 6, Plain), c(X, false, 1, Plain)],
        (4, 7001) => nf(13),
        (4, 7002) => xv(30),
        (4, 7003) => spec![c(N, true, 10, DateTime)],
        (4, 7004) => nv(4),
        (4, 7005) => xv(12),
        (4, 7006) => N6_DATE,
        (4, 7007) => spec![c(N, true, 6, Date), c(N, false, 6, Plain)],
        (4, 7008) => xv(3),
        (4, 7009) => xv(10),
        (4, 7010) => xv(2),
        (4, 7011) => spec![c(N, true, 6, Date), c(N, false, 4, Plain)],
        (4, 7020..=7022) => xv(20),
        (4, 7023) => xv(30),
        (4, 7030..=7039) => N3_X27V,
        (4, 7040) => spec![c(N, true, 1, Plain), c(X, true, 3, Plain)],
        (4, 7230..=7239) => X2_X28V,
        (4, 7240) => xv(20),
        (4, 7241) => nf(2),
        (4, 7242) => xv(25),
        (4, 7250) => spec![c(N, true, 8, Date8)],
        (4, 7251) => spec![c(N, true, 12, Plain)],
        (4, 7252) => nf(1),
        (4, 7253) | (4, 7254) | (4, 7259) => xv(40),
        (4, 7255) => xv(10),
        (4, 7256) => xv(90),
        (4, 7257) => xv(70),
        (4, 7258) => spec![c(X, true, 3, Plain)],
        (4, 8001) => nf(14),
        (4, 8002) | (4, 8012) => xv(20),
        (4, 8003) => spec![
            c(N, true, 1, Plain),
            c(N, true, 13, Csum),
            c(X, false, 16, Plain)
        ],
        (4, 8004) => xv(30),
        (4, 8005) => N6,
        (4, 8006) | (4, 8026) => spec![c(N, true, 14, Csum), c(N, true, 4, Plain)],
        (4, 8007) => xv(34),
        (4, 8008) => spec![c(N, true, 8, Plain), c(N, false, 4, Plain)],
        (4, 8009) => xv(50),
        (4, 8010) => spec![c(Y, false, 30, Plain)],
        (4, 8011) => nv(12),
        (4, 8013) | (4, 8020) => xv(25),
        (4, 8017) | (4, 8018) => N18_CSUM,
        (4, 8019) => nv(10),
        (4, 8030) => spec![c(Z, false, 90, Plain)],
        (4, 8110) | (4, 8112) | (4, 8200) => xv(70),
        (4, 8111) => nf(4),
        _ => return None,
    };
    Some(spec)
}

/// "14 digits", "up to 20 characters of CSET 82", "13 digits followed by ...".
fn rule(spec: &[Comp]) -> String {
    let parts: Vec<String> = spec
        .iter()
        .map(|comp| {
            let what = match comp.cset {
                N => "digits",
                X => "characters of GS1 CSET 82",
                Y => "characters of GS1 CSET 39",
                Z => "characters of GS1 CSET 64",
            };
            let mut s = if comp.fixed {
                format!("{} {what}", comp.len)
            } else {
                format!("up to {} {what}", comp.len)
            };
            s.push_str(match comp.check {
                Csum => " with a valid check digit",
                Date => " forming a date YYMMDD",
                DateTime => " forming YYMMDDHHMM",
                Date8 => " forming a date YYYYMMDD",
                Plain => "",
            });
            s
        })
        .collect();
    if spec.len() == 1 && spec[0].fixed && spec[0].cset == N && spec[0].check == Plain {
        return parts[0].clone();
    }
    parts.join(" followed by ")
}

fn check_value(ai: &str, spec: &'static [Comp], value: &str) -> Result<(), BarcodeError> {
    let fail = || err(&format!("AI ({ai}) must be {}", rule(spec)));
    if value.is_empty() {
        return Err(err(&format!(
            "AI ({ai}) has no value; it must be {}",
            rule(spec)
        )));
    }
    let chars: Vec<char> = value.chars().collect();
    let mut pos = 0;
    for (i, comp) in spec.iter().enumerate() {
        let remaining = chars.len() - pos;
        let take = if comp.fixed {
            if remaining < comp.len {
                return Err(fail());
            }
            comp.len
        } else {
            // A variable component runs to the end of the value; only the
            // first component is mandatory.
            if remaining > comp.len || (i == 0 && remaining == 0) {
                return Err(fail());
            }
            remaining
        };
        let part = &chars[pos..pos + take];
        if let Some((j, bad)) = part
            .iter()
            .enumerate()
            .find(|(_, ch)| !in_cset(comp.cset, **ch))
        {
            return Err(err(&format!(
                "AI ({ai}) has invalid character {bad:?} at position {} of its value; it must be {}",
                pos + j + 1,
                rule(spec)
            )));
        }
        let text: String = part.iter().collect();
        match comp.check {
            Csum => {
                let expected = gs1_check_digit(&text[..take - 1]);
                if !text.ends_with(expected) {
                    return Err(err(&format!(
                        "AI ({ai}) has an invalid check digit: expected {expected}, found {}",
                        &text[take - 1..]
                    )));
                }
            }
            Date if !valid_yymmdd(&text) => {
                return Err(err(&format!(
                    "AI ({ai}) must be a valid date YYMMDD (DD may be 00), got {text}"
                )))
            }
            DateTime if !(valid_yymmdd(&text[..6]) && valid_hhmm(&text[6..])) => {
                return Err(err(&format!(
                    "AI ({ai}) must be a valid date and time YYMMDDHHMM, got {text}"
                )))
            }
            Date8 if !valid_yymmdd(&text[2..]) => {
                return Err(err(&format!(
                    "AI ({ai}) must be a valid date YYYYMMDD, got {text}"
                )))
            }
            _ => {}
        }
        pos += take;
    }
    if pos != chars.len() {
        return Err(fail());
    }
    Ok(())
}

fn in_cset(cset: Cset, ch: char) -> bool {
    match cset {
        N => ch.is_ascii_digit(),
        // CSET 82: ! " % & ' ( ) * + , - . / 0-9 : ; < = > ? A-Z _ a-z
        X => ch.is_ascii_alphanumeric() || "!\"%&'()*+,-./:;<=>?_".contains(ch),
        Y => ch.is_ascii_digit() || ch.is_ascii_uppercase() || "#-/".contains(ch),
        Z => ch.is_ascii_alphanumeric() || "-_=".contains(ch),
    }
}

fn valid_yymmdd(s: &str) -> bool {
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(|t| t.parse::<u32>().ok());
    let (Some(yy), Some(mm), Some(dd)) = (num(0..2), num(2..4), num(4..6)) else {
        return false;
    };
    let days = match mm {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        // GS1 resolves YY to within 50 years back / 49 ahead of today, so
        // every YY divisible by 4 is a leap year (2000 is one).
        2 if yy % 4 == 0 => 29,
        2 => 28,
        _ => return false,
    };
    dd <= days
}

fn valid_hhmm(s: &str) -> bool {
    let num = |r: std::ops::Range<usize>| s.get(r).and_then(|t| t.parse::<u32>().ok());
    matches!((num(0..2), num(2..4)), (Some(h), Some(m)) if h < 24 && m < 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(input: &str) -> String {
        parse(input).unwrap_err().to_string()
    }

    #[test]
    fn separators_follow_variable_length_elements_only() {
        let e = parse("(01)09501101530003(10)AB12(17)250100(21)S1").unwrap();
        assert_eq!(
            element_string(&e),
            "0109501101530003".to_owned() + "10AB12\u{1d}17250100" + "21S1"
        );
    }

    #[test]
    fn gtin_rules_are_named() {
        assert_eq!(
            msg("(01)123"),
            "Invalid GS1 format: AI (01) must be 14 digits with a valid check digit"
        );
        assert!(msg("(01)09501101530004")
            .starts_with("Invalid GS1 format: AI (01) has an invalid check digit"));
        assert!(msg("(17)251301").contains("AI (17) must be a valid date"));
        assert!(msg("(10)").contains("AI (10) has no value"));
        assert!(msg("(10)ABCDEFGHIJKLMNOPQRSTU").contains("AI (10) must be up to 20"));
        assert!(msg("(999)1").contains("AI (999) is not a known"));
        assert!(parse("(3103)000123(3922)12345").is_ok());
        assert!(msg("(3106)000123").contains("AI (3106)"));
    }
}
