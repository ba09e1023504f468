//! Every error path of the barcode engine names the problem, and no input
//! panics or takes long.

use std::time::{Duration, Instant};

use labelpress_barcode::{self as barcode, BarcodeError, Options, Symbology};

fn encode(sym: &str, content: &str, opts: &[(&str, &str)]) -> Result<String, BarcodeError> {
    let sym: Symbology = sym.parse()?;
    let options = Options::from_pairs(sym, opts.iter().copied())?;
    barcode::to_svg(sym, content, &options)
}

fn err(sym: &str, content: &str, opts: &[(&str, &str)]) -> String {
    match encode(sym, content, opts) {
        Ok(_) => panic!("{sym} {content:?} {opts:?} should fail"),
        Err(e) => e.to_string(),
    }
}

#[track_caller]
fn starts(msg: String, prefix: &str) {
    assert!(
        msg.starts_with(prefix),
        "{msg:?} should start with {prefix:?}"
    );
}

#[test]
fn unknown_symbology_lists_the_valid_names() {
    let msg = err("code999", "1", &[]);
    starts(
        msg.clone(),
        "unknown symbology 'code999'; valid names: code128, ean13",
    );
    assert!(msg.contains("maxicode"));
    assert_eq!("QRCODE".parse::<Symbology>().unwrap(), Symbology::Qr);
    assert_eq!(Symbology::all().len(), 19);
}

#[test]
fn invalid_characters_are_named_with_their_position() {
    starts(
        err("code39", "AB*C", &[]),
        "invalid character '*' at position 3 for code39",
    );
    starts(
        err("code128", "añb", &[]),
        "invalid character 'ñ' at position 2 for code128",
    );
    starts(
        err("ean13", "40063813339x", &[]),
        "invalid character 'x' at position 12 for ean13",
    );
    starts(
        err("codabar", "A12€3B", &[]),
        "invalid character '€' at position 4 for codabar",
    );
    starts(
        err("itf", "12a4", &[]),
        "invalid character 'a' at position 3 for itf",
    );
    starts(
        err("msi", "12-3", &[]),
        "invalid character '-' at position 3 for msi",
    );
    starts(
        err("code93", "naïve", &[]),
        "invalid character 'ï' at position 3 for code93",
    );
    starts(
        err("maxicode", "日本", &[]),
        "invalid character '日' at position 1 for maxicode",
    );
    starts(err("qr", "", &[]), "content is empty");
}

#[test]
fn lengths_and_check_digits() {
    starts(
        err("ean13", "123", &[]),
        "invalid length for ean13: 13 digits, or 12 without the check digit, got 3",
    );
    starts(
        err("ean13", "4006381333932", &[]),
        "invalid check digit for ean13: expected 1, found 2",
    );
    starts(
        err("upce", "2123456", &[]),
        "invalid content for upce: the number system",
    );
    starts(
        err("itf", "123", &[]),
        "invalid length for itf: ITF needs an even number of digits",
    );
    starts(
        err("itf14", "15400141288760", &[]),
        "invalid check digit for itf14: expected 3, found 0",
    );
    starts(
        err("codabar", "A123", &[]),
        "invalid content for codabar: a start character A-D needs a stop",
    );
}

#[test]
fn too_long_names_the_limit() {
    starts(
        err("code128", &"A".repeat(81), &[]),
        "content too long for code128: 81 characters, the limit is 80",
    );
    starts(
        err("code93", &"a".repeat(41), &[]),
        "content too long for code93: 82 symbol characters, the limit is 80",
    );
    starts(
        err("qr", &"1".repeat(7090), &[]),
        "content too long for qr: 7090 characters, the limit is 7089",
    );
    starts(
        err("datamatrix", &"1".repeat(3117), &[]),
        "content too long for datamatrix",
    );
    starts(
        err("pdf417", &"1".repeat(2711), &[]),
        "content too long for pdf417",
    );
    starts(
        err("aztec", &"1".repeat(3833), &[]),
        "content too long for aztec",
    );
    starts(
        err("maxicode", &"A".repeat(94), &[]),
        "content too long for maxicode",
    );
    starts(
        err(
            "gs1_128",
            &format!("(90){}(21){}", "A".repeat(30), "B".repeat(20)),
            &[],
        ),
        "content too long for gs1_128: 54 data characters, the limit is 48",
    );
}

#[test]
fn capacity_of_a_forced_size_is_an_error_not_a_panic() {
    starts(
        err("qr", &"x".repeat(100), &[("version", "1")]),
        "data does not fit qr",
    );
    starts(
        err("datamatrix", &"x".repeat(200), &[("shape", "rect")]),
        "data does not fit datamatrix",
    );
    starts(
        err("pdf417", &"x".repeat(300), &[("cols", "1"), ("rows", "3")]),
        "data does not fit pdf417",
    );
    starts(
        err("aztec", &"x".repeat(300), &[("layers", "-1")]),
        "data does not fit aztec",
    );
    starts(
        err("maxicode", &"a1".repeat(46), &[]),
        "data does not fit maxicode",
    );
}

#[test]
fn parameters_are_strict() {
    starts(err("qr", "x", &[("foo", "1")]), "unknown parameter 'foo'");
    starts(
        err("code128", "x", &[("ecl", "M")]),
        "parameter 'ecl' does not apply to code128",
    );
    starts(
        err("qr", "x", &[("bearer", "top_only")]),
        "parameter 'bearer' does not apply to qr",
    );
    starts(
        err("qr", "x", &[("m", "1"), ("margin", "2")]),
        "parameter 'margin' given more than once",
    );
    starts(
        err("qr", "x", &[("ecl", "M"), ("ecl", "M")]),
        "parameter 'ecl' given more than once",
    );
    starts(
        err("qr", "x", &[("version", "41")]),
        "invalid value '41' for parameter 'version': expected an integer from 1 to 40",
    );
    starts(
        err("qr", "x", &[("ecl", "X")]),
        "invalid value 'X' for parameter 'ecl': expected L, M, Q or H",
    );
    starts(
        err("pdf417", "x", &[("cols", "31")]),
        "invalid value '31' for parameter 'cols'",
    );
    starts(
        err("pdf417", "x", &[("cols", "0")]),
        "invalid value '0' for parameter 'cols'",
    );
    starts(
        err("pdf417", "x", &[("rows", "2")]),
        "invalid value '2' for parameter 'rows'",
    );
    starts(
        err("pdf417", "x", &[("ecl", "9")]),
        "invalid value '9' for parameter 'ecl'",
    );
    starts(
        err("pdf417", "x", &[("compact", "yes")]),
        "invalid value 'yes' for parameter 'compact'",
    );
    starts(
        err("aztec", "x", &[("ecl", "101")]),
        "invalid value '101' for parameter 'ecl'",
    );
    starts(
        err("aztec", "x", &[("layers", "0")]),
        "invalid value '0' for parameter 'layers'",
    );
    starts(
        err("maxicode", "x", &[("mode", "1")]),
        "invalid value '1' for parameter 'mode'",
    );
    starts(
        err("maxicode", "x", &[("mode", "2")]),
        "invalid value '' for parameter 'postcode'",
    );
    starts(
        err("maxicode", "x", &[("country", "840")]),
        "parameter 'country' does not apply",
    );
    starts(
        err(
            "maxicode",
            "x",
            &[
                ("mode", "2"),
                ("postcode", "AB1"),
                ("country", "840"),
                ("service", "001"),
            ],
        ),
        "invalid value 'AB1' for parameter 'postcode': expected up to 9 digits in mode 2",
    );
    starts(
        err(
            "maxicode",
            "x",
            &[
                ("mode", "3"),
                ("postcode", "B1050"),
                ("country", "84"),
                ("service", "001"),
            ],
        ),
        "invalid value '84' for parameter 'country': expected 3 digits",
    );
    starts(
        err("datamatrix", "x", &[("shape", "round")]),
        "invalid value 'round' for parameter 'shape'",
    );
    starts(
        err("qr", "x", &[("width", "10001")]),
        "invalid value '10001' for parameter 'width'",
    );
    starts(
        err("qr", "x", &[("height", "0")]),
        "invalid value '0' for parameter 'height'",
    );
    starts(
        err("qr", "x", &[("width", "1e9")]),
        "invalid value '1e9' for parameter 'width'",
    );
    starts(
        err("qr", "x", &[("m", "101")]),
        "invalid value '101' for parameter 'm'",
    );
    starts(
        err("qr", "x", &[("rotate", "45")]),
        "invalid value '45' for parameter 'rotate': expected 0, 90, 180 or 270",
    );
    starts(
        err("qr", "x", &[("fg", "red")]),
        "invalid value 'red' for parameter 'fg'",
    );
    starts(
        err("qr", "x", &[("bg", "#12345")]),
        "invalid value '#12345' for parameter 'bg'",
    );
    starts(
        err("code128", "x", &[("bearer", "all")]),
        "invalid value 'all' for parameter 'bearer'",
    );
    starts(
        err("code128", "x", &[("thickness", "101")]),
        "invalid value '101' for parameter 'thickness'",
    );
    starts(
        err("code128", "x", &[("quiet", "-1")]),
        "invalid value '-1' for parameter 'quiet'",
    );
}

#[test]
fn gs1_errors_name_the_ai_and_its_rule() {
    let cases = [
        ("(01)123", "Invalid GS1 format: AI (01) must be 14 digits"),
        (
            "(01)09501101530004",
            "Invalid GS1 format: AI (01) has an invalid check digit: expected 3, found 4",
        ),
        (
            "(00)123456789012345678",
            "Invalid GS1 format: AI (00) has an invalid check digit",
        ),
        (
            "(414)1234567890123",
            "Invalid GS1 format: AI (414) has an invalid check digit",
        ),
        (
            "(17)251301",
            "Invalid GS1 format: AI (17) must be a valid date YYMMDD",
        ),
        (
            "(17)250230",
            "Invalid GS1 format: AI (17) must be a valid date YYMMDD",
        ),
        (
            "(10)ABCDEFGHIJKLMNOPQRSTU",
            "Invalid GS1 format: AI (10) must be up to 20 characters of GS1 CSET 82",
        ),
        (
            "(10)AB~",
            "Invalid GS1 format: AI (10) has invalid character '~' at position 3",
        ),
        ("(21)", "Invalid GS1 format: AI (21) has no value"),
        (
            "(999)1",
            "Invalid GS1 format: AI (999) is not a known GS1 Application Identifier",
        ),
        (
            "(3106)000100",
            "Invalid GS1 format: AI (3106) is not a known",
        ),
        (
            "01)09501101530003",
            "Invalid GS1 format: each element must start with an AI",
        ),
        ("(01", "Invalid GS1 format: an AI's '(' has no closing ')'"),
        ("(1)2", "Invalid GS1 format: AI (1) is not an AI"),
        (
            "(01)0950110153000A",
            "Invalid GS1 format: AI (01) has invalid character 'A'",
        ),
    ];
    for sym in ["gs1_128", "gs1_qr", "gs1_datamatrix"] {
        for (input, prefix) in cases {
            starts(err(sym, input, &[]), prefix);
        }
    }
    // Valid edge cases: DD = 00, leap day, measures, variable numeric.
    for ok in [
        "(17)250200",
        "(11)240229",
        "(3103)001250",
        "(30)12345678",
        "(8005)000365(10)X",
        "(90)a-b_c",
    ] {
        encode("gs1_128", ok, &[]).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}

#[test]
fn hostile_inputs_neither_panic_nor_take_long() {
    let long_unicode = "日".repeat(1038); // 3,114 bytes
    let inputs: Vec<(&str, String)> = vec![
        ("codabar", "A€€B".into()),
        ("codabar", "€".into()),
        ("qr", "1".repeat(7089)),
        ("qr", "é".repeat(2953)),
        ("qr", long_unicode.clone()),
        ("datamatrix", "1".repeat(3116)),
        ("datamatrix", "x".repeat(3116)),
        ("datamatrix", long_unicode.clone()),
        ("pdf417", "1".repeat(2710)),
        ("pdf417", "x".repeat(2710)),
        ("pdf417", long_unicode.clone()),
        ("aztec", "1".repeat(3832)),
        ("aztec", "x".repeat(3832)),
        ("aztec", long_unicode),
        ("maxicode", "1".repeat(93)),
        ("code128", "\u{0}\u{7f}".repeat(40)),
        ("gs1_qr", "(".repeat(500)),
        ("gs1_datamatrix", "(10)".repeat(500)),
    ];
    for (sym, content) in inputs {
        let start = Instant::now();
        let _ = encode(sym, &content, &[]);
        let took = start.elapsed();
        assert!(
            took < Duration::from_secs(3),
            "{sym} with {} chars took {took:?}",
            content.chars().count()
        );
    }
    // Big forced sizes only change two attributes: nothing is allocated per pixel.
    let svg = encode(
        "qr",
        "x",
        &[("width", "10000"), ("height", "10000"), ("m", "100")],
    )
    .unwrap();
    assert!(svg.len() < 10_000);
}
