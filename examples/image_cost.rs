//! What image validation costs, measured against the render it protects.
//! Each mode prints one line; times are wall clock on this machine.
//!
//! - `raster [MEGAPIXELS [jpeg]]` (default 40, PNG): a photo-like image in
//!   a one-image document; validation (Base64 and full decode included)
//!   and then the render of the same document, in one run, and the ratio.
//! - `stack DEPTH KIB`: validates and renders the nested-`<svg>`
//!   image `DEPTH` deep on a thread with a `KIB` KiB stack (the depth limit
//!   raised to let it through); the process aborts on a stack overflow, so
//!   run it once per point (`for k in ...; do ... || echo overflow; done`).
//!   `stack DEPTH KIB heavy`: each level a clipped, masked, transparent group.
//! - `elements N`: an SVG of N rects; validation and render times.
//!
//! Run: `cargo run --example image_cost --release -- raster` (or the dev
//! profile, which optimises dependencies).

use std::io::Cursor;
use std::time::Instant;

use base64::Engine as _;
use labelpress::config::RuntimeConfig;
use labelpress::engine::fonts::FontOptions;
use labelpress::Engine;

fn engine(config: RuntimeConfig) -> Engine {
    let fonts = FontOptions {
        system: false,
        dir: None,
    };
    Engine::new(config, &fonts, None)
}

/// A document with one image element showing `data`.
fn document(data: &str) -> Vec<u8> {
    serde_json::json!({"pages": [{"size": "a4", "elements": [
        {"type": "image", "x": 10, "y": 10, "width": 150, "height": 100, "data": data}
    ]}]})
    .to_string()
    .into_bytes()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Smooth gradients with a little noise: compresses like a scan or a
/// photo saved as PNG, so that 40 MP fit the 15 MiB `image_bytes`.
fn photo(megapixels: u32, seed: u32, format: image::ImageFormat) -> Vec<u8> {
    let width = 8_000 * megapixels / 40;
    let height = 5_000;
    let mut state = 0x9e37_79b9_u32 ^ seed;
    let pixels = image::RgbImage::from_fn(width, height, |x, y| {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let noise = u8::from(state & 63 == 0);
        image::Rgb([
            (x * 255 / width) as u8 ^ noise,
            (y * 255 / height) as u8,
            ((x + y) / 32) as u8,
        ])
    });
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(pixels)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

fn raster(megapixels: u32, format: image::ImageFormat) {
    let engine = engine(RuntimeConfig::default());
    labelpress::engine::threads::become_render_thread();
    // Warm the engine (fonts, prelude) on a small document first.
    let small = document(&b64(&photo(1, 0, format)));
    engine.render(&engine.validate(&small).unwrap()).unwrap();
    // A new image each round: Typst memoises decodes, and a server sees
    // each image once.
    for round in 0..6 {
        let png = photo(megapixels, round + 1, format);
        let body = document(&b64(&png));
        let started = Instant::now();
        let doc = engine.validate(&body).expect("valid");
        let validated = started.elapsed();
        let started = Instant::now();
        let rendered = engine.render(&doc).expect("renders");
        let render = started.elapsed();
        println!(
            "raster {megapixels} MP, {} bytes {format:?}, round {round}: validation {:.0} ms, render {:.0} ms, validation/render {:.2} (PDF {} bytes)",
            png.len(),
            validated.as_secs_f64() * 1e3,
            render.as_secs_f64() * 1e3,
            validated.as_secs_f64() / render.as_secs_f64(),
            rendered.bytes.len()
        );
    }
}

fn nested_svg(depth: usize) -> String {
    format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>{}<rect width='5' height='5'/>{}",
        "<svg width='10' height='10'>".repeat(depth),
        "</svg>".repeat(depth + 1)
    )
}

/// `depth` levels of groups, each clipped, masked and half transparent:
/// the most the renderer does per level.
fn heavy_svg(depth: usize) -> String {
    format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'>\
         <clipPath id='c'><rect width='8' height='8'/></clipPath>\
         <mask id='m'><rect width='10' height='10' fill='white'/></mask>{}<rect width='5' height='5'/>{}</svg>",
        "<g clip-path='url(#c)' mask='url(#m)' opacity='0.9' transform='rotate(1)'>".repeat(depth - 3),
        "</g>".repeat(depth - 3)
    )
}

fn stack(depth: usize, kib: usize, heavy: bool) {
    let mut config = RuntimeConfig::default();
    config.limits.svg_depth = 100_000;
    let engine = engine(config);
    let svg = if heavy {
        heavy_svg(depth)
    } else {
        nested_svg(depth)
    };
    let body = document(&format!(
        "data:image/svg+xml;base64,{}",
        b64(svg.as_bytes())
    ));
    let outcome = std::thread::Builder::new()
        .stack_size(kib * 1024)
        .spawn(move || {
            labelpress::engine::threads::become_render_thread();
            let doc = engine.validate(&body).map_err(|e| e.to_string())?;
            engine.render(&doc).map(|_| ()).map_err(|e| e.to_string())
        })
        .unwrap()
        .join()
        .unwrap();
    println!("stack depth {depth} on {kib} KiB: {outcome:?}");
}

fn elements(n: usize) {
    let rects: String = (0..n)
        .map(|i| {
            format!(
                "<rect x='{}' y='{}' width='1' height='1'/>",
                i % 300,
                i / 300
            )
        })
        .collect();
    let svg =
        format!("<svg xmlns='http://www.w3.org/2000/svg' width='300' height='400'>{rects}</svg>");
    let body = document(&format!(
        "data:image/svg+xml;base64,{}",
        b64(svg.as_bytes())
    ));
    let engine = engine(RuntimeConfig::default());
    labelpress::engine::threads::become_render_thread();
    let started = Instant::now();
    let doc = engine.validate(&body).expect("valid");
    let validated = started.elapsed();
    let started = Instant::now();
    engine.render(&doc).expect("renders");
    let render = started.elapsed();
    println!(
        "elements {n} ({} bytes SVG): validation {:.0} ms, render {:.0} ms",
        svg.len(),
        validated.as_secs_f64() * 1e3,
        render.as_secs_f64() * 1e3
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| {
        args.get(i)
            .map_or(default, |a| a.parse().expect("a number"))
    };
    match args.first().map(String::as_str) {
        Some("raster") | None => raster(
            number(1, 40) as u32,
            match args.get(2).map(String::as_str) {
                Some("jpeg") => image::ImageFormat::Jpeg,
                _ => image::ImageFormat::Png,
            },
        ),
        Some("stack") => stack(
            number(1, 700),
            number(2, 2048),
            args.get(3).is_some_and(|a| a == "heavy"),
        ),
        Some("elements") => elements(number(1, 100_000)),
        Some(other) => panic!("unknown mode {other}"),
    }
}
