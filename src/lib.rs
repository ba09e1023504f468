//! labelpress: JSON document descriptions to print-exact PDF.
pub mod barcode;
