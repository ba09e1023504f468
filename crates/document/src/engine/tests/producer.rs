//! The producer and metadata on PDFs the engine renders (`crate::pdf`
//! patches them in; its own tests use PDFs written by hand): hostile text in
//! every field round-trips, every object still parses, and Info and XMP
//! agree.

use serde_json::{json, Value};

use super::ENGINE;
use crate::pdf::inspect::{every_object, info, uris, xml_escape, xmp};
use crate::pdf::{set_producer, ProducerError};

/// Issue 14 item 7's link URL: XMP end tag, parentheses, `%`, `>>`, `endobj`.
const URL: &str = "https://x.test/</rdf:RDF>?a=(b)&c=%25>>endobj";
const PRODUCER: &str = "P >> endobj </rdf:RDF> (x) \\ % <?xpacket end=\"w\"?> & \"q\" 'a' )(";

/// Issue 14 item 7's strings, one per field, plus syntax each field could break.
fn hostile() -> Value {
    json!({
        "title": "A >> endobj B",
        "author": "9 0 obj /Length 5 stream",
        "subject": "Order </rdf:RDF> 123",
        "creator": "50% (unbalanced ( \\ endstream trailer startxref %%EOF",
        "producer": PRODUCER,
    })
}

fn render(metadata: Value, profile: Option<&str>) -> Vec<u8> {
    let mut settings = json!({ "metadata": metadata });
    if let Some(profile) = profile {
        settings["profile"] = json!(profile);
    }
    let request = json!({"settings": settings, "pages": [{"size": "a6", "elements": [
        {"type": "text", "x": 10, "y": 10, "content": "Hello"},
        {"type": "link", "x": 10, "y": 20, "width": 10, "height": 5,
         "target": {"type": "url", "url": URL}, "alt": "Link"}
    ]}]});
    match ENGINE.render_bytes(&serde_json::to_vec(&request).unwrap()) {
        Ok(rendered) => rendered.bytes,
        Err(e) => panic!("render failed: {e}"),
    }
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn hostile_metadata_round_trips_and_every_object_still_parses() {
    let pdf = render(hostile(), None);
    every_object(&pdf);
    let info = info(&pdf).expect("an Info dictionary");
    assert_eq!(info["Title"], "A >> endobj B");
    assert_eq!(info["Author"], "9 0 obj /Length 5 stream");
    assert_eq!(info["Subject"], "Order </rdf:RDF> 123");
    assert_eq!(
        info["Creator"],
        "50% (unbalanced ( \\ endstream trailer startxref %%EOF"
    );
    assert_eq!(info["Producer"], PRODUCER);
    assert_eq!(uris(&pdf), [URL]);

    let xmp = xmp(&pdf);
    assert_eq!(count(&xmp, "<pdf:Producer>"), 1, "{xmp}");
    assert!(
        xmp.contains(&format!(
            "<pdf:Producer>{}</pdf:Producer>",
            xml_escape(PRODUCER)
        )),
        "{xmp}"
    );
    assert!(xmp.contains("Order &lt;/rdf:RDF&gt; 123"), "{xmp}");
    assert_eq!(count(&xmp, "</rdf:RDF>"), 1, "{xmp}");
}

#[test]
fn pdf_a_profiles_get_the_producer_in_info_and_xmp_alike() {
    for profile in ["pdfa-2b", "pdfa-ua1", "pdfa-4"] {
        let pdf = render(hostile(), Some(profile));
        every_object(&pdf);
        let xmp = xmp(&pdf);
        assert_eq!(count(&xmp, "<pdf:Producer>"), 1, "{profile}: {xmp}");
        assert!(xmp.contains(&xml_escape(PRODUCER)), "{profile}: {xmp}");
        match (profile, info(&pdf)) {
            // PDF/A-4 forbids the Info dictionary (ISO 19005-4, 6.1.3).
            ("pdfa-4", None) => {}
            ("pdfa-4", Some(info)) => panic!("PDF/A-4 with Info: {info:?}"),
            (_, Some(info)) => assert_eq!(info["Producer"], PRODUCER, "{profile}"),
            (_, None) => panic!("{profile}: no Info dictionary"),
        }
    }
}

#[test]
fn a_non_ascii_producer_is_utf16_in_info_and_utf8_in_xmp() {
    let producer = "Étiquettes ✓ (Zürich) 🏷";
    let pdf = render(json!({ "producer": producer }), None);
    every_object(&pdf);
    assert_eq!(info(&pdf).unwrap()["Producer"], producer);
    assert!(xmp(&pdf).contains(&format!("<pdf:Producer>{producer}</pdf:Producer>")));
}

#[test]
fn a_rendered_pdf_has_its_producer_and_is_not_patched_twice() {
    let twice = set_producer(render(json!({}), None), "p").unwrap_err();
    assert_eq!(twice, ProducerError::Xmp("already has a pdf:Producer"));
}
