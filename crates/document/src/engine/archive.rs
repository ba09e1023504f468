//! ZIP archives of several output files in one answer: every sheet of a
//! document as PNG, a batch's PNGs, a partial batch with its manifest.
//! Entries are stored, not deflated: PNG, PDF and ZPL graphics are
//! compressed already.

use std::io::{self, Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex, PoisonError};

use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

/// The media type of an archive.
pub const MEDIA_TYPE: &str = "application/zip";

/// `entries` (name, bytes) as one ZIP archive, in order. Large archives
/// (entries or total past 4 GiB) are written as ZIP64.
pub fn zip(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut archive = ZipStream::new();
    let mut out = Vec::new();
    for (name, bytes) in entries {
        out.extend(archive.add(name, bytes));
    }
    out.extend(archive.finish());
    out
}

/// A ZIP archive written entry by entry that hands out its bytes as they
/// become final, for an answer that streams: the archive so far, but for
/// the last entry (whose header the writer still rewrites when the next
/// entry starts), then the rest at [`ZipStream::finish`].
pub struct ZipStream {
    writer: zip::ZipWriter<Spool>,
    spool: Arc<Mutex<SpoolBytes>>,
}

impl Default for ZipStream {
    fn default() -> Self {
        ZipStream::new()
    }
}

impl ZipStream {
    pub fn new() -> ZipStream {
        let spool = Arc::new(Mutex::new(SpoolBytes::default()));
        ZipStream {
            writer: zip::ZipWriter::new(Spool(spool.clone())),
            spool,
        }
    }

    /// Adds the entry `name` holding `bytes`; answers the archive's bytes
    /// that are final since the last call.
    pub fn add(&mut self, name: &str, bytes: &[u8]) -> Vec<u8> {
        let previous_end = self.lock().end();
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        // Writing into memory cannot fail but for a duplicate name, which
        // callers never give (their names are numbered).
        self.writer
            .start_file(name, options)
            .expect("a new entry name");
        self.writer.write_all(bytes).expect("writing into memory");
        // Starting this entry finished the one before: from here on the
        // writer only seeks back into this entry.
        self.lock().take_until(previous_end)
    }

    /// The rest of the archive: its last entry and its central directory.
    pub fn finish(self) -> Vec<u8> {
        let Spool(spool) = self.writer.finish().expect("writing into memory");
        let mut spool = spool.lock().unwrap_or_else(PoisonError::into_inner);
        let end = spool.end();
        spool.take_until(end)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SpoolBytes> {
        self.spool.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The writer's side of a [`ZipStream`]: a seekable buffer whose start may
/// already have been handed out.
struct Spool(Arc<Mutex<SpoolBytes>>);

/// The archive's bytes from offset `base` on; `position` is the writer's.
#[derive(Default)]
struct SpoolBytes {
    base: u64,
    bytes: Vec<u8>,
    position: u64,
}

impl SpoolBytes {
    fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }

    /// Hands out the bytes before offset `end`; the writer may never seek
    /// back to them.
    fn take_until(&mut self, end: u64) -> Vec<u8> {
        let taken = (end.saturating_sub(self.base) as usize).min(self.bytes.len());
        self.base += taken as u64;
        self.bytes.drain(..taken).collect()
    }
}

impl Write for Spool {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut spool = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let at = (spool.position - spool.base) as usize;
        let overlap = data.len().min(spool.bytes.len().saturating_sub(at));
        spool.bytes[at..at + overlap].copy_from_slice(&data[..overlap]);
        spool.bytes.extend_from_slice(&data[overlap..]);
        spool.position += data.len() as u64;
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for Spool {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let mut spool = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let target = match to {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => spool.end().checked_add_signed(delta),
            SeekFrom::Current(delta) => spool.position.checked_add_signed(delta),
        };
        match target {
            Some(offset) if offset >= spool.base && offset <= spool.end() => {
                spool.position = offset;
                Ok(offset)
            }
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a seek outside the archive's bytes not yet handed out",
            )),
        }
    }
}

/// The entries of the archive `bytes`, in order: the files [`zip`] wrote.
pub fn entries(bytes: &[u8]) -> zip::result::ZipResult<Vec<Vec<u8>>> {
    let mut archive = zip::ZipArchive::new(io::Cursor::new(bytes))?;
    (0..archive.len())
        .map(|i| {
            let mut entry = archive.by_index(i)?;
            let mut read = Vec::with_capacity(entry.size() as usize);
            io::Read::read_to_end(&mut entry, &mut read)?;
            Ok(read)
        })
        .collect()
}

/// `sheet` (1-based) of `sheets`'s name in an archive of document
/// `document` (1-based): `0001-1.png`.
pub fn sheet_name(document: usize, sheet: usize, extension: &str) -> String {
    format!("{document:04}-{sheet}.{extension}")
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read};

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

    #[test]
    fn a_streamed_archive_is_the_zip_writers_archive_handed_out_entry_by_entry() {
        let entries: Vec<(String, Vec<u8>)> = (1..=4)
            .map(|i| (sheet_name(i, 1, "png"), vec![i as u8; 1000 * i]))
            .collect();
        let mut plain = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, bytes) in &entries {
            let options =
                SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
            plain.start_file(name.as_str(), options).unwrap();
            plain.write_all(bytes).unwrap();
        }
        let plain = plain.finish().unwrap().into_inner();

        let mut archive = ZipStream::new();
        let mut streamed = Vec::new();
        for (i, (name, bytes)) in entries.iter().enumerate() {
            let out = archive.add(name, bytes);
            // Each entry but the last is out once the next one starts.
            if i > 0 {
                assert!(
                    out.len() >= entries[i - 1].1.len(),
                    "entry {i}: {}",
                    out.len()
                );
            } else {
                assert!(out.is_empty());
            }
            streamed.extend(out);
        }
        let rest = archive.finish();
        assert!(rest.len() > entries[3].1.len());
        streamed.extend(rest);
        assert_eq!(streamed, plain);
        let files: Vec<Vec<u8>> = entries.into_iter().map(|(_, bytes)| bytes).collect();
        assert_eq!(super::entries(&streamed).unwrap(), files);
    }
}
