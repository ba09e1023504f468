//! Barcode engine (being written).
