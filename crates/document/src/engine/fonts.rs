//! Fonts: DejaVu Sans embedded (so Latin, Greek, Cyrillic, Arabic and
//! Hebrew render with nothing installed), then an optional `--fonts DIR`,
//! then the system's fonts (Debian's `fonts-noto-core` and `fonts-noto-cjk`
//! give the other scripts: docs/fonts.md).
//!
//! Scanned fonts are only indexed at start (family, variant, coverage); a
//! face's file is mapped into memory the first time a text needs it, so a
//! process that never prints CJK never touches the CJK collections.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex};

use crate::layout::FaceMetrics;

use typst::foundations::Bytes;
use typst::text::{Font, FontBook, FontInfo};
use typst::utils::LazyHash;
use typst_kit::fonts::FontStore;

pub use crate::config::DEFAULT_FAMILY;

/// Where fonts come from besides the embedded family.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct FontOptions {
    /// Scan the system's font folders.
    pub system: bool,
    /// Extra folder to scan.
    pub dir: Option<std::path::PathBuf>,
}

/// Why a font option cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FontError {
    #[error("--fonts {0}: no such folder")]
    NoFolder(PathBuf),
    #[error("--fonts {0}: no font file (.ttf, .otf, .ttc, .otc) in it or below it")]
    NoFonts(PathBuf),
}

impl FontOptions {
    /// Only the embedded family: output that depends on nothing installed
    /// (benchmarks, tests, reproducible renders).
    pub const EMBEDDED: FontOptions = FontOptions {
        system: false,
        dir: None,
    };

    /// The embedded family and the system's fonts: what `labelpress`
    /// uses unless told otherwise.
    pub const SYSTEM: FontOptions = FontOptions {
        system: true,
        dir: None,
    };

    /// Refuses a `dir` that does not exist or holds no font, so a mistyped
    /// `--fonts` stops the start instead of silently printing without it.
    pub fn check(&self) -> Result<(), FontError> {
        let Some(dir) = &self.dir else { return Ok(()) };
        if !dir.is_dir() {
            return Err(FontError::NoFolder(dir.clone()));
        }
        if typst_kit::fonts::scan(dir).next().is_none() {
            return Err(FontError::NoFonts(dir.clone()));
        }
        Ok(())
    }
}

/// The fonts one engine uses; built once, shared by every render.
pub struct Fonts {
    store: FontStore,
    /// The configured fallback families that are available, in order.
    fallback: Vec<String>,
    /// Measured faces by (lowercase family, weight), filled on first use.
    faces: Mutex<HashMap<(String, u16), Arc<FaceMetrics>>>,
}

/// A scanned font, mapped from its file when first used (a collection's
/// faces each map it). Typst hashes and subsets from the whole font, so a
/// used collection ends up resident; mapped, its pages are page cache that
/// the render worker processes share, where reading it would copy it into
/// each one's heap.
struct MappedFont {
    path: PathBuf,
    index: u32,
}

impl typst_kit::fonts::FontSource for MappedFont {
    fn load(&self) -> Option<Font> {
        let file = std::fs::File::open(&self.path).ok()?;
        // SAFETY: the map is only read. Font folders are not rewritten while
        // a service runs; if a file were truncated under it, reading the
        // lost pages would fault (as for any memory-mapped font, the way
        // fontdb and browsers load them).
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        Font::new(Bytes::new(map), self.index)
    }
}

fn mapped(
    fonts: impl Iterator<Item = (typst_kit::fonts::FontPath, FontInfo)>,
) -> impl Iterator<Item = (MappedFont, FontInfo)> {
    fonts.map(|(p, info)| {
        (
            MappedFont {
                path: p.path,
                index: p.index,
            },
            info,
        )
    })
}

/// The embedded DejaVu faces, slimmed and parsed once per process: every
/// engine (tests and benches make many) shares them.
static EMBEDDED: LazyLock<Vec<Font>> = LazyLock::new(|| {
    [
        dejavu::sans::regular(),
        dejavu::sans::bold(),
        dejavu::sans::oblique(),
        dejavu::sans::bold_oblique(),
        dejavu::sans::extra_light(),
    ]
    .into_iter()
    .flat_map(|data| {
        let data = match super::font_slim::slimmed(data) {
            Some(slim) => Bytes::new(slim),
            None => Bytes::new(data),
        };
        Font::iter(data)
    })
    .collect()
});

impl Fonts {
    /// Indexes the fonts; `fallback` is runtime-config's `fonts.fallback`.
    pub fn load(options: &FontOptions, fallback: &[String]) -> Fonts {
        let mut store = FontStore::new();
        for font in EMBEDDED.iter() {
            store.push((font.clone(), font.info().clone()));
        }
        if let Some(dir) = &options.dir {
            store.extend(mapped(typst_kit::fonts::scan(Path::new(dir))));
        }
        if options.system {
            store.extend(mapped(typst_kit::fonts::system()));
        }
        let book = store.book();
        let fallback = fallback
            .iter()
            .filter(|f| book.select_family(&f.to_lowercase()).next().is_some())
            .cloned()
            .collect();
        Fonts {
            store,
            fallback,
            faces: Mutex::default(),
        }
    }

    /// The available fallback families, in order.
    pub fn fallback(&self) -> &[String] {
        &self.fallback
    }

    pub fn book(&self) -> &LazyHash<FontBook> {
        self.store.book()
    }

    pub fn font(&self, index: usize) -> Option<Font> {
        self.store.font(index)
    }

    /// Families available, sorted, for runtime-config and error messages.
    pub fn families(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .book()
            .families()
            .map(|(name, _)| name.to_string())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    fn info(&self, family: &str) -> Option<&FontInfo> {
        self.book()
            .select_family(&family.to_lowercase())
            .next()
            .and_then(|i| self.book().info(i))
    }
}

/// The scripts `labelpress fonts` reports, each known by a letter of it
/// that a font for the script has.
const SCRIPTS: &[(&str, char)] = &[
    ("Latin", 'A'),
    ("Greek", 'Ω'),
    ("Cyrillic", 'Ж'),
    ("Armenian", 'Ա'),
    ("Georgian", 'ა'),
    ("Hebrew", 'א'),
    ("Arabic", 'ب'),
    ("Thai", 'ก'),
    ("Lao", 'ກ'),
    ("Khmer", 'ក'),
    ("Myanmar", 'က'),
    ("Devanagari", 'क'),
    ("Bengali", 'ক'),
    ("Gurmukhi", 'ਕ'),
    ("Gujarati", 'ક'),
    ("Oriya", 'କ'),
    ("Tamil", 'க'),
    ("Telugu", 'క'),
    ("Kannada", 'ಕ'),
    ("Malayalam", 'ക'),
    ("Sinhala", 'ක'),
    ("Ethiopic", 'ሀ'),
    ("Han", '漢'),
    ("Kana", 'あ'),
    ("Hangul", '한'),
    ("Symbols", '☎'),
];

/// One family as `labelpress fonts` lists it.
#[derive(Debug, serde::Serialize)]
pub struct FamilyScripts {
    pub family: String,
    /// Scripts any of its faces has (from [`SCRIPTS`]).
    pub scripts: Vec<&'static str>,
    /// Its place in the fallback order (1 first), when it is in it.
    pub fallback: Option<usize>,
}

impl Fonts {
    /// Every family with the scripts it covers and its fallback rank.
    pub fn catalogue(&self) -> Vec<FamilyScripts> {
        let book = self.book();
        self.families()
            .into_iter()
            .map(|family| {
                let lower = family.to_lowercase();
                let infos: Vec<&FontInfo> = book
                    .select_family(&lower)
                    .filter_map(|i| book.info(i))
                    .collect();
                let scripts = SCRIPTS
                    .iter()
                    .filter(|(_, c)| infos.iter().any(|i| i.coverage.contains(*c as u32)))
                    .map(|(name, _)| *name)
                    .collect();
                let fallback = self
                    .fallback
                    .iter()
                    .position(|f| f.eq_ignore_ascii_case(&family))
                    .map(|i| i + 1);
                FamilyScripts {
                    family,
                    scripts,
                    fallback,
                }
            })
            .collect()
    }
}

impl crate::layout::FontCatalog for Fonts {
    fn has_family(&self, family: &str) -> bool {
        self.info(family).is_some()
    }

    fn fallback(&self) -> &[String] {
        &self.fallback
    }

    fn families(&self) -> Vec<String> {
        Fonts::families(self)
    }

    fn face(&self, family: &str, weight: u16) -> Arc<FaceMetrics> {
        let key = (family.to_lowercase(), weight);
        let mut faces = self.faces.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(face) = faces.get(&key) {
            return face.clone();
        }
        let face = Arc::new(self.measure_face(&key.0, weight));
        faces.insert(key, face.clone());
        face
    }
}

impl Fonts {
    /// Metrics of the face `book.select` gives Typst for this family and weight.
    fn measure_face(&self, family: &str, weight: u16) -> FaceMetrics {
        let variant = typst::text::FontVariant {
            weight: typst::text::FontWeight::from_number(weight),
            ..Default::default()
        };
        let Some(font) = self
            .book()
            .select(family, variant)
            .and_then(|i| self.font(i))
        else {
            // Unknown families fail validation before anything is measured.
            return FaceMetrics::new(0.928, |_| None);
        };
        let instance = font.instantiate(
            variant,
            typst::layout::Abs::pt(10.0),
            &typst::text::FontVariations::default(),
        );
        let ascender = instance.metrics().ascender.get();
        FaceMetrics::new(ascender, move |c| {
            let glyph = instance.ttf().glyph_index(c)?;
            Some(
                instance
                    .x_advance(glyph.0)
                    .map_or(0.5, |em| em.get() as f32),
            )
        })
    }
}
