//! LP-W07: text elements that print over each other on one sheet.
//!
//! A text is where its lines print ([`super::text::ink`]), so a wide box
//! around a short right-aligned text does not collide with a text beside
//! it. Two texts overlap when those areas share more than
//! [`HORIZONTAL_SLACK`] across and more than [`LEADING_SHARE`] of the
//! shorter one's smallest line height down: a line box holds the leading
//! above capitals, so lines set closer than their line height touch boxes
//! without touching glyphs.
//!
//! The texts of a sheet are its items in the display list
//! ([`crate::layout::display`]): on a page's first sheet its elements, the
//! header and footer and the stack blocks the flow put there; on a
//! continuation sheet the header, footer and its blocks (one with no block
//! text is not looked at again). Each pair is reported once, at the
//! later of the two paths, naming the other.
//!
//! Cost: about one comparison per text and neighbour (see [`overlaps`]);
//! at most [`MAX_PAIRS`] comparisons per document, so even texts piled on
//! one spot stay cheap (the check then stops, incomplete).

use std::collections::HashSet;

use super::{mm, Code, Collector};
use crate::ir::{Element, Rect};
use crate::layout::display::{Sheet, Source};
use crate::layout::geometry::Frame;
use crate::layout::LaidOut;

/// Overlap across (mm) that counts: side bearings are not glyphs.
const HORIZONTAL_SLACK: f64 = 0.05;

/// Share of a line's height two texts may overlap by down (see the module docs).
const LEADING_SHARE: f64 = 0.2;

/// Most pairs of texts compared in one document.
const MAX_PAIRS: usize = 200_000;

/// Where a text element is in the request, ordered as paths are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Origin {
    /// `pages[page].elements[element]`, or within it block `block`'s element `item`.
    Page {
        page: usize,
        element: usize,
        block: Option<(usize, usize)>,
    },
    Header(usize),
    Footer(usize),
}

impl Origin {
    fn path(self) -> String {
        match self {
            Origin::Page {
                page,
                element,
                block: None,
            } => format!("pages[{page}].elements[{element}]"),
            Origin::Page {
                page,
                element,
                block: Some((block, item)),
            } => format!(
                "pages[{page}].elements[{element}].children[{}].elements[{item}]",
                block + 1
            ),
            Origin::Header(i) => format!("header.elements[{i}]"),
            Origin::Footer(i) => format!("footer.elements[{i}]"),
        }
    }
}

struct Placed {
    origin: Origin,
    area: Rect,
    /// Vertical overlap allowed with this text (mm).
    slack: f64,
}

fn place(origin: Origin, element: &Element, frame: &Frame) -> Option<Placed> {
    let Element::Text(t) = element else {
        return None;
    };
    let area = super::text::ink(t, frame)?;
    (area.w > 0.0 && area.h > 0.0).then(|| Placed {
        origin,
        area,
        slack: LEADING_SHARE * super::text::shortest_line(t),
    })
}

/// Whether `a` and `b` overlap (see the module docs): (across, down) if so.
fn overlap(a: &Placed, b: &Placed) -> Option<(f64, f64)> {
    let (p, q) = (&a.area, &b.area);
    let across = p.right().min(q.right()) - p.x.max(q.x);
    let down = p.bottom().min(q.bottom()) - p.y.max(q.y);
    (across > HORIZONTAL_SLACK && down > a.slack.min(b.slack)).then_some((across, down))
}

/// A text covering more cells than this is compared with every other text.
const MAX_CELLS: i64 = 64;

/// The pairs of `texts` that overlap, as (index, index, across, down) with
/// the lower index first, sorted; `budget` counts comparisons down.
///
/// The sheet is cut into cells of the texts' median width and height; each
/// text is listed in the cells it covers and compared only with the texts
/// of those cells, so a page of many texts costs about one comparison per
/// text and neighbour. A pair sharing several cells counts in one: the
/// cell that holds the top-left corner of their overlap. Texts covering
/// more than [`MAX_CELLS`] cells (a title across the page among small
/// texts) are compared with every text.
fn overlaps(texts: &[Placed], budget: &mut usize) -> Vec<(usize, usize, f64, f64)> {
    let mut found = Vec::new();
    let mut compare = |i: usize, j: usize, found: &mut Vec<_>| {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        if let Some((across, down)) = overlap(&texts[i], &texts[j]) {
            found.push((i.min(j), i.max(j), across, down));
        }
        true
    };
    if texts.len() <= 16 {
        for i in 0..texts.len() {
            for j in i + 1..texts.len() {
                if !compare(i, j, &mut found) {
                    return found;
                }
            }
        }
        found.sort_by_key(|f| (f.0, f.1));
        return found;
    }
    let median = |f: fn(&Rect) -> f64| {
        let mut v: Vec<f64> = texts.iter().map(|t| f(&t.area)).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2].max(0.5)
    };
    let (cw, ch) = (median(|r| r.w), median(|r| r.h));
    let cell = |x: f64, y: f64| ((x / cw).floor() as i64, (y / ch).floor() as i64);
    // (cell, text) for every cell a text covers, sorted: each cell's texts
    // are then one run of entries, in a fixed order (a spent budget always
    // ends at the same pair).
    let mut entries: Vec<((i64, i64), usize)> = Vec::with_capacity(texts.len() * 4);
    let mut large = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let (x0, y0) = cell(t.area.x, t.area.y);
        let (x1, y1) = cell(t.area.right(), t.area.bottom());
        if (x1 - x0 + 1).saturating_mul(y1 - y0 + 1) > MAX_CELLS {
            large.push(i);
            continue;
        }
        for cx in x0..=x1 {
            for cy in y0..=y1 {
                entries.push(((cx, cy), i));
            }
        }
    }
    entries.sort_unstable();
    'cells: for run in entries.chunk_by(|a, b| a.0 == b.0) {
        let key = run[0].0;
        for (n, &(_, i)) in run.iter().enumerate() {
            for &(_, j) in &run[n + 1..] {
                let (a, b) = (&texts[i].area, &texts[j].area);
                if cell(a.x.max(b.x), a.y.max(b.y)) != key {
                    continue;
                }
                if !compare(i, j, &mut found) {
                    break 'cells;
                }
            }
        }
    }
    let mut is_large = vec![false; texts.len()];
    for &i in &large {
        is_large[i] = true;
    }
    'large: for &i in &large {
        for (j, &other_large) in is_large.iter().enumerate() {
            // Two large texts are compared once.
            if j == i || (other_large && j < i) {
                continue;
            }
            if !compare(i, j, &mut found) {
                break 'large;
            }
        }
    }
    found.sort_by_key(|f| (f.0, f.1));
    found
}

pub(super) fn check(laid: &LaidOut, placed: &[Sheet], w: &mut Collector) {
    let mut budget = MAX_PAIRS;
    let mut reported: HashSet<(Origin, Origin)> = HashSet::new();
    for sheet in placed {
        // Only a page's first sheet and those with blocks hold anything the
        // header and footer have not met yet.
        let blocks = sheet
            .items
            .iter()
            .any(|item| matches!(item.source, Source::Block { .. }));
        if sheet.continuation > 0 && !blocks {
            continue;
        }
        // In the order pairs are reported in: the body's elements, its
        // blocks' elements, the header's, the footer's.
        let mut texts: Vec<(u8, Placed)> = Vec::new();
        for item in &sheet.items {
            let page = sheet.page;
            let (class, origin) = match item.source {
                Source::Body { element } => (
                    0,
                    Origin::Page {
                        page,
                        element,
                        block: None,
                    },
                ),
                Source::Block {
                    element,
                    block,
                    item,
                } => (
                    1,
                    Origin::Page {
                        page,
                        element,
                        block: Some((block, item)),
                    },
                ),
                Source::Header(i) => (2, Origin::Header(i)),
                Source::Footer(i) => (3, Origin::Footer(i)),
            };
            if let Some(placed) = place(origin, item.element, &item.frame) {
                texts.push((class, placed));
            }
        }
        // A continuation sheet whose blocks hold no text: seen.
        if sheet.continuation > 0 && texts.iter().all(|(class, _)| *class >= 2) {
            continue;
        }
        texts.sort_by_key(|(class, placed)| (*class, placed.origin));
        let texts: Vec<Placed> = texts.into_iter().map(|(_, placed)| placed).collect();
        let (p, sheets) = (sheet.page, &laid.sheets[sheet.page]);
        let sheet = sheet.continuation;
        for (a, b, across, down) in overlaps(&texts, &mut budget) {
            let (first, second) = if texts[a].origin < texts[b].origin {
                (texts[a].origin, texts[b].origin)
            } else {
                (texts[b].origin, texts[a].origin)
            };
            if !reported.insert((first, second)) {
                continue;
            }
            w.push(
                    second.path(),
                    Code::TextOverlap,
                    format!(
                        "the text prints over the text at {} ({} x {} mm of them overlap{}): move one of them or make them smaller",
                        first.path(),
                        mm(across),
                        mm(down),
                        if sheets.count > 1 {
                            format!(", on sheet {} of pages[{p}]", sheet + 1)
                        } else {
                            String::new()
                        }
                    ),
                );
            if w.full() {
                return;
            }
        }
        if budget == 0 {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(i: usize, x: f64, y: f64, w: f64, h: f64) -> Placed {
        Placed {
            origin: Origin::Header(i),
            area: Rect { x, y, w, h },
            slack: 0.2 * h,
        }
    }

    #[test]
    fn a_grid_of_texts_costs_about_one_comparison_per_text() {
        let texts: Vec<Placed> = (0..10_000)
            .map(|i| {
                text(
                    i,
                    (i % 100) as f64 * 40.0,
                    (i / 100) as f64 * 5.0,
                    15.0,
                    3.4,
                )
            })
            .collect();
        let mut budget = MAX_PAIRS;
        assert!(overlaps(&texts, &mut budget).is_empty());
        assert!(
            MAX_PAIRS - budget < 20_000,
            "{} comparisons",
            MAX_PAIRS - budget
        );
        // A column at one x, too.
        let texts: Vec<Placed> = (0..1_000)
            .map(|i| text(i, 5.0, i as f64 * 5.0, 15.0, 3.4))
            .collect();
        let mut budget = MAX_PAIRS;
        assert!(overlaps(&texts, &mut budget).is_empty());
        assert!(
            MAX_PAIRS - budget < 2_000,
            "{} comparisons",
            MAX_PAIRS - budget
        );
    }

    #[test]
    fn a_pair_sharing_many_cells_is_found_once_and_large_texts_against_all() {
        let mut texts: Vec<Placed> = (0..40)
            .map(|i| text(i, i as f64 * 20.0, 0.0, 10.0, 4.0))
            .collect();
        // Overlaps the text at x 100 over several cells.
        texts.push(text(40, 104.0, 1.0, 12.0, 6.0));
        // A title across everything, over the first row.
        texts.push(text(41, 0.0, 1.0, 800.0, 6.0));
        let mut budget = MAX_PAIRS;
        let found = overlaps(&texts, &mut budget);
        let pairs: Vec<(usize, usize)> = found.iter().map(|f| (f.0, f.1)).collect();
        assert_eq!(
            pairs.iter().filter(|p| **p == (5, 40)).count(),
            1,
            "{pairs:?}"
        );
        assert!(
            pairs.contains(&(0, 41)) && pairs.contains(&(39, 41)),
            "{pairs:?}"
        );
        assert!(pairs.contains(&(40, 41)), "{pairs:?}");
        assert_eq!(pairs.len(), 42, "{pairs:?}");
    }

    #[test]
    fn a_spent_budget_ends_the_search() {
        let texts: Vec<Placed> = (0..100).map(|i| text(i, 0.0, 0.0, 10.0, 4.0)).collect();
        let mut budget = 10;
        assert_eq!(overlaps(&texts, &mut budget).len(), 10);
        assert_eq!(budget, 0);
    }
}
