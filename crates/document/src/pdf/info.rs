//! The PDF producer: typst-pdf 0.15 lets us name the creator but not the
//! producer, so `/Producer` (Info) and `pdf:Producer` (XMP) are added here.
//!
//! The patch is structural. The file is entered from its end (`startxref`),
//! the one classic cross-reference table it points to gives the offsets of
//! exactly the objects needed (the trailer's `/Info`, the catalog `/Root` and
//! its `/Metadata` stream), and those are read with a real object parser
//! (`syntax.rs`), so user text inside strings, link URLs or the XMP can never
//! be mistaken for structure. Then the bytes are edited in place: a key added
//! to the Info dictionary, an `rdf:Description` added to the XMP packet and
//! its `/Length` raised, and every xref offset after an edit (and `startxref`)
//! shifted by what was inserted before it.
//!
//! Why in place and not an incremental update appended at the end: an update
//! would leave the old Info and XMP (without a producer) in the file, where
//! tools that read the first revision or scan objects still find them, and it
//! would add a second trailer and xref section to every label we print. In
//! place, the result is the one-revision file krilla would have written had it
//! been given the producer.
//!
//! Cost: the tail, three or four objects and one pass over the xref table
//! (20 bytes per object) to shift offsets; no object is parsed that is not
//! needed, so a 2,000-page document costs about one copy of its bytes.
//!
//! Invariants of typst-pdf 0.15 / krilla 0.8 output this relies on, each
//! checked (a violation is a [`ProducerError`], never a panic or a broken file):
//! one revision with a classic xref table, Info and XMP objects that are not
//! compressed and written before the xref table, and an XMP packet that ends
//! in `</rdf:RDF>` (before an optional `</x:xmpmeta>` and `<?xpacket end?>`).

use std::ops::Range;

use super::syntax::{is_white, Dict, Object, Parser, Spanned, SyntaxError};

/// Why the producer could not be added: the exporter wrote a file whose
/// structure is not the one described above (a bug on our side, API-501).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProducerError {
    #[error("the PDF does not end with `startxref`, an offset and `%%EOF`")]
    NoStartxref,
    #[error("PDF syntax: {0}")]
    Syntax(#[from] SyntaxError),
    #[error("the xref entry at byte {0} is not a 20-byte classic entry")]
    XrefEntry(usize),
    #[error("object {0} is not an object in use in the cross-reference table")]
    MissingObject(u32),
    #[error("the xref offset of object {0} points at another object")]
    ObjectMismatch(u32),
    #[error("the trailer has {0}, which this patch does not handle")]
    Unsupported(&'static str),
    #[error("{what} is not {expected}")]
    WrongType {
        what: &'static str,
        expected: &'static str,
    },
    #[error("the stream of object {0} does not end with `endstream` after /Length bytes")]
    StreamLength(u32),
    #[error("the XMP metadata {0}")]
    Xmp(&'static str),
    #[error("the patched file needs xref offsets beyond 10 digits")]
    TooLarge,
}

/// Sets `/Producer` in the Info dictionary (when the document has one: PDF/A-4
/// has none) and `pdf:Producer` in the XMP metadata (when it has some), to the
/// same value so that PDF/A's "Info and XMP agree" holds.
pub fn set_producer(pdf: Vec<u8>, producer: &str) -> Result<Vec<u8>, ProducerError> {
    patch(pdf, producer, &[])
}

/// [`set_producer`], and each link's alt text (per sheet, one entry per
/// link in the order the lowering placed them; see `links.rs`), in one pass.
pub fn patch(
    pdf: Vec<u8>,
    producer: &str,
    link_alts: &[Vec<Option<String>>],
) -> Result<Vec<u8>, ProducerError> {
    let producer = representable(producer);
    let file = File::read(&pdf)?;
    let mut edits = super::links::alt_edits(&file, link_alts)?;
    if let Some(info) = file.trailer.get(b"Info") {
        edits.push(info_edit(&file, info, &producer)?);
    }
    if let Some(metadata) = file.catalog()?.get(b"Metadata") {
        edits.extend(xmp_edits(&file, metadata, &producer)?);
    }
    if edits.is_empty() {
        return Ok(pdf);
    }
    file.rewrite(edits)
}

/// The producer without the characters XML 1.0 cannot carry or that an XML
/// reader would not give back unchanged (controls, incl. CR, tab and line
/// feed, and U+FFFE/U+FFFF), so Info and XMP hold the same text.
fn representable(producer: &str) -> String {
    producer
        .chars()
        .filter(|&c| !c.is_control() && c != '\u{FFFE}' && c != '\u{FFFF}')
        .collect()
}

/// Adds or replaces `/Producer` in the Info dictionary the trailer names.
fn info_edit(file: &File, info: &Spanned, producer: &str) -> Result<Edit, ProducerError> {
    let reference = reference(info, "the trailer's /Info")?;
    let object = file.object(reference)?;
    let dict = dict(&object.value, "the Info object")?;
    let text = pdf_text_string(producer);
    Ok(match dict.get(b"Producer") {
        Some(old) => Edit::replace(old.span.clone(), text),
        // A name starts with a delimiter, so it may follow any token directly.
        None => Edit::replace(dict.close..dict.close, format!("/Producer {text}")),
    })
}

/// Adds a `pdf:Producer` description to the XMP packet and raises the
/// stream's `/Length` by as much.
fn xmp_edits(file: &File, metadata: &Spanned, producer: &str) -> Result<[Edit; 2], ProducerError> {
    let reference = reference(metadata, "the catalog's /Metadata")?;
    let object = file.object(reference)?;
    let Some(stream) = object.stream else {
        return Err(ProducerError::WrongType {
            what: "the catalog's /Metadata",
            expected: "a stream",
        });
    };
    // PDF/A forbids filters on the metadata stream; its bytes are the packet.
    if dict(&object.value, "the XMP stream")?
        .get(b"Filter")
        .is_some()
    {
        return Err(ProducerError::Xmp("stream is encoded (/Filter)"));
    }
    let data = &file.pdf[stream.data.clone()];
    // XMP text is XML-escaped (xmp-writer escapes `<`, `>`, `&`, `"`, `'`), so
    // `<` in the packet is always markup: user text cannot forge this tag.
    if memchr::memmem::find(data, b"<pdf:Producer").is_some() {
        return Err(ProducerError::Xmp("already has a pdf:Producer"));
    }
    let at = stream.data.start + rdf_close(data)?;
    let description = format!(
        "<rdf:Description rdf:about=\"\" xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\"><pdf:Producer>{}</pdf:Producer></rdf:Description>",
        xml_escape(producer)
    );
    let length = stream.length_value + description.len() as u64;
    Ok([
        Edit::replace(stream.length_span, length.to_string()),
        Edit::replace(at..at, description),
    ])
}

/// Offset in the XMP packet of its closing `</rdf:RDF>`, found from the end
/// of the stream data (whose bounds come from `/Length`): the packet ends in
/// `</rdf:RDF>`, then optionally `</x:xmpmeta>`, then optionally the
/// `<?xpacket end=...?>` trailer, with white-space (padding) between.
fn rdf_close(data: &[u8]) -> Result<usize, ProducerError> {
    let mut end = trim_white_end(data, data.len());
    if data[..end].ends_with(b"?>") {
        let pi = memchr::memmem::rfind(&data[..end], b"<?xpacket").ok_or(ProducerError::Xmp(
            "ends in an unknown processing instruction",
        ))?;
        end = trim_white_end(data, pi);
    }
    if data[..end].ends_with(b"</x:xmpmeta>") {
        end = trim_white_end(data, end - b"</x:xmpmeta>".len());
    }
    if !data[..end].ends_with(b"</rdf:RDF>") {
        return Err(ProducerError::Xmp("does not end with </rdf:RDF>"));
    }
    Ok(end - b"</rdf:RDF>".len())
}

fn trim_white_end(data: &[u8], mut end: usize) -> usize {
    while end > 0 && is_white(data[end - 1]) {
        end -= 1;
    }
    end
}

/// Replace the bytes in `range` with `text` (an insertion when it is empty).
#[derive(Debug)]
pub(super) struct Edit {
    range: Range<usize>,
    text: Vec<u8>,
}

impl Edit {
    pub(super) fn replace(range: Range<usize>, text: String) -> Edit {
        Edit {
            range,
            text: text.into_bytes(),
        }
    }

    fn growth(&self) -> i64 {
        self.text.len() as i64 - self.range.len() as i64
    }
}

/// The parts of a one-revision PDF with a classic xref table that the patch
/// reads: the table, the trailer dictionary and the `startxref` offset.
pub(super) struct File<'a> {
    pdf: &'a [u8],
    /// Offset of the `xref` keyword.
    xref_start: usize,
    subsections: Vec<Subsection>,
    trailer: Dict,
    /// The digits after `startxref`.
    startxref_digits: Range<usize>,
}

/// `first count` and where its `count` 20-byte entries start.
struct Subsection {
    first: u32,
    count: u32,
    entries: usize,
}

/// An indirect object's value, and its data when it is a stream.
pub(super) struct Indirect {
    pub(super) value: Spanned,
    stream: Option<StreamData>,
}

struct StreamData {
    data: Range<usize>,
    /// The `/Length` integer: where it is written (in the stream dictionary or
    /// in the object it references) and its value.
    length_span: Range<usize>,
    length_value: u64,
}

/// Bytes in one classic xref entry: `oooooooooo ggggg n` and a two-byte EOL.
const ENTRY_LEN: usize = 20;

impl<'a> File<'a> {
    fn read(pdf: &'a [u8]) -> Result<File<'a>, ProducerError> {
        let (startxref_digits, xref_start) = startxref(pdf)?;
        let mut parser = Parser::new(pdf, xref_start);
        parser.keyword(b"xref")?;
        let mut subsections = Vec::new();
        while !parser.peek_keyword(b"trailer") {
            let first = subsection_number(&mut parser)?;
            let count = subsection_number(&mut parser)?;
            parser.skip_blank();
            let entries = parser.pos();
            let end = (count as usize)
                .checked_mul(ENTRY_LEN)
                .and_then(|n| n.checked_add(entries))
                .filter(|&end| end <= pdf.len())
                .ok_or(ProducerError::XrefEntry(entries))?;
            subsections.push(Subsection {
                first,
                count,
                entries,
            });
            parser.set_pos(end);
        }
        parser.keyword(b"trailer")?;
        let trailer = match parser.object()?.object {
            Object::Dict(d) => d,
            _ => {
                return Err(ProducerError::WrongType {
                    what: "the trailer",
                    expected: "a dictionary",
                })
            }
        };
        parser.keyword(b"startxref")?;
        parser.skip_blank();
        if parser.pos() != startxref_digits.start {
            return Err(ProducerError::NoStartxref);
        }
        for (key, what) in [
            (&b"Prev"[..], "/Prev (an earlier revision)"),
            (b"XRefStm", "/XRefStm (a hybrid xref stream)"),
            (b"Encrypt", "/Encrypt (encrypted strings)"),
        ] {
            if trailer.get(key).is_some() {
                return Err(ProducerError::Unsupported(what));
            }
        }
        Ok(File {
            pdf,
            xref_start,
            subsections,
            trailer,
            startxref_digits,
        })
    }

    /// The document catalog (`/Root`).
    pub(super) fn catalog(&self) -> Result<Dict, ProducerError> {
        let root = self.trailer.get(b"Root").ok_or(ProducerError::WrongType {
            what: "the trailer",
            expected: "a dictionary with /Root",
        })?;
        let object = self.object(reference(root, "the trailer's /Root")?)?;
        Ok(dict(&object.value, "the catalog")?.clone())
    }

    /// Byte offset of object `num` according to the xref table.
    fn offset_of(&self, num: u32) -> Result<usize, ProducerError> {
        let sub = self
            .subsections
            .iter()
            .find(|s| s.first <= num && num - s.first < s.count)
            .ok_or(ProducerError::MissingObject(num))?;
        let at = sub.entries + (num - sub.first) as usize * ENTRY_LEN;
        match entry(self.pdf, at)? {
            (offset, b'n') => Ok(offset),
            _ => Err(ProducerError::MissingObject(num)),
        }
    }

    /// Parses `num gen obj value [stream ... endstream] endobj` at the offset
    /// the xref table gives for `reference`.
    pub(super) fn object(&self, reference: (u32, u16)) -> Result<Indirect, ProducerError> {
        let (mut parser, value) = self.open(reference)?;
        let stream = match (&value.object, parser.peek_keyword(b"stream")) {
            (Object::Dict(dict), true) => Some(self.stream_data(&mut parser, dict, reference.0)?),
            _ => None,
        };
        parser.keyword(b"endobj")?;
        Ok(Indirect { value, stream })
    }

    /// Parses `num gen obj value` and leaves the parser after the value.
    fn open(&self, reference: (u32, u16)) -> Result<(Parser<'a>, Spanned), ProducerError> {
        let (num, generation) = reference;
        let mut parser = Parser::new(self.pdf, self.offset_of(num)?);
        if parser.unsigned()? != u64::from(num) || parser.unsigned()? != u64::from(generation) {
            return Err(ProducerError::ObjectMismatch(num));
        }
        parser.keyword(b"obj")?;
        let value = parser.object()?;
        Ok((parser, value))
    }

    /// Reads `stream EOL data [EOL] endstream` after a stream dictionary,
    /// taking the data's length from `/Length` and nothing else.
    fn stream_data(
        &self,
        parser: &mut Parser,
        dict: &Dict,
        num: u32,
    ) -> Result<StreamData, ProducerError> {
        parser.keyword(b"stream")?;
        // The keyword is followed by CRLF or LF, not CR alone (§7.3.8.1).
        let rest = &self.pdf[parser.pos()..];
        let eol = if rest.starts_with(b"\r\n") {
            2
        } else if rest.starts_with(b"\n") {
            1
        } else {
            return Err(ProducerError::StreamLength(num));
        };
        let start = parser.pos() + eol;
        let (length_span, length_value) = self.stream_length(dict)?;
        let end = usize::try_from(length_value)
            .ok()
            .and_then(|n| start.checked_add(n))
            .filter(|&end| end <= self.pdf.len())
            .ok_or(ProducerError::StreamLength(num))?;
        parser.set_pos(end);
        parser
            .keyword(b"endstream")
            .map_err(|_| ProducerError::StreamLength(num))?;
        Ok(StreamData {
            data: start..end,
            length_span,
            length_value,
        })
    }

    /// Where `/Length` is written and its value; it may be a reference to an
    /// integer object (read as a plain object, so a stream whose /Length
    /// names itself is an error, not a recursion).
    fn stream_length(&self, dict: &Dict) -> Result<(Range<usize>, u64), ProducerError> {
        let wrong = ProducerError::WrongType {
            what: "a stream's /Length",
            expected: "a non-negative integer",
        };
        let length = dict.get(b"Length").ok_or(wrong.clone())?;
        let length = match &length.object {
            Object::Ref(num, generation) => {
                let (mut parser, value) = self.open((*num, *generation))?;
                parser.keyword(b"endobj")?;
                value
            }
            _ => length.clone(),
        };
        match length.object {
            Object::Int(n) if n >= 0 => Ok((length.span, n as u64)),
            _ => Err(wrong),
        }
    }

    /// Applies the edits, then shifts every in-use xref offset and
    /// `startxref` by the growth of the edits before it.
    fn rewrite(&self, mut edits: Vec<Edit>) -> Result<Vec<u8>, ProducerError> {
        edits.sort_by_key(|e| e.range.start);
        let in_order = edits.windows(2).all(|w| w[0].range.end <= w[1].range.start);
        if !in_order || edits.last().is_some_and(|e| e.range.end > self.xref_start) {
            return Err(ProducerError::Unsupported(
                "metadata objects after the xref table",
            ));
        }
        // Growth of all edits before each edit (a link per annotation can
        // make thousands): an offset's shift is one binary search.
        let mut before = Vec::with_capacity(edits.len() + 1);
        before.push(0i64);
        for e in &edits {
            before.push(before.last().copied().unwrap_or(0) + e.growth());
        }
        let shift = |offset: usize| -> Result<usize, ProducerError> {
            let n = edits.partition_point(|e| e.range.start < offset);
            usize::try_from(offset as i64 + before[n]).map_err(|_| ProducerError::TooLarge)
        };

        let growth: i64 = edits.iter().map(Edit::growth).sum();
        let mut out = Vec::with_capacity((self.pdf.len() as i64 + growth + 8).max(0) as usize);
        let mut copied = 0;
        for edit in &edits {
            out.extend_from_slice(&self.pdf[copied..edit.range.start]);
            out.extend_from_slice(&edit.text);
            copied = edit.range.end;
        }
        out.extend_from_slice(&self.pdf[copied..self.startxref_digits.start]);

        // The xref table and trailer were copied unchanged, `growth` bytes later.
        for sub in &self.subsections {
            for i in 0..sub.count as usize {
                let at = sub.entries + i * ENTRY_LEN;
                let (offset, kind) = entry(self.pdf, at)?;
                let shifted = shift(offset)?;
                // krilla writes Info and XMP last, so most entries keep their offset.
                if kind == b'n' && shifted != offset {
                    let out_at = (at as i64 + growth) as usize;
                    write_ten_digits(&mut out[out_at..out_at + 10], shifted)?;
                }
            }
        }
        out.extend_from_slice(shift(self.xref_start)?.to_string().as_bytes());
        out.extend_from_slice(&self.pdf[self.startxref_digits.end..]);
        Ok(out)
    }
}

/// An object number or count in an xref subsection header (`first count`).
fn subsection_number(parser: &mut Parser) -> Result<u32, ProducerError> {
    let at = parser.pos();
    u32::try_from(parser.unsigned()?).map_err(|_| ProducerError::XrefEntry(at))
}

/// The digits after the last `startxref` and the offset they name, read
/// backwards from the end of the file: `startxref EOL digits EOL %%EOF [EOL]`.
fn startxref(pdf: &[u8]) -> Result<(Range<usize>, usize), ProducerError> {
    let end = trim_white_end(pdf, pdf.len());
    let eof = end
        .checked_sub(b"%%EOF".len())
        .filter(|&at| &pdf[at..end] == b"%%EOF")
        .ok_or(ProducerError::NoStartxref)?;
    let digits_end = trim_white_end(pdf, eof);
    let mut digits_start = digits_end;
    while digits_start > 0 && pdf[digits_start - 1].is_ascii_digit() {
        digits_start -= 1;
    }
    let keyword_end = trim_white_end(pdf, digits_start);
    let separated = keyword_end < digits_start;
    let keyword = keyword_end.checked_sub(b"startxref".len());
    if !separated || keyword.is_none_or(|at| &pdf[at..keyword_end] != b"startxref") {
        return Err(ProducerError::NoStartxref);
    }
    let offset = std::str::from_utf8(&pdf[digits_start..digits_end])
        .ok()
        .and_then(|d| d.parse::<usize>().ok())
        .filter(|&o| o < pdf.len())
        .ok_or(ProducerError::NoStartxref)?;
    Ok((digits_start..digits_end, offset))
}

/// The offset and kind (`n` or `f`) of the xref entry at `at`.
fn entry(pdf: &[u8], at: usize) -> Result<(usize, u8), ProducerError> {
    let bad = ProducerError::XrefEntry(at);
    let e = pdf.get(at..at + ENTRY_LEN).ok_or(bad.clone())?;
    let well_formed = e[..10].iter().all(u8::is_ascii_digit)
        && e[10] == b' '
        && e[11..16].iter().all(u8::is_ascii_digit)
        && e[16] == b' '
        && matches!(e[17], b'n' | b'f')
        && matches!(&e[18..], b"\r\n" | b" \n" | b" \r");
    if !well_formed {
        return Err(bad);
    }
    let offset = e[..10]
        .iter()
        .fold(0usize, |n, &d| n * 10 + usize::from(d - b'0'));
    Ok((offset, e[17]))
}

/// Writes `value` zero-padded into a 10-byte xref offset field.
fn write_ten_digits(field: &mut [u8], mut value: usize) -> Result<(), ProducerError> {
    for digit in field.iter_mut().rev() {
        *digit = b'0' + (value % 10) as u8;
        value /= 10;
    }
    match value {
        0 => Ok(()),
        _ => Err(ProducerError::TooLarge),
    }
}

pub(super) fn reference(value: &Spanned, what: &'static str) -> Result<(u32, u16), ProducerError> {
    match value.object {
        Object::Ref(num, generation) => Ok((num, generation)),
        _ => Err(ProducerError::WrongType {
            what,
            expected: "an indirect reference",
        }),
    }
}

pub(super) fn dict<'s>(value: &'s Spanned, what: &'static str) -> Result<&'s Dict, ProducerError> {
    match &value.object {
        Object::Dict(d) => Ok(d),
        _ => Err(ProducerError::WrongType {
            what,
            expected: "a dictionary",
        }),
    }
}

/// A PDF text string (§7.9.2.2), written as krilla writes its own: printable
/// ASCII as a literal string (`\`, `(` and `)` escaped), anything else as
/// UTF-16BE with a byte order mark, in hex.
pub(super) fn pdf_text_string(text: &str) -> String {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        let mut out = String::with_capacity(text.len() + 2);
        out.push('(');
        for c in text.chars() {
            if matches!(c, '\\' | '(' | ')') {
                out.push('\\');
            }
            out.push(c);
        }
        out.push(')');
        out
    } else {
        let mut out = String::from("<FEFF");
        for unit in text.encode_utf16() {
            out.push_str(&format!("{unit:04X}"));
        }
        out.push('>');
        out
    }
}

/// XML character data and attribute values alike.
fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Reads a finished PDF back with this module's parser, for the tests here
/// (PDFs written by hand) and the engine's (PDFs it renders: the engine is
/// above `pdf`, so those tests are in `crate::engine`).
#[cfg(test)]
pub(crate) mod inspect {
    use super::*;

    /// Every object in use parses at the offset its xref entry gives, and
    /// every stream ends in `endstream` exactly `/Length` bytes after `stream`.
    pub(crate) fn every_object(pdf: &[u8]) {
        objects(pdf);
    }

    /// The objects in use, each checked as [`every_object`] says.
    fn objects(pdf: &[u8]) -> Vec<Indirect> {
        let file = File::read(pdf).unwrap();
        let mut objects = Vec::new();
        for sub in &file.subsections {
            for i in 0..sub.count {
                let (_, kind) = entry(pdf, sub.entries + i as usize * ENTRY_LEN).unwrap();
                if kind == b'n' {
                    let num = sub.first + i;
                    match file.object((num, 0)) {
                        Ok(object) => objects.push(object),
                        Err(e) => panic!("object {num}: {e}"),
                    }
                }
            }
        }
        objects
    }

    /// The Info dictionary's text strings, decoded.
    pub(crate) fn info(pdf: &[u8]) -> Option<std::collections::BTreeMap<String, String>> {
        let file = File::read(pdf).unwrap();
        let reference = reference(file.trailer.get(b"Info")?, "Info").unwrap();
        let object = file.object(reference).unwrap();
        let dict = dict(&object.value, "Info").unwrap();
        Some(
            dict.entries
                .iter()
                .filter_map(|(key, value)| match &value.object {
                    Object::String(s) => Some((String::from_utf8_lossy(key).into(), text(s))),
                    _ => None,
                })
                .collect(),
        )
    }

    /// A text string: UTF-16BE after a byte order mark, else (for the ASCII
    /// the tests write) one byte per character.
    fn text(bytes: &[u8]) -> String {
        match bytes.strip_prefix(b"\xfe\xff") {
            Some(utf16) => {
                let units: Vec<u16> = utf16
                    .chunks(2)
                    .map(|p| u16::from_be_bytes([p[0], p[1]]))
                    .collect();
                String::from_utf16(&units).unwrap()
            }
            None => bytes.iter().map(|&b| b as char).collect(),
        }
    }

    /// The XMP packet the catalog names.
    pub(crate) fn xmp(pdf: &[u8]) -> String {
        let file = File::read(pdf).unwrap();
        let catalog = file.catalog().unwrap();
        let reference = reference(catalog.get(b"Metadata").unwrap(), "Metadata").unwrap();
        let stream = file.object(reference).unwrap().stream.unwrap();
        String::from_utf8(pdf[stream.data].to_vec()).unwrap()
    }

    /// Every `/URI` string anywhere in the file's objects.
    pub(crate) fn uris(pdf: &[u8]) -> Vec<String> {
        fn walk(object: &Object, out: &mut Vec<String>) {
            match object {
                Object::Dict(d) => {
                    for (key, value) in &d.entries {
                        match (key.as_slice(), &value.object) {
                            (b"URI", Object::String(s)) => out.push(text(s)),
                            (_, inner) => walk(inner, out),
                        }
                    }
                }
                Object::Array(items) => items.iter().for_each(|i| walk(&i.object, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        objects(pdf)
            .iter()
            .for_each(|o| walk(&o.value.object, &mut out));
        out
    }

    /// `text` as the XMP packet carries it (this module's own escaping).
    pub(crate) fn xml_escape(text: &str) -> String {
        super::xml_escape(text)
    }
}

#[cfg(test)]
mod tests {
    use super::inspect::{every_object, info, xmp};
    use super::*;

    #[test]
    fn characters_xml_cannot_carry_are_dropped_from_both_places() {
        // Validation refuses such a producer in a request (API-002); this
        // layer still never writes one.
        let pdf = synthetic_with("<< /Title (t) >>", &XMP.len().to_string(), "");
        let pdf = set_producer(pdf, "a\u{1}b\tc\r\nd\u{FFFF}e").unwrap();
        assert_eq!(info(&pdf).unwrap()["Producer"], "abcde");
        assert!(xmp(&pdf).contains("<pdf:Producer>abcde</pdf:Producer>"));
    }

    /// A PDF written by hand: objects 1.. in order, a classic xref table.
    fn synthetic(objects: &[&str], trailer: &str) -> Vec<u8> {
        let mut out = b"%PDF-1.7\n%\xe2\xe3\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend(format!("{} 0 obj\n{body}\nendobj\n", i + 1).bytes());
        }
        let xref = out.len();
        out.extend(format!("xref\n0 {}\n0000000000 65535 f\r\n", objects.len() + 1).bytes());
        for offset in offsets {
            out.extend(format!("{offset:010} 00000 n\r\n").bytes());
        }
        out.extend(format!("trailer\n{trailer}\nstartxref\n{xref}\n%%EOF\n").bytes());
        out
    }

    const XMP: &str = "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description rdf:about=\"\"/></rdf:RDF></x:xmpmeta>\n   \n<?xpacket end=\"w\"?>";

    fn synthetic_with(info: &str, length: &str, trailer_extra: &str) -> Vec<u8> {
        synthetic(
            &[
                "<< /Type /Catalog /Pages 2 0 R /Metadata 3 0 R >>",
                "<< /Type /Pages /Kids [] /Count 0 >>",
                &format!("<< /Type /Metadata /Subtype /XML /Length {length} >>\nstream\n{XMP}\nendstream"),
                &XMP.len().to_string(),
                info,
            ],
            &format!("<< /Size 6 /Root 1 0 R /Info 5 0 R {trailer_extra}>>"),
        )
    }

    #[test]
    fn an_existing_producer_is_replaced_and_an_indirect_length_raised() {
        let pdf = synthetic_with(
            "<< /Title (x\\) /Producer (y) >>) % a comment >> /Producer (old) \n/Producer (old)\n>>",
            "4 0 R",
            "",
        );
        // The Title string and a comment hide `/Producer` and `>>`: only the
        // real key's value is replaced.
        let out = set_producer(pdf, "new (1)").unwrap();
        every_object(&out);
        let info = info(&out).unwrap();
        assert_eq!(info["Title"], "x) /Producer (y) >>");
        assert_eq!(info["Producer"], "new (1)");
        let xmp = xmp(&out);
        assert!(xmp.starts_with("<?xpacket begin"), "{xmp}");
        assert!(xmp.contains("<pdf:Producer>new (1)</pdf:Producer></rdf:Description></rdf:RDF>"));
    }

    #[test]
    fn only_the_objects_it_needs_are_parsed() {
        // Object 2 is garbage: a patch that parsed every object would fail.
        let mut pdf = synthetic_with("<< /Title (t) >>", &XMP.len().to_string(), "");
        let pages = memchr::memmem::find(&pdf, b"<< /Type /Pages").unwrap();
        pdf[pages..pages + 2].copy_from_slice(b"))");
        let out = set_producer(pdf, "p").unwrap();
        assert_eq!(info(&out).unwrap()["Producer"], "p");
    }

    #[test]
    fn files_it_cannot_patch_are_typed_errors() {
        let prev = synthetic_with("<< >>", &XMP.len().to_string(), "/Prev 9 ");
        assert!(matches!(
            set_producer(prev, "p"),
            Err(ProducerError::Unsupported(_))
        ));
        let short = synthetic_with("<< >>", &(XMP.len() - 3).to_string(), "");
        assert_eq!(
            set_producer(short, "p").unwrap_err(),
            ProducerError::StreamLength(3)
        );
        // A stream whose /Length names the stream itself.
        let own = synthetic_with("<< >>", "3 0 R", "");
        assert!(set_producer(own, "p").is_err());
        // Same length, so the xref offsets stay right.
        let mut encoded = synthetic_with("<< >>", "4 0 R", "");
        let at = memchr::memmem::find(&encoded, b"/Subtype /XML").unwrap();
        encoded[at..at + 13].copy_from_slice(b"/Filter /LZW ");
        assert_eq!(
            set_producer(encoded, "p").unwrap_err(),
            ProducerError::Xmp("stream is encoded (/Filter)")
        );
        assert_eq!(
            set_producer(b"%PDF-1.7\n".to_vec(), "p").unwrap_err(),
            ProducerError::NoStartxref
        );
    }

    #[test]
    fn truncated_or_damaged_files_never_panic() {
        let pdf = synthetic_with("<< /Title (a (b) c) /Producer <FEFF0041> >>", "4 0 R", "");
        // Every cut that reaches into `%%EOF` or before it.
        for cut in 0..pdf.len() - 1 {
            assert!(
                set_producer(pdf[..cut].to_vec(), "p").is_err(),
                "cut at {cut}"
            );
        }
        for at in 0..pdf.len() {
            for byte in [b'0', b'9', b'(', b')', b'<', b'>', b'\\', b' ', b'%', b'R'] {
                let mut damaged = pdf.clone();
                damaged[at] = byte;
                let _ = set_producer(damaged, "p");
            }
        }
    }
}
