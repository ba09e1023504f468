//! Text measurement and line breaking for table cells.
//!
//! Tables are paginated by labelpress, not by Typst, so row heights must be
//! known before Typst runs. Cell text is measured with the font's advance
//! widths and broken into lines here; the lowering then emits exactly these
//! lines, one placed line each, so Typst never re-wraps and the heights used
//! for pagination are the heights printed. Kerning is ignored: it narrows
//! text slightly, so a line measured to fit always fits.

use crate::rich_text::{Line, Run, Segment};

/// 1 pt in mm.
pub const PT_MM: f64 = 25.4 / 72.0;

/// What measuring needs to know about the fonts the engine has (the engine
/// implements it; tests use fonts of fixed advances).
pub trait FontCatalog {
    /// Whether a family with this name (case-insensitive) is available.
    fn has_family(&self, family: &str) -> bool;
    /// Metrics of the face Typst picks for this family and weight.
    fn face(&self, family: &str, weight: u16) -> std::sync::Arc<FaceMetrics>;
    /// The family's ascender in em, which puts the first baseline below a text box's top.
    fn ascender(&self, family: &str, weight: u16) -> f64 {
        self.face(family, weight).ascender
    }
}

/// A catalogue in which every character is 0.5 em wide, in every family and
/// weight (ascender 0.8 em): layout tests measure against it, not a real font.
#[cfg(test)]
pub(crate) struct HalfEm;

#[cfg(test)]
impl FontCatalog for HalfEm {
    fn has_family(&self, _: &str) -> bool {
        true
    }
    fn face(&self, _: &str, _: u16) -> std::sync::Arc<FaceMetrics> {
        std::sync::Arc::new(FaceMetrics::new(0.8, |_| 0.5))
    }
}

/// Advance widths and the ascender of one font face (one family and weight).
pub struct FaceMetrics {
    /// Ascender in em (the distance from a line box's top to its baseline).
    pub ascender: f64,
    /// Advances of ASCII characters in em, looked up without the font.
    ascii: [f32; 128],
    /// Advance of any other character in em.
    other: Box<dyn Fn(char) -> f32 + Send + Sync>,
}

impl FaceMetrics {
    pub fn new(
        ascender: f64,
        advance: impl Fn(char) -> f32 + Send + Sync + 'static,
    ) -> FaceMetrics {
        let mut ascii = [0.0; 128];
        for (i, slot) in ascii.iter_mut().enumerate() {
            *slot = advance(i as u8 as char);
        }
        FaceMetrics {
            ascender,
            ascii,
            other: Box::new(advance),
        }
    }

    /// Width of `text` in em.
    pub fn width(&self, text: &str) -> f64 {
        let mut sum = 0.0f32;
        for c in text.chars() {
            sum += match self.ascii.get(c as usize) {
                Some(&w) => w,
                None => (self.other)(c),
            };
        }
        sum as f64
    }
}

impl Line {
    fn empty() -> Line {
        Line {
            segments: Vec::new(),
            width: 0.0,
            large: false,
            wrapped: false,
        }
    }

    /// Starts a new line after the last one, which wrapped.
    fn wrap(lines: &mut Vec<Line>) {
        if let Some(last) = lines.last_mut() {
            last.wrapped = true;
        }
        lines.push(Line::empty());
    }

    fn push(&mut self, text: &str, bold: bool, large: bool, width: f64) {
        self.width += width;
        self.large |= large;
        match self.segments.last_mut() {
            Some(last) if last.bold == bold && last.large == large => last.text.push_str(text),
            _ => self.segments.push(Segment {
                text: text.to_string(),
                bold,
                large,
            }),
        }
    }

    /// The line's text without formatting.
    pub fn plain(&self) -> String {
        self.segments.iter().map(|s| s.text.as_str()).collect()
    }
}

/// Measures a run's text in mm: `(text, bold, large) -> width`.
pub type Measure<'a> = &'a dyn Fn(&str, bool, bool) -> f64;

/// Breaks runs into lines no wider than `max_width` (mm), at spaces, and
/// inside a word only when the word alone is wider than the line. Explicit
/// line breaks always break. `None` breaks only at explicit line breaks.
pub fn break_lines(runs: &[Run], max_width: Option<f64>, measure: Measure) -> Vec<Line> {
    // One run that fits (most cells): one line, no word scanning.
    if let [Run::Text { text, bold, large }] = runs {
        let width = measure(text, *bold, *large);
        if max_width.is_none_or(|max| width <= max + 1e-9) {
            let mut line = Line::empty();
            line.push(text, *bold, *large, width);
            return vec![line];
        }
    }
    let mut lines = vec![Line::empty()];
    // Spaces measured but not yet placed: they vanish at a line end.
    let mut pending: Vec<(String, bool, bool, f64)> = Vec::new();
    for run in runs {
        let (text, bold, large) = match run {
            Run::LineBreak => {
                pending.clear();
                lines.push(Line::empty());
                continue;
            }
            Run::Text { text, bold, large } => (text.as_str(), *bold, *large),
        };
        let Some(max) = max_width else {
            let line = lines.last_mut().expect("at least one line");
            line.push(text, bold, large, measure(text, bold, large));
            continue;
        };
        for token in tokens(text) {
            let width = measure(token, bold, large);
            if token.starts_with(' ') {
                pending.push((token.to_string(), bold, large, width));
                continue;
            }
            let line = lines.last_mut().expect("at least one line");
            let spaces: f64 = pending.iter().map(|p| p.3).sum();
            if line.segments.is_empty() || line.width + spaces + width <= max + 1e-9 {
                if !line.segments.is_empty() {
                    for (s, b, l, w) in pending.drain(..) {
                        line.push(&s, b, l, w);
                    }
                }
                pending.clear();
                if line.segments.is_empty() && width > max {
                    split_word(&mut lines, token, bold, large, max, measure);
                } else {
                    line.push(token, bold, large, width);
                }
                continue;
            }
            pending.clear();
            Line::wrap(&mut lines);
            if width > max {
                split_word(&mut lines, token, bold, large, max, measure);
            } else {
                let line = lines.last_mut().expect("at least one line");
                line.push(token, bold, large, width);
            }
        }
    }
    lines
}

/// Places a word wider than a line, character by character, starting on the
/// (empty) last line.
fn split_word(
    lines: &mut Vec<Line>,
    word: &str,
    bold: bool,
    large: bool,
    max: f64,
    measure: Measure,
) {
    let mut buf = [0u8; 4];
    for c in word.chars() {
        let s: &str = c.encode_utf8(&mut buf);
        let w = measure(s, bold, large);
        let line = lines.last_mut().expect("at least one line");
        if !line.segments.is_empty() && line.width + w > max + 1e-9 {
            Line::wrap(lines);
        }
        let line = lines.last_mut().expect("at least one line");
        line.push(s, bold, large, w);
    }
}

/// Splits text into words and runs of spaces, in order.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let space = first == ' ';
        let end = rest
            .char_indices()
            .find(|&(_, c)| (c == ' ') != space)
            .map_or(rest.len(), |(i, _)| i);
        let (token, tail) = rest.split_at(end);
        rest = tail;
        Some(token)
    })
}

/// `line` when it fits `max` mm, else [`truncate_with_ellipsis`].
pub fn ellipsize(line: &Line, max: f64, measure: Measure) -> Line {
    if line.width <= max + 1e-9 {
        return line.clone();
    }
    truncate_with_ellipsis(line, max, measure)
}

/// The longest prefix of `line` (in characters) that fits `max` mm with an
/// ellipsis after it, as a new line ending in `…`.
pub fn truncate_with_ellipsis(line: &Line, max: f64, measure: Measure) -> Line {
    let ellipsis = |bold, large| measure("…", bold, large);
    let mut out = Line {
        wrapped: line.wrapped,
        ..Line::empty()
    };
    let mut buf = [0u8; 4];
    let (mut bold, mut large) = (false, false);
    for seg in &line.segments {
        (bold, large) = (seg.bold, seg.large);
        for c in seg.text.chars() {
            let s: &str = c.encode_utf8(&mut buf);
            let w = measure(s, seg.bold, seg.large);
            if out.width + w + ellipsis(seg.bold, seg.large) > max + 1e-9 {
                out.push("…", seg.bold, seg.large, ellipsis(seg.bold, seg.large));
                return out;
            }
            out.push(s, seg.bold, seg.large, w);
        }
    }
    out.push("…", bold, large, ellipsis(bold, large));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character 1 mm wide.
    fn unit(text: &str, _: bool, _: bool) -> f64 {
        text.chars().count() as f64
    }

    fn plain(text: &str) -> Vec<Run> {
        vec![Run::Text {
            text: text.into(),
            bold: false,
            large: false,
        }]
    }

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(Line::plain).collect()
    }

    #[test]
    fn words_wrap_at_spaces_and_trailing_spaces_vanish() {
        let lines = break_lines(&plain("aaa bbb ccc"), Some(7.0), &unit);
        assert_eq!(texts(&lines), ["aaa bbb", "ccc"]);
        assert_eq!(lines[0].width, 7.0);
    }

    #[test]
    fn long_words_break_inside() {
        let lines = break_lines(&plain("abcdefgh ij"), Some(3.0), &unit);
        assert_eq!(texts(&lines), ["abc", "def", "gh", "ij"]);
    }

    #[test]
    fn explicit_breaks_always_break() {
        let runs = vec![
            Run::Text {
                text: "a".into(),
                bold: false,
                large: false,
            },
            Run::LineBreak,
            Run::Text {
                text: "b c".into(),
                bold: true,
                large: true,
            },
        ];
        let lines = break_lines(&runs, None, &unit);
        assert_eq!(texts(&lines), ["a", "b c"]);
        assert!(lines[1].large && !lines[0].large);
    }

    #[test]
    fn ellipsis_keeps_what_fits() {
        let line = &break_lines(&plain("abcdefgh"), None, &unit)[0];
        assert_eq!(ellipsize(line, 4.0, &unit).plain(), "abc…");
        assert_eq!(ellipsize(line, 9.0, &unit).plain(), "abcdefgh");
    }
}
