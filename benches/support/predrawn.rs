//! The hand-written label's barcodes, pre-drawn (shared by the `render`
//! and `instructions` benches).

/// `source` with the variant's barcodes added as pre-drawn SVG images, each
/// at its element's place and size: the hand-written label as the issue 33
/// baseline defines it ("barcodes pre-drawn"). The SVGs are drawn here,
/// before anything is timed, by labelpress's own encoder (any generator
/// would do: the baseline pays for placing the drawings, not drawing them).
pub fn with_predrawn_barcodes(source: &str, doc: &serde_json::Value) -> String {
    use labelpress::barcode::{to_svg, Options, Symbology};
    let mut out = source.to_string();
    let elements = doc["pages"][0]["elements"].as_array().into_iter().flatten();
    for e in elements.filter(|e| e["type"] == "barcode") {
        let symbology: Symbology = e["format"].as_str().unwrap().parse().unwrap();
        let svg = to_svg(
            symbology,
            e["content"].as_str().unwrap(),
            &Options::default(),
        )
        .unwrap();
        let literal = svg.replace('\\', "\\\\").replace('"', "\\\"");
        let mm = |key: &str| e[key].as_f64().unwrap();
        out.push_str(&format!(
            "#place(dx: {}mm, dy: {}mm, image(bytes(\"{literal}\"), format: \"svg\", width: {}mm, height: {}mm, fit: \"contain\"))\n",
            mm("x"),
            mm("y"),
            mm("width"),
            mm("height")
        ));
    }
    out
}
