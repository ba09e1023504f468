//! Slims the embedded fonts before Typst sees them.
//!
//! The PDF exporter copies a font's `name` and `post` tables into every
//! subset it embeds and processes them on every render:
//! - DejaVu Sans carries its licence text in `name` (id 13, about 9.5 KB per
//!   face): half of each subset's bytes, deflated twice per label.
//! - `post` holds a name for every glyph (format 2), which the subsetter
//!   walks on every render (0.5 M instructions per label). A PDF needs no
//!   glyph names: text extraction uses the ToUnicode map.
//!
//! Subsetters such as fontTools (pyftsubset) drop both by default; so do we.
//! The copyright notice (name id 0), the licence URL (id 14) and the `post`
//! header (italic angle, underline metrics) stay, and nothing that Typst or
//! the PDF reads (glyphs, metrics, family names) changes.

/// Name id of the licence description.
const LICENSE_DESCRIPTION: u16 = 13;

/// `post` table version 3.0: the header only, no glyph names.
const POST_V3: u32 = 0x0003_0000;
const POST_HEADER_LEN: usize = 32;

/// The font without its licence description and glyph names, or `None` when
/// the data is not a single sfnt font or has neither (collections and
/// unusual layouts are left as they are).
pub fn slimmed(font: &[u8]) -> Option<Vec<u8>> {
    let tables = table_directory(font)?;
    let table = |tag: &[u8; 4]| {
        let t = tables.iter().find(|t| &t.tag == tag)?;
        slice(font, t.offset, t.length)
    };
    let mut replaced: Vec<([u8; 4], Vec<u8>)> = Vec::new();
    if let Some(name) = table(b"name").and_then(|n| name_without(n, LICENSE_DESCRIPTION)) {
        replaced.push((*b"name", name));
    }
    if let Some(post) = table(b"post").and_then(post_without_names) {
        replaced.push((*b"post", post));
    }
    (!replaced.is_empty()).then(|| rebuild(font, &tables, &replaced))
}

/// The `post` header as version 3.0; `None` when it already is or is too short.
fn post_without_names(post: &[u8]) -> Option<Vec<u8>> {
    if post.len() < POST_HEADER_LEN || u32_at(post, 0)? == POST_V3 {
        return None;
    }
    let mut header = post[..POST_HEADER_LEN].to_vec();
    header[..4].copy_from_slice(&POST_V3.to_be_bytes());
    Some(header)
}

/// One entry of the sfnt table directory.
struct Table {
    tag: [u8; 4],
    offset: usize,
    length: usize,
}

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(data.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?))
}

fn slice(data: &[u8], offset: usize, length: usize) -> Option<&[u8]> {
    data.get(offset..offset.checked_add(length)?)
}

fn table_directory(font: &[u8]) -> Option<Vec<Table>> {
    let version = u32_at(font, 0)?;
    // TrueType outlines, CFF outlines, or Apple's 'true'; not a collection.
    if !matches!(version, 0x0001_0000 | 0x4F54_544F | 0x7472_7565) {
        return None;
    }
    let count = u16_at(font, 4)? as usize;
    (0..count)
        .map(|i| {
            let at = 12 + 16 * i;
            let table = Table {
                tag: font.get(at..at + 4)?.try_into().ok()?,
                offset: u32_at(font, at + 8)? as usize,
                length: u32_at(font, at + 12)? as usize,
            };
            slice(font, table.offset, table.length)?;
            Some(table)
        })
        .collect()
}

/// A format-0 `name` table without the records of `drop_id`; `None` when it
/// has none (nothing to do) or is not format 0.
fn name_without(name: &[u8], drop_id: u16) -> Option<Vec<u8>> {
    if u16_at(name, 0)? != 0 {
        return None;
    }
    let count = u16_at(name, 2)? as usize;
    let storage = u16_at(name, 4)? as usize;
    let mut kept = Vec::new();
    for i in 0..count {
        let at = 6 + 12 * i;
        let record = name.get(at..at + 12)?;
        let length = u16_at(record, 8)? as usize;
        let offset = u16_at(record, 10)? as usize;
        let text = slice(name, storage + offset, length)?;
        if u16_at(record, 6)? != drop_id {
            kept.push((record, text));
        }
    }
    if kept.len() == count {
        return None;
    }
    let new_storage = 6 + 12 * kept.len();
    let mut out = Vec::with_capacity(name.len());
    out.extend_from_slice(&0u16.to_be_bytes());
    out.extend_from_slice(&(kept.len() as u16).to_be_bytes());
    out.extend_from_slice(&(new_storage as u16).to_be_bytes());
    let mut strings = Vec::new();
    for (record, text) in &kept {
        out.extend_from_slice(&record[..10]);
        out.extend_from_slice(&u16::try_from(strings.len()).ok()?.to_be_bytes());
        strings.extend_from_slice(text);
    }
    out.extend_from_slice(&strings);
    Some(out)
}

/// The font with the `replaced` tables: tables laid out again on 4-byte
/// boundaries, checksums and `head.checkSumAdjustment` recomputed.
fn rebuild(font: &[u8], tables: &[Table], replaced: &[([u8; 4], Vec<u8>)]) -> Vec<u8> {
    let header_len = 12 + 16 * tables.len();
    let mut out = font[..header_len].to_vec();
    let mut head_at = None;
    for (i, table) in tables.iter().enumerate() {
        let body = match replaced.iter().find(|(tag, _)| *tag == table.tag) {
            Some((_, data)) => data.as_slice(),
            None => &font[table.offset..table.offset + table.length],
        };
        let offset = out.len();
        out.extend_from_slice(body);
        out.resize(out.len().next_multiple_of(4), 0);
        if &table.tag == b"head" && body.len() >= 12 {
            head_at = Some(offset);
            // checkSumAdjustment counts as zero in every checksum.
            out[offset + 8..offset + 12].fill(0);
        }
        let entry = 12 + 16 * i;
        let sum = checksum(&out[offset..offset + body.len().next_multiple_of(4)]);
        out[entry + 4..entry + 8].copy_from_slice(&sum.to_be_bytes());
        out[entry + 8..entry + 12].copy_from_slice(&(offset as u32).to_be_bytes());
        out[entry + 12..entry + 16].copy_from_slice(&(body.len() as u32).to_be_bytes());
    }
    if let Some(at) = head_at {
        let adjustment = 0xB1B0_AFBAu32.wrapping_sub(checksum(&out));
        out[at + 8..at + 12].copy_from_slice(&adjustment.to_be_bytes());
    }
    out
}

/// The sfnt checksum: the sum of big-endian u32 words, zero-padded.
fn checksum(data: &[u8]) -> u32 {
    let words = data.chunks_exact(4);
    let mut tail = [0u8; 4];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    words
        .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
        .fold(u32::from_be_bytes(tail), u32::wrapping_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name id, text) of every record, decoded from UTF-16BE (Windows).
    fn names(font: &[u8]) -> Vec<(u16, String)> {
        let tables = table_directory(font).unwrap();
        let t = tables.iter().find(|t| &t.tag == b"name").unwrap();
        let name = slice(font, t.offset, t.length).unwrap();
        let storage = u16_at(name, 4).unwrap() as usize;
        (0..u16_at(name, 2).unwrap() as usize)
            .map(|i| {
                let r = &name[6 + 12 * i..18 + 12 * i];
                let (len, off) = (
                    u16_at(r, 8).unwrap() as usize,
                    u16_at(r, 10).unwrap() as usize,
                );
                let text = &name[storage + off..storage + off + len];
                let units: Vec<u16> = text
                    .chunks(2)
                    .map(|c| u16::from_be_bytes([c[0], c.get(1).copied().unwrap_or(0)]))
                    .collect();
                (u16_at(r, 6).unwrap(), String::from_utf16_lossy(&units))
            })
            .collect()
    }

    #[test]
    fn dejavu_loses_only_its_license_text_and_glyph_names() {
        let original = dejavu::sans::regular();
        let slim = slimmed(original).expect("DejaVu has a licence record");
        assert!(
            slim.len() + 9_000 < original.len(),
            "{} vs {}",
            slim.len(),
            original.len()
        );

        let before = names(original);
        let after = names(&slim);
        assert!(before.iter().any(|(id, _)| *id == LICENSE_DESCRIPTION));
        assert!(after.iter().all(|(id, _)| *id != LICENSE_DESCRIPTION));
        let expected: Vec<_> = before
            .into_iter()
            .filter(|(id, _)| *id != LICENSE_DESCRIPTION)
            .collect();
        assert_eq!(after, expected);
        assert!(after
            .iter()
            .any(|(id, text)| *id == 1 && text == "DejaVu Sans"));

        // Every other table is byte for byte the same, and the file checks out.
        let old = table_directory(original).unwrap();
        let new = table_directory(&slim).unwrap();
        for (a, b) in old.iter().zip(&new) {
            assert_eq!(a.tag, b.tag);
            if !matches!(&a.tag, b"name" | b"head" | b"post") {
                assert_eq!(
                    slice(original, a.offset, a.length),
                    slice(&slim, b.offset, b.length)
                );
            }
        }
        assert_eq!(checksum(&slim), 0xB1B0_AFBA);

        // `post`: version 3.0, the rest of the header as it was.
        let post = |font: &[u8], dir: &[Table]| {
            let t = dir.iter().find(|t| &t.tag == b"post").unwrap();
            slice(font, t.offset, t.length).unwrap().to_vec()
        };
        let (old_post, new_post) = (post(original, &old), post(&slim, &new));
        assert_eq!(u32_at(&old_post, 0), Some(0x0002_0000));
        assert_eq!(new_post.len(), POST_HEADER_LEN);
        assert_eq!(u32_at(&new_post, 0), Some(POST_V3));
        assert_eq!(new_post[4..], old_post[4..POST_HEADER_LEN]);

        // Typst reads the same family, glyphs and advances.
        let instance = |data: Vec<u8>| {
            typst::text::Font::new(typst::foundations::Bytes::new(data), 0)
                .unwrap()
                .instantiate(
                    Default::default(),
                    typst::layout::Abs::pt(10.0),
                    &Default::default(),
                )
        };
        let (font, reference) = (instance(slim), instance(original.to_vec()));
        assert_eq!(font.info().family, reference.info().family);
        for c in "Hamburg 0123 ÄÖÜ €".chars() {
            let g = font.ttf().glyph_index(c);
            assert_eq!(g, reference.ttf().glyph_index(c));
            let g = g.unwrap().0;
            assert_eq!(font.x_advance(g), reference.x_advance(g));
        }
    }

    #[test]
    fn other_data_is_left_alone() {
        assert!(slimmed(b"").is_none());
        assert!(slimmed(b"ttcf\0\0\0\0").is_none());
        // A directory pointing past the end of the data.
        let mut broken = vec![0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        broken.extend_from_slice(b"name\0\0\0\0\0\0\xff\xff\0\0\0\x10");
        assert!(slimmed(&broken).is_none());
    }
}
