//! Text content: `[B]..[/B]` (bold), `[L]..[/L]` (1.5x size) and line breaks.
//! Everything else is literal text. Also the shapes text takes once it is
//! fitted to a box (`crate::layout::text`): lines of formatted segments.

use crate::model::TextAlign;
use crate::style::ResolvedText;

/// A piece of text content with its inline formatting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Run {
    Text {
        text: String,
        bold: bool,
        large: bool,
    },
    LineBreak,
}

/// Splits content into runs. Tags must nest properly and be closed, so a
/// forgotten `[/B]` is an error rather than half a label printed bold.
pub fn parse_rich_text(content: &str) -> Result<Vec<Run>, String> {
    // Most content has no tags and no line breaks: one run, no scanning.
    if !content.contains(['[', '\n', '\r']) {
        return Ok(if content.is_empty() {
            Vec::new()
        } else {
            vec![Run::Text {
                text: content.to_string(),
                bold: false,
                large: false,
            }]
        });
    }
    let mut runs = Vec::new();
    let mut open: Vec<char> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, open: &[char], runs: &mut Vec<Run>| {
        if !current.is_empty() {
            runs.push(Run::Text {
                text: std::mem::take(current),
                bold: open.contains(&'B'),
                large: open.contains(&'L'),
            });
        }
    };
    let mut rest = content;
    while let Some(c) = rest.chars().next() {
        let tag = ["[B]", "[L]", "[/B]", "[/L]"]
            .into_iter()
            .find(|t| rest.starts_with(t));
        if let Some(tag) = tag {
            flush(&mut current, &open, &mut runs);
            let name = tag.chars().nth(tag.len() - 2).unwrap_or('B');
            if tag.starts_with("[/") {
                match open.last() {
                    Some(&top) if top == name => {
                        open.pop();
                    }
                    Some(&top) => {
                        return Err(format!("`{tag}` closes before `[/{top}]`; tags must nest"))
                    }
                    None => return Err(format!("`{tag}` has no opening `[{name}]`")),
                }
            } else if open.contains(&name) {
                return Err(format!("`{tag}` is already open"));
            } else {
                open.push(name);
            }
            rest = &rest[tag.len()..];
            continue;
        }
        if c == '\n' || c == '\r' {
            flush(&mut current, &open, &mut runs);
            runs.push(Run::LineBreak);
            let skip = if rest.starts_with("\r\n") { 2 } else { 1 };
            rest = &rest[skip..];
            continue;
        }
        current.push(c);
        rest = &rest[c.len_utf8()..];
    }
    flush(&mut current, &open, &mut runs);
    if let Some(tag) = open.last() {
        return Err(format!("`[{tag}]` is not closed with `[/{tag}]`"));
    }
    Ok(runs)
}

/// A piece of a line with one formatting.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub text: String,
    pub bold: bool,
    pub large: bool,
}

/// One line of text as it will be printed.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub segments: Vec<Segment>,
    /// Measured width in mm.
    pub width: f64,
    /// Whether a `[L]` (1.5x) run is on this line, which makes the line taller.
    pub large: bool,
    /// The line ends where the text wrapped, not at a line break of the
    /// content (justified text stretches only such lines).
    pub wrapped: bool,
}

/// Lines of text fitted to a box.
#[derive(Debug, Clone, PartialEq)]
pub struct FittedText {
    /// Font size in pt, after shrink-to-fit.
    pub size: f64,
    pub lines: Vec<Line>,
    /// Height of each line in mm (a line holding `[L]` text is 1.5 times taller).
    pub line_heights: Vec<f64>,
    /// Whether the paragraph runs right to left: its first strong character
    /// is Arabic, Hebrew or another right-to-left script (Unicode's bidi
    /// rule P2, as Typst would with `dir: rtl`).
    pub rtl: bool,
    /// Whether the lines, at their final size (after shrinking), did not fit
    /// the box: an ellipsis then cut them (`lines` are what is left), and
    /// `clip` or `visible` print them past the box. Only read by the
    /// validation warnings (`crate::warnings`).
    pub overflowed: bool,
}

impl FittedText {
    /// The alignment the text prints with: the style's, else the
    /// paragraph's start (right for right-to-left text).
    pub fn align(&self, style_align: Option<TextAlign>) -> TextAlign {
        style_align.unwrap_or(if self.rtl {
            TextAlign::Right
        } else {
            TextAlign::Left
        })
    }

    /// Height of all lines in mm.
    pub fn height(&self) -> f64 {
        self.line_heights.iter().sum()
    }

    /// Width of the widest line in mm.
    pub fn widest(&self) -> f64 {
        self.lines.iter().map(|l| l.width).fold(0.0, f64::max)
    }

    /// The box a text of this style occupies: its style's width and height
    /// when given, else the widest line and the lines' height.
    pub fn box_size(&self, style: &ResolvedText) -> (f64, f64) {
        (
            style.width.unwrap_or_else(|| self.widest()),
            style.height.unwrap_or_else(|| self.height()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str, bold: bool, large: bool) -> Run {
        Run::Text {
            text: t.into(),
            bold,
            large,
        }
    }

    #[test]
    fn tags_nest_and_lines_break() {
        let runs = parse_rich_text("a[B]b[L]c[/L][/B]\nd").unwrap();
        assert_eq!(
            runs,
            vec![
                text("a", false, false),
                text("b", true, false),
                text("c", true, true),
                Run::LineBreak,
                text("d", false, false)
            ]
        );
    }

    #[test]
    fn markup_characters_stay_literal() {
        let runs = parse_rich_text("#panic(\"x\") $x$ [b] [/X]").unwrap();
        assert_eq!(runs, vec![text("#panic(\"x\") $x$ [b] [/X]", false, false)]);
    }

    #[test]
    fn broken_tags_are_errors() {
        assert!(parse_rich_text("[B]x").unwrap_err().contains("not closed"));
        assert!(parse_rich_text("x[/B]").unwrap_err().contains("no opening"));
        assert!(parse_rich_text("[B][L]x[/B][/L]")
            .unwrap_err()
            .contains("nest"));
        assert!(parse_rich_text("[B][B]x[/B][/B]")
            .unwrap_err()
            .contains("already open"));
    }
}
