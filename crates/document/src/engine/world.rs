//! The Typst `World` of one render: the only place the compiler sees fonts,
//! files and time.
//!
//! File ids are global and capped at 65,535 distinct paths in typst, so every
//! render reuses the same virtual paths (`/main.typ`, `/img/0`, ...).

use std::sync::{Arc, LazyLock};

use typst::diag::{FileError, FileResult};
use typst::foundations::{Bytes, Datetime, Duration};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World};

use super::fonts::Fonts;

static LIBRARY: LazyLock<LazyHash<Library>> = LazyLock::new(|| LazyHash::new(Library::default()));

fn virtual_id(path: &str) -> FileId {
    let vpath = VirtualPath::new(path).expect("fixed virtual paths are valid");
    FileId::new(RootedPath::new(VirtualRoot::Project, vpath))
}

static MAIN_ID: LazyLock<FileId> = LazyLock::new(|| virtual_id("/main.typ"));

/// Interned ids of `/img/{n}`, created on first use and reused forever.
fn image_id(index: usize) -> FileId {
    static IDS: LazyLock<std::sync::Mutex<Vec<FileId>>> = LazyLock::new(Default::default);
    let mut ids = IDS.lock().unwrap_or_else(|e| e.into_inner());
    while ids.len() <= index {
        let n = ids.len();
        ids.push(virtual_id(&format!("/img/{n}")));
    }
    ids[index]
}

/// Image bytes shared with the lowered document, not copied.
struct Shared(Arc<Vec<u8>>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Everything one compile reads.
pub struct RenderWorld {
    fonts: Arc<Fonts>,
    main: Source,
    images: Vec<Bytes>,
    today: Datetime,
}

impl RenderWorld {
    pub fn new(
        fonts: Arc<Fonts>,
        source: String,
        images: Vec<Arc<Vec<u8>>>,
        today: Datetime,
    ) -> Self {
        let images = images.into_iter().map(|b| Bytes::new(Shared(b))).collect();
        Self {
            fonts,
            main: Source::new(*MAIN_ID, source),
            images,
            today,
        }
    }

    pub fn main_source(&self) -> &Source {
        &self.main
    }
}

impl World for RenderWorld {
    fn library(&self) -> &LazyHash<Library> {
        &LIBRARY
    }

    fn book(&self) -> &LazyHash<FontBook> {
        self.fonts.book()
    }

    fn main(&self) -> FileId {
        *MAIN_ID
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == *MAIN_ID {
            Ok(self.main.clone())
        } else {
            Err(FileError::AccessDenied)
        }
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        // Only the images the request brought; nothing from disk or network.
        (0..self.images.len())
            .find(|&i| image_id(i) == id)
            .map(|i| self.images[i].clone())
            .ok_or(FileError::AccessDenied)
    }

    fn font(&self, index: usize) -> Option<Font> {
        self.fonts.font(index)
    }

    fn today(&self, _offset: Option<Duration>) -> Option<Datetime> {
        Some(self.today)
    }
}
