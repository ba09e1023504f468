//! Style resolution: element field, then `settings.defaults`, then the
//! runtime-config defaults. Validation and lowering both resolve through here,
//! so they always agree on what an element looks like.

// The colour type is `color`'s, below `config` (which checks the configured
// colours at start); the resolved styles here carry it.
pub use crate::color::Rgb;
use crate::config::StyleDefaults;
use crate::model::{
    Dash, DashPreset, FillRule, FillStyle, FontWeight, LineCap, LineJoin, StrokeStyle, TextAlign,
    TextOverflow, TextStyle, VerticalAlign,
};

/// Parses a colour that validation already accepted; black otherwise.
fn colour_or(text: Option<&str>, fallback: &str) -> Rgb {
    text.and_then(Rgb::parse)
        .or_else(|| Rgb::parse(fallback))
        .unwrap_or(Rgb::BLACK)
}

/// Maps a font weight to its numeric value, or `None` when it is not valid.
pub fn weight_value(weight: &FontWeight) -> Option<u16> {
    match weight {
        FontWeight::Name(n) if n == "normal" => Some(400),
        FontWeight::Name(n) if n == "bold" => Some(700),
        FontWeight::Name(_) => None,
        FontWeight::Number(n) if n.fract() == 0.0 && (100.0..=900.0).contains(n) => Some(*n as u16),
        FontWeight::Number(_) => None,
    }
}

/// A text style with every field decided.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedText {
    pub family: String,
    /// pt
    pub size: f64,
    pub weight: u16,
    pub color: Rgb,
    /// `None`: the paragraph's start, left or (for right-to-left text) right.
    pub align: Option<TextAlign>,
    pub valign: VerticalAlign,
    pub line_height: f64,
    /// mm
    pub width: Option<f64>,
    /// mm
    pub height: Option<f64>,
    pub overflow: TextOverflow,
    pub shrink_to_fit: bool,
    /// pt
    pub min_size: f64,
}

/// Merges style layers, later layers winning field by field.
pub fn merge_text(layers: &[Option<&TextStyle>]) -> TextStyle {
    let mut out = TextStyle::default();
    for layer in layers.iter().flatten() {
        macro_rules! take {
            ($($f:ident),*) => { $( if layer.$f.is_some() { out.$f = layer.$f.clone(); } )* };
        }
        take!(
            font_family,
            font_size,
            font_weight,
            color,
            text_align,
            vertical_align,
            line_height,
            width,
            height,
            text_overflow,
            shrink_to_fit,
            min_font_size,
            link
        );
    }
    out
}

/// Resolves a merged text style against the system defaults.
pub fn resolve_text(style: &TextStyle, sys: &StyleDefaults) -> ResolvedText {
    ResolvedText {
        family: style
            .font_family
            .clone()
            .unwrap_or_else(|| sys.font_family.clone()),
        size: style.font_size.unwrap_or(sys.font_size),
        weight: style
            .font_weight
            .as_ref()
            .and_then(weight_value)
            .unwrap_or(400),
        color: colour_or(style.color.as_deref(), &sys.text_color),
        align: style.text_align,
        valign: style.vertical_align.unwrap_or(VerticalAlign::Top),
        line_height: style.line_height.unwrap_or(sys.line_height),
        width: style.width,
        height: style.height,
        overflow: style.text_overflow.unwrap_or(TextOverflow::Visible),
        shrink_to_fit: style.shrink_to_fit.unwrap_or(false),
        min_size: style.min_font_size.unwrap_or(sys.min_font_size),
    }
}

/// A stroke with every field decided.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedStroke {
    pub color: Rgb,
    /// mm
    pub width: f64,
    pub opacity: f64,
    pub cap: LineCap,
    pub join: LineJoin,
    pub miter_limit: f64,
    /// Dash lengths in mm (on, off, ...) and phase; `None` for a solid line.
    pub dash: Option<(Vec<f64>, f64)>,
    /// Net gap in mm between the two lines of a double stroke.
    pub double_gap: Option<f64>,
}

/// Merges the element stroke over `settings.defaults.stroke`, field by field.
pub fn merge_stroke(
    element: Option<&StrokeStyle>,
    defaults: Option<&StrokeStyle>,
) -> Option<StrokeStyle> {
    match (element, defaults) {
        (None, None) => None,
        (Some(e), None) => Some(e.clone()),
        (None, Some(d)) => Some(d.clone()),
        (Some(e), Some(d)) => Some(StrokeStyle {
            color: e.color.clone().or_else(|| d.color.clone()),
            width: e.width.or(d.width),
            opacity: e.opacity.or(d.opacity),
            cap: e.cap.or(d.cap),
            join: e.join.or(d.join),
            miter_limit: e.miter_limit.or(d.miter_limit),
            dash: e.dash.clone().or_else(|| d.dash.clone()),
            compound: e.compound.clone().or_else(|| d.compound.clone()),
        }),
    }
}

/// Resolves a (merged) stroke; `default_width` depends on the element kind.
pub fn resolve_stroke(
    stroke: Option<&StrokeStyle>,
    default_width: f64,
    sys: &StyleDefaults,
) -> ResolvedStroke {
    let s = stroke.cloned().unwrap_or_default();
    let width = s.width.unwrap_or(default_width);
    ResolvedStroke {
        color: colour_or(s.color.as_deref(), &sys.stroke_color),
        width,
        opacity: s.opacity.unwrap_or(1.0),
        cap: s.cap.unwrap_or(LineCap::Butt),
        join: s.join.unwrap_or(LineJoin::Miter),
        miter_limit: s.miter_limit.unwrap_or(4.0),
        dash: s.dash.as_ref().and_then(|d| dash_lengths(d, width)),
        double_gap: s.compound.as_ref().map(|c| c.gap),
    }
}

/// Dash presets scale with the stroke width (docs/document-request.md); `custom` is in mm.
fn dash_lengths(dash: &Dash, width: f64) -> Option<(Vec<f64>, f64)> {
    let phase = dash.phase.unwrap_or(0.0);
    let unit = width.max(0.1);
    match dash.preset.unwrap_or(if dash.pattern.is_some() {
        DashPreset::Custom
    } else {
        DashPreset::Solid
    }) {
        DashPreset::Solid => None,
        DashPreset::Dashed => Some((vec![3.0 * unit, 2.0 * unit], phase)),
        DashPreset::Dotted => Some((vec![unit, unit], phase)),
        DashPreset::Custom => dash.pattern.clone().map(|p| (p, phase)),
    }
}

/// A fill with every field decided; `None` when no fill is drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedFill {
    pub color: Rgb,
    pub opacity: f64,
    pub rule: FillRule,
}

pub fn merge_fill(element: Option<&FillStyle>, defaults: Option<&FillStyle>) -> Option<FillStyle> {
    match (element, defaults) {
        (None, None) => None,
        (Some(e), None) => Some(e.clone()),
        (None, Some(d)) => Some(d.clone()),
        (Some(e), Some(d)) => Some(FillStyle {
            color: e.color.clone().or_else(|| d.color.clone()),
            opacity: e.opacity.or(d.opacity),
            rule: e.rule.or(d.rule),
        }),
    }
}

/// A fill without a colour draws nothing (transparent), like an omitted fill.
pub fn resolve_fill(fill: Option<&FillStyle>) -> Option<ResolvedFill> {
    let fill = fill?;
    let color = Rgb::parse(fill.color.as_deref()?)?;
    Some(ResolvedFill {
        color,
        opacity: fill.opacity.unwrap_or(1.0),
        rule: fill.rule.unwrap_or(FillRule::Nonzero),
    })
}

/// Splits `de-CH` into Typst's `lang` and `region`; `None` when it is no language code.
pub fn split_language(code: &str) -> Option<(String, Option<String>)> {
    let mut parts = code.split(['-', '_']);
    let lang = parts.next()?;
    if !(2..=3).contains(&lang.len()) || !lang.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let region = match parts.next() {
        None => None,
        Some(r) if r.len() == 2 && r.bytes().all(|b| b.is_ascii_alphabetic()) => {
            Some(r.to_ascii_uppercase())
        }
        Some(_) => return None,
    };
    if parts.next().is_some() {
        return None;
    }
    Some((lang.to_ascii_lowercase(), region))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_codes_split_into_lang_and_region() {
        assert_eq!(
            split_language("de-ch"),
            Some(("de".into(), Some("CH".into())))
        );
        assert_eq!(split_language("EN"), Some(("en".into(), None)));
        assert_eq!(split_language("english"), None);
        assert_eq!(split_language("de-CH-x"), None);
    }

    #[test]
    fn later_text_layers_win_field_by_field() {
        let base = TextStyle {
            font_size: Some(8.0),
            color: Some("#ff0000".into()),
            ..Default::default()
        };
        let top = TextStyle {
            font_size: Some(12.0),
            ..Default::default()
        };
        let merged = merge_text(&[Some(&base), Some(&top)]);
        assert_eq!(merged.font_size, Some(12.0));
        assert_eq!(merged.color.as_deref(), Some("#ff0000"));
    }

    #[test]
    fn dash_presets_scale_with_width() {
        let dash = Dash {
            preset: Some(DashPreset::Dashed),
            pattern: None,
            phase: None,
        };
        assert_eq!(dash_lengths(&dash, 0.5), Some((vec![1.5, 1.0], 0.0)));
    }
}
