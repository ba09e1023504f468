//! Encode + SVG per symbology (peers, bwip-js: EAN-13 0.7 ms, Code 128
//! 1.3 ms, QR 9.4 ms, Data Matrix 1.9 ms, PDF417 3.3 ms, Aztec 4.9 ms,
//! MaxiCode 1.1 ms).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use labelpress::barcode::{self, Options, Symbology};

const CASES: &[(Symbology, &str)] = &[
    (Symbology::Ean13, "400638133393"),
    (Symbology::Code128, "LABELPRESS-0123456789"),
    (
        Symbology::Qr,
        "https://example.com/track?id=0123456789&carrier=labelpress",
    ),
    (Symbology::DataMatrix, "LP 0123456789 ABCDEFGHIJ"),
    (Symbology::Pdf417, "PDF417 labelpress benchmark 0123456789"),
    (Symbology::Aztec, "Aztec labelpress benchmark 0123456789"),
    (Symbology::MaxiCode, "MaxiCode labelpress 0123456789"),
];

fn encode_and_render(c: &mut Criterion) {
    let options = Options::default();
    for &(symbology, content) in CASES {
        c.bench_function(symbology.name(), |b| {
            b.iter(|| barcode::to_svg(black_box(symbology), black_box(content), &options).unwrap())
        });
    }
}

criterion_group!(benches, encode_and_render);
criterion_main!(benches);
