//! The faces one text is set in: its own family, then the fallback families.
//!
//! Typst sets a text in a list of families (`text(font: (..))`): each
//! character goes to the first family whose face has a glyph for it. A
//! [`FontStack`] answers the same question per character, so measurement
//! uses the advance of the face that will draw the character, and
//! validation can name a character that no face has before anything is drawn
//! as a missing glyph.
//!
//! Faces are fetched from the catalogue only when a character reaches them:
//! text that its own family covers never loads a fallback face, and a CJK
//! face (the largest, and last in the default order) is loaded by the first
//! text that needs it.

use std::cell::OnceCell;
use std::sync::Arc;

use icu_properties::props::DefaultIgnorableCodePoint;
use icu_properties::{CodePointSetData, CodePointSetDataBorrowed};

use super::measure::{FaceMetrics, FontCatalog};

/// Unicode's default ignorables (joiners, variation selectors, bidi
/// controls...): Typst removes them before drawing, so they need no glyph
/// and take no width.
const DEFAULT_IGNORABLE: CodePointSetDataBorrowed<'static> =
    CodePointSetData::new::<DefaultIgnorableCodePoint>();

/// Whether `c` is drawn without a glyph of its own: default ignorables and
/// the controls Typst does not shape (newline, tab).
pub fn needs_no_glyph(c: char) -> bool {
    c == '\n' || c == '\t' || DEFAULT_IGNORABLE.contains(c)
}

/// The faces of one family and weight followed by the fallback families.
pub struct FontStack<'a> {
    fonts: &'a dyn FontCatalog,
    /// The text's own family.
    family: String,
    /// Each fallback family not equal to `family`, in order.
    fallback: Vec<&'a str>,
    weight: u16,
    /// The face of `family`, then of each of `fallback`, fetched on first use.
    faces: Vec<OnceCell<Arc<FaceMetrics>>>,
    printable_ascii: OnceCell<bool>,
}

impl<'a> FontStack<'a> {
    pub fn new(fonts: &'a dyn FontCatalog, family: &str, weight: u16) -> Self {
        let fallback: Vec<&str> = fonts
            .fallback()
            .iter()
            .map(String::as_str)
            .filter(|f| !f.eq_ignore_ascii_case(family))
            .collect();
        let faces = (0..=fallback.len()).map(|_| OnceCell::new()).collect();
        FontStack {
            fonts,
            family: family.to_string(),
            fallback,
            weight,
            faces,
            printable_ascii: OnceCell::new(),
        }
    }

    pub fn family(&self) -> &str {
        &self.family
    }

    fn face(&self, i: usize) -> &FaceMetrics {
        self.faces[i].get_or_init(|| {
            let family = match i {
                0 => &self.family,
                _ => self.fallback[i - 1],
            };
            self.fonts.face(family, self.weight)
        })
    }

    /// Whether the text family's face has every printable ASCII character.
    fn has_printable_ascii(&self) -> bool {
        *self.printable_ascii.get_or_init(|| {
            let primary = self.face(0);
            (0x20u8..0x7F).all(|b| primary.advance(b as char).is_some())
        })
    }

    /// The text family's face (its ascender places the baseline).
    pub fn primary(&self) -> &FaceMetrics {
        self.face(0)
    }

    /// Advance of `c` in em, in the first face that has it; `None` when no
    /// face has a glyph for it.
    pub fn advance(&self, c: char) -> Option<f32> {
        if let Some(w) = self.face(0).advance(c) {
            return Some(w);
        }
        if needs_no_glyph(c) {
            return Some(0.0);
        }
        if let Some(w) = (1..self.faces.len()).find_map(|i| self.face(i).advance(c)) {
            return Some(w);
        }
        // A space without a glyph is set as a space (the shaper's space
        // fallback), never as a missing glyph.
        if c.is_whitespace() {
            return self.face(0).advance(' ');
        }
        None
    }

    /// Width of `text` in em (a character no face has counts as nothing:
    /// validation refuses it).
    pub fn width(&self, text: &str) -> f64 {
        let primary = self.face(0);
        let sum: f32 = text
            .chars()
            .map(|c| {
                primary
                    .advance(c)
                    .or_else(|| self.advance(c))
                    .unwrap_or(0.0)
            })
            .sum();
        sum as f64
    }

    /// The first character of `text` that no face has, with its index in
    /// characters.
    pub fn missing(&self, text: &str) -> Option<(usize, char)> {
        // Most text (every price, SKU and Latin name) is printable ASCII,
        // which the usual primary face has whole: one pass over bytes.
        if text.bytes().all(|b| (0x20..0x7F).contains(&b)) && self.has_printable_ascii() {
            return None;
        }
        let primary = self.face(0);
        text.chars()
            .enumerate()
            .find(|&(_, c)| primary.advance(c).is_none() && self.advance(c).is_none())
    }
}

/// The API-002 message for a character of `text` that no face has: the
/// character, its position (counting characters of `text` from 1, markup
/// included) and where fonts come from.
pub fn no_glyph_message(text: &str, c: char, family: &str) -> String {
    let position = text.chars().position(|x| x == c).map_or(0, |i| i + 1);
    if c.is_control() {
        return format!(
            "U+{:04X} (character {position}) is a control character, which no font draws; \
             a line break is `\\n`",
            c as u32
        );
    }
    format!(
        "U+{:04X} (character {position}) is in no available font: neither `{family}` nor any \
         fallback family (runtime-config `fonts.fallback`) has a glyph for it, and it would \
         print as a box; `labelpress fonts` lists the installed families and their scripts",
        c as u32
    )
}

/// Up to three of `families` that look most like `wanted` (edit distance,
/// ignoring case; a name containing the other counts as close), best first.
pub fn closest_families(wanted: &str, families: &[String]) -> Vec<String> {
    let wanted = wanted.trim().to_lowercase();
    let mut scored: Vec<(f64, &String)> = families
        .iter()
        .map(|name| {
            let lower = name.to_lowercase();
            let mut score = strsim::normalized_damerau_levenshtein(&wanted, &lower);
            if !wanted.is_empty() && (lower.contains(&wanted) || wanted.contains(&lower)) {
                score = score.max(0.75);
            }
            (score, name)
        })
        .filter(|(score, _)| *score >= 0.5)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored.into_iter().take(3).map(|(_, n)| n.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalogue of two families: "Latin" has ASCII (0.5 em), "Wide" has
    /// CJK ideographs (1 em); fallback order is Wide only.
    struct TwoFamilies {
        fallback: Vec<String>,
        loaded: std::sync::Mutex<Vec<String>>,
    }

    impl FontCatalog for TwoFamilies {
        fn has_family(&self, _: &str) -> bool {
            true
        }
        fn face(&self, family: &str, _: u16) -> Arc<FaceMetrics> {
            self.loaded.lock().unwrap().push(family.to_string());
            Arc::new(if family == "Wide" {
                FaceMetrics::new(0.88, |c| {
                    ('\u{4E00}'..='\u{9FFF}').contains(&c).then_some(1.0)
                })
            } else {
                FaceMetrics::new(0.9, |c| (c.is_ascii()).then_some(0.5))
            })
        }
        fn fallback(&self) -> &[String] {
            &self.fallback
        }
        fn families(&self) -> Vec<String> {
            vec!["Latin".into(), "Wide".into()]
        }
    }

    fn catalog() -> TwoFamilies {
        TwoFamilies {
            fallback: vec!["Wide".into()],
            loaded: Default::default(),
        }
    }

    #[test]
    fn closest_families_rank_by_likeness() {
        let families: Vec<String> = ["DejaVu Sans", "DejaVu Serif", "Noto Sans", "Noto Sans Thai"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            closest_families("Dejavu Sans ", &families)[0],
            "DejaVu Sans"
        );
        assert_eq!(closest_families("DejaVu Snas", &families)[0], "DejaVu Sans");
        assert!(closest_families("Noto", &families).contains(&"Noto Sans".to_string()));
        assert!(closest_families("Helvetica Neue", &families).is_empty());
    }

    #[test]
    fn each_character_is_measured_in_the_first_face_that_has_it() {
        let fonts = catalog();
        let stack = FontStack::new(&fonts, "Latin", 400);
        assert_eq!(stack.width("ab"), 1.0);
        assert_eq!(stack.width("a東京"), 2.5);
        assert_eq!(stack.primary().ascender, 0.9);
    }

    #[test]
    fn a_fallback_face_is_loaded_only_when_a_character_needs_it() {
        let fonts = catalog();
        let stack = FontStack::new(&fonts, "Latin", 400);
        stack.width("plain ASCII");
        assert_eq!(*fonts.loaded.lock().unwrap(), ["Latin"]);
        stack.width("東");
        assert_eq!(*fonts.loaded.lock().unwrap(), ["Latin", "Wide"]);
    }

    #[test]
    fn missing_characters_are_found_with_their_index_and_ignorables_are_not() {
        let fonts = catalog();
        let stack = FontStack::new(&fonts, "Latin", 400);
        assert_eq!(stack.missing("ab\u{200D}東\u{FE0F}"), None);
        assert_eq!(stack.missing("ab\u{E000}c"), Some((2, '\u{E000}')));
        // A space no face has is set as a space.
        assert_eq!(stack.advance('\u{3000}'), Some(0.5));
    }
}
