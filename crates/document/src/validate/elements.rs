//! Rules for each element type.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Frame, Validator, Zone};
use crate::config::POLYGON_POINTS;
use crate::ir::{Element, Image, Link, LinkArea, Paint, Rect, Shape, Text};
use crate::layout::fallback::{closest_families, no_glyph_message};
use crate::layout::{fit_text, FittedText, Measurer};
use crate::model::*;
use crate::style::{
    merge_fill, merge_stroke, merge_text, resolve_fill, resolve_stroke, resolve_text, weight_value,
    ResolvedText,
};

impl Validator<'_> {
    /// Parses one element by its `type` and checks its rules.
    pub(crate) fn element(&mut self, path: &str, value: Value, frame: &Frame) -> Option<Element> {
        let Some(kind) = value.get("type").and_then(Value::as_str).map(str::to_owned) else {
            let message = if value.is_object() {
                format!(
                    "an element needs `type`, one of {}",
                    ELEMENT_TYPES.join(", ")
                )
            } else {
                "an element must be an object".to_string()
            };
            self.push(format!("{path}.type"), message);
            return None;
        };
        let mut object = value;
        if let Some(map) = object.as_object_mut() {
            map.remove("type");
        }
        let element = match kind.as_str() {
            "text" => {
                let spec = self.parse(path, &object)?;
                Element::Text(Box::new(self.text(path, spec, frame)))
            }
            "barcode" => {
                let spec = self.parse(path, &object)?;
                Element::Barcode(Box::new(self.barcode(path, spec, frame)?))
            }
            "line" => {
                let spec: LineElement = self.parse(path, &object)?;
                let width = self.env.config.defaults.line_stroke_width;
                let paint = self.paint(spec.stroke.as_ref(), None, width);
                Element::Line(Box::new(Shape {
                    link: spec.link.as_ref().map(Link::resolve),
                    spec,
                    paint,
                }))
            }
            "rect" => {
                let spec: RectElement = self.parse(path, &object)?;
                let mut paint = self.shape_paint(spec.stroke.as_ref(), spec.fill.as_ref());
                paint.corner_radius = Some(self.corner_radius(spec.corner_radius));
                Element::Rect(Box::new(Shape {
                    link: spec.link.as_ref().map(Link::resolve),
                    spec,
                    paint,
                }))
            }
            "circle" => {
                let spec: CircleElement = self.parse(path, &object)?;
                let paint = self.shape_paint(spec.stroke.as_ref(), spec.fill.as_ref());
                Element::Circle(Box::new(Shape {
                    link: spec.link.as_ref().map(Link::resolve),
                    spec,
                    paint,
                }))
            }
            "ellipse" => {
                let spec: EllipseElement = self.parse(path, &object)?;
                let paint = self.shape_paint(spec.stroke.as_ref(), spec.fill.as_ref());
                Element::Ellipse(Box::new(Shape {
                    link: spec.link.as_ref().map(Link::resolve),
                    spec,
                    paint,
                }))
            }
            "polygon" => {
                let spec: PolygonElement = self.parse(path, &object)?;
                let paint = self.shape_paint(spec.stroke.as_ref(), spec.fill.as_ref());
                Element::Polygon(Box::new(Shape {
                    link: spec.link.as_ref().map(Link::resolve),
                    spec,
                    paint,
                }))
            }
            "link" => {
                let spec: LinkElement = self.parse(path, &object)?;
                let link = Link::resolve(&link_spec_of(&spec));
                Element::Link(Box::new(LinkArea { spec, link }))
            }
            "image" => {
                let spec = self.parse(path, &object)?;
                Element::Image(Box::new(self.image(path, spec, frame)?))
            }
            "table" => {
                if frame.zone != Zone::Body {
                    self.push(
                        format!("{path}.type"),
                        "tables may only appear in pages[].elements (or as a stack's first child)",
                    );
                    return None;
                }
                self.refuse_deprecated_table_fields(path, &object)?;
                // Rows are read cell by cell into the table's grid, moved
                // rather than copied through the table's own deserialisation.
                let rows = match object.as_object_mut().and_then(|m| m.remove("rows")) {
                    Some(Value::Array(rows)) => Some(rows),
                    Some(_) => {
                        self.push(format!("{path}.rows"), "must be an array of row objects");
                        None
                    }
                    None => {
                        self.push(format!("{path}.rows"), "missing field `rows`");
                        None
                    }
                };
                let spec = self.parse(path, &object)?;
                Element::Table(Box::new(self.table(path, spec, rows?, frame)))
            }
            "stack" => {
                if frame.zone != Zone::Body {
                    self.push(
                        format!("{path}.type"),
                        "a stack may only appear in pages[].elements",
                    );
                    return None;
                }
                let raw: StackElement = self.parse(path, &object)?;
                return self
                    .stack(path, raw, frame)
                    .map(|s| Element::Stack(Box::new(s)));
            }
            "block" => {
                self.push(
                    format!("{path}.type"),
                    "a block may only appear as a child of a stack, after its table",
                );
                return None;
            }
            other => {
                self.push(
                    format!("{path}.type"),
                    format!(
                        "unknown element type `{other}`; expected one of {}",
                        ELEMENT_TYPES.join(", ")
                    ),
                );
                return None;
            }
        };
        self.element_rules(path, &element, frame);
        Some(element)
    }

    /// Deserialises with the element's path in front of serde's, reporting
    /// every schema error (validate::schema). What could be read is returned
    /// even after errors, so its own rules report too.
    pub(crate) fn parse<T: DeserializeOwned>(&mut self, path: &str, value: &Value) -> Option<T> {
        let room = super::MAX_VIOLATIONS
            .saturating_sub(self.violations.len())
            .max(1);
        let parsed = super::schema::deserialize_all(value, room);
        for e in parsed.errors {
            let full = match e.path.as_str() {
                "" => path.to_string(),
                inner if inner.starts_with('[') => format!("{path}{inner}"),
                inner => format!("{path}.{inner}"),
            };
            self.push(full, e.message);
        }
        parsed.value
    }

    fn refuse_deprecated_table_fields(&mut self, path: &str, value: &Value) -> Option<()> {
        let found: Vec<&str> = DEPRECATED_TABLE_FIELDS
            .iter()
            .copied()
            .filter(|f| value.get(*f).is_some())
            .collect();
        for field in &found {
            self.push(
                format!("{path}.{field}"),
                format!("`{field}` belongs to an older table payload that is no longer accepted; use columns, rows and the zone objects"),
            );
        }
        found.is_empty().then_some(())
    }

    fn element_rules(&mut self, path: &str, element: &Element, frame: &Frame) {
        match element {
            // Checked while it was fitted (Validator::text).
            Element::Text(_) => {}
            // Checked while it was encoded and fitted (validate::barcode).
            Element::Barcode(_) => {}
            Element::Line(line) => {
                let l = &line.spec;
                for (f, v) in [("x1", l.x1), ("y1", l.y1), ("x2", l.x2), ("y2", l.y2)] {
                    self.coordinate(&format!("{path}.{f}"), v);
                }
                self.stroke_rules(path, l.stroke.as_ref(), true);
                if let Some(m) = &l.marker {
                    if let Some(size) = m.size {
                        self.positive(&format!("{path}.marker.size"), size);
                    }
                    let has_marker = [m.start, m.end]
                        .iter()
                        .any(|k| k.is_some_and(|k| k != MarkerKind::None));
                    let merged = merge_stroke(l.stroke.as_ref(), self.default_stroke().as_ref());
                    if has_marker && merged.is_some_and(|s| s.compound.is_some()) {
                        self.push(
                            format!("{path}.marker"),
                            "a double (compound) line cannot have markers",
                        );
                    }
                }
                self.link_rules(&format!("{path}.link"), l.link.as_ref());
            }
            Element::Rect(rect) => {
                let r = &rect.spec;
                self.x_rules(path, r.x, r.x_anchor.as_ref(), frame);
                self.coordinate(&format!("{path}.y"), r.y);
                self.positive(&format!("{path}.width"), r.width);
                self.positive(&format!("{path}.height"), r.height);
                if let Some(c) = r.corner_radius {
                    self.non_negative(&format!("{path}.corner_radius"), c);
                }
                self.rotation_rules(path, r.rotation);
                self.stroke_rules(path, r.stroke.as_ref(), false);
                self.fill_rules(path, r.fill.as_ref());
                self.link_rules(&format!("{path}.link"), r.link.as_ref());
            }
            Element::Circle(circle) => {
                let c = &circle.spec;
                self.coordinate(&format!("{path}.cx"), c.cx);
                self.coordinate(&format!("{path}.cy"), c.cy);
                self.positive(&format!("{path}.r"), c.r);
                self.stroke_rules(path, c.stroke.as_ref(), false);
                self.fill_rules(path, c.fill.as_ref());
                self.link_rules(&format!("{path}.link"), c.link.as_ref());
            }
            Element::Ellipse(ellipse) => {
                let e = &ellipse.spec;
                self.coordinate(&format!("{path}.cx"), e.cx);
                self.coordinate(&format!("{path}.cy"), e.cy);
                self.positive(&format!("{path}.rx"), e.rx);
                self.positive(&format!("{path}.ry"), e.ry);
                self.rotation_rules(path, e.rotation);
                self.stroke_rules(path, e.stroke.as_ref(), false);
                self.fill_rules(path, e.fill.as_ref());
                self.link_rules(&format!("{path}.link"), e.link.as_ref());
            }
            Element::Polygon(polygon) => {
                let p = &polygon.spec;
                if p.points.len() < *POLYGON_POINTS.start() {
                    self.push(
                        format!("{path}.points"),
                        format!("a polygon needs at least {} points", POLYGON_POINTS.start()),
                    );
                }
                if p.points.len() > *POLYGON_POINTS.end() {
                    self.push(
                        format!("{path}.points"),
                        format!("a polygon may have at most {} points", POLYGON_POINTS.end()),
                    );
                }
                for (i, pt) in p.points.iter().enumerate() {
                    self.coordinate(&format!("{path}.points[{i}].x"), pt.x);
                    self.coordinate(&format!("{path}.points[{i}].y"), pt.y);
                }
                self.stroke_rules(path, p.stroke.as_ref(), false);
                self.fill_rules(path, p.fill.as_ref());
                self.link_rules(&format!("{path}.link"), p.link.as_ref());
            }
            Element::Link(area) => {
                let l = &area.spec;
                self.x_rules(path, l.x, l.x_anchor.as_ref(), frame);
                self.coordinate(&format!("{path}.y"), l.y);
                self.positive(&format!("{path}.width"), l.width);
                self.positive(&format!("{path}.height"), l.height);
                self.link_spec_rules(path, &link_spec_of(l));
            }
            // Checked while its data was decoded (Validator::image).
            Element::Image(_) => {}
            // Checked while its rows were read (Validator::table).
            Element::Table(_) => {}
            Element::Stack(_) => {}
        }
        self.content_box_rules(path, element, frame);
    }

    /// Checks a text element and fits its lines to its box once: the
    /// content is parsed and the style layers merged here and nowhere else.
    fn text(&mut self, path: &str, t: TextElement, frame: &Frame) -> Text {
        self.x_rules(path, t.x, t.x_anchor.as_ref(), frame);
        self.coordinate(&format!("{path}.y"), t.y);
        self.rotation_rules(path, t.rotation);
        self.text_chars += t.content.chars().count();
        // Broken tags are a violation; nothing is measured for them.
        let runs = super::parse_rich_text(&t.content).unwrap_or_else(|message| {
            self.push(format!("{path}.content"), message);
            Vec::new()
        });
        if let Some(style) = &t.style {
            self.text_style_values(&format!("{path}.style"), style);
        }
        let defaults = self
            .settings
            .defaults
            .as_ref()
            .and_then(|d| d.text.as_ref());
        let merged = merge_text(&[defaults, t.style.as_ref()]);
        self.text_combination_rules(&format!("{path}.style"), &merged);
        let style = resolve_text(&merged, &self.env.config.defaults);
        let measurer = Measurer::new(self.env.fonts);
        if let Some((_, c)) = measurer.missing(&runs, &style) {
            self.push(
                format!("{path}.content"),
                no_glyph_message(&t.content, c, &style.family),
            );
        }
        let fitted = fit_text(&runs, &style, style.width, style.height, &measurer);
        if merged.width.is_none() {
            self.unwrapped_line_rules(&format!("{path}.content"), &style, &fitted);
        }
        if t.x_anchor.is_some() && merged.width.is_none() {
            self.push(
                format!("{path}.style.width"),
                "text with `x_anchor` needs `style.width`",
            );
        }
        if t.link.is_some() && t.style.as_ref().is_some_and(|s| s.link.is_some()) {
            self.push(
                format!("{path}.style.link"),
                "give the link either on the element or in its style, not both",
            );
        }
        self.link_rules(&format!("{path}.link"), t.link.as_ref());
        self.link_rules(
            &format!("{path}.style.link"),
            t.style.as_ref().and_then(|s| s.link.as_ref()),
        );
        let link = t
            .link
            .as_ref()
            .or(t.style.as_ref().and_then(|s| s.link.as_ref()))
            .map(Link::resolve);
        Text {
            spec: t,
            style,
            fitted,
            link,
        }
    }

    /// Text without `style.width` never wraps, and Typst's time for one
    /// line grows with the square of its length (a 40,000-character line
    /// takes about a second; 5,000,000 would take hours). So every such line
    /// is bounded before anything is compiled: at most
    /// `limits.text_line_chars` characters, and no wider than the widest
    /// sheet there can be (`limits.page_side_mm`), past which nothing of it
    /// could be printed anyway. Without a width the fitted lines are the
    /// content's own lines; their widths are taken at the style's size (a
    /// shrunk text is judged unshrunk).
    fn unwrapped_line_rules(&mut self, path: &str, style: &ResolvedText, fitted: &FittedText) {
        let most_chars = fitted
            .lines
            .iter()
            .map(|l| {
                l.segments
                    .iter()
                    .map(|s| s.text.chars().count())
                    .sum::<usize>()
            })
            .max()
            .unwrap_or(0);
        let widest = if fitted.size > 0.0 {
            fitted.widest() * style.size / fitted.size
        } else {
            0.0
        };
        let limits = &self.env.config.limits;
        if most_chars > limits.text_line_chars {
            self.push(
                path,
                format!(
                    "a line of {most_chars} characters without `style.width`; at most {} \
                     are allowed on one line: give the text a width to wrap it",
                    limits.text_line_chars
                ),
            );
        } else if widest > limits.page_side_mm {
            self.push(
                path,
                format!(
                    "a line {widest:.0} mm wide without `style.width`, wider than any sheet \
                     ({} mm): give the text a width to wrap it",
                    limits.page_side_mm
                ),
            );
        }
    }

    /// Value checks of one TextStyle layer.
    pub(crate) fn text_style_values(&mut self, path: &str, s: &TextStyle) {
        if let Some(size) = s.font_size {
            if !(size > 0.0 && size <= 1000.0) {
                self.push(
                    format!("{path}.font_size"),
                    "must be greater than 0 and at most 1000 pt",
                );
            }
        }
        if let Some(size) = s.min_font_size {
            if !(size > 0.0 && size <= 1000.0) {
                self.push(
                    format!("{path}.min_font_size"),
                    "must be greater than 0 and at most 1000 pt",
                );
            }
        }
        if let Some(w) = &s.font_weight {
            if weight_value(w).is_none() {
                self.push(
                    format!("{path}.font_weight"),
                    "must be `normal`, `bold` or a whole number from 100 to 900",
                );
            }
        }
        if let Some(c) = &s.color {
            self.colour(&format!("{path}.color"), c);
        }
        if let Some(lh) = s.line_height {
            if !(lh > 0.0 && lh <= 10.0) {
                self.push(
                    format!("{path}.line_height"),
                    "must be greater than 0 and at most 10 (a multiple of the font size)",
                );
            }
        }
        if let Some(w) = s.width {
            self.positive(&format!("{path}.width"), w);
        }
        if let Some(h) = s.height {
            self.positive(&format!("{path}.height"), h);
        }
        if let Some(family) = &s.font_family {
            if !self.env.fonts.has_family(family) {
                let close = closest_families(family, &self.env.fonts.families());
                let hint = match close.as_slice() {
                    [] => String::new(),
                    names => format!(
                        "; closest: {}",
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                self.push(
                    format!("{path}.font_family"),
                    format!(
                        "no font family `{family}` is installed{hint} (`labelpress fonts` lists them all)"
                    ),
                );
            }
        }
    }

    /// Rules between fields of the resolved style.
    pub(crate) fn text_combination_rules(&mut self, path: &str, merged: &TextStyle) {
        let r = resolve_text(merged, &self.env.config.defaults);
        if merged
            .vertical_align
            .is_some_and(|v| v != VerticalAlign::Top)
            && r.height.is_none()
        {
            self.push(
                format!("{path}.vertical_align"),
                "`vertical_align` needs `height`",
            );
        }
        if r.overflow != TextOverflow::Visible && r.width.is_none() {
            self.push(
                format!("{path}.text_overflow"),
                "`text_overflow` clip or ellipsis needs `width`",
            );
        }
        if r.shrink_to_fit && r.width.is_none() && r.height.is_none() {
            self.push(
                format!("{path}.shrink_to_fit"),
                "`shrink_to_fit` needs `width` or `height`",
            );
        }
        if r.shrink_to_fit && r.min_size > r.size {
            self.push(
                format!("{path}.min_font_size"),
                "must not exceed `font_size`",
            );
        }
    }

    /// Checks an image element and decodes its data once, kept in the
    /// validated element; `None` when a violation was recorded.
    fn image(&mut self, path: &str, i: ImageElement, frame: &Frame) -> Option<Image> {
        self.x_rules(path, i.x, i.x_anchor.as_ref(), frame);
        self.coordinate(&format!("{path}.y"), i.y);
        self.positive(&format!("{path}.width"), i.width);
        self.positive(&format!("{path}.height"), i.height);
        self.rotation_rules(path, i.rotation);
        let loaded = self.image_data(path, &i);
        if self.profile.is_some_and(|p| p.requires_tags())
            && i.alt.as_deref().is_none_or(|a| a.trim().is_empty())
        {
            self.push(
                format!("{path}.alt"),
                "this profile requires alternative text for images",
            );
        }
        self.link_rules(&format!("{path}.link"), i.link.as_ref());
        Some(Image {
            bytes: loaded?.bytes,
            link: i.link.as_ref().map(Link::resolve),
            spec: i,
        })
    }

    /// `x` and `x_anchor`: exactly one, and anchors only where their reference exists.
    pub(crate) fn x_rules(
        &mut self,
        path: &str,
        x: Option<f64>,
        anchor: Option<&XAnchor>,
        frame: &Frame,
    ) {
        match (x, anchor) {
            (Some(_), Some(_)) => self.push(
                format!("{path}.x_anchor"),
                "`x` and `x_anchor` are mutually exclusive",
            ),
            (None, None) => self.push(format!("{path}.x"), "`x` or `x_anchor` is required"),
            (Some(x), None) => self.coordinate(&format!("{path}.x"), x),
            (None, Some(a)) => {
                self.coordinate(&format!("{path}.x_anchor.offset"), a.offset);
                let table_ref = matches!(
                    a.reference,
                    AnchorReference::TableLeft | AnchorReference::TableRight
                );
                if table_ref && frame.zone != Zone::Block {
                    self.push(
                        format!("{path}.x_anchor.reference"),
                        "`table_left` and `table_right` are allowed only inside a block of a stack",
                    );
                }
            }
        }
    }

    pub(crate) fn rotation_rules(&mut self, path: &str, rotation: Option<f64>) {
        if let Some(r) = rotation {
            if ![0.0, 90.0, 180.0, 270.0].contains(&r) {
                self.push(format!("{path}.rotation"), "must be 0, 90, 180 or 270");
            }
        }
    }

    /// A shape's paint (the stroke width defaulting to the shapes').
    fn shape_paint(&self, stroke: Option<&StrokeStyle>, fill: Option<&FillStyle>) -> Paint {
        self.paint(stroke, fill, self.env.config.defaults.shape_stroke_width)
    }

    /// The element's stroke and fill over the document's defaults, then the
    /// configured ones: what the lowering draws.
    fn paint(
        &self,
        stroke: Option<&StrokeStyle>,
        fill: Option<&FillStyle>,
        default_width: f64,
    ) -> Paint {
        let defaults = self.settings.defaults.as_ref();
        let stroke = merge_stroke(stroke, defaults.and_then(|d| d.stroke.as_ref()));
        let fill = merge_fill(fill, defaults.and_then(|d| d.fill.as_ref()));
        Paint {
            stroke: resolve_stroke(stroke.as_ref(), default_width, &self.env.config.defaults),
            fill: resolve_fill(fill.as_ref()),
            corner_radius: None,
        }
    }

    /// A rectangle's corner radius: its own, `settings.defaults.shape`'s,
    /// or the configured one.
    fn corner_radius(&self, own: Option<f64>) -> f64 {
        own.or_else(|| {
            self.settings
                .defaults
                .as_ref()
                .and_then(|d| d.shape.as_ref())
                .and_then(|s| s.corner_radius)
        })
        .unwrap_or(self.env.config.defaults.corner_radius)
    }

    pub(crate) fn default_stroke(&self) -> Option<StrokeStyle> {
        self.settings
            .defaults
            .as_ref()
            .and_then(|d| d.stroke.clone())
    }

    /// Stroke value checks plus the combination rules of the spec.
    /// `compound_allowed`: lines (and table borders) may be double; shapes may not.
    pub(crate) fn stroke_rules(
        &mut self,
        path: &str,
        stroke: Option<&StrokeStyle>,
        compound_allowed: bool,
    ) {
        let path = format!("{path}.stroke");
        if let Some(s) = stroke {
            self.stroke_values(&path, s);
        }
        let Some(merged) = merge_stroke(stroke, self.default_stroke().as_ref()) else {
            return;
        };
        if merged.compound.is_some() {
            if !compound_allowed {
                self.push(
                    format!("{path}.compound"),
                    "`compound` is only supported on lines and table borders",
                );
            } else if merged.dash.as_ref().is_some_and(|d| {
                d.preset.is_some_and(|p| p != DashPreset::Solid) || d.pattern.is_some()
            }) {
                self.push(format!("{path}.compound"), "a double line cannot be dashed");
            }
        }
    }

    pub(crate) fn stroke_values(&mut self, path: &str, s: &StrokeStyle) {
        if let Some(c) = &s.color {
            self.colour(&format!("{path}.color"), c);
        }
        if let Some(w) = s.width {
            if !(0.0..=1000.0).contains(&w) {
                self.push(format!("{path}.width"), "must be between 0 and 1000 mm");
            }
        }
        if let Some(o) = s.opacity {
            self.opacity(&format!("{path}.opacity"), o);
        }
        if let Some(m) = s.miter_limit {
            if !(1.0..=100.0).contains(&m) {
                self.push(format!("{path}.miter_limit"), "must be between 1 and 100");
            }
        }
        if let Some(d) = &s.dash {
            let custom = d.preset == Some(DashPreset::Custom);
            match (&d.pattern, custom) {
                (Some(_), false) => self.push(
                    format!("{path}.dash.pattern"),
                    "`pattern` is only allowed with preset `custom`",
                ),
                (None, true) => self.push(
                    format!("{path}.dash.pattern"),
                    "preset `custom` needs `pattern`",
                ),
                (Some(p), true) => {
                    if p.is_empty()
                        || p.len() > 64
                        || p.iter().any(|v| !(0.0..=1000.0).contains(v))
                        || p.iter().sum::<f64>() <= 0.0
                    {
                        self.push(
                            format!("{path}.dash.pattern"),
                            "needs 1 to 64 lengths between 0 and 1000 mm, not all 0",
                        );
                    }
                }
                (None, false) => {}
            }
            if let Some(phase) = d.phase {
                self.coordinate(&format!("{path}.dash.phase"), phase);
            }
        }
        if let Some(c) = &s.compound {
            if !(0.0..=1000.0).contains(&c.gap) {
                self.push(
                    format!("{path}.compound.gap"),
                    "must be between 0 and 1000 mm",
                );
            }
        }
    }

    pub(crate) fn fill_rules(&mut self, path: &str, fill: Option<&FillStyle>) {
        if let Some(f) = fill {
            self.fill_values(&format!("{path}.fill"), f);
        }
    }

    pub(crate) fn fill_values(&mut self, path: &str, f: &FillStyle) {
        if let Some(c) = &f.color {
            self.colour(&format!("{path}.color"), c);
        }
        if let Some(o) = f.opacity {
            self.opacity(&format!("{path}.opacity"), o);
        }
    }

    pub(crate) fn link_rules(&mut self, path: &str, link: Option<&LinkSpec>) {
        if let Some(spec) = link {
            self.link_spec_rules(path, spec);
        }
    }

    /// LinkSpec rules; `path` is the path of the spec itself (or of a link element).
    pub(crate) fn link_spec_rules(&mut self, path: &str, spec: &LinkSpec) {
        match &spec.target {
            LinkTarget::Url { url } => {
                if let Err(message) = check_url(url) {
                    self.push(format!("{path}.target.url"), message);
                }
            }
            LinkTarget::Page { page, x, y } => {
                if *page < 1 || *page as usize > self.page_count {
                    self.push(
                        format!("{path}.target.page"),
                        format!(
                            "must be between 1 and {} (the pages in this request)",
                            self.page_count
                        ),
                    );
                } else if let Some(&(w, h)) = self.page_sizes.get(*page as usize - 1) {
                    if !(0.0..=w).contains(x) {
                        self.push(
                            format!("{path}.target.x"),
                            format!("must be between 0 and the page width ({w} mm)"),
                        );
                    }
                    if !(0.0..=h).contains(y) {
                        self.push(
                            format!("{path}.target.y"),
                            format!("must be between 0 and the page height ({h} mm)"),
                        );
                    }
                }
            }
        }
        if let Some(p) = spec.padding {
            self.non_negative(&format!("{path}.padding"), p);
        }
        if let Some(b) = &spec.border {
            if let Some(w) = b.width {
                self.non_negative(&format!("{path}.border.width"), w);
            }
            if let Some(c) = &b.color {
                self.colour(&format!("{path}.border.color"), c);
            }
        }
        if self.profile.is_some_and(|p| p.requires_tags())
            && spec.alt.as_deref().is_none_or(|a| a.trim().is_empty())
        {
            self.push(
                format!("{path}.alt"),
                "this profile requires alternative text for links",
            );
        }
    }

    /// The content-box rule at the element's place. A body element's box
    /// is known here; a stack block's child only across (`x` does not
    /// depend on the flow): its height on the sheet is checked once the
    /// flow has placed its block (`Validator::block_children_in_content_box`).
    fn content_box_rules(&mut self, path: &str, element: &Element, frame: &Frame) {
        let Some(content) = frame.content else {
            return;
        };
        let across_only = match frame.zone {
            Zone::Body => false,
            Zone::Block => true,
            Zone::Header | Zone::Footer => return,
        };
        if matches!(element, Element::Table(_) | Element::Stack(_)) {
            return;
        }
        let Some(b) = super::element_bounds(element, frame) else {
            return;
        };
        let out = if across_only {
            outside_across(&b, &content)
        } else {
            outside_across(&b, &content) || outside_down(&b, &content)
        };
        if out {
            let message = if across_only {
                format!(
                    "the element ({:.2} to {:.2} mm across the page) exceeds the content box ({:.2} to {:.2} mm)",
                    b.x,
                    b.right(),
                    content.x,
                    content.right()
                )
            } else {
                content_box_message(&b, &content)
            };
            self.push(path, message);
        }
    }
}

/// A link element's link, as the `link` of any other element gives it.
fn link_spec_of(area: &LinkElement) -> LinkSpec {
    LinkSpec {
        target: area.target.clone(),
        alt: area.alt.clone(),
        padding: area.padding,
        border: area.border.clone(),
    }
}

/// Tolerance of the content-box rule (mm): rounding, not a real overhang.
const CONTENT_BOX_EPS: f64 = 1e-6;

/// Whether `b` leaves `content` to the left or right.
pub(crate) fn outside_across(b: &Rect, content: &Rect) -> bool {
    b.x < content.x - CONTENT_BOX_EPS || b.right() > content.right() + CONTENT_BOX_EPS
}

/// Whether `b` leaves `content` above or below.
pub(crate) fn outside_down(b: &Rect, content: &Rect) -> bool {
    b.y < content.y - CONTENT_BOX_EPS || b.bottom() > content.bottom() + CONTENT_BOX_EPS
}

/// The API-002 message of an element box `b` that leaves the content box.
pub(crate) fn content_box_message(b: &Rect, content: &Rect) -> String {
    format!(
        "the element ({:.2}, {:.2}, {:.2} x {:.2} mm on the page) exceeds the content box ({:.2}, {:.2}, {:.2} x {:.2} mm)",
        b.x, b.y, b.w, b.h, content.x, content.y, content.w, content.h
    )
}

/// URL rules: allowed schemes after trimming, no control characters.
pub fn check_url(url: &str) -> Result<(), String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    let scheme = ["http://", "https://", "mailto:", "tel:"]
        .into_iter()
        .find(|s| lower.starts_with(s));
    match scheme {
        None => Err("the URL scheme must be http://, https://, mailto: or tel:".into()),
        Some(s) if url.len() == s.len() => Err("the URL has nothing after its scheme".into()),
        Some(_) if url.chars().any(char::is_control) => {
            Err("the URL contains control characters".into())
        }
        Some(_) if url.len() > 4096 => Err("the URL is longer than 4096 bytes".into()),
        Some(_) => Ok(()),
    }
}
