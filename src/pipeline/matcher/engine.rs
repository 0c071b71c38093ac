//! The regex engines a pattern runs on (`regex`, or `regex-lite` for a
//! built-in pattern in a one-shot run: see [`crate::profile::lite`]), and the
//! builders that apply the size limits of [`super::limits`].

use regex::{Regex, RegexBuilder};

use super::limits::{DFA_SIZE_LIMIT, SIZE_LIMIT};
use super::{Found, Groups};
use crate::error::RuleError;
use crate::profile::builtin::LiteForm;

/// A compiled pattern, on one engine or the other.
#[derive(Debug)]
pub(super) enum Engine {
    Full(Regex),
    Lite(regex_lite::Regex),
}

impl Engine {
    pub(super) fn compile(pattern: &str, lite: Option<LiteForm>) -> Option<Engine> {
        // A lite form was checked to compile when faultsift was built; should
        // it not, the pattern still runs, on `regex`.
        let lite = lite.and_then(|l| regex_lite::RegexBuilder::new(l.pattern).size_limit(SIZE_LIMIT).build().ok());
        match lite {
            Some(re) => Some(Engine::Lite(re)),
            None => build_regex(pattern).ok().map(Engine::Full),
        }
    }

    pub(super) fn is_match(&self, line: &str) -> bool {
        match self {
            Engine::Full(re) => re.is_match(line),
            Engine::Lite(re) => re.is_match(line),
        }
    }

    pub(super) fn find(&self, line: &str) -> Option<Found> {
        fn named<'a>(names: impl Iterator<Item = Option<&'a str>>, get: impl Fn(&str) -> Option<String>) -> Groups {
            names.flatten().filter_map(|name| Some((name.to_string(), get(name)?))).collect()
        }
        let ((start, end), groups) = match self {
            Engine::Full(re) => {
                let caps = re.captures(line)?;
                let whole = caps.get(0)?;
                ((whole.start(), whole.end()), named(re.capture_names(), |n| Some(caps.name(n)?.as_str().into())))
            }
            Engine::Lite(re) => {
                let caps = re.captures(line)?;
                let whole = caps.get(0)?;
                ((whole.start(), whole.end()), named(re.capture_names(), |n| Some(caps.name(n)?.as_str().into())))
            }
        };
        Some(Found { start, end, groups })
    }
}

pub(super) fn build_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern).size_limit(SIZE_LIMIT).dfa_size_limit(DFA_SIZE_LIMIT).build()
}

/// A `stall` screen pattern's regex: as [`build_regex`], but without the
/// literal prefilters `regex` derives for every pattern. Those pay for
/// themselves over a long haystack; a screen's lines are short and already
/// picked by [`super::screen`]'s own literal search, and deriving them costs a
/// one-shot tick more than searching its screen without them.
pub(super) fn build_screen_regex(pattern: &str) -> Result<regex_automata::meta::Regex, RuleError> {
    use regex_automata::meta;
    let syntax = regex_automata::util::syntax::Config::new().utf8(true);
    meta::Builder::new()
        .syntax(syntax)
        .configure(
            meta::Config::new()
                .auto_prefilter(false)
                .nfa_size_limit(Some(SIZE_LIMIT))
                .hybrid_cache_capacity(DFA_SIZE_LIMIT),
        )
        .build(pattern)
        .map_err(|e| {
            let shown = crate::profile::schema::shown(pattern);
            match e.size_limit() {
                Some(limit) => RuleError::TooBig { pattern: shown, limit },
                None => RuleError::Regex { pattern: shown, message: e.to_string().replace('\n', " ") },
            }
        })
}

/// A compile failure as the rule error that names it.
pub(super) fn compile_error(pattern: &str, e: regex::Error) -> RuleError {
    let pattern = crate::profile::schema::shown(pattern);
    match e {
        regex::Error::CompiledTooBig(limit) => RuleError::TooBig { pattern, limit },
        other => RuleError::Regex { pattern, message: other.to_string().replace('\n', " ") },
    }
}
