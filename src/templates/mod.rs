//! Stored templates (docs/http-api.md, "Stored templates"): a render node's
//! named templates, each filed under its [`Owner`], the account of the
//! token that stored it. One node keeps them in an embedded sled store
//! under `<data-dir>/templates`; with `--database-url` they live in
//! PostgreSQL, so every render node on that database sees the same ones.
//!
//! A store only files text: a template is checked
//! ([`labelpress_document::engine::Engine::validate_template`]) before it
//! is stored, and filled and validated again each time it is used.
//!
//! Invariant: every operation is scoped to one owner. No call reads,
//! lists, replaces or deletes another owner's template: another account's
//! template of the same name is simply not there.

pub mod embedded;
pub mod postgres;

use serde::Serialize;

use self::embedded::EmbeddedTemplates;
use self::postgres::PgTemplates;
pub use crate::credential::Owner;

/// Longest template name.
pub const MAX_NAME_LEN: usize = 64;

/// A template's name: 1 to [`MAX_NAME_LEN`] characters of `A-Za-z0-9._-`,
/// starting with a letter or digit (a path segment as it is, never `..`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateName(String);

impl TemplateName {
    pub fn parse(name: &str) -> Result<TemplateName, String> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        let first_ok = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric());
        if name.len() > MAX_NAME_LEN || !first_ok || !name.chars().all(allowed) {
            return Err(format!(
                "a template name is 1 to {MAX_NAME_LEN} characters of A-Za-z0-9._- starting with a letter or digit"
            ));
        }
        Ok(TemplateName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One stored template as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Listed {
    pub name: String,
    /// When it was last stored, Unix milliseconds.
    pub updated_at: i64,
    /// Size of the stored JSON.
    pub bytes: u64,
}

/// What a `put` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Created,
    Replaced,
}

#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// The owner holds `max` templates already and this name is new.
    #[error("the account stores {max} templates already (limits.templates_per_account); delete one first")]
    Full { max: usize },
    /// The store cannot answer now (disk, database).
    #[error("template store: {0}")]
    Unavailable(String),
}

/// The store a node runs on, chosen at start.
pub enum Templates {
    Embedded(EmbeddedTemplates),
    Postgres(PgTemplates),
}

/// `$call` on whichever store `$self` is, bound to `$store`.
macro_rules! forward {
    ($self:ident, $store:ident => $call:expr) => {
        match $self {
            Templates::Embedded($store) => $call,
            Templates::Postgres($store) => $call,
        }
    };
}

impl Templates {
    /// Files `template` (JSON text) as `owner`'s `name`, replacing theirs of
    /// that name; a new name beyond `max` per owner is [`TemplateError::Full`].
    /// Durable when it returns.
    pub async fn put(
        &self,
        owner: &Owner,
        name: &TemplateName,
        template: &str,
        max: usize,
        now: i64,
    ) -> Result<Stored, TemplateError> {
        forward!(self, store => store.put(owner, name, template, max, now).await)
    }

    /// `owner`'s template `name` as stored.
    pub async fn get(
        &self,
        owner: &Owner,
        name: &TemplateName,
    ) -> Result<Option<String>, TemplateError> {
        forward!(self, store => store.get(owner, name).await)
    }

    /// Removes `owner`'s template `name`; false when there was none.
    pub async fn delete(&self, owner: &Owner, name: &TemplateName) -> Result<bool, TemplateError> {
        forward!(self, store => store.delete(owner, name).await)
    }

    /// `owner`'s templates, by name.
    pub async fn list(&self, owner: &Owner) -> Result<Vec<Listed>, TemplateError> {
        forward!(self, store => store.list(owner).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_path_segments_that_cannot_climb_or_hide() {
        for good in ["a", "label-4x6", "v1.2_final", &"x".repeat(MAX_NAME_LEN)] {
            assert!(TemplateName::parse(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            ".hidden",
            "-x",
            "a/b",
            "a b",
            "é",
            "a%2F",
            &"x".repeat(MAX_NAME_LEN + 1),
        ] {
            assert!(TemplateName::parse(bad).is_err(), "{bad:?}");
        }
    }
}
