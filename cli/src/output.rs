//! Where the commands' text goes: any `std::io::Write` (the command's
//! buffered, locked stdout), with write errors kept apart from the
//! commands' own errors so that `main` can end quietly on a closed pipe
//! and say so on a full disk.

use std::fmt;
use std::io;

/// Why a command failed.
#[derive(Debug)]
pub enum CliError {
    /// What was wrong with the arguments or the input, for the user.
    Message(String),
    /// The output could not be written (closed pipe, full disk).
    Write(io::Error),
}

impl From<String> for CliError {
    fn from(m: String) -> Self {
        CliError::Message(m)
    }
}

impl From<&str> for CliError {
    fn from(m: &str) -> Self {
        CliError::Message(m.to_string())
    }
}

impl From<io::Error> for CliError {
    fn from(e: io::Error) -> Self {
        CliError::Write(e)
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Message(m) => f.write_str(m),
            CliError::Write(e) => write!(f, "cannot write the output: {e}"),
        }
    }
}

/// A `fmt::Write` over an `io::Write` that keeps the first I/O error
/// (`fmt::Error` carries none), for library code that writes text.
pub struct FmtWriter<'a> {
    inner: &'a mut dyn io::Write,
    pub error: Option<io::Error>,
}

impl<'a> FmtWriter<'a> {
    pub fn new(inner: &'a mut dyn io::Write) -> Self {
        FmtWriter { inner, error: None }
    }
}

impl fmt::Write for FmtWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error.get_or_insert(e);
            fmt::Error
        })
    }
}
