//! Text measurement and line breaking.
//!
//! Boxes and tables are sized and paginated by labelpress, not by Typst, so
//! line widths and breaks must be known before Typst runs. Text is measured
//! with the advance widths of the face each character is set in
//! ([`super::fallback`]) and broken into lines here; the lowering then emits
//! exactly these lines, so Typst never re-wraps and the heights used for
//! layout are the heights printed. The sum of advances is never narrower
//! than what the shaper draws: kerning narrows Latin, and complex scripts'
//! contextual forms (Arabic joining, Indic conjuncts) are narrower than the
//! isolated forms measured, so a line measured to fit always fits.

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
    /// The fallback families that are available, in the order they are
    /// tried after a text's own family (runtime-config `fonts.fallback`).
    fn fallback(&self) -> &[String];
    /// Every available family, sorted (for "did you mean").
    fn families(&self) -> Vec<String>;
    /// The family's ascender in em, which puts the first baseline below a text box's top.
    fn ascender(&self, family: &str, weight: u16) -> f64 {
        self.face(family, weight).ascender
    }
}

/// A catalogue in which every character is 0.5 em wide, in every family and
/// weight (ascender 0.8 em), except the private-use characters, which no
/// family has: layout tests measure against it, not a real font.
#[cfg(test)]
pub(crate) struct HalfEm;

#[cfg(test)]
impl FontCatalog for HalfEm {
    fn has_family(&self, _: &str) -> bool {
        true
    }
    fn face(&self, _: &str, _: u16) -> std::sync::Arc<FaceMetrics> {
        std::sync::Arc::new(FaceMetrics::new(0.8, |c| {
            (!('\u{E000}'..='\u{F8FF}').contains(&c)).then_some(0.5)
        }))
    }
    fn fallback(&self) -> &[String] {
        &[]
    }
    fn families(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Advance widths and the ascender of one font face (one family and weight).
pub struct FaceMetrics {
    /// Ascender in em (the distance from a line box's top to its baseline).
    pub ascender: f64,
    /// Advances of ASCII characters in em, looked up without the font (NaN:
    /// the face has no glyph for it).
    ascii: [f32; 128],
    /// Advance of any other character in em; `None` when the face has no
    /// glyph for it.
    other: Box<dyn Fn(char) -> Option<f32> + Send + Sync>,
}

impl FaceMetrics {
    pub fn new(
        ascender: f64,
        advance: impl Fn(char) -> Option<f32> + Send + Sync + 'static,
    ) -> FaceMetrics {
        let mut ascii = [0.0; 128];
        for (i, slot) in ascii.iter_mut().enumerate() {
            *slot = advance(i as u8 as char).unwrap_or(f32::NAN);
        }
        FaceMetrics {
            ascender,
            ascii,
            other: Box::new(advance),
        }
    }

    /// Advance of `c` in em, `None` when the face has no glyph for it.
    pub fn advance(&self, c: char) -> Option<f32> {
        match self.ascii.get(c as usize) {
            Some(w) if w.is_nan() => None,
            Some(&w) => Some(w),
            None => (self.other)(c),
        }
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

/// Breaks runs into lines no wider than `max_width` (mm), at the line break
/// opportunities Typst breaks at (Unicode's line breaking algorithm through
/// the same ICU segmenter: after spaces and hyphens, between CJK
/// characters, between Thai words), and inside a word only when the word
/// alone is wider than the line, between grapheme clusters. Spaces at the
/// end of a wrapped line vanish. Explicit line breaks always break. `None`
/// breaks only at explicit line breaks.
pub fn break_lines(runs: &[Run], max_width: Option<f64>, measure: Measure) -> Vec<Line> {
    // One run that fits (most cells): one line, no segmentation.
    if let [Run::Text { text, bold, large }] = runs {
        let width = measure(text, *bold, *large);
        if max_width.is_none_or(|max| width <= max + 1e-9) {
            // Exactly one segment: `push` would reserve room for four,
            // once per cell of a long table.
            let segment = Segment {
                text: text.clone(),
                bold: *bold,
                large: *large,
            };
            return vec![Line {
                segments: vec![segment],
                width,
                large: *large,
                wrapped: false,
            }];
        }
    }
    let mut lines = vec![Line::empty()];
    for (i, paragraph) in runs.split(|r| matches!(r, Run::LineBreak)).enumerate() {
        if i > 0 {
            lines.push(Line::empty());
        }
        let styled = Styled::new(paragraph);
        match max_width {
            None => {
                for (text, bold, large) in styled.pieces(0..styled.text.len()) {
                    let line = lines.last_mut().expect("at least one line");
                    line.push(text, bold, large, measure(text, bold, large));
                }
            }
            Some(max) => wrap_paragraph(&mut lines, &styled, max, measure),
        }
    }
    for line in &mut lines {
        line.segments.shrink_to_fit();
    }
    lines
}

/// The line break segmenter Typst uses for text in any language but
/// Chinese and Japanese (whose own differs only for curly quotes).
static SEGMENTER: std::sync::LazyLock<icu_segmenter::LineSegmenterBorrowed<'static>> =
    std::sync::LazyLock::new(|| {
        icu_segmenter::LineSegmenter::new_lstm(icu_segmenter::options::LineBreakOptions::default())
    });

/// One paragraph's text with the style of each byte range.
struct Styled {
    text: String,
    /// (start byte, bold, large) of each run, in order.
    starts: Vec<(usize, bool, bool)>,
}

impl Styled {
    fn new(runs: &[Run]) -> Styled {
        let mut text = String::new();
        let mut starts = Vec::new();
        for run in runs {
            if let Run::Text {
                text: t,
                bold,
                large,
            } = run
            {
                starts.push((text.len(), *bold, *large));
                text.push_str(t);
            }
        }
        Styled { text, starts }
    }

    /// The styled pieces of `range`, in order.
    fn pieces(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = (&str, bool, bool)> {
        self.starts
            .iter()
            .enumerate()
            .filter_map(move |(i, &(start, bold, large))| {
                let end = self.starts.get(i + 1).map_or(self.text.len(), |s| s.0);
                let (from, to) = (start.max(range.start), end.min(range.end));
                (from < to).then(|| (&self.text[from..to], bold, large))
            })
    }
}

/// Wraps one paragraph (no explicit breaks) onto `lines`, the last of
/// which it continues.
fn wrap_paragraph(lines: &mut Vec<Line>, styled: &Styled, max: f64, measure: Measure) {
    let text = styled.text.as_str();
    // Spaces measured but not yet placed: they vanish at a line end.
    let mut pending: Vec<(&str, bool, bool, f64)> = Vec::new();
    let mut previous = 0;
    for point in SEGMENTER.segment_str(text).filter(|&p| p > 0) {
        let content_end = previous + text[previous..point].trim_end_matches(' ').len();
        let content: Vec<(&str, bool, bool, f64)> = styled
            .pieces(previous..content_end)
            .map(|(t, b, l)| (t, b, l, measure(t, b, l)))
            .collect();
        previous = point;
        let spaces_after = styled
            .pieces(content_end..point)
            .map(|(t, b, l)| (t, b, l, measure(t, b, l)));
        if content.is_empty() {
            pending.extend(spaces_after);
            continue;
        }
        let width: f64 = content.iter().map(|p| p.3).sum();
        let line = lines.last_mut().expect("at least one line");
        let spaces: f64 = pending.iter().map(|p| p.3).sum();
        if line.segments.is_empty() || line.width + spaces + width <= max + 1e-9 {
            if !line.segments.is_empty() {
                for (t, b, l, w) in pending.drain(..) {
                    line.push(t, b, l, w);
                }
            }
        } else {
            Line::wrap(lines);
        }
        pending.clear();
        let line = lines.last_mut().expect("at least one line");
        if line.segments.is_empty() && width > max {
            split_word(lines, &content, max, measure);
        } else {
            for (t, b, l, w) in content {
                line.push(t, b, l, w);
            }
        }
        pending.extend(spaces_after);
    }
}

/// Grapheme cluster boundaries: a word wider than a line is split only
/// between clusters (never between a letter and its marks).
static GRAPHEMES: std::sync::LazyLock<icu_segmenter::GraphemeClusterSegmenterBorrowed<'static>> =
    std::sync::LazyLock::new(icu_segmenter::GraphemeClusterSegmenter::new);

/// Places a word wider than a line, cluster by cluster, starting on the
/// (empty) last line.
fn split_word(lines: &mut Vec<Line>, word: &[(&str, bool, bool, f64)], max: f64, measure: Measure) {
    for &(text, bold, large, _) in word {
        let mut previous = 0;
        for point in GRAPHEMES.segment_str(text).filter(|&p| p > 0) {
            let cluster = &text[previous..point];
            previous = point;
            let w = measure(cluster, bold, large);
            let line = lines.last_mut().expect("at least one line");
            if !line.segments.is_empty() && line.width + w > max + 1e-9 {
                Line::wrap(lines);
            }
            let line = lines.last_mut().expect("at least one line");
            line.push(cluster, bold, large, w);
        }
    }
}

/// `line` when it fits `max` mm, else [`truncate_with_ellipsis`].
pub fn ellipsize(line: &Line, max: f64, measure: Measure) -> Line {
    if line.width <= max + 1e-9 {
        return line.clone();
    }
    truncate_with_ellipsis(line, max, measure)
}

/// The longest prefix of `line` (in grapheme clusters) that fits `max` mm with an
/// ellipsis after it, as a new line ending in `…`.
pub fn truncate_with_ellipsis(line: &Line, max: f64, measure: Measure) -> Line {
    let ellipsis = |bold, large| measure("…", bold, large);
    let mut out = Line {
        wrapped: line.wrapped,
        ..Line::empty()
    };
    let (mut bold, mut large) = (false, false);
    for seg in &line.segments {
        (bold, large) = (seg.bold, seg.large);
        let mut previous = 0;
        for point in GRAPHEMES.segment_str(&seg.text).filter(|&p| p > 0) {
            let s = &seg.text[previous..point];
            previous = point;
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
    fn cjk_breaks_between_characters_and_hyphens_break_after() {
        let lines = break_lines(&plain("東京都千代田区"), Some(3.0), &unit);
        assert_eq!(texts(&lines), ["東京都", "千代田", "区"]);
        let lines = break_lines(&plain("north-east"), Some(7.0), &unit);
        assert_eq!(texts(&lines), ["north-", "east"]);
    }

    #[test]
    fn a_word_is_split_between_grapheme_clusters_never_inside_one() {
        // "e" + combining acute is one cluster two characters long.
        let lines = break_lines(&plain("ae\u{301}e\u{301}e\u{301}"), Some(2.0), &unit);
        for line in texts(&lines) {
            assert!(!line.starts_with('\u{301}'), "{line:?}");
        }
        assert_eq!(texts(&lines).concat(), "ae\u{301}e\u{301}e\u{301}");
    }

    #[test]
    fn styled_runs_without_a_space_between_them_are_one_word() {
        let runs = vec![
            Run::Text {
                text: "ab".into(),
                bold: false,
                large: false,
            },
            Run::Text {
                text: "cd ef".into(),
                bold: true,
                large: false,
            },
        ];
        let lines = break_lines(&runs, Some(4.0), &unit);
        assert_eq!(texts(&lines), ["abcd", "ef"]);
        assert_eq!(lines[0].segments.len(), 2);
    }

    #[test]
    fn ellipsis_keeps_what_fits() {
        let line = &break_lines(&plain("abcdefgh"), None, &unit)[0];
        assert_eq!(ellipsize(line, 4.0, &unit).plain(), "abc…");
        assert_eq!(ellipsize(line, 9.0, &unit).plain(), "abcdefgh");
    }
}
