//! `faultsift show`: a resolved profile (extends and disable applied)
//! written back as a standalone TOML profile.
//!
//! Written by hand rather than through a TOML serializer: a serializer writes
//! a string that holds a newline as a multi-line string, whose lines then
//! start at the first column, where the profile's own anchored rules read
//! them (a session that printed the shown profile would pause itself, and
//! `faultsift test` fails the file's self-match). Every string here is one
//! physical line: literal where it can be, escaped otherwise, as the
//! built-in files are written.

use std::fmt::Write as _;

use toml_writer::{ToTomlKey as _, ToTomlValue as _, TomlKeyBuilder, TomlStringBuilder};

use crate::profile::record::{Condition, Scalar};
use crate::profile::{After, Profile, ToolOutput};

/// A string as one TOML line: literal when it needs no escape, basic with
/// escapes (`\n` among them) otherwise. A tab is escaped too, though a
/// literal string may hold it: a CI log's tab-separated prefix, written raw,
/// is a line the `ci` profile reads.
fn string(s: &str) -> String {
    let b = TomlStringBuilder::new(s);
    let literal = if s.contains('\t') { None } else { b.as_literal() };
    literal.unwrap_or_else(|| b.as_basic()).to_toml_value()
}

fn key(k: &str) -> String {
    TomlKeyBuilder::new(k).as_default().to_toml_key()
}

fn scalar(s: &Scalar) -> String {
    match s {
        Scalar::Str(v) => string(v),
        Scalar::Int(v) => v.to_string(),
        Scalar::Bool(v) => v.to_string(),
        Scalar::Present(v) => format!("{{ present = {v} }}"),
    }
}

/// Record conditions as the inline `record` table they were written as.
fn conditions(conditions: &[Condition]) -> String {
    let fields: Vec<String> = conditions
        .iter()
        .map(|c| {
            let value = match c.accepted.as_slice() {
                [one] => scalar(one),
                many => format!("[{}]", many.iter().map(scalar).collect::<Vec<_>>().join(", ")),
            };
            format!("{} = {value}", key(&c.pointer))
        })
        .collect();
    format!("{{ {} }}", fields.join(", "))
}

/// One `key = value` line after another.
#[derive(Default)]
struct Lines(String);

impl Lines {
    fn raw(&mut self, k: &str, value: &str) {
        let _ = writeln!(self.0, "{} = {value}", key(k));
    }

    fn str(&mut self, k: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.raw(k, &string(v));
        }
    }

    /// `true` only: every flag here defaults to false.
    fn flag(&mut self, k: &str, on: bool) {
        if on {
            self.raw(k, "true");
        }
    }

    /// An array of already written values, one a line; nothing when empty.
    fn array(&mut self, k: &str, values: impl IntoIterator<Item = String>) {
        let values: Vec<String> = values.into_iter().collect();
        if values.is_empty() {
            return;
        }
        let _ = writeln!(self.0, "{} = [", key(k));
        for v in values {
            let _ = writeln!(self.0, "  {v},");
        }
        self.0.push_str("]\n");
    }

    fn strings(&mut self, k: &str, values: &[String]) {
        self.array(k, values.iter().map(|v| string(v)));
    }

    fn table(&mut self, header: &str) {
        let _ = write!(self.0, "\n{header}\n");
    }
}

fn after(a: &After) -> String {
    format!("{{ pattern = {}, within = {} }}", string(&a.pattern), a.within)
}

fn tool_output(out: &mut Lines, t: &ToolOutput) {
    out.table("[tool_output]");
    out.str("item", Some(&t.item));
    out.str("tool", Some(&t.tool));
    out.str("result", t.result.as_deref());
    out.str("row", Some(&t.row));
    out.flag("blank_ends_item", t.blank_ends_item);
    out.str("message", t.message.as_deref());
    out.str("message_row", t.message_row.as_deref());
    if let Some(p) = &t.prompt {
        out.raw("prompt", &format!("{{ row = {}, below = {} }}", string(&p.row), string(&p.below)));
    }
}

/// The profile as TOML, with a header comment saying where it resolved from.
/// Inherited rules keep their ids; the profile they came from is in a comment.
pub fn to_toml(profile: &Profile) -> String {
    let files: Vec<String> = profile.texts.iter().map(|(origin, _)| crate::output::safe::line(origin)).collect();
    let mut out = Lines::default();
    let _ = write!(
        out.0,
        "# faultsift show {}: resolved from {} (extends and disable applied)\n\n",
        crate::output::safe::line(&profile.name),
        files.join(" <- ")
    );
    // Top-level keys before any table, as TOML requires.
    out.str("name", Some(&profile.name));
    out.str("description", profile.description.as_deref());
    out.raw("carries_model_output", &profile.carries_model_output.to_string());
    out.strings("busy", &profile.stall.busy);
    out.strings("volatile", &profile.stall.volatile);
    out.strings("progress", &profile.progress);
    out.array("progress_records", profile.progress_records.iter().map(|c| conditions(c)));
    out.strings("banner", &profile.banner);
    if let Some(t) = &profile.tool_output {
        tool_output(&mut out, t);
    }
    for r in &profile.rules {
        out.table("[[rule]]");
        out.str("id", Some(&r.id));
        out.str("kind", Some(&r.kind));
        out.str("action", Some(r.action.as_str()));
        match r.patterns.as_slice() {
            [one] => out.str("pattern", Some(one)),
            many => out.strings("patterns", many),
        }
        out.flag("case_insensitive", r.case_insensitive);
        out.str("description", r.description.as_deref());
        out.str("source", r.source.as_deref());
        out.strings("examples", &r.examples);
        out.strings("counterexamples", &r.counterexamples);
        if let Some(a) = &r.after {
            out.raw("after", &after(a));
        }
        if let Some(c) = r.record.as_deref() {
            out.raw("record", &conditions(c));
        }
        out.str("field", r.field.as_deref());
        out.flag("fallback", r.fallback);
    }
    out.0
}
