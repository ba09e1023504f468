//! The request's `settings` as validation resolves them: the profile
//! parsed, the language split, whether the PDF is tagged and how it is
//! delivered decided once, for the export, the lowering and the writers.

use crate::model::Defaults;
use crate::profile::Profile;

#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Style defaults under every element's and table cell's own
    /// (`settings.defaults`; the runtime configuration's lie under them).
    pub defaults: Option<Defaults>,
    pub metadata: Metadata,
    /// The conformance profile asked for.
    pub profile: Option<Profile>,
    /// A tagged PDF: the profile requires tags or the request asks for them.
    pub tagged: bool,
    /// The printer's resolution (`settings.print_dpi`): barcode modules snap
    /// to whole dots of it.
    pub print_dpi: Option<f64>,
    pub delivery: Delivery,
}

/// The PDF's document information, as given (empty fields are `None`).
#[derive(Debug, Clone, Default)]
pub struct Metadata {
    pub title: Option<String>,
    pub author: Option<String>,
    pub subject: Option<String>,
    /// `None`: the engine names itself.
    pub creator: Option<String>,
    /// `None`: the engine names itself.
    pub producer: Option<String>,
    pub language: Option<Language>,
}

/// A language tag split as Typst takes it (`de-CH`: `de`, `CH`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Language {
    pub lang: String,
    pub region: Option<String>,
}

/// How the PDF is answered (`settings.output`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Delivery {
    /// As the body.
    #[default]
    Inline,
    /// As an attachment: the name asked for, before it is cleaned (`None`:
    /// a generated one).
    File { name: Option<String> },
}
