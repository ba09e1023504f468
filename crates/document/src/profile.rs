//! The PDF conformance profiles a request may ask for (`settings.profile`):
//! their names, the Typst standard each exports to, and what each requires
//! of a document. At the bottom of the crate: validation enforces these
//! requirements, the engine exports to the standard, and `config` publishes
//! the catalogue runtime-config lists, all from this one table.

use typst_pdf::PdfStandard;

/// A conformance profile a request may ask for (`settings.profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    A1b,
    A1a,
    A2b,
    A2u,
    A2a,
    A3b,
    A3u,
    A3a,
    A4,
    A4f,
    A4e,
    Ua1,
}

/// Request names, in the order they are listed to users.
const NAMES: &[(&str, Profile)] = &[
    ("pdfa-1b", Profile::A1b),
    ("pdfa-1a", Profile::A1a),
    ("pdfa-2b", Profile::A2b),
    ("pdfa-2u", Profile::A2u),
    ("pdfa-2a", Profile::A2a),
    ("pdfa-3b", Profile::A3b),
    ("pdfa-3u", Profile::A3u),
    ("pdfa-3a", Profile::A3a),
    ("pdfa-4", Profile::A4),
    ("pdfa-4f", Profile::A4f),
    ("pdfa-4e", Profile::A4e),
    ("pdfa-ua1", Profile::Ua1),
    ("pdfua-1", Profile::Ua1),
];

impl Profile {
    /// Parses a profile name, ignoring case.
    pub fn parse(name: &str) -> Option<Profile> {
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, p)| p)
    }

    pub fn names() -> Vec<&'static str> {
        NAMES.iter().map(|(n, _)| *n).collect()
    }

    pub fn standard(self) -> PdfStandard {
        match self {
            Profile::A1b => PdfStandard::A_1b,
            Profile::A1a => PdfStandard::A_1a,
            Profile::A2b => PdfStandard::A_2b,
            Profile::A2u => PdfStandard::A_2u,
            Profile::A2a => PdfStandard::A_2a,
            Profile::A3b => PdfStandard::A_3b,
            Profile::A3u => PdfStandard::A_3u,
            Profile::A3a => PdfStandard::A_3a,
            Profile::A4 => PdfStandard::A_4,
            Profile::A4f => PdfStandard::A_4f,
            Profile::A4e => PdfStandard::A_4e,
            Profile::Ua1 => PdfStandard::Ua_1,
        }
    }

    /// Accessible levels need a tagged (structured) PDF.
    pub fn requires_tags(self) -> bool {
        matches!(
            self,
            Profile::A1a | Profile::A2a | Profile::A3a | Profile::Ua1
        )
    }

    /// PDF/A-1 predates transparency.
    pub fn forbids_transparency(self) -> bool {
        matches!(self, Profile::A1b | Profile::A1a)
    }

    /// PDF/UA needs a document title.
    pub fn requires_title(self) -> bool {
        self == Profile::Ua1
    }

    /// The standard's own name (`PDF/A-2b`).
    pub fn standard_name(self) -> &'static str {
        match self {
            Profile::A1b => "PDF/A-1b",
            Profile::A1a => "PDF/A-1a",
            Profile::A2b => "PDF/A-2b",
            Profile::A2u => "PDF/A-2u",
            Profile::A2a => "PDF/A-2a",
            Profile::A3b => "PDF/A-3b",
            Profile::A3u => "PDF/A-3u",
            Profile::A3a => "PDF/A-3a",
            Profile::A4 => "PDF/A-4",
            Profile::A4f => "PDF/A-4f",
            Profile::A4e => "PDF/A-4e",
            Profile::Ua1 => "PDF/UA-1",
        }
    }

    /// Every profile as runtime-config lists it: one entry per profile,
    /// under its first name, with its other names as aliases.
    pub fn catalogue() -> Vec<ProfileInfo> {
        let mut profiles: Vec<ProfileInfo> = Vec::new();
        for &(name, profile) in NAMES {
            if let Some(known) = profiles.iter_mut().find(|p| p.profile == profile) {
                known.aliases.push(name);
                continue;
            }
            profiles.push(ProfileInfo {
                name,
                aliases: Vec::new(),
                standard: profile.standard_name(),
                tagged: profile.requires_tags(),
                requires_alt_text: profile.requires_tags(),
                requires_title: profile.requires_title(),
                allows_transparency: !profile.forbids_transparency(),
                profile,
            });
        }
        profiles
    }
}

/// A profile and what validation requires of a document that asks for it
/// (docs/document-request.md); read from the same methods validation calls.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct ProfileInfo {
    /// The name `settings.profile` takes (case-insensitive).
    pub name: &'static str,
    /// Other names of the same profile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<&'static str>,
    pub standard: &'static str,
    /// The PDF is tagged (structured).
    pub tagged: bool,
    /// Images and links need `alt` text.
    pub requires_alt_text: bool,
    /// `settings.metadata.title` is required.
    pub requires_title: bool,
    /// Opacity below 1 and images with transparency are accepted.
    pub allows_transparency: bool,
    #[serde(skip)]
    profile: Profile,
}
