//! Lowering: a validated [`Document`] becomes Typst source.
//!
//! The generated document is one `#page` per sheet of the display list
//! ([`crate::layout::display`]), each of its items placed absolutely
//! (`place(dx, dy, ...)`) in its order; `{page}` and `{total_pages}` are
//! substituted here, because the generator knows the sheet count before
//! Typst runs.
//! Images are handed to the engine as fixed virtual files `/img/0`, `/img/1`...

pub mod barcode;
mod elements;
mod table;
pub mod typst;

use std::fmt::Write;
use std::sync::Arc;

use crate::config::{Limits, RuntimeConfig};
use crate::ir::{Document, Language};
use crate::layout::display::{Item, Sheet};
use crate::layout::{FontCatalog, LaidOut, PieceKind};

/// The set rules every generated document starts with.
pub const PRELUDE: &str = include_str!("../../templates/prelude.typ");

/// The prelude's first line (what the source is, for `--emit-typst`) and
/// its statements, without the comments that explain them, which Typst
/// would otherwise parse again on every render.
static PRELUDE_CODE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    PRELUDE
        .lines()
        .enumerate()
        .filter(|(i, line)| *i == 0 || !line.trim_start().starts_with("//"))
        .flat_map(|(_, line)| [line, "\n"])
        .collect()
});

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
    /// Byte offset in `source` of each sheet's `#page(`. Every sheet is
    /// self-contained: the source before the first is the prelude and the
    /// document's set rules, so that prefix followed by any run of sheets
    /// is a document of those sheets alone (`Lowered::slice`).
    pub sheet_starts: Vec<usize>,
    /// Some link goes to a page: a slice of sheets could point outside
    /// itself, so such a document is compiled whole.
    pub page_links: bool,
}

impl Lowered {
    /// Source of the lowered text alone, for a hand-written document
    /// (no sheets known to the generator).
    pub fn of_source(source: String) -> Lowered {
        Lowered {
            source,
            images: Vec::new(),
            sheets: 0,
            link_alts: Vec::new(),
            sheet_starts: Vec::new(),
            page_links: false,
        }
    }

    /// Sheets per slice if this document is compiled in slices
    /// ([`Limits::slice_of`]), `None` when it is compiled whole: also
    /// whenever a link goes to a page, which a slice may not hold.
    pub fn slice_size(&self, limits: &Limits) -> Option<usize> {
        if self.page_links {
            return None;
        }
        limits.slice_of(self.sheets)
    }

    /// Sheets `range` (0-based) of a single document as a document of
    /// their own: the prefix before the first sheet, then those sheets.
    /// `{page}` and `{total_pages}` were substituted for the whole
    /// document, so each sheet keeps its numbers. Images are shared.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Lowered {
        let start = |i: usize| {
            self.sheet_starts
                .get(i)
                .copied()
                .unwrap_or(self.source.len())
        };
        let prefix = &self.source[..start(0)];
        let sheets = &self.source[start(range.start)..start(range.end)];
        Lowered {
            source: [prefix, sheets].concat(),
            images: self.images.clone(),
            sheets: range.len(),
            link_alts: self
                .link_alts
                .get(range.clone())
                .unwrap_or_default()
                .to_vec(),
            sheet_starts: self.sheet_starts[range.clone()]
                .iter()
                .map(|&at| at - start(range.start) + prefix.len())
                .collect(),
            page_links: self.page_links,
        }
    }
}

/// State shared while lowering one document.
pub(crate) struct Ctx<'a> {
    pub doc: &'a Document,
    pub config: &'a RuntimeConfig,
    pub fonts: &'a dyn FontCatalog,
    pub images: Vec<Arc<Vec<u8>>>,
    /// First sheet (1-based) of each request page, for page links.
    pub first_sheet: Vec<usize>,
    /// Sheets of the documents lowered before this one into the same
    /// source (a batch): page links land past them.
    pub sheets_before: usize,
    pub total_sheets: usize,
    /// Current sheet number (1-based) while emitting.
    pub sheet: usize,
    pub out: String,
    /// See [`Lowered::link_alts`].
    pub link_alts: Vec<Vec<Option<String>>>,
    /// ZPL labels of this dpi are being drawn: barcodes the printer draws
    /// itself (`crate::native_barcode`) leave their symbol out.
    pub native_dpi: Option<u32>,
    /// See [`Lowered::page_links`].
    pub page_links: bool,
    /// The colour the document's `#set text` gives all its text (the
    /// configured default): a text of this colour needs no `fill` of its own.
    pub text_colour: crate::style::Rgb,
    /// The line box edges the document's `#set text` gives all its text:
    /// those of the configured family, regular weight and line height. A
    /// text with the same edges needs none of its own.
    pub text_edges: elements::TextEdges,
}

/// Lowers a laid-out document to Typst source.
pub fn lower(laid: &LaidOut, config: &RuntimeConfig, fonts: &dyn FontCatalog) -> Lowered {
    lower_for(laid, &laid.display_list(), config, fonts, None)
}

/// As [`lower`], writing `placed` (the document's display list, built once
/// by a caller that also hands it to the warnings); with `native_dpi`, for
/// ZPL labels of that dpi with printer-native barcodes: their symbols are
/// left out (the ZPL writer adds the printer's own command in their place).
pub fn lower_for(
    laid: &LaidOut,
    placed: &[Sheet],
    config: &RuntimeConfig,
    fonts: &dyn FontCatalog,
    native_dpi: Option<u32>,
) -> Lowered {
    lower_documents(&[(laid, placed)], config, fonts, native_dpi)
}

/// Several documents, each with its display list, as one Typst document (a
/// batch's PDF): each one's sheets in order, after the ones before it. `{page}` and
/// `{total_pages}` count each document's own sheets, page links land in
/// their own document, and the PDF's metadata is the first document's
/// (`#set document` may only come before any content).
pub fn lower_batch(
    docs: &[(&LaidOut, &[Sheet])],
    config: &RuntimeConfig,
    fonts: &dyn FontCatalog,
) -> Lowered {
    lower_documents(docs, config, fonts, None)
}

fn lower_documents(
    docs: &[(&LaidOut, &[Sheet])],
    config: &RuntimeConfig,
    fonts: &dyn FontCatalog,
    native_dpi: Option<u32>,
) -> Lowered {
    let mut out = String::with_capacity(8 * 1024);
    out.push_str(&PRELUDE_CODE);
    let mut images = Vec::new();
    let mut link_alts = Vec::new();
    let mut sheet_starts = Vec::new();
    let mut page_links = false;
    for (i, &(laid, sheets)) in docs.iter().enumerate() {
        let total_sheets = sheets.len();
        let first_sheet = sheets
            .iter()
            .filter(|sheet| sheet.continuation == 0)
            .map(|sheet| sheet.number)
            .collect();
        let mut ctx = Ctx {
            doc: &laid.document,
            config,
            fonts,
            images: std::mem::take(&mut images),
            first_sheet,
            sheets_before: link_alts.len(),
            total_sheets,
            sheet: 0,
            out: std::mem::take(&mut out),
            link_alts: vec![Vec::new(); total_sheets],
            native_dpi,
            page_links: false,
            text_colour: crate::style::Rgb::parse(&config.defaults.text_color)
                .unwrap_or(crate::style::Rgb::BLACK),
            text_edges: elements::TextEdges::of(
                fonts.ascender(&config.defaults.font_family, elements::REGULAR_WEIGHT),
                config.defaults.line_height,
            ),
        };
        ctx.document_settings(i == 0);
        for sheet in sheets {
            ctx.sheet = sheet.number;
            sheet_starts.push(ctx.out.len());
            let _ = writeln!(
                ctx.out,
                "#page(width: {}, height: {}, {{",
                typst::mm(sheet.width),
                typst::mm(sheet.height)
            );
            for item in &sheet.items {
                ctx.item(item, sheet.width);
            }
            ctx.out.push_str("})\n");
        }
        out = ctx.out;
        images = ctx.images;
        link_alts.extend(ctx.link_alts);
        page_links |= ctx.page_links;
    }
    Lowered {
        source: out,
        images,
        sheets: link_alts.len(),
        link_alts,
        sheet_starts,
        page_links,
    }
}

impl Ctx<'_> {
    /// The document's metadata (only for the `first` document of a
    /// source) and text defaults. A later document of a batch sets its
    /// language back to Typst's default when it names none, so that it
    /// does not inherit the one before it.
    fn document_settings(&mut self, first: bool) {
        let meta = &self.doc.settings.metadata;
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
        if first && !fields.is_empty() {
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
            "font: ({},) + lp-fallback, size: {}, {}, fill: {}",
            typst::string(family),
            typst::pt(self.config.defaults.font_size),
            self.text_edges,
            typst::colour(self.text_colour, 1.0),
        );
        match &meta.language {
            Some(Language { lang, region }) => {
                let _ = write!(text, ", lang: {}", typst::string(lang));
                match region {
                    Some(r) => {
                        let _ = write!(text, ", region: {}", typst::string(r));
                    }
                    None if !first => text.push_str(", region: none"),
                    None => {}
                }
            }
            None if !first => text.push_str(", lang: \"en\", region: none"),
            None => {}
        }
        let _ = writeln!(self.out, "#set text({text})");
    }

    /// One item of the display list: a table's rows on this sheet, or an
    /// element in its frame.
    fn item(&mut self, item: &Item, sheet_width: f64) {
        match item.table_rows {
            Some(PieceKind::Table {
                table,
                header,
                rows,
                top,
            }) => self.table_piece(table, *header, rows.clone(), *top, sheet_width),
            _ => self.element(item, sheet_width),
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
