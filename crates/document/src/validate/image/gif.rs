//! GIF frames against the logical screen, read from the block structure
//! without decoding any pixels.
//!
//! A decoder sizes its canvas from the logical screen but a frame's buffer
//! from the frame's own descriptor, which may claim up to 65,535 x 65,535:
//! the pixel limit, checked on the screen, says nothing about it.

use super::ImageError;

/// Where a frame lies on the screen, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameBox {
    pub left: u16,
    pub top: u16,
    pub width: u16,
    pub height: u16,
}

/// Checks that every frame the block structure shows lies inside the
/// logical screen. Data that is not a block structure (truncated, garbage
/// after the frames) ends the walk: whether it decodes is the decoder's call.
pub fn frames_fit_screen(bytes: &[u8]) -> Result<(), ImageError> {
    let mut blocks = Blocks { bytes, pos: 6 };
    let (Some(screen_width), Some(screen_height), Some(flags)) =
        (blocks.u16(), blocks.u16(), blocks.u8())
    else {
        return Err(ImageError::Header);
    };
    blocks.skip(2); // background colour index, pixel aspect ratio
    blocks.skip_color_table(flags);
    let mut frame = 0;
    while let Some(introducer) = blocks.u8() {
        match introducer {
            EXTENSION => {
                blocks.skip(1); // label
                blocks.skip_sub_blocks();
            }
            IMAGE => {
                let Some(found) = blocks.frame_box() else {
                    return Ok(());
                };
                let fits = u32::from(found.left) + u32::from(found.width)
                    <= u32::from(screen_width)
                    && u32::from(found.top) + u32::from(found.height) <= u32::from(screen_height);
                if !fits {
                    return Err(ImageError::GifFrameOutsideScreen {
                        frame,
                        found,
                        screen_width,
                        screen_height,
                    });
                }
                let Some(flags) = blocks.u8() else {
                    return Ok(());
                };
                blocks.skip_color_table(flags);
                blocks.skip(1); // LZW minimum code size
                blocks.skip_sub_blocks();
                frame += 1;
            }
            _ => return Ok(()), // the trailer (0x3B), or not a block
        }
    }
    Ok(())
}

const EXTENSION: u8 = 0x21;
const IMAGE: u8 = 0x2C;

/// A cursor over the blocks; reads past the end give `None`.
struct Blocks<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Blocks<'_> {
    fn u8(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(byte)
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes([self.u8()?, self.u8()?]))
    }

    fn skip(&mut self, n: usize) {
        self.pos = self.pos.saturating_add(n);
    }

    /// A global or local colour table follows when bit 7 of its flags is set.
    fn skip_color_table(&mut self, flags: u8) {
        if flags & 0x80 != 0 {
            self.skip(3 << ((flags & 0x07) + 1));
        }
    }

    /// Data sub-blocks: a length byte, that many bytes, until a length of 0.
    fn skip_sub_blocks(&mut self) {
        while let Some(len) = self.u8() {
            if len == 0 {
                return;
            }
            self.skip(len.into());
        }
    }

    fn frame_box(&mut self) -> Option<FrameBox> {
        Some(FrameBox {
            left: self.u16()?,
            top: self.u16()?,
            width: self.u16()?,
            height: self.u16()?,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A two-colour GIF: a `screen` and one frame at `frame`, whose LZW data
    /// is a token (the walk never decodes it).
    pub fn gif(screen: (u16, u16), frame: FrameBox) -> Vec<u8> {
        let mut g = b"GIF89a".to_vec();
        g.extend_from_slice(&screen.0.to_le_bytes());
        g.extend_from_slice(&screen.1.to_le_bytes());
        g.extend_from_slice(&[0x80, 0, 0]); // global table of 2 colours
        g.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
        g.push(IMAGE);
        for v in [frame.left, frame.top, frame.width, frame.height] {
            g.extend_from_slice(&v.to_le_bytes());
        }
        g.push(0); // no local table
        g.extend_from_slice(&[2, 2, 0x4c, 0x01, 0]); // min code size 2, one sub-block
        g.push(0x3B);
        g
    }

    /// A frame's box.
    pub fn at(left: u16, top: u16, width: u16, height: u16) -> FrameBox {
        FrameBox {
            left,
            top,
            width,
            height,
        }
    }

    #[test]
    fn a_frame_inside_its_screen_passes() {
        assert_eq!(frames_fit_screen(&gif((4, 4), at(0, 0, 4, 4))), Ok(()));
        assert_eq!(frames_fit_screen(&gif((4, 4), at(2, 2, 2, 2))), Ok(()));
    }

    #[test]
    fn a_frame_larger_than_its_screen_is_refused() {
        let err = frames_fit_screen(&gif((1, 1), at(0, 0, 60_000, 60_000))).unwrap_err();
        assert!(matches!(
            err,
            ImageError::GifFrameOutsideScreen {
                frame: 0,
                screen_width: 1,
                ..
            }
        ));
        assert!(err.to_string().contains("60000x60000"), "{err}");
        // Inside in size, but placed across the edge.
        assert!(frames_fit_screen(&gif((4, 4), at(3, 0, 2, 2))).is_err());
    }

    #[test]
    fn later_frames_are_checked_too() {
        let mut two = gif((4, 4), at(0, 0, 4, 4));
        two.pop(); // trailer
        let second = gif((4, 4), at(0, 0, 400, 4));
        two.extend_from_slice(&second[19..]); // from its image descriptor on
        let err = frames_fit_screen(&two).unwrap_err();
        assert!(matches!(
            err,
            ImageError::GifFrameOutsideScreen { frame: 1, .. }
        ));
    }

    #[test]
    fn truncated_or_trailing_data_is_left_to_the_decoder() {
        let whole = gif((4, 4), at(0, 0, 4, 4));
        for cut in 13..whole.len() {
            assert_eq!(frames_fit_screen(&whole[..cut]), Ok(()), "cut at {cut}");
        }
        assert_eq!(frames_fit_screen(&whole[..8]), Err(ImageError::Header));
    }
}
