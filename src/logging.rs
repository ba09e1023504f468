//! The server's log: one line per event on standard output, as text or as
//! JSON (`serve --log-format`, docs/operations.md), filtered by `RUST_LOG`
//! (default `info`).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// How each log line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable `key=value` lines.
    #[default]
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `message`,
    /// the event's fields at the top level, and the fields of the span the
    /// event belongs to (a request's `req_id`, `trace_id`…) under `span`.
    Json,
}

/// Colour only for a person watching a terminal: a file, a pipe or a log
/// collector gets no escape sequences, and `NO_COLOR` (any non-empty value,
/// no-color.org) turns colour off everywhere.
pub fn use_colour(is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// Installs the process's log subscriber; later calls do nothing (the first
/// one wins, as a second global subscriber cannot be set).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let installed = match format {
        LogFormat::Text => builder
            .with_ansi(use_colour(
                std::io::stdout().is_terminal(),
                std::env::var_os("NO_COLOR").as_deref(),
            ))
            .try_init(),
        // JSON never carries colour: the formatter writes no escapes.
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
    };
    // Already installed (a test harness, or a second `serve` in-process).
    drop(installed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn colour_needs_a_terminal_and_no_no_color() {
        assert!(use_colour(true, None));
        assert!(use_colour(true, Some(OsStr::new(""))));
        assert!(!use_colour(true, Some(OsStr::new("1"))));
        assert!(!use_colour(false, None));
        assert!(!use_colour(false, Some(OsStr::new("1"))));
    }
}
