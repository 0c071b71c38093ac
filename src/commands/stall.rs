//! `faultsift stall` (SPEC §5): one tick of live stall detection. Pure: a
//! cleaned screen, the last tick's record and the clock in; the decision and
//! the next record out. Reading the capture and the state file is the edge's
//! job ([`state`] holds the file's format and its locked, atomic update).
//!
//! A session is stalled when its screen *identity* has not changed for the
//! threshold AND no busy line is on it AND the caller did not say `--busy`.
//! The identity is a hash of the cleaned lines, leaving out the lines a
//! profile's `busy` patterns match and masking what its `volatile` patterns
//! match, so a ticking clock or a spinner's elapsed counter does not look
//! like progress, and streaming output does. The match stage reads the screen
//! ([`crate::pipeline::matcher::screen`]); this module decides.

pub mod state;

use crate::output::stall::TickState;
pub use crate::pipeline::matcher::screen::Screen;
pub use state::Record;

/// The caller's side of one tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    /// Now, in seconds since the Unix epoch (`--now`, or the clock).
    pub now: u64,
    /// `--threshold`, in seconds.
    pub threshold_s: u64,
    /// `--busy`: a tool process is running.
    pub busy: bool,
    /// `--idle`: no outstanding work.
    pub idle: bool,
}

/// Whose state a record is: the session and the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner<'a> {
    /// The session (`--session`, or the capture as given).
    pub session: &'a str,
    /// The profile's name.
    pub profile: &'a str,
}

/// What the state file held, as the decision sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prior {
    /// A record.
    Record(Record),
    /// No usable record; the string says why, for a warning.
    Unusable(String),
}

/// The decision of one tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Stalled.
    pub stalled: bool,
    /// What the tick saw.
    pub state: TickState,
    /// Seconds the screen has been unchanged and not busy.
    pub static_s: u64,
    /// One sentence.
    pub reason: String,
    /// The busy line that restarted the clock.
    pub busy_evidence: Option<String>,
    /// The record to store for the next tick.
    pub next: Record,
    /// A warning for stderr: why the state was not used.
    pub warning: Option<String>,
}

/// Decides one tick from the last tick's record (`prior`), the screen now
/// and the caller's flags. Never stalls on a state it cannot trust: an
/// unusable, future-dated or foreign record starts the clock afresh.
pub fn decide(prior: Prior, owner: Owner<'_>, screen: &Screen, tick: Tick) -> Decision {
    let now = tick.now;
    let record = |screen: Option<&str>, since: u64, busy: bool| Record {
        session: owner.session.to_string(),
        profile: owner.profile.to_string(),
        screen: screen.map(str::to_string),
        since,
        tick: now,
        busy,
    };
    let quiet = |state, reason: String, next| Decision {
        stalled: false,
        state,
        static_s: 0,
        reason,
        busy_evidence: None,
        next,
        warning: None,
    };
    if tick.idle {
        return quiet(
            TickState::Cleared,
            "no outstanding work (--idle): state cleared, the static clock starts at the next request".into(),
            record(None, now, false),
        );
    }
    let (last, warning) = match prior {
        Prior::Unusable(why) => (None, Some(why)),
        Prior::Record(r) => match check(&r, owner, now) {
            Ok(()) => (Some(r), None),
            Err(why) => (None, Some(why)),
        },
    };
    let identity = screen.identity.as_str();
    let mut d = if tick.busy || screen.busy_line.is_some() {
        let reason = if tick.busy {
            "a tool process is running (--busy): the static clock restarts".to_string()
        } else {
            "busy indicator on screen: the static clock restarts".to_string()
        };
        let mut d = quiet(TickState::Busy, reason, record(Some(identity), now, true));
        d.busy_evidence = if tick.busy { None } else { screen.busy_line.clone() };
        d
    } else {
        match last.as_ref().and_then(|r| r.screen.as_deref().map(|s| (r, s))) {
            None => quiet(
                TickState::New,
                "first tick: the static clock starts now".into(),
                record(Some(identity), now, false),
            ),
            Some((_, seen)) if seen != identity => quiet(
                TickState::Changed,
                "pane changed since the last tick: the static clock restarts".into(),
                record(Some(identity), now, false),
            ),
            // The time between the last busy tick and this one is unknown: the
            // tool may have run until just now. Counting starts here.
            Some((r, _)) if r.busy => quiet(
                TickState::Static,
                "pane unchanged and no longer busy: the static clock starts now".into(),
                record(Some(identity), now, false),
            ),
            Some((r, _)) => {
                let static_s = now - r.since;
                let stalled = static_s >= tick.threshold_s;
                let threshold = tick.threshold_s;
                let reason = if stalled {
                    format!("pane unchanged {static_s}s with no busy indicator (threshold {threshold}s)")
                } else {
                    format!("pane unchanged {static_s}s with no busy indicator, under the threshold ({threshold}s)")
                };
                Decision {
                    stalled,
                    state: TickState::Static,
                    static_s,
                    reason,
                    busy_evidence: None,
                    next: record(Some(identity), r.since, false),
                    warning: None,
                }
            }
        }
    };
    d.warning = warning;
    d
}

/// Whether a record can be trusted at `now`: it belongs to this session and
/// profile, and lies in the past (a clock set back, or a replay with `--now`,
/// would otherwise count time that never passed).
fn check(r: &Record, owner: Owner<'_>, now: u64) -> Result<(), String> {
    if r.session != owner.session {
        return Err(format!("it belongs to session `{}`, not `{}`", r.session, owner.session));
    }
    if r.profile != owner.profile {
        return Err(format!("it was written with profile `{}`, not `{}`", r.profile, owner.profile));
    }
    if r.tick > now || r.since > now {
        return Err(format!("it is dated in the future ({}, now {now})", r.tick.max(r.since)));
    }
    if r.since > r.tick {
        return Err("its clock starts after its last tick".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::clean::clean;
    use crate::pipeline::matcher::Workload;
    use crate::pipeline::matcher::screen::ScreenPatterns;
    use crate::profile::StallPatterns;

    const OWNER: Owner<'static> = Owner { session: "s", profile: "p" };

    /// Patterns as a tick prepares them.
    fn rules(busy: &[&str], volatile: &[&str]) -> ScreenPatterns {
        let patterns = StallPatterns {
            busy: busy.iter().map(|s| (*s).to_string()).collect(),
            volatile: volatile.iter().map(|s| (*s).to_string()).collect(),
        };
        ScreenPatterns::compile(&patterns, "t.toml", Workload::Few).unwrap()
    }

    fn screen_of(r: &ScreenPatterns, text: &str) -> Screen {
        r.screen(&clean(text.as_bytes(), false))
    }

    fn tick(now: u64) -> Tick {
        Tick { now, threshold_s: 300, busy: false, idle: false }
    }

    /// Runs ticks in order over `(now, screen, busy flag, idle flag)`,
    /// carrying the record; returns every decision.
    fn run(r: &ScreenPatterns, ticks: &[(u64, &str, bool, bool)]) -> Vec<Decision> {
        let mut prior = Prior::Unusable("missing".into());
        let mut out = Vec::new();
        for &(now, text, busy, idle) in ticks {
            let d = decide(prior, OWNER, &screen_of(r, text), Tick { now, threshold_s: 300, busy, idle });
            prior = Prior::Record(d.next.clone());
            out.push(d);
        }
        out
    }

    const FROZEN: &str = "❯ fix the tests\n● I will run them now.\n";

    #[test]
    fn unchanged_quiet_screen_stalls_at_the_threshold() {
        let r = rules(&["esc to interrupt"], &[]);
        let d = run(
            &r,
            &[
                (1000, FROZEN, false, false),
                (1150, FROZEN, false, false),
                (1299, FROZEN, false, false),
                (1300, FROZEN, false, false),
            ],
        );
        let states: Vec<_> = d.iter().map(|d| (d.state, d.static_s, d.stalled)).collect();
        assert_eq!(
            states,
            [
                (TickState::New, 0, false),
                (TickState::Static, 150, false),
                (TickState::Static, 299, false),
                (TickState::Static, 300, true)
            ]
        );
        assert_eq!(d[3].reason, "pane unchanged 300s with no busy indicator (threshold 300s)");
        assert!(d[0].warning.is_some(), "a missing state is said");
        assert!(d[1].warning.is_none());
    }

    #[test]
    fn each_leg_of_the_and_alone_prevents_a_stall() {
        let r = rules(&["esc to interrupt"], &[]);
        // Leg 1: the screen changed (streaming output).
        let d = run(
            &r,
            &[(0, FROZEN, false, false), (400, "❯ fix the tests\n● I will run them now. Done.\n", false, false)],
        );
        assert_eq!((d[1].state, d[1].stalled), (TickState::Changed, false));
        // Leg 2: a busy line on screen, nothing else different.
        let busy = format!("{FROZEN}✻ Thinking… (esc to interrupt)\n");
        let d = run(&r, &[(0, &busy, false, false), (400, &busy, false, false)]);
        assert_eq!((d[1].state, d[1].stalled), (TickState::Busy, false));
        assert_eq!(d[1].busy_evidence.as_deref(), Some("✻ Thinking… (esc to interrupt)"));
        // Leg 3: the caller says a tool runs.
        let d = run(&r, &[(0, FROZEN, false, false), (400, FROZEN, true, false)]);
        assert_eq!((d[1].state, d[1].stalled, d[1].busy_evidence.clone()), (TickState::Busy, false, None));
        // And all three legs true: stalled.
        let d = run(&r, &[(0, FROZEN, false, false), (400, FROZEN, false, false)]);
        assert!(d[1].stalled);
    }

    #[test]
    fn a_change_restarts_the_clock() {
        let r = rules(&[], &[]);
        let other = "❯ fix the tests\n● Running 12 tests\n";
        let d = run(
            &r,
            &[
                (0, FROZEN, false, false),
                (200, other, false, false),
                (450, other, false, false),
                (500, other, false, false),
            ],
        );
        assert_eq!(d[2].static_s, 250);
        assert!(!d[2].stalled, "the clock restarted at the change, not at the first tick");
        assert!(d[3].stalled);
    }

    #[test]
    fn busy_glyph_guard_holds_the_clock_at_zero() {
        let r = rules(&[r"^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s"], &[]);
        let spin = format!("{FROZEN} ⠸ Thinking...\n");
        let d = run(&r, &[(0, &spin, false, false), (600, &spin, false, false), (1200, &spin, false, false)]);
        assert!(d.iter().all(|d| d.state == TickState::Busy && !d.stalled && d.static_s == 0));
        // The spinner line is not part of the identity: when it goes, the screen is the same.
        let d = run(
            &r,
            &[
                (0, &spin, false, false),
                (10, FROZEN, false, false),
                (310, FROZEN, false, false),
                (320, FROZEN, false, false),
            ],
        );
        assert_eq!((d[1].state, d[1].static_s), (TickState::Static, 0));
        assert_eq!((d[2].static_s, d[2].stalled), (300, true));
    }

    #[test]
    fn tool_time_is_never_static_time() {
        // --busy every 30s for 20 minutes; the tool exits just before the next
        // tick, and the screen is what it was all along.
        let r = rules(&[], &[]);
        let mut ticks: Vec<(u64, &str, bool, bool)> = (0..40).map(|i| (i * 30, FROZEN, true, false)).collect();
        ticks.push((1200, FROZEN, false, false));
        ticks.push((1230, FROZEN, false, false));
        ticks.push((1499, FROZEN, false, false));
        ticks.push((1500, FROZEN, false, false));
        let d = run(&r, &ticks);
        let tail: Vec<_> = d[40..].iter().map(|d| (d.static_s, d.stalled)).collect();
        assert_eq!(tail, [(0, false), (30, false), (299, false), (300, true)]);
        // Ticks far apart: the gap after the last busy tick is not counted either.
        let d = run(&r, &[(0, FROZEN, true, false), (900, FROZEN, false, false)]);
        assert_eq!((d[1].static_s, d[1].stalled), (0, false));
    }

    #[test]
    fn idle_time_is_never_charged_to_the_next_request() {
        let r = rules(&[], &[]);
        let d = run(
            &r,
            &[
                (0, FROZEN, false, true),
                (3600, FROZEN, false, true),
                (7200, FROZEN, false, false),
                (7499, FROZEN, false, false),
                (7500, FROZEN, false, false),
            ],
        );
        assert_eq!(d[0].state, TickState::Cleared);
        assert_eq!((d[2].state, d[2].static_s, d[2].stalled), (TickState::New, 0, false));
        assert!(d[2].warning.is_none(), "a cleared state is expected, not warned about");
        assert_eq!((d[3].static_s, d[3].stalled), (299, false));
        assert!(d[4].stalled);
    }

    #[test]
    fn a_ticking_clock_in_the_status_bar_is_the_same_screen() {
        let r = rules(&[], &[r"\b\d{1,2}:\d{2}(?::\d{2})?\b", r"\d+ tokens"]);
        let at = |clock: &str, tokens: u32| format!("{FROZEN}  main · {clock} · {tokens} tokens          \n");
        assert_eq!(screen_of(&r, &at("12:01:05", 10)).identity, screen_of(&r, &at("12:07:59", 4000)).identity);
        let d = run(&r, &[(0, &at("12:00:00", 1), false, false), (300, &at("12:05:00", 2), false, false)]);
        assert!(d[1].stalled);
        // Streaming output next to the clock still changes the screen.
        let streaming = format!("{FROZEN}● More words\n  main · 12:05:00 · 2 tokens\n");
        assert_ne!(screen_of(&r, &at("12:05:00", 2)).identity, screen_of(&r, &streaming).identity);
        // Masked, not dropped: text around the mask still counts.
        assert_ne!(screen_of(&r, "build 12:00 ok\n").identity, screen_of(&r, "build 12:00 failed\n").identity);
    }

    #[test]
    fn untrusted_state_starts_fresh_with_a_warning() {
        let r = rules(&[], &[]);
        let screen = screen_of(&r, FROZEN);
        let good = Record {
            session: "s".into(),
            profile: "p".into(),
            screen: Some(screen.identity.clone()),
            since: 0,
            tick: 100,
            busy: false,
        };
        let cases = [
            (Record { tick: 5000, ..good.clone() }, "future"),
            (Record { since: 5000, tick: 5000, ..good.clone() }, "future"),
            (Record { session: "other".into(), ..good.clone() }, "session `other`"),
            (Record { profile: "codex".into(), ..good.clone() }, "profile `codex`"),
            (Record { since: 200, ..good.clone() }, "after its last tick"),
        ];
        for (record, why) in cases {
            let d = decide(Prior::Record(record), OWNER, &screen, tick(1000));
            assert_eq!((d.state, d.stalled), (TickState::New, false), "{why}");
            assert!(d.warning.as_deref().is_some_and(|w| w.contains(why)), "{why}: {:?}", d.warning);
        }
        let d = decide(Prior::Record(good), OWNER, &screen, tick(1000));
        assert!(d.stalled && d.warning.is_none());
        let d = decide(Prior::Unusable("corrupt".into()), OWNER, &screen, tick(1000));
        assert_eq!((d.state, d.stalled, d.warning.as_deref()), (TickState::New, false, Some("corrupt")));
    }

    #[test]
    fn identity_ignores_padding_and_busy_lines_but_not_content() {
        let r = rules(&["esc to cancel"], &[]);
        let a = screen_of(&r, "one\ntwo   \n ⠸ Thinking... (esc to cancel, 5s)\n");
        let b = screen_of(&r, "one\ntwo\n ⠼ Thinking... (esc to cancel, 9s)\n");
        assert_eq!(a.identity, b.identity);
        assert_ne!(a.identity, screen_of(&r, "one\ntwo!\n").identity);
        assert_ne!(screen_of(&r, "ab\nc\n").identity, screen_of(&r, "a\nbc\n").identity, "line breaks count");
        assert_eq!(a.identity.len(), 16);
        assert_eq!(screen_of(&r, "").identity, format!("{:016x}", 0xcbf2_9ce4_8422_2325_u64), "FNV-1a offset basis");
    }
}
