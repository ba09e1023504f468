//! Validation's call into layout: tables are laid out and the page's flow
//! is paginated here, so a row, header or block that cannot fit on a sheet,
//! or a document over the sheet limit, is an API-002 error with a path.

use std::sync::Arc;

use super::{Frame, Validator};
use crate::ir::{Element, Page, Table};
use crate::layout::{self, FlowItem, SheetGeometry, Sheets, TableEnv};

impl Validator<'_> {
    /// Lays out the tables and stacks of a valid page and spreads them over sheets.
    pub(crate) fn page_flow(
        &mut self,
        path: &str,
        page: &Page,
        header_h: f64,
        footer_h: f64,
    ) -> Sheets {
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
            Ok(sheets) => sheets,
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

    fn table_layout(
        &mut self,
        path: &str,
        t: &Table,
        frame: &Frame,
    ) -> Option<layout::TableLayout> {
        let env = TableEnv {
            fonts: self.env.fonts,
            sys: &self.env.config.defaults,
            settings: &self.settings,
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
