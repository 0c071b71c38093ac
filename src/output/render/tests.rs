//! Each renderer over the same verdicts, as inline snapshots.

use super::*;
use crate::output::verdict::{Action, WindowInfo};
use crate::pipeline::decide::{Subject, skipped, unreadable};

fn fault() -> Verdict {
    let mut v = skipped(
        Subject { log: "logs/t1.log", profile: "claude", profile_origin: "builtin", status: None },
        String::new(),
    );
    v.action = Action::Pause;
    v.env_fault = true;
    v.kind = Some("connection".into());
    v.rule = Some("claude/unable-to-connect".into());
    v.evidence = Some("API Error: Unable to connect to API (ConnectionRefused) | 100%".into());
    v.reason = "environment fault (connection): API Error: Unable to connect to API (ConnectionRefused)".into();
    v.window = Some(WindowInfo { start: 0, end: 10, log_bytes: 10, truncated: false, rotated: false });
    v
}

fn gone() -> Verdict {
    unreadable(
        Subject { log: "logs/t2.log", profile: "claude", profile_origin: "builtin", status: None },
        "No such file or directory (os error 2)".into(),
    )
}

fn summary() -> Summary {
    let mut s = Summary::default();
    s.add(&fault());
    s.add(&gone());
    s
}

fn render(r: &dyn Renderer) -> String {
    let mut out = r.begin();
    out.extend(r.verdict(&fault()));
    out.extend(r.verdict(&gone()));
    out.extend(r.end(Some(&summary())));
    String::from_utf8(out).unwrap()
}

#[test]
fn json_lines_then_the_summary_object() {
    let text = render(&Json { pretty: false });
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let v: Verdict = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v, fault());
    let s: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(s["summary"]["logs"], 2);
    assert_eq!(s["summary"]["env_faults"], 1);
    assert_eq!(s["summary"]["errors"], 1);
}

#[test]
fn text() {
    insta::assert_snapshot!(render(&Text { color: false }), @r"
    PAUSE  connection     logs/t1.log  API Error: Unable to connect to API (ConnectionRefused) | 100%
    CHARGE -              logs/t2.log  the log could not be read: No such file or directory (os error 2)

    summary: 2 logs, 1 environment fault (50.0%), 1 unreadable, 0 timed out

    action  logs
    charge  1
    pause   1

    kind        logs
    connection  1

    rule                      logs
    claude/unable-to-connect  1

    unclassified (0):
    ");
}

#[test]
fn text_colours_the_action() {
    let line = String::from_utf8(Text { color: true }.verdict(&fault())).unwrap();
    assert!(line.starts_with("\x1b[1;33mPAUSE "), "{line:?}");
}

#[test]
fn github() {
    insta::assert_snapshot!(render(&Github), @r"
    ::warning title=faultsift%3A pause (connection) in logs/t1.log::API Error: Unable to connect to API (ConnectionRefused) | 100%25
    ::error title=faultsift%3A cannot read logs/t2.log::No such file or directory (os error 2)
    ::notice title=faultsift summary::2 logs, 1 environment fault (50.0%25), 1 unreadable, 0 unclassified
    ");
}

#[test]
fn markdown() {
    insta::assert_snapshot!(render(&Markdown), @r"
    | log | action | kind | rule | evidence |
    | --- | --- | --- | --- | --- |
    | logs/t1.log | **pause** | connection | claude/unable-to-connect | API Error: Unable to connect to API (ConnectionRefused) \| 100% |
    | logs/t2.log | **charge** |  |  | No such file or directory (os error 2) |

    **2 logs**: 1 environment fault (50.0%), 1 unreadable, 0 timed out, 0 unclassified.

    | action | logs |
    | --- | ---: |
    | charge | 1 |
    | pause | 1 |

    | kind | logs |
    | --- | ---: |
    | connection | 1 |

    | rule | logs |
    | --- | ---: |
    | claude/unable-to-connect | 1 |
    ");
}

#[test]
fn workflow_command_escapes() {
    assert_eq!(escape_data("50%\r\nnext"), "50%25%0D%0Anext");
    assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
}
