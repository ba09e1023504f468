//! A small PDF object parser (ISO 32000-1 §7.2, §7.3): enough to read the few
//! objects the producer patch needs, with the byte span of every value.
//!
//! It understands the full object syntax that user text can hide in: literal
//! strings with escapes and balanced parentheses, hex strings, names with `#`
//! escapes, numbers, references, arrays, nested dictionaries and comments. So
//! `(A >> endobj B)` is one string token, never a dictionary end.

use std::ops::Range;

/// Dictionaries and arrays nest at most this deep. The objects we read are
/// flat; the bound only keeps a malformed file from recursing without end.
const MAX_DEPTH: usize = 32;

/// Why bytes are not the PDF syntax that was expected, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} at byte {at}")]
pub struct SyntaxError {
    pub at: usize,
    pub what: &'static str,
}

/// A direct object as parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    Null,
    Bool(bool),
    Int(i64),
    Real(f64),
    /// A literal or hex string, decoded to its bytes.
    String(Vec<u8>),
    /// A name without its `/`, `#xx` escapes decoded.
    Name(Vec<u8>),
    Array(Vec<Spanned>),
    Dict(Dict),
    /// An indirect reference `num gen R`.
    Ref(u32, u16),
}

/// An object and the bytes it occupies in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned {
    pub object: Object,
    pub span: Range<usize>,
}

/// A dictionary: its entries in file order, and where its closing `>>` is.
#[derive(Debug, Clone, PartialEq)]
pub struct Dict {
    pub entries: Vec<(Vec<u8>, Spanned)>,
    /// Offset of the closing `>>`: an entry inserted here joins the dictionary.
    pub close: usize,
}

impl Dict {
    pub fn get(&self, key: &[u8]) -> Option<&Spanned> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_slice() == key)
            .map(|(_, v)| v)
    }
}

/// One lexical token.
#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    DictOpen,
    DictClose,
    ArrayOpen,
    ArrayClose,
    String(Vec<u8>),
    Name(Vec<u8>),
    Int(i64),
    Real(f64),
    /// A regular-character run that is not a number: `obj`, `R`, `true`, ...
    Keyword(&'a [u8]),
}

/// Reads objects from `bytes` starting at a position the caller trusts to be
/// the start of a token (an xref offset, a parsed object's end).
pub struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    pub fn new(bytes: &'a [u8], pos: usize) -> Parser<'a> {
        Parser { bytes, pos }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn set_pos(&mut self, pos: usize) {
        self.pos = pos;
    }

    fn error(&self, what: &'static str) -> SyntaxError {
        SyntaxError { at: self.pos, what }
    }

    /// Skips white-space (§7.2.2) and comments (§7.2.3).
    pub fn skip_blank(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(&c) = self.bytes.get(self.pos) {
                    if c == b'\r' || c == b'\n' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next object, or an error if the next token does not start one.
    pub fn object(&mut self) -> Result<Spanned, SyntaxError> {
        self.object_at_depth(0)
    }

    fn object_at_depth(&mut self, depth: usize) -> Result<Spanned, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("objects nested too deeply"));
        }
        self.skip_blank();
        let start = self.pos;
        let object = match self.token()? {
            Token::DictOpen => Object::Dict(self.dict_rest(depth)?),
            Token::ArrayOpen => Object::Array(self.array_rest(depth)?),
            Token::String(s) => Object::String(s),
            Token::Name(n) => Object::Name(n),
            Token::Real(r) => Object::Real(r),
            Token::Int(i) => self.reference_after(i).unwrap_or(Object::Int(i)),
            Token::Keyword(b"true") => Object::Bool(true),
            Token::Keyword(b"false") => Object::Bool(false),
            Token::Keyword(b"null") => Object::Null,
            Token::DictClose | Token::ArrayClose | Token::Keyword(_) => {
                self.pos = start;
                return Err(self.error("expected an object"));
            }
        };
        Ok(Spanned {
            object,
            span: start..self.pos,
        })
    }

    /// `num gen R` after `num` was read; leaves the position alone when the
    /// integer is just an integer.
    fn reference_after(&mut self, num: i64) -> Option<Object> {
        let back = self.pos;
        let reference = (|| {
            let num = u32::try_from(num).ok()?;
            self.skip_blank();
            let Ok(Token::Int(generation)) = self.token() else {
                return None;
            };
            let generation = u16::try_from(generation).ok()?;
            self.skip_blank();
            match self.token() {
                Ok(Token::Keyword(b"R")) => Some(Object::Ref(num, generation)),
                _ => None,
            }
        })();
        if reference.is_none() {
            self.pos = back;
        }
        reference
    }

    fn dict_rest(&mut self, depth: usize) -> Result<Dict, SyntaxError> {
        let mut entries = Vec::new();
        loop {
            self.skip_blank();
            let close = self.pos;
            match self.token()? {
                Token::DictClose => return Ok(Dict { entries, close }),
                Token::Name(key) => {
                    let value = self.object_at_depth(depth + 1)?;
                    entries.push((key, value));
                }
                _ => {
                    self.pos = close;
                    return Err(self.error("expected a name or `>>` in a dictionary"));
                }
            }
        }
    }

    fn array_rest(&mut self, depth: usize) -> Result<Vec<Spanned>, SyntaxError> {
        let mut items = Vec::new();
        loop {
            self.skip_blank();
            if self.bytes.get(self.pos) == Some(&b']') {
                self.pos += 1;
                return Ok(items);
            }
            items.push(self.object_at_depth(depth + 1)?);
        }
    }

    /// Expects the keyword `word` as the next token.
    pub fn keyword(&mut self, word: &'static [u8]) -> Result<(), SyntaxError> {
        self.skip_blank();
        let start = self.pos;
        match self.token() {
            Ok(Token::Keyword(k)) if k == word => Ok(()),
            _ => {
                self.pos = start;
                Err(SyntaxError {
                    at: start,
                    what: keyword_expectation(word),
                })
            }
        }
    }

    /// Expects a non-negative integer as the next token.
    pub fn unsigned(&mut self) -> Result<u64, SyntaxError> {
        self.skip_blank();
        let start = self.pos;
        match self.token() {
            Ok(Token::Int(i)) if i >= 0 => Ok(i as u64),
            _ => {
                self.pos = start;
                Err(self.error("expected a non-negative integer"))
            }
        }
    }

    /// True when the next token is the keyword `word` (the position is kept).
    pub fn peek_keyword(&mut self, word: &[u8]) -> bool {
        let back = self.pos;
        self.skip_blank();
        let found = matches!(self.token(), Ok(Token::Keyword(k)) if k == word);
        self.pos = back;
        found
    }

    fn token(&mut self) -> Result<Token<'a>, SyntaxError> {
        let Some(&b) = self.bytes.get(self.pos) else {
            return Err(self.error("unexpected end of file"));
        };
        match b {
            b'<' if self.bytes.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                Ok(Token::DictOpen)
            }
            b'>' if self.bytes.get(self.pos + 1) == Some(&b'>') => {
                self.pos += 2;
                Ok(Token::DictClose)
            }
            b'[' => {
                self.pos += 1;
                Ok(Token::ArrayOpen)
            }
            b']' => {
                self.pos += 1;
                Ok(Token::ArrayClose)
            }
            b'(' => self.literal_string().map(Token::String),
            b'<' => self.hex_string().map(Token::String),
            b'/' => {
                self.pos += 1;
                Ok(Token::Name(self.name_rest()))
            }
            b')' | b'>' | b'{' | b'}' => Err(self.error("unexpected delimiter")),
            _ => {
                let start = self.pos;
                while self.bytes.get(self.pos).is_some_and(|&c| is_regular(c)) {
                    self.pos += 1;
                }
                let run = &self.bytes[start..self.pos];
                Ok(number(run).unwrap_or(Token::Keyword(run)))
            }
        }
    }

    /// A literal string (§7.3.4.2) after its `(`: balanced parentheses need no
    /// escape, `\` escapes one character or up to three octal digits, and a
    /// `\` before an end of line continues the line.
    fn literal_string(&mut self) -> Result<Vec<u8>, SyntaxError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        let mut nesting = 0usize;
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                self.pos = open;
                return Err(self.error("unterminated literal string"));
            };
            self.pos += 1;
            match b {
                b'(' => {
                    nesting += 1;
                    out.push(b);
                }
                b')' if nesting == 0 => return Ok(out),
                b')' => {
                    nesting -= 1;
                    out.push(b);
                }
                b'\\' => self.string_escape(&mut out),
                // An unescaped end of line is read as a line feed (§7.3.4.2).
                b'\r' => {
                    if self.bytes.get(self.pos) == Some(&b'\n') {
                        self.pos += 1;
                    }
                    out.push(b'\n');
                }
                _ => out.push(b),
            }
        }
    }

    fn string_escape(&mut self, out: &mut Vec<u8>) {
        let Some(&e) = self.bytes.get(self.pos) else {
            return;
        };
        self.pos += 1;
        match e {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                for _ in 0..2 {
                    match self.bytes.get(self.pos) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                out.push(value as u8); // high-order overflow is ignored (§7.3.4.2)
            }
            b'\r' => {
                if self.bytes.get(self.pos) == Some(&b'\n') {
                    self.pos += 1;
                }
            }
            b'\n' => {}
            // `\(`, `\)`, `\\`, and any other character stands for itself.
            other => out.push(other),
        }
    }

    /// A hex string (§7.3.4.3) after its `<`; white-space is ignored and an
    /// odd final digit is followed by an implied 0.
    fn hex_string(&mut self) -> Result<Vec<u8>, SyntaxError> {
        let open = self.pos;
        self.pos += 1;
        let mut digits = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                self.pos = open;
                return Err(self.error("unterminated hex string"));
            };
            self.pos += 1;
            match b {
                b'>' => break,
                _ if is_white(b) => {}
                _ => match (b as char).to_digit(16) {
                    Some(d) => digits.push(d as u8),
                    None => {
                        self.pos -= 1;
                        return Err(self.error("not a hex digit in a hex string"));
                    }
                },
            }
        }
        if digits.len() % 2 == 1 {
            digits.push(0);
        }
        Ok(digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect())
    }

    /// A name's characters after its `/` (§7.3.5), `#xx` decoded.
    fn name_rest(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(&b) = self.bytes.get(self.pos) {
            if !is_regular(b) {
                break;
            }
            self.pos += 1;
            let escaped = (b == b'#')
                .then(|| self.bytes.get(self.pos..self.pos + 2))
                .flatten()
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match escaped {
                Some(byte) => {
                    out.push(byte);
                    self.pos += 2;
                }
                None => out.push(b),
            }
        }
        out
    }
}

fn keyword_expectation(word: &[u8]) -> &'static str {
    match word {
        b"obj" => "expected `obj`",
        b"endobj" => "expected `endobj`",
        b"stream" => "expected `stream`",
        b"endstream" => "expected `endstream`",
        b"xref" => "expected `xref`",
        b"trailer" => "expected `trailer`",
        b"startxref" => "expected `startxref`",
        _ => "expected a keyword",
    }
}

/// A numeric token (§7.3.3): `+12`, `-.5`, `3.`; anything else is a keyword.
fn number(run: &[u8]) -> Option<Token<'static>> {
    let text = std::str::from_utf8(run).ok()?;
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    if digits.contains('.') {
        // Rust's float syntax accepts every PDF real (`-.5`, `4.`, `+1.0`).
        text.parse().ok().map(Token::Real)
    } else {
        text.parse().ok().map(Token::Int)
    }
}

/// White-space characters (§7.2.2, Table 1).
pub fn is_white(b: u8) -> bool {
    matches!(b, b'\0' | b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// Delimiter characters (§7.2.2, Table 2).
fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(b: u8) -> bool {
    !is_white(b) && !is_delimiter(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Spanned {
        Parser::new(text.as_bytes(), 0).object().unwrap()
    }

    fn string(text: &str) -> Vec<u8> {
        match parse(text).object {
            Object::String(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }

    #[test]
    fn literal_strings_keep_balanced_parentheses_and_decode_escapes() {
        assert_eq!(string("(a (b) c)"), b"a (b) c");
        assert_eq!(string(r"(a \) >> endobj)"), b"a ) >> endobj");
        assert_eq!(string(r"(\\\(\n\101\0053)"), b"\\(\nA\x053");
        assert_eq!(string("(line \\\ncontinued)"), b"line continued");
        assert_eq!(string("(% not a comment)"), b"% not a comment");
        assert_eq!(string("(cr\r\nlf)"), b"cr\nlf");
    }

    #[test]
    fn hex_strings_ignore_white_space_and_pad_an_odd_digit() {
        assert_eq!(string("<FEFF 0041>"), b"\xfe\xff\x00\x41");
        assert_eq!(string("<41 4>"), b"A@");
        assert!(Parser::new(b"<4x>", 0).object().is_err());
    }

    #[test]
    fn dictionaries_nest_and_record_where_they_close() {
        let text = "<< /A (x >> y) /B << /C [1 2 0 R /D] >> /E 3 0 R %c >>\n/F 1.5 >>";
        let Object::Dict(dict) = parse(text).object else {
            panic!("not a dict")
        };
        assert_eq!(
            dict.get(b"A").unwrap().object,
            Object::String(b"x >> y".to_vec())
        );
        let Object::Dict(b) = &dict.get(b"B").unwrap().object else {
            panic!("B is not a dict")
        };
        let Object::Array(items) = &b.get(b"C").unwrap().object else {
            panic!("C is not an array")
        };
        assert_eq!(items[0].object, Object::Int(1));
        assert_eq!(items[1].object, Object::Ref(2, 0));
        assert_eq!(items[2].object, Object::Name(b"D".to_vec()));
        assert_eq!(dict.get(b"E").unwrap().object, Object::Ref(3, 0));
        // The comment swallowed `>>` up to the end of its line.
        assert_eq!(dict.get(b"F").unwrap().object, Object::Real(1.5));
        assert_eq!(&text[dict.close..], ">>");
    }

    #[test]
    fn spans_cover_exactly_the_value() {
        let text = "<</Length 42 /Title (a(b)c)>>";
        let Object::Dict(dict) = parse(text).object else {
            panic!("not a dict")
        };
        assert_eq!(&text[dict.get(b"Length").unwrap().span.clone()], "42");
        assert_eq!(&text[dict.get(b"Title").unwrap().span.clone()], "(a(b)c)");
    }

    #[test]
    fn names_decode_hash_escapes_and_numbers_take_signs() {
        assert_eq!(parse("/A#20B").object, Object::Name(b"A B".to_vec()));
        assert_eq!(parse("-.5").object, Object::Real(-0.5));
        assert_eq!(parse("+7").object, Object::Int(7));
        assert_eq!(parse("4.").object, Object::Real(4.0));
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        for text in [
            "",
            "(",
            "(a\\",
            "<",
            "<<",
            "<< /A",
            "<< 1 2 >>",
            "[1 2",
            ")",
            ">",
            "{",
            "endobj",
        ] {
            assert!(
                Parser::new(text.as_bytes(), 0).object().is_err(),
                "{text:?} parsed"
            );
        }
        let deep = "[".repeat(1000);
        assert!(Parser::new(deep.as_bytes(), 0).object().is_err());
    }
}
