//! Any bytes as one image's data (PNG, JPEG, GIF, WebP, SVG or garbage):
//! validation must answer with an image or an error, never a panic, an
//! abort (a stack overflow) or a long stall.
//!
//! The bytes go straight to the image check, after the `data` field has been
//! decoded, so every iteration exercises the format parsers.

#![no_main]

use std::sync::LazyLock;

use labelpress::config::Limits;
use labelpress::validate::check_image;
use libfuzzer_sys::fuzz_target;

static LIMITS: LazyLock<Limits> = LazyLock::new(|| Limits {
    // Small limits keep each iteration fast; the rules are the same.
    image_pixels: 4_000_000,
    svg_elements: 10_000,
    ..Limits::default()
});

fuzz_target!(|data: &[u8]| {
    // Validation runs the parsers under `catch_unwind` by design (a panic in
    // another crate's parser refuses the image, API-002); libfuzzer-sys's
    // hook would abort on such a caught panic. A panic that escapes
    // `check_image` still reaches the harness, which aborts on it.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    if let Ok(image) = check_image(data.to_vec(), &LIMITS) {
        assert!(image.width > 0.0 && image.height > 0.0);
    }
});
