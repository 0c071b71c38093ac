//! `--summary`: counts over a batch of verdicts — per action, kind and rule, the
//! share of environment faults, and the logs no rule matched.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::output::verdict::Verdict;

/// Counts over a batch (the `summary` object of `--summary --format json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    /// Logs given.
    pub logs: u64,
    /// Logs per action (`pause`, `retry`, `charge`, `skip`).
    pub actions: BTreeMap<String, u64>,
    /// Logs per winning rule kind.
    pub kinds: BTreeMap<String, u64>,
    /// Logs per winning rule.
    pub rules: BTreeMap<String, u64>,
    /// Logs classified as environment faults (`pause` or `retry`).
    pub env_faults: u64,
    /// `env_faults` over `logs`, from 0 to 1.
    pub env_fault_share: f64,
    /// Logs that could not be read.
    pub errors: u64,
    /// Logs whose scan passed the deadline.
    pub timed_out: u64,
    /// Logs that were scanned and that no rule matched: the failures nothing
    /// explains yet, where the next rule is to be found.
    pub unclassified: Vec<String>,
}

/// The value of [`SummaryLine::schema`].
pub const SUMMARY_SCHEMA_ID: &str = "faultsift/summary/v1";

/// The last line of `--summary --format json` (schema `faultsift/summary/v1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(title = "faultsift summary", description = "The last line of --summary (schema faultsift/summary/v1).")]
pub struct SummaryLine {
    /// Always `faultsift/summary/v1`.
    pub schema: String,
    /// The counts.
    pub summary: Summary,
}

/// The JSON Schema of [`SummaryLine`].
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(SummaryLine)).unwrap_or(serde_json::Value::Null)
}

impl Summary {
    /// Counts one verdict.
    pub fn add(&mut self, v: &Verdict) {
        self.logs += 1;
        count(&mut self.actions, v.action.as_str());
        if let Some(kind) = &v.kind {
            count(&mut self.kinds, kind);
        }
        if let Some(rule) = &v.rule {
            count(&mut self.rules, rule);
        }
        self.env_faults += u64::from(v.env_fault);
        self.errors += u64::from(v.error.is_some());
        self.timed_out += u64::from(v.timed_out);
        if v.rule.is_none() && v.error.is_none() && !v.timed_out && v.window.is_some() {
            self.unclassified.push(v.log.clone());
        }
        self.env_fault_share = if self.logs == 0 { 0.0 } else { self.env_faults as f64 / self.logs as f64 };
    }
}

/// Adds one to `key`'s count; the key is copied only the first time it is seen.
fn count(counts: &mut BTreeMap<String, u64>, key: &str) {
    match counts.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            counts.insert(key.to_string(), 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::decide::{Subject, skipped, unreadable};

    #[test]
    fn counts_and_unclassified() {
        let s = |log| Subject { log, profile: "p", profile_origin: "builtin", status: None };
        let mut sum = Summary::default();
        sum.add(&skipped(s("a"), "done".into()));
        sum.add(&unreadable(s("b"), "gone".into()));
        let mut fault = skipped(s("c"), String::new());
        fault.action = crate::Action::Pause;
        fault.env_fault = true;
        fault.kind = Some("quota".into());
        fault.rule = Some("p/q".into());
        sum.add(&fault);
        let mut nothing = skipped(s("d"), String::new());
        nothing.action = crate::Action::Charge;
        nothing.window = Some(crate::output::verdict::WindowInfo {
            start: 0,
            end: 1,
            log_bytes: 1,
            truncated: false,
            rotated: false,
        });
        sum.add(&nothing);
        assert_eq!(sum.logs, 4);
        assert_eq!(sum.actions.get("charge"), Some(&2));
        assert_eq!(sum.kinds.get("quota"), Some(&1));
        assert_eq!((sum.env_faults, sum.errors), (1, 1));
        assert!((sum.env_fault_share - 0.25).abs() < 1e-9);
        assert_eq!(sum.unclassified, ["d"]);
    }
}
