//! The SVG check, case by case: each hostile shape of issue 14 (items 1, 4
//! and 8) and each way out of the document, against ordinary SVGs that
//! must keep passing.

use base64::Engine as _;

use super::*;
use crate::validate::image::raster::tests::{encoded, png_header, rgba_png};
use crate::validate::image::ImageKind;

const NS: &str = "http://www.w3.org/2000/svg";

/// An SVG document around `body`.
fn svg(body: &str) -> String {
    format!("<svg xmlns='{NS}' xmlns:xlink='http://www.w3.org/1999/xlink' width='10' height='10'>{body}</svg>")
}

fn check_svg(text: &str) -> Result<Inspected, ImageError> {
    check(text.as_bytes(), &Limits::default())
}

fn check_with(text: &str, limits: &Limits) -> Result<Inspected, ImageError> {
    check(text.as_bytes(), limits)
}

/// The innermost error of a refusal.
fn cause(text: &str) -> ImageError {
    check_svg(text).unwrap_err().cause().clone()
}

fn data_uri(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// `depth` `<svg>`s nested inside the root (issue 14 item 1's shape).
fn nested_svgs(depth: usize) -> String {
    format!(
        "<svg xmlns='{NS}' width='10' height='10'>{}<rect width='5' height='5'/>{}",
        "<svg width='10' height='10'>".repeat(depth),
        "</svg>".repeat(depth + 1)
    )
}

#[test]
fn an_ordinary_svg_passes_with_usvgs_size() {
    let found = check_svg(&svg("<rect width='5' height='5' fill='red'/>")).unwrap();
    assert_eq!((found.width, found.height), (10.0, 10.0));
    let view_box = format!("<svg xmlns='{NS}' viewBox='0 0 60 30'><circle r='4'/></svg>");
    let found = check_svg(&view_box).unwrap();
    assert_eq!((found.width, found.height), (60.0, 30.0));
    assert_eq!(found.decoded_bytes, 0);
}

#[test]
fn the_issue_svg_nested_700_deep_is_refused() {
    assert_eq!(
        check_svg(&nested_svgs(700)),
        Err(ImageError::SvgTooDeep { limit: 64 })
    );
}

#[test]
fn nesting_up_to_the_limit_passes_and_one_more_is_refused() {
    // The root is level 1, the rect one below the innermost svg.
    assert!(check_svg(&nested_svgs(62)).is_ok());
    assert_eq!(
        check_svg(&nested_svgs(63)),
        Err(ImageError::SvgTooDeep { limit: 64 })
    );
}

#[test]
fn the_deepest_svg_allowed_converts_on_a_small_stack() {
    // Validation also runs on tokio's blocking threads (2 MiB) when the
    // render queue is full. A quarter of that is enough for the whole check
    // at the depth limit, with every level a `use` of a group holding a
    // clip path.
    let mut body = String::from("<clipPath id='c'><rect width='1' height='1'/></clipPath>");
    body.push_str("<g id='g0' clip-path='url(#c)'><rect width='1' height='1'/></g>");
    for level in 1..31 {
        body.push_str(&format!(
            "<g id='g{level}' clip-path='url(#c)'><use href='#g{}'/></g>",
            level - 1
        ));
    }
    let text = svg(&body);
    let result = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(move || check_svg(&text).map(|_| ()))
        .unwrap()
        .join()
        .expect("no stack overflow");
    assert_eq!(result, Ok(()));
}

#[test]
fn a_chain_of_uses_counts_as_nesting() {
    // Flat in the XML, but each `use` copies the group before it.
    let mut body = String::from("<g id='g0'><rect width='1' height='1'/></g>");
    for level in 1..200 {
        body.push_str(&format!(
            "<g id='g{level}'><use href='#g{}'/></g>",
            level - 1
        ));
    }
    assert_eq!(cause(&svg(&body)), ImageError::SvgTooDeep { limit: 64 });
}

#[test]
fn a_chain_of_clip_paths_counts_as_nesting_from_attributes_and_style_rules() {
    let mut attributes = String::new();
    let mut rules = String::new();
    let mut by_rule = String::new();
    for level in 0..200 {
        let next = level + 1;
        attributes.push_str(&format!(
            "<clipPath id='c{level}' clip-path='url(#c{next})'><rect width='1' height='1'/></clipPath>"
        ));
        rules.push_str(&format!("#k{level} {{ clip-path: url(#k{next}) }}\n"));
        by_rule.push_str(&format!(
            "<clipPath id='k{level}'><rect width='1' height='1'/></clipPath>"
        ));
    }
    let attributes = svg(&format!(
        "{attributes}<rect clip-path='url(#c0)' width='5' height='5'/>"
    ));
    assert_eq!(cause(&attributes), ImageError::SvgTooDeep { limit: 64 });
    let styled = svg(&format!(
        "<style>{rules}</style>{by_rule}<rect style='clip-path: url(#k0)' width='5' height='5'/>"
    ));
    assert_eq!(cause(&styled), ImageError::SvgTooDeep { limit: 64 });
}

#[test]
fn a_use_bomb_is_refused_by_its_expanded_element_count() {
    // 10 levels of 10 uses each: 10^10 elements once expanded, 110 written.
    let mut body = String::from("<g id='l0'><rect width='1' height='1'/></g>");
    for level in 1..=10 {
        let uses = format!("<use href='#l{}'/>", level - 1).repeat(10);
        body.push_str(&format!("<g id='l{level}'>{uses}</g>"));
    }
    assert_eq!(
        cause(&svg(&body)),
        ImageError::SvgTooManyElements { limit: 100_000 }
    );
}

#[test]
fn markers_count_once_per_vertex() {
    let marker = format!(
        "<marker id='m'>{}</marker>",
        "<rect width='1' height='1'/>".repeat(20)
    );
    let points = |n: usize| {
        (0..n)
            .map(|i| format!("{i},{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let few = svg(&format!(
        "{marker}<polyline marker-mid='url(#m)' points='{}'/>",
        points(100)
    ));
    assert!(check_svg(&few).is_ok());
    // Inherited from a group, as markers are.
    let many = svg(&format!(
        "{marker}<g marker-mid='url(#m)'><polyline points='{}'/></g>",
        points(10_000)
    ));
    assert_eq!(
        cause(&many),
        ImageError::SvgTooManyElements { limit: 100_000 }
    );
}

#[test]
fn a_mask_counts_once_per_element_using_it() {
    let mask = format!(
        "<mask id='m'>{}</mask>",
        "<rect width='1' height='1'/>".repeat(1_000)
    );
    let users = "<rect mask='url(#m)' width='1' height='1'/>".repeat(200);
    assert_eq!(
        cause(&svg(&format!("{mask}{users}"))),
        ImageError::SvgTooManyElements { limit: 100_000 }
    );
    let few_users = "<rect mask='url(#m)' width='1' height='1'/>".repeat(20);
    assert!(check_svg(&svg(&format!("{mask}{few_users}"))).is_ok());
}

#[test]
fn text_is_bounded_per_element_and_in_all() {
    let text = |chars: usize| format!("<text id='t' y='5'>{}</text>", "W".repeat(chars));
    assert!(check_svg(&svg(&text(10_000))).is_ok());
    assert_eq!(
        cause(&svg(&text(10_001))),
        ImageError::SvgTextElementTooLong { limit: 10_000 }
    );
    // Eleven full ones, or one copied by `use`, exceed the total.
    assert_eq!(
        cause(&svg(&text(10_000).repeat(11))),
        ImageError::SvgTooMuchText { limit: 100_000 }
    );
    let copied = format!("{}{}", text(5_000), "<use href='#t'/>".repeat(20));
    assert_eq!(
        cause(&svg(&copied)),
        ImageError::SvgTooMuchText { limit: 100_000 }
    );
    // tspans count with their text element.
    let spans = format!(
        "<text y='5'>{}</text>",
        "<tspan>WWWWWWWWWW</tspan>".repeat(1_001)
    );
    assert_eq!(
        cause(&svg(&spans)),
        ImageError::SvgTextElementTooLong { limit: 10_000 }
    );
}

#[test]
fn filters_count_each_primitive_once_per_element_they_apply_to() {
    let filter = |primitives: usize| {
        format!(
            "<filter id='f'>{}</filter>",
            "<feGaussianBlur stdDeviation='2'/>".repeat(primitives)
        )
    };
    let users = |n: usize| "<rect filter='url(#f)' width='5' height='5'/>".repeat(n);
    assert!(check_svg(&svg(&format!("{}{}", filter(2), users(5)))).is_ok());
    // A filter defined but never used costs nothing.
    assert!(check_svg(&svg(&filter(50))).is_ok());
    assert!(check_svg(&svg(
        &"<rect filter='blur(2)' width='5' height='5'/>".repeat(10)
    ))
    .is_ok());
    for refused in [
        format!("{}{}", filter(1), users(11)),
        format!("{}{}", filter(11), users(1)),
        format!(
            "{}<g id='g'>{}</g>{}",
            filter(1),
            users(2),
            "<use href='#g'/>".repeat(5)
        ),
        format!(
            "<style>rect {{ filter: url(#f) }}</style>{}{}",
            filter(1),
            "<rect width='5' height='5'/>".repeat(11)
        ),
        // Filter functions are primitives too.
        "<rect filter='blur(2) drop-shadow(1 1 2 black)' width='5' height='5'/>".repeat(6),
    ] {
        assert_eq!(
            cause(&svg(&refused)),
            ImageError::SvgTooManyFilters { limit: 10 },
            "{refused}"
        );
    }
}

#[test]
fn a_reference_loop_is_refused() {
    let looped =
        svg("<g id='a'><use href='#b'/></g><g id='b'><use href='#a'/></g><use href='#a'/>");
    assert_eq!(cause(&looped), ImageError::SvgReferenceCycle);
}

#[test]
fn references_to_an_own_ancestor_pass_where_usvg_drops_them() {
    // A use inside what it copies, a pattern's content naming the pattern,
    // a marker drawing itself: usvg breaks each loop.
    assert!(check_svg(&svg(
        "<g id='a'><rect width='1' height='1'/><use href='#a'/></g>"
    ))
    .is_ok());
    let pattern = svg(
        "<pattern id='p' width='2' height='2'><rect fill='url(#p)' width='1' height='1'/></pattern>\
         <rect fill='url(#p)' width='5' height='5'/>",
    );
    assert!(check_svg(&pattern).is_ok());
    let marker = format!(
        "<svg xmlns='{NS}' width='10' height='10' marker-end='url(#m)'>\
         <marker id='m'><path d='M0 0 L1 1'/></marker><path d='M0 0 L5 5'/></svg>"
    );
    assert!(check_svg(&marker).is_ok());
}

#[test]
fn a_fill_a_patterns_content_inherits_back_into_the_pattern_is_a_loop() {
    // usvg follows this one without end: the render thread's stack overflowed.
    let pattern = format!(
        "<svg xmlns='{NS}' width='10' height='10' fill='url(#p)'>\
         <pattern id='p' width='2' height='2'><rect width='1' height='1'/></pattern>\
         <rect width='5' height='5'/></svg>"
    );
    assert_eq!(
        check_svg(&pattern).unwrap_err().cause(),
        &ImageError::SvgReferenceCycle
    );
}

#[test]
fn every_reference_out_of_the_document_is_refused() {
    for href in [
        "file:///etc/passwd",
        "../secret.png",
        "http://example.com/a.png",
        "https://example.com/a.png",
        "/etc/hosts",
        "logo.png",
        "ftp://x/y.png",
    ] {
        for element in [
            format!("<image href='{href}' width='5' height='5'/>"),
            format!("<image xlink:href='{href}' width='5' height='5'/>"),
            format!("<use href='{href}#x'/>"),
            format!("<a href='{href}'><rect width='1' height='1'/></a>"),
            format!("<filter id='f'><feImage href='{href}'/></filter>"),
        ] {
            let err = check_svg(&svg(&element)).unwrap_err();
            assert!(
                matches!(err.cause(), ImageError::SvgExternal { .. }),
                "{element}: {err:?}"
            );
            assert!(err.to_string().contains("at line 1, column"), "{err}");
        }
    }
}

#[test]
fn urls_out_of_the_document_are_refused_in_attributes_and_styles() {
    for body in [
        "<rect fill='url(http://example.com/p.svg#p)' width='1' height='1'/>",
        "<rect style='fill: url(file:///x.svg#p)' width='1' height='1'/>",
        "<style>rect { filter: url(../f.svg#f) }</style><rect width='1' height='1'/>",
    ] {
        assert!(
            matches!(cause(&svg(body)), ImageError::SvgExternal { .. }),
            "{body}"
        );
    }
}

#[test]
fn an_image_must_embed_its_picture() {
    assert_eq!(
        cause(&svg(
            "<rect id='r' width='1' height='1'/><image href='#r' width='5' height='5'/>"
        )),
        ImageError::SvgImageNotEmbedded
    );
    assert_eq!(
        cause(&svg("<filter id='f'><feImage href='#nothing'/></filter>")),
        ImageError::SvgMissingReference {
            id: "nothing".into()
        }
    );
}

#[test]
fn the_issue_entity_bomb_is_refused() {
    let mut dtd = String::from("<!ENTITY a0 \"lollollollollollollollollollol\">");
    for level in 1..10 {
        dtd.push_str(&format!(
            "<!ENTITY a{level} \"{}\">",
            format!("&a{};", level - 1).repeat(10)
        ));
    }
    let bomb = format!(
        "<?xml version='1.0'?><!DOCTYPE svg [{dtd}]><svg xmlns='{NS}'><text>&a9;</text></svg>"
    );
    assert_eq!(
        check_svg(&bomb),
        Err(ImageError::SvgEntities {
            limit: 15 * 1024 * 1024
        })
    );
}

#[test]
fn malformed_xml_is_refused_with_the_parsers_reason() {
    for broken in [
        format!("<svg xmlns='{NS}'><rect></svg>"),
        format!("<svg xmlns='{NS}'><rect width='1' width='2'/></svg>"),
        format!("<svg xmlns='{NS}'>&undeclared;</svg>"),
        format!("<svg xmlns='{NS}'"),
    ] {
        assert!(
            matches!(check_svg(&broken), Err(ImageError::SvgMalformed(_))),
            "{broken}"
        );
    }
}

#[test]
fn what_usvg_refuses_is_refused() {
    let no_svg_root = format!("<g xmlns='{NS}'><rect width='1' height='1'/></g>");
    assert!(matches!(
        check_svg(&no_svg_root),
        Err(ImageError::SvgUnreadable(_))
    ));
    let zero = format!("<svg xmlns='{NS}' width='0' height='0'/>");
    assert!(matches!(
        check_svg(&zero),
        Err(ImageError::SvgUnreadable(_))
    ));
}

#[test]
fn the_issue_png_of_60000_squared_wrapped_in_an_svg_is_refused_from_its_header() {
    let png = png_header(60_000, 60_000);
    let wrapped = svg(&format!(
        "<image href='{}' width='10' height='10'/>",
        data_uri("image/png", &png)
    ));
    assert_eq!(
        cause(&wrapped),
        ImageError::SvgEmbedsTooManyPixels { limit: 40_000_000 }
    );
    // One level deeper: the PNG inside an SVG inside the SVG.
    let twice = svg(&format!(
        "<image href='{}' width='10' height='10'/>",
        data_uri("image/svg+xml", wrapped.as_bytes())
    ));
    let err = check_svg(&twice).unwrap_err();
    assert_eq!(
        err.cause(),
        &ImageError::SvgEmbedsTooManyPixels { limit: 40_000_000 }
    );
    assert_eq!(
        err.to_string().matches("the <image> at line 1").count(),
        2,
        "{err}"
    );
}

#[test]
fn embedded_rasters_share_one_pixel_budget_and_are_decoded() {
    let png = encoded(image::ImageFormat::Png, 30, 20);
    let one = format!(
        "<image href='{}' width='5' height='5'/>",
        data_uri("image/png", &png)
    );
    let limits = Limits {
        image_pixels: 1_000,
        ..Limits::default()
    };
    let found = check_with(&svg(&one), &limits).unwrap();
    assert_eq!(found.decoded_bytes, 30 * 20 * 3);
    let err = check_with(&svg(&one.repeat(2)), &limits).unwrap_err();
    assert_eq!(
        err.cause(),
        &ImageError::SvgEmbedsTooManyPixels { limit: 1_000 }
    );
    // Each raster format, and `text/plain` sniffed as usvg does.
    for (format, mime) in [
        (image::ImageFormat::Jpeg, "image/jpeg"),
        (image::ImageFormat::Gif, "image/gif"),
        (image::ImageFormat::WebP, "image/webp"),
        (image::ImageFormat::Png, "text/plain"),
    ] {
        let bytes = encoded(format, 8, 8);
        let body = format!(
            "<image href='{}' width='5' height='5'/>",
            data_uri(mime, &bytes)
        );
        assert!(check_svg(&svg(&body)).is_ok(), "{mime}");
    }
}

#[test]
fn a_corrupt_embedded_raster_is_refused() {
    let png = encoded(image::ImageFormat::Png, 30, 20);
    let body = format!(
        "<image href='{}' width='5' height='5'/>",
        data_uri("image/png", &png[..png.len() / 2])
    );
    assert!(matches!(
        cause(&svg(&body)),
        ImageError::Corrupt { format: "PNG", .. }
    ));
}

#[test]
fn embedded_data_must_be_what_its_mime_type_says() {
    let gif = encoded(image::ImageFormat::Gif, 4, 4);
    let mislabelled = format!(
        "<image href='{}' width='5' height='5'/>",
        data_uri("image/png", &gif)
    );
    assert_eq!(
        cause(&svg(&mislabelled)),
        ImageError::SvgEmbedsMislabelled {
            mime: "image/png".into(),
            found: Some(ImageKind::Gif)
        }
    );
    let bmp = format!(
        "<image href='{}' width='5' height='5'/>",
        data_uri("image/bmp", b"BM")
    );
    assert_eq!(
        cause(&svg(&bmp)),
        ImageError::SvgEmbedsUnsupported {
            mime: "image/bmp".into()
        }
    );
    let svgz = format!(
        "<image href='{}' width='5' height='5'/>",
        data_uri("image/svg+xml", &[0x1f, 0x8b, 8, 0, 0, 0])
    );
    assert_eq!(cause(&svg(&svgz)), ImageError::SvgCompressed);
    assert_eq!(
        cause(&svg(
            "<image href='data:image/png;base64,%%%' width='5' height='5'/>"
        )),
        ImageError::SvgBadDataUri
    );
}

#[test]
fn embedded_svgs_are_checked_like_the_outer_one() {
    let inner = svg("<rect width='1' height='1'/>");
    let mut doc = inner.clone();
    for _ in 0..5 {
        doc = svg(&format!(
            "<image href='{}' width='5' height='5'/>",
            data_uri("image/svg+xml", doc.as_bytes())
        ));
    }
    assert!(check_svg(&doc).is_ok());
    // Their nesting adds up with the outer document's: 12 levels each
    // (the root, 10 groups, the image), 6 documents deep.
    let mut deep = inner;
    for _ in 0..6 {
        deep = svg(&format!(
            "{}<image href='{}' width='5' height='5'/>{}",
            "<g>".repeat(10),
            data_uri("image/svg+xml", deep.as_bytes()),
            "</g>".repeat(10)
        ));
    }
    assert_eq!(
        check_svg(&deep).unwrap_err().cause(),
        &ImageError::SvgTooDeep { limit: 64 }
    );
    // A bad reference inside is found too, and both elements are named.
    let leaking = svg(&format!(
        "<image href='{}' width='5' height='5'/>",
        data_uri(
            "image/svg+xml",
            svg("<use href='http://x/y.svg#a'/>").as_bytes()
        )
    ));
    let err = check_svg(&leaking).unwrap_err();
    assert!(matches!(err.cause(), ImageError::SvgExternal { .. }));
    assert!(err.to_string().contains("the <use>"), "{err}");
}

#[test]
fn percent_encoded_embedded_svgs_decode_as_usvg_decodes_them() {
    let inner = "%3Csvg xmlns='http://www.w3.org/2000/svg' width='2' height='2'%3E%3Crect width='1' height='1'/%3E%3C/svg%3E";
    let body = format!("<image href=\"data:image/svg+xml,{inner}\" width='5' height='5'/>");
    assert!(check_svg(&svg(&body)).is_ok());
    // The issue's `%aé` inside an SVG: not an SVG, refused, no panic.
    let body = "<image href=\"data:image/svg+xml,%aé&lt;svg/>\" width='5' height='5'/>";
    assert!(matches!(
        cause(&svg(body)),
        ImageError::SvgMalformed(_) | ImageError::SvgUnreadable(_)
    ));
}

#[test]
fn costly_style_selectors_are_refused() {
    // A selector that backtracks through every combination of ancestors.
    let deep = format!(
        "{}<rect width='1' height='1'/>{}",
        "<g>".repeat(60),
        "</g>".repeat(60)
    );
    let rule = format!("x {}{{ fill: red }}", "g ".repeat(12));
    assert_eq!(
        cause(&svg(&format!("<style>{rule}</style>{deep}"))),
        ImageError::SvgStyleTooCostly
    );
    // Ordinary class rules on many elements pass.
    let rules: String = (0..100)
        .map(|i| format!(".c{i} {{ fill: #{i:06} }}\n"))
        .collect();
    let shapes = "<rect class='c7' width='1' height='1'/>".repeat(2_000);
    assert!(check_svg(&svg(&format!("<style>{rules}</style>{shapes}"))).is_ok());
}

#[test]
fn an_illustrator_style_svg_passes() {
    let text = r##"<?xml version="1.0" encoding="utf-8"?>
<!-- Generator: Adobe Illustrator 24.0.0, SVG Export Plug-In . SVG Version: 6.00 Build 0)  -->
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [
	<!ENTITY ns_svg "http://www.w3.org/2000/svg">
	<!ENTITY ns_xlink "http://www.w3.org/1999/xlink">
]>
<svg version="1.1" xmlns="&ns_svg;" xmlns:xlink="&ns_xlink;" x="0px" y="0px" viewBox="0 0 200 100">
<style type="text/css">
	.st0{fill:url(#SVGID_1_);}
	.st1{clip-path:url(#SVGID_2_);fill:#FFFFFF;}
</style>
<defs><clipPath id="SVGID_2_"><rect width="200" height="100"/></clipPath></defs>
<linearGradient id="SVGID_1_" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="200" y2="0">
	<stop offset="0" style="stop-color:#FFFFFF"/><stop offset="1" style="stop-color:#000000"/>
</linearGradient>
<linearGradient id="SVGID_3_" xlink:href="#SVGID_1_"/>
<g><rect class="st0" width="200" height="100"/><path class="st1" d="M10,10h50v50z"/></g>
<a xlink:href="#top"><text x="5" y="90">Label</text></a>
</svg>"##;
    let found = check_svg(text).unwrap();
    assert_eq!((found.width, found.height), (200.0, 100.0));
}

#[test]
fn transparency_is_found_where_the_pdf_exporter_would_write_it() {
    use image::ImageFormat as F;
    let embed = |mime: &str, bytes: &[u8]| {
        format!(
            "<image width='5' height='5' href='{}'/>",
            data_uri(mime, bytes)
        )
    };
    let gradient = |stop_opacity: &str| {
        format!(
            "<linearGradient id='g'><stop offset='0' stop-color='red' stop-opacity='{stop_opacity}'/>\
             <stop offset='1' stop-color='blue'/></linearGradient><rect width='5' height='5' fill='url(#g)'/>"
        )
    };
    let opaque = [
        "<rect width='5' height='5' fill='red' stroke='blue'/>".to_string(),
        "<clipPath id='c'><rect width='3' height='3'/></clipPath>\
         <rect width='5' height='5' clip-path='url(#c)'/>"
            .to_string(),
        gradient("1"),
        "<text x='1' y='8'>Label</text>".to_string(),
        embed("image/png", &encoded(F::Png, 4, 4)),
        embed("image/jpeg", &encoded(F::Jpeg, 4, 4)),
        embed(
            "image/svg+xml",
            svg("<rect width='5' height='5'/>").as_bytes(),
        ),
    ];
    for body in &opaque {
        assert!(!check_svg(&svg(body)).unwrap().transparent, "{body}");
    }
    let transparent = [
        "<rect width='5' height='5' opacity='0.5'/>".to_string(),
        "<rect width='5' height='5' fill-opacity='0.5'/>".to_string(),
        "<rect width='5' height='5' fill='none' stroke='red' stroke-opacity='0.2'/>".to_string(),
        "<g opacity='0.9'><rect width='5' height='5'/></g>".to_string(),
        gradient("0"),
        "<mask id='m'><rect width='3' height='3' fill='white'/></mask>\
         <rect width='5' height='5' mask='url(#m)'/>"
            .to_string(),
        "<filter id='f'><feGaussianBlur stdDeviation='1'/></filter>\
         <rect width='5' height='5' filter='url(#f)'/>"
            .to_string(),
        "<rect width='5' height='5' style='mix-blend-mode: multiply'/>".to_string(),
        "<pattern id='p' width='2' height='2' patternUnits='userSpaceOnUse'>\
         <rect width='1' height='1' opacity='0.5'/></pattern><rect width='5' height='5' fill='url(#p)'/>"
            .to_string(),
        // A clip path whose child is clipped itself is drawn as a soft mask.
        "<clipPath id='a'><rect width='2' height='2'/></clipPath>\
         <clipPath id='c'><rect width='3' height='3' clip-path='url(#a)'/></clipPath>\
         <rect width='5' height='5' clip-path='url(#c)'/>"
            .to_string(),
        embed("image/png", &rgba_png(4, 4)),
        embed(
            "image/svg+xml",
            svg("<rect width='5' height='5' opacity='0.5'/>").as_bytes(),
        ),
    ];
    for body in &transparent {
        assert!(check_svg(&svg(body)).unwrap().transparent, "{body}");
    }
}
