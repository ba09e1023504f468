//! Step 3 of the SVG check, on the parsed tree: every reference resolved,
//! and the document measured as usvg will expand it.
//!
//! The elements and their references form a graph:
//! - each element leads to its children;
//! - a `use`, `feImage`, `pattern` or `filter` with `href="#id"` leads to
//!   the element it copies or inherits from;
//! - `clip-path`, `mask`, `filter`, `fill`/`stroke` (patterns) and the
//!   `marker` properties lead to the clip path, mask, filter, pattern or
//!   marker they name, from attributes, the `style` attribute and matching
//!   `<style>` rules alike; `fill`, `stroke` and markers are inherited, so
//!   an element inherits its ancestors' references unless it sets its own;
//! - a `tref` leads to the element whose text it copies;
//! - an `<image>` with an embedded SVG carries that SVG's shape.
//!
//! usvg converts a referenced clip path, mask, pattern or marker once per
//! use (markers once per vertex), so the elements it builds are the sum over
//! elements of how often each is reached (its instances) times its size
//! (and its text: usvg lays out `<text>` about 3 µs a character, but a
//! single `<text>` element far slower: 30,000 characters in 0.2 s, 100,000
//! in 3 s, 1,000,000 in over 5 minutes, so each one is bounded too);
//! its recursion follows the longest path, which is the depth. Both are
//! computed on a topological order, without recursion; a cycle is refused.
//! A reference to an element's own ancestor is left out where usvg drops it.

use std::cell::Cell;
use std::collections::HashMap;

use roxmltree::{Document, Node};

use crate::config::Limits;
use crate::validate::image::ImageError;

use super::{embedded, Budget, Shape};

/// `<style>` matching steps allowed per element of the limit: usvg matches
/// every rule against every element it builds (copies included), and a
/// selector with descendant combinators backtracks through the ancestors.
/// 200 steps are 200 class selectors on every element.
const STYLE_STEPS_PER_ELEMENT: u64 = 200;

/// Measures and checks one parsed SVG (embedded images included) and
/// returns its shape; `depth` is the nesting left for it.
pub fn measure(
    doc: &Document,
    limits: &Limits,
    budget: &mut Budget,
    depth: u64,
) -> Result<Shape, ImageError> {
    let elements = Elements::collect(doc, depth, limits)?;
    let style_limit = limits.svg_elements.saturating_mul(STYLE_STEPS_PER_ELEMENT);
    let styles = Styles::resolve(doc, &elements, style_limit)?;
    let mut graph = Graph::new(elements.nodes.len());
    let mut inherited = Inherited::new(elements.nodes.len());
    for (index, node) in elements.nodes.iter().enumerate() {
        let here = |e| at(doc, *node, e);
        if is(*node, "text") {
            let chars = text_chars(*node);
            if chars > limits.svg_text_element_chars {
                return Err(here(ImageError::SvgTextElementTooLong {
                    limit: limits.svg_text_element_chars,
                }));
            }
            graph.weigh(
                index,
                Shape {
                    text_chars: chars,
                    ..Shape::NONE
                },
            );
        }
        let declared = Declared::of(*node, styles.rules_for(index)).map_err(here)?;
        inherited.set(index, elements.parent[index], &declared);
        let mut edges = Vec::new();
        // usvg drops an element's own reference to its ancestor (its
        // `fix_recursive_*` passes) and a marker inside itself, but follows
        // a fill or stroke a pattern's content inherits from the pattern's
        // ancestors back into the pattern, without end (a stack overflow):
        // kept, that edge closes a loop, and the loop is refused.
        let own = declared.refs.iter().map(|r| (r, true));
        let inherited_refs = inherited
            .from_ancestors(index, &declared.sets)
            .map(|r| (r, r.prop.is_marker()));
        for (target, drop_ancestors) in own.chain(inherited_refs) {
            let m = target.multiplicity(*node);
            if m > 0 {
                let found = elements.targets(index, target.id, target.prop.kind(), drop_ancestors);
                edges.extend(found.map(|t| (t, m)));
            }
        }
        for href in hrefs(*node) {
            match href {
                Href::Fragment(id) if copies(*node) => {
                    // usvg skips a `use` of its own ancestor.
                    let drop_ancestors = is(*node, "use");
                    let found: Vec<_> = elements.targets(index, id, None, drop_ancestors).collect();
                    if found.is_empty() && is(*node, "feImage") {
                        return Err(here(ImageError::SvgMissingReference { id: clip(id) }));
                    }
                    edges.extend(found.into_iter().map(|t| (t, 1)));
                }
                Href::Fragment(_) if is(*node, "image") => {
                    return Err(here(ImageError::SvgImageNotEmbedded));
                }
                Href::Data(uri) if is(*node, "image") || is(*node, "feImage") => {
                    let left = depth.saturating_sub(elements.depth[index]);
                    let shape = embedded::check(uri, limits, budget, left).map_err(here)?;
                    graph.weigh(index, shape);
                }
                Href::Fragment(_) | Href::Data(_) => {}
                Href::External(href) => {
                    return Err(here(ImageError::SvgExternal { href: clip(href) }));
                }
            }
        }
        graph.link(index, elements.parent[index], edges, styles.steps(index));
    }
    let totals = graph
        .evaluate()
        .map_err(|cycle| at(doc, elements.nodes[cycle], ImageError::SvgReferenceCycle))?;
    if totals.depth > depth {
        return Err(ImageError::SvgTooDeep {
            limit: limits.svg_depth,
        });
    }
    if totals.elements > limits.svg_elements {
        return Err(ImageError::SvgTooManyElements {
            limit: limits.svg_elements,
        });
    }
    if totals.text_chars > limits.svg_text_chars {
        return Err(ImageError::SvgTooMuchText {
            limit: limits.svg_text_chars,
        });
    }
    if totals.style_steps > style_limit {
        return Err(ImageError::SvgStyleTooCostly);
    }
    Ok(Shape {
        depth: totals.depth,
        elements: totals.elements,
        text_chars: totals.text_chars,
    })
}

/// Characters of a `<text>` element's content, its `tspan`s included.
fn text_chars(node: Node) -> u64 {
    node.descendants()
        .filter(Node::is_text)
        .map(|t| t.text().map_or(0, |t| t.chars().count() as u64))
        .sum()
}

/// Names the element an error is about: `the <image> at line 3, column 5`.
fn at(doc: &Document, node: Node, error: ImageError) -> ImageError {
    let pos = doc.text_pos_at(node.range().start);
    ImageError::At {
        at: format!(
            "the <{}> at line {}, column {}",
            node.tag_name().name(),
            pos.row,
            pos.col
        ),
        source: Box::new(error),
    }
}

fn is(node: Node, tag: &str) -> bool {
    node.tag_name().name() == tag
}

/// Elements whose `href="#id"` makes usvg copy (or inherit) the target's
/// content (a `tref` its text).
fn copies(node: Node) -> bool {
    ["use", "feImage", "pattern", "filter", "tref"].contains(&node.tag_name().name())
}

/// At most this many characters of a document's text in a message.
const QUOTED_CHARS: usize = 80;

fn clip(text: &str) -> String {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// The elements in document order, with what the other steps look up.
struct Elements<'a, 'input> {
    nodes: Vec<Node<'a, 'input>>,
    /// Index of the parent element; the root's is itself.
    parent: Vec<u32>,
    /// Nesting level in the document, the root element being 1.
    depth: Vec<u64>,
    /// Elements in each one's subtree, itself included (they follow it).
    size: Vec<u32>,
    ids: HashMap<&'a str, Vec<u32>>,
}

impl<'a, 'input> Elements<'a, 'input> {
    fn collect(doc: &'a Document<'input>, depth: u64, limits: &Limits) -> Result<Self, ImageError> {
        let mut index_of: HashMap<roxmltree::NodeId, u32> = HashMap::new();
        let mut this = Elements {
            nodes: Vec::new(),
            parent: Vec::new(),
            depth: Vec::new(),
            size: Vec::new(),
            ids: HashMap::new(),
        };
        for node in doc.root().descendants().filter(Node::is_element) {
            let index = this.nodes.len() as u32;
            if u64::from(index) >= limits.svg_elements {
                return Err(ImageError::SvgTooManyElements {
                    limit: limits.svg_elements,
                });
            }
            let parent = node
                .parent_element()
                .and_then(|p| index_of.get(&p.id()).copied())
                .unwrap_or(index);
            let level = if parent == index {
                1
            } else {
                this.depth[parent as usize] + 1
            };
            if level > depth {
                return Err(ImageError::SvgTooDeep {
                    limit: limits.svg_depth,
                });
            }
            index_of.insert(node.id(), index);
            if let Some(id) = node.attribute("id") {
                this.ids.entry(id).or_default().push(index);
            }
            this.nodes.push(node);
            this.parent.push(parent);
            this.depth.push(level);
            this.size.push(1);
        }
        // Children follow their parents: sizes add up in reverse order.
        for index in (1..this.nodes.len()).rev() {
            let parent = this.parent[index] as usize;
            if parent != index {
                this.size[parent] += this.size[index];
            }
        }
        Ok(this)
    }

    /// Whether `ancestor` is `node` or contains it.
    fn contains(&self, ancestor: u32, node: usize) -> bool {
        let start = ancestor as usize;
        start <= node && node < start + self.size[start] as usize
    }

    /// The elements `#id` names from element `from` (of tag `kind`, when
    /// given), without `from`'s own ancestors if `drop_ancestors`.
    fn targets<'s>(
        &'s self,
        from: usize,
        id: &str,
        kind: Option<&'static str>,
        drop_ancestors: bool,
    ) -> impl Iterator<Item = u32> + 's {
        self.ids
            .get(id)
            .into_iter()
            .flatten()
            .copied()
            .filter(move |&t| kind.is_none_or(|k| is(self.nodes[t as usize], k)))
            .filter(move |&t| !(drop_ancestors && self.contains(t, from)))
    }
}

/// One `href` attribute (any namespace: `href`, `xlink:href`).
enum Href<'a> {
    Fragment(&'a str),
    Data(&'a str),
    External(&'a str),
}

fn hrefs<'a>(node: Node<'a, '_>) -> impl Iterator<Item = Href<'a>> {
    node.attributes()
        .filter(|a| a.name() == "href")
        .map(|a| classify(a.value()))
}

/// A reference is a fragment (`#id`), a `data:` URI, or something outside
/// the document: a URL, a path, `file://`, anything else. An empty one
/// names no element, like `#`.
fn classify(value: &str) -> Href<'_> {
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
enum Prop {
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
    fn named(name: &str) -> &'static [Prop] {
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
    fn kind(self) -> Option<&'static str> {
        Some(match self {
            Prop::Fill | Prop::Stroke => "pattern",
            Prop::MarkerStart | Prop::MarkerMid | Prop::MarkerEnd => "marker",
            Prop::ClipPath => "clipPath",
            Prop::Mask => "mask",
            Prop::Filter => "filter",
        })
    }

    fn is_marker(self) -> bool {
        matches!(self, Prop::MarkerStart | Prop::MarkerMid | Prop::MarkerEnd)
    }

    fn slot(self) -> Option<usize> {
        INHERITED.iter().position(|&p| p == self)
    }
}

/// A property's `url(#id)`.
#[derive(Debug, Clone, Copy)]
struct Ref<'a> {
    prop: Prop,
    id: &'a str,
}

impl Ref<'_> {
    /// How often usvg builds the target for `node`: markers once per
    /// vertex and only on shapes with vertices, the others once.
    fn multiplicity(&self, node: Node) -> u64 {
        match self.prop {
            Prop::MarkerStart | Prop::MarkerMid | Prop::MarkerEnd => vertices(node),
            _ => 1,
        }
    }
}

/// An upper bound of a shape's vertices (markers are drawn on them).
fn vertices(node: Node) -> u64 {
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
fn numbers(text: &str) -> u64 {
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

/// What one element declares: its references, and which inherited
/// properties it sets at all (which stops their inheritance).
struct Declared<'a> {
    refs: Vec<Ref<'a>>,
    sets: [bool; 5],
}

impl<'a> Declared<'a> {
    /// Reads attributes, the `style` attribute and the matching rules'
    /// declarations. Where one property is set twice, both references count.
    fn of(node: Node<'a, '_>, rules: &[(&'a str, &'a str)]) -> Result<Self, ImageError> {
        let mut this = Declared {
            refs: Vec::new(),
            sets: [false; 5],
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
            self.refs.extend(ids.iter().map(|&id| Ref { prop, id }));
        }
        Ok(())
    }
}

/// The `#id`s of every `url(...)` in a value. A `url()` that names anything
/// else than a fragment or a `data:` URI is refused: usvg ignores it, but
/// an image never points outside itself.
fn url_fragments(value: &str) -> Result<Vec<&str>, ImageError> {
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
struct Inherited<'a> {
    sets: Vec<Vec<Ref<'a>>>,
    slots: Vec<[u32; 5]>,
}

impl<'a> Inherited<'a> {
    fn new(elements: usize) -> Self {
        Self {
            sets: vec![Vec::new()],
            slots: Vec::with_capacity(elements),
        }
    }

    /// Element `index` (the next one) keeps its parent's sets, except for
    /// the properties it sets itself.
    fn set(&mut self, index: usize, parent: u32, declared: &Declared<'a>) {
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
    fn from_ancestors(&self, index: usize, sets: &[bool; 5]) -> impl Iterator<Item = &Ref<'a>> {
        let slots = self.slots[index];
        let sets = *sets;
        (0..5)
            .filter(move |&slot| !sets[slot] && slots[slot] != 0)
            .flat_map(move |slot| self.sets[slots[slot] as usize].iter())
    }
}

/// `<style>` rules, applied as usvg applies them (simplecss, every style
/// element of type `text/css` or none), keeping what [`Declared`] reads.
struct Styles<'a> {
    /// Per element, the declarations of matching rules that name a property.
    rules: HashMap<usize, Vec<(&'a str, &'a str)>>,
    /// Per element, the matching steps all rules took.
    steps: Vec<u64>,
}

impl<'a> Styles<'a> {
    fn resolve(
        doc: &'a Document,
        elements: &Elements<'a, '_>,
        limit: u64,
    ) -> Result<Self, ImageError> {
        let mut sheet = simplecss::StyleSheet::new();
        for style in doc.descendants().filter(|n| n.has_tag_name("style")) {
            let text = style.text().unwrap_or_default();
            // usvg ignores every `url()` here; no image points outside itself.
            url_fragments(text).map_err(|e| at(doc, style, e))?;
            if matches!(style.attribute("type"), None | Some("text/css")) {
                sheet.parse_more(text);
            }
        }
        let mut this = Styles {
            rules: HashMap::new(),
            steps: vec![0; elements.nodes.len()],
        };
        if sheet.rules.is_empty() {
            return Ok(this);
        }
        let taken = Cell::new(0);
        for (index, node) in elements.nodes.iter().enumerate() {
            let before = taken.get();
            let counted = Counted {
                node: *node,
                taken: &taken,
                limit,
            };
            for rule in &sheet.rules {
                if rule.selector.matches(&counted) {
                    let named = rule
                        .declarations
                        .iter()
                        .filter(|d| !Prop::named(d.name).is_empty())
                        .map(|d| (d.name, d.value));
                    this.rules.entry(index).or_default().extend(named);
                }
            }
            if taken.get() > limit {
                return Err(ImageError::SvgStyleTooCostly);
            }
            this.steps[index] = taken.get() - before;
        }
        Ok(this)
    }

    fn rules_for(&self, index: usize) -> &[(&'a str, &'a str)] {
        self.rules.get(&index).map_or(&[], Vec::as_slice)
    }

    fn steps(&self, index: usize) -> u64 {
        self.steps[index]
    }
}

/// An element as simplecss sees it, counting every step of a match. Past
/// the limit every step fails, which ends any backtracking at once.
#[derive(Clone, Copy)]
struct Counted<'a, 'input> {
    node: Node<'a, 'input>,
    taken: &'a Cell<u64>,
    limit: u64,
}

impl<'a, 'input> Counted<'a, 'input> {
    fn step(&self) -> bool {
        let taken = self.taken.get() + 1;
        self.taken.set(taken);
        taken <= self.limit
    }

    fn to(&self, node: Option<Node<'a, 'input>>) -> Option<Self> {
        node.map(|node| Counted { node, ..*self })
    }
}

impl simplecss::Element for Counted<'_, '_> {
    fn parent_element(&self) -> Option<Self> {
        if !self.step() {
            return None;
        }
        self.to(self.node.parent_element())
    }

    fn prev_sibling_element(&self) -> Option<Self> {
        if !self.step() {
            return None;
        }
        self.to(self.node.prev_sibling_element())
    }

    fn has_local_name(&self, name: &str) -> bool {
        self.step() && self.node.tag_name().name() == name
    }

    fn attribute_matches(&self, name: &str, operator: simplecss::AttributeOperator) -> bool {
        self.step()
            && self
                .node
                .attribute(name)
                .is_some_and(|v| operator.matches(v))
    }

    fn pseudo_class_matches(&self, class: simplecss::PseudoClass) -> bool {
        // usvg matches `:first-child` only.
        self.step()
            && matches!(class, simplecss::PseudoClass::FirstChild)
            && self.node.prev_sibling_element().is_none()
    }
}

/// The graph's edges and weights, then its evaluation.
struct Graph {
    /// Per element: (target, how many times per instance).
    edges: Vec<Vec<(u32, u64)>>,
    /// Per element: its nesting and elements beyond itself (embedded SVGs).
    extra: Vec<Shape>,
    style_steps: Vec<u64>,
}

/// What the whole document expands to.
#[derive(Debug, PartialEq, Eq)]
struct Totals {
    depth: u64,
    elements: u64,
    text_chars: u64,
    style_steps: u64,
}

impl Graph {
    fn new(elements: usize) -> Self {
        Self {
            edges: vec![Vec::new(); elements],
            extra: vec![Shape::NONE; elements],
            style_steps: vec![0; elements],
        }
    }

    fn weigh(&mut self, index: usize, shape: Shape) {
        let extra = &mut self.extra[index];
        extra.depth = extra.depth.max(shape.depth);
        extra.elements = extra.elements.saturating_add(shape.elements);
        extra.text_chars = extra.text_chars.saturating_add(shape.text_chars);
    }

    /// Adds element `index` (after its parent) with its reference edges.
    fn link(&mut self, index: usize, parent: u32, references: Vec<(u32, u64)>, steps: u64) {
        if parent as usize != index {
            self.edges[parent as usize].push((index as u32, 1));
        }
        self.edges[index].extend(references);
        self.style_steps[index] = steps;
    }

    /// Instances (from the root element down) and depths (from the leaves
    /// up) over a topological order; `Err(element)` names one on a cycle.
    fn evaluate(&self) -> Result<Totals, usize> {
        let n = self.edges.len();
        let mut incoming = vec![0u32; n];
        for &(t, _) in self.edges.iter().flatten() {
            incoming[t as usize] += 1;
        }
        let mut order: Vec<u32> = (0..n as u32)
            .filter(|&e| incoming[e as usize] == 0)
            .collect();
        let mut instances = vec![0u64; n];
        if let Some(root) = instances.first_mut() {
            *root = 1;
        }
        let mut next = 0;
        while next < order.len() {
            let e = order[next] as usize;
            next += 1;
            for &(t, m) in &self.edges[e] {
                let t = t as usize;
                instances[t] = instances[t].saturating_add(instances[e].saturating_mul(m));
                incoming[t] -= 1;
                if incoming[t] == 0 {
                    order.push(t as u32);
                }
            }
        }
        if order.len() < n {
            return Err((0..n).find(|&e| incoming[e] > 0).unwrap_or(0));
        }
        let mut depth = vec![0u64; n];
        let mut totals = Totals {
            depth: 0,
            elements: 0,
            text_chars: 0,
            style_steps: 0,
        };
        for &e in order.iter().rev() {
            let e = e as usize;
            let below = self.edges[e].iter().map(|&(t, _)| depth[t as usize]).max();
            depth[e] = 1 + below.unwrap_or(0).max(self.extra[e].depth);
            let size = 1 + self.extra[e].elements;
            totals.elements = totals
                .elements
                .saturating_add(instances[e].saturating_mul(size));
            let text = instances[e].saturating_mul(self.extra[e].text_chars);
            totals.text_chars = totals.text_chars.saturating_add(text);
            totals.style_steps = totals
                .style_steps
                .saturating_add(instances[e].saturating_mul(self.style_steps[e]));
        }
        totals.depth = depth.first().copied().unwrap_or(0);
        Ok(totals)
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
