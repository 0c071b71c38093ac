//! Exit status (SPEC §6): 0, 1 and 2 as grep has them, and how the outcomes of
//! many logs merge into one.

/// The process's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ExitCode {
    /// Every log classified (or, with `-q`, some log is an environment fault).
    Success,
    /// With `-q`: no log is an environment fault. With `test`: a check failed.
    NoMatch,
    /// A usage or profile error, or a log that could not be read.
    Error,
}

impl ExitCode {
    /// The numeric status.
    pub fn code(self) -> u8 {
        match self {
            ExitCode::Success => 0,
            ExitCode::NoMatch => 1,
            ExitCode::Error => 2,
        }
    }

    /// The status of `classify` over many logs: an unreadable log makes it 2.
    pub fn for_classify(any_error: bool) -> Self {
        if any_error { ExitCode::Error } else { ExitCode::Success }
    }

    /// The status of `classify -q`: as `grep -q`, a match wins over an error.
    pub fn for_quiet(any_env_fault: bool, any_error: bool) -> Self {
        match (any_env_fault, any_error) {
            (true, _) => ExitCode::Success,
            (false, true) => ExitCode::Error,
            (false, false) => ExitCode::NoMatch,
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_grep_like() {
        assert_eq!([ExitCode::Success, ExitCode::NoMatch, ExitCode::Error].map(ExitCode::code), [0, 1, 2]);
    }

    #[test]
    fn classify_merges_errors() {
        assert_eq!(ExitCode::for_classify(false), ExitCode::Success);
        assert_eq!(ExitCode::for_classify(true), ExitCode::Error);
    }

    #[test]
    fn quiet_match_wins_over_error() {
        assert_eq!(ExitCode::for_quiet(true, true), ExitCode::Success);
        assert_eq!(ExitCode::for_quiet(true, false), ExitCode::Success);
        assert_eq!(ExitCode::for_quiet(false, true), ExitCode::Error);
        assert_eq!(ExitCode::for_quiet(false, false), ExitCode::NoMatch);
    }
}
