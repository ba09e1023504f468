//! Typst literals. Every value from a request reaches the generated source
//! through one of these functions, so user text is always data, never code.

use std::fmt::Write;

use crate::model::{FillRule, LineCap, LineJoin};
use crate::style::{ResolvedFill, ResolvedStroke, Rgb};

/// A Typst string literal. Escapes everything that could end the literal.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number without exponent, at most 4 decimals (0.1 µm in mm).
///
/// Integer arithmetic: `format!("{:.4}")` is exact-decimal formatting and cost
/// more than the rest of lowering together for barcode-heavy labels.
pub fn num(v: f64) -> String {
    let scaled = (v * 10_000.0).round();
    if !scaled.is_finite() || scaled.abs() >= 9e15 {
        return slow_num(v);
    }
    let scaled = scaled as i64;
    let (int, frac) = (
        scaled.unsigned_abs() / 10_000,
        scaled.unsigned_abs() % 10_000,
    );
    // Room for "mm" or "pt" after the longest number, so that [`mm`] and
    // [`pt`] append without reallocating.
    let mut out = String::with_capacity(24);
    if scaled < 0 {
        out.push('-');
    }
    out.push_str(itoa::Buffer::new().format(int));
    if frac != 0 {
        let digits = [frac / 1000, frac / 100 % 10, frac / 10 % 10, frac % 10];
        let len = 4 - digits.iter().rev().take_while(|&&d| d == 0).count();
        out.push('.');
        for &digit in &digits[..len] {
            out.push(char::from(b'0' + digit as u8));
        }
    }
    out
}

fn slow_num(v: f64) -> String {
    let mut s = format!("{v:.4}");
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    s
}

pub fn mm(v: f64) -> String {
    let mut out = num(v);
    out.push_str("mm");
    out
}

pub fn pt(v: f64) -> String {
    let mut out = num(v);
    out.push_str("pt");
    out
}

/// A colour with optional opacity (0..=1).
pub fn colour(c: Rgb, opacity: f64) -> String {
    if opacity >= 1.0 {
        format!("rgb({}, {}, {})", c.0, c.1, c.2)
    } else {
        let alpha = (opacity.clamp(0.0, 1.0) * 255.0).round() as u8;
        format!("rgb({}, {}, {}, {})", c.0, c.1, c.2, alpha)
    }
}

pub fn fill(f: Option<&ResolvedFill>) -> String {
    f.map_or_else(|| "none".into(), |f| colour(f.color, f.opacity))
}

pub fn fill_rule(f: Option<&ResolvedFill>) -> &'static str {
    match f.map(|f| f.rule) {
        Some(FillRule::EvenOdd) => "\"even-odd\"",
        _ => "\"non-zero\"",
    }
}

/// A line cap's name; Typst and SVG spell them the same.
pub fn cap_name(cap: LineCap) -> &'static str {
    match cap {
        LineCap::Butt => "butt",
        LineCap::Round => "round",
        LineCap::Square => "square",
    }
}

/// A line join's name; Typst and SVG spell them the same.
pub fn join_name(join: LineJoin) -> &'static str {
    match join {
        LineJoin::Miter => "miter",
        LineJoin::Round => "round",
        LineJoin::Bevel => "bevel",
    }
}

/// A Typst stroke dictionary; `none` for zero width.
pub fn stroke(s: &ResolvedStroke) -> String {
    if s.width <= 0.0 {
        return "none".into();
    }
    let mut out = format!(
        "(paint: {}, thickness: {}",
        colour(s.color, s.opacity),
        mm(s.width)
    );
    // Typst's own defaults (butt, miter, 4) cost parse and evaluation when spelled out.
    if s.cap != LineCap::Butt {
        let _ = write!(out, ", cap: \"{}\"", cap_name(s.cap));
    }
    if s.join != LineJoin::Miter {
        let _ = write!(out, ", join: \"{}\"", join_name(s.join));
    }
    if s.miter_limit != 4.0 {
        let _ = write!(out, ", miter-limit: {}", num(s.miter_limit));
    }
    if let Some((pattern, phase)) = &s.dash {
        let lengths: Vec<String> = pattern.iter().map(|v| mm(*v)).collect();
        let _ = write!(
            out,
            ", dash: (array: ({},), phase: {})",
            lengths.join(", "),
            mm(*phase)
        );
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cannot_escape_their_literal() {
        assert_eq!(string(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(string("x\ny\u{7}"), "\"x\\ny\\u{7}\"");
        assert_eq!(string("#panic(\"x\") $x$"), "\"#panic(\\\"x\\\") $x$\"");
    }

    #[test]
    fn numbers_never_use_exponents() {
        assert_eq!(num(1e-9), "0");
        assert_eq!(num(12.5), "12.5");
        assert_eq!(num(1e20), "100000000000000000000");
        assert_eq!(num(-3.0), "-3");
        assert_eq!(num(-0.25), "-0.25");
        assert_eq!(num(0.00004), "0");
        assert_eq!(num(2.00005), "2.0001");
        assert_eq!(num(10.0406), "10.0406");
    }
}
