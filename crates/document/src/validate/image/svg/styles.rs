//! `<style>` rules, applied to the elements as usvg applies them, with
//! every matching step counted: usvg matches every rule against every
//! element it builds, and a selector with descendant combinators backtracks
//! through all combinations of ancestors (a DoS in itself).

use std::cell::Cell;
use std::collections::HashMap;

use roxmltree::{Document, Node};

use super::graph::{at, Elements};
use super::refs::{url_fragments, Prop};
use crate::validate::image::ImageError;

/// `<style>` matching steps allowed per element of the limit: usvg matches
/// every rule against every element it builds (copies included), and a
/// selector with descendant combinators backtracks through the ancestors.
/// 200 steps are 200 class selectors on every element.
pub(super) const STYLE_STEPS_PER_ELEMENT: u64 = 200;

/// `<style>` rules, applied as usvg applies them (simplecss, every style
/// element of type `text/css` or none), keeping what [`Declared`] reads.
pub(super) struct Styles<'a> {
    /// Per element, the declarations of matching rules that name a property.
    rules: HashMap<usize, Vec<(&'a str, &'a str)>>,
    /// Per element, the matching steps all rules took.
    steps: Vec<u64>,
}

impl<'a> Styles<'a> {
    pub fn resolve(
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

    pub fn rules_for(&self, index: usize) -> &[(&'a str, &'a str)] {
        self.rules.get(&index).map_or(&[], Vec::as_slice)
    }

    pub fn steps(&self, index: usize) -> u64 {
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
