//! Code 128 symbol characters read back from bars: what a printer's own
//! Code 128 command must be told to draw exactly the symbol an encoder
//! drew (the encoder's choice of start code and code-set switches decides
//! the bars, and a printer left to choose may choose differently).

/// Start codes, by the code set they start.
pub const START_A: u8 = 103;
pub const START_B: u8 = 104;
pub const START_C: u8 = 105;
/// Function and code-set characters (their meaning depends on the set).
pub const FNC1: u8 = 102;
pub const CODE_A: u8 = 101;
pub const CODE_B: u8 = 100;
pub const CODE_C: u8 = 99;
pub const SHIFT: u8 = 98;

/// The bar and space widths (modules) of symbol characters 0 to 105,
/// ISO/IEC 15417 table 1, six digits each; every character is 11 modules.
const PATTERNS: [u32; 106] = [
    212222, 222122, 222221, 121223, 121322, 131222, 122213, 122312, 132212, 221213, 221312, 231212,
    112232, 122132, 122231, 113222, 123122, 123221, 223211, 221132, 221231, 213212, 223112, 312131,
    311222, 321122, 321221, 312212, 322112, 322211, 212123, 212321, 232121, 111323, 131123, 131321,
    112313, 132113, 132311, 211313, 231113, 231311, 112133, 112331, 132131, 113123, 113321, 133121,
    313121, 211331, 231131, 213113, 213311, 213131, 311123, 311321, 331121, 312113, 312311, 332111,
    314111, 221411, 431111, 111224, 111422, 121124, 121421, 141122, 141221, 112214, 112412, 122114,
    122411, 142112, 142211, 241211, 221114, 413111, 241112, 134111, 111242, 121142, 121241, 114212,
    124112, 124211, 411212, 421112, 421211, 212141, 214121, 412121, 111143, 111341, 131141, 114113,
    114311, 411113, 411311, 113141, 114131, 311141, 411131, 211412, 211214, 211232,
];
/// The stop character's widths: 13 modules, ending in a bar.
const STOP: [bool; 13] = [
    true, true, false, false, false, true, true, true, false, true, false, true, true,
];

/// The symbol characters of a Code 128 symbol's bars (one module per
/// entry, no quiet zone), from its start code to its last data character:
/// the check character and the stop character are read, verified and left
/// out. `None` when the bars are not a valid Code 128 symbol.
pub fn symbol_characters(bars: &[bool]) -> Option<Vec<u8>> {
    let body = bars.len().checked_sub(STOP.len())?;
    if body % 11 != 0 || body < 22 || bars[body..] != STOP {
        return None;
    }
    let characters = bars[..body]
        .chunks(11)
        .map(character)
        .collect::<Option<Vec<u8>>>()?;
    let (check, rest) = characters.split_last()?;
    let (start, data) = rest.split_first()?;
    if !(START_A..=START_C).contains(start) || data.iter().any(|&c| c >= START_A) {
        return None;
    }
    let sum = data
        .iter()
        .enumerate()
        .fold(u32::from(*start), |sum, (i, &c)| {
            sum + (i as u32 + 1) * u32::from(c)
        });
    (sum % 103 == u32::from(*check)).then(|| rest.to_vec())
}

/// The symbol character whose pattern these 11 modules are.
fn character(modules: &[bool]) -> Option<u8> {
    let mut widths = 0u32;
    let mut run = 0u32;
    for (i, &dark) in modules.iter().enumerate() {
        run += 1;
        if modules.get(i + 1) != Some(&dark) {
            widths = widths * 10 + run;
            run = 0;
        }
    }
    if !modules.first().copied().unwrap_or(false) {
        return None;
    }
    PATTERNS.iter().position(|&p| p == widths).map(|i| i as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{encode, Options, Symbol, Symbology};

    fn bars(symbology: Symbology, content: &str) -> Vec<bool> {
        match encode(symbology, content, &Options::default()).unwrap() {
            Symbol::Linear { bars } => bars,
            _ => unreachable!(),
        }
    }

    #[test]
    fn reads_back_what_the_encoder_chose() {
        // Digits only: set C, two digits a character.
        assert_eq!(
            symbol_characters(&bars(Symbology::Code128, "123456")),
            Some(vec![START_C, 12, 34, 56])
        );
        // Letters: set B, the character minus 32.
        assert_eq!(
            symbol_characters(&bars(Symbology::Code128, "AB")),
            Some(vec![START_B, 33, 34])
        );
        // GS1-128: FNC1 first, digits in set C.
        let gs1 = symbol_characters(&bars(Symbology::Gs1_128, "(00)123456789012345675")).unwrap();
        assert_eq!(&gs1[..3], &[START_C, FNC1, 0]);
    }

    #[test]
    fn refuses_what_is_not_a_valid_symbol() {
        let mut b = bars(Symbology::Code128, "AB");
        assert!(symbol_characters(&b[..b.len() - 1]).is_none());
        // A flipped module breaks a pattern (or the check character).
        b[15] = !b[15];
        assert!(symbol_characters(&b).is_none());
        // Another symbology's bars.
        assert!(symbol_characters(&bars(Symbology::Code39, "AB")).is_none());
        assert!(symbol_characters(&[]).is_none());
    }
}
