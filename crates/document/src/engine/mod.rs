//! The engine: validation, lowering, Typst compile and PDF export behind one call.

pub mod archive;
mod batch;
mod font_slim;
pub mod fonts;
pub mod memory;
pub mod raster;
pub mod threads;
mod world;
pub mod zpl;

use std::sync::Arc;

use time::OffsetDateTime;
use typst::foundations::{Datetime, Smart};
use typst_layout::PagedDocument;
use typst_pdf::{PdfOptions, PdfStandards, Timestamp};

pub use self::batch::BatchDocuments;
use self::fonts::{FontOptions, Fonts};
use self::raster::Raster;
pub use self::raster::{Format, Output, PngOptions};
use self::world::RenderWorld;
pub use self::zpl::ZplOptions;
use crate::config::RuntimeConfig;
use crate::layout::display::Sheet;
use crate::layout::LaidOut;
use crate::lower::{self, Lowered};
use crate::template::{self, Body};
use crate::validate::{self, Environment, RequestError, ResourceDir, Violation};

/// Product name written as the PDF producer unless the request names one.
pub const PRODUCER: &str = concat!("labelpress ", env!("CARGO_PKG_VERSION"));

/// Why a request produced no PDF (or PNG).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// API-001 / API-002.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// API-501: Typst refused the generated document (a bug on our side).
    #[error("the PDF could not be produced: {0}")]
    Compile(String),
}

/// A finished document: the PDF, or one sheet as PNG.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub bytes: Vec<u8>,
    /// What `bytes` are.
    pub format: Format,
    /// Sheets of the document (also when `bytes` is one sheet's PNG).
    pub sheets: usize,
    /// Sheets in `bytes`: all of them in a PDF, one in a PNG, those asked
    /// for in ZPL.
    pub delivered_sheets: usize,
    /// Documents in `bytes`: 1, or a batch's rendered documents (what the
    /// answer is charged).
    pub documents: usize,
    /// Download name when `settings.output.mode` is `file`.
    pub file_name: Option<String>,
    /// How many validation warnings the document has (`crate::warnings`);
    /// they never change the PDF.
    pub warnings: usize,
}

/// Shared, immutable render state: configuration, fonts, resource folder.
pub struct Engine {
    config: RuntimeConfig,
    fonts: Arc<Fonts>,
    resources: Option<ResourceDir>,
}

impl Engine {
    pub fn new(
        config: RuntimeConfig,
        fonts: &FontOptions,
        resources: Option<ResourceDir>,
    ) -> Engine {
        let fonts = Arc::new(Fonts::load(fonts, &config.fonts.fallback));
        Engine {
            config,
            fonts,
            resources,
        }
    }

    pub fn config(&self) -> &RuntimeConfig {
        &self.config
    }

    /// What runtime-config publishes for this engine: its settings, the
    /// catalogs, and the font families it indexed.
    pub fn published_config(&self) -> crate::config::Published {
        crate::config::Published::new(&self.config, self.fonts.families())
    }

    pub fn fonts(&self) -> &Fonts {
        &self.fonts
    }

    fn environment(&self) -> Environment<'_> {
        Environment {
            config: &self.config,
            fonts: self.fonts.as_ref(),
            resources: self.resources.as_ref(),
        }
    }

    /// Parses and validates a request body, then lays its flow out onto
    /// sheets (`crate::paginate`): both phases' refusals are API-001/002. A
    /// template body (`{"template": ..., "data": ...}`) is filled first
    /// (`crate::template`), and its findings' paths start with `template.`.
    pub fn validate(&self, body: &[u8]) -> Result<LaidOut, RequestError> {
        self.validate_body(Body::classify(validate::parse_json(body)?)?)
    }

    fn validate_body(&self, body: Body) -> Result<LaidOut, RequestError> {
        match body {
            Body::Plain(document) => {
                self.paginate(validate::validate_value(document, &self.environment())?)
            }
            Body::Template { template, data } => {
                let filled = template::fill(template, &data, &self.config.limits)?;
                drop(data);
                validate::validate_value(filled, &self.environment())
                    .and_then(|mut document| {
                        document.from_template = true;
                        self.paginate(document)
                    })
                    .map_err(template::under_template)
            }
        }
    }

    /// Checks a template before it is stored (`PUT /api/v1/templates/{name}`):
    /// the body is the template itself, a DocumentRequest whose strings may
    /// hold placeholders. Its placeholders must be paths and the document
    /// must validate and lay out whatever text they are given: it is filled
    /// with a short probe text ([`template::probe`]) and every finding that
    /// does not sit in a string with a placeholder is the template's own,
    /// at its path from the template's root.
    pub fn validate_template(&self, body: &[u8]) -> Result<(), RequestError> {
        let template = validate::parse_json(body)?;
        if !template.is_object() {
            return Err(RequestError::at(
                "",
                "a template is a DocumentRequest object whose strings may hold {{placeholders}}",
            ));
        }
        let mut probe = template::probe(template, &self.config.limits)?;
        let filled = std::mem::take(&mut probe.filled);
        let checked = validate::validate_value(filled, &self.environment())
            .and_then(|document| self.paginate(document));
        match checked {
            Ok(_) => Ok(()),
            Err(RequestError::Invalid(violations)) => match probe.own_findings(violations) {
                own if own.is_empty() => Ok(()),
                own => Err(RequestError::Invalid(own)),
            },
            Err(other) => Err(other),
        }
    }

    fn paginate(&self, document: crate::ir::Document) -> Result<LaidOut, RequestError> {
        crate::paginate::paginate(document, self.fonts.as_ref(), &self.config)
    }

    /// Validates a request body for `output`: as [`Engine::validate`], but
    /// ZPL with printer-native barcodes of a document without
    /// `settings.print_dpi` is validated at the label's dpi, so that its
    /// barcodes' modules are whole dots of that printer and can go native
    /// (`crate::native_barcode`).
    pub fn validate_for(&self, body: &[u8], output: &Output) -> Result<LaidOut, RequestError> {
        self.validate_body_for(Body::classify(validate::parse_json(body)?)?, output)
    }

    /// [`Engine::validate_for`] of a parsed body.
    fn validate_body_for(&self, mut body: Body, output: &Output) -> Result<LaidOut, RequestError> {
        let Output::Zpl(options) = output else {
            return self.validate_body(body);
        };
        if !options.native_barcodes {
            return self.validate_body(body);
        }
        if let Some(root) = body.document_mut().as_object_mut() {
            let settings = root
                .entry("settings")
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
            if let Some(settings) = settings.as_object_mut() {
                settings
                    .entry("print_dpi")
                    .or_insert_with(|| options.dpi.unwrap_or(zpl::DEFAULT_DPI).into());
            }
        }
        self.validate_body(body)
    }

    /// Lowers a validated document to Typst source (for `--emit-typst`).
    pub fn lower(&self, doc: &LaidOut) -> Lowered {
        lower::lower(doc, &self.config, self.fonts.as_ref())
    }

    /// JSON body in, PDF out.
    pub fn render_bytes(&self, body: &[u8]) -> Result<Rendered, RenderError> {
        let doc = self.validate(body)?;
        self.render(&doc)
    }

    /// Renders a validated document, dated now (see [`clock`]).
    pub fn render(&self, doc: &LaidOut) -> Result<Rendered, RenderError> {
        self.render_at(doc, clock())
    }

    /// Renders a validated document as `output` asks, dated now.
    pub fn render_as(&self, doc: &LaidOut, output: &Output) -> Result<Rendered, RenderError> {
        match output {
            Output::Pdf => self.render(doc),
            Output::Png(options) => {
                let raster =
                    Raster::resolve(options.dpi, options.mono, &doc.document, &self.config)
                        .map_err(refused)?;
                let now = clock();
                let placed = doc.display_list();
                let (mut pngs, sheets) =
                    self.render_png_at(doc, &placed, &raster, options.sheet, now)?;
                let name = crate::pdf::output::file_name(&doc.document.settings.delivery, now);
                let warnings = crate::warnings::check_placed(doc, &placed).len();
                if pngs.len() == 1 {
                    let sheet = options.sheet.unwrap_or(1);
                    return Ok(Rendered {
                        bytes: pngs.pop().unwrap_or_default(),
                        format: Format::Png,
                        sheets,
                        delivered_sheets: 1,
                        documents: 1,
                        file_name: name.map(|name| raster::file_name(&name, sheet, sheets)),
                        warnings,
                    });
                }
                // Every sheet of a document of several: one archive.
                let entries: Vec<(String, Vec<u8>)> = pngs
                    .into_iter()
                    .enumerate()
                    .map(|(i, png)| (archive::sheet_name(1, i + 1, "png"), png))
                    .collect();
                Ok(Rendered {
                    bytes: archive::zip(&entries),
                    format: Format::Zip,
                    sheets,
                    delivered_sheets: sheets,
                    documents: 1,
                    file_name: name.map(|name| format!("{}.zip", raster::stem(&name))),
                    warnings,
                })
            }
            Output::Zpl(options) => self.render_zpl_at(doc, &doc.display_list(), options, clock()),
        }
    }

    /// A validated document as ZPL: the sheets `options` asks for, one
    /// label each, in order; refused (API-002 at `dpi`) past
    /// `limits.zpl_bytes`.
    fn render_zpl_at(
        &self,
        doc: &LaidOut,
        placed: &[Sheet],
        options: &ZplOptions,
        now: OffsetDateTime,
    ) -> Result<Rendered, RenderError> {
        let raster = zpl::resolve(options.dpi, &doc.document).map_err(refused)?;
        let limits = &self.config.limits;
        let dpi = raster.dpi as u32;
        let native_dpi = options.native_barcodes.then_some(dpi);
        // Per sheet, the printer's own commands for its native barcodes.
        let native: Vec<Vec<String>> = match native_dpi {
            Some(dpi) => placed
                .iter()
                .map(|sheet| {
                    sheet
                        .items
                        .iter()
                        .filter_map(|item| match (item.element, item.bounds) {
                            (crate::ir::Element::Barcode(b), Some(at)) => {
                                crate::native_barcode::command(&doc.document, b, (at.x, at.y), dpi)
                            }
                            _ => None,
                        })
                        .collect()
                })
                .collect(),
            None => Vec::new(),
        };
        let mut out = String::new();
        let mut delivered = 0;
        let sheets = self.draw_sheets(doc, placed, options.sheet, native_dpi, now, |page, sheet| {
            let pixmap = raster.pixmap(page, sheet, limits)?;
            let dots = zpl::Dots::from_rgba(pixmap.data(), pixmap.width() as usize);
            drop(pixmap);
            let fields = native.get(sheet - 1).map_or(&[][..], Vec::as_slice);
            zpl::write_label(&dots, fields, options.copies, &mut out);
            delivered += 1;
            if out.len() as u64 > limits.zpl_bytes {
                return Err(Violation {
                    path: "dpi".into(),
                    message: format!(
                        "the ZPL reaches {} bytes by sheet {sheet}, more than limits.zpl_bytes ({}); ask for a lower dpi or one sheet",
                        out.len(),
                        limits.zpl_bytes
                    ),
                });
            }
            Ok(())
        })?;
        let file_name = crate::pdf::output::file_name(&doc.document.settings.delivery, now)
            .map(|name| format!("{}.zpl", raster::stem(&name)));
        Ok(Rendered {
            bytes: out.into_bytes(),
            format: Format::Zpl,
            sheets,
            delivered_sheets: delivered,
            documents: 1,
            file_name,
            warnings: crate::warnings::check_placed(doc, placed).len(),
        })
    }

    /// Sheets of a validated document as PNGs: sheet `only` (1-based), or
    /// every sheet. Also returns the document's sheet count. One compile
    /// for all of them.
    pub fn render_pngs(
        &self,
        doc: &LaidOut,
        dpi: Option<u32>,
        mono: bool,
        only: Option<usize>,
    ) -> Result<(Vec<Vec<u8>>, usize), RenderError> {
        let raster = Raster::resolve(dpi, mono, &doc.document, &self.config).map_err(refused)?;
        self.render_png_at(doc, &doc.display_list(), &raster, only, clock())
    }

    fn render_png_at(
        &self,
        laid: &LaidOut,
        placed: &[Sheet],
        raster: &Raster,
        only: Option<usize>,
        now: OffsetDateTime,
    ) -> Result<(Vec<Vec<u8>>, usize), RenderError> {
        let mut pngs = Vec::new();
        let sheets = self.draw_sheets(laid, placed, only, None, now, |page, sheet| {
            pngs.push(raster.png(page, sheet, &self.config.limits)?);
            Ok(())
        })?;
        Ok((pngs, sheets))
    }

    /// Compiles a validated document once and hands sheet `only` (1-based),
    /// or every sheet in order, to `draw`; returns the document's sheet
    /// count. A sheet past the end is refused (API-002 at `sheet`) before
    /// anything is compiled. With `native_dpi`, printer-native barcodes are
    /// left out of the sheets (`lower::lower_for`).
    fn draw_sheets(
        &self,
        laid: &LaidOut,
        placed: &[Sheet],
        only: Option<usize>,
        native_dpi: Option<u32>,
        now: OffsetDateTime,
        mut draw: impl FnMut(&typst_layout::Page, usize) -> Result<(), Violation>,
    ) -> Result<usize, RenderError> {
        let mut lowered =
            lower::lower_for(laid, placed, &self.config, self.fonts.as_ref(), native_dpi);
        let sheets = lowered.sheets;
        if let Some(sheet) = only.filter(|s| !(1..=sheets).contains(s)) {
            return Err(refused(Violation {
                path: "sheet".into(),
                message: format!(
                    "the document has {sheets} sheet(s); sheet {sheet} does not exist"
                ),
            }));
        }
        // Runs of sheets compiled at once: every sheet in one run, or a long
        // document's in slices (`Lowered::slice_size`), so that Typst holds
        // one slice's pages at a time; then one sheet asked for compiles
        // alone.
        let slice = lowered.slice_size(&self.config.limits);
        let runs: Vec<std::ops::Range<usize>> = match (only, slice) {
            (Some(sheet), Some(_)) => vec![sheet - 1..sheet],
            (None, Some(slice)) => slices(sheets, slice).collect(),
            (_, None) => vec![0..sheets],
        };
        if slice.is_some() {
            // What validation and lowering freed goes back before Typst starts.
            memory::trim();
        }
        let today = to_datetime(now);
        for run in runs {
            let part = if run.len() == sheets {
                std::mem::replace(&mut lowered, Lowered::of_source(String::new()))
            } else {
                lowered.slice(run.clone())
            };
            let world = RenderWorld::new(self.fonts.clone(), part.source, part.images, today);
            let document = typeset(&world)?;
            let pages = document.pages();
            let wanted: Vec<usize> = match only {
                Some(sheet) => vec![sheet],
                None => run.clone().map(|i| i + 1).collect(),
            };
            for sheet in wanted {
                let page = pages.get(sheet - 1 - run.start).ok_or_else(|| {
                    RenderError::Compile(format!(
                        "sheet {sheet} is missing from the compiled document"
                    ))
                })?;
                draw(page, sheet).map_err(refused)?;
            }
            drop(document);
            if slice.is_some() {
                memory::after_slice();
            }
        }
        memory::after_render();
        Ok(sheets)
    }

    /// Renders a validated document dated `now`: the PDF's dates, Typst's
    /// `datetime.today()` and the download name. Like Typst's `World::today`,
    /// the clock is an input, so a caller (a test) fixes it without touching
    /// the process environment.
    pub fn render_at(&self, laid: &LaidOut, now: OffsetDateTime) -> Result<Rendered, RenderError> {
        let placed = laid.display_list();
        let lowered = lower::lower_for(laid, &placed, &self.config, self.fonts.as_ref(), None);
        let doc = &laid.document;
        let sheets = lowered.sheets;
        let export = Export::of(doc);
        let pdf = match lowered.slice_size(&self.config.limits) {
            Some(slice) if export.can_slice() => {
                self.compile_in_slices(&lowered, slice, &export, now)?
            }
            _ => self.compile(lowered, &export, now)?,
        };
        Ok(Rendered {
            bytes: pdf,
            format: Format::Pdf,
            sheets,
            delivered_sheets: sheets,
            documents: 1,
            file_name: crate::pdf::output::file_name(&doc.settings.delivery, now),
            warnings: crate::warnings::check_placed(laid, &placed).len(),
        })
    }

    /// Compiles any Typst source with this engine's fonts, as stock Typst
    /// exports it: benchmarks use it for the hand-written baseline, which
    /// measures Typst as its users run it, so it does without labelpress's
    /// patch to krilla (vendor/krilla/PATCHES.md: every stream deflated at
    /// level 6 by a new encoder, font programs anew on every export).
    pub fn render_typst(&self, source: String) -> Result<Vec<u8>, RenderError> {
        let export = Export {
            profile: None,
            tagged: false,
            creator: PRODUCER.into(),
            producer: PRODUCER.into(),
        };
        krilla::stream::with_stock_streams(|| {
            self.compile(Lowered::of_source(source), &export, clock())
        })
    }

    /// Compiles and exports `lowered` `slice` sheets at a time, each
    /// slice's pages dropped before the next is compiled, and joins the
    /// slices' PDFs (`crate::pdf::Joined`): Typst holds one slice's pages,
    /// not the document's. The caller checks that the document's pages
    /// stand alone ([`Export::can_slice`], [`Lowered::slice_size`]).
    fn compile_in_slices(
        &self,
        lowered: &Lowered,
        slice: usize,
        export: &Export,
        now: OffsetDateTime,
    ) -> Result<Vec<u8>, RenderError> {
        let joining = |e: crate::pdf::JoinError| RenderError::Compile(e.to_string());
        let mut joined: Option<crate::pdf::Joined> = None;
        // What validation and lowering freed goes back before Typst starts.
        memory::trim();
        for range in slices(lowered.sheets, slice) {
            let pdf = self.compile(lowered.slice(range), export, now)?;
            memory::after_slice();
            match joined.as_mut() {
                None => joined = Some(crate::pdf::Joined::new(&pdf).map_err(joining)?),
                Some(joined) => joined.append(&pdf).map_err(joining)?,
            }
        }
        joined
            .ok_or_else(|| RenderError::Compile("a sliced document has no sheets".into()))?
            .finish()
            .map_err(joining)
    }

    /// Compiles lowered source and exports it as `export` says, dated `now`.
    fn compile(
        &self,
        lowered: Lowered,
        export: &Export,
        now: OffsetDateTime,
    ) -> Result<Vec<u8>, RenderError> {
        let today = to_datetime(now);
        let link_alts = lowered.link_alts;
        let world = RenderWorld::new(self.fonts.clone(), lowered.source, lowered.images, today);
        let document = typeset(&world)?;
        let standards = match export.profile {
            Some(p) => PdfStandards::new(&[p.standard()])
                .map_err(|e| RenderError::Compile(e.message().to_string()))?,
            None => PdfStandards::default(),
        };
        let options = PdfOptions {
            ident: Smart::Auto,
            creator: Smart::Custom(Some(export.creator.clone())),
            timestamp: Some(Timestamp::new_utc(today)),
            page_ranges: None,
            standards,
            tagged: export.tagged,
            pretty: false,
        };
        let pdf = typst_pdf::pdf(&document, &options)
            .map_err(|errors| RenderError::Compile(describe(&world, errors.as_slice())))?;
        drop(document);
        memory::after_render();
        crate::pdf::patch(pdf, &export.producer, &link_alts)
            .map_err(|e| RenderError::Compile(e.to_string()))
    }
}

/// Sheets `0..sheets` in runs of `slice` (the last one shorter).
fn slices(sheets: usize, slice: usize) -> impl Iterator<Item = std::ops::Range<usize>> {
    (0..sheets)
        .step_by(slice.max(1))
        .map(move |start| start..(start + slice).min(sheets))
}

/// The compiled document of `world`'s source: what both the PDF export and
/// the rasteriser start from.
fn typeset(world: &RenderWorld) -> Result<PagedDocument, RenderError> {
    typst::compile::<PagedDocument>(world)
        .output
        .map_err(|errors| RenderError::Compile(describe(world, errors.as_slice())))
}

/// A request the output options cannot be met for: API-002 at `violation.path`.
fn refused(violation: Violation) -> RenderError {
    RenderError::Request(RequestError::Invalid(vec![violation]))
}

/// How one document is exported.
struct Export {
    profile: Option<crate::pdf::Profile>,
    tagged: bool,
    creator: String,
    producer: String,
}

impl Export {
    /// Whether a document exported so can be compiled in slices of sheets
    /// and joined (`crate::pdf::Joined`): not when tagged (one structure
    /// tree spans every page) nor under a PDF/A profile (one output intent
    /// and metadata stream must describe every page).
    fn can_slice(&self) -> bool {
        !self.tagged && self.profile.is_none()
    }

    /// As `doc`'s settings ask.
    fn of(doc: &crate::ir::Document) -> Export {
        let settings = &doc.settings;
        let named = |given: &Option<String>| given.clone().unwrap_or_else(|| PRODUCER.to_string());
        Export {
            profile: settings.profile,
            tagged: settings.tagged,
            creator: named(&settings.metadata.creator),
            producer: named(&settings.metadata.producer),
        }
    }
}

/// Now, or `SOURCE_DATE_EPOCH` when set (byte-for-byte reproducible output).
pub fn clock() -> OffsetDateTime {
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .and_then(|secs| OffsetDateTime::from_unix_timestamp(secs).ok())
        .unwrap_or_else(OffsetDateTime::now_utc)
}

fn to_datetime(t: OffsetDateTime) -> Datetime {
    Datetime::from_ymd_hms(
        t.year(),
        t.month() as u8,
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
    )
    .unwrap_or_else(|| Datetime::from_ymd(2000, 1, 1).expect("valid date"))
}

/// Typst diagnostics as one line each, with the generated line they point at.
fn describe(world: &RenderWorld, errors: &[typst::diag::SourceDiagnostic]) -> String {
    use typst::WorldExt;
    errors
        .iter()
        .map(|d| {
            let line = world
                .range(d.span)
                .and_then(|r| world.main_source().lines().byte_to_line(r.start))
                .map(|l| format!(" (generated line {})", l + 1))
                .unwrap_or_default();
            format!("{}{line}", d.message)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests;
