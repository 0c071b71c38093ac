#!/usr/bin/env python3
"""Writes the pane-capture fixtures in testdata/logs/ (run from anywhere).

The logs imitate what `tmux capture-pane -e` and `script` record of a Claude Code
session: SGR colours, erase-line and cursor-up repaints, an OSC window title,
CR-terminated lines and spinner repaints with a lone CR. The error lines are
verbatim corpus lines (testdata/corpus/real.tsv, sources there); the healthy
lines are written for this project. Deterministic: re-running gives the same
bytes, so the snapshots over these files stay meaningful.
"""
from pathlib import Path

ESC = "\x1b"
OUT = Path(__file__).resolve().parent / "logs"

def sgr(code, text):
    return f"{ESC}[{code}m{text}{ESC}[0m"

TITLE = f"{ESC}]0;✳ claude — fix flaky test{ESC}\\"
PROMPT = f"{ESC}[2K{ESC}[1G> "

def healthy_work():
    lines = [
        TITLE + sgr("1;38;5;174", "╭───────────────────────────────────────────╮"),
        sgr("38;5;174", "│") + " ✻ Welcome to Claude Code!                 " + sgr("38;5;174", "│"),
        sgr("1;38;5;174", "╰───────────────────────────────────────────╯"),
        PROMPT + "fix the flaky retry test in src/http/client.test.ts",
        sgr("38;5;246", "⏺") + " I'll read the failing test first.",
        sgr("38;5;246", "⏺") + " " + sgr("1", "Read") + "(src/http/client.test.ts)",
        "  ⎿  Read 120 lines (ctrl+r to expand)",
    ]
    # A spinner repainted in place with lone CRs, then erased.
    spinner = "".join(f"\r{sgr('38;5;174', c)} Thinking… ({i}s · esc to interrupt)" for i, c in enumerate("✢✳✶✻✽"))
    lines.append(spinner + f"\r{ESC}[2K")
    lines += [
        sgr("38;5;246", "⏺") + " " + sgr("1", "Bash") + "(npm test -- client)",
        "  ⎿  PASS src/http/client.test.ts",
        "       ✓ retries on 529 (12 ms)",
        "       ✓ gives up after 10 attempts (3 ms)",
    ]
    return lines

def cut(text, width):
    """The rows `tmux capture-pane` without `-J` gives of one printed line in a
    pane `width` columns wide (ASCII text: one column a character), each row's
    trailing blanks trimmed."""
    return [text[i:i + width].rstrip(" ") for i in range(0, len(text), width)]

def write(name, lines, eol="\r\n"):
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_bytes((eol.join(lines) + eol).encode("utf-8"))

def main():
    # Session stuck in Claude Code's connection retry loop: the sample of the README.
    retry = [f"{ESC}[1A{ESC}[2K\r  {sgr('31', '⎿')}  " + sgr("31", f"API Error (Connection error.) · Retrying in {s} seconds… (attempt {n}/10)")
             for n, s in [(1, 1), (2, 1), (3, 2), (4, 4)]]
    write("claude-connection-retry.log", healthy_work() + retry)

    # 529 Overloaded after retries, current wording.
    write("claude-overloaded.log", healthy_work() + [
        "  " + sgr("31", "⎿") + "  " + sgr("31", "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check https://status.claude.com/."),
        PROMPT,
    ])

    # Usage limit with a reset time.
    write("claude-usage-limit.log", healthy_work() + [
        "  " + sgr("33", "You've hit your limit · resets 2pm (America/New_York)"),
        PROMPT,
    ])

    # A healthy session whose output quotes the vocabulary: must be charged.
    write("claude-healthy-quotes.log", healthy_work() + [
        sgr("38;5;246", "⏺") + " " + sgr("1", "Bash") + "(rg -n \"Overloaded\" src/)",
        "  ⎿  src/http/errors.ts:14:  OVERLOADED: 'API Error: 529 Overloaded. This is a server-side issue',",
        "     src/http/client.test.ts:88:    expect(msg).toBe('Unable to connect to API (ECONNRESET)')",
        sgr("38;5;246", "⏺") + " The test asserts on \"API Error (Connection error.) · Retrying in 1 seconds…\", so I'll make the clock injectable.",
        sgr("38;5;246", "⏺") + " " + sgr("1", "Update") + "(src/http/client.test.ts)",
        "  ⎿  Updated src/http/client.test.ts with 3 additions and 1 removal",
        "       88 -    expect(msg).toBe('API Error: 529 Overloaded.')",
        "       88 +    expect(msg).toMatch(/529 Overloaded/)",
        PROMPT,
    ])

    # An outage early in the session, then an hour of work ending in the work's
    # own failure: the last hit is the policy refusal (charge is the work's).
    write("claude-policy-refusal.log", healthy_work()[:5] + [
        "  ⎿  API Error (Connection error.) · Retrying in 1 seconds… (attempt 1/10)",
    ] + healthy_work()[5:] + [
        "  ⎿  API Error: Claude Code is unable to respond to this request, which appears to violate our Usage Policy (https://www.anthropic.com/legal/aup). Please double press esc to edit your last message or start a new session for Claude Code to",
        PROMPT,
    ])

    # A build run in an 80-column pane captured without `-J`: the gradle
    # wrapper's download failure (corpus line, microsoft/vscode-gradle#1125,
    # 2024-07-12) is cut before its cause, `failed: timeout`, which only the
    # line's second row holds.
    write("gradle-wrapped-pane.log", [
        "$ ./gradlew build",
        "Downloading https://services.gradle.org/distributions/gradle-8.0.2-bin.zip",
    ] + cut('Exception in thread "main" java.io.IOException: Downloading from https://services.gradle.org/distributions/gradle-8.0.2-bin.zip failed: timeout (10000ms)', 80) + [
        "\tat org.gradle.wrapper.Download.downloadInternal(Download.java:110)",
        "\tat org.gradle.wrapper.Download.download(Download.java:67)",
        "$ ",
    ], eol="\n")

    # Invalid UTF-8, NUL, raw C1 CSI and a bell in an otherwise ordinary log,
    # ending in a connection failure.
    noisy = healthy_work() + [
        "binary junk: \udcff\udcfe\x00\x07 end",
        "\x9b31m8-bit CSI red\x9b0m",
        "Unable to connect to API (ECONNRESET)",
    ]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "claude-noisy-bytes.log").write_bytes(("\r\n".join(noisy) + "\r\n").encode("utf-8", "surrogateescape").replace("\xc2\x9b".encode("latin-1"), b"\x9b"))

if __name__ == "__main__":
    main()
