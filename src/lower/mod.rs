//! Lowering: a validated [`Document`] becomes Typst source.
//!
//! The generated document is one `#page` per sheet with every element placed
//! absolutely (`place(dx, dy, ...)`). Header and footer elements are emitted on
//! every sheet (beneath the body); `{page}` and `{total_pages}` are substituted
//! here, because the generator knows the sheet count before Typst runs.
//! Images are handed to the engine as fixed virtual files `/img/0`, `/img/1`...

pub mod barcode;
mod elements;
pub mod typst;

use std::fmt::Write;
use std::sync::Arc;

use crate::config::RuntimeConfig;
use crate::model::{Document, Element};
use crate::validate::{FontCatalog, Frame, Zone};

/// The Typst helpers every generated document imports (as `/prelude.typ`).
pub const PRELUDE: &str = include_str!("../../templates/prelude.typ");

/// Generated source plus the data files it refers to.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub source: String,
    /// Bytes of `/img/{index}`.
    pub images: Vec<Arc<Vec<u8>>>,
    pub sheets: usize,
}

/// Why a valid document still cannot be lowered.
#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    #[error("{path}: {message}")]
    Unsupported { path: String, message: String },
}

/// Splits `de-CH` into Typst's `lang` and `region`; `None` when it is no language code.
pub fn split_language(code: &str) -> Option<(String, Option<String>)> {
    let mut parts = code.split(['-', '_']);
    let lang = parts.next()?;
    if !(2..=3).contains(&lang.len()) || !lang.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let region = match parts.next() {
        None => None,
        Some(r) if r.len() == 2 && r.bytes().all(|b| b.is_ascii_alphabetic()) => {
            Some(r.to_ascii_uppercase())
        }
        Some(_) => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    Some((lang.to_ascii_lowercase(), region))
}

/// State shared while lowering one document.
pub(crate) struct Ctx<'a> {
    pub doc: &'a Document,
    pub config: &'a RuntimeConfig,
    pub fonts: &'a dyn FontCatalog,
    pub images: Vec<Arc<Vec<u8>>>,
    /// First sheet (1-based) of each request page, for page links.
    pub first_sheet: Vec<usize>,
    pub total_sheets: usize,
    /// Current sheet number (1-based) while emitting.
    pub sheet: usize,
    pub out: String,
}

/// Lowers a validated document to Typst source.
pub fn lower(
    doc: &Document,
    config: &RuntimeConfig,
    fonts: &dyn FontCatalog,
) -> Result<Lowered, LowerError> {
    let first_sheet: Vec<usize> = (1..=doc.pages.len()).collect();
    let total_sheets = doc.pages.len();
    let mut ctx = Ctx {
        doc,
        config,
        fonts,
        images: Vec::new(),
        first_sheet,
        total_sheets,
        sheet: 0,
        out: String::with_capacity(8 * 1024),
    };
    ctx.out.push_str("#import \"/prelude.typ\": *\n#set page(margin: 0pt)\n#set par(spacing: 0pt, leading: 0pt)\n");
    ctx.document_settings();
    for (i, page) in doc.pages.iter().enumerate() {
        ctx.sheet = ctx.first_sheet[i];
        let _ = writeln!(
            ctx.out,
            "#page(width: {}, height: {}, {{",
            typst::mm(page.width),
            typst::mm(page.height)
        );
        ctx.sections(page.width, page.height)?;
        let frame = Frame::body(page);
        ctx.elements(&format!("pages[{i}].elements"), &page.elements, &frame)?;
        ctx.out.push_str("})\n");
    }
    Ok(Lowered {
        source: ctx.out,
        images: ctx.images,
        sheets: total_sheets,
    })
}

impl Ctx<'_> {
    fn document_settings(&mut self) {
        let meta = self.doc.settings.metadata.clone().unwrap_or_default();
        let mut fields = Vec::new();
        if let Some(t) = &meta.title {
            fields.push(format!("title: {}", typst::string(t)));
        }
        if let Some(a) = &meta.author {
            fields.push(format!("author: ({},)", typst::string(a)));
        }
        if let Some(s) = &meta.subject {
            fields.push(format!("description: {}", typst::string(s)));
        }
        if !fields.is_empty() {
            let _ = writeln!(self.out, "#set document({})", fields.join(", "));
        }
        let family = &self.config.defaults.font_family;
        let mut text = format!(
            "font: ({},), size: {}, top-edge: \"ascender\", fill: {}",
            typst::string(family),
            typst::pt(self.config.defaults.font_size),
            typst::colour(
                crate::style::Rgb::parse(&self.config.defaults.text_color)
                    .unwrap_or(crate::style::Rgb::BLACK),
                1.0
            ),
        );
        if let Some((lang, region)) = meta.language.as_deref().and_then(split_language) {
            let _ = write!(text, ", lang: {}", typst::string(&lang));
            if let Some(r) = region {
                let _ = write!(text, ", region: {}", typst::string(&r));
            }
        }
        let _ = writeln!(self.out, "#set text({text})");
    }

    /// Header and footer of the current sheet, beneath the body.
    fn sections(&mut self, page_width: f64, page_height: f64) -> Result<(), LowerError> {
        let doc = self.doc;
        if let Some(h) = &doc.header {
            let frame = Frame::section(page_width, Zone::Header);
            self.elements("header.elements", &h.elements, &frame)?;
        }
        if let Some(f) = &doc.footer {
            let frame = Frame {
                origin: (0.0, page_height - f.height),
                ..Frame::section(page_width, Zone::Footer)
            };
            self.elements("footer.elements", &f.elements, &frame)?;
        }
        Ok(())
    }

    /// Emits elements in ascending `z_index`, ties in array order.
    pub(crate) fn elements(
        &mut self,
        path: &str,
        elements: &[Element],
        frame: &Frame,
    ) -> Result<(), LowerError> {
        let mut order: Vec<usize> = (0..elements.len()).collect();
        order.sort_by_key(|&i| elements[i].z_index());
        for i in order {
            self.element(&format!("{path}[{i}]"), &elements[i], frame)?;
        }
        Ok(())
    }

    /// Replaces `{page}` and `{total_pages}` with the current sheet numbers.
    pub(crate) fn substitute(&self, text: &str) -> String {
        if !text.contains('{') {
            return text.to_string();
        }
        text.replace("{page}", &self.sheet.to_string())
            .replace("{total_pages}", &self.total_sheets.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_codes_split_into_lang_and_region() {
        assert_eq!(
            split_language("de-ch"),
            Some(("de".into(), Some("CH".into())))
        );
        assert_eq!(split_language("EN"), Some(("en".into(), None)));
        assert_eq!(split_language("english"), None);
        assert_eq!(split_language("de-CH-x"), None);
    }
}
