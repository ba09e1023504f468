//! The exit codes of the `labelpress` binary, in one table (documented in
//! `docs/exit-codes.md`). Every way out of the process goes through [`Exit`]:
//! a finished command returns one, a failure carries one in [`Failure`].

use std::process::ExitCode;

/// What the process tells its caller. The numbers are a public interface
/// (scripts test them): never renumber, only add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// The command did what was asked.
    Success = 0,
    /// The input was refused: `check`/`render` found the request invalid
    /// (its API-001 or API-002 body is printed), `barcode` its content or
    /// options, or the admin API refused a `token` command (4xx: the admin
    /// token, an unknown id, a bad value).
    Refused = 1,
    /// Usage, configuration or start-up: arguments clap rejects (clap exits
    /// 2 itself), a file that cannot be read or written, a bad config, fonts
    /// or resources folder, a server that cannot start, no admin token; a
    /// render worker whose engine or socket failed.
    Usage = 2,
    /// A bug on our side: the renderer failed or panicked (its API-500 or
    /// API-501 body is printed); a render worker whose render panicked.
    Internal = 3,
    /// `token`: the server could not be reached (connection refused, timed
    /// out, unknown host, TLS) or answered 5xx; `print`: the printer could
    /// not be reached or did not take the labels. Trying again later may work.
    Unavailable = 4,
}

/// The table as `labelpress --help` ends with it (and the manual page's
/// EXTRA section); a test keeps it in step with the enum.
pub const HELP: &str = "\
Exit status:
  0  success
  1  refused: the request is invalid (check, render: its error body is printed), \
a barcode's content or options are invalid, or the admin API refused a token command \
(admin token, unknown id, bad value)
  2  usage, configuration or start-up error: bad arguments, a file that cannot be read \
or written, a bad config/fonts/resources folder, a server that cannot start, no admin token
  3  internal error: the renderer failed or panicked (API-500/API-501 body printed)
  4  token: the server could not be reached (connection refused, timeout, unknown host, \
TLS) or answered 5xx; print: the printer could not be reached; try again later";

impl Exit {
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The exit for an error the render route would answer with `status`:
    /// the server's own failures (5xx) are [`Exit::Internal`], the rest
    /// refusals of the input.
    pub fn for_api_status(status: u16) -> Exit {
        if status >= 500 {
            Exit::Internal
        } else {
            Exit::Refused
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

/// A command that could not finish: the message goes to standard error
/// after `labelpress: `, and the process exits with `exit`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    pub exit: Exit,
    pub message: String,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
        }
    }
}

/// Plain messages are usage and start-up errors, as they always were.
impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::new(Exit::Usage, message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::new(Exit::Usage, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_are_the_documented_ones() {
        let table = [
            (Exit::Success, 0),
            (Exit::Refused, 1),
            (Exit::Usage, 2),
            (Exit::Internal, 3),
            (Exit::Unavailable, 4),
        ];
        for (exit, code) in table {
            assert_eq!(exit.code(), code, "{exit:?}");
        }
        // clap's own usage errors exit 2: the same meaning.
        assert_eq!(
            Exit::Usage.code() as i32,
            clap::error::Error::<clap::error::DefaultFormatter>::new(
                clap::error::ErrorKind::InvalidValue
            )
            .exit_code()
        );
    }

    #[test]
    fn the_help_lists_every_code_once() {
        for exit in [
            Exit::Success,
            Exit::Refused,
            Exit::Usage,
            Exit::Internal,
            Exit::Unavailable,
        ] {
            let line = format!("\n  {}  ", exit.code());
            assert_eq!(HELP.matches(&line).count(), 1, "{exit:?} in {HELP}");
        }
    }

    #[test]
    fn api_statuses_split_into_refused_and_internal() {
        assert_eq!(Exit::for_api_status(422), Exit::Refused);
        assert_eq!(Exit::for_api_status(400), Exit::Refused);
        assert_eq!(Exit::for_api_status(500), Exit::Internal);
    }
}
