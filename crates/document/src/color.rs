//! Colours as a request and the runtime configuration write them
//! (`#RRGGBB` or `#RGB`). At the bottom of the crate, below `config` (whose
//! colour keys are checked at start) and `style` (which resolves an
//! element's colours), so that both parse them the one way.

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    pub const BLACK: Rgb = Rgb(0, 0, 0);

    /// Parses `#RRGGBB` or `#RGB`, any case.
    pub fn parse(text: &str) -> Option<Rgb> {
        let hex = text.strip_prefix('#')?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let digit = |i: usize| u8::from_str_radix(&hex[i..i + 1], 16).ok();
        match hex.len() {
            6 => {
                let v = u32::from_str_radix(hex, 16).ok()?;
                Some(Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8))
            }
            3 => Some(Rgb(digit(0)? * 17, digit(1)? * 17, digit(2)? * 17)),
            _ => None,
        }
    }

    pub fn hex(&self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse_long_and_short_forms_in_any_case() {
        assert_eq!(Rgb::parse("#1A4fa0"), Some(Rgb(0x1a, 0x4f, 0xa0)));
        assert_eq!(Rgb::parse("#fA0"), Some(Rgb(0xff, 0xaa, 0x00)));
        assert_eq!(Rgb::parse("1a4fa0"), None);
        assert_eq!(Rgb::parse("#12345"), None);
        assert_eq!(Rgb::parse("#ggg"), None);
        assert_eq!(Rgb::parse("#+12"), None);
    }
}
