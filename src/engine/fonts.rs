//! Fonts: DejaVu Sans embedded (so rendering needs nothing installed), then
//! an optional `--fonts DIR`, then the system's fonts.

use std::collections::HashMap;
use std::path::Path;
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

impl FontOptions {
    /// Only the embedded family: output that depends on nothing installed
    /// (benchmarks, tests, reproducible renders).
    pub const EMBEDDED: FontOptions = FontOptions {
        system: false,
        dir: None,
    };
}

/// The fonts one engine uses; built once, shared by every render.
pub struct Fonts {
    store: FontStore,
    /// Measured faces by (lowercase family, weight), filled on first use.
    faces: Mutex<HashMap<(String, u16), Arc<FaceMetrics>>>,
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
    pub fn load(options: &FontOptions) -> Fonts {
        let mut store = FontStore::new();
        for font in EMBEDDED.iter() {
            store.push((font.clone(), font.info().clone()));
        }
        if let Some(dir) = &options.dir {
            store.extend(typst_kit::fonts::scan(Path::new(dir)));
        }
        if options.system {
            store.extend(typst_kit::fonts::system());
        }
        Fonts {
            store,
            faces: Mutex::default(),
        }
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

impl crate::layout::FontCatalog for Fonts {
    fn has_family(&self, family: &str) -> bool {
        self.info(family).is_some()
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
            return FaceMetrics::new(0.928, |_| 0.6);
        };
        let instance = font.instantiate(
            variant,
            typst::layout::Abs::pt(10.0),
            &typst::text::FontVariations::default(),
        );
        let ascender = instance.metrics().ascender.get();
        FaceMetrics::new(ascender, move |c| {
            let ttf = instance.ttf();
            let glyph = ttf.glyph_index(c).unwrap_or_default();
            instance
                .x_advance(glyph.0)
                .map_or(0.5, |em| em.get() as f32)
        })
    }
}
