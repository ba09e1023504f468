//! Layout that labelpress does itself, before Typst runs: table cells and
//! rows (measured with the fonts' advance widths), the flow of tables and
//! stacks onto continuation sheets, where each element lands ([`geometry`])
//! and, from all of it, the [`display`] list of what prints on each sheet.
//! Validation measures text boxes with it and pagination (`crate::paginate`)
//! lays out tables and the flow, so a row or block that cannot fit on a
//! sheet is an API-002 error; the lowering writes the display list.

pub mod display;
pub mod fallback;
pub mod flow;
pub mod geometry;
pub mod measure;
pub mod table;
pub mod text;

pub use crate::rich_text::{FittedText, Line, Segment};
pub use flow::{paginate, FlowItem, Piece, PieceKind, SheetGeometry, Sheets};
pub use measure::{FaceMetrics, FontCatalog, PT_MM};
pub use table::{lay_out, TableEnv, TableLayout};
pub use text::{fit_text, Measurer};

/// A validated document with its flow decided: the sheets each page prints
/// on and what its tables and stacks show on each. The lowering's input.
#[derive(Debug, Clone)]
pub struct LaidOut {
    pub document: crate::ir::Document,
    /// One per page of `document`, in order.
    pub sheets: Vec<Sheets>,
}

impl LaidOut {
    /// Sheets of the whole document (a page flows onto at least one).
    pub fn sheet_count(&self) -> usize {
        self.sheets.iter().map(|s| s.count.max(1)).sum()
    }
}
