//! Links as validation resolves them: every optional field decided, the
//! address trimmed, a page target counted from 0. The lowering writes them
//! as they are.

use crate::model::{LinkSpec, LinkTarget};
use crate::style::Rgb;

/// A link of an element, a table cell or a link area.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub target: Target,
    /// Alternative text (written into the PDF's link annotation).
    pub alt: Option<String>,
    /// Clickable margin around what the link covers, in mm (0 when not given).
    pub padding: f64,
    /// A visible border around the link area; `None` when not given or 0 wide.
    pub border: Option<Border>,
}

/// Where a link goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// An address, without the white space around it.
    Url(String),
    /// A place on a page of this request: `page` counted from 0 (the
    /// request's page `page + 1`), `x` and `y` in mm from its top left.
    Page { page: usize, x: f64, y: f64 },
}

/// A link area's visible border.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Border {
    /// In mm, more than 0.
    pub width: f64,
    pub colour: Rgb,
}

impl Link {
    /// `spec` with its defaults applied. Validation checks the spec first
    /// (a page within the request, a colour that parses); what it refuses
    /// never reaches a later phase, so the fallbacks here are never printed.
    pub fn resolve(spec: &LinkSpec) -> Link {
        let target = match &spec.target {
            LinkTarget::Url { url } => Target::Url(url.trim().to_string()),
            LinkTarget::Page { page, x, y } => Target::Page {
                page: usize::try_from(page.saturating_sub(1)).unwrap_or(0),
                x: *x,
                y: *y,
            },
        };
        let border = spec.border.as_ref().and_then(|b| {
            let width = b.width.filter(|w| *w > 0.0)?;
            let colour = b
                .color
                .as_deref()
                .and_then(Rgb::parse)
                .unwrap_or(Rgb::BLACK);
            Some(Border { width, colour })
        });
        Link {
            target,
            alt: spec.alt.clone(),
            padding: spec.padding.unwrap_or(0.0),
            border,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> LinkSpec {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn defaults_are_decided_and_the_address_trimmed() {
        let link = Link::resolve(&spec(serde_json::json!({
            "target": {"type": "url", "url": "  https://example.com/a \n"}
        })));
        assert_eq!(link.target, Target::Url("https://example.com/a".into()));
        assert_eq!((link.padding, link.alt, link.border), (0.0, None, None));
    }

    #[test]
    fn a_page_target_counts_from_zero_and_a_border_needs_a_width() {
        let link = Link::resolve(&spec(serde_json::json!({
            "target": {"type": "page", "page": 3, "x": 4, "y": 5},
            "padding": 1.5, "alt": "three", "border": {"color": "#c00"}
        })));
        assert_eq!(
            link.target,
            Target::Page {
                page: 2,
                x: 4.0,
                y: 5.0
            }
        );
        assert_eq!((link.padding, link.alt.as_deref()), (1.5, Some("three")));
        assert_eq!(link.border, None, "no width: no border drawn");
        let bordered = Link::resolve(&spec(serde_json::json!({
            "target": {"type": "url", "url": "https://example.com"},
            "border": {"width": 0.3}
        })));
        let border = bordered.border.unwrap();
        assert_eq!((border.width, border.colour), (0.3, Rgb::BLACK));
    }
}
