//! Named pattern fragments: a profile's `[define]` table names a piece of
//! regex once (a program's log prefix, its glyphs), and `{{name}}` in any
//! pattern stands for it. Expanded on the TOML table before anything else
//! reads it, so the rest of the loader, `show` and the build script see
//! ordinary patterns. Self-contained: `build.rs` includes this file.

use std::collections::BTreeMap;

/// The top-level key that holds the fragments.
pub const KEY: &str = "define";

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
/// `volatile` and `env_fault_patterns`), and removes `[define]`. Examples and
/// counterexamples are text, not patterns, and are left as written.
///
/// A fragment is inserted as written, so write it as one group (`(?:…)`)
/// when it is quantified or holds an alternation. Fragments cannot refer to
/// other fragments. Outside a character class `{{` is a syntax error in a
/// pattern (a repetition needs a count), so a reference cannot be mistaken
/// for one.
pub fn expand(table: &mut toml::Table) -> Result<(), DefineError> {
    let defines = match table.remove(KEY) {
        None => return Ok(()),
        Some(toml::Value::Table(t)) => fragments(t)?,
        Some(_) => return Err(err(KEY, "must be a table of names and pattern fragments")),
    };
    for key in ["progress", "busy", "volatile", "env_fault_patterns"] {
        if let Some(toml::Value::Array(items)) = table.get_mut(key) {
            for (i, item) in items.iter_mut().enumerate() {
                expand_value(item, &defines, || format!("{key}[{i}]"))?;
            }
        }
    }
    if let Some(toml::Value::Array(rules)) = table.get_mut("rule") {
        for (i, rule) in rules.iter_mut().enumerate() {
            let Some(rule) = rule.as_table_mut() else { continue };
            let label = rule.get("id").and_then(|v| v.as_str()).map_or_else(|| format!("#{}", i + 1), str::to_string);
            let at = || format!("rule {label}");
            if let Some(p) = rule.get_mut("pattern") {
                expand_value(p, &defines, at)?;
            }
            if let Some(toml::Value::Array(items)) = rule.get_mut("patterns") {
                for p in items {
                    expand_value(p, &defines, at)?;
                }
            }
            if let Some(p) = rule.get_mut("after").and_then(|a| a.as_table_mut()).and_then(|a| a.get_mut("pattern")) {
                expand_value(p, &defines, at)?;
            }
        }
    }
    Ok(())
}

fn err(at: impl Into<String>, message: impl Into<String>) -> DefineError {
    DefineError { at: at.into(), message: message.into() }
}

fn fragments(table: toml::Table) -> Result<BTreeMap<String, String>, DefineError> {
    let mut out = BTreeMap::new();
    for (name, value) in table {
        let at = format!("{KEY}.{name}");
        if !valid_name(&name) {
            return Err(err(at, "a fragment's name is lower_snake (a-z, 0-9, _), starting with a letter"));
        }
        let Some(text) = value.as_str() else { return Err(err(at, "a fragment is a string")) };
        if text.contains("{{") {
            return Err(err(at, "a fragment cannot refer to another fragment"));
        }
        out.insert(name, text.to_string());
    }
    Ok(out)
}

fn valid_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn expand_value(
    value: &mut toml::Value,
    defines: &BTreeMap<String, String>,
    at: impl Fn() -> String,
) -> Result<(), DefineError> {
    if let toml::Value::String(s) = value
        && s.contains("{{")
    {
        *s = expand_str(s, defines).map_err(|m| err(at(), m))?;
    }
    Ok(())
}

/// `pattern` with each `{{name}}` replaced by its fragment.
pub fn expand_str(pattern: &str, defines: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else { return Err("`{{` without a closing `}}`".to_string()) };
        let name = &after[..close];
        match defines.get(name) {
            Some(fragment) => out.push_str(fragment),
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
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(text: &str) -> Result<toml::Table, DefineError> {
        let mut t: toml::Table = toml::from_str(text).unwrap();
        expand(&mut t).map(|()| t)
    }

    #[test]
    fn references_in_every_pattern_key_are_expanded_and_text_is_not() {
        let t = expanded(
            r#"
progress = ['{{lead}}Ran ']
busy = ['{{lead}}Working']
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
        assert!(expanded("[define]\nLead = 'x'\n").unwrap_err().message.contains("lower_snake"));
        assert!(expanded("[define]\nlead = 3\n").unwrap_err().message.contains("a string"));
        assert!(expanded("define = 'x'\n").unwrap_err().message.contains("must be a table"));
    }
}
