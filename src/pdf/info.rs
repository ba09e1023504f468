//! The PDF producer: typst-pdf writes no /Producer, so it is added here.
//!
//! The exporter writes a classic cross-reference table and plain (not
//! compressed) Info and XMP objects, so the producer is inserted as bytes and
//! the byte offsets after each insertion are shifted. No re-serialisation, so
//! this costs microseconds even for a 1,000-page document.

/// Adds `/Producer` to the Info dictionary (when the document has one: PDF/A-4
/// has none) and `pdf:Producer` to the XMP metadata.
pub fn set_producer(pdf: Vec<u8>, producer: &str) -> Result<Vec<u8>, String> {
    let mut edits = Vec::new();
    if let Some(at) = info_dict_end(&pdf) {
        edits.push(Edit::insert(
            at,
            format!("/Producer {}", utf16_hex(producer)),
        ));
    }
    if let Some((at, length_pos, length)) = xmp_insertion(&pdf) {
        let description = format!(
            "<rdf:Description rdf:about=\"\" xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\"><pdf:Producer>{}</pdf:Producer></rdf:Description>",
            xml_escape(producer)
        );
        let new_length = (length + description.len()).to_string();
        edits.push(Edit {
            at: length_pos,
            removed: length.to_string().len(),
            inserted: new_length.into_bytes(),
        });
        edits.push(Edit::insert(at, description));
    }
    if edits.is_empty() {
        return Ok(pdf);
    }
    apply(pdf, edits)
}

/// Replace `removed` bytes at `at` with `inserted`.
struct Edit {
    at: usize,
    removed: usize,
    inserted: Vec<u8>,
}

impl Edit {
    fn insert(at: usize, text: String) -> Edit {
        Edit {
            at,
            removed: 0,
            inserted: text.into_bytes(),
        }
    }
}

/// Offset of the `>>` closing the Info dictionary named by the trailer.
fn info_dict_end(pdf: &[u8]) -> Option<usize> {
    let trailer = rfind(pdf, b"trailer")?;
    let info = find(&pdf[trailer..], b"/Info ")? + trailer + 6;
    let number: String = pdf[info..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .map(|&b| b as char)
        .collect();
    let header = format!("\n{number} 0 obj");
    let start = find(pdf, header.as_bytes())?;
    let end = find(&pdf[start..], b"endobj")? + start;
    let close = rfind(&pdf[start..end], b">>")? + start;
    Some(close)
}

/// Where the XMP gets its new description, and the stream's /Length (position, value).
fn xmp_insertion(pdf: &[u8]) -> Option<(usize, usize, usize)> {
    let close = find(pdf, b"</rdf:RDF>")?;
    let stream = rfind(&pdf[..close], b"stream")?;
    let obj = rfind(&pdf[..stream], b" 0 obj")?;
    let length_key = find(&pdf[obj..stream], b"/Length ")? + obj + 8;
    let digits: String = pdf[length_key..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .map(|&b| b as char)
        .collect();
    Some((close, length_key, digits.parse().ok()?))
}

/// Applies the edits and shifts every xref offset and `startxref` accordingly.
fn apply(pdf: Vec<u8>, mut edits: Vec<Edit>) -> Result<Vec<u8>, String> {
    edits.sort_by_key(|e| e.at);
    let shift = |offset: usize| -> usize {
        let delta: isize = edits
            .iter()
            .filter(|e| e.at < offset)
            .map(|e| e.inserted.len() as isize - e.removed as isize)
            .sum();
        (offset as isize + delta) as usize
    };
    let mut out = Vec::with_capacity(pdf.len() + 256);
    let mut last = 0;
    for e in &edits {
        out.extend_from_slice(&pdf[last..e.at]);
        out.extend_from_slice(&e.inserted);
        last = e.at + e.removed;
    }
    out.extend_from_slice(&pdf[last..]);

    // Shift the classic xref table (fixed 20-byte entries) and startxref.
    let xref = rfind(&out, b"\nxref\n").ok_or("no classic xref table")? + 6;
    let mut i = xref;
    loop {
        let line_end = find(&out[i..], b"\n").ok_or("truncated xref")? + i;
        let line = std::str::from_utf8(&out[i..line_end])
            .map_err(|e| e.to_string())?
            .trim()
            .to_string();
        let mut fields = line.split(' ');
        let (Some(_first), Some(count), None) = (fields.next(), fields.next(), fields.next())
        else {
            break;
        };
        let count: usize = count.parse().map_err(|_| "bad xref subsection")?;
        i = line_end + 1;
        for _ in 0..count {
            let entry = &out[i..i + 20];
            if entry[17] == b'n' {
                let offset: usize = std::str::from_utf8(&entry[0..10])
                    .map_err(|e| e.to_string())?
                    .parse()
                    .map_err(|_| "bad xref entry")?;
                let shifted = format!("{:010}", shift(offset));
                out[i..i + 10].copy_from_slice(shifted.as_bytes());
            }
            i += 20;
        }
    }
    let sx = rfind(&out, b"startxref\n").ok_or("no startxref")? + 10;
    let digits_end = sx + out[sx..].iter().take_while(|b| b.is_ascii_digit()).count();
    let old: usize = std::str::from_utf8(&out[sx..digits_end])
        .map_err(|e| e.to_string())?
        .parse()
        .map_err(|_| "bad startxref")?;
    let new = shift(old).to_string();
    out.splice(sx..digits_end, new.into_bytes());
    Ok(out)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::rfind(hay, needle)
}

/// A PDF text string as UTF-16BE hex with BOM: safe for any character.
fn utf16_hex(text: &str) -> String {
    let mut out = String::from("<FEFF");
    for unit in text.encode_utf16() {
        out.push_str(&format!("{unit:04X}"));
    }
    out.push('>');
    out
}

fn xml_escape(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .map(|c| match c {
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '&' => "&amp;".to_string(),
            '"' => "&quot;".to_string(),
            c => c.to_string(),
        })
        .collect()
}
