//! What this binary is: `GET /version` and `labelpress_build_info` on
//! `/metrics` (docs/operations.md).

use serde::Serialize;

/// The Typst release rendering documents: Cargo.toml pins it exactly
/// (`typst = "=…"`), and a test keeps the two equal.
pub const TYPST_VERSION: &str = "0.15.1";

#[derive(Debug, Clone, Copy, Serialize)]
pub struct BuildInfo {
    pub name: &'static str,
    pub version: &'static str,
    pub typst: &'static str,
    /// The commit built, when the build was given it
    /// (`LABELPRESS_GIT_COMMIT=$(git rev-parse HEAD) cargo build`); `null`
    /// otherwise: the build never runs git itself.
    pub git: Option<&'static str>,
    /// Target triple, e.g. `x86_64-unknown-linux-gnu`.
    pub target: &'static str,
    /// Cargo profile: `debug` or `release`.
    pub profile: &'static str,
}

pub const BUILD: BuildInfo = BuildInfo {
    name: env!("CARGO_PKG_NAME"),
    version: env!("CARGO_PKG_VERSION"),
    typst: TYPST_VERSION,
    git: non_empty(option_env!("LABELPRESS_GIT_COMMIT")),
    target: env!("LABELPRESS_TARGET"),
    profile: env!("LABELPRESS_PROFILE"),
};

const fn non_empty(value: Option<&'static str>) -> Option<&'static str> {
    match value {
        Some(v) if !v.is_empty() => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_typst_version_is_the_one_cargo_toml_pins() {
        let manifest = include_str!("../Cargo.toml");
        for krate in ["typst", "typst-pdf", "typst-layout"] {
            let pin = format!("{krate} = \"={TYPST_VERSION}\"");
            assert!(manifest.contains(&pin), "Cargo.toml lacks {pin}");
        }
    }

    #[test]
    fn build_facts_are_filled_in() {
        assert_eq!(BUILD.name, "labelpress");
        assert!(BUILD.target.contains('-'), "{}", BUILD.target);
        assert!(["debug", "release"].contains(&BUILD.profile));
    }
}
