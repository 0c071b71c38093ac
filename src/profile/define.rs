//! Named pattern fragments: a profile's `[define]` table names a piece of
//! regex once (a program's log prefix, its glyphs), and `{{name}}` in any
//! pattern stands for it. Expanded on the TOML table before anything else
//! reads it, so the rest of the loader, `show` and the build script see
//! ordinary patterns. Self-contained: `build.rs` includes this file.

use std::collections::BTreeMap;

/// The top-level key that holds the fragments.
pub const KEY: &str = "define";

/// The most bytes the expanded patterns of one file may add up to. A
/// profile is untrusted: a large fragment referred to many times must not
/// make the loader build gigabytes before any other limit is checked.
pub const MAX_EXPANDED_TOTAL: usize = 8 << 20;

/// Limits on what expansion builds.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// One expanded pattern (the loader's pattern-length limit).
    pub pattern: usize,
    /// All expanded patterns of the file together.
    pub total: usize,
}

/// A reference that cannot be expanded, or a fragment that is not usable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefineError {
    /// Where: `define.NAME`, `rule ID`, `progress[2]`, `busy[0]`, …
    pub at: String,
    /// What is wrong, in a sentence.
    pub message: String,
}

/// Expands every `{{name}}` in the pattern-bearing keys of `table` (rule
/// `pattern`, `patterns` and `after.pattern`; top-level `progress`, `busy`,
/// `volatile` and `env_fault_patterns`; `tool_output`'s patterns), and
/// removes `[define]`. Examples and
/// counterexamples are text, not patterns, and are left as written.
///
/// A fragment is inserted as written, so write it as one group (`(?:…)`)
/// when it is quantified or holds an alternation. A fragment may use other
/// fragments (a program's glyphs, written once for every prefix built on
/// them), in any order, but not in a circle; each fragment expands to at most
/// a pattern's size. Outside a character class `{{` is a syntax error in a
/// pattern (a repetition needs a count), so a reference cannot be mistaken
/// for one.
pub fn expand(table: &mut toml::Table, limits: Limits) -> Result<(), DefineError> {
    let mut budget = Budget { limits, used: 0 };
    let defines = match table.remove(KEY) {
        None => return Ok(()),
        Some(toml::Value::Table(t)) => fragments(t, limits.pattern)?,
        Some(_) => return Err(err(KEY, "must be a table of names and pattern fragments")),
    };
    for key in ["progress", "busy", "volatile", "env_fault_patterns"] {
        if let Some(toml::Value::Array(items)) = table.get_mut(key) {
            for (i, item) in items.iter_mut().enumerate() {
                expand_value(item, &defines, &mut budget, || format!("{key}[{i}]"))?;
            }
        }
    }
    if let Some(toml::Value::Table(t)) = table.get_mut("tool_output") {
        for key in ["item", "tool", "result", "row"] {
            if let Some(p) = t.get_mut(key) {
                expand_value(p, &defines, &mut budget, || format!("tool_output.{key}"))?;
            }
        }
    }
    if let Some(toml::Value::Array(rules)) = table.get_mut("rule") {
        for (i, rule) in rules.iter_mut().enumerate() {
            let Some(rule) = rule.as_table_mut() else { continue };
            let label = rule.get("id").and_then(|v| v.as_str()).map_or_else(|| format!("#{}", i + 1), str::to_string);
            let at = || format!("rule {label}");
            if let Some(p) = rule.get_mut("pattern") {
                expand_value(p, &defines, &mut budget, at)?;
            }
            if let Some(toml::Value::Array(items)) = rule.get_mut("patterns") {
                for p in items {
                    expand_value(p, &defines, &mut budget, at)?;
                }
            }
            if let Some(p) = rule.get_mut("after").and_then(|a| a.as_table_mut()).and_then(|a| a.get_mut("pattern")) {
                expand_value(p, &defines, &mut budget, at)?;
            }
        }
    }
    Ok(())
}

fn err(at: impl Into<String>, message: impl Into<String>) -> DefineError {
    DefineError { at: at.into(), message: message.into() }
}

fn fragments(table: toml::Table, max: usize) -> Result<BTreeMap<String, String>, DefineError> {
    let mut raw = BTreeMap::new();
    for (name, value) in table {
        let at = format!("{KEY}.{name}");
        if !valid_name(&name) {
            return Err(err(at, "a fragment's name is lower_snake (a-z, 0-9, _), starting with a letter"));
        }
        let Some(text) = value.as_str() else { return Err(err(at, "a fragment is a string")) };
        raw.insert(name, text.to_string());
    }
    for (name, text) in &raw {
        if let Some(unknown) = references(text).find(|r| !raw.contains_key(*r)) {
            let known: Vec<&str> = raw.keys().map(String::as_str).collect();
            let message = format!("`{{{{{unknown}}}}}` is not defined (defined: {})", known.join(", "));
            return Err(err(format!("{KEY}.{name}"), message));
        }
    }
    // Expand the fragments whose references are all expanded, until none is
    // left; a round that expands none means the rest refer to each other.
    let mut done = BTreeMap::new();
    while !raw.is_empty() {
        let ready: Vec<String> =
            raw.iter().filter(|(_, t)| references(t).all(|r| done.contains_key(r))).map(|(n, _)| n.clone()).collect();
        if ready.is_empty() {
            let circle: Vec<&str> = raw.keys().map(String::as_str).collect();
            return Err(err(KEY, format!("fragments refer to each other in a circle: {}", circle.join(", "))));
        }
        for name in ready {
            let text = raw.remove(&name).unwrap_or_default();
            // A fragment without references is used as written, and its size
            // is checked where a pattern uses it (the error names the rule).
            let expanded = if text.contains("{{") {
                expand_str(&text, &done, max).map_err(|m| err(format!("{KEY}.{name}"), m))?
            } else {
                text
            };
            done.insert(name, expanded);
        }
    }
    Ok(done)
}

/// The names a pattern or fragment refers to (`{{name}}`).
fn references(text: &str) -> impl Iterator<Item = &str> {
    text.split("{{").skip(1).filter_map(|after| after.find("}}").map(|close| &after[..close]))
}

fn valid_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// What expansion has built so far, against its limits.
struct Budget {
    limits: Limits,
    used: usize,
}

fn expand_value(
    value: &mut toml::Value,
    defines: &BTreeMap<String, String>,
    budget: &mut Budget,
    at: impl Fn() -> String,
) -> Result<(), DefineError> {
    if let toml::Value::String(s) = value
        && s.contains("{{")
    {
        let room = budget.limits.pattern.min(budget.limits.total.saturating_sub(budget.used));
        let expanded = expand_str(s, defines, room).map_err(|m| err(at(), m))?;
        budget.used += expanded.len();
        *s = expanded;
    }
    Ok(())
}

/// `pattern` with each `{{name}}` replaced by its fragment, if that is at most
/// `max` bytes long.
pub fn expand_str(pattern: &str, defines: &BTreeMap<String, String>, max: usize) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else { return Err("`{{` without a closing `}}`".to_string()) };
        let name = &after[..close];
        match defines.get(name) {
            Some(fragment) if out.len() + fragment.len() <= max => out.push_str(fragment),
            Some(_) => {
                return Err(format!(
                    "the pattern expands to more than {max} bytes (the limit on a pattern, or what is left of the file's)"
                ));
            }
            None if defines.is_empty() => {
                return Err(format!("`{{{{{name}}}}}` refers to a fragment, and [define] is empty"));
            }
            None => {
                let known: Vec<&str> = defines.keys().map(String::as_str).collect();
                return Err(format!("`{{{{{name}}}}}` is not defined (defined: {})", known.join(", ")));
            }
        }
        rest = &after[close + 2..];
    }
    if out.len() + rest.len() > max {
        return Err(format!(
            "the pattern expands to more than {max} bytes (the limit on a pattern, or what is left of the file's)"
        ));
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { pattern: 4096, total: MAX_EXPANDED_TOTAL };

    fn expanded(text: &str) -> Result<toml::Table, DefineError> {
        let mut t: toml::Table = toml::from_str(text).unwrap();
        expand(&mut t, LIMITS).map(|()| t)
    }

    #[test]
    fn expansion_stops_at_the_pattern_and_file_limits() {
        let big = "x".repeat(1000);
        let text = |refs: usize, patterns: usize| {
            let p = format!("'{}'", "{{big}}".repeat(refs));
            format!("[define]\nbig = '{big}'\n[[rule]]\nid = \"r\"\npatterns = [{}]\n", vec![p; patterns].join(", "))
        };
        assert!(expanded(&text(4, 1)).is_ok());
        let e = expanded(&text(5, 1)).unwrap_err();
        assert!(e.message.contains("more than 4096 bytes"), "{}", e.message);
        let mut t: toml::Table = toml::from_str(&text(4, 3)).unwrap();
        let e = expand(&mut t, Limits { pattern: 4096, total: 10_000 }).unwrap_err();
        assert!(e.message.contains("more than 2000 bytes"), "the third pattern has what is left: {}", e.message);
    }

    #[test]
    fn references_in_every_pattern_key_are_expanded_and_text_is_not() {
        let t = expanded(
            r#"
progress = ['{{lead}}Ran ']
busy = ['{{lead}}Working']
tool_output = { item = '{{lead}}', tool = '{{lead}}Ran ', row = '^ {4}' }
[define]
lead = '^\s*(?:■ )?'
[[rule]]
id = "a"
patterns = ['{{lead}}stream error', 'x{{lead}}y']
examples = ['{{lead}} stays']
after = { pattern = '{{lead}}API Error', within = 3 }
"#,
        )
        .unwrap();
        assert!(!t.contains_key("define"));
        assert_eq!(t["progress"][0].as_str(), Some(r"^\s*(?:■ )?Ran "));
        assert_eq!(t["busy"][0].as_str(), Some(r"^\s*(?:■ )?Working"));
        assert_eq!(t["tool_output"]["tool"].as_str(), Some(r"^\s*(?:■ )?Ran "));
        let rule = &t["rule"][0];
        assert_eq!(rule["patterns"][0].as_str(), Some(r"^\s*(?:■ )?stream error"));
        assert_eq!(rule["patterns"][1].as_str(), Some(r"x^\s*(?:■ )?y"));
        assert_eq!(rule["after"]["pattern"].as_str(), Some(r"^\s*(?:■ )?API Error"));
        assert_eq!(rule["examples"][0].as_str(), Some("{{lead}} stays"));
    }

    #[test]
    fn a_profile_without_define_is_unchanged() {
        let text = "[[rule]]\nid = \"a\"\npattern = 'a{2}b'\n";
        assert_eq!(expanded(text).unwrap(), toml::from_str::<toml::Table>(text).unwrap());
    }

    #[test]
    fn unknown_names_and_bad_fragments_are_named() {
        let e = expanded("[define]\nlead = 'x'\n[[rule]]\nid = \"r1\"\npattern = '{{led}}y'\n").unwrap_err();
        assert_eq!(e.at, "rule r1");
        assert!(e.message.contains("`{{led}}` is not defined (defined: lead)"), "{}", e.message);
        let e = expanded("[define]\n[[rule]]\nid = \"r1\"\npattern = '{{lead}}y'\n").unwrap_err();
        assert!(e.message.contains("[define] is empty"), "{}", e.message);
        let e = expanded("[define]\nlead = 'x'\n[[rule]]\nid = \"r1\"\npattern = '{{lead'\n").unwrap_err();
        assert!(e.message.contains("without a closing"), "{}", e.message);
        let e = expanded("[define]\nlead = '{{x}}'\n").unwrap_err();
        assert_eq!(e.at, "define.lead");
        assert!(e.message.contains("`{{x}}` is not defined (defined: lead)"), "{}", e.message);
        assert!(expanded("[define]\nLead = 'x'\n").unwrap_err().message.contains("lower_snake"));
        assert!(expanded("[define]\nlead = 3\n").unwrap_err().message.contains("a string"));
        assert!(expanded("define = 'x'\n").unwrap_err().message.contains("must be a table"));
    }

    #[test]
    fn a_fragment_may_use_fragments_in_any_order_but_not_in_a_circle() {
        let t = expanded(
            "[define]\nhead = '(?:{{lead}}Error: |{{glyph}}!)'\nlead = '^ *{{glyph}}? *'\nglyph = '[■⚠]'\n\
             [[rule]]\nid = \"r\"\npattern = '{{head}}x'\n",
        )
        .unwrap();
        assert_eq!(t["rule"][0]["pattern"].as_str(), Some("(?:^ *[■⚠]? *Error: |[■⚠]!)x"));
        let e = expanded("[define]\na = 'x{{b}}'\nb = '{{a}}y'\nc = 'z'\n").unwrap_err();
        assert_eq!(e.at, "define");
        assert!(e.message.contains("in a circle: a, b"), "{}", e.message);
        assert!(expanded("[define]\na = '{{a}}'\n").unwrap_err().message.contains("in a circle: a"));
    }

    #[test]
    fn a_fragment_expands_to_at_most_a_pattern() {
        // Doubling at each level would reach 2^12 copies: the limit stops it.
        let mut text = String::from("[define]\nf0 = 'xx'\n");
        for i in 1..=12 {
            text.push_str(&format!("f{i} = '{{{{f{}}}}}{{{{f{}}}}}'\n", i - 1, i - 1));
        }
        let e = expanded(&text).unwrap_err();
        assert!(e.message.contains("more than 4096 bytes"), "{}: {}", e.at, e.message);
    }
}
