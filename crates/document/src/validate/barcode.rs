//! Barcode elements: their rules, then their symbol encoded and fitted into
//! the box once (labelpress_barcode::fit), kept in the validated element.

use super::{Frame, Validator};
use crate::config::StyleDefaults;
use crate::ir::{Barcode, Link};
use crate::layout::fallback::no_glyph_message;
use crate::layout::{fit_text, Measurer};
use crate::model::{BarcodeElement, Settings, TextAlign};
use crate::style::{merge_text, resolve_text, ResolvedText};
use labelpress_barcode::{fit, Symbology};

/// HRT size when the request gives none (pt).
const HRT_FONT_SIZE: f64 = 8.0;

impl Validator<'_> {
    /// Checks a barcode element and encodes and fits its symbol; `None` when
    /// a violation was recorded.
    pub(crate) fn barcode(
        &mut self,
        path: &str,
        b: BarcodeElement,
        frame: &Frame,
    ) -> Option<Barcode> {
        let before = self.violations.len();
        self.x_rules(path, b.x, b.x_anchor.as_ref(), frame);
        self.coordinate(&format!("{path}.y"), b.y);
        self.positive(&format!("{path}.width"), b.width);
        self.positive(&format!("{path}.height"), b.height);
        self.rotation_rules(path, b.rotation);
        self.text_chars += b.content.chars().count();
        if let Some(o) = &b.options {
            if let Some(q) = o.quiet_zone {
                self.non_negative(&format!("{path}.options.quiet_zone"), q);
            }
            if let Some(w) = o.bar_width {
                self.positive(&format!("{path}.options.bar_width"), w);
            }
            if let Some(c) = &o.color {
                self.colour(&format!("{path}.options.color"), c);
            }
            if let Some(c) = &o.background_color {
                self.colour(&format!("{path}.options.background_color"), c);
            }
        }
        if let Some(hrt) = &b.hrt {
            if let Some(style) = &hrt.style {
                self.text_style_values(&format!("{path}.hrt.style"), style);
                let lpath = format!("{path}.hrt.style.link");
                self.link_rules(&lpath, style.link.as_ref());
                // Drawn around the text's box (lower::barcode); a link with
                // no text to cover, or inside the element's own, would be lost.
                if style.link.is_some() {
                    if !hrt.enabled.unwrap_or(false) {
                        self.push(
                            lpath,
                            "a link in `hrt.style` covers the human-readable text: it needs `hrt.enabled`",
                        );
                    } else if b.link.is_some() {
                        self.push(
                            lpath,
                            "give the link either on the barcode or in `hrt.style`, not both",
                        );
                    }
                }
            }
        }
        self.link_rules(&format!("{path}.link"), b.link.as_ref());
        let symbology = match b.format.parse::<Symbology>() {
            Ok(s) => s,
            Err(e) => {
                self.push(format!("{path}.format"), e.to_string());
                return None;
            }
        };
        let text = hrt_style(&self.settings, &self.env.config.defaults, &b).map(|style| {
            let runs = hrt_runs(&b);
            let measurer = Measurer::new(self.env.fonts);
            if let Some((_, c)) = measurer.missing(&runs, &style) {
                let (field, text) = match b.hrt.as_ref().and_then(|h| h.content.as_ref()) {
                    Some(content) => ("hrt.content", content),
                    None => ("content", &b.content),
                };
                self.push(
                    format!("{path}.{field}"),
                    no_glyph_message(text, c, &style.family),
                );
            }
            let fitted = fit_text(&runs, &style, Some(b.width), None, &measurer);
            (style, fitted)
        });
        // Human-readable text is drawn under bars shortened for it; a 2-D
        // symbol has no bars to shorten, and the text would cover modules.
        if text.is_some() && !symbology.is_linear() {
            self.push(
                format!("{path}.hrt"),
                format!(
                    "human-readable text is for 1-D symbols; `{}` is 2-D (print the text as a text element)",
                    b.format
                ),
            );
        }
        if self.violations.len() > before {
            return None;
        }
        let symbol = fit::element_options(symbology, b.options.as_ref().map(|o| &o.symbology))
            .and_then(|options| {
                let symbol = labelpress_barcode::encode(symbology, &b.content, &options)
                    .map_err(|e| (None, e.to_string()))?;
                let text_height = text.as_ref().map_or(0.0, |(_, fitted)| fitted.height());
                let frame = fit::Frame {
                    width: b.width,
                    height: b.height,
                    quiet_zone: b.options.as_ref().and_then(|o| o.quiet_zone).unwrap_or(0.0),
                    module: b.options.as_ref().and_then(|o| o.bar_width),
                    dpi: self.settings.print_dpi,
                    text_height,
                    min_module: self.env.config.limits.barcode_module_min_mm,
                };
                fit::fit(&symbol, &options, &frame)
            });
        match symbol {
            Ok(symbol) => Some(Barcode {
                link: b.link.as_ref().map(Link::resolve),
                text_link: b
                    .hrt
                    .as_ref()
                    .and_then(|h| h.style.as_ref()?.link.as_ref())
                    .map(Link::resolve),
                spec: b,
                symbol,
                text,
            }),
            Err((field, message)) => {
                self.push(
                    field.map_or_else(|| format!("{path}.content"), |f| format!("{path}.{f}")),
                    message,
                );
                None
            }
        }
    }
}

/// The human-readable text of a barcode: `hrt.content`, else its content, on one line.
fn hrt_runs(b: &BarcodeElement) -> Vec<super::Run> {
    let content = b
        .hrt
        .as_ref()
        .and_then(|h| h.content.clone())
        .unwrap_or_else(|| b.content.clone());
    vec![super::Run::Text {
        text: content.replace(['\n', '\r'], " "),
        bold: false,
        large: false,
    }]
}

/// The style of the human-readable text under 1-D bars, when it is enabled:
/// the box's width, centred, 8 pt unless the request says otherwise.
fn hrt_style(settings: &Settings, sys: &StyleDefaults, b: &BarcodeElement) -> Option<ResolvedText> {
    let hrt = b.hrt.as_ref()?;
    if !hrt.enabled.unwrap_or(false) {
        return None;
    }
    let defaults = settings.defaults.as_ref().and_then(|d| d.text.as_ref());
    let mut merged = merge_text(&[defaults, hrt.style.as_ref()]);
    if hrt.style.as_ref().and_then(|s| s.font_size).is_none() {
        merged.font_size = Some(HRT_FONT_SIZE);
    }
    merged.width = Some(b.width);
    if merged.text_align.is_none() {
        merged.text_align = Some(TextAlign::Center);
    }
    Some(resolve_text(&merged, sys))
}
