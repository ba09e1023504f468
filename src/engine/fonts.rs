//! Fonts: DejaVu Sans embedded (so rendering needs nothing installed), then
//! an optional `--fonts DIR`, then the system's fonts.

use std::path::Path;

use typst::foundations::Bytes;
use typst::text::{Font, FontBook, FontInfo};
use typst::utils::LazyHash;
use typst_kit::fonts::FontStore;

/// The embedded default family.
pub const DEFAULT_FAMILY: &str = "DejaVu Sans";

/// Where fonts come from besides the embedded family.
#[derive(Debug, Clone, Default)]
pub struct FontOptions {
    /// Scan the system's font folders.
    pub system: bool,
    /// Extra folder to scan.
    pub dir: Option<std::path::PathBuf>,
}

/// The fonts one engine uses; built once, shared by every render.
pub struct Fonts {
    store: FontStore,
}

impl Fonts {
    pub fn load(options: &FontOptions) -> Fonts {
        let mut store = FontStore::new();
        for data in [
            dejavu::sans::regular(),
            dejavu::sans::bold(),
            dejavu::sans::oblique(),
            dejavu::sans::bold_oblique(),
            dejavu::sans::extra_light(),
        ] {
            for font in Font::iter(Bytes::new(data)) {
                let info = font.info().clone();
                store.push((font, info));
            }
        }
        if let Some(dir) = &options.dir {
            store.extend(typst_kit::fonts::scan(Path::new(dir)));
        }
        if options.system {
            store.extend(typst_kit::fonts::system());
        }
        Fonts { store }
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

impl crate::validate::FontCatalog for Fonts {
    fn has_family(&self, family: &str) -> bool {
        self.info(family).is_some()
    }

    fn ascender(&self, family: &str, weight: u16) -> f64 {
        let book = self.book();
        let variant = typst::text::FontVariant {
            weight: typst::text::FontWeight::from_number(weight),
            ..Default::default()
        };
        book.select(&family.to_lowercase(), variant)
            .and_then(|i| self.font(i))
            .map(|f| {
                f.instantiate(
                    variant,
                    typst::layout::Abs::pt(10.0),
                    &typst::text::FontVariations::default(),
                )
                .metrics()
                .ascender
                .get()
            })
            .unwrap_or(0.928)
    }
}
