//! One PDF from the PDFs of a long document's slices of sheets.
//!
//! Typst holds every page of a compiled document in memory until it is
//! exported, so a long document is compiled and exported a slice of sheets
//! at a time (`crate::engine`), and the slices' PDFs are joined here: the
//! first slice's file is kept whole (its catalog, document information,
//! XMP metadata and file identifier describe the document, since every
//! slice was compiled with the same set rules and date); each later slice
//! adds its pages, in order, with everything they reference (fonts, images,
//! annotations), renumbered past the objects already held. A stream or
//! array equal to one already held (an image every sheet shows, its colour
//! space and profile) is not added again: the slice's references go to the
//! one held. (Dictionaries are never shared: a page or an annotation must
//! be referenced from one place.) A slice's
//! own catalog and page tree are left unreferenced and dropped at the end.
//!
//! Only documents whose pages stand alone are sliced: no link goes to a
//! page (it could lie in another slice), no structure tree (tagged PDF),
//! no PDF/A profile (one output intent and metadata for every page).

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use lopdf::{Dictionary, Document, Object, ObjectId};

/// Page attributes a page may inherit from its page tree (ISO 32000-1,
/// 7.7.3.4): copied onto each moved page that lacks them, since the page
/// leaves its slice's tree.
const INHERITED: [&[u8]; 4] = [b"Resources", b"MediaBox", b"CropBox", b"Rotate"];

/// Why the slices could not be joined (a PDF the exporter wrote that this
/// reader cannot follow: a bug on our side).
#[derive(Debug, thiserror::Error)]
#[error("the PDF's slices could not be joined: {0}")]
pub struct JoinError(String);

impl From<lopdf::Error> for JoinError {
    fn from(error: lopdf::Error) -> JoinError {
        JoinError(error.to_string())
    }
}

/// A PDF being joined from slices, first to last.
pub struct Joined {
    document: Document,
    /// The first slice's page tree root, which every page joins.
    pages: ObjectId,
    /// Every stream and array held, by [`shareable`]: the candidates a
    /// later slice's equal object is replaced with.
    shared: HashMap<u64, Vec<ObjectId>>,
}

impl Joined {
    /// Starts from the first slice's PDF.
    pub fn new(first: &[u8]) -> Result<Joined, JoinError> {
        let document = Document::load_mem(first)?;
        let pages = document
            .catalog()?
            .get(b"Pages")
            .and_then(Object::as_reference)?;
        let mut shared = HashMap::new();
        hold(&mut shared, &document.objects);
        Ok(Joined {
            document,
            pages,
            shared,
        })
    }

    /// Appends the pages of the next slice's PDF after those held.
    pub fn append(&mut self, pdf: &[u8]) -> Result<(), JoinError> {
        let mut part = Document::load_mem(pdf)?;
        part.renumber_objects_with(self.document.max_id + 1);
        let pages: Vec<ObjectId> = part.get_pages().into_values().collect();
        for &page in &pages {
            let inherited = inherited_attributes(&part, page)?;
            let dict = part.get_object_mut(page)?.as_dict_mut()?;
            for (key, value) in inherited {
                dict.set(key, value);
            }
            dict.set("Parent", Object::Reference(self.pages));
        }
        self.share_equal_objects(&mut part);
        self.document.max_id = self.document.max_id.max(part.max_id);
        hold(&mut self.shared, &part.objects);
        self.document.objects.extend(part.objects);
        let root = self.document.get_object_mut(self.pages)?.as_dict_mut()?;
        let count = root.get(b"Count").and_then(Object::as_i64)?;
        root.set("Count", count + pages.len() as i64);
        let kids = root.get_mut(b"Kids").and_then(Object::as_array_mut)?;
        kids.extend(pages.into_iter().map(Object::Reference));
        Ok(())
    }

    /// Points `part`'s references to its streams and arrays that equal a
    /// held one at the held one, and drops them from `part`. Repeated until
    /// nothing changes: an image's colour profile is shared first, which
    /// makes its colour space equal, and then the image.
    fn share_equal_objects(&self, part: &mut Document) {
        let mut replaced: HashMap<ObjectId, ObjectId> = HashMap::new();
        loop {
            let found: Vec<(ObjectId, ObjectId)> = part
                .objects
                .iter()
                .filter_map(|(&id, object)| {
                    let candidates = self.shared.get(&shareable(object)?)?;
                    candidates
                        .iter()
                        .find(|held| {
                            self.document
                                .objects
                                .get(held)
                                .is_some_and(|held| same(held, object))
                        })
                        .map(|&held| (id, held))
                })
                .collect();
            if found.is_empty() {
                return;
            }
            for (id, held) in found {
                part.objects.remove(&id);
                replaced.insert(id, held);
            }
            for object in part.objects.values_mut() {
                redirect(object, &replaced);
            }
        }
    }

    /// The joined PDF, without the slices' unreferenced catalogs and trees.
    pub fn finish(mut self) -> Result<Vec<u8>, JoinError> {
        self.document.prune_objects();
        // Numbers without gaps: the trailer's /Size is one past the highest.
        self.document.renumber_objects();
        let mut out = Vec::new();
        self.document
            .save_to(&mut out)
            .map_err(|e| JoinError(e.to_string()))?;
        Ok(out)
    }
}

/// The attributes of [`INHERITED`] that `page` has only through its
/// ancestors in `part`'s page tree (nearest ancestor first wins).
fn inherited_attributes(part: &Document, page: ObjectId) -> Result<Dictionary, JoinError> {
    let mut found = Dictionary::new();
    let own = part.get_dictionary(page)?;
    let mut parent = own.get(b"Parent").and_then(Object::as_reference).ok();
    // A page tree is a tree: a node's ancestors are at most as many as the
    // file's objects, which bounds a malformed cycle.
    let mut steps = part.objects.len();
    while let (Some(node), true) = (parent, steps > 0) {
        steps -= 1;
        let node = part.get_dictionary(node)?;
        for key in INHERITED {
            if !own.has(key) && !found.has(key) {
                if let Ok(value) = node.get(key) {
                    found.set(key, value.clone());
                }
            }
        }
        parent = node.get(b"Parent").and_then(Object::as_reference).ok();
    }
    Ok(found)
}

/// Adds the streams and arrays of `objects` to `shared` (see
/// [`Joined::shared`]).
fn hold(shared: &mut HashMap<u64, Vec<ObjectId>>, objects: &BTreeMap<ObjectId, Object>) {
    for (&id, object) in objects {
        if let Some(key) = shareable(object) {
            shared.entry(key).or_default().push(id);
        }
    }
}

/// The hash of a stream (its dictionary and its bytes as stored) or an
/// array; `None` for what is never shared.
fn shareable(object: &Object) -> Option<u64> {
    let mut hasher = DefaultHasher::new();
    match object {
        Object::Stream(stream) => {
            format!("{:?}", stream.dict).hash(&mut hasher);
            stream.content.hash(&mut hasher);
        }
        Object::Array(items) => format!("{items:?}").hash(&mut hasher),
        _ => return None,
    }
    Some(hasher.finish())
}

/// Whether a held object can stand for `b`: equal arrays, or streams with
/// equal dictionaries and bytes (not their positions in their files).
fn same(a: &Object, b: &Object) -> bool {
    match (a, b) {
        (Object::Stream(a), Object::Stream(b)) => a.content == b.content && a.dict == b.dict,
        (Object::Array(a), Object::Array(b)) => a == b,
        _ => false,
    }
}

/// Rewrites the references in `object` that `replaced` maps.
fn redirect(object: &mut Object, replaced: &HashMap<ObjectId, ObjectId>) {
    match object {
        Object::Reference(id) => {
            if let Some(&held) = replaced.get(id) {
                *id = held;
            }
        }
        Object::Array(items) => items.iter_mut().for_each(|o| redirect(o, replaced)),
        Object::Dictionary(dict) => dict.iter_mut().for_each(|(_, o)| redirect(o, replaced)),
        Object::Stream(stream) => stream
            .dict
            .iter_mut()
            .for_each(|(_, o)| redirect(o, replaced)),
        _ => {}
    }
}
