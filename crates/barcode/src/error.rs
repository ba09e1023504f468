//! Errors of the barcode engine. Every message is meant to be shown to the
//! caller as is (the barcode service answers 400 with it as plain text).

/// Why a barcode could not be produced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BarcodeError {
    #[error("unknown symbology '{name}'; valid names: {valid}")]
    UnknownSymbology { name: String, valid: String },

    #[error("content is empty")]
    Empty,

    /// `position` is 1-based and counts characters, not bytes.
    #[error(
        "invalid character {ch:?} at position {position} for {symbology}: allowed are {allowed}"
    )]
    InvalidCharacter {
        symbology: &'static str,
        ch: char,
        position: usize,
        allowed: &'static str,
    },

    #[error("content too long for {symbology}: {length} {unit}, the limit is {limit}")]
    TooLong {
        symbology: &'static str,
        length: usize,
        limit: usize,
        unit: &'static str,
    },

    #[error("invalid length for {symbology}: {rule}, got {length}")]
    InvalidLength {
        symbology: &'static str,
        rule: &'static str,
        length: usize,
    },

    #[error("invalid check digit for {symbology}: expected {expected}, found {found}")]
    CheckDigit {
        symbology: &'static str,
        expected: char,
        found: char,
    },

    #[error("invalid content for {symbology}: {reason}")]
    InvalidContent {
        symbology: &'static str,
        reason: String,
    },

    #[error("unknown parameter '{0}'")]
    UnknownParameter(String),

    #[error("parameter '{param}' does not apply to {symbology}")]
    NotApplicable {
        param: String,
        symbology: &'static str,
    },

    #[error("parameter '{0}' given more than once")]
    DuplicateParameter(String),

    #[error("invalid value '{value}' for parameter '{param}': expected {expected}")]
    InvalidParameter {
        param: String,
        value: String,
        expected: String,
    },

    /// The message already names the AI and its rule.
    #[error("Invalid GS1 format: {0}")]
    Gs1(String),

    /// The encoder refused the data after validation (capacity of the chosen
    /// size, version, rows/columns or layers exceeded).
    #[error("data does not fit {symbology}: {reason}")]
    DoesNotFit {
        symbology: &'static str,
        reason: String,
    },

    /// A third-party encoder panicked; caught so that no input can take the
    /// process down.
    #[error("internal encoder failure for {symbology}")]
    EncoderFailure { symbology: &'static str },
}
