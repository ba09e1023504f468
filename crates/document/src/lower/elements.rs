//! One element to one `place(...)` call.

use std::fmt::Write;

use super::typst::{self as ty, mm, num};
use super::Ctx;
use crate::ir::{Barcode, Border, Element, Image, Link, Shape, Target, Text};
use crate::layout::display::Item;
use crate::layout::geometry::{rotated, Frame};
use crate::layout::FittedText;
use crate::model::*;
use crate::rich_text::Line;
use crate::style::*;

/// Whether every line of `fitted` is clearly narrower than the sheet: a
/// placed paragraph gets the sheet's width as its region (whatever its
/// offset), so such lines cannot wrap and need no unbounded block around
/// them (a block per text is a layout frame and a PDF group more on every
/// render). The margin covers any difference between layout's measure and
/// Typst's.
fn fits_sheet(fitted: &FittedText, sheet_width: f64) -> bool {
    let widest = fitted.lines.iter().map(|l| l.width).fold(0.0, f64::max);
    widest * 1.05 + 1.0 <= sheet_width
}

/// Typst's default text weight (`regular`), which the document's text
/// starts from.
pub(crate) const REGULAR_WEIGHT: u16 = 400;

/// Typst lands position links 10 pt above the requested y (measured with
/// typst 0.15.1); asking 10 pt lower puts the destination where the request says.
const PAGE_LINK_Y_COMPENSATION_PT: f64 = 10.0;

/// Region width for text without a width: wider than any page (5,080 mm).
const UNBOUNDED_WIDTH_MM: f64 = 100_000.0;

/// Element content and where its top-left corner goes.
struct Placed {
    x: f64,
    y: f64,
    body: String,
    /// Text without a width: placed in a very wide region so that the page
    /// width never wraps it (measuring it instead costs a second layout).
    unbounded: bool,
}

impl Ctx<'_> {
    /// One item of the display list, its top-left corner where layout
    /// placed it (a line's box grows by its stroke: it places itself).
    pub(crate) fn element(&mut self, item: &Item, sheet_width: f64) {
        let (element, frame) = (item.element, &item.frame);
        let at = item.bounds.map_or(frame.origin, |b| (b.x, b.y));
        let placed = match element {
            Element::Text(t) => self.text(t, at, sheet_width),
            Element::Rect(r) => self.rect(r, at),
            Element::Circle(c) => self.circle(c, at),
            Element::Ellipse(e) => self.ellipse(e, at),
            Element::Polygon(p) => self.polygon(p, at),
            Element::Line(l) => self.line(l, frame, item.link.is_some()),
            Element::Image(i) => self.image(i, at),
            Element::Barcode(b) => self.barcode(b, at),
            Element::Link(area) => Placed {
                x: at.0,
                y: at.1,
                body: format!(
                    "box(width: {}, height: {})",
                    mm(area.spec.width),
                    mm(area.spec.height)
                ),
                unbounded: false,
            },
            // Flow elements print as their pieces: table rows, block items.
            Element::Table(_) | Element::Stack(_) => return,
        };
        self.emit(placed, item.link);
    }

    /// Places `body` with its top left at (x, y), inside `link` when given.
    pub(crate) fn emit_placed(&mut self, x: f64, y: f64, body: String, link: Option<&Link>) {
        self.emit(
            Placed {
                x,
                y,
                body,
                unbounded: false,
            },
            link,
        );
    }

    /// Writes `place(...)`, wrapping the body in its link when it has one.
    fn emit(&mut self, placed: Placed, link: Option<&Link>) {
        let Placed {
            mut x,
            mut y,
            mut body,
            unbounded,
        } = placed;
        if let Some(link) = link {
            body = self.link_body(link, body);
            x -= link.padding;
            y -= link.padding;
        }
        if unbounded {
            body = format!("block(width: {}, {body})", mm(UNBOUNDED_WIDTH_MM));
        }
        let _ = writeln!(self.out, "place(dx: {}, dy: {}, {body})", mm(x), mm(y));
    }

    /// `body` inside the link `spec`, grown by its padding (place it that
    /// much further up and left). Records the link's `alt` for the sheet
    /// (`Lowered::link_alts`): every link is placed through here, in order.
    pub(crate) fn link_body(&mut self, link: &Link, body: String) -> String {
        if let Some(alts) = self.link_alts.get_mut(self.sheet.wrapping_sub(1)) {
            alts.push(link.alt.clone());
        }
        self.page_links |= matches!(link.target, Target::Page { .. });
        let stroke = match link.border {
            Some(Border { width, colour }) => {
                format!(", stroke: {} + {}", mm(width), ty::colour(colour, 1.0))
            }
            None => String::new(),
        };
        format!(
            "link({}, box(inset: {}{stroke}, {body}))",
            self.destination(&link.target),
            mm(link.padding)
        )
    }

    fn destination(&self, target: &Target) -> String {
        match target {
            Target::Url(url) => ty::string(url),
            Target::Page { page, x, y } => {
                let sheet = self.sheets_before + self.first_sheet.get(*page).copied().unwrap_or(1);
                format!(
                    "(page: {sheet}, x: {}, y: {} + {})",
                    mm(*x),
                    mm(*y),
                    ty::pt(PAGE_LINK_Y_COMPENSATION_PT)
                )
            }
        }
    }

    fn text(&mut self, text: &Text, (x, y): (f64, f64), sheet_width: f64) -> Placed {
        let (t, style, fitted) = (&text.spec, &text.style, &text.fitted);
        let mut body = self.text_body(fitted, style);
        let rotated = t.rotation.is_some_and(|r| r != 0.0);
        if style.width.is_none() && rotated {
            // Rotation reflows around the body's size: the box shrinks it to
            // the text (a bare paragraph would span the whole wide region).
            body = format!("box({body})");
        }
        let body = rotate(body, t.rotation);
        Placed {
            x,
            y,
            body,
            unbounded: style.width.is_none() && (rotated || !fits_sheet(fitted, sheet_width)),
        }
    }

    /// A text box printing fitted lines (also used for barcode HRT). Each
    /// line but the last ends in an explicit break, so Typst prints the
    /// lines layout measured and never wraps them again.
    pub(crate) fn text_body(&self, fitted: &FittedText, style: &ResolvedText) -> String {
        let ascender = self.fonts.ascender(&style.family, style.weight);
        // The line box: ascender above the baseline, the rest of line_height
        // below, whatever face a character falls back to (a Thai or
        // Devanagari face's own ascender is taller), so each line is exactly
        // as tall as layout measured.
        // Weight and colour only where they differ from what the
        // document's `#set text` gives every top-level text (Typst's
        // regular weight, the configured colour): Typst parses and
        // evaluates the whole source on every render.
        let mut set = String::with_capacity(96);
        if style.weight != REGULAR_WEIGHT {
            let _ = write!(set, "weight: {}, ", style.weight);
        }
        if style.color != self.text_colour {
            let _ = write!(set, "fill: {}, ", ty::colour(style.color, 1.0));
        }
        let _ = write!(set, "size: {}", ty::pt(fitted.size));
        let edges = TextEdges::of(ascender, style.line_height);
        if edges != self.text_edges {
            let _ = write!(set, ", {edges}");
        }
        if style.family != self.config.defaults.font_family {
            let _ = write!(set, ", font: {}", self.font_list(&style.family));
        }
        if fitted.rtl {
            set.push_str(", dir: rtl");
        }
        let align = fitted.align(style.align);
        let justify = style.width.is_some() && align == TextAlign::Justify;
        let mut body = self.lines_content(&fitted.lines, justify);
        if let Some(w) = style.width {
            // Explicit for right-to-left text too: a paragraph's `start`
            // is resolved outside `text(dir: rtl)`, where it is left.
            let halign = match align {
                TextAlign::Left | TextAlign::Justify => None,
                TextAlign::Center => Some("center"),
                TextAlign::Right => Some("right"),
            };
            if let Some(a) = halign {
                body = format!("align({a}, {body})");
            }
            body = format!("box(width: {}, {body})", mm(w));
        }
        if style.height.is_some() || style.overflow != TextOverflow::Visible {
            if style.width.is_none() {
                body = format!("box({body})");
            }
            let valign = match style.valign {
                VerticalAlign::Top => "top",
                VerticalAlign::Middle => "horizon",
                VerticalAlign::Bottom => "bottom",
            };
            body = format!(
                "box(width: {}, height: {}, clip: {}, align({valign}, {body}))",
                style.width.map_or("auto".into(), mm),
                style.height.map_or("auto".into(), mm),
                style.overflow != TextOverflow::Visible
            );
        }
        if justify {
            format!("{{ set text({set}); set par(justify: true); {body} }}")
        } else {
            // Styles as arguments: cheaper for Typst than a set rule in a block.
            format!("text({set}, {body})")
        }
    }

    /// Lines as Typst content (each as the table's cells write theirs),
    /// with a break after every line but the last: a justifying one after a
    /// wrapped line of justified text.
    pub(crate) fn lines_content(&self, lines: &[Line], justify: bool) -> String {
        let mut pieces = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                let previous = &lines[i - 1];
                pieces.push(if justify && previous.wrapped {
                    "linebreak(justify: true)".to_string()
                } else {
                    "linebreak()".to_string()
                });
            }
            if !line.segments.is_empty() {
                pieces.push(self.line_content(line));
            }
        }
        match pieces.len() {
            0 => "\"\"".into(),
            // A string is content wherever Typst expects content.
            1 => pieces.pop().expect("one piece"),
            _ => format!("{{ {} }}", pieces.join("; ")),
        }
    }

    fn rect(&mut self, rect: &Shape<RectElement>, (x, y): (f64, f64)) -> Placed {
        let (r, stroke, fill) = (&rect.spec, &rect.paint.stroke, &rect.paint.fill);
        let radius = rect.paint.corner_radius.unwrap_or_default();
        let body = format!(
            "rect(width: {}, height: {}, radius: {}, fill: {}, stroke: {})",
            mm(r.width),
            mm(r.height),
            mm(radius),
            ty::fill(fill.as_ref()),
            ty::stroke(&stroke)
        );
        Placed {
            x,
            y,
            body: rotate(body, r.rotation),
            unbounded: false,
        }
    }

    fn circle(&mut self, circle: &Shape<CircleElement>, (x, y): (f64, f64)) -> Placed {
        let (c, stroke, fill) = (&circle.spec, &circle.paint.stroke, &circle.paint.fill);
        let body = format!(
            "circle(radius: {}, fill: {}, stroke: {})",
            mm(c.r),
            ty::fill(fill.as_ref()),
            ty::stroke(&stroke)
        );
        Placed {
            x,
            y,
            body,
            unbounded: false,
        }
    }

    fn ellipse(&mut self, ellipse: &Shape<EllipseElement>, (x, y): (f64, f64)) -> Placed {
        let (e, stroke, fill) = (&ellipse.spec, &ellipse.paint.stroke, &ellipse.paint.fill);
        // Only quarter turns exist, so a rotated ellipse is the one with its radii swapped.
        let (rx, ry) = rotated(e.rx, e.ry, e.rotation);
        let body = format!(
            "ellipse(width: {}, height: {}, fill: {}, stroke: {})",
            mm(2.0 * rx),
            mm(2.0 * ry),
            ty::fill(fill.as_ref()),
            ty::stroke(&stroke)
        );
        Placed {
            x,
            y,
            body,
            unbounded: false,
        }
    }

    fn polygon(&mut self, polygon: &Shape<PolygonElement>, (x, y): (f64, f64)) -> Placed {
        let (p, stroke, fill) = (&polygon.spec, &polygon.paint.stroke, &polygon.paint.fill);
        let (x0, y0, w, h) = bounds(p.points.iter().map(|p| (p.x, p.y)));
        let points: Vec<String> = p
            .points
            .iter()
            .map(|pt| format!("({}, {})", mm(pt.x - x0), mm(pt.y - y0)))
            .collect();
        let body = format!(
            "box(width: {}, height: {}, place(polygon(fill: {}, fill-rule: {}, stroke: {}, {})))",
            mm(w),
            mm(h),
            ty::fill(fill.as_ref()),
            ty::fill_rule(fill.as_ref()),
            ty::stroke(&stroke),
            points.join(", ")
        );
        Placed {
            x,
            y,
            body,
            unbounded: false,
        }
    }

    /// A line as its segments and markers; `boxed` wraps them in the line's
    /// bounding box (what a link covers).
    fn line(&mut self, line: &Shape<LineElement>, frame: &Frame, boxed: bool) -> Placed {
        let (l, stroke) = (&line.spec, &line.paint.stroke);
        let (x0, y0, w, h) = bounds([(l.x1, l.y1), (l.x2, l.y2)].into_iter());
        let (ax, ay, bx, by) = (l.x1 - x0, l.y1 - y0, l.x2 - x0, l.y2 - y0);
        let len = ((bx - ax).powi(2) + (by - ay).powi(2)).sqrt();
        let (ux, uy) = if len > 0.0 {
            ((bx - ax) / len, (by - ay) / len)
        } else {
            (1.0, 0.0)
        };
        let marker = l.marker.clone().unwrap_or_default();
        let size = marker.size.unwrap_or(self.config.defaults.marker_size);
        let start = marker.start.unwrap_or(MarkerKind::None);
        let end = marker.end.unwrap_or(MarkerKind::None);
        // A filled arrow's tip sits on the end point, so the line stops at its base.
        let cut = |k: MarkerKind| {
            if k == MarkerKind::Arrow {
                size.min(len / 2.0)
            } else {
                0.0
            }
        };
        let (sa, sb) = (cut(start), cut(end));
        let (lax, lay) = (ax + ux * sa, ay + uy * sa);
        let (lbx, lby) = (bx - ux * sb, by - uy * sb);
        let seg = |x1: f64, y1: f64, x2: f64, y2: f64, s: &str| {
            format!(
                "line(start: ({}, {}), end: ({}, {}), stroke: {s})",
                mm(x1),
                mm(y1),
                mm(x2),
                mm(y2)
            )
        };
        let segments = match stroke.double_gap {
            // Width 0 is no stroke (Typst's `line` takes no `stroke: none`);
            // markers and a link still have their box.
            _ if stroke.width <= 0.0 => Vec::new(),
            Some(gap) => {
                // Two lines of `width`, `gap` clear space between, centred on the path.
                let off = (gap + stroke.width) / 2.0;
                let (nx, ny) = (-uy * off, ux * off);
                let s = ty::stroke(&stroke);
                vec![
                    seg(lax + nx, lay + ny, lbx + nx, lby + ny, &s),
                    seg(lax - nx, lay - ny, lbx - nx, lby - ny, &s),
                ]
            }
            None => vec![seg(lax, lay, lbx, lby, &ty::stroke(&stroke))],
        };
        let solid = ResolvedStroke {
            dash: None,
            ..stroke.clone()
        };
        let markers: Vec<String> = [(start, ax, ay, -ux, -uy), (end, bx, by, ux, uy)]
            .into_iter()
            .filter_map(|(kind, px, py, dx, dy)| marker_shape(kind, px, py, dx, dy, size, &solid))
            .collect();
        let has_markers = !markers.is_empty();
        let mut body = match (&segments[..], has_markers) {
            // A lone segment needs no box: it is placed at the box's corner anyway.
            ([only], false) if !boxed => only.clone(),
            _ => {
                let placed: Vec<String> = segments
                    .iter()
                    .map(|s| format!("place({s})"))
                    .chain(markers)
                    .collect();
                format!(
                    "box(width: {}, height: {}, {{ {} }})",
                    mm(w),
                    mm(h),
                    placed.join("; ")
                )
            }
        };
        // A link's area is its body's box, which for a horizontal or vertical
        // line is 0 mm across: grow it by half the drawn stroke (and marker)
        // on every side, so the area covers at least what is printed.
        let mut grow = 0.0;
        if boxed {
            let thickness = stroke
                .double_gap
                .map_or(stroke.width, |gap| 2.0 * stroke.width + gap);
            grow = if has_markers {
                (thickness / 2.0).max(size / 2.0)
            } else {
                thickness / 2.0
            };
            body = format!(
                "box(width: {}, height: {}, place(dx: {}, dy: {}, {body}))",
                mm(w + 2.0 * grow),
                mm(h + 2.0 * grow),
                mm(grow),
                mm(grow)
            );
        }
        Placed {
            x: frame.origin.0 + x0 - grow,
            y: frame.origin.1 + y0 - grow,
            body,
            unbounded: false,
        }
    }

    fn image(&mut self, image: &Image, (x, y): (f64, f64)) -> Placed {
        let i = &image.spec;
        let index = self.images.len();
        self.images.push(image.bytes.clone());
        let fit = match i.fit.unwrap_or_default() {
            ImageFit::Contain => "contain",
            ImageFit::Cover => "cover",
            ImageFit::Stretch => "stretch",
        };
        let alt = i
            .alt
            .as_deref()
            .map(|a| format!(", alt: {}", ty::string(a)))
            .unwrap_or_default();
        let body = format!(
            "box(width: {w}, height: {h}, clip: true, align(center + horizon, image(\"/img/{index}\", width: {w}, height: {h}, fit: \"{fit}\"{alt})))",
            w = mm(i.width),
            h = mm(i.height)
        );
        Placed {
            x,
            y,
            body: rotate(body, i.rotation),
            unbounded: false,
        }
    }

    fn barcode(&mut self, b: &Barcode, (x, y): (f64, f64)) -> Placed {
        let spec = &b.spec;
        let body = super::barcode::draw(self, b, (x, y));
        Placed {
            x,
            y,
            body: rotate(body, spec.rotation),
            unbounded: false,
        }
    }
}

/// Clockwise quarter turns; the box is reflowed so (x, y) is the rotated box's top left.
fn rotate(body: String, rotation: Option<f64>) -> String {
    match rotation {
        Some(r) if r != 0.0 => format!("rotate({}deg, reflow: true, {body})", num(r)),
        _ => body,
    }
}

/// (min x, min y, width, height) of points.
fn bounds(points: impl Iterator<Item = (f64, f64)>) -> (f64, f64, f64, f64) {
    let (mut x0, mut y0, mut x1, mut y1) = (
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    );
    for (x, y) in points {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    (x0, y0, x1 - x0, y1 - y0)
}

/// A line-end marker at (px, py) pointing along (dx, dy).
fn marker_shape(
    kind: MarkerKind,
    px: f64,
    py: f64,
    dx: f64,
    dy: f64,
    size: f64,
    stroke: &ResolvedStroke,
) -> Option<String> {
    let (nx, ny) = (-dy, dx);
    let half = size / 2.0;
    let pt = |x: f64, y: f64| format!("({}, {})", mm(x), mm(y));
    let base = (px - dx * size, py - dy * size);
    let wings = [
        (base.0 + nx * half, base.1 + ny * half),
        (base.0 - nx * half, base.1 - ny * half),
    ];
    let paint = ty::colour(stroke.color, stroke.opacity);
    let s = ty::stroke(stroke);
    Some(match kind {
        MarkerKind::None => return None,
        MarkerKind::Arrow => format!(
            "place(polygon(fill: {paint}, stroke: none, {}, {}, {}))",
            pt(px, py),
            pt(wings[0].0, wings[0].1),
            pt(wings[1].0, wings[1].1)
        ),
        MarkerKind::OpenArrow => format!(
            "place(curve(stroke: {s}, curve.move({}), curve.line({}), curve.line({})))",
            pt(wings[0].0, wings[0].1),
            pt(px, py),
            pt(wings[1].0, wings[1].1)
        ),
        MarkerKind::Circle => format!(
            "place(dx: {}, dy: {}, circle(radius: {}, fill: {paint}, stroke: none))",
            mm(px - half),
            mm(py - half),
            mm(half)
        ),
        MarkerKind::Bar => format!(
            "place(line(start: {}, end: {}, stroke: {s}))",
            pt(px + nx * half, py + ny * half),
            pt(px - nx * half, py - ny * half)
        ),
    })
}

/// A text's line box (Typst's `top-edge` and `bottom-edge`, in em): the
/// ascender above the baseline, the rest of the line height below.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextEdges {
    top: f64,
    bottom: f64,
}

impl TextEdges {
    pub fn of(ascender: f64, line_height: f64) -> TextEdges {
        TextEdges {
            top: ascender,
            bottom: -(line_height - ascender),
        }
    }
}

impl std::fmt::Display for TextEdges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "top-edge: {}em, bottom-edge: {}em",
            num(self.top),
            num(self.bottom)
        )
    }
}
