//! Every symbology and option, encoded to SVG and read back by an
//! independent decoder (zxing-cpp): the decoded text must equal the input.

mod common;

use common::{decode_files, svg, workdir};

struct Case {
    symbology: &'static str,
    content: &'static str,
    opts: &'static [(&'static str, &'static str)],
    /// Expected decoded text (Plain mode); `None` = the content itself.
    text: Option<&'static str>,
    /// Expected zxing-cpp format name.
    format: &'static str,
}

const fn case(
    symbology: &'static str,
    content: &'static str,
    opts: &'static [(&'static str, &'static str)],
    format: &'static str,
) -> Case {
    Case {
        symbology,
        content,
        opts,
        text: None,
        format,
    }
}

fn cases() -> Vec<Case> {
    vec![
        // 1-D
        case("code128", "Hello, World! 123", &[], "Code128"),
        case(
            "code128",
            "ABC\tdef 0123456789",
            &[("margin", "10")],
            "Code128",
        ),
        Case {
            text: Some("4006381333931"),
            ..case("ean13", "400638133393", &[], "EAN13")
        },
        case("ean13", "4006381333931", &[("rotate", "90")], "EAN13"),
        Case {
            text: Some("96385074"),
            ..case("ean8", "9638507", &[], "EAN8")
        },
        // zxing-cpp 3 reports UPC-A as the EAN-13 it is (leading 0)...
        Case {
            text: Some("0036000291452"),
            ..case("upca", "03600029145", &[], "EAN13")
        },
        // ... and UPC-E expanded to its EAN-13 number.
        Case {
            text: Some("0012345000065"),
            ..case("upce", "0123456", &[], "UPCE")
        },
        case("code39", "CODE 39-TEST $/+%.", &[], "Code39"),
        case("code93", "Code 93 mixed case!", &[], "Code93"),
        Case {
            text: Some("A40156A"),
            ..case("codabar", "40156", &[], "Codabar")
        },
        case("codabar", "B12-34$5:6/7.8+9D", &[], "Codabar"),
        case("itf", "12345678", &[], "ITF"),
        Case {
            text: Some("15400141288763"),
            ..case(
                "itf14",
                "1540014128876",
                &[("bearer", "top_bottom"), ("thickness", "3")],
                "ITF",
            )
        },
        case(
            "itf14",
            "15400141288763",
            &[("bearer", "top_only"), ("quiet", "12")],
            "ITF",
        ),
        case(
            "itf14",
            "15400141288763",
            &[("bearer", "bottom_only"), ("rotate", "180")],
            "ITF",
        ),
        // Drawing options on a 1-D symbol.
        case(
            "code128",
            "colours",
            &[("fg", "000080"), ("bg", "#ffffe0"), ("m", "8")],
            "Code128",
        ),
        case(
            "code128",
            "forced size",
            &[("width", "600"), ("height", "120")],
            "Code128",
        ),
        case(
            "code128",
            "rotate 270",
            &[("rotate", "270"), ("margin", "10")],
            "Code128",
        ),
        // QR
        case("qr", "https://example.com/?q=labelpress", &[], "QRCode"),
        case("qrcode", "alias", &[], "QRCode"),
        case("qr", "ecl L", &[("ecl", "L")], "QRCode"),
        case("qr", "ecl Q", &[("ecl", "Q")], "QRCode"),
        case("qr", "ecl H", &[("ecl", "H"), ("version", "7")], "QRCode"),
        case("qr", "Grüße, 日本語", &[], "QRCode"),
        // Byte mode in ISO 8859-1, alphanumeric mode.
        case("qr", "Größe 20 €-frei: nein", &[], "QRCode"),
        case("qr", "Größe", &[], "QRCode"),
        case("qr", "LABEL-42 $%*+./:", &[], "QRCode"),
        case(
            "qr",
            "01234567890123456789",
            &[("rotate", "90"), ("margin", "4")],
            "QRCode",
        ),
        case(
            "qr",
            "sized",
            &[("width", "300"), ("fg", "#202020")],
            "QRCode",
        ),
        // Data Matrix
        case("datamatrix", "Data Matrix 123", &[], "DataMatrix"),
        case(
            "datamatrix",
            "rect shape",
            &[("shape", "rect")],
            "DataMatrix",
        ),
        case("datamatrix", "Ünïcödé ✓ text", &[], "DataMatrix"),
        case(
            "datamatrix",
            "0123456789012345678901234567890123456789012345678901234567890123456789",
            &[("rotate", "180")],
            "DataMatrix",
        ),
        // PDF417
        case("pdf417", "PDF417 default", &[], "PDF417"),
        case("pdf417", "PDF417 cols 3", &[("cols", "3")], "PDF417"),
        case(
            "pdf417",
            "rows and cols",
            &[("cols", "4"), ("rows", "10"), ("ecl", "4")],
            "PDF417",
        ),
        case("pdf417", "ecl 0", &[("ecl", "0")], "PDF417"),
        // zxing-cpp does not tell compact PDF417 apart.
        case("pdf417", "compact form", &[("compact", "true")], "PDF417"),
        case("pdf417", "Grüße 日本", &[], "PDF417"),
        // Aztec
        case("aztec", "Aztec default", &[], "Aztec"),
        case("aztec", "ecl 50", &[("ecl", "50")], "Aztec"),
        case("aztec", "full 6 layers", &[("layers", "6")], "Aztec"),
        case("aztec", "compact 3", &[("layers", "-3")], "Aztec"),
        case("aztec", "Grüße 日本", &[], "Aztec"),
        // MaxiCode (modes 2/3 checked in their own test)
        case(
            "maxicode",
            "MaxiCode mode 4 test 0123456789",
            &[],
            "MaxiCode",
        ),
        case("maxicode", "Mode 5 enhanced", &[("mode", "5")], "MaxiCode"),
        case(
            "maxicode",
            "margin and colours",
            &[("margin", "2"), ("fg", "101010"), ("bg", "fafafa")],
            "MaxiCode",
        ),
    ]
}

#[test]
fn every_symbology_and_option_decodes_to_its_input() {
    let dir = workdir("decode");
    let cases = cases();
    let mut paths = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let path = dir.join(format!("{i:02}-{}.svg", c.symbology));
        std::fs::write(&path, svg(c.symbology, c.content, c.opts)).unwrap();
        paths.push(path);
    }
    let decoded = decode_files(&paths, 3.0);
    let mut failures = Vec::new();
    for (c, path) in cases.iter().zip(&paths) {
        let got = &decoded[&path.display().to_string()];
        let want = c.text.unwrap_or(c.content);
        let ok = got.len() == 1 && got[0].text == want && normalise(&got[0].format) == c.format;
        if !ok {
            failures.push(format!(
                "{} {:?} {:?}: want {:?} ({}), got {:?}",
                c.symbology, c.content, c.opts, want, c.format, got
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// "Code 128" -> "Code128", "EAN-13" -> "EAN13".
fn normalise(format: &str) -> String {
    format.replace([' ', '-'], "")
}

const GS1_INPUT: &str = "(01)09501101530003(17)250131(10)AB-123(21)S/N1";
/// FNC1 first is implied by the identifier; GS only after (10), the one
/// variable-length element that is not last.
const GS1_PLAIN: &str = "01095011015300031725013110AB-123\u{1d}21S/N1";

#[test]
fn gs1_symbols_carry_fnc1_and_separators() {
    let dir = workdir("gs1");
    let cases = [
        ("gs1_128", GS1_INPUT, GS1_PLAIN, "]C1"),
        ("gs1_qr", GS1_INPUT, GS1_PLAIN, "]Q3"),
        ("gs1_datamatrix", GS1_INPUT, GS1_PLAIN, "]d2"),
        // '%' is data, not the QR alphanumeric-mode stand-in for GS.
        (
            "gs1_qr",
            "(01)09501101530003(10)AB%12",
            "010950110153000310AB%12",
            "]Q3",
        ),
        (
            "gs1_128",
            "(00)095011015300000003(3103)001250(15)251200",
            "00095011015300000003310300125015251200",
            "]C1",
        ),
        (
            "gs1_datamatrix",
            "(8005)000365(10)LOT7(21)XYZ",
            "8005000365\u{1d}10LOT7\u{1d}21XYZ",
            "]d2",
        ),
    ];
    let mut paths = Vec::new();
    for (i, (sym, input, _, _)) in cases.iter().enumerate() {
        let path = dir.join(format!("{i}-{sym}.svg"));
        std::fs::write(&path, svg(sym, input, &[])).unwrap();
        paths.push(path);
    }
    let decoded = decode_files(&paths, 3.0);
    let mut failures = Vec::new();
    for ((sym, input, plain, sid), path) in cases.iter().zip(&paths) {
        let got = &decoded[&path.display().to_string()];
        if got.len() != 1 || got[0].text != *plain || got[0].symbology_identifier != *sid {
            failures.push(format!("{sym} {input}: want {plain:?} {sid}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// (options, content, a text the decoded message must contain).
type MaxiCase = (
    &'static [(&'static str, &'static str)],
    &'static str,
    &'static str,
);

#[test]
fn maxicode_structured_carrier_modes_decode() {
    let dir = workdir("maxi");
    let cases: [MaxiCase; 2] = [
        (
            &[
                ("mode", "2"),
                ("postcode", "152382802"),
                ("country", "840"),
                ("service", "001"),
            ],
            "Secondary message",
            "152382802",
        ),
        (
            &[
                ("mode", "3"),
                ("postcode", "B1050"),
                ("country", "056"),
                ("service", "999"),
            ],
            "Mode three",
            "B1050",
        ),
    ];
    let mut paths = Vec::new();
    for (i, (opts, content, _)) in cases.iter().enumerate() {
        let path = dir.join(format!("{i}.svg"));
        std::fs::write(&path, svg("maxicode", content, opts)).unwrap();
        paths.push(path);
    }
    let decoded = decode_files(&paths, 4.0);
    let mut failures = Vec::new();
    for ((opts, content, postcode), path) in cases.iter().zip(&paths) {
        let got = &decoded[&path.display().to_string()];
        let ok = got.len() == 1 && got[0].text.contains(content) && got[0].text.contains(postcode);
        if !ok {
            failures.push(format!("{opts:?} {content}: got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// PDF417 without `ecl`: the level the standard recommends for the data
/// codewords (2 up to 40, 3 up to 160, 4 up to 320, 5 above), read back
/// from the symbol; a given level and a large fixed shape (padded, within
/// the 928 codewords) are kept. Lower-case text is one codeword per two
/// letters, so each length sits well inside its band.
#[test]
fn pdf417_error_correction_follows_the_data_length() {
    let dir = workdir("pdf417-ecl");
    let letters =
        |n: usize| -> String { (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect() };
    let cases: Vec<(String, Vec<(&str, &str)>, u32)> = vec![
        (letters(30), vec![], 2),
        (letters(200), vec![], 3),
        (letters(500), vec![], 4),
        (letters(1200), vec![], 5),
        (letters(200), vec![("ecl", "1")], 1),
        (
            "short".into(),
            vec![("cols", "10"), ("rows", "90"), ("ecl", "8")],
            8,
        ),
        ("narrow".into(), vec![("cols", "30"), ("ecl", "8")], 8),
    ];
    let mut paths = Vec::new();
    let mut svgs = Vec::new();
    for (i, (content, opts, _)) in cases.iter().enumerate() {
        let path = dir.join(format!("{i:02}-pdf417.svg"));
        let svg = svg("pdf417", content, opts);
        std::fs::write(&path, &svg).unwrap();
        paths.push(path);
        svgs.push(svg);
    }
    let decoded = decode_files(&paths, 3.0);
    for (((content, opts, level), path), svg) in cases.iter().zip(&paths).zip(&svgs) {
        let got = &decoded[&path.display().to_string()];
        assert_eq!(got.len(), 1, "{} chars {opts:?}: {got:?}", content.len());
        assert_eq!(&got[0].text, content, "{opts:?}");
        let reported = got[0].ec_level.as_deref().unwrap_or_default();
        assert_eq!(
            pdf417_level(svg, reported),
            Some(*level),
            "{} chars {opts:?}: zxing-cpp reports {reported}",
            content.len()
        );
    }
}

/// The PDF417 error-correction level behind zxing-cpp's report: it gives
/// the error-correction codewords (2^(level + 1)) as a truncated percentage
/// of the symbol's codewords, columns x rows, which the SVG's size gives
/// (17 modules per column plus 69, rows 3 modules tall). `None` unless
/// exactly one level matches.
fn pdf417_level(svg: &str, reported: &str) -> Option<u32> {
    let percent: u32 = reported.strip_suffix('%')?.parse().ok()?;
    let view_box = svg.split("viewBox=\"0 0 ").nth(1)?;
    let mut sides = view_box.split(['"', ' ']).map(|v| v.parse::<u32>().ok());
    let (width, height) = (sides.next()??, sides.next()??);
    let codewords = (width - 69) / 17 * (height / 3);
    let mut levels = (0..=8).filter(|l| (2u32 << l) * 100 / codewords == percent);
    let level = levels.next()?;
    levels.next().is_none().then_some(level)
}
