//! Document-level behaviour: metadata, profiles, output names, reproducibility.

use serde_json::json;

use crate::support::*;

fn doc(settings: serde_json::Value) -> serde_json::Value {
    json!({"settings": settings, "pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "Hello"},
        {"type": "link", "x": 10, "y": 20, "width": 10, "height": 5, "target": {"type": "url", "url": "https://example.com"}, "alt": "Example"}
    ]}]})
}

#[test]
fn metadata_reaches_the_info_dictionary_and_xmp() {
    let pdf = render(doc(json!({"metadata": {
        "title": "Label 42", "author": "Ops Team", "subject": "Shipping", "creator": "WMS 3", "producer": "Acme Printing", "language": "de-CH"
    }})));
    assert_eq!(pdf.meta("title"), "Label 42");
    assert_eq!(pdf.meta("author"), "Ops Team");
    assert_eq!(pdf.meta("subject"), "Shipping");
    assert_eq!(pdf.meta("creator"), "WMS 3");
    assert_eq!(pdf.meta("producer"), "Acme Printing");
    let xmp = pdf.xmp();
    assert!(xmp.contains("Acme Printing"), "producer in XMP: {xmp}");
    assert!(xmp.contains("de-CH"), "language in XMP: {xmp}");
}

#[test]
fn producer_defaults_to_labelpress() {
    let pdf = render(doc(json!({})));
    assert!(
        pdf.meta("producer").starts_with("labelpress "),
        "{}",
        pdf.meta("producer")
    );
    assert!(pdf.xmp().contains("labelpress "));
}

#[test]
fn every_profile_is_identified_in_the_xmp() {
    for (name, part, conformance) in [
        ("pdfa-1b", "1", "B"),
        ("pdfa-2b", "2", "B"),
        ("pdfa-2u", "2", "U"),
        ("pdfa-3b", "3", "B"),
        ("pdfa-3u", "3", "U"),
        ("pdfa-2a", "2", "A"),
        ("pdfa-3a", "3", "A"),
        ("pdfa-1a", "1", "A"),
        ("pdfa-4", "4", ""),
    ] {
        let pdf = render(doc(json!({"profile": name, "metadata": {"title": "T"}})));
        let xmp = pdf.xmp();
        assert!(
            xmp.contains(&format!("<pdfaid:part>{part}</pdfaid:part>"))
                || xmp.contains(&format!("pdfaid:part=\"{part}\"")),
            "{name}: part {part} in {xmp}"
        );
        if !conformance.is_empty() {
            assert!(
                xmp.contains(&format!(
                    "<pdfaid:conformance>{conformance}</pdfaid:conformance>"
                )) || xmp.contains(&format!("pdfaid:conformance=\"{conformance}\"")),
                "{name}: conformance {conformance} in {xmp}"
            );
        }
    }
    let ua = render(doc(
        json!({"profile": "pdfa-ua1", "metadata": {"title": "T"}}),
    ));
    assert!(
        ua.xmp().contains("pdfuaid"),
        "PDF/UA identification: {}",
        ua.xmp()
    );
}

#[test]
fn tags_are_written_only_when_needed_or_asked() {
    let plain = render_bytes(doc(json!({})));
    let tagged = render_bytes(doc(json!({"tagged": true})));
    let ua = render_bytes(doc(
        json!({"profile": "pdfa-ua1", "metadata": {"title": "T"}}),
    ));
    let has_tags = |b: &[u8]| b.windows(15).any(|w| w == b"/StructTreeRoot");
    assert!(!has_tags(&plain));
    assert!(has_tags(&tagged));
    assert!(has_tags(&ua));
}

#[test]
fn a_fixed_clock_makes_output_reproducible() {
    let body = serde_json::to_vec(&doc(json!({"metadata": {"title": "Same"}}))).unwrap();
    let document = ENGINE.validate(&body).unwrap();
    let at = time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    let a = ENGINE.render_at(&document, at).unwrap().bytes;
    let b = ENGINE.render_at(&document, at).unwrap().bytes;
    assert_eq!(a, b);
    let pdf = read_pdf(a);
    assert!(
        pdf.meta("creationDate").contains("20231114"),
        "{}",
        pdf.meta("creationDate")
    );
}

/// vendor/krilla/PATCHES.md: font programs are deflated through a memo
/// keyed by their bytes and the level, and every stream krilla writes is
/// deflated at a faster level than stock krilla's. The file must hold what
/// stock krilla writes, stream for stream once inflated, the first time
/// (the memo filled) and the next (the memo hit, the same bytes), for a
/// document of two fonts whose subsets are embedded; and cost little size.
#[test]
fn patched_krilla_writes_what_stock_krilla_writes_once_inflated() {
    let body = serde_json::to_vec(&json!({"pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "Memo 0123456789 \u{e9}t\u{e9}"},
        {"type": "text", "x": 10, "y": 20, "content": "Bold 42", "style": {"font_weight": "bold"}},
        {"type": "barcode", "x": 10, "y": 30, "width": 60, "height": 15, "format": "code128", "content": "SHIP0000123456789"}
    ]}]}))
    .unwrap();
    let document = ENGINE.validate(&body).unwrap();
    let at = time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    let stock = krilla::stream::with_stock_streams(|| ENGINE.render_at(&document, at))
        .unwrap()
        .bytes;
    let first = ENGINE.render_at(&document, at).unwrap().bytes;
    let again = ENGINE.render_at(&document, at).unwrap().bytes;
    assert!(
        first == again,
        "a memo hit differs from the export that filled it"
    );
    assert!(
        first != stock,
        "the streams are deflated at stock krilla's level"
    );
    let (inflated, stock_inflated) = (inflated_objects(&first), inflated_objects(&stock));
    let holds = |needle: &[u8]| {
        inflated.iter().any(|(_, head, body)| {
            [head.as_bytes(), body]
                .iter()
                .any(|b| contains_bytes(b, needle))
        })
    };
    assert!(
        holds(b"FontFile2") && holds(b" Tf") && holds(b"\0\x01\0\0"),
        "a font descriptor, the page's text and a TrueType program read back"
    );
    let ids = |objects: &[(lopdf::ObjectId, String, Vec<u8>)]| -> Vec<_> {
        objects.iter().map(|o| o.0).collect()
    };
    assert_eq!(ids(&inflated), ids(&stock_inflated), "the same objects");
    for (patched, stock) in inflated.iter().zip(&stock_inflated) {
        assert!(
            patched == stock,
            "object {:?} differs from stock krilla's once inflated: {} against {}",
            patched.0,
            patched.1,
            stock.1
        );
    }
    assert!(
        first.len() * 10 <= stock.len() * 11,
        "the faster level costs more than a tenth of the file: {} against {} bytes",
        first.len(),
        stock.len()
    );
    let embedded = first.windows(10).filter(|w| w == b"/FontFile2").count();
    assert_eq!(embedded, 2, "two embedded TrueType programs");
    let text = read_pdf(first).text(0);
    for line in ["Memo 0123456789 \u{e9}t\u{e9}", "Bold 42"] {
        assert!(text.contains(line), "{line:?} not read back from {text:?}");
    }
}

/// vendor/krilla/PATCHES.md: a render thread deflates every stream with
/// one deflate state, reset between streams. A reset state must write what
/// a new one writes: a document deflated on a fresh thread and on a thread
/// that deflated another document before is the same file (the memo
/// emptied in between, so that both deflate).
#[test]
fn a_reused_deflate_state_writes_what_a_new_one_writes() {
    let page = |text: &str, code: &str| {
        serde_json::to_vec(&json!({"pages": [{"size": "a6", "elements": [
            {"type": "text", "x": 10, "y": 10, "content": text},
            {"type": "barcode", "x": 10, "y": 30, "width": 60, "height": 15, "format": "code128", "content": code}
        ]}]}))
        .unwrap()
    };
    let at = time::OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    let render = |body: &[u8]| {
        comemo::evict(0);
        ENGINE
            .render_at(&ENGINE.validate(body).unwrap(), at)
            .unwrap()
            .bytes
    };
    let on_new_thread = |bodies: &[Vec<u8>]| {
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(labelpress::engine::threads::RENDER_STACK_BYTES)
                .spawn_scoped(scope, || bodies.iter().map(|b| render(b)).last().unwrap())
                .unwrap()
                .join()
                .unwrap()
        })
    };
    let wanted = page("Deflated once", "SHIP0000000000001");
    let before = page(
        &"A longer page before it, other glyphs: xyzXYZ ".repeat(20),
        "OTHER-42",
    );
    let fresh = on_new_thread(std::slice::from_ref(&wanted));
    let reused = on_new_thread(&[before, wanted]);
    assert!(fresh == reused, "a reused deflate state wrote another file");
    assert!(read_pdf(reused).text(0).contains("Deflated once"));
}

/// Every object of `pdf` by object id: printed, and a stream's content
/// inflated, its dictionary without `/Length` (the compressed length). The
/// document's id in XMP is left out: krilla derives it from a hash of the
/// file it writes.
fn inflated_objects(pdf: &[u8]) -> Vec<(lopdf::ObjectId, String, Vec<u8>)> {
    let mut doc = lopdf::Document::load_mem(pdf).unwrap();
    doc.decompress();
    doc.objects
        .iter_mut()
        .map(|(id, object)| match object {
            lopdf::Object::Stream(stream) => {
                stream.dict.remove(b"Length");
                let content = match String::from_utf8(stream.content.clone()) {
                    Ok(text) => ["xmpMM:InstanceID", "xmpMM:DocumentID"]
                        .iter()
                        .fold(text, |xmp, tag| without_element_text(&xmp, tag))
                        .into_bytes(),
                    Err(_) => stream.content.clone(),
                };
                (*id, format!("{:?}", stream.dict), content)
            }
            other => (*id, format!("{other:?}"), Vec::new()),
        })
        .collect()
}

/// `xml` with the text of every `<tag>...</tag>` element taken out.
fn without_element_text(xml: &str, tag: &str) -> String {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = String::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let text = start + open.len();
        out.push_str(&rest[..text]);
        rest = &rest[text..];
        rest = &rest[rest.find(&close).unwrap_or(0)..];
    }
    out.push_str(rest);
    out
}

#[test]
fn file_mode_names_the_download() {
    let body = serde_json::to_vec(&doc(
        json!({"output": {"mode": "file", "file_name": "../Label \"7\""}}),
    ))
    .unwrap();
    let rendered = ENGINE.render_bytes(&body).unwrap();
    assert_eq!(
        rendered.file_name.as_deref(),
        Some("..Label 7.pdf".trim_start_matches('.'))
    );
    let body = serde_json::to_vec(&doc(json!({"output": {"mode": "file"}}))).unwrap();
    let name = ENGINE.render_bytes(&body).unwrap().file_name.unwrap();
    assert!(
        name.starts_with("doc-")
            && name.ends_with(".pdf")
            && name.len() == "doc-MMDDHHmmssSSS.pdf".len(),
        "{name}"
    );
    let body = serde_json::to_vec(&doc(json!({"output": {"file_name": "ignored"}}))).unwrap();
    assert_eq!(
        ENGINE.render_bytes(&body).unwrap().file_name,
        None,
        "binary mode has no name"
    );
}

#[test]
fn many_distinct_documents_reuse_fixed_file_ids() {
    // Images use /img/N; rendering many documents with images must not run out of ids.
    for i in 0..50 {
        let pdf = render_bytes(page_with(
            50.0,
            50.0,
            json!([
                {"type": "image", "x": 1, "y": 1, "width": 5, "height": 5, "data": "dot.png"},
                {"type": "text", "x": 1, "y": 10, "content": format!("doc {i}")}
            ]),
        ));
        assert!(pdf.starts_with(b"%PDF-"));
    }
}

/// A one-image A6 page under `profile`.
fn image_doc(profile: &str, data: &str) -> serde_json::Value {
    json!({"settings": {"profile": profile, "metadata": {"title": "T"}},
    "pages": [{"size": "a6", "elements": [
        {"type": "image", "x": 10, "y": 10, "width": 20, "height": 20, "data": data, "alt": "Logo"}
    ]}]})
}

fn data_uri(mime: &str, bytes: &[u8]) -> String {
    use base64::Engine as _;
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A 4 x 4 PNG with an alpha channel (half transparent red).
fn rgba_png() -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 4, 4);
    encoder.set_color(png::ColorType::Rgba);
    let mut writer = encoder.write_header().unwrap();
    writer
        .write_image_data(&[255, 0, 0, 128].repeat(16))
        .unwrap();
    writer.finish().unwrap();
    out
}

#[test]
fn an_image_with_transparency_is_refused_under_pdfa_1_naming_it_and_renders_from_pdfa_2() {
    let veiled_svg = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>\
                      <rect width='5' height='5' fill='red' opacity='0.5'/></svg>";
    for data in [
        data_uri("image/png", &rgba_png()),
        data_uri("image/svg+xml", veiled_svg.as_bytes()),
    ] {
        for profile in ["pdfa-1b", "pdfa-1a"] {
            assert_violation(
                image_doc(profile, &data),
                "pages[0].elements[0].data",
                "PDF/A-1 does not allow transparency",
            );
        }
        let pdf = render(image_doc("pdfa-2b", &data));
        assert_eq!(pdf.page_count(), 1);
        assert!(
            !pdf.images(0).is_empty() || !pdf.drawings(0).is_empty(),
            "the image is drawn under PDF/A-2b"
        );
    }
    // Opaque images still render under PDF/A-1.
    let opaque = std::fs::read(fixtures().join("dot.png")).unwrap();
    let pdf = render(image_doc("pdfa-1b", &data_uri("image/png", &opaque)));
    assert_eq!(pdf.images(0).len(), 1);
}

#[test]
fn barcodes_under_accessible_profiles_carry_their_content_as_alternative_text() {
    for profile in ["pdfa-ua1", "pdfa-2a"] {
        let pdf = render_bytes(json!({
            "settings": {"profile": profile, "metadata": {"title": "Label", "language": "en"}},
            "pages": [{"size": "a6", "elements": [
                {"type": "barcode", "x": 10, "y": 10, "width": 60, "height": 20, "format": "code128", "content": "LP-4711"},
                {"type": "barcode", "x": 10, "y": 40, "width": 30, "height": 30, "format": "qrcode", "content": "https://example.com/t/9"}
            ]}]
        }));
        let check = pdfcheck(&pdf);
        assert_eq!(check["problems"], json!([]), "{profile}: {check}");
        let alts: Vec<&str> = check["alts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a.as_str())
            .collect();
        for content in ["LP-4711", "https://example.com/t/9"] {
            assert!(alts.contains(&content), "{profile}: {content} in {alts:?}");
        }
    }
}

/// Links with `alt`: header, element, text and shape links on two sheets.
fn links_with_alt(settings: serde_json::Value) -> serde_json::Value {
    let url = |u: &str| json!({"type": "url", "url": u});
    json!({"settings": settings,
    "header": {"height": 10, "elements": [
        {"type": "link", "x": 5, "y": 2, "width": 20, "height": 5, "target": url("https://example.com/home"), "alt": "Home"}
    ]},
    "pages": [
        {"size": "a6", "elements": [
            {"type": "link", "x": 10, "y": 20, "width": 30, "height": 8, "target": url("https://example.com/a"), "alt": "One (1)"},
            {"type": "text", "x": 10, "y": 40, "content": "zwei", "link": {"target": url("https://example.com/b"), "alt": "Zwei: Straße"}},
            {"type": "rect", "x": 10, "y": 60, "width": 10, "height": 10, "link": {"target": {"type": "page", "page": 2, "x": 0, "y": 0}, "alt": "To page 2"}}
        ]},
        {"size": "a6", "elements": [
            {"type": "line", "x1": 10, "y1": 30, "x2": 60, "y2": 30, "link": {"target": url("https://example.com/c"), "alt": "Drei"}}
        ]}
    ]})
}

/// Renders [`links_with_alt`], checks the file is clean and every link
/// annotation carries its alt text as `/Contents`, in order; returns the check.
fn check_link_contents(settings: serde_json::Value) -> serde_json::Value {
    let check = pdfcheck(&render_bytes(links_with_alt(settings)));
    assert_eq!(check["problems"], json!([]), "{check}");
    assert_eq!(
        check["link_contents"],
        json!([
            ["Home", "One (1)", "Zwei: Straße", "To page 2"],
            ["Home", "Drei"]
        ])
    );
    check
}

#[test]
fn a_links_alt_text_is_its_annotations_contents() {
    check_link_contents(json!({}));
    // A link without alt gets no /Contents.
    let mut request = links_with_alt(json!({}));
    request["pages"][1]["elements"][0]["link"]
        .as_object_mut()
        .unwrap()
        .remove("alt");
    let check = pdfcheck(&render_bytes(request));
    assert_eq!(check["link_contents"][1], json!(["Home", null]));
}

#[test]
fn under_pdf_ua_a_links_alt_text_is_also_its_structure_elements_alt() {
    let check = check_link_contents(json!({"profile": "pdfa-ua1", "metadata": {"title": "Links"}}));
    let mut alts: Vec<String> =
        serde_json::from_value(check["link_structure_alts"].clone()).unwrap();
    alts.sort();
    assert_eq!(
        alts,
        [
            "Drei",
            "Home",
            "Home",
            "One (1)",
            "To page 2",
            "Zwei: Straße"
        ]
    );
}
