//! Pagination, the phase after validation: the tables and stacks of a valid
//! document are laid out (cells measured with the fonts) and its pages' flow
//! spread over sheets. The rules that need those measurements are checked
//! here, as API-002 with a path: a row, header or block that cannot fit on a
//! sheet, a stack block's child outside the content box where the flow put
//! the block, a document over the sheet limit.
//!
//! Validation (`crate::validate`) resolves and checks what needs no flow;
//! this phase only runs on a document that passed it, and returns a new
//! value, the [`LaidOut`] the lowering and the warnings read.

use std::sync::Arc;

use crate::config::RuntimeConfig;
use crate::ir::{Document, Element, Page, Table};
use crate::layout::geometry::{element_bounds, Frame};
use crate::layout::{
    self, FlowItem, FontCatalog, LaidOut, PieceKind, SheetGeometry, Sheets, TableEnv,
};
use crate::validate::elements::{content_box_message, outside_down};
use crate::validate::{RequestError, Violation};

/// Lays out the flow of every page of a validated document onto sheets.
pub fn paginate(
    document: Document,
    fonts: &dyn FontCatalog,
    config: &RuntimeConfig,
) -> Result<LaidOut, RequestError> {
    let mut pager = Pager {
        document: &document,
        fonts,
        config,
        violations: Vec::new(),
    };
    let header_h = document.header.as_ref().map_or(0.0, |s| s.height);
    let footer_h = document.footer.as_ref().map_or(0.0, |s| s.height);
    let sheets: Vec<Sheets> = document
        .pages
        .iter()
        .enumerate()
        .map(|(i, page)| pager.page_flow(&format!("pages[{i}]"), page, header_h, footer_h))
        .collect();
    let count: usize = sheets.iter().map(|s| s.count).sum();
    let limit = config.limits.sheets;
    if pager.violations.is_empty() && count > limit {
        pager.push(
            "pages",
            format!(
                "the document needs {count} sheets with its continuation sheets; at most {limit} are allowed"
            ),
        );
    }
    if pager.violations.is_empty() {
        Ok(LaidOut { document, sheets })
    } else {
        Err(RequestError::Invalid(pager.violations))
    }
}

/// What pagination reads and the violations it finds.
struct Pager<'a> {
    document: &'a Document,
    fonts: &'a dyn FontCatalog,
    config: &'a RuntimeConfig,
    violations: Vec<Violation>,
}

impl Pager<'_> {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.violations.push(Violation {
            path: path.into(),
            message: message.into(),
        });
    }

    /// Lays out the tables and stacks of a valid page and spreads them over sheets.
    fn page_flow(&mut self, path: &str, page: &Page, header_h: f64, footer_h: f64) -> Sheets {
        let single = Sheets {
            count: 1,
            pieces: Vec::new(),
        };
        if !self.violations.is_empty() {
            return single;
        }
        let frame = Frame::body(page);
        let content = page.content_box();
        let geometry = SheetGeometry {
            continuation_top: content.y.max(header_h),
            bottom: content.bottom().min(page.height - footer_h),
        };
        let mut items = Vec::new();
        for (i, element) in page.elements.iter().enumerate() {
            let epath = format!("{path}.elements[{i}]");
            let (table, tpath, gap, blocks) = match element {
                Element::Table(t) => (&**t, epath, 0.0, Vec::new()),
                Element::Stack(s) => (
                    &s.table,
                    format!("{epath}.children[0]"),
                    s.gap,
                    s.block_heights.clone(),
                ),
                _ => continue,
            };
            let Some(laid) = self.table_layout(&tpath, table, &frame) else {
                continue;
            };
            items.push(FlowItem {
                element: i,
                y: frame.origin.1 + table.spec.y,
                table: Arc::new(laid),
                gap,
                blocks,
            });
        }
        if items.is_empty() || !self.violations.is_empty() {
            return single;
        }
        match layout::paginate(items, geometry) {
            Ok(sheets) => {
                self.block_children_in_content_box(path, page, &sheets, &frame);
                sheets
            }
            Err(e) => {
                let base = match &page.elements[e.element] {
                    Element::Stack(_) if !e.path.starts_with(".children") => {
                        format!("{path}.elements[{}].children[0]", e.element)
                    }
                    _ => format!("{path}.elements[{}]", e.element),
                };
                self.push(format!("{base}{}", e.path), e.message);
                single
            }
        }
    }

    /// The content-box rule down the sheet for stack blocks' children, where
    /// the flow placed each block (across it was checked with the element).
    /// A block fits its sheet's body, but a child above the block's start
    /// (a negative `y`) reaches above the content box when the block starts
    /// at a sheet's content-box top, and not when it follows a table.
    fn block_children_in_content_box(
        &mut self,
        path: &str,
        page: &Page,
        sheets: &Sheets,
        frame: &Frame,
    ) {
        let Some(content) = frame.content else {
            return;
        };
        for piece in &sheets.pieces {
            let PieceKind::Block { block, top } = piece.kind else {
                continue;
            };
            let Some(Element::Stack(stack)) = page.elements.get(piece.element) else {
                continue;
            };
            let block_frame = frame.block(&stack.table.spec, top);
            // The flow runs only without violations, so no child was
            // dropped and `k` is the child's index in the request.
            for (k, child) in stack.blocks[block].iter().enumerate() {
                let Some(b) = element_bounds(child, &block_frame) else {
                    continue;
                };
                if outside_down(&b, &content) {
                    self.push(
                        format!(
                            "{path}.elements[{}].children[{}].elements[{k}]",
                            piece.element,
                            block + 1
                        ),
                        format!(
                            "on the page's sheet {} (its block starts {top:.2} mm from the top) {}",
                            piece.sheet + 1,
                            content_box_message(&b, &content)
                        ),
                    );
                }
            }
        }
    }

    fn table_layout(
        &mut self,
        path: &str,
        t: &Table,
        frame: &Frame,
    ) -> Option<layout::TableLayout> {
        let env = TableEnv {
            fonts: self.fonts,
            sys: &self.config.defaults,
            settings: &self.document.settings,
        };
        match layout::lay_out(t, frame.origin.0 + t.spec.x, &env) {
            Ok(laid) => Some(laid),
            Err(errors) => {
                for e in errors {
                    self.push(format!("{path}{}", e.path), e.message);
                }
                None
            }
        }
    }
}
