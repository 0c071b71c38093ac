//! Render stage: verdicts to bytes, one function per output format. Pure: the
//! caller writes the bytes.

use crate::verdict::Verdict;

/// One verdict as a JSON line (compact), or indented with `pretty`.
pub fn json(verdict: &Verdict, pretty: bool) -> Vec<u8> {
    let mut out = if pretty { serde_json::to_vec_pretty(verdict) } else { serde_json::to_vec(verdict) }
        // Serialising these plain structs cannot fail; an empty object keeps
        // the output well-formed if it ever did.
        .unwrap_or_else(|_| b"{}".to_vec());
    out.push(b'\n');
    out
}

/// One verdict as a line for people: action, kind, log, evidence (or reason).
pub fn text(verdict: &Verdict) -> Vec<u8> {
    let detail = verdict.evidence.as_deref().unwrap_or(&verdict.reason);
    let kind = verdict.kind.as_deref().unwrap_or("-");
    // The log's name is the one field here that the input controls unsanitised
    // (a file name may hold a line break or an escape).
    let log = crate::error::printable(&verdict.log);
    format!("{:<6} {:<14} {}  {}\n", verdict.action.as_str().to_uppercase(), kind, log, detail).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{Subject, skipped, unreadable};

    fn subject() -> Subject<'static> {
        Subject { log: "logs/t1.log", profile: "claude", profile_origin: "builtin", status: Some("timeout") }
    }

    #[test]
    fn json_is_one_line_and_round_trips() {
        let v = unreadable(subject(), "No such file or directory (os error 2)".into());
        let bytes = json(&v, false);
        assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(serde_json::from_slice::<Verdict>(&bytes).unwrap(), v);
    }

    #[test]
    fn text_line() {
        let v = skipped(subject(), "status completed is not classified".into());
        insta::assert_snapshot!(String::from_utf8(text(&v)).unwrap(), @"SKIP   -              logs/t1.log  status completed is not classified");
    }
}
