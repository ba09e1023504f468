//! Step 3 of the SVG check, on the parsed tree: every reference resolved,
//! and the document measured as usvg will expand it.
//!
//! The elements and their references form a graph:
//! - each element leads to its children;
//! - a `use`, `feImage`, `pattern`, `filter` or `tref` with `href="#id"`
//!   leads to the element it copies or inherits from (a `tref` its text);
//! - `clip-path`, `mask`, `filter`, `fill`/`stroke` (patterns) and the
//!   `marker` properties lead to the clip path, mask, filter, pattern or
//!   marker they name, from attributes, the `style` attribute and matching
//!   `<style>` rules alike; `fill`, `stroke` and markers are inherited, so
//!   an element inherits its ancestors' references unless it sets its own;
//! - an `<image>` with an embedded SVG carries that SVG's shape.
//!
//! usvg converts a referenced clip path, mask, pattern or marker once per
//! use (markers once per vertex), so the elements it builds are the sum over
//! elements of how often each is reached (its instances) times its size
//! (and its text: usvg lays out `<text>` about 3 µs a character, but a
//! single `<text>` element far slower: 30,000 characters in 0.2 s, 100,000
//! in 3 s, 1,000,000 in over 5 minutes, so each one is bounded too; and
//! its filters: each primitive applied rasterises its region, 0.25-0.55 s
//! for a label-sized image, up to 2 s for a metre-sized one);
//! its recursion follows the longest path, which is the depth. Both are
//! computed on a topological order, without recursion; a cycle is refused.
//! A reference to an element's own ancestor is left out where usvg drops it.

use std::collections::HashMap;

use roxmltree::{Document, Node};

use super::refs::{clip, copies, hrefs, is, Declared, Href, Inherited, Prop};
use super::styles::{Styles, STYLE_STEPS_PER_ELEMENT};
use super::{embedded, Budget, Shape};
use crate::config::Limits;
use crate::validate::image::ImageError;

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
            graph.weigh(index, text(*node, limits).map_err(here)?);
        }
        let declared = Declared::of(*node, styles.rules_for(index)).map_err(here)?;
        inherited.set(index, elements.parent[index], &declared);
        let (mut edges, filters) = property_edges(&elements, index, &declared, &inherited);
        graph.weigh(index, filters);
        for href in hrefs(*node) {
            let left = depth.saturating_sub(elements.depth[index]);
            match href_edges(&elements, index, href, limits, budget, left).map_err(here)? {
                Followed::Edges(found) => edges.extend(found),
                Followed::Embedded(shape) => graph.weigh(index, shape),
            }
        }
        graph.link(index, elements.parent[index], edges, styles.steps(index));
    }
    let totals = graph
        .evaluate()
        .map_err(|cycle| at(doc, elements.nodes[cycle], ImageError::SvgReferenceCycle))?;
    totals.check(limits, depth, style_limit)?;
    Ok(Shape {
        depth: totals.depth,
        elements: totals.elements,
        text_chars: totals.text_chars,
        filter_primitives: totals.filter_primitives,
    })
}

/// A `<text>` element's weight: its characters, at most
/// `svg_text_element_chars`.
fn text(node: Node, limits: &Limits) -> Result<Shape, ImageError> {
    let chars = text_chars(node);
    if chars > limits.svg_text_element_chars {
        return Err(ImageError::SvgTextElementTooLong {
            limit: limits.svg_text_element_chars,
        });
    }
    Ok(Shape {
        text_chars: chars,
        ..Shape::NONE
    })
}

/// The edges of element `index`'s property references, own and inherited,
/// and what the filters among them cost.
///
/// usvg drops an element's own reference to its ancestor (its
/// `fix_recursive_*` passes) and a marker inside itself, but follows a fill
/// or stroke a pattern's content inherits from the pattern's ancestors back
/// into the pattern, without end (a stack overflow): kept, that edge closes
/// a loop, and the loop is refused.
fn property_edges(
    elements: &Elements,
    index: usize,
    declared: &Declared,
    inherited: &Inherited,
) -> (Vec<(u32, u64)>, Shape) {
    let node = elements.nodes[index];
    let own = declared.refs.iter().map(|r| (r, true));
    let from_ancestors = inherited
        .from_ancestors(index, &declared.sets)
        .map(|r| (r, r.prop.is_marker()));
    let mut edges = Vec::new();
    let mut filters = Shape {
        filter_primitives: declared.filter_functions,
        ..Shape::NONE
    };
    for (target, drop_ancestors) in own.chain(from_ancestors) {
        let times = target.multiplicity(node);
        if times == 0 {
            continue;
        }
        for t in elements.targets(index, target.id, target.prop.kind(), drop_ancestors) {
            if target.prop == Prop::Filter {
                let cost = times.saturating_mul(primitives(elements.nodes[t as usize]));
                filters.filter_primitives = filters.filter_primitives.saturating_add(cost);
            }
            edges.push((t, times));
        }
    }
    (edges, filters)
}

/// Where one `href` leads.
enum Followed {
    /// To elements of the document (copied, or inherited from).
    Edges(Vec<(u32, u64)>),
    /// To an embedded image, of this shape.
    Embedded(Shape),
}

/// Follows one `href` of element `index`: to the elements it copies, to an
/// embedded image (checked here, with `depth` left for it), or nowhere; a
/// reference out of the document is refused.
fn href_edges(
    elements: &Elements,
    index: usize,
    href: Href,
    limits: &Limits,
    budget: &mut Budget,
    depth: u64,
) -> Result<Followed, ImageError> {
    let node = elements.nodes[index];
    match href {
        Href::Fragment(id) if copies(node) => {
            // usvg skips a `use` of its own ancestor.
            let drop_ancestors = is(node, "use");
            let found: Vec<_> = elements.targets(index, id, None, drop_ancestors).collect();
            if found.is_empty() && is(node, "feImage") {
                return Err(ImageError::SvgMissingReference { id: clip(id) });
            }
            Ok(Followed::Edges(found.into_iter().map(|t| (t, 1)).collect()))
        }
        Href::Fragment(_) if is(node, "image") => Err(ImageError::SvgImageNotEmbedded),
        Href::Data(uri) if is(node, "image") || is(node, "feImage") => {
            embedded::check(uri, limits, budget, depth).map(Followed::Embedded)
        }
        Href::Fragment(_) | Href::Data(_) => Ok(Followed::Edges(Vec::new())),
        Href::External(href) => Err(ImageError::SvgExternal { href: clip(href) }),
    }
}

/// What applying a filter costs: its primitives (each rasterises the
/// region it filters), at least one.
fn primitives(filter: Node) -> u64 {
    (filter.children().filter(Node::is_element).count() as u64).max(1)
}

/// Characters of a `<text>` element's content, its `tspan`s included.
fn text_chars(node: Node) -> u64 {
    node.descendants()
        .filter(Node::is_text)
        .map(|t| t.text().map_or(0, |t| t.chars().count() as u64))
        .sum()
}

/// Names the element an error is about: `the <image> at line 3, column 5`.
pub(super) fn at(doc: &Document, node: Node, error: ImageError) -> ImageError {
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

/// The elements in document order, with what the other steps look up.
pub(super) struct Elements<'a, 'input> {
    pub nodes: Vec<Node<'a, 'input>>,
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
    filter_primitives: u64,
    style_steps: u64,
}

impl Totals {
    /// Refuses totals beyond the limits; `depth` is the nesting left.
    fn check(&self, limits: &Limits, depth: u64, style_limit: u64) -> Result<(), ImageError> {
        if self.depth > depth {
            return Err(ImageError::SvgTooDeep {
                limit: limits.svg_depth,
            });
        }
        if self.elements > limits.svg_elements {
            return Err(ImageError::SvgTooManyElements {
                limit: limits.svg_elements,
            });
        }
        if self.text_chars > limits.svg_text_chars {
            return Err(ImageError::SvgTooMuchText {
                limit: limits.svg_text_chars,
            });
        }
        if self.filter_primitives > limits.svg_filter_primitives {
            return Err(ImageError::SvgTooManyFilters {
                limit: limits.svg_filter_primitives,
            });
        }
        if self.style_steps > style_limit {
            return Err(ImageError::SvgStyleTooCostly);
        }
        Ok(())
    }
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
        extra.filter_primitives = extra
            .filter_primitives
            .saturating_add(shape.filter_primitives);
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
            filter_primitives: 0,
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
            let filters = instances[e].saturating_mul(self.extra[e].filter_primitives);
            totals.filter_primitives = totals.filter_primitives.saturating_add(filters);
            totals.style_steps = totals
                .style_steps
                .saturating_add(instances[e].saturating_mul(self.style_steps[e]));
        }
        totals.depth = depth.first().copied().unwrap_or(0);
        Ok(totals)
    }
}
