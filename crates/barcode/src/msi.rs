//! MSI (Modified Plessey) with one modulo-10 check digit. rxing cannot write
//! it and the pattern is a few lines: each digit is four bits, most
//! significant first; a 1 bit is a wide bar + narrow space (`110`), a 0 bit
//! a narrow bar + wide space (`100`); start `110`, stop `1001`.

use super::linear::only;
use super::{check_len, BarcodeError, Symbol};

const NAME: &str = "msi";
/// No standard limit; long MSI symbols do not scan reliably anyway.
const MAX_DIGITS: usize = 64;

pub(crate) fn encode(content: &str) -> Result<Symbol, BarcodeError> {
    only(NAME, content, "digits 0-9", |c| c.is_ascii_digit())?;
    check_len(NAME, content, MAX_DIGITS, "digits")?;
    let mut bars = Vec::with_capacity(3 + 12 * (content.len() + 1) + 4);
    push(&mut bars, "110");
    let check = char::from(b'0' + mod10(content));
    for d in content.chars().chain(std::iter::once(check)) {
        let v = d as u8 - b'0';
        for bit in (0..4).rev() {
            push(&mut bars, if v >> bit & 1 == 1 { "110" } else { "100" });
        }
    }
    push(&mut bars, "1001");
    Ok(Symbol::Linear { bars })
}

/// MSI modulo 10 (Luhn): from the right, double every other digit starting
/// with the rightmost, add the digits of the products and the other digits.
pub(crate) fn mod10(digits: &str) -> u8 {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 0 {
                let p = d * 2;
                p / 10 + p % 10
            } else {
                d
            }
        })
        .sum();
    ((10 - sum % 10) % 10) as u8
}

fn push(bars: &mut Vec<bool>, pattern: &str) {
    bars.extend(pattern.bytes().map(|b| b == b'1'));
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_digit_of_the_spec_example() {
        // 1234567 -> check digit 4 (MSI modulo 10 worked example).
        assert_eq!(super::mod10("1234567"), 4);
    }
}
