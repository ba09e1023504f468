//! One text box, fitted: the lines that a text element, a table cell or a
//! barcode's human-readable text prints, at the size it prints them.
//!
//! This is the only shrink-to-fit and ellipsis algorithm. Validation measures
//! a text element's box with it (the content-box rule, stack blocks), table
//! layout sizes rows with it, and the lowering writes exactly the lines it
//! returns, each ended by an explicit break, so Typst never re-wraps and the
//! box checked is the box printed.
//!
//! The rules, for a box of `width` (wraps; `None`: only explicit breaks) and
//! `height` (`None`: grows with its lines):
//! - Lines wrap at spaces, inside a word only when the word alone is wider
//!   than the box (see [`break_lines`]).
//! - Shrink-to-fit or ellipsis without a height keep the text on its own
//!   lines: shrinking scales the size until the widest line fits the width
//!   (never below `min_font_size`); ellipsis cuts each line that is still
//!   wider than the box and ends it with `…`.
//! - With a height, the text wraps: shrinking takes the largest size (to
//!   0.01 pt, not below `min_font_size`) whose wrapped lines fit the height;
//!   ellipsis keeps the lines that fit the height (at least one) and ends the
//!   last one kept with `…` when any was dropped.

use std::rc::Rc;

use super::fallback::FontStack;
use super::measure::{break_lines, ellipsize, truncate_with_ellipsis, FontCatalog, PT_MM};
use crate::model::TextOverflow;
use crate::rich_text::FittedText;
use crate::rich_text::Run;
use crate::style::ResolvedText;

/// Fits `runs` in style `style` into a box `width` x `height` (mm).
pub fn fit_text(
    runs: &[Run],
    style: &ResolvedText,
    width: Option<f64>,
    height: Option<f64>,
    measurer: &Measurer,
) -> FittedText {
    const EPS: f64 = 1e-9;
    let keep_lines =
        height.is_none() && (style.shrink_to_fit || style.overflow == TextOverflow::Ellipsis);
    let wrap = if keep_lines { None } else { width };
    let rtl = is_rtl(runs);
    let lay = |size: f64| {
        let measure = measurer.for_style(style, size);
        let lines = break_lines(runs, wrap, &measure);
        let line_heights = lines
            .iter()
            .map(|l| style.line_height * size * if l.large { 1.5 } else { 1.0 } * PT_MM)
            .collect();
        FittedText {
            size,
            lines,
            line_heights,
            rtl,
            overflowed: false,
        }
    };
    let fits = |f: &FittedText| {
        width.is_none_or(|w| f.widest() <= w + EPS) && height.is_none_or(|h| f.height() <= h + EPS)
    };
    let mut fitted = lay(style.size);
    if style.shrink_to_fit && !fits(&fitted) {
        let min = style.min_size.min(style.size);
        fitted = match (width, height) {
            // Widths scale with the size: one step finds the size.
            (Some(w), None) if fitted.widest() > 0.0 => {
                lay((style.size * w / fitted.widest()).max(min))
            }
            _ => {
                let (mut lo, mut hi) = (min, style.size);
                while hi - lo > 0.01 {
                    let mid = (lo + hi) / 2.0;
                    if fits(&lay(mid)) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                lay(lo)
            }
        };
    }
    fitted.overflowed = !fits(&fitted);
    if style.overflow == TextOverflow::Ellipsis {
        let measure = measurer.for_style(style, fitted.size);
        match (width, height) {
            (Some(w), Some(h)) => {
                let mut total = 0.0;
                let kept = fitted
                    .line_heights
                    .iter()
                    .take_while(|lh| {
                        total += *lh;
                        total <= h + EPS
                    })
                    .count()
                    .max(1);
                if kept < fitted.lines.len() {
                    fitted.lines.truncate(kept);
                    fitted.line_heights.truncate(kept);
                    let last = fitted.lines.pop().expect("at least one line is kept");
                    fitted
                        .lines
                        .push(truncate_with_ellipsis(&last, w, &measure));
                }
            }
            (Some(w), None) => {
                for line in &mut fitted.lines {
                    *line = ellipsize(line, w, &measure);
                }
            }
            (None, _) => {}
        }
    }
    fitted
}

/// Whether the first strong character of the runs is right-to-left.
fn is_rtl(runs: &[Run]) -> bool {
    for run in runs {
        if let Run::Text { text, .. } = run {
            // ASCII has no right-to-left letter: a letter decides, else the
            // run is neutral (digits, prices) and the next one decides.
            if text.is_ascii() {
                if text.bytes().any(|b| b.is_ascii_alphabetic()) {
                    return false;
                }
                continue;
            }
            match unicode_bidi::get_base_direction(text.as_str()) {
                unicode_bidi::Direction::Rtl => return true,
                unicode_bidi::Direction::Ltr => return false,
                unicode_bidi::Direction::Mixed => {}
            }
        }
    }
    false
}

/// Text widths in mm for a family, weight and size, through the font
/// catalogue; each family and weight's [`FontStack`] is built once per
/// measurer.
pub struct Measurer<'a> {
    fonts: &'a dyn FontCatalog,
    stacks: std::cell::RefCell<Vec<(u16, Rc<FontStack<'a>>)>>,
}

impl<'a> Measurer<'a> {
    pub fn new(fonts: &'a dyn FontCatalog) -> Self {
        Measurer {
            fonts,
            stacks: Default::default(),
        }
    }

    /// The faces text in `family` at `weight` is set in.
    pub fn stack(&self, family: &str, weight: u16) -> Rc<FontStack<'a>> {
        let mut stacks = self.stacks.borrow_mut();
        if let Some((_, stack)) = stacks
            .iter()
            .find(|(w, s)| *w == weight && s.family() == family)
        {
            return stack.clone();
        }
        let stack = Rc::new(FontStack::new(self.fonts, family, weight));
        stacks.push((weight, stack.clone()));
        stack
    }

    /// The stacks of a resolved style: its weight, and `[B]`'s.
    fn stacks(&self, style: &ResolvedText) -> (Rc<FontStack<'a>>, Rc<FontStack<'a>>) {
        // `[B]` is Typst's `weight: "bold"`, which is 700 whatever the style's weight.
        (
            self.stack(&style.family, style.weight),
            self.stack(&style.family, 700),
        )
    }

    /// A `(text, bold, large) -> mm` function for one resolved style at `size` pt.
    pub fn for_style(
        &self,
        style: &ResolvedText,
        size: f64,
    ) -> impl Fn(&str, bool, bool) -> f64 + 'a {
        let (regular, bold) = self.stacks(style);
        move |text: &str, b: bool, l: bool| {
            let stack = if b { &bold } else { &regular };
            let s = if l { size * 1.5 } else { size };
            stack.width(&with_sheet_numbers(text)) * s * PT_MM
        }
    }

    /// The first character of `runs` that no face of the style has: its
    /// index among the runs' characters (markup not counted) and itself.
    pub fn missing(&self, runs: &[Run], style: &ResolvedText) -> Option<(usize, char)> {
        let (regular, bold) = self.stacks(style);
        let mut offset = 0;
        for run in runs {
            let Run::Text { text, bold: b, .. } = run else {
                offset += 1;
                continue;
            };
            let stack = if *b { &bold } else { &regular };
            if let Some((i, c)) = stack.missing(text) {
                return Some((offset + i, c));
            }
            offset += text.chars().count();
        }
        None
    }
}

/// What `{page}` and `{total_pages}` are measured as: four digits.
///
/// Sheet numbers are known only after pagination, and pagination needs every
/// text's lines first, so a line holding them is broken and sized with this
/// stand-in, never with the placeholder's own letters (which would wrap
/// "Page {page} of {total_pages}" where "Page 1 of 2" fits). Four digits
/// cover `limits.sheets` (2,000 by default), so the printed line is never
/// wider than the measured one up to 9,999 sheets.
const SHEET_NUMBER_STAND_IN: &str = "0000";

fn with_sheet_numbers(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('{') {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.replace("{page}", SHEET_NUMBER_STAND_IN)
            .replace("{total_pages}", SHEET_NUMBER_STAND_IN),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::measure::HalfEm;
    use crate::model::VerticalAlign;
    use crate::rich_text::Line;
    use crate::style::Rgb;

    /// One character at 7.2 pt (2.54 mm an em) in [`HalfEm`].
    const CHAR_MM: f64 = 0.5 * 7.2 * PT_MM;

    fn style() -> ResolvedText {
        ResolvedText {
            family: "Test".into(),
            size: 7.2,
            min_size: 3.6,
            weight: 400,
            color: Rgb::BLACK,
            line_height: 1.0,
            width: None,
            height: None,
            align: None,
            valign: VerticalAlign::Top,
            overflow: TextOverflow::Visible,
            shrink_to_fit: false,
        }
    }

    fn plain(text: &str) -> Vec<Run> {
        crate::rich_text::parse_rich_text(text).unwrap()
    }

    fn texts(f: &FittedText) -> Vec<String> {
        f.lines.iter().map(Line::plain).collect()
    }

    fn fit(text: &str, style: &ResolvedText) -> FittedText {
        fit_text(
            &plain(text),
            style,
            style.width,
            style.height,
            &Measurer::new(&HalfEm),
        )
    }

    #[test]
    fn a_box_without_width_is_as_wide_as_its_longest_line() {
        let s = style();
        let f = fit("WWWW\nWW", &s);
        let (w, h) = f.box_size(&s);
        assert!((w - 4.0 * CHAR_MM).abs() < 1e-9, "{w}");
        assert!((h - 2.0 * 7.2 * PT_MM).abs() < 1e-9, "{h}");
    }

    #[test]
    fn sheet_numbers_are_measured_as_four_digits_not_as_their_placeholders() {
        // "Page 0000 of 0000" is 17 characters: it fits 17, where the
        // placeholders' own 28 characters would wrap before {total_pages}.
        let s = ResolvedText {
            width: Some(17.0 * CHAR_MM),
            ..style()
        };
        let f = fit("Page {page} of {total_pages}", &s);
        assert_eq!(texts(&f), ["Page {page} of {total_pages}"]);
        assert!((f.widest() - 17.0 * CHAR_MM).abs() < 1e-9, "{}", f.widest());
        let narrower = ResolvedText {
            width: Some(16.0 * CHAR_MM),
            ..style()
        };
        let f = fit("Page {page} of {total_pages}", &narrower);
        assert_eq!(texts(&f), ["Page {page} of", "{total_pages}"]);
    }

    #[test]
    fn a_box_with_width_is_as_tall_as_its_wrapped_lines() {
        let s = ResolvedText {
            width: Some(10.0 * CHAR_MM),
            ..style()
        };
        let f = fit("aaaa bbbb cccc dddd", &s);
        assert_eq!(texts(&f), ["aaaa bbbb", "cccc dddd"]);
        let (_, h) = f.box_size(&s);
        assert!((h - 2.0 * 7.2 * PT_MM).abs() < 1e-9, "{h}");
    }

    #[test]
    fn large_lines_are_one_and_a_half_times_taller() {
        let f = fit("a\n[L]b[/L]", &style());
        assert!((f.line_heights[1] / f.line_heights[0] - 1.5).abs() < 1e-9);
    }

    #[test]
    fn shrinking_without_height_scales_the_widest_line_to_the_width() {
        let s = ResolvedText {
            width: Some(5.0 * CHAR_MM),
            shrink_to_fit: true,
            ..style()
        };
        let f = fit("aaaaaaaaaa", &s);
        assert_eq!(f.lines.len(), 1);
        assert!((f.size - 3.6).abs() < 1e-9, "{}", f.size);
        assert!(f.widest() <= 5.0 * CHAR_MM + 1e-9);
    }

    #[test]
    fn shrinking_stops_at_the_minimum_size() {
        let s = ResolvedText {
            width: Some(2.0 * CHAR_MM),
            shrink_to_fit: true,
            ..style()
        };
        let f = fit("aaaaaaaaaa", &s);
        assert_eq!(f.size, 3.6);
        assert!(f.overflowed, "still wider than the box at the minimum");
    }

    #[test]
    fn shrinking_with_height_wraps_and_fits_the_height() {
        let s = ResolvedText {
            width: Some(10.0 * CHAR_MM),
            height: Some(2.0 * 7.2 * PT_MM * 0.8),
            shrink_to_fit: true,
            ..style()
        };
        let f = fit("aaaa bbbb cccc dddd", &s);
        assert!(!f.overflowed, "shrinking made it fit");
        assert!(f.size < 7.2 && f.size >= 3.6, "{}", f.size);
        assert!(f.height() <= s.height.unwrap() + 1e-9);
        assert!(f.widest() <= s.width.unwrap() + 1e-9);
    }

    #[test]
    fn ellipsis_without_height_cuts_each_line() {
        let s = ResolvedText {
            width: Some(4.0 * CHAR_MM),
            overflow: TextOverflow::Ellipsis,
            ..style()
        };
        let f = fit("abcdefgh\nxy", &s);
        assert_eq!(texts(&f), ["abc…", "xy"]);
        assert!(f.overflowed, "the ellipsis cut it");
    }

    #[test]
    fn ellipsis_with_height_ends_the_last_line_that_fits() {
        let s = ResolvedText {
            width: Some(9.0 * CHAR_MM),
            height: Some(2.0 * 7.2 * PT_MM),
            overflow: TextOverflow::Ellipsis,
            ..style()
        };
        let f = fit("aaaa bbbb cccc dddd eeee ffff", &s);
        assert_eq!(texts(&f), ["aaaa bbbb", "cccc ddd…"]);
    }

    #[test]
    fn ellipsis_keeps_text_that_fits_whole() {
        let s = ResolvedText {
            width: Some(9.0 * CHAR_MM),
            height: Some(2.0 * 7.2 * PT_MM),
            overflow: TextOverflow::Ellipsis,
            ..style()
        };
        let f = fit("aaaa bbbb", &s);
        assert_eq!(texts(&f), ["aaaa bbbb"]);
        assert!(!f.overflowed);
    }
}
