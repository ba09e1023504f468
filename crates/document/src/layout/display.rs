//! The display list: per sheet, every item that prints on it, placed in
//! sheet coordinates, in drawing order (as Typst's frames list positioned
//! items). The one walk over what prints where: the lowering writes these
//! items and nothing else, and a writer for another output (ZPL) reads the
//! same ones.
//!
//! Drawing order, per sheet: the header's elements, then the footer's (each
//! in ascending `z_index`, ties in array order), then the body's in
//! ascending `z_index`. A body element prints on its page's first sheet; a
//! table or stack prints the pieces the flow put on each sheet, a stack
//! block as its children (in their own `z_index` order) in the block's
//! frame.

use super::flow::{PieceKind, Sheets};
use super::geometry::{element_bounds, Frame, Zone};
use super::LaidOut;
use crate::ir::{Element, Link, Rect};

/// Where an item comes from in the request (for paths in findings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// `header.elements[i]`.
    Header(usize),
    /// `footer.elements[i]`.
    Footer(usize),
    /// `pages[page].elements[element]`.
    Body { element: usize },
    /// `pages[page].elements[element].children[block + 1].elements[item]`.
    Block {
        element: usize,
        block: usize,
        item: usize,
    },
}

/// One item on a sheet.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    pub source: Source,
    pub element: &'a Element,
    /// The geometry `element`'s coordinates are read in.
    pub frame: Frame,
    /// Its box on the sheet after rotation (`None` for table pieces, whose
    /// rows the flow placed, and a stack's own item).
    pub bounds: Option<Rect>,
    /// For a table or a stack's table: the rows the flow put on this sheet.
    /// `None` for every other item.
    pub table_rows: Option<&'a PieceKind>,
    /// The link the item is wrapped in (table cells carry their own).
    pub link: Option<&'a Link>,
}

impl<'a> Item<'a> {
    fn new(source: Source, element: &'a Element, frame: Frame) -> Item<'a> {
        Item {
            source,
            element,
            frame,
            bounds: element_bounds(element, &frame),
            table_rows: None,
            link: element.link(),
        }
    }
}

/// One sheet of the output.
#[derive(Debug, Clone)]
pub struct Sheet<'a> {
    /// The request page it prints.
    pub page: usize,
    /// 0 for the page's first sheet, then its continuation sheets.
    pub continuation: usize,
    /// 1-based among all the document's sheets.
    pub number: usize,
    /// In mm.
    pub width: f64,
    pub height: f64,
    pub items: Vec<Item<'a>>,
}

impl LaidOut {
    /// Every sheet of the document, in order, with its items placed.
    pub fn display_list(&self) -> Vec<Sheet<'_>> {
        let doc = &self.document;
        let mut out = Vec::new();
        for (p, (page, sheets)) in doc.pages.iter().zip(&self.sheets).enumerate() {
            let body = Frame::body(page);
            let mut order: Vec<usize> = (0..page.elements.len()).collect();
            order.sort_by_key(|&i| page.elements[i].z_index());
            let pieces = pieces_by_sheet(sheets);
            for continuation in 0..sheets.count.max(1) {
                let mut items = Vec::new();
                if let Some(header) = &doc.header {
                    let frame = Frame::section_on(page, Zone::Header, header.height);
                    in_z_order(&header.elements, frame, Source::Header, &mut items);
                }
                if let Some(footer) = &doc.footer {
                    let frame = Frame::section_on(page, Zone::Footer, footer.height);
                    in_z_order(&footer.elements, frame, Source::Footer, &mut items);
                }
                let here = pieces.get(continuation).map_or(&[][..], Vec::as_slice);
                for &i in &order {
                    let element = &page.elements[i];
                    match element {
                        Element::Table(_) | Element::Stack(_) => {
                            for kind in here.iter().filter(|(e, _)| *e == i).map(|(_, k)| *k) {
                                flow_piece(i, element, kind, body, &mut items);
                            }
                        }
                        _ if continuation == 0 => {
                            items.push(Item::new(Source::Body { element: i }, element, body))
                        }
                        _ => {}
                    }
                }
                out.push(Sheet {
                    page: p,
                    continuation,
                    number: out.len() + 1,
                    width: page.width,
                    height: page.height,
                    items,
                });
            }
        }
        out
    }
}

/// The flow's pieces of one page, per sheet, each sheet's in flow order.
fn pieces_by_sheet(sheets: &Sheets) -> Vec<Vec<(usize, &PieceKind)>> {
    let mut by_sheet: Vec<Vec<(usize, &PieceKind)>> = vec![Vec::new(); sheets.count.max(1)];
    for piece in &sheets.pieces {
        if let Some(sheet) = by_sheet.get_mut(piece.sheet) {
            sheet.push((piece.element, &piece.kind));
        }
    }
    by_sheet
}

/// One piece of the flow element `element` (body index `i`): a table's
/// rows, or a stack block's children in the block's frame.
fn flow_piece<'a>(
    i: usize,
    element: &'a Element,
    kind: &'a PieceKind,
    body: Frame,
    items: &mut Vec<Item<'a>>,
) {
    match kind {
        PieceKind::Table { .. } => items.push(Item {
            table_rows: Some(kind),
            ..Item::new(Source::Body { element: i }, element, body)
        }),
        PieceKind::Block { block, top } => {
            let Element::Stack(stack) = element else {
                return;
            };
            let frame = body.block(&stack.table.spec, *top);
            let children = stack.blocks.get(*block).map_or(&[][..], Vec::as_slice);
            let block = *block;
            in_z_order(
                children,
                frame,
                |item| Source::Block {
                    element: i,
                    block,
                    item,
                },
                items,
            );
        }
    }
}

/// `elements` in ascending `z_index`, ties in array order, all in `frame`.
fn in_z_order<'a>(
    elements: &'a [Element],
    frame: Frame,
    source: impl Fn(usize) -> Source,
    items: &mut Vec<Item<'a>>,
) {
    let mut order: Vec<usize> = (0..elements.len()).collect();
    order.sort_by_key(|&i| elements[i].z_index());
    items.extend(
        order
            .into_iter()
            .map(|i| Item::new(source(i), &elements[i], frame)),
    );
}
