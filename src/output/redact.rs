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
    // GitLab tokens (personal, deploy, runner, trigger, CI job, feed, …).
    (&["gl"], r"\bgl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_\-]{20,}"),
    // Stripe secret, restricted and webhook keys.
    (&["_live_", "_test_", "whsec_"], r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{16,})"),
    // npm and Hugging Face tokens.
    (&["npm_", "hf_"], r"\b(?:npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,})"),
    // Slack tokens.
    (&["xox"], r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    // AWS access key ids.
    (&["akia", "asia"], r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    // JSON Web Tokens: three base64url parts, the first a JSON header.
    (&["eyj"], r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    // HTTP bearer credentials.
    (&["bearer"], r"(?i:\bbearer)\s+([A-Za-z0-9._~+/=\-]{8,})"),
    // HTTP basic credentials: base64 with a digit, `+`, `/` or padding, so
    // that "Basic authentication" stays.
    (&["basic"], r"(?i:\bbasic)\s+([A-Za-z0-9+/]*[0-9+/][A-Za-z0-9+/]*={0,2}|[A-Za-z0-9+/]{4,}={1,2})"),
    // The password of a URL's user info (scheme://user:password@host).
    (&["@"], r"(?i:\b[a-z][a-z0-9+.\-]*://[^/\s:@]+:)([^/\s@]+)@"),
    // Cookies: the whole header value.
    (&["cookie"], r"(?i:\b(?:set-)?cookie)\s*:\s*([^\r\n]+)"),
    // A private key inline (JSON-escaped PEM), from its BEGIN line to its END
    // line or the end of the text.
    (&["private key"], r"-----BEGIN [A-Z ]*PRIVATE KEY-----(.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
    // `--password VALUE` and `Api-Key VALUE`: a name, blanks, the value.
    (
        &["passw", "token", "secret", "key"],
        r"(?i:--(?:password|passwd|token|api-key|secret|client-secret)|\bx?-?api-?key)\s+([^\s\x22'=:]{6,})",
    ),
    // Values of key=…, token: …, "secret": "…", password="a b c" (the name
    // kept), also JSON-escaped (\"password\": \"…\") and URL-encoded (%3D),
    // also as the end of an environment variable's name (DB_PASSWORD=…,
    // OPENAI_API_KEY=…, PGPASSWORD=…, MYSQL_PWD=…, AccountKey=…). A quoted
    // value is taken whole to its closing quote, or to [`QUOTED_MAX`] bytes
    // when it has none; that bound is applied in `redact`, not here, as a
    // bounded repetition of a Unicode class compiles into that many copies of
    // it (five times the cost of a verdict whose evidence names a key).
    (
        &["key", "token", "secret", "passw", "pwd", "sig"],
        r#"(?i:(?:\b|_)(?:api[_\-]?key|access[_\-]?key|secret[_\-]?key|private[_\-]?key|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|client[_\-]?secret|key|token|secret|sig|pwd)\b|[a-z0-9_]*(?:password|passwd)\b|\b(?:account|sharedaccess)key\b)(?:\\?["'])?\s*(?:[=:]|%3[dD])\s*(?:\\?"([^"\\]+)|'([^']+)|([^\s"'&,;\\]+))"#,
    ),
];

/// The index of the key=value shape, whose third group is an unquoted value.
const KEY_VALUE: usize = SHAPES.len() - 1;

/// The most of a quoted value the key=value shape replaces when its closing
/// quote is missing.
const QUOTED_MAX: usize = 500;

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
            // `Failed to refresh token: 403 Forbidden`: an unquoted value of
            // three digits or fewer is a status or a count, never a secret,
            // and the evidence needs its status.
            if i == KEY_VALUE
                && caps.get(3).is_some_and(|v| v.len() <= 3 && v.as_str().bytes().all(|b| b.is_ascii_digit()))
            {
                continue;
            }
            if let Some(m) = caps.iter().skip(1).flatten().next().or_else(|| caps.get(0)) {
                let mut end = m.end();
                // A quoted value its closing quote ends is replaced whole.
                if i == KEY_VALUE
                    && caps.get(3).is_none()
                    && m.len() > QUOTED_MAX
                    && !text[end..].starts_with(['"', '\'', '\\'])
                {
                    end = m.start() + QUOTED_MAX;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                }
                spans.push((m.start(), end));
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
            "Failed to refresh token: 401 Unauthorized: Your refresh token has already been used",
            "refresh token: 403 Forbidden, key: 12",
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

    fn red(text: &str) -> String {
        redact_str(text)
    }

    #[test]
    fn env_passwords() {
        assert_eq!(red("PGPASSWORD=hunter22 psql"), format!("PGPASSWORD={MARK} psql"));
        assert_eq!(red("MYSQL_PWD=hunter22 mysql"), format!("MYSQL_PWD={MARK} mysql"));
    }

    #[test]
    fn escaped_json() {
        assert_eq!(red(r#"{\"password\": \"p4ss w0rd\"}"#), format!(r#"{{\"password\": \"{MARK}\"}}"#));
    }

    #[test]
    fn quoted_values_with_blanks() {
        assert_eq!(red(r#"password="correct horse battery staple" x"#), format!(r#"password="{MARK}" x"#));
        assert_eq!(red("secret='two words'"), format!("secret='{MARK}'"));
    }

    #[test]
    fn a_quoted_value_never_closed_is_cut_at_the_bound() {
        // 600 bytes with no closing quote: the first 500 go, the rest stays.
        let value = "a".repeat(600);
        assert_eq!(red(&format!("password=\"{value}")), format!("password=\"{MARK}{}", "a".repeat(100)));
        // Cut at a character's start, never inside one.
        let value = format!("{}é{}", "a".repeat(499), "b".repeat(50));
        assert_eq!(red(&format!("token='{value}")), format!("token='{MARK}é{}", "b".repeat(50)));
        // A closed value longer than the bound is replaced whole.
        assert_eq!(red(&format!("secret='{}' x", "c".repeat(700))), format!("secret='{MARK}' x"));
    }

    #[test]
    fn api_key_headers_and_url_encoding() {
        assert_eq!(red("Api-Key abcdef123456"), format!("Api-Key {MARK}"));
        assert_eq!(red("apikey abcdef123456"), format!("apikey {MARK}"));
        assert_eq!(red("x-api-key: abcdef123456"), format!("x-api-key: {MARK}"));
        assert_eq!(red("a?client_secret%3Dabc123def&b=1"), format!("a?client_secret%3D{MARK}&b=1"));
    }

    #[test]
    fn basic_auth_and_url_user_info() {
        assert_eq!(red("Authorization: Basic dXNlcjpwYXNzd29yZA=="), format!("Authorization: Basic {MARK}"));
        assert_eq!(red("uses Basic authentication"), "uses Basic authentication");
        assert_eq!(
            red("git clone https://me:s3cr3t@example.com/r.git"),
            format!("git clone https://me:{MARK}@example.com/r.git")
        );
    }

    #[test]
    fn private_keys() {
        let pem = r#"{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n"}"#;
        let r = red(pem);
        assert!(!r.contains("MIIEvQ"), "{r}");
        let r = red("-----BEGIN RSA PRIVATE KEY-----MIIEowIBAAKCAQEA");
        assert!(!r.contains("MIIEow"), "{r}");
    }

    #[test]
    fn vendor_tokens() {
        for s in [
            "sk_live_0123456789abcdefghij",
            "rk_test_0123456789abcdefghij",
            "glpat-0123456789abcdefghij",
            "npm_0123456789abcdefghijABCDEFGHIJ012345",
            "hf_0123456789abcdefghijABCDEFGHIJ0123",
        ] {
            assert_eq!(red(&format!("got {s} here")), format!("got {MARK} here"), "{s}");
        }
    }

    #[test]
    fn azure_connection_strings() {
        let r = red("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abc123+/def==;EndpointSuffix=core");
        assert!(!r.contains("abc123") && r.contains("AccountName=acct"), "{r}");
        let r = red("https://a.blob.core.windows.net/c?sv=2020&sig=AbCdEf0123%2B&se=1");
        assert!(!r.contains("AbCdEf0123"), "{r}");
    }

    #[test]
    fn cookies_and_password_flags() {
        assert_eq!(red("Cookie: session=abc123; theme=dark"), format!("Cookie: {MARK}"));
        assert_eq!(red("Set-Cookie: id=xyz789; Path=/"), format!("Set-Cookie: {MARK}"));
        assert_eq!(red("mysql --password hunter22 db"), format!("mysql --password {MARK} db"));
    }
}
