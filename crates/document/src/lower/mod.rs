//! Lowering: a validated [`Document`] becomes Typst source.
//!
//! The generated document is one `#page` per sheet with every element placed
//! absolutely (`place(dx, dy, ...)`). Header and footer elements are emitted on
//! every sheet (beneath the body); `{page}` and `{total_pages}` are substituted
//! here, because the generator knows the sheet count before Typst runs.
//! Images are handed to the engine as fixed virtual files `/img/0`, `/img/1`...

pub mod barcode;
mod elements;
mod table;
pub mod typst;

use std::fmt::Write;
use std::sync::Arc;

use crate::config::RuntimeConfig;
use crate::ir::{Document, Element, Page};
use crate::layout::FontCatalog;
use crate::layout::{LaidOut, PieceKind, Sheets};
use crate::style::split_language;
use crate::validate::{Frame, Zone};

/// The set rules every generated document starts with.
pub const PRELUDE: &str = include_str!("../../templates/prelude.typ");

/// Generated source plus the data files it refers to.
#[derive(Debug, Clone)]
pub struct Lowered {
    pub source: String,
    /// Bytes of `/img/{index}`.
    pub images: Vec<Arc<Vec<u8>>>,
    pub sheets: usize,
    /// Per sheet, the `alt` of every link placed on it, in placement order
    /// (written into the PDF after export: `crate::pdf::patch`).
    pub link_alts: Vec<Vec<Option<String>>>,
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
    /// See [`Lowered::link_alts`].
    pub link_alts: Vec<Vec<Option<String>>>,
}

/// Lowers a laid-out document to Typst source.
pub fn lower(laid: &LaidOut, config: &RuntimeConfig, fonts: &dyn FontCatalog) -> Lowered {
    let doc = &laid.document;
    let mut first_sheet = Vec::with_capacity(doc.pages.len());
    let mut next = 1;
    for sheets in &laid.sheets {
        first_sheet.push(next);
        next += sheets.count.max(1);
    }
    let total_sheets = next - 1;
    let mut ctx = Ctx {
        doc,
        config,
        fonts,
        images: Vec::new(),
        first_sheet,
        total_sheets,
        sheet: 0,
        out: String::with_capacity(8 * 1024),
        link_alts: vec![Vec::new(); total_sheets],
    };
    ctx.out.push_str(PRELUDE);
    ctx.document_settings();
    for (i, (page, sheets)) in doc.pages.iter().zip(&laid.sheets).enumerate() {
        for sheet in 0..sheets.count.max(1) {
            ctx.sheet = ctx.first_sheet[i] + sheet;
            let _ = writeln!(
                ctx.out,
                "#page(width: {}, height: {}, {{",
                typst::mm(page.width),
                typst::mm(page.height)
            );
            ctx.sections(page.width, page.height);
            ctx.body(page, sheets, sheet);
            ctx.out.push_str("})\n");
        }
    }
    Lowered {
        source: ctx.out,
        images: ctx.images,
        sheets: total_sheets,
        link_alts: ctx.link_alts,
    }
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
        let fallback: Vec<String> = self
            .fonts
            .fallback()
            .iter()
            .map(|f| typst::string(f))
            .collect();
        let _ = writeln!(self.out, "#let lp-fallback = ({},)", fallback.join(", "));
        let mut text = format!(
            "font: ({},) + lp-fallback, size: {}, top-edge: \"ascender\", fill: {}",
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
    fn sections(&mut self, page_width: f64, page_height: f64) {
        let doc = self.doc;
        if let Some(h) = &doc.header {
            let frame = Frame::section(page_width, Zone::Header);
            self.elements(&h.elements, &frame);
        }
        if let Some(f) = &doc.footer {
            let frame = Frame {
                origin: (0.0, page_height - f.height),
                ..Frame::section(page_width, Zone::Footer)
            };
            self.elements(&f.elements, &frame);
        }
    }

    /// Emits elements in ascending `z_index`, ties in array order.
    pub(crate) fn elements(&mut self, elements: &[Element], frame: &Frame) {
        let mut order: Vec<usize> = (0..elements.len()).collect();
        order.sort_by_key(|&i| elements[i].z_index());
        for i in order {
            self.element(&elements[i], frame);
        }
    }

    /// The body of one sheet of a request page: on the first sheet every
    /// element, on continuation sheets only what the flow put there.
    fn body(&mut self, page: &Page, sheets: &Sheets, sheet: usize) {
        let frame = Frame::body(page);
        let mut order: Vec<usize> = (0..page.elements.len()).collect();
        order.sort_by_key(|&i| page.elements[i].z_index());
        for i in order {
            match &page.elements[i] {
                Element::Table(_) | Element::Stack(_) => {
                    for piece in sheets
                        .pieces
                        .iter()
                        .filter(|p| p.sheet == sheet && p.element == i)
                    {
                        self.piece(&page.elements[i], &piece.kind, page, &frame);
                    }
                }
                element if sheet == 0 => self.element(element, &frame),
                _ => {}
            }
        }
    }

    fn piece(&mut self, element: &Element, kind: &PieceKind, page: &Page, frame: &Frame) {
        match kind {
            PieceKind::Table {
                table,
                header,
                rows,
                top,
            } => {
                self.table_piece(table, *header, rows.clone(), *top, page.width);
            }
            PieceKind::Block { block, top } => {
                let Element::Stack(stack) = element else {
                    return;
                };
                let block_frame = frame.block(&stack.table.spec, *top);
                self.elements(&stack.blocks[*block], &block_frame);
            }
        }
    }

    /// A text's font list: its family, then the fallback families (the
    /// document's `lp-fallback`), as layout measured it.
    pub(crate) fn font_list(&self, family: &str) -> String {
        format!("({},) + lp-fallback", typst::string(family))
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
