//! GitHub Actions workflow commands: a `::warning` per environment fault and an
//! `::error` per unreadable log, so the classification shows on the run's page;
//! a `::notice` with the summary. (The Markdown table for
//! `$GITHUB_STEP_SUMMARY` comes from [`super::Markdown`].)

use super::{Renderer, percent};
use crate::output::safe;
use crate::output::summary::Summary;
use crate::output::verdict::Verdict;

/// Workflow commands.
pub struct Github;

/// Escapes a workflow command's message (`%`, CR and LF).
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a workflow command's property value (also `:` and `,`).
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

impl Renderer for Github {
    fn verdict(&self, v: &Verdict) -> Vec<u8> {
        if let Some(error) = &v.error {
            return format!(
                "::error title={}::{}\n",
                escape_property(&safe::line(&format!("faultsift: cannot read {}", v.log))),
                escape_data(&safe::line(error))
            )
            .into_bytes();
        }
        if !v.env_fault {
            return Vec::new();
        }
        let origin =
            if v.profile_origin == "builtin" { String::new() } else { format!(" [profile {}]", v.profile_origin) };
        let title = format!(
            "faultsift: {} ({}) in {}{origin}",
            v.action.as_str(),
            v.kind.as_deref().unwrap_or("env_fault"),
            v.log
        );
        let message = v.evidence.as_deref().unwrap_or(&v.reason);
        format!("::warning title={}::{}\n", escape_property(&safe::line(&title)), escape_data(&safe::line(message)))
            .into_bytes()
    }

    fn end(&self, summary: Option<&Summary>) -> Vec<u8> {
        let Some(s) = summary else { return Vec::new() };
        let message = format!(
            "{}, {} ({}), {} unreadable, {} unclassified",
            super::plural(s.logs, "log"),
            super::plural(s.env_faults, "environment fault"),
            percent(s.env_fault_share),
            s.errors,
            s.unclassified.len()
        );
        format!("::notice title=faultsift summary::{}\n", escape_data(&message)).into_bytes()
    }
}
