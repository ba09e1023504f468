//! Raster images (PNG, JPEG, GIF, WebP): sized from their header, then
//! decoded once with the decoders Typst uses (the `image` crate's, with
//! Typst's allocation limit), so that whatever the compile would fail on
//! fails here, as API-002 naming the image.
//!
//! The decoded pixels are dropped at once. Typst decodes the image again at
//! compile: its decode is memoised (comemo), but an entry put there by
//! validation would stay until renders age it out, and a stream of requests
//! that validate but never render (another element invalid, the queue full)
//! would pin their decoded images meanwhile. What validation keeps is the
//! fact: the image decodes, has these dimensions and needs this many bytes
//! decoded ([`super::Inspected`]), and [`super::verdicts`] keeps it by the
//! bytes' hash. The extra decode, 40 megapixels: a PNG 70-85 ms against a
//! 470-560 ms render, a JPEG ~55 ms against ~60 ms (examples/image_cost.rs).

use std::io::Cursor;

use image::codecs::gif::GifDecoder;
use image::codecs::jpeg::JpegDecoder;
use image::codecs::png::PngDecoder;
use image::codecs::webp::WebPDecoder;
use image::{DynamicImage, ImageDecoder, ImageResult};

use super::{gif, ImageError, ImageKind, Inspected};

/// Checks one raster image against `pixel_limit` and decodes it.
pub fn check(kind: ImageKind, bytes: &[u8], pixel_limit: u64) -> Result<Inspected, ImageError> {
    // The header first: an image too large is refused before any decoding.
    let size = imagesize::blob_size(bytes).map_err(|_| ImageError::Header)?;
    check_pixels(size.width as u64, size.height as u64, pixel_limit)?;
    if kind == ImageKind::Gif {
        gif::frames_fit_screen(bytes)?;
    }
    let decoded = decode(kind, bytes, pixel_limit)?;
    Ok(Inspected {
        width: size.width as f64,
        height: size.height as f64,
        decoded_bytes: decoded.bytes,
        transparent: decoded.has_alpha,
    })
}

/// Refuses an image without pixels or with more than `limit`.
pub fn check_pixels(width: u64, height: u64, limit: u64) -> Result<(), ImageError> {
    if width == 0 || height == 0 {
        return Err(ImageError::NoPixels);
    }
    let pixels = width.saturating_mul(height);
    if pixels > limit {
        return Err(ImageError::TooManyPixels { pixels, limit });
    }
    Ok(())
}

/// What decoding found: the decoded size in bytes, and whether the pixels
/// have an alpha channel (the PDF exporter then writes a soft mask, which
/// is transparency: PDF/A-1 forbids it).
struct Decoded {
    bytes: u64,
    has_alpha: bool,
}

/// Decodes as Typst's `RasterImage::new` does. The decoder's own header is
/// checked against the pixel limit again before it allocates (it may read a
/// size other than `imagesize` did, say from a second JPEG frame header).
fn decode(kind: ImageKind, bytes: &[u8], pixel_limit: u64) -> Result<Decoded, ImageError> {
    let cursor = Cursor::new(bytes);
    let decoded = match kind {
        ImageKind::Png => decode_with(PngDecoder::new(cursor), pixel_limit),
        ImageKind::Jpg => decode_with(JpegDecoder::new(cursor), pixel_limit),
        ImageKind::Gif => decode_with(GifDecoder::new(cursor), pixel_limit),
        ImageKind::Webp => decode_with(WebPDecoder::new(cursor), pixel_limit),
        ImageKind::Svg => unreachable!("an SVG is not a raster"),
    };
    decoded.map_err(|e| match e {
        Decode::Pixels(e) => e,
        Decode::Image(e) => ImageError::Corrupt {
            format: kind.name(),
            reason: e.to_string(),
        },
    })
}

enum Decode {
    Pixels(ImageError),
    Image(image::ImageError),
}

impl From<image::ImageError> for Decode {
    fn from(e: image::ImageError) -> Self {
        Decode::Image(e)
    }
}

fn decode_with<D: ImageDecoder>(
    decoder: ImageResult<D>,
    pixel_limit: u64,
) -> Result<Decoded, Decode> {
    let mut decoder = decoder?;
    // Typst reads the ICC profile first and ignores its errors.
    let _ = decoder.icc_profile();
    decoder.set_limits(image::Limits::default())?;
    let (width, height) = decoder.dimensions();
    check_pixels(width.into(), height.into(), pixel_limit).map_err(Decode::Pixels)?;
    let bytes = decoder.total_bytes();
    // The exporter asks the decoded image, as here, whether it has alpha.
    let has_alpha = DynamicImage::from_decoder(decoder)?.color().has_alpha();
    Ok(Decoded { bytes, has_alpha })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A real image of `kind`, `width` x `height`, encoded by the `image`
    /// crate (noise, so that it compresses like a photo, not like a blank).
    pub fn encoded(format: image::ImageFormat, width: u32, height: u32) -> Vec<u8> {
        let mut state = 0x2545_f491_u32;
        let pixels = image::RgbImage::from_fn(width, height, |_, _| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let [r, g, b, _] = state.to_le_bytes();
            image::Rgb([r, g, b])
        });
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(pixels)
            .write_to(&mut out, format)
            .unwrap();
        out.into_inner()
    }

    /// A PNG with an alpha channel (RGBA, half transparent red).
    pub fn rgba_png(width: u32, height: u32) -> Vec<u8> {
        let pixels = image::RgbaImage::from_pixel(width, height, image::Rgba([255, 0, 0, 128]));
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgba8(pixels)
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    /// A PNG's chunk, with its CRC.
    pub fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut chunk = (data.len() as u32).to_be_bytes().to_vec();
        chunk.extend_from_slice(kind);
        chunk.extend_from_slice(data);
        let crc = crc32(&chunk[4..]);
        chunk.extend_from_slice(&crc.to_be_bytes());
        chunk
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    /// A PNG header (signature and IHDR) claiming `width` x `height`, 1-bit grey.
    pub fn png_header(width: u32, height: u32) -> Vec<u8> {
        let mut ihdr = width.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[1, 0, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend(png_chunk(b"IHDR", &ihdr));
        png
    }

    fn check_png(bytes: &[u8]) -> Result<Inspected, ImageError> {
        check(ImageKind::Png, bytes, 40_000_000)
    }

    #[test]
    fn each_raster_format_decodes() {
        use image::ImageFormat as F;
        for (format, kind) in [
            (F::Png, ImageKind::Png),
            (F::Jpeg, ImageKind::Jpg),
            (F::Gif, ImageKind::Gif),
            (F::WebP, ImageKind::Webp),
        ] {
            let bytes = encoded(format, 30, 20);
            assert_eq!(ImageKind::sniff(&bytes), Some(kind));
            let inspected = check(kind, &bytes, 40_000_000).unwrap();
            assert_eq!(
                (inspected.width, inspected.height),
                (30.0, 20.0),
                "{kind:?}"
            );
            assert!(inspected.decoded_bytes >= 30 * 20 * 3, "{kind:?}");
        }
    }

    #[test]
    fn an_alpha_channel_after_decoding_is_transparency() {
        use image::ImageFormat as F;
        let transparent = |kind, bytes: &[u8]| check(kind, bytes, 40_000_000).unwrap().transparent;
        assert!(!transparent(ImageKind::Png, &encoded(F::Png, 4, 4)));
        assert!(!transparent(ImageKind::Jpg, &encoded(F::Jpeg, 4, 4)));
        assert!(transparent(ImageKind::Png, &rgba_png(4, 4)));
        // The GIF decoder always yields RGBA, as Typst sees it too.
        assert!(transparent(ImageKind::Gif, &encoded(F::Gif, 4, 4)));
    }

    #[test]
    fn pixels_are_counted_from_the_header_before_decoding() {
        // 60,000 x 60,000 would take 3.6 GB decoded; only the header exists.
        let err = check_png(&png_header(60_000, 60_000)).unwrap_err();
        assert_eq!(
            err,
            ImageError::TooManyPixels {
                pixels: 3_600_000_000,
                limit: 40_000_000
            }
        );
        assert_eq!(
            check_png(&png_header(0, 10)).unwrap_err(),
            ImageError::NoPixels
        );
    }

    #[test]
    fn a_truncated_png_is_corrupt() {
        let png = encoded(image::ImageFormat::Png, 40, 40);
        for cut in [png.len() / 2, png.len() - 12, 40] {
            let err = check_png(&png[..cut]).unwrap_err();
            assert!(
                matches!(err, ImageError::Corrupt { format: "PNG", .. }),
                "cut at {cut}: {err:?}"
            );
        }
    }

    #[test]
    fn a_png_with_a_bad_crc_is_corrupt() {
        let mut png = encoded(image::ImageFormat::Png, 40, 40);
        let idat = png.windows(4).position(|w| w == b"IDAT").unwrap();
        let len = u32::from_be_bytes(png[idat - 4..idat].try_into().unwrap()) as usize;
        png[idat + 4 + len] ^= 0xff; // first CRC byte
        let err = check_png(&png).unwrap_err();
        assert!(err.to_string().contains("CRC"), "{err}");
    }

    #[test]
    fn a_png_with_a_broken_zlib_stream_is_corrupt() {
        let mut png = png_header(40, 40);
        png.extend(png_chunk(b"IDAT", b"\x78\x9c this is not deflate data"));
        png.extend(png_chunk(b"IEND", b""));
        assert!(matches!(
            check_png(&png),
            Err(ImageError::Corrupt { format: "PNG", .. })
        ));
    }

    #[test]
    fn garbage_after_a_valid_png_header_is_corrupt() {
        let mut png = png_header(40, 40);
        png.extend_from_slice(&[0x5a; 300]);
        assert!(matches!(
            check_png(&png),
            Err(ImageError::Corrupt { format: "PNG", .. })
        ));
    }

    #[test]
    fn a_corrupt_jpeg_gif_or_webp_is_refused() {
        use image::ImageFormat as F;
        for (format, kind) in [
            (F::Jpeg, ImageKind::Jpg),
            (F::Gif, ImageKind::Gif),
            (F::WebP, ImageKind::Webp),
        ] {
            let bytes = encoded(format, 40, 40);
            let mut broken = bytes[..bytes.len().min(40)].to_vec();
            broken.extend_from_slice(&[0xa5; 64]);
            let err = check(kind, &broken, 40_000_000).unwrap_err();
            assert!(
                matches!(
                    err,
                    ImageError::Corrupt { .. }
                        | ImageError::Header
                        | ImageError::GifFrameOutsideScreen { .. }
                ),
                "{kind:?}: {err:?}"
            );
        }
    }

    #[test]
    fn a_gif_frame_larger_than_its_screen_is_refused_before_decoding() {
        let bytes = gif::tests::gif((1, 1), gif::tests::at(0, 0, 60_000, 60_000));
        let err = check(ImageKind::Gif, &bytes, 40_000_000).unwrap_err();
        assert!(
            matches!(err, ImageError::GifFrameOutsideScreen { .. }),
            "{err:?}"
        );
    }
}
