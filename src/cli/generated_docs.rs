//! `labelpress completions SHELL` and `labelpress man`: shell completion
//! scripts and manual pages generated from the clap definition itself, so
//! they never drift from the flags the binary accepts.

use std::path::Path;

use clap::CommandFactory;

use super::output::Destination;
use super::Cli;
use crate::exit::{Exit, Failure};

/// The completion script for `shell` (bash, zsh, fish, elvish, powershell).
pub fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "labelpress", &mut script);
    script
}

/// The command tree as the manual pages describe it: built (so subcommands
/// carry their display names, `labelpress-token-create`), without clap's
/// `help` subcommand, which has no page of its own.
fn documented_command() -> clap::Command {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    command
}

/// The roff manual page of `labelpress` or, with `path` (`["token",
/// "create"]`), of that subcommand (`labelpress-token-create(1)`, the name
/// the parent page's SUBCOMMANDS section refers to).
pub fn man_page(path: &[String]) -> Result<Vec<u8>, Failure> {
    let mut command = documented_command();
    for (depth, name) in path.iter().enumerate() {
        let known: Vec<String> = command
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| s.get_name().to_string())
            .collect();
        let found = command
            .get_subcommands()
            .find(|s| !s.is_hide_set() && s.get_name() == name)
            .cloned();
        command = match found {
            Some(sub) => sub,
            None if known.is_empty() => {
                return Err(Failure::new(
                    Exit::Usage,
                    format!("`{}` has no subcommands", path[..depth].join(" ")),
                ))
            }
            None => {
                return Err(Failure::new(
                    Exit::Usage,
                    format!("no manual page for {name:?}; one of: {}", known.join(", ")),
                ))
            }
        };
    }
    let mut page = Vec::new();
    manual(command)
        .render(&mut page)
        .map_err(|e| Failure::new(Exit::Usage, format!("cannot render the manual page: {e}")))?;
    Ok(page)
}

/// The page of one command; every page's footer names the program and its
/// version (clap_mangen would name a subcommand and its empty version).
fn manual(command: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(command).source(concat!("labelpress ", env!("CARGO_PKG_VERSION")))
}

/// Writes the page of `command` and of each of its visible subcommands,
/// recursively, into `dir`; returns how many.
fn write_pages(command: clap::Command, dir: &Path) -> std::io::Result<usize> {
    let mut written = 0;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        written += write_pages(sub.clone(), dir)?;
    }
    manual(command).generate_to(dir)?;
    Ok(written + 1)
}

/// Writes every page (`labelpress.1`, `labelpress-render.1`, ...) into
/// `dir`, as a package installs them; returns how many.
pub fn write_man_pages(dir: &Path) -> Result<usize, Failure> {
    let failed = |e: std::io::Error| {
        Failure::new(
            Exit::Usage,
            format!("cannot write manual pages into {}: {e}", dir.display()),
        )
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    write_pages(documented_command(), dir).map_err(failed)
}

/// `labelpress man [COMMAND...] [--dir DIR]`.
pub fn run_man(path: &[String], dir: Option<&Path>) -> Result<Exit, Failure> {
    match dir {
        Some(dir) => {
            if !path.is_empty() {
                return Err(Failure::new(
                    Exit::Usage,
                    "--dir writes every page; name no COMMAND with it",
                ));
            }
            let pages = write_man_pages(dir)?;
            eprintln!("{}: {pages} manual page(s)", dir.display());
        }
        None => Destination::Stdout.write(&man_page(path)?)?,
    }
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subcommand_page_is_named_after_its_path() {
        let page =
            String::from_utf8(man_page(&["token".into(), "expiry".into()]).unwrap()).unwrap();
        assert!(
            page.contains(".TH labelpress-token-expiry 1  \"labelpress "),
            "{page}"
        );
        let err = man_page(&["nope".into()]).unwrap_err();
        assert_eq!(err.exit, Exit::Usage);
        assert!(err.message.contains("render"), "{}", err.message);
        assert!(!err.message.contains("render-worker"), "{}", err.message);
    }

    #[test]
    fn every_shell_gets_a_script_naming_the_subcommands() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
            clap_complete::Shell::Elvish,
            clap_complete::Shell::PowerShell,
        ] {
            let script = String::from_utf8(completions(shell)).unwrap();
            for name in ["render", "check", "serve", "token", "expiry"] {
                assert!(script.contains(name), "{shell}: {name}");
            }
        }
    }
}
