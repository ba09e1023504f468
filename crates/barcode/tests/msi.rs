//! MSI has no zxing-cpp reader: its bars are compared module for module
//! with zint's (`zint -b 47 --vers=1`: MSI with one modulo-10 check digit).

use std::process::Command;

use labelpress_barcode::{self as barcode, Options, Symbol, Symbology};

fn ours(content: &str) -> String {
    let Symbol::Linear { bars } =
        barcode::encode(Symbology::Msi, content, &Options::default()).unwrap()
    else {
        panic!("MSI is linear")
    };
    bars.iter().map(|&b| if b { '1' } else { '0' }).collect()
}

/// zint's module row: `--dump` prints it as hex digits, 4 modules each.
fn zint(content: &str, len: usize) -> String {
    let out = Command::new("zint")
        .args(["-b", "47", "--vers=1", "--dump", "-d", content])
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run zint (Debian package `zint`, needed to check MSI): {e}")
        });
    assert!(
        out.status.success(),
        "zint failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().next().expect("one row");
    let bits: String = line
        .split_whitespace()
        // The last token may be a single nibble.
        .map(|h| {
            format!(
                "{:0width$b}",
                u32::from_str_radix(h, 16).unwrap(),
                width = 4 * h.len()
            )
        })
        .collect();
    bits[..len].to_string()
}

#[test]
fn msi_bars_match_zint() {
    for content in ["1234", "0", "9876543210", "1234567", "80523"] {
        let mine = ours(content);
        assert_eq!(mine, zint(content, mine.len()), "MSI {content}");
    }
}

#[test]
fn msi_has_start_check_digit_and_stop() {
    // 1234567 -> check digit 4; 8 digits x 12 modules + start 3 + stop 4.
    let bars = ours("1234567");
    assert_eq!(bars.len(), 3 + 8 * 12 + 4);
    assert!(bars.starts_with("110"));
    assert!(bars.ends_with("1001"));
    // Digit 4 (0100) just before the stop pattern.
    assert_eq!(&bars[bars.len() - 16..bars.len() - 4], "100110100100");
}
