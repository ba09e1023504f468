//! The request's `settings`: their rules, and what validation makes of
//! them for the later phases (`ir::Settings`).

use super::Validator;
use crate::ir;
use crate::model::OutputMode;
use crate::profile::Profile;

impl Validator<'_> {
    /// Checks `settings` (the profile first: rules of the elements read it).
    pub(super) fn settings_rules(&mut self) {
        let settings = self.settings.clone();
        if let Some(name) = &settings.profile {
            match Profile::parse(name) {
                Some(p) => self.profile = Some(p),
                None => self.push(
                    "settings.profile",
                    format!(
                        "unknown profile `{name}`; expected one of {}",
                        Profile::names().join(", ")
                    ),
                ),
            }
        }
        if let Some(m) = &settings.page_margin {
            // Against each page's size where the page takes it (`document`).
            self.margin_values("settings.page_margin", m);
        }
        if let Some(meta) = &settings.metadata {
            if let Some(lang) = &meta.language {
                if crate::style::split_language(lang).is_none() {
                    self.push(
                        "settings.metadata.language",
                        format!("`{lang}` is not a language code such as `en` or `de-CH`"),
                    );
                }
            }
            if let Some(name) = &meta.producer {
                if name.trim().is_empty() {
                    self.push("settings.metadata.producer", "must not be empty");
                }
            }
            let fields = [
                ("title", &meta.title),
                ("author", &meta.author),
                ("subject", &meta.subject),
                ("creator", &meta.creator),
                ("producer", &meta.producer),
            ];
            for (field, value) in fields {
                // The XMP copy of the metadata is XML 1.0, which has no way to
                // write these; PDF/A requires it to match the Info dictionary.
                if let Some(c) = value.iter().flat_map(|v| v.chars()).find(|&c| {
                    (c < ' ' && !matches!(c, '\t' | '\n' | '\r'))
                        || matches!(c, '\u{FFFE}' | '\u{FFFF}')
                }) {
                    self.push(
                        format!("settings.metadata.{field}"),
                        format!(
                            "the character U+{:04X} cannot be written to PDF metadata",
                            c as u32
                        ),
                    );
                }
            }
        }
        if let Some(dpi) = settings.print_dpi {
            if !(72.0..=4800.0).contains(&dpi) {
                self.push("settings.print_dpi", "must be between 72 and 4800");
            }
        }
        if let Some(defaults) = &settings.defaults {
            if let Some(t) = &defaults.text {
                self.text_style_values("settings.defaults.text", t);
                if t.link.is_some() {
                    self.push("settings.defaults.text.link", "a link cannot be a default");
                }
            }
            if let Some(s) = &defaults.stroke {
                self.stroke_values("settings.defaults.stroke", s);
            }
            if let Some(f) = &defaults.fill {
                self.fill_values("settings.defaults.fill", f);
            }
            if let Some(r) = defaults.shape.as_ref().and_then(|s| s.corner_radius) {
                self.non_negative("settings.defaults.shape.corner_radius", r);
            }
        }
        if self.profile.is_some_and(|p| p.requires_title())
            && settings
                .metadata
                .as_ref()
                .and_then(|m| m.title.as_deref())
                .is_none_or(|t| t.trim().is_empty())
        {
            self.push(
                "settings.metadata.title",
                "the PDF/UA profile requires a document title",
            );
        }
    }

    /// The settings as the later phases read them. Only called on settings
    /// whose rules held, so a name that does not parse here was refused.
    pub(super) fn resolved_settings(&self) -> ir::Settings {
        let raw = &self.settings;
        let meta = raw.metadata.clone().unwrap_or_default();
        let language = meta
            .language
            .as_deref()
            .and_then(crate::style::split_language)
            .map(|(lang, region)| ir::Language { lang, region });
        let delivery = match &raw.output {
            Some(o) if o.mode.unwrap_or_default() == OutputMode::File => ir::Delivery::File {
                name: o.file_name.clone(),
            },
            _ => ir::Delivery::Inline,
        };
        ir::Settings {
            defaults: raw.defaults.clone(),
            metadata: ir::Metadata {
                title: meta.title,
                author: meta.author,
                subject: meta.subject,
                creator: meta.creator,
                producer: meta.producer,
                language,
            },
            profile: self.profile,
            // Tags make big documents ~12x larger and slower: only when
            // the profile needs them or the request asks.
            tagged: self.profile.is_some_and(Profile::requires_tags) || raw.tagged.unwrap_or(false),
            print_dpi: raw.print_dpi,
            delivery,
        }
    }
}
