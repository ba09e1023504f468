//! ZIP archives of several output files in one answer: every sheet of a
//! document as PNG, a batch's PNGs, a partial batch with its manifest.
//! Entries are stored, not deflated: PNG, PDF and ZPL graphics are
//! compressed already.

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

/// The media type of an archive.
pub const MEDIA_TYPE: &str = "application/zip";

/// `entries` (name, bytes) as one ZIP archive, in order. Large archives
/// (entries or total past 4 GiB) are written as ZIP64.
pub fn zip(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        // Writing into memory cannot fail but for a duplicate name, which
        // callers never give (their names are numbered).
        writer
            .start_file(name.as_str(), options)
            .expect("a new entry name");
        writer.write_all(bytes).expect("writing into memory");
    }
    writer.finish().expect("writing into memory").into_inner()
}

/// `sheet` (1-based) of `sheets`'s name in an archive of document
/// `document` (1-based): `0001-1.png`.
pub fn sheet_name(document: usize, sheet: usize, extension: &str) -> String {
    format!("{document:04}-{sheet}.{extension}")
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn entries_come_back_in_order_with_their_bytes() {
        let entries = vec![
            (sheet_name(1, 1, "png"), b"one".to_vec()),
            (sheet_name(1, 2, "png"), Vec::new()),
            ("manifest.json".to_string(), b"{}".to_vec()),
        ];
        let mut archive = zip::ZipArchive::new(Cursor::new(zip(&entries))).unwrap();
        assert_eq!(archive.len(), 3);
        for (i, (name, bytes)) in entries.iter().enumerate() {
            let mut entry = archive.by_index(i).unwrap();
            assert_eq!(entry.name(), name);
            let mut read = Vec::new();
            entry.read_to_end(&mut read).unwrap();
            assert_eq!(&read, bytes);
        }
        assert_eq!(entries[0].0, "0001-1.png");
    }
}
