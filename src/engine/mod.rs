//! The engine: validation, lowering, Typst compile and PDF export behind one call.

mod font_slim;
pub mod fonts;
pub mod memory;
pub mod threads;
mod world;

use std::sync::Arc;

use time::OffsetDateTime;
use typst::foundations::{Datetime, Smart};
use typst_layout::PagedDocument;
use typst_pdf::{PdfOptions, PdfStandards, Timestamp};

use self::fonts::{FontOptions, Fonts};
use self::world::RenderWorld;
use crate::config::RuntimeConfig;
use crate::layout::LaidOut;
use crate::lower::{self, Lowered};
use crate::validate::{self, Environment, RequestError, ResourceDir};

/// Product name written as the PDF producer unless the request names one.
pub const PRODUCER: &str = concat!("labelpress ", env!("CARGO_PKG_VERSION"));

/// Why a request produced no PDF.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// API-001 / API-002.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// API-501: Typst refused the generated document (a bug on our side).
    #[error("the PDF could not be produced: {0}")]
    Compile(String),
}

/// A finished document.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub pdf: Vec<u8>,
    pub sheets: usize,
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

    /// Parses and validates a request body.
    pub fn validate(&self, body: &[u8]) -> Result<LaidOut, RequestError> {
        validate::validate_bytes(body, &self.environment())
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

    /// Renders a validated document dated `now`: the PDF's dates, Typst's
    /// `datetime.today()` and the download name. Like Typst's `World::today`,
    /// the clock is an input, so a caller (a test) fixes it without touching
    /// the process environment.
    pub fn render_at(&self, laid: &LaidOut, now: OffsetDateTime) -> Result<Rendered, RenderError> {
        let lowered = self.lower(laid);
        let doc = &laid.document;
        let sheets = lowered.sheets;
        let profile = doc
            .settings
            .profile
            .as_deref()
            .and_then(crate::pdf::Profile::parse);
        let meta = doc.settings.metadata.clone().unwrap_or_default();
        let export = Export {
            profile,
            // Tags make big documents ~12x larger and slower: only when needed or asked.
            tagged: profile.is_some_and(|p| p.requires_tags())
                || doc.settings.tagged.unwrap_or(false),
            creator: meta.creator.clone().unwrap_or_else(|| PRODUCER.to_string()),
            producer: meta
                .producer
                .clone()
                .unwrap_or_else(|| PRODUCER.to_string()),
        };
        let pdf = self.compile(
            lowered.source,
            lowered.images,
            &lowered.link_alts,
            &export,
            now,
        )?;
        Ok(Rendered {
            pdf,
            sheets,
            file_name: crate::pdf::output::file_name(&doc.settings, now),
            warnings: crate::warnings::check(laid).len(),
        })
    }

    /// Compiles any Typst source with this engine's fonts (benchmarks use it
    /// for the hand-written baseline).
    pub fn render_typst(&self, source: String) -> Result<Vec<u8>, RenderError> {
        let export = Export {
            profile: None,
            tagged: false,
            creator: PRODUCER.into(),
            producer: PRODUCER.into(),
        };
        self.compile(source, Vec::new(), &[], &export, clock())
    }

    fn compile(
        &self,
        source: String,
        images: Vec<Arc<Vec<u8>>>,
        link_alts: &[Vec<Option<String>>],
        export: &Export,
        now: OffsetDateTime,
    ) -> Result<Vec<u8>, RenderError> {
        let today = to_datetime(now);
        let world = RenderWorld::new(self.fonts.clone(), source, images, today);
        let compiled = typst::compile::<PagedDocument>(&world).output;
        let document =
            compiled.map_err(|errors| RenderError::Compile(describe(&world, errors.as_slice())))?;
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
        crate::pdf::patch(pdf, &export.producer, link_alts)
            .map_err(|e| RenderError::Compile(e.to_string()))
    }
}

/// How one document is exported.
struct Export {
    profile: Option<crate::pdf::Profile>,
    tagged: bool,
    creator: String,
    producer: String,
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
