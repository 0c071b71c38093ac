//! The parse-work budget of one profile resolution (SECURITY.md, "Profile
//! loading"). Each pattern is size-checked alone (length, then its parse)
//! before anything works on the profile's patterns together, and the work of
//! parsing them all is bounded: the Unicode class ranges their parses build
//! (what costs time and memory: `\pL` is about 650 ranges, built again for each
//! occurrence) are counted against [`MAX_CLASS_RANGES`] for the whole
//! resolution, `extends` chain included, and the clock against the caller's
//! deadline (`--timeout`). So the worst profile the limits allow loads or fails
//! in a bounded time, whatever it holds.

use std::cell::RefCell;
use std::time::Instant;

use regex_syntax::hir::{Class, Hir, HirKind};

/// Class ranges (and literals) that the parses of one resolution may build.
/// The built-in profiles together need under 2% of it; the attack of issue 19
/// (1,000 rules of `\pL` repeated 1,364 times) needs 240 times it.
pub const MAX_CLASS_RANGES: usize = 4_000_000;

struct Budget {
    left: usize,
    deadline: Option<Instant>,
}

thread_local! {
    static BUDGET: RefCell<Option<Budget>> = const { RefCell::new(None) };
}

/// Runs `f` (one resolution) with a fresh budget and, when given, a deadline.
/// Nested calls share the outermost budget.
pub fn with_budget<T>(deadline: Option<Instant>, f: impl FnOnce() -> T) -> T {
    let outer = BUDGET.with(|b| b.borrow().is_some());
    if outer {
        return f();
    }
    BUDGET.with(|b| *b.borrow_mut() = Some(Budget { left: MAX_CLASS_RANGES, deadline }));
    let out = f();
    BUDGET.with(|b| *b.borrow_mut() = None);
    out
}

/// Loading is never cut shorter than this, whatever `--timeout` says: a
/// profile that a short deadline is right for scanning can take longer to
/// compile (the budgets above bound it near a second).
pub const MIN_LOAD_DEADLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// The deadline for loading a profile under `--timeout timeout`: loading
/// counts against it, but gets at least [`MIN_LOAD_DEADLINE`].
pub fn load_deadline(timeout: std::time::Duration) -> Instant {
    Instant::now() + timeout.max(MIN_LOAD_DEADLINE)
}

/// Why the budget is spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spent {
    /// The class ranges of the parses so far are over [`MAX_CLASS_RANGES`].
    Work,
    /// The deadline passed.
    Deadline,
    /// One pattern alone is estimated over [`MAX_PATTERN_WEIGHT`].
    Pattern,
}

/// The most one pattern's parse may be estimated to cost, before it is parsed.
pub const MAX_PATTERN_WEIGHT: usize = MAX_CLASS_RANGES / 4;

/// Case folding a Unicode class costs this many times building it.
const CASE_FOLD_FACTOR: usize = 30;

/// An upper estimate of what parsing `pattern` builds, from its text alone:
/// each Unicode class escape at the size of its largest kind, times
/// `CASE_FOLD_FACTOR` when the pattern may fold case. Cheap, so it runs
/// before the parse that it bounds.
pub fn estimate(pattern: &str, case_insensitive: bool) -> usize {
    let bytes = pattern.as_bytes();
    let mut classes = 0usize;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            classes += match bytes[i + 1] {
                b'p' | b'P' => 700,
                b'w' | b'W' => 800,
                b'd' | b'D' => 80,
                b's' | b'S' => 20,
                _ => 0,
            };
            i += 2;
        } else {
            i += 1;
        }
    }
    let folds = case_insensitive || pattern.contains("(?i") || pattern.contains("i)") || pattern.contains("i:");
    classes.saturating_mul(if folds { CASE_FOLD_FACTOR } else { 1 }).saturating_add(pattern.len())
}

/// Admits a pattern whose parse is estimated at `estimate` (see
/// [`estimate`]): over [`MAX_PATTERN_WEIGHT`] alone, or over what is left,
/// it is not parsed at all.
pub fn admit(estimate: usize) -> Result<(), Spent> {
    if estimate > MAX_PATTERN_WEIGHT {
        return Err(Spent::Pattern);
    }
    BUDGET.with(|b| {
        let b = b.borrow();
        let Some(b) = b.as_ref() else { return Ok(()) };
        if estimate > b.left {
            return Err(Spent::Work);
        }
        check(b)
    })
}

/// Counts a parse that built `hir` and was estimated at `estimate` against
/// the current budget: the larger of the two.
pub fn charge_parse(hir: &Hir, estimate: usize) -> Result<(), Spent> {
    BUDGET.with(|b| {
        let mut b = b.borrow_mut();
        let Some(b) = b.as_mut() else { return Ok(()) };
        b.left = b.left.saturating_sub(weight(hir).max(estimate));
        check(b)
    })
}

/// Checks the deadline only (between steps that parse nothing).
pub fn check_deadline() -> Result<(), Spent> {
    BUDGET.with(|b| b.borrow().as_ref().map_or(Ok(()), check))
}

fn check(b: &Budget) -> Result<(), Spent> {
    if b.left == 0 {
        return Err(Spent::Work);
    }
    if b.deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(Spent::Deadline);
    }
    Ok(())
}

/// Ranges and literals in `hir`. Recursion is bounded by the parser's nest
/// limit.
fn weight(hir: &Hir) -> usize {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 1,
        HirKind::Literal(l) => l.0.len(),
        HirKind::Class(Class::Unicode(c)) => c.ranges().len(),
        HirKind::Class(Class::Bytes(c)) => c.ranges().len(),
        HirKind::Repetition(r) => 1 + weight(&r.sub),
        HirKind::Capture(c) => 1 + weight(&c.sub),
        HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().map(weight).sum(),
    }
}

impl Spent {
    /// The error message.
    pub fn message(self) -> String {
        match self {
            Spent::Work => format!(
                "the profile's patterns are too large to parse together (over {MAX_CLASS_RANGES} class ranges: \
                 Unicode classes such as \\pL or \\w cost hundreds each; prefer ASCII classes like [A-Za-z0-9_])"
            ),
            Spent::Deadline => "loading the profile passed the --timeout deadline".to_string(),
            Spent::Pattern => format!(
                "the pattern holds too many Unicode classes to parse (over {MAX_PATTERN_WEIGHT} estimated class \
                 ranges, case folding counted {CASE_FOLD_FACTOR} times: prefer ASCII classes like [A-Za-z0-9_])"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passed_deadline_stops_loading() {
        let past = Instant::now();
        assert_eq!(with_budget(Some(past), check_deadline), Err(Spent::Deadline));
        assert_eq!(with_budget(None, check_deadline), Ok(()));
        assert_eq!(check_deadline(), Ok(()), "no budget outside a resolution");
    }

    #[test]
    fn estimates_count_unicode_classes_and_case_folding() {
        assert_eq!(estimate("abc", false), 3);
        assert_eq!(estimate("\\pL", false), 703);
        assert_eq!(estimate("\\pL", true), 700 * 30 + 3);
        assert!(admit(estimate(&"\\pL".repeat(1364), true)).is_err());
        assert!(admit(estimate(&"\\pL".repeat(1364), false)).is_ok());
    }
}
