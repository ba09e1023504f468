//! A link's `alt` text in the PDF. typst 0.15's `link` takes no alternative
//! text: typst-pdf writes the URL or "page N" as the annotation's `/Contents`
//! under the tagged profiles and nothing otherwise. So the request's `alt` is
//! written afterwards, in place, with the producer patch (`info.rs`): as the
//! link annotation's `/Contents`, and under the tagged profiles also as `/Alt`
//! of the `Link` structure element that owns the annotation.
//!
//! Which annotation is which: the lowering wraps every link's content in one
//! box, so each link is one annotation, and typst-pdf writes a page's link
//! annotations into `/Annots` in the order the lowering placed the links
//! (`Lowered::link_alts`). A page whose number of link annotations is not the
//! number of links placed on it is left as it is, never guessed at.

use std::collections::{HashMap, HashSet};

use super::info::{dict, pdf_text_string, reference, Edit, File, ProducerError};
use super::syntax::{Object, Spanned};

/// Pages and structure elements visited at most: a bound against a malformed
/// tree, far above what the sheet limit produces.
const MAX_NODES: usize = 2_000_000;

/// Edits that write `alts` (per sheet, one entry per link placed, in order)
/// into the link annotations and their structure elements.
pub(super) fn alt_edits(
    file: &File,
    alts: &[Vec<Option<String>>],
) -> Result<Vec<Edit>, ProducerError> {
    if alts.iter().flatten().all(Option::is_none) {
        return Ok(Vec::new());
    }
    let catalog = file.catalog()?;
    let mut edits = Vec::new();
    // Annotation object number -> its alt text, for the structure elements.
    let mut by_annotation: HashMap<u32, &str> = HashMap::new();
    let pages = match catalog.get(b"Pages") {
        Some(p) => page_leaves(file, p)?,
        None => Vec::new(),
    };
    for (page, wanted) in pages.iter().zip(alts) {
        if wanted.iter().all(Option::is_none) {
            continue;
        }
        let links = link_annotations(file, page)?;
        if links.len() != wanted.len() {
            continue;
        }
        for ((num, annotation), alt) in links.iter().zip(wanted) {
            let Some(alt) = alt else { continue };
            let text = pdf_text_string(alt);
            let annotation = dict(annotation, "a link annotation")?;
            edits.push(match annotation.get(b"Contents") {
                Some(old) => Edit::replace(old.span.clone(), text),
                None => Edit::replace(
                    annotation.close..annotation.close,
                    format!("/Contents {text}"),
                ),
            });
            by_annotation.insert(*num, alt);
        }
    }
    if let Some(root) = catalog.get(b"StructTreeRoot") {
        if !by_annotation.is_empty() {
            edits.extend(structure_alt_edits(file, root, &by_annotation)?);
        }
    }
    Ok(edits)
}

/// The page dictionaries of the page tree, in page order.
fn page_leaves(file: &File, pages: &Spanned) -> Result<Vec<Spanned>, ProducerError> {
    let mut out = Vec::new();
    let mut stack = vec![pages.clone()];
    let mut seen = HashSet::new();
    while let Some(node) = stack.pop() {
        let num = reference(&node, "a page tree node")?.0;
        if !seen.insert(num) || seen.len() > MAX_NODES {
            return Err(ProducerError::Unsupported("a page tree that loops"));
        }
        let object = file.object(reference(&node, "a page tree node")?)?.value;
        let d = dict(&object, "a page tree node")?;
        match d.get(b"Kids").map(|k| &k.object) {
            Some(Object::Array(kids)) => stack.extend(kids.iter().rev().cloned()),
            _ => out.push(object),
        }
    }
    Ok(out)
}

/// A page's link annotations in `/Annots` order: object number and dictionary.
fn link_annotations(file: &File, page: &Spanned) -> Result<Vec<(u32, Spanned)>, ProducerError> {
    let page = dict(page, "a page")?;
    let annots = match page.get(b"Annots") {
        None => return Ok(Vec::new()),
        Some(Spanned {
            object: Object::Ref(..),
            ..
        }) => {
            let r = reference(page.get(b"Annots").expect("matched"), "/Annots")?;
            file.object(r)?.value
        }
        Some(inline) => inline.clone(),
    };
    let Object::Array(items) = annots.object else {
        return Err(ProducerError::WrongType {
            what: "/Annots",
            expected: "an array",
        });
    };
    let mut out = Vec::new();
    for item in &items {
        let r = reference(item, "an annotation")?;
        let value = file.object(r)?.value;
        let is_link = matches!(
            dict(&value, "an annotation")?.get(b"Subtype").map(|s| &s.object),
            Some(Object::Name(n)) if n.as_slice() == b"Link"
        );
        if is_link {
            out.push((r.0, value));
        }
    }
    Ok(out)
}

/// `/Alt` on each `Link` structure element whose object reference names an
/// annotation that has alt text.
fn structure_alt_edits(
    file: &File,
    root: &Spanned,
    by_annotation: &HashMap<u32, &str>,
) -> Result<Vec<Edit>, ProducerError> {
    let mut edits = Vec::new();
    let mut stack = vec![root.clone()];
    let mut seen = HashSet::new();
    while let Some(node) = stack.pop() {
        let value = match node.object {
            Object::Ref(..) => {
                let r = reference(&node, "a structure element")?;
                if !seen.insert(r.0) || seen.len() > MAX_NODES {
                    continue;
                }
                file.object(r)?.value
            }
            _ => node,
        };
        let d = match &value.object {
            Object::Dict(d) => d,
            Object::Array(items) => {
                stack.extend(items.iter().cloned());
                continue;
            }
            _ => continue,
        };
        let is_link = matches!(
            d.get(b"S").map(|s| &s.object),
            Some(Object::Name(n)) if n.as_slice() == b"Link"
        );
        let kids = d.get(b"K");
        if is_link {
            let alt = kids
                .into_iter()
                .flat_map(|k| match &k.object {
                    Object::Array(items) => items.clone(),
                    _ => vec![k.clone()],
                })
                .find_map(|kid| match &kid.object {
                    Object::Dict(objr) => match objr.get(b"Obj").map(|o| &o.object) {
                        Some(Object::Ref(num, _)) => by_annotation.get(num).copied(),
                        _ => None,
                    },
                    _ => None,
                });
            if let Some(alt) = alt {
                let text = pdf_text_string(alt);
                edits.push(match d.get(b"Alt") {
                    Some(old) => Edit::replace(old.span.clone(), text),
                    None => Edit::replace(d.close..d.close, format!("/Alt {text}")),
                });
            }
            continue;
        }
        // Only the tree's own kids: a dictionary's /P (parent), /Pg (page) or
        // /Obj would lead out of it.
        if let Some(kids) = kids {
            stack.push(kids.clone());
        }
    }
    Ok(edits)
}
