//! Secret redaction for evidence and captures: API keys, tokens and credential
//! values are replaced with `[REDACTED]` before anything is printed.

use std::sync::OnceLock;

use regex::Regex;

/// What a redacted secret is replaced with.
pub const MARK: &str = "[REDACTED]";

/// The shapes redacted, each with the lowercase literals one of which it
/// needs: a shape's regex is compiled (once) only when a text holds one, so a
/// verdict whose evidence holds no secret-like text compiles none. Groups are
/// non-capturing except the one around a value: where a shape has it, only the
/// value is replaced (the key name or the `Bearer` word stays, so the evidence
/// still reads).
const SHAPES: &[(&[&str], &str)] = &[
    // Anthropic and OpenAI keys (sk-ant-…, sk-proj-…, sk-…).
    (&["sk-"], r"\bsk-(?:ant-[A-Za-z0-9_\-]{8,}|[A-Za-z0-9_\-]{16,})"),
    // Google API keys.
    (&["aiza"], r"\bAIza[0-9A-Za-z_\-]{30,}"),
    // GitHub tokens: personal, OAuth, server, user-to-server, refresh, fine-grained.
    (
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
    ),
    // Slack tokens.
    (&["xox"], r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    // AWS access key ids.
    (&["akia", "asia"], r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    // JSON Web Tokens: three base64url parts, the first a JSON header.
    (&["eyj"], r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    // HTTP bearer credentials.
    (&["bearer"], r"(?i:\bbearer)\s+([A-Za-z0-9._~+/=\-]{8,})"),
    // Values of key=…, token: …, "secret": "…", password=… (the name kept),
    // also as the end of an environment variable's name (DB_PASSWORD=…,
    // OPENAI_API_KEY=…), where no word boundary precedes the name.
    (
        &["key", "token", "secret", "passw"],
        r#"(?i:(?:\b|_)(?:api[_\-]?key|access[_\-]?key|secret[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|client[_\-]?secret|key|token|secret|password|passwd)\b)["']?\s*[=:]\s*["']?([^\s"'&,;]+)"#,
    ),
];

fn shape(i: usize) -> Option<&'static Regex> {
    static COMPILED: [OnceLock<Option<Regex>>; SHAPES.len()] = [const { OnceLock::new() }; SHAPES.len()];
    COMPILED[i].get_or_init(|| Regex::new(SHAPES[i].1).ok()).as_ref()
}

/// `text` with secrets replaced, and the replaced byte ranges of `text` with the
/// length each took in the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    /// The redacted text.
    pub text: String,
    /// `(start, end, new_len)` of every replacement, in order, in `text`'s
    /// source coordinates.
    replaced: Vec<(usize, usize, usize)>,
}

impl Redacted {
    /// Maps a byte position of the source text to the redacted text. A position
    /// inside a secret maps to the start of its mark.
    pub fn map(&self, pos: usize) -> usize {
        let mut shift: isize = 0;
        for &(start, end, new_len) in &self.replaced {
            if pos < start {
                break;
            }
            if pos < end {
                return start.saturating_add_signed(shift);
            }
            shift += new_len as isize - (end - start) as isize;
        }
        pos.saturating_add_signed(shift)
    }
}

/// Redacts every secret shape in `text`.
pub fn redact(text: &str) -> Redacted {
    let lower = text.to_ascii_lowercase();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (i, (triggers, _)) in SHAPES.iter().enumerate() {
        if !triggers.iter().any(|t| lower.contains(t)) {
            continue;
        }
        let Some(re) = shape(i) else { continue };
        for caps in re.captures_iter(text) {
            if let Some(m) = caps.iter().skip(1).flatten().next().or_else(|| caps.get(0)) {
                spans.push((m.start(), m.end()));
            }
        }
    }
    // Shapes can overlap (a key=value whose value is an sk- key): the earliest,
    // then longest, span wins.
    spans.sort_by_key(|&(start, end)| (start, std::cmp::Reverse(end)));
    let mut out = String::with_capacity(text.len());
    let mut replaced: Vec<(usize, usize, usize)> = Vec::new();
    let mut last = 0;
    for (start, end) in spans {
        if start < last {
            // Inside the last mark; if it runs past it (a bearer value cut at a
            // character its key=value reading takes in), the mark grows over it.
            if end > last {
                if let Some(r) = replaced.last_mut() {
                    r.1 = end;
                }
                last = end;
            }
            continue;
        }
        out.push_str(&text[last..start]);
        out.push_str(MARK);
        replaced.push((start, end, MARK.len()));
        last = end;
    }
    out.push_str(&text[last..]);
    Redacted { text: out, replaced }
}

/// Shorthand: the redacted text only.
pub fn redact_str(text: &str) -> String {
    redact(text).text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_compile() {
        for (i, (_, pattern)) in SHAPES.iter().enumerate() {
            assert!(shape(i).is_some(), "{pattern}");
        }
    }

    #[test]
    fn overlapping_shapes_give_one_mark() {
        assert_eq!(redact_str("api_key=sk-proj-0123456789abcdefABCDEF end"), format!("api_key={MARK} end"));
    }

    #[test]
    fn every_listed_shape_is_redacted() {
        let secrets = [
            "sk-ant-api03-AbCdEf0123456789_xyz-QWERTY",
            "sk-proj-0123456789abcdefABCDEF",
            "AIzaSyA1234567890abcdefghijklmnopqrstu",
            "ghp_0123456789abcdefghijABCDEFGHIJ0123",
            "gho_0123456789abcdefghijABCDEFGHIJ0123",
            "ghs_0123456789abcdefghijABCDEFGHIJ0123",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
            "xoxb-123456789012-abcdefghijkl",
            "AKIAIOSFODNN7EXAMPLE",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ];
        for s in secrets {
            let r = redact_str(&format!("error: got {s} here"));
            assert_eq!(r, format!("error: got {MARK} here"), "{s}");
        }
    }

    #[test]
    fn bearer_and_key_values_keep_their_names() {
        assert_eq!(redact_str("Authorization: Bearer abc.def-ghi_jkl"), format!("Authorization: Bearer {MARK}"));
        assert_eq!(redact_str("url?key=hunter22&x=1"), format!("url?key={MARK}&x=1"));
        assert_eq!(
            redact_str(r#"{"token": "t0k3n", "password":"p4ss"}"#),
            format!(r#"{{"token": "{MARK}", "password":"{MARK}"}}"#)
        );
        assert_eq!(redact_str("SECRET=abc API_KEY: xyz"), format!("SECRET={MARK} API_KEY: {MARK}"));
    }

    #[test]
    fn ordinary_error_text_is_untouched() {
        for text in [
            "API Error: 529 Overloaded. This is a server-side issue",
            "OAuth token has expired. Please obtain a new token",
            "max_tokens=4096 exceeded",
            "task-1234567890abcdefgh done",
        ] {
            assert_eq!(redact_str(text), text);
        }
    }

    #[test]
    fn positions_map_through_replacements() {
        let src = "a key=secretvalue b";
        let r = redact(src);
        assert_eq!(r.text, format!("a key={MARK} b"));
        assert_eq!(r.map(0), 0);
        assert_eq!(r.map(6), 6, "inside the secret maps to the mark");
        assert_eq!(r.map(10), 6);
        let b = src.find(" b").unwrap();
        assert_eq!(&r.text[r.map(b)..], " b");
    }
}
