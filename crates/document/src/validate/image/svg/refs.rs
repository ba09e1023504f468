//! References in one SVG element: its `href`s, and the `url(#id)`s of the
//! properties that make usvg build another element's content, read from
//! attributes, the `style` attribute and matching `<style>` rules alike.
//! Nothing may point outside the document.

use roxmltree::Node;

use crate::validate::image::ImageError;

pub(super) fn is(node: Node, tag: &str) -> bool {
    node.tag_name().name() == tag
}

/// Elements whose `href="#id"` makes usvg copy (or inherit) the target's
/// content (a `tref` its text).
pub(super) fn copies(node: Node) -> bool {
    ["use", "feImage", "pattern", "filter", "tref"].contains(&node.tag_name().name())
}

/// At most this many characters of a document's text in a message.
const QUOTED_CHARS: usize = 80;

pub(super) fn clip(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// One `href` attribute (any namespace: `href`, `xlink:href`).
pub(super) enum Href<'a> {
    Fragment(&'a str),
    Data(&'a str),
    External(&'a str),
}

pub(super) fn hrefs<'a>(node: Node<'a, '_>) -> impl Iterator<Item = Href<'a>> {
    node.attributes()
        .filter(|a| a.name() == "href")
        .map(|a| classify(a.value()))
}

/// A reference is a fragment (`#id`), a `data:` URI, or something outside
/// the document: a URL, a path, `file://`, anything else. An empty one
/// names no element, like `#`.
pub(super) fn classify(value: &str) -> Href<'_> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        Href::Fragment("")
    } else if let Some(id) = trimmed.strip_prefix('#') {
        Href::Fragment(id)
    } else if trimmed
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        Href::Data(trimmed)
    } else {
        Href::External(value)
    }
}

/// The properties whose `url(#id)` makes usvg build the target's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Prop {
    Fill,
    Stroke,
    MarkerStart,
    MarkerMid,
    MarkerEnd,
    ClipPath,
    Mask,
    Filter,
}

/// The inherited ones, in [`Inherited`]'s slot order.
const INHERITED: [Prop; 5] = [
    Prop::Fill,
    Prop::Stroke,
    Prop::MarkerStart,
    Prop::MarkerMid,
    Prop::MarkerEnd,
];

impl Prop {
    /// The properties a declaration `name` sets (`marker` sets all three).
    pub fn named(name: &str) -> &'static [Prop] {
        match name {
            "fill" => &[Prop::Fill],
            "stroke" => &[Prop::Stroke],
            "marker-start" => &[Prop::MarkerStart],
            "marker-mid" => &[Prop::MarkerMid],
            "marker-end" => &[Prop::MarkerEnd],
            "marker" => &[Prop::MarkerStart, Prop::MarkerMid, Prop::MarkerEnd],
            "clip-path" => &[Prop::ClipPath],
            "mask" => &[Prop::Mask],
            "filter" => &[Prop::Filter],
            _ => &[],
        }
    }

    /// The element a reference must name to be built (gradients, the other
    /// paint servers, build nothing that nests).
    pub fn kind(self) -> Option<&'static str> {
        Some(match self {
            Prop::Fill | Prop::Stroke => "pattern",
            Prop::MarkerStart | Prop::MarkerMid | Prop::MarkerEnd => "marker",
            Prop::ClipPath => "clipPath",
            Prop::Mask => "mask",
            Prop::Filter => "filter",
        })
    }

    pub fn is_marker(self) -> bool {
        matches!(self, Prop::MarkerStart | Prop::MarkerMid | Prop::MarkerEnd)
    }

    fn slot(self) -> Option<usize> {
        INHERITED.iter().position(|&p| p == self)
    }
}

/// A property's `url(#id)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Ref<'a> {
    pub prop: Prop,
    pub id: &'a str,
}

impl Ref<'_> {
    /// How often usvg builds the target for `node`: markers once per
    /// vertex and only on shapes with vertices, the others once.
    pub fn multiplicity(&self, node: Node) -> u64 {
        match self.prop {
            Prop::MarkerStart | Prop::MarkerMid | Prop::MarkerEnd => vertices(node),
            _ => 1,
        }
    }
}

/// An upper bound of a shape's vertices (markers are drawn on them).
pub(super) fn vertices(node: Node) -> u64 {
    match node.tag_name().name() {
        "line" => 2,
        "path" => node.attribute("d").map_or(0, |d| {
            let closes = d.bytes().filter(|b| matches!(b, b'z' | b'Z')).count() as u64;
            numbers(d) + closes + 1
        }),
        "polyline" | "polygon" => node.attribute("points").map_or(0, |p| numbers(p) / 2 + 1),
        _ => 0,
    }
}

/// How many numbers a path's data or a point list holds (`1.5.5` is two).
pub(super) fn numbers(text: &str) -> u64 {
    let b = text.as_bytes();
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let (mut i, mut count) = (0, 0);
    while i < b.len() {
        if b[i].is_ascii_digit() || b[i] == b'.' {
            count += 1;
            i = digits(i);
            if i < b.len() && b[i] == b'.' {
                i = digits(i + 1);
            }
            if i < b.len() && matches!(b[i], b'e' | b'E') {
                i += 1;
                if i < b.len() && matches!(b[i], b'+' | b'-') {
                    i += 1;
                }
                i = digits(i);
            }
        } else {
            i += 1;
        }
    }
    count
}

/// What one element declares: its references, which inherited properties
/// it sets at all (which stops their inheritance), and the filter
/// functions (`blur(2)`, `drop-shadow(...)`) of its `filter`, each a
/// primitive usvg applies like those of a `<filter>`.
pub(super) struct Declared<'a> {
    pub refs: Vec<Ref<'a>>,
    pub sets: [bool; 5],
    pub filter_functions: u64,
}

impl<'a> Declared<'a> {
    /// Reads attributes, the `style` attribute and the matching rules'
    /// declarations. Where one property is set twice, both references count.
    pub fn of(node: Node<'a, '_>, rules: &[(&'a str, &'a str)]) -> Result<Self, ImageError> {
        let mut this = Declared {
            refs: Vec::new(),
            sets: [false; 5],
            filter_functions: 0,
        };
        for attribute in node.attributes() {
            match attribute.name() {
                "href" => {}
                "style" => {
                    for d in simplecss::DeclarationTokenizer::from(attribute.value()) {
                        this.add(d.name, d.value)?;
                    }
                }
                name => this.add(name, attribute.value())?,
            }
        }
        for &(name, value) in rules {
            this.add(name, value)?;
        }
        Ok(this)
    }

    fn add(&mut self, name: &str, value: &'a str) -> Result<(), ImageError> {
        let ids = url_fragments(value)?;
        if value.trim() == "inherit" {
            return Ok(());
        }
        for &prop in Prop::named(name) {
            if let Some(slot) = prop.slot() {
                self.sets[slot] = true;
            }
            if prop == Prop::Filter {
                self.filter_functions += filter_functions(value);
            }
            self.refs.extend(ids.iter().map(|&id| Ref { prop, id }));
        }
        Ok(())
    }
}

/// How many filter functions a `filter` value lists: its calls other than
/// `url(...)`.
fn filter_functions(value: &str) -> u64 {
    let calls = value.bytes().filter(|&b| b == b'(').count();
    let urls = value
        .as_bytes()
        .windows(4)
        .filter(|w| w.eq_ignore_ascii_case(b"url("))
        .count();
    calls.saturating_sub(urls) as u64
}

/// The `#id`s of every `url(...)` in a value. A `url()` that names anything
/// else than a fragment or a `data:` URI is refused: usvg ignores it, but
/// an image never points outside itself.
pub(super) fn url_fragments(value: &str) -> Result<Vec<&str>, ImageError> {
    let mut ids = Vec::new();
    let b = value.as_bytes();
    let mut from = 0;
    // Every delimiter looked for is ASCII, so every index is a char boundary.
    while let Some(offset) = b[from..]
        .windows(4)
        .position(|w| w.eq_ignore_ascii_case(b"url("))
    {
        let start = from + offset + 4;
        let rest = value[start..].trim_start();
        let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        let end = rest.find(['"', '\'', ')']).unwrap_or(rest.len());
        let target = rest[..end].trim();
        match classify(target) {
            Href::Fragment(id) => ids.push(id),
            Href::Data(_) => {}
            Href::External(href) => {
                return Err(ImageError::SvgExternal { href: clip(href) });
            }
        }
        from = start;
    }
    Ok(ids)
}

/// Each element's inherited references: per inherited property, the set of
/// the nearest element that sets it. Sets are shared, not copied.
pub(super) struct Inherited<'a> {
    sets: Vec<Vec<Ref<'a>>>,
    slots: Vec<[u32; 5]>,
}

impl<'a> Inherited<'a> {
    pub fn new(elements: usize) -> Self {
        Self {
            sets: vec![Vec::new()],
            slots: Vec::with_capacity(elements),
        }
    }

    /// Element `index` (the next one) keeps its parent's sets, except for
    /// the properties it sets itself.
    pub fn set(&mut self, index: usize, parent: u32, declared: &Declared<'a>) {
        let mut slots = if parent as usize == index {
            [0; 5]
        } else {
            self.slots[parent as usize]
        };
        for (slot, prop) in INHERITED.iter().enumerate() {
            if declared.sets[slot] {
                let own: Vec<_> = declared
                    .refs
                    .iter()
                    .filter(|r| r.prop == *prop)
                    .copied()
                    .collect();
                slots[slot] = if own.is_empty() {
                    0
                } else {
                    self.sets.push(own);
                    (self.sets.len() - 1) as u32
                };
            }
        }
        self.slots.push(slots);
    }

    /// The references element `index` inherits for the properties it
    /// does not set itself (`sets`).
    pub fn from_ancestors(&self, index: usize, sets: &[bool; 5]) -> impl Iterator<Item = &Ref<'a>> {
        let slots = self.slots[index];
        let sets = *sets;
        (0..5)
            .filter(move |&slot| !sets[slot] && slots[slot] != 0)
            .flat_map(move |slot| self.sets[slots[slot] as usize].iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_count_like_svg_path_syntax() {
        assert_eq!(numbers("M0 0 L10,10"), 4);
        assert_eq!(numbers("M1.5.5-2e3-4E+2"), 4);
        assert_eq!(numbers(""), 0);
        assert_eq!(numbers("h 1 1 1 1"), 4);
    }

    #[test]
    fn url_fragments_reads_every_form() {
        assert_eq!(url_fragments("url(#a)").unwrap(), ["a"]);
        assert_eq!(url_fragments("URL( '#b' ) red").unwrap(), ["b"]);
        assert_eq!(url_fragments("url(\"#c\"), url(#d)").unwrap(), ["c", "d"]);
        assert_eq!(
            url_fragments("url(data:image/png;base64,AAAA)").unwrap(),
            [""; 0]
        );
        assert_eq!(url_fragments("none").unwrap(), [""; 0]);
        for external in [
            "url(http://example.com/x.svg#a)",
            "url(file:///etc/passwd)",
            "url(../x.svg#a)",
            "url(/abs.svg)",
            "url(é.svg)",
        ] {
            assert!(
                matches!(url_fragments(external), Err(ImageError::SvgExternal { .. })),
                "{external}"
            );
        }
    }

    #[test]
    fn hrefs_are_fragments_data_or_external() {
        assert!(matches!(classify(" #a "), Href::Fragment("a")));
        assert!(matches!(classify("DATA:image/png;base64,"), Href::Data(_)));
        assert!(matches!(classify(" "), Href::Fragment("")));
        for external in [
            "http://x/a.png",
            "file:///a.png",
            "../a.png",
            "/a.png",
            "a.png",
            "é",
        ] {
            assert!(
                matches!(classify(external), Href::External(_)),
                "{external}"
            );
        }
    }

    #[test]
    fn quoted_text_is_clipped_on_a_character_boundary() {
        let long = "é".repeat(100);
        let clipped = clip(&long);
        assert!(clipped.ends_with("..."));
        assert_eq!(clipped.chars().count(), QUOTED_CHARS + 3);
        assert_eq!(clip("short"), "short");
    }
}
