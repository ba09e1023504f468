//! The `labelpress` binary: parses arguments and hands off to the library.
use clap::Parser;

fn main() -> std::process::ExitCode {
    labelpress::cli::run(labelpress::cli::Cli::parse())
}
