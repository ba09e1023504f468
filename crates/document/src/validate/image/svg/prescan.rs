//! A flat pass over an SVG's text before any parser sees it: no recursion,
//! no tree, no allocation beyond the entity table. It is deliberately rough
//! (markup inside entity values is not seen, a malformed document ends the
//! pass early): what it must do is refuse the documents whose parse alone
//! would cost too much, and cheaply. The exact checks run on the parsed tree.

use std::collections::HashMap;

use memchr::{memchr, memmem};

use crate::validate::image::ImageError;

/// Refuses nesting deeper than `depth`, more than `elements` start tags,
/// and entity references that expand beyond `expansion` bytes in all.
pub fn scan(text: &str, depth: u64, elements: u64, expansion: usize) -> Result<(), ImageError> {
    tags(text.as_bytes(), depth, elements)?;
    entities(text, expansion)
}

/// Counts start tags and tracks nesting, skipping comments, CDATA,
/// processing instructions and declarations (the DOCTYPE with its subset).
fn tags(b: &[u8], depth_limit: u64, element_limit: u64) -> Result<(), ImageError> {
    let (mut depth, mut count, mut i) = (0u64, 0u64, 0usize);
    while let Some(offset) = memchr(b'<', &b[i..]) {
        let at = i + offset;
        let rest = &b[at..];
        i = if rest.starts_with(b"<!--") {
            skip_past(b, at + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_past(b, at + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_past(b, at + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            skip_declaration(b, at + 2)
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            tag_end(b, at + 2).0
        } else {
            count += 1;
            if count > element_limit {
                return Err(ImageError::SvgTooManyElements {
                    limit: element_limit,
                });
            }
            let (end, self_closing) = tag_end(b, at + 1);
            if !self_closing {
                depth += 1;
                if depth > depth_limit {
                    return Err(ImageError::SvgTooDeep { limit: depth_limit });
                }
            }
            end
        };
    }
    Ok(())
}

/// The index after `end`, searching from `from`; the text's end if absent.
fn skip_past(b: &[u8], from: usize, end: &[u8]) -> usize {
    let from = from.min(b.len());
    memmem::find(&b[from..], end).map_or(b.len(), |o| from + o + end.len())
}

/// The index after a quoted string starting at `at` (the quote).
fn skip_quoted(b: &[u8], at: usize) -> usize {
    memchr(b[at], &b[at + 1..]).map_or(b.len(), |o| at + 1 + o + 1)
}

/// The index after a tag's `>` (quotes may hold `>`), and whether it was `/>`.
fn tag_end(b: &[u8], mut i: usize) -> (usize, bool) {
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = skip_quoted(b, i);
                continue;
            }
            b'>' => return (i + 1, i > 0 && b[i - 1] == b'/'),
            _ => i += 1,
        }
    }
    (b.len(), false)
}

/// The index after a `<!...>` declaration; a DOCTYPE's internal subset
/// `[...]` may hold quoted values, comments and further declarations.
fn skip_declaration(b: &[u8], mut i: usize) -> usize {
    let mut in_subset = false;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = skip_quoted(b, i);
                continue;
            }
            b'<' if in_subset && b[i..].starts_with(b"<!--") => {
                i = skip_past(b, i + 4, b"-->");
                continue;
            }
            b'[' => in_subset = true,
            b']' => in_subset = false,
            b'>' if !in_subset => return i + 1,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

/// How deep entity references may nest; roxmltree refuses deeper too.
const ENTITY_NESTING: u32 = 10;

/// Bounds what entity references add to the document. Every `<!ENTITY`
/// anywhere counts as declared (a declaration inside a comment only adds
/// to the estimate), a name declared twice counts with its longer value,
/// and every `&name;` anywhere counts with its full expansion: an upper
/// bound of what roxmltree will build.
fn entities(text: &str, limit: usize) -> Result<(), ImageError> {
    let b = text.as_bytes();
    if memmem::find(b, b"<!ENTITY").is_none() {
        return Ok(());
    }
    let declared = declarations(text);
    let mut sizes = Sizes {
        declared: &declared,
        known: HashMap::new(),
    };
    let mut total: u64 = 0;
    for name in references(text) {
        if declared.contains_key(name) {
            total = total.saturating_add(sizes.expanded(name, 0)?);
            if total > limit as u64 {
                return Err(ImageError::SvgEntities { limit });
            }
        }
    }
    Ok(())
}

/// Every `<!ENTITY [%] name "value">` (or `'value'`) in the text; external
/// entities (`SYSTEM`, `PUBLIC`) are never loaded and have no value.
fn declarations(text: &str) -> HashMap<&str, Vec<&str>> {
    let mut found: HashMap<&str, Vec<&str>> = HashMap::new();
    for start in memmem::find_iter(text.as_bytes(), b"<!ENTITY") {
        let rest = text[start + 8..].trim_start();
        let rest = rest.strip_prefix('%').unwrap_or(rest).trim_start();
        let name_len = rest
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '>')
            .unwrap_or(rest.len());
        let (name, rest) = rest.split_at(name_len);
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|&c| c == '"' || c == '\'') else {
            continue;
        };
        let value = &rest[1..];
        let value = &value[..value.find(quote).unwrap_or(value.len())];
        if !name.is_empty() {
            found.entry(name).or_default().push(value);
        }
    }
    found
}

/// The names of every `&name;` in `text` (character references excluded).
fn references(text: &str) -> impl Iterator<Item = &str> {
    memchr::memchr_iter(b'&', text.as_bytes()).filter_map(move |at| {
        let rest = &text[at + 1..];
        let end = rest.find(|c: char| c == ';' || c == '&' || c == '<' || c.is_whitespace())?;
        (rest.as_bytes().get(end) == Some(&b';') && !rest.starts_with('#') && end > 0)
            .then(|| &rest[..end])
    })
}

/// Expanded sizes of entities, memoised; `None` marks one being computed.
struct Sizes<'a> {
    declared: &'a HashMap<&'a str, Vec<&'a str>>,
    known: HashMap<&'a str, Option<u64>>,
}

impl<'a> Sizes<'a> {
    /// Bytes `&name;` becomes: its longest value, with the references in it
    /// expanded. Recursion is at most [`ENTITY_NESTING`] deep.
    fn expanded(&mut self, name: &'a str, nesting: u32) -> Result<u64, ImageError> {
        match self.known.get(name) {
            Some(Some(size)) => return Ok(*size),
            Some(None) => return Err(ImageError::SvgEntityLoop),
            None => {}
        }
        if nesting > ENTITY_NESTING {
            return Err(ImageError::SvgEntityLoop);
        }
        self.known.insert(name, None);
        let declared = self.declared;
        let mut largest: u64 = 0;
        for value in declared.get(name).into_iter().flatten() {
            let mut size = value.len() as u64;
            for inner in references(value) {
                if declared.contains_key(inner) {
                    size = size.saturating_add(self.expanded(inner, nesting + 1)?);
                }
            }
            largest = largest.max(size);
        }
        self.known.insert(name, Some(largest));
        Ok(largest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn depth_counts_open_tags_only() {
        let flat = "<svg><g/><g></g><!-- <g><g><g> --><![CDATA[<g><g>]]><?pi <g>?></svg>";
        assert_eq!(tags(flat.as_bytes(), 2, 100), Ok(()));
        assert_eq!(
            tags(flat.as_bytes(), 1, 100),
            Err(ImageError::SvgTooDeep { limit: 1 })
        );
        let quoted = r#"<svg a="x>y"><g b='/>'><rect/></g></svg>"#;
        assert_eq!(tags(quoted.as_bytes(), 2, 100), Ok(()));
        assert!(tags(quoted.as_bytes(), 1, 100).is_err());
    }

    #[test]
    fn the_issue_svg_700_deep_is_refused_at_the_first_level_too_many() {
        let svg = format!(
            "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>{}<rect width='5' height='5'/>{}",
            "<svg width='10' height='10'>".repeat(700),
            "</svg>".repeat(701)
        );
        assert_eq!(
            tags(svg.as_bytes(), 64, 100_000),
            Err(ImageError::SvgTooDeep { limit: 64 })
        );
        assert_eq!(tags(svg.as_bytes(), 701, 100_000), Ok(()));
    }

    #[test]
    fn element_count_is_bounded() {
        let svg = format!("<svg>{}</svg>", "<rect/>".repeat(1000));
        assert_eq!(tags(svg.as_bytes(), 64, 1001), Ok(()));
        assert_eq!(
            tags(svg.as_bytes(), 64, 1000),
            Err(ImageError::SvgTooManyElements { limit: 1000 })
        );
    }

    #[test]
    fn a_doctype_subset_is_not_markup() {
        let svg =
            r#"<!DOCTYPE svg [ <!ENTITY a "<g><g><g>"> <!-- ] > <g> --> ]><svg><rect/></svg>"#;
        assert_eq!(tags(svg.as_bytes(), 1, 100), Ok(()));
    }

    #[test]
    fn billion_laughs_is_refused() {
        let mut svg =
            String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE svg [\n<!ENTITY lol \"lol\">\n");
        for level in 1..=9 {
            let prev = if level == 1 {
                "lol".to_string()
            } else {
                format!("lol{}", level - 1)
            };
            svg.push_str(&format!(
                "<!ENTITY lol{level} \"{}\">\n",
                format!("&{prev};").repeat(10)
            ));
        }
        svg.push_str("]>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><text>&lol9;</text></svg>");
        assert_eq!(
            entities(&svg, 15 * MIB),
            Err(ImageError::SvgEntities { limit: 15 * MIB })
        );
    }

    #[test]
    fn quadratic_blowup_is_refused() {
        let svg = format!(
            "<!DOCTYPE svg [<!ENTITY big \"{}\">]><svg>{}</svg>",
            "x".repeat(100_000),
            "&big;".repeat(100)
        );
        assert!(entities(&svg, 15 * MIB).is_ok());
        let svg = svg.replace("</svg>", &format!("{}</svg>", "&big;".repeat(100)));
        assert!(entities(&svg, 30 * MIB).is_ok());
        assert_eq!(
            entities(&svg, 15 * MIB),
            Err(ImageError::SvgEntities { limit: 15 * MIB })
        );
    }

    #[test]
    fn entity_loops_are_refused() {
        let svg = "<!DOCTYPE svg [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]><svg>&a;</svg>";
        assert_eq!(entities(svg, MIB), Err(ImageError::SvgEntityLoop));
    }

    #[test]
    fn illustrator_style_namespace_entities_pass() {
        let svg = r#"<?xml version="1.0"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [
	<!ENTITY ns_extend "http://ns.adobe.com/Extensibility/1.0/">
	<!ENTITY ns_svg "http://www.w3.org/2000/svg">
	<!ENTITY % ns_flows "http://ns.adobe.com/Flows/1.0/">
]>
<svg xmlns:x="&ns_extend;" xmlns="&ns_svg;"><rect width="1" height="1"/></svg>"#;
        assert_eq!(scan(svg, 64, 100, MIB), Ok(()));
    }

    #[test]
    fn references_skip_character_references_and_unfinished_names() {
        let names: Vec<_> = references("&a; &#65; &#x41; & b; &c &d;e &é;").collect();
        assert_eq!(names, ["a", "d", "é"]);
    }
}
