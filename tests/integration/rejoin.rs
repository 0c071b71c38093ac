//! The second look at a pane's rows re-joined (src/pipeline/rejoin.rs): the
//! verdicts it must not make worse than the rows alone, and what its reason
//! says. The first cases came from the review of the first version (each
//! failed there).

use faultsift::Action;

use crate::util::Test;

/// The rows a pane `width` columns wide shows of `line` (ASCII), trailing
/// blanks trimmed, as `capture-pane` without `-J` prints them.
fn cut(line: &str, width: usize) -> Vec<String> {
    line.as_bytes().chunks(width).map(|c| std::str::from_utf8(c).unwrap().trim_end().to_string()).collect()
}

fn classify(profile: &str, rows: &[String]) -> faultsift::Verdict {
    Test::new().args(["classify", "--profile", profile]).stdin(rows.join("\n") + "\n").verdict()
}

/// pytest prints its separators as wide as the terminal: in a pane, two of
/// them followed by a line would make the window "a cut pane", and the fault
/// line printed right under the last separator would be glued to it and lost.
/// A row that ends in a fill character's run was drawn to the edge, not cut.
#[test]
fn a_fault_right_under_a_full_width_separator_is_kept() {
    let sep = |t: &str, c: char| {
        let t = format!(" {t} ");
        let left = (80 - t.len()) / 2;
        format!("{}{t}{}", c.to_string().repeat(left), c.to_string().repeat(80 - left - t.len()))
    };
    let mut rows = vec!["$ pytest -q".to_string()];
    rows.push(sep("FAILURES", '='));
    rows.push(sep("test_fetch_remote", '_'));
    rows.extend(["    def test_fetch_remote():".into(), ">       fetch()".into(), String::new()]);
    rows.push(sep("short test summary info", '='));
    rows.push("curl: (6) Could not resolve host: github.com".into());
    rows.push("$".into());
    let v = classify("ci", &rows);
    assert_eq!((v.action, v.rule.as_deref()), (Action::Pause, Some("ci/dns")), "{}", v.reason);
}

/// A plain log (or a `-J` capture) whose widest line sits right above the
/// line the session died on: the rows' last hit is a charge (400); gluing the
/// widest line to it must not bring back an older connection fault.
#[test]
fn gluing_the_widest_line_does_not_turn_a_charge_into_an_older_pause() {
    let long =
        "⏺ The request failed once with a connection error; I retried and the next call returned the following error: ";
    let long = format!("{long}{}", "y".repeat(120 - long.chars().count()));
    let rows = [
        "> fix the client".to_string(),
        "  ⎿  API Error: Connection error.".into(),
        String::new(),
        long,
        r#"  ⎿  API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#.into(),
        String::new(),
        "> ".into(),
    ];
    let v = classify("claude", &rows);
    assert_eq!((v.action, v.rule.as_deref()), (Action::Charge, Some("claude/bad-request")), "{}", v.reason);
}

/// The gradle line cut before its cause is caught from the joined rows; the
/// job then went on (`Successfully installed …`), and that progress line sits
/// under a whole line exactly as wide as the pane, glued to it in the joined
/// lines: the recovery is read on the rows.
#[test]
fn progress_under_a_full_width_row_still_shows_the_recovery() {
    let mut rows = vec!["$ ./gradlew build".to_string()];
    rows.extend(cut(
        "Exception in thread \"main\" java.io.IOException: Downloading from https://services.gradle.org/distributions/gradle-8.0.2-bin.zip failed: timeout (10000ms)",
        80,
    ));
    rows.push("\tat org.gradle.wrapper.Download.downloadInternal(Download.java:110)".into());
    let whole = "$ ./gradlew build --offline   # retry with the cache, then install the deps: ok!";
    assert_eq!(whole.len(), 80);
    rows.push(whole.into());
    rows.push("Successfully installed requests-2.31.0 urllib3-2.2.1".into());
    rows.push("$".into());
    let v = classify("ci", &rows);
    assert!(v.recovered && v.action == Action::Charge, "{:?} {}", v.action, v.reason);
    // The reason names the progress row's own offset, not its joined line's.
    let log = rows.join("\n") + "\n";
    let at = log.find("Successfully installed").unwrap();
    assert!(v.reason.contains(&format!("went on working from offset {at},")), "{at}: {}", v.reason);
}

/// The reason says "re-joined" only of a winning line that was joined.
#[test]
fn the_reason_says_re_joined_only_of_a_joined_line() {
    let prose = "⏺ I looked at the retry path in src/client.ts and the message users see when the API cannot be reached is this one, printed as is: ";
    let prose = format!("{prose}{}", "x".repeat(160 - prose.chars().count()));
    let mut rows = vec!["> fix the client".to_string(), "  ⎿  API Error: Connection error.".into(), String::new()];
    // Cut by characters: "⏺" is one column.
    let text: Vec<char> = format!("{prose}API Error: Unable to connect to API (ConnectionRefused)").chars().collect();
    rows.extend(text.chunks(80).map(|c| c.iter().collect::<String>()));
    let v = classify("claude", &rows);
    assert_eq!(v.evidence.as_deref(), Some("⎿  API Error: Connection error."), "{}", v.reason);
    assert!(!v.reason.contains("re-joined"), "{}", v.reason);
}

/// A rule whose `after` framing is a joined line, and whose own line below
/// was never cut, is found: the lines a joined line may frame are worth the
/// second scan too.
#[test]
fn a_rule_framed_by_a_joined_line_is_not_skipped() {
    let a = "  2026-06-03T04:59:43.895480Z ERROR codex_api::endpoint::responses_websocket: failed to connect to";
    let b = "  websocket: HTTP error: 403 Forbidden, url: wss://chatgpt.com/backend-api/codex/responses";
    let mut rows = vec!["› run the tests".to_string()];
    rows.extend(cut(a, 90));
    rows.push(b.into());
    rows.extend([String::new(), "› ".into()]);
    let v = classify("codex", &rows);
    assert_eq!(v.rule.as_deref(), Some("codex/websocket-handshake-auth-wrapped"), "{}", v.reason);
}

// From the second review (each failed on its version).

/// `cut` by characters (every character here one column wide).
fn cut_chars(line: &str, width: usize) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    chars.chunks(width).map(|c| c.iter().collect::<String>().trim_end().to_string()).collect()
}

/// Route (a): the rows' last hit is a charge on the first row of a cut line
/// (X1, X2); a whole fault line exactly as wide as the pane sits right above.
/// Gluing it onto the charge must not bring the older fault back: the joined
/// line's match ends on the glued line, not past the charge.
#[test]
fn gluing_onto_a_cut_charge_does_not_bring_back_an_older_fault() {
    let w = "  ⎿  Credit balance too low · Add funds: https://platform.claude.com/settings/bi";
    assert_eq!(w.chars().count(), 80);
    let x = r#"  ⎿  API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.3: tool_use ids were found without tool_result blocks immediately after"}}"#;
    let mut rows = vec!["> fix the client".to_string(), w.into()];
    rows.extend(cut_chars(x, 80));
    rows.extend([String::new(), "> ".into()]);
    let v = classify("claude", &rows);
    assert_eq!((v.action, v.rule.as_deref()), (Action::Charge, Some("claude/bad-request")), "{}", v.reason);
}

/// Route (b): a fault line exactly as wide as the pane (or one column less),
/// followed directly by the next line, in a pane that shows its cuts: a next
/// line that starts with a program's glyph (`⎿`) starts a line of its own, so
/// the fault line is no piece and stands.
#[test]
fn a_fault_line_as_wide_as_the_pane_then_a_glyph_line_is_not_lost() {
    let long = "  Bash(curl -sS https://api.example.com/v1/items?page=2 | jq '.items[] | select(.state == \"open\") | .id' | xargs -n1 ./scripts/close-item.sh --dry-run --verbose --log-file /tmp/close.log)";
    for f in [
        "  ⎿  Can't reach the API server (api.anthropi) … · retrying in 8s · attempt 3/10",
        "  ⎿  Can't reach the API server (api.anthrop) … · retrying in 8s · attempt 3/10",
    ] {
        assert!(matches!(f.chars().count(), 79 | 80));
        let mut rows = vec!["> close the open items".to_string()];
        rows.extend(cut(long, 80));
        rows.extend(["  ⎿  (no output)".into(), String::new(), f.into()]);
        rows.extend(["  ⎿  Interrupted · What should Claude do instead?".into(), String::new(), "> ".into()]);
        let v = classify("claude", &rows);
        assert_eq!(
            (v.action, v.rule.as_deref()),
            (Action::Pause, Some("claude/unable-to-connect")),
            "{f}: {}",
            v.reason
        );
    }
}

/// A charge read on the rest of a cut line (`… 403  Forbidden [IP: …]`, the
/// row below apt's `E: Failed to fetch <archive URL>` cut at 80 columns) is
/// no line's reading: the whole line reaches that row and decides. Here it is
/// a public archive's refusal, `retry`; the same line from a private
/// repository stays the charge.
#[test]
fn a_charge_on_the_rest_of_a_cut_line_yields_to_the_whole_line() {
    let prose = "I am reading the retry module: the client wraps every request and counts the attempts it makes.";
    for (host, want) in [
        ("archive.ubuntu.com/ubuntu", (Action::Retry, Some("ci/archive-refused"))),
        ("apt.internal.example.com/ubuntu", (Action::Charge, Some("ci/fetch-client-error"))),
    ] {
        let line = format!(
            "E: Failed to fetch http://{host}/pool/main/libx/libxcrypt/libcrypt-dev_4.4.27-1_amd64.deb  403  Forbidden [IP: 185.125.190.82 80]"
        );
        let mut rows = cut(prose, 80);
        rows.extend(cut(prose, 80));
        rows.extend(cut(&line, 80));
        let v = classify("ci", &rows);
        assert_eq!((v.action, v.rule.as_deref()), want, "{host}: {}", v.reason);
    }
}
