//! The runtime configuration: every default and every limit the renderer uses.
//!
//! This struct is the single source of truth. The renderer reads its defaults
//! from here, `GET /v1/doc/runtime-config` serialises it, and `--config FILE`
//! (TOML) and `LABELPRESS_<SECTION>__<KEY>` variables override it at start
//! ([`sources`]). Nothing else in the crate hard-codes a default.
//!
//! Beside these settings runtime-config publishes read-only catalogs of what
//! this build and node support ([`catalog`]): page sizes, PDF profiles,
//! barcode symbologies with their options, font families.

mod catalog;
pub mod ranges;
mod sources;

pub use catalog::{page_preset, PagePreset, Published, PublishedFonts, PAGE_PRESETS};
pub use sources::{ConfigError, READ_ONLY_KEYS};

use serde::{Deserialize, Serialize};

/// The embedded default family (the engine embeds DejaVu Sans).
pub const DEFAULT_FAMILY: &str = "DejaVu Sans";

/// How many points a polygon has: validation and the request schema. A fixed
/// bound, not a setting; here so that the model's schema reads it without
/// importing validation.
pub const POLYGON_POINTS: std::ops::RangeInclusive<usize> = 3..=10_000;

/// The image formats a document may name (`format`, a resource file's
/// extension): one list for validation and the request schema.
pub const IMAGE_FORMATS: &[&str] = &["png", "jpg", "jpeg", "gif", "webp", "svg"];

/// Defaults and limits of one running service (or one CLI invocation).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RuntimeConfig {
    pub defaults: StyleDefaults,
    pub fonts: FontFallback,
    pub limits: Limits,
}

/// Where characters go that a text's own family lacks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FontFallback {
    /// Families tried in this order, after the text's own family, for each
    /// character it lacks; families not installed are skipped. Every text is
    /// set in its family followed by this list (Typst's `text(font: (..))`),
    /// measured the same way, and refused (API-002) when a character is in
    /// none of them. Latin stays in the requested family, since the
    /// requested family comes first. CJK comes after the other scripts: its
    /// faces also carry Latin, Greek, Cyrillic and symbols, drawn in the
    /// style of CJK typography, and they are the largest faces to load.
    /// Han characters take Japanese forms unless the document's
    /// `metadata.language` is Chinese (`zh`: the font's `locl` feature).
    pub fallback: Vec<String>,
}

impl Default for FontFallback {
    fn default() -> Self {
        let families = [
            DEFAULT_FAMILY,
            "Noto Sans",
            "Noto Sans Arabic",
            "Noto Sans Hebrew",
            "Noto Sans Armenian",
            "Noto Sans Georgian",
            "Noto Sans Thai",
            "Noto Sans Lao",
            "Noto Sans Khmer",
            "Noto Sans Myanmar",
            "Noto Sans Devanagari",
            "Noto Sans Bengali",
            "Noto Sans Gurmukhi",
            "Noto Sans Gujarati",
            "Noto Sans Oriya",
            "Noto Sans Tamil",
            "Noto Sans Telugu",
            "Noto Sans Kannada",
            "Noto Sans Malayalam",
            "Noto Sans Sinhala",
            "Noto Sans Ethiopic",
            "Noto Sans Symbols",
            "Noto Sans Symbols2",
            "Noto Sans Math",
            "Noto Sans CJK JP",
        ];
        FontFallback {
            fallback: families.iter().map(|f| f.to_string()).collect(),
        }
    }
}

/// System defaults, the last step of the style resolution chain
/// (element field, then `settings.defaults`, then these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StyleDefaults {
    /// Family used when a text style names none. It is embedded in the binary.
    pub font_family: String,
    /// Text size in pt.
    pub font_size: f64,
    pub text_color: String,
    /// Baseline-to-baseline distance as a multiple of the font size.
    pub line_height: f64,
    /// Lowest size in pt that `shrink_to_fit` goes down to.
    pub min_font_size: f64,
    /// Stroke of a `line` whose `stroke` is omitted (mm).
    pub line_stroke_width: f64,
    /// Stroke of rect/circle/ellipse/polygon whose `stroke` is omitted (mm).
    pub shape_stroke_width: f64,
    pub stroke_color: String,
    /// Size of line-end markers in mm.
    pub marker_size: f64,
    /// Corner radius of rectangles in mm.
    pub corner_radius: f64,
    /// Table cell padding (left and right) in mm when no style sets one.
    pub cell_padding_x: f64,
    /// Table cell padding (top and bottom) in mm when no style sets one.
    pub cell_padding_y: f64,
    /// Resolution of PNG output (dots per inch) when neither the request
    /// (`?dpi=`, `--dpi`) nor `settings.print_dpi` gives one: 203, the
    /// common direct thermal printer.
    pub png_dpi: f64,
}

impl Default for StyleDefaults {
    fn default() -> Self {
        Self {
            font_family: DEFAULT_FAMILY.to_string(),
            font_size: 10.0,
            text_color: "#000000".into(),
            line_height: 1.2,
            min_font_size: 4.0,
            line_stroke_width: 0.4,
            shape_stroke_width: 1.0,
            stroke_color: "#000000".into(),
            marker_size: 2.0,
            corner_radius: 0.0,
            cell_padding_x: 1.0,
            cell_padding_y: 0.5,
            png_dpi: 203.0,
        }
    }
}

/// Bounds on the work one request may cause. Typst compiles cannot be
/// cancelled, so every bound is checked before compiling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Largest accepted request body in bytes.
    pub body_bytes: usize,
    /// Most sheets (request pages plus continuation sheets) in one document.
    pub sheets: usize,
    /// Most table cells in one document. Left out of the configuration, it
    /// is what a render worker's memory cap holds
    /// ([`Limits::table_cells_within`]), so that every document inside the
    /// published limits renders; set above that, the start is refused.
    pub table_cells: usize,
    /// Most elements (all pages, header and footer, block children) in one document.
    pub elements: usize,
    /// Most characters of text content in one document.
    pub text_chars: usize,
    /// Most characters on one line of a text without `style.width` (such a
    /// line never wraps, and its layout time grows with the square of its
    /// length).
    pub text_line_chars: usize,
    /// Largest decoded image, in pixels (width x height).
    pub image_pixels: u64,
    /// Largest encoded image, in bytes.
    pub image_bytes: usize,
    /// Most bytes of pixels all distinct images of one document decode into
    /// (each image is also bounded by `image_pixels` on its own; a document
    /// of many large images is bounded here, well inside a render worker's
    /// memory cap).
    pub images_decoded_bytes: u64,
    /// Deepest nesting in an SVG image, in levels: elements, and what usvg
    /// nests for `use`, clip paths, masks, patterns, markers, filters and
    /// embedded SVGs. usvg and the PDF writer recurse once per level on the
    /// stack, about 3.5 KiB a level: 600 levels overflowed a 2 MiB render
    /// thread and killed the process (issue 14 item 1). 64 is deeper than
    /// drawing tools nest (a dozen or two) and validates and renders within
    /// 320 KiB (`examples/image_cost.rs stack`): it fits the 2 MiB blocking
    /// threads that validate what the render queue refuses, too.
    pub svg_depth: u64,
    /// Most elements an SVG image may expand to: `use` copies, clip paths,
    /// masks and patterns once per use, markers once per vertex, embedded
    /// SVGs. 100,000 rects validate in 0.5 s and render in 0.7 s
    /// (`examples/image_cost.rs elements`), several times a detailed map.
    pub svg_elements: u64,
    /// Most characters of `<text>` in an SVG image, counted as elements
    /// are (`use` copies, embedded SVGs). usvg lays text out at about 3 µs
    /// a character: 100,000 take 0.3 s.
    pub svg_text_chars: u64,
    /// Most characters in one `<text>` element of an SVG image: its layout
    /// grows faster than linearly (30,000 characters 0.2 s, 100,000 3 s,
    /// 1,000,000 over 5 minutes).
    pub svg_text_element_chars: u64,
    /// Most filter primitives an SVG image may apply (each filter's
    /// primitives and filter functions, once per element they apply to).
    /// Each rasterises the region it filters: 0.25-0.55 s for a label-sized
    /// image, up to 2 s for a metre-sized one; 200 blurred rects took 66 s.
    pub svg_filter_primitives: u64,
    /// Largest page side in mm (PDF's own limit is 14,400 pt = 5,080 mm).
    pub page_side_mm: f64,
    /// Largest absolute coordinate or length in mm anywhere in a request.
    pub coordinate_mm: f64,
    /// Highest resolution of PNG output (dots per inch; the lowest is 72).
    pub png_dpi_max: u32,
    /// Most pixels (width x height) of one PNG sheet, checked before it is
    /// drawn: typst-render draws into 4 bytes a pixel, so 40,000,000 pixels
    /// (A4 at 600 dpi, a 100 x 150 mm label at 1200 dpi) stay well inside a
    /// render worker's memory cap.
    pub png_pixels: u64,
    /// Most bytes of one ZPL answer (every label of the document): its
    /// sheets are drawn as compressed graphics, a few kB to a few hundred
    /// kB each, so only a document of many large sheets at 600 dpi
    /// reaches it.
    pub zpl_bytes: u64,
    /// A document of more sheets than this is compiled in slices of
    /// `slice_sheets`, each slice's pages dropped before the next, so that
    /// a long document's memory is one slice's pages, not all of them
    /// (whole, Typst holds about 0.45 MiB a sheet of a dense table). A
    /// PDF's slices are exported and joined into one file
    /// (`crate::pdf::Joined`; tagged and PDF/A documents are compiled
    /// whole); PNG and ZPL draw each slice's sheets, and one sheet asked
    /// for is compiled alone. Documents with links to pages are compiled
    /// whole. A shorter document is compiled whole: its compile stays in
    /// Typst's cache for the next render of the same document.
    pub slice_above_sheets: usize,
    /// Sheets in one slice of a document longer than `slice_above_sheets`.
    /// 0: every document is compiled whole.
    pub slice_sheets: usize,
    /// Most documents in one batch (`POST /api/v1/batch`). A batch is
    /// also bounded as one document is: its sheets together within
    /// `sheets`, its body within `body_bytes`.
    pub batch_documents: usize,
    /// Most templates one account may store (`PUT /api/v1/templates/{name}`);
    /// each is at most `body_bytes`.
    pub templates_per_account: usize,
    /// Render deadline in milliseconds (HTTP route).
    pub render_deadline_ms: u64,
    /// Concurrent renders; 0 means one per CPU core.
    pub render_concurrency: usize,
    /// Renders allowed to wait for a slot before API-503 answers.
    pub render_queue: usize,
    /// How far below the rest of the server its renders (the render worker
    /// processes, or with `thread` isolation the render threads) are
    /// scheduled: a nice increment, 0 (same priority) to 19. Renders are long
    /// and CPU-bound; the async side's work (reading requests, answering,
    /// syncing the usage outbox) is short and gates the next render. Niced
    /// renders give way to it at once: on 2 cores, 2.5-3.6% more labels per
    /// second, and a health check's p99 under full render load fell from 3 ms
    /// to 1-1.6 ms. On a host where the service shares one scheduling group
    /// (cgroup) with other busy processes, renders also give way to those:
    /// set 0 there.
    pub render_thread_nice: Nice,
    /// Where a server renders: `process` (default), in pre-started worker
    /// processes, one per render thread, killed and replaced at the
    /// deadline or when they crash; `thread`, on the render threads
    /// themselves (no protection from a compile that runs away or crashes).
    pub render_isolation: Isolation,
    /// Address-space cap of one render worker process in MiB (0: none). A
    /// render that needs more fails alone (422 API-002 naming the cap)
    /// instead of pushing the host into swap or the OOM killer.
    pub render_worker_memory_mb: u64,
    /// How long a verified token stays in the render route's cache, and how
    /// long a rejected one stays blacklisted (seconds).
    pub auth_cache_ttl_s: u64,
    /// How soon a blacklisted token is asked about again when its rejection
    /// can be lifted by an administrator (balance used up, expired, banned),
    /// so that a top-up works within seconds; meanwhile it gets 403 at once
    /// (seconds).
    pub blacklist_recheck_s: u64,
    /// How long a quota lease of a render node with `--verify-url` lasts
    /// (docs/leases.md): the node spends it without asking the verifier,
    /// so this is also the longest a revocation, ban or expiry takes to
    /// reach it (seconds). 0: no leases; the node reports usage after
    /// rendering (the outbox), exact on one node only.
    pub lease_s: u64,
    /// The most units one lease asks for.
    pub lease_max_units: u64,
    /// Per-token rate limit when the verifier's answer carries none.
    pub rate_limit_per_second: u32,
    pub rate_limit_burst: u32,
    /// Failed authentications allowed per client address (per second, burst)
    /// before API-103 answers instead of API-101/102.
    pub failed_auth_per_second: u32,
    pub failed_auth_burst: u32,
    /// The longest the usage outbox holds its disk sync back after a
    /// charged render, so that renders finishing meanwhile share it
    /// (microseconds; 0 syncs at once). It waits only while renders are
    /// queued for a thread, and syncs as soon as the queue is empty: a lone
    /// request is not held back, and under load the sync waits no longer
    /// than the render threads have work.
    pub outbox_commit_delay_us: u64,
    /// Timeout of one call to a remote verifier (`--verify-url`), milliseconds.
    pub verify_timeout_ms: u64,
    /// Connections each verifier node keeps to the PostgreSQL ledger
    /// (`--database-url`).
    pub ledger_connections: usize,
    /// The longest one ledger operation on PostgreSQL may take, waiting for
    /// a connection included, before the call is answered 503 (milliseconds).
    pub ledger_timeout_ms: u64,
    /// `Retry-After` (seconds) of API-502 (verifier unreachable) and API-503.
    pub retry_after_s: u64,
    /// The longest a connection may take to send a request's head (request
    /// line and headers), counted from the connection's start or, on a
    /// kept-alive connection, from the end of the previous answer; past it
    /// the connection is closed. So a client that opens a connection and
    /// never finishes its headers (slowloris) holds it this long at most.
    /// 0 disables the timeout.
    pub header_timeout_ms: u64,
    /// The longest wait for the next piece of a request body, and the grace
    /// period of [`Limits::body_min_bytes_per_s`]. 0 disables both.
    pub body_timeout_ms: u64,
    /// The slowest a request body may arrive on average: the whole body must
    /// be in within `body_timeout_ms` plus one second per this many bytes.
    /// A body too slow is cut off (400), and its connection closed. 0
    /// disables the rate check (the wait per piece still applies).
    pub body_min_bytes_per_s: u64,
    /// The longest a client may leave an answer untaken: when the server
    /// cannot write any of it for this long (the client stopped reading),
    /// the connection is closed. 0 disables the timeout.
    pub write_timeout_ms: u64,
    /// Most open HTTP connections. Beyond it a new connection is answered
    /// 503 API-503 (`/healthz` and `/readyz` still answer) and closed; those
    /// are a small reserve ([`Limits::turn_away_connections`]) in which a
    /// new connection closes the oldest. Lowered at start if need be to fit
    /// the process's file descriptor limit (`labelpress serve` raises its
    /// soft limit to the hard one first).
    pub max_connections: usize,
    /// Barcode service requests allowed to wait for an encode slot before
    /// 503 answers. Encodes run on blocking threads, at most `render_slots()`
    /// at once, so that a flood of large symbols never occupies the async
    /// workers that answer everything else.
    pub barcode_queue: usize,
    /// Smallest module (bar or cell) a barcode element may be drawn with, in
    /// mm, requested (`options.bar_width`) or fitted to the box. 0.01 mm is
    /// a 2,540-dpi dot, below what label and office printers or scanners
    /// resolve; thinner modules only make unreadable symbols and degenerate
    /// geometry.
    pub barcode_module_min_mm: f64,
}

/// The render worker's default address-space cap in MiB.
const DEFAULT_WORKER_MEMORY_MB: u64 = 4096;

/// Table cells one MiB of a render worker's memory holds, with room to
/// spare: the densest tables (20 narrow columns whose every cell wraps, each
/// cell its own placed box in Typst) peak at about 17 KiB a cell.
pub const TABLE_CELLS_PER_WORKER_MIB: u64 = 40;

/// The most table cells allowed when no worker cap binds.
pub const TABLE_CELLS_UNCAPPED: usize = 1_000_000;

impl Limits {
    /// Sheets per slice when a document of `sheets` sheets is compiled in
    /// slices (`slice_above_sheets`, `slice_sheets`); `None`: whole.
    pub fn slice_of(&self, sheets: usize) -> Option<usize> {
        (self.slice_sheets > 0 && sheets > self.slice_above_sheets).then_some(self.slice_sheets)
    }

    /// The memory cap a render actually runs under, in MiB (0: none):
    /// `render_worker_memory_mb` binds only worker processes.
    pub fn render_memory_cap_mb(&self) -> u64 {
        match self.render_isolation {
            Isolation::Process => self.render_worker_memory_mb,
            Isolation::Thread => 0,
        }
    }

    /// The most table cells a render capped at `worker_memory_mb` (0: no
    /// cap) can lay out and compile.
    pub fn table_cells_within(worker_memory_mb: u64) -> usize {
        if worker_memory_mb == 0 {
            return TABLE_CELLS_UNCAPPED;
        }
        let cells = worker_memory_mb.saturating_mul(TABLE_CELLS_PER_WORKER_MIB);
        usize::try_from(cells).map_or(TABLE_CELLS_UNCAPPED, |cells| {
            cells.min(TABLE_CELLS_UNCAPPED)
        })
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            body_bytes: 20 * 1024 * 1024,
            sheets: 2_000,
            table_cells: Limits::table_cells_within(DEFAULT_WORKER_MEMORY_MB),
            elements: 100_000,
            text_chars: 2_000_000,
            text_line_chars: 10_000,
            image_pixels: 40_000_000,
            image_bytes: 15 * 1024 * 1024,
            images_decoded_bytes: 1 << 30,
            svg_depth: 64,
            svg_elements: 100_000,
            svg_text_chars: 100_000,
            svg_text_element_chars: 10_000,
            svg_filter_primitives: 10,
            page_side_mm: 5_080.0,
            coordinate_mm: 100_000.0,
            png_dpi_max: 1_200,
            png_pixels: 40_000_000,
            zpl_bytes: 32_000_000,
            slice_above_sheets: 100,
            slice_sheets: 20,
            batch_documents: 500,
            templates_per_account: 1_000,
            render_deadline_ms: 30_000,
            render_concurrency: 0,
            render_queue: 64,
            render_thread_nice: Nice(19),
            render_isolation: Isolation::Process,
            render_worker_memory_mb: DEFAULT_WORKER_MEMORY_MB,
            auth_cache_ttl_s: 300,
            blacklist_recheck_s: 5,
            lease_s: 5,
            lease_max_units: 1_000,
            rate_limit_per_second: 50,
            rate_limit_burst: 100,
            failed_auth_per_second: 2,
            failed_auth_burst: 30,
            outbox_commit_delay_us: 5_000,
            verify_timeout_ms: 5_000,
            ledger_connections: 16,
            ledger_timeout_ms: 5_000,
            retry_after_s: 5,
            header_timeout_ms: 10_000,
            body_timeout_ms: 10_000,
            body_min_bytes_per_s: 16_384,
            write_timeout_ms: 10_000,
            max_connections: 1_000,
            barcode_queue: 64,
            barcode_module_min_mm: 0.01,
        }
    }
}

/// Where renders run ([`Limits::render_isolation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    Process,
    Thread,
}

/// A nice increment, 0 to 19: how much lower a thread's priority is set than
/// the priority it started with. Lowering needs no privilege.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(try_from = "i64", into = "i64")]
pub struct Nice(i8);

impl Nice {
    pub fn get(self) -> i32 {
        self.0.into()
    }
}

impl TryFrom<i64> for Nice {
    type Error = String;

    fn try_from(value: i64) -> Result<Self, Self::Error> {
        match i8::try_from(value) {
            Ok(nice @ 0..=19) => Ok(Nice(nice)),
            _ => Err(format!("a nice increment is 0 to 19, not {value}")),
        }
    }
}

impl From<Nice> for i64 {
    fn from(nice: Nice) -> i64 {
        nice.0.into()
    }
}

impl Limits {
    /// Render slots: `render_concurrency`, or one per CPU core when 0.
    pub fn render_slots(&self) -> usize {
        match self.render_concurrency {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        }
    }

    /// Checks (`POST /api/v1/label/check`) running at once: one less than
    /// the render slots, at least one, so that a flood of heavy checks,
    /// which cost nothing, always leaves renders a thread.
    pub fn check_slots(&self) -> usize {
        self.render_slots().saturating_sub(1).max(1)
    }

    /// Blocking threads the server may use besides its render threads: they
    /// validate the bodies of requests the render queue refuses (so a bad
    /// body is still 422, not 503), one per render slot and two spare. Each
    /// keeps its own allocator heap, so this bounds the server's RSS (tokio's
    /// default is 512).
    pub fn blocking_threads(&self) -> usize {
        self.render_slots() + 2
    }

    /// Async (tokio) worker threads of a server: one per core on a node
    /// that does not render; on one that does, one per four render slots
    /// (at least one). The async side only reads requests, checks tokens and
    /// writes answers, about a tenth of a render's CPU, and each further
    /// worker adds wake-ups on the cores the render threads need (on 2 cores,
    /// one worker rendered 4.5% more labels per second than two).
    pub fn async_threads(&self, renders: bool) -> usize {
        if renders {
            (self.render_slots() / 4).max(1)
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }
}

impl Limits {
    /// Connections over `max_connections` answered at once (503, or
    /// `/healthz`/`/readyz`): an eighth of the cap, at least 8. Each is held
    /// for at most [`Limits::turn_away_timeout`], and a new one closes the
    /// oldest when all are taken.
    pub fn turn_away_connections(&self) -> usize {
        (self.max_connections / 8).max(8)
    }

    /// How long a turned-away connection may take to send its request and
    /// read the answer: a probe answers in milliseconds, and a slow client
    /// must not hold the reserve. The header timeout if shorter, else 2 s.
    pub fn turn_away_timeout(&self) -> std::time::Duration {
        let ms = match self.header_timeout_ms {
            0 => 2_000,
            n => n.min(2_000),
        };
        std::time::Duration::from_millis(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocking_threads_follow_the_configured_render_slots() {
        let limits = Limits {
            render_concurrency: 8,
            ..Limits::default()
        };
        assert_eq!(limits.render_slots(), 8);
        assert_eq!(limits.blocking_threads(), 10);
        let per_core = Limits::default();
        assert_eq!(per_core.blocking_threads(), per_core.render_slots() + 2);
        assert_eq!(limits.async_threads(true), 2);
        let two = Limits {
            render_concurrency: 2,
            ..Limits::default()
        };
        assert_eq!(two.async_threads(true), 1);
        assert!(two.async_threads(false) >= 1);
    }

    #[test]
    fn checks_leave_renders_a_slot_when_there_are_two() {
        let slots = |n| Limits {
            render_concurrency: n,
            ..Limits::default()
        };
        assert_eq!(
            slots(1).check_slots(),
            1,
            "one slot: checks take turns with renders"
        );
        assert_eq!(slots(2).check_slots(), 1);
        assert_eq!(slots(8).check_slots(), 7);
    }

    #[test]
    fn the_render_thread_nice_value_is_read_from_toml_within_range() {
        let config = RuntimeConfig::from_toml("[limits]\nrender_thread_nice = 5\n").unwrap();
        assert_eq!(config.limits.render_thread_nice.get(), 5);
        assert_eq!(Limits::default().render_thread_nice.get(), 19);
        for bad in ["20", "-1", "300"] {
            let error =
                RuntimeConfig::from_toml(&format!("[limits]\nrender_thread_nice = {bad}\n"))
                    .unwrap_err()
                    .to_string();
            assert!(error.contains("a nice increment is 0 to 19"), "{error}");
        }
        let served = serde_json::to_value(RuntimeConfig::default()).unwrap();
        assert_eq!(served["limits"]["render_thread_nice"], 19);
    }
}
