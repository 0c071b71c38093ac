//! The resolved configuration of `classify`: what the flags parse to, validated
//! once (sizes, durations, log sources), with no I/O.

use std::time::Duration;

pub use crate::output::render::Format;
pub use crate::output::stall::StallFormat;
use crate::pipeline::Settings;
pub use crate::pipeline::records::InputMode;
pub use crate::pipeline::window::LogSource;
use crate::pipeline::window::MAX_TAIL_BYTES;

/// The shortest `stall --threshold`: below it, a pause between two tool calls
/// or a slow first token reads as a stall.
pub const MIN_THRESHOLD_S: u64 = 30;
/// The longest `stall --threshold`: a week.
pub const MAX_THRESHOLD_S: u64 = 7 * 24 * 3600;

/// The longest `--timeout` accepted.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);

/// When to colour output for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always (overrides `NO_COLOR`).
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Resolves `auto` from whether the output is a terminal and `NO_COLOR`.
    pub fn resolve(self, is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && no_color.is_none_or(|v| v.is_empty()),
        }
    }
}

/// Output formats of `test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TestFormat {
    /// One line per failure, then a summary line.
    Human,
    /// One JSON object: per-profile counts, failures, warnings.
    Json,
}

/// Parses `--threshold`: a [`parse_duration`] of whole seconds (`300`,
/// `300s`, `5m`, `1h`), at least [`MIN_THRESHOLD_S`] and at most a week.
pub fn parse_threshold(text: &str) -> Result<u64, String> {
    let d = parse_duration(text)?;
    if d.subsec_nanos() != 0 {
        return Err(format!("`{text}` is not a whole number of seconds (examples: 300s, 5m)"));
    }
    let secs = d.as_secs();
    if secs < MIN_THRESHOLD_S {
        return Err(format!(
            "`{text}` is under the {MIN_THRESHOLD_S}s minimum: a pause between two steps would read as a stall"
        ));
    }
    if secs > MAX_THRESHOLD_S {
        return Err(format!("`{text}` is over the one-week maximum"));
    }
    Ok(secs)
}

/// Everything `classify` needs besides the profile.
#[derive(Debug, Clone)]
pub struct ClassifyConfig {
    /// The logs, in output order.
    pub logs: Vec<LogSource>,
    /// How each log is read and classified.
    pub settings: Settings,
    /// Output format.
    pub format: Format,
    /// Indent JSON.
    pub pretty: bool,
    /// `-q`: print nothing, answer in the exit status.
    pub quiet: bool,
    /// `--summary`: counts after the verdicts.
    pub summary: bool,
    /// Colour the text format.
    pub color: bool,
    /// Worker threads.
    pub threads: usize,
}

/// Parses a byte size: `65536`, `64KiB`, `64K`, `1MiB`, `1M`, `1.5KiB` (binary
/// units; `KB`/`MB` are decimal; a fraction is rounded down to whole bytes).
/// Must be 1 byte to 64 MiB.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let not_a_size = || format!("`{text}` is not a size (examples: 65536, 64KiB, 1.5MiB)");
    let n: f64 = num.parse().map_err(|_| not_a_size())?;
    if !n.is_finite() || n < 0.0 {
        return Err(not_a_size());
    }
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        _ => return Err(format!("unknown unit in `{text}` (use B, KiB, MiB)")),
    };
    let exact = n * scale as f64;
    if exact > u64::MAX as f64 / 2.0 {
        return Err(format!("`{text}` is over the 64MiB limit: faultsift reads a bounded tail, not whole logs"));
    }
    let bytes = exact as u64;
    if bytes == 0 {
        return Err("the window must hold at least 1 byte".to_string());
    }
    if bytes > MAX_TAIL_BYTES {
        return Err(format!("`{text}` is over the 64MiB limit: faultsift reads a bounded tail, not whole logs"));
    }
    Ok(bytes)
}

/// Parses a byte offset (`--since`): a whole number of bytes.
pub fn parse_offset(text: &str) -> Result<u64, String> {
    text.trim().parse().map_err(|_| format!("`{text}` is not a byte offset (a whole number of bytes, such as 1048576)"))
}

/// Parses a duration given on the command line: a number, fractions
/// allowed, and a unit: `ms`, `s` (also a bare number), `m` or `min`, `h`.
/// The one duration syntax of the options (`--timeout`, `--threshold`);
/// each option checks its own bounds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| format!("`{text}` is not a duration (examples: 2s, 200ms, 5m)"))?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 0.001,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("unknown unit in `{text}` (use ms, s, m or h)")),
    };
    Duration::try_from_secs_f64(n * scale).map_err(|_| format!("`{text}` is too long"))
}

/// Parses `--timeout`: a [`parse_duration`] over 0 and at most [`MAX_TIMEOUT`].
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let d = parse_duration(text)?;
    if d.is_zero() || d > MAX_TIMEOUT {
        return Err(format!("`{text}` must be more than 0 and at most 1 hour"));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("65536"), Ok(65_536));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("64k"), Ok(65_536));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("10KB"), Ok(10_000));
        assert_eq!(parse_size("1.5KiB"), Ok(1536));
    }

    #[test]
    fn bad_sizes_say_why() {
        assert!(parse_size("65MiB").unwrap_err().contains("64MiB limit"));
        assert!(parse_size("1GiB").unwrap_err().contains("64MiB limit"));
        assert!(parse_size("0").unwrap_err().contains("at least 1 byte"));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("5 parsecs").unwrap_err().contains("unknown unit"));
        assert!(parse_size("99999999999999999999KiB").is_err());
    }

    #[test]
    fn color_choice() {
        use std::ffi::OsStr;
        assert!(ColorChoice::Auto.resolve(true, None));
        assert!(ColorChoice::Auto.resolve(true, Some(OsStr::new(""))));
        assert!(!ColorChoice::Auto.resolve(true, Some(OsStr::new("1"))));
        assert!(!ColorChoice::Auto.resolve(false, None));
        assert!(ColorChoice::Always.resolve(false, Some(OsStr::new("1"))));
        assert!(!ColorChoice::Never.resolve(true, None));
    }

    #[test]
    fn thresholds() {
        assert_eq!(parse_threshold("300"), Ok(300));
        assert_eq!(parse_threshold("300s"), Ok(300));
        assert_eq!(parse_threshold("5m"), Ok(300));
        assert_eq!(parse_threshold("30s"), Ok(30));
        assert_eq!(parse_threshold("2h"), Ok(7200));
        assert!(parse_threshold("29s").unwrap_err().contains("30s minimum"));
        assert!(parse_threshold("0").unwrap_err().contains("minimum"));
        assert!(parse_threshold("8d").unwrap_err().contains("unknown unit"));
        assert!(parse_threshold("200h").unwrap_err().contains("maximum"));
        assert_eq!(parse_threshold("1.5m"), Ok(90), "the duration syntax of --timeout");
        assert!(parse_threshold("90.5s").unwrap_err().contains("whole number of seconds"));
        assert!(parse_threshold("99999999999999999999h").unwrap_err().contains("too long"));
    }

    #[test]
    fn timeouts() {
        assert_eq!(parse_timeout("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_timeout("200ms"), Ok(Duration::from_millis(200)));
        assert_eq!(parse_timeout("1.5"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_timeout("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_timeout("0s").is_err());
        assert_eq!(parse_timeout("1h"), Ok(Duration::from_secs(3600)));
        assert!(parse_timeout("2h").is_err());
        assert!(parse_timeout("soon").is_err());
        assert!(parse_timeout("5x").unwrap_err().contains("unknown unit"));
        assert!(parse_timeout("99999999999999999999h").unwrap_err().contains("too long"));
    }
}
