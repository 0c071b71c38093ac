//! `faultsift show`: a resolved profile (extends and disable applied) written
//! back as a standalone TOML profile.

use serde::Serialize;

use crate::profile::Profile;
use crate::profile::record::{Condition, Scalar};

#[derive(Serialize)]
struct Doc<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    carries_model_output: bool,
    // Top-level arrays before the `[[rule]]` tables, as TOML requires.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    busy: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    volatile: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    progress: &'a [String],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    progress_records: Vec<toml::Table>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    banner: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_output: Option<&'a crate::profile::ToolOutput>,
    rule: Vec<RuleDoc<'a>>,
}

#[derive(Serialize)]
struct RuleDoc<'a> {
    id: &'a str,
    kind: &'a str,
    action: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    patterns: Option<&'a [String]>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    case_insensitive: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    examples: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    counterexamples: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<&'a crate::profile::After>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<toml::Table>,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    fallback: bool,
}

/// Record conditions as the `record` table they were written as.
fn conditions_table(conditions: &[Condition]) -> toml::Table {
    let scalar = |s: &Scalar| match s {
        Scalar::Str(v) => toml::Value::String(v.clone()),
        Scalar::Int(v) => toml::Value::Integer(*v),
        Scalar::Bool(v) => toml::Value::Boolean(*v),
        Scalar::Present(v) => {
            toml::Value::Table(toml::Table::from_iter([("present".to_string(), toml::Value::Boolean(*v))]))
        }
    };
    conditions
        .iter()
        .map(|c| {
            let value = match c.accepted.as_slice() {
                [one] => scalar(one),
                many => toml::Value::Array(many.iter().map(scalar).collect()),
            };
            (c.pointer.clone(), value)
        })
        .collect()
}

/// The profile as TOML, with a header comment saying where it resolved from.
/// Inherited rules keep their ids; the profile they came from is in a comment.
pub fn to_toml(profile: &Profile) -> Result<String, toml::ser::Error> {
    let doc = Doc {
        name: &profile.name,
        description: profile.description.as_deref(),
        carries_model_output: profile.carries_model_output,
        busy: &profile.stall.busy,
        volatile: &profile.stall.volatile,
        progress: &profile.progress,
        progress_records: profile.progress_records.iter().map(|c| conditions_table(c)).collect(),
        banner: &profile.banner,
        tool_output: profile.tool_output.as_ref(),
        rule: profile
            .rules
            .iter()
            .map(|r| RuleDoc {
                id: &r.id,
                kind: &r.kind,
                action: r.action.as_str(),
                pattern: (r.patterns.len() == 1).then(|| r.patterns[0].as_str()),
                patterns: (r.patterns.len() > 1).then_some(r.patterns.as_slice()),
                case_insensitive: r.case_insensitive,
                description: r.description.as_deref(),
                source: r.source.as_deref(),
                examples: &r.examples,
                counterexamples: &r.counterexamples,
                after: r.after.as_ref(),
                record: r.record.as_deref().map(conditions_table),
                field: r.field.as_deref(),
                fallback: r.fallback,
            })
            .collect(),
    };
    let body = toml::to_string_pretty(&doc)?;
    let files: Vec<String> = profile.texts.iter().map(|(origin, _)| crate::output::safe::line(origin)).collect();
    Ok(format!(
        "# faultsift show {}: resolved from {} (extends and disable applied)\n\n{body}",
        crate::output::safe::line(&profile.name),
        files.join(" <- ")
    ))
}
