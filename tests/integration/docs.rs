//! The figures the README and GUIDE.md print, checked against what
//! `faultsift test` and `faultsift profiles` report: a rule added without
//! its table row, or a corpus grown without the README's sentence, fails here
//! instead of leaving the docs a session behind.

use serde_json::Value;

use crate::util::{Test, root, thousands};

fn doc(name: &str) -> String {
    std::fs::read_to_string(root().join(name)).unwrap()
}

/// The text with every run of blanks and line breaks as one space, so a
/// sentence is found wherever the paragraph was wrapped.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One recall figure from `faultsift test --format json`.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct Figure {
    caught: u64,
    lines: u64,
}

impl Figure {
    fn of(profile: &Value, key: &str) -> Self {
        let f = &profile[key];
        Figure { caught: f["caught"].as_u64().unwrap(), lines: f["lines"].as_u64().unwrap() }
    }

    fn add(self, other: Self) -> Self {
        Figure { caught: self.caught + other.caught, lines: self.lines + other.lines }
    }

    fn pair(self) -> String {
        format!("{}/{}", self.caught, self.lines)
    }

    /// Whether a table cell states this figure: `c/n`, then either nothing,
    /// or the share in parentheses as `faultsift test` rounds it (or to one
    /// decimal, where the docs show how close a figure sits to a bar).
    fn stated_by(self, cell: &str) -> bool {
        let share = self.caught as f64 * 100.0 / self.lines as f64;
        let forms = [self.pair(), format!("{} ({share:.0}%)", self.pair()), format!("{} ({share:.1}%)", self.pair())];
        forms.iter().any(|f| f == cell)
    }
}

const COLUMNS: [&str; 5] =
    ["corpus_train", "corpus_test", "corpus_test_unquoted", "corpus_train_alone", "corpus_test_alone"];

fn corpus_report() -> Vec<Value> {
    let out = Test::new().args(["test", "--format", "json"]).run().stdout;
    let report: Value = serde_json::from_str(&out).unwrap();
    report["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["corpus_train"]["lines"].as_u64() > Some(0))
        .cloned()
        .collect()
}

/// The rows of the markdown table whose header row starts with `header`, as
/// trimmed cells.
fn table(text: &str, header: &str) -> Vec<Vec<String>> {
    let start = text.find(header).unwrap_or_else(|| panic!("no table starting {header:?}"));
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

#[test]
fn guide_rule_counts_are_the_profiles() {
    let out = Test::new().args(["profiles", "--format", "json"]).run().stdout;
    let listed: Value = serde_json::from_str(&out).unwrap();
    let rows = table(&doc("GUIDE.md"), "| profile | for the logs of | rules |");
    let mut seen = 0;
    for p in listed.as_array().unwrap().iter().filter(|p| p["origin"] == "builtin") {
        let name = format!("`{}`", p["name"].as_str().unwrap());
        let row = rows.iter().find(|r| r[0] == name).unwrap_or_else(|| panic!("GUIDE.md has no row for {name}"));
        assert_eq!(row[2], p["rules"].to_string(), "GUIDE.md's rule count for {name}");
        seen += 1;
    }
    assert_eq!(seen, rows.len(), "GUIDE.md lists a profile that is not built in: {rows:?}");
}

#[test]
fn guide_recall_table_is_what_faultsift_test_reports() {
    let profiles = corpus_report();
    assert!(profiles.len() >= 11, "profiles with corpus lines: {}", profiles.len());
    let rows = table(&doc("GUIDE.md"), "| profile | train as printed |");
    let mut agents = [Figure::default(); 5];
    let check = |label: &str, figures: [Figure; 5]| {
        let row = rows.iter().find(|r| r[0] == label).unwrap_or_else(|| panic!("GUIDE.md has no row {label}"));
        for (i, (column, figure)) in COLUMNS.iter().zip(figures).enumerate() {
            let cell = &row[1 + i];
            assert!(
                figure.stated_by(cell),
                "GUIDE.md's {label} {column}: {cell:?}, faultsift test says {}",
                figure.pair()
            );
        }
    };
    for p in &profiles {
        let name = p["profile"].as_str().unwrap();
        let figures = COLUMNS.map(|c| Figure::of(p, c));
        check(name, figures);
        if name != "ci" {
            for (sum, f) in agents.iter_mut().zip(figures) {
                *sum = sum.add(f);
            }
        }
    }
    check("all agents", agents);
    assert_eq!(rows.len(), profiles.len() + 1, "GUIDE.md's table has a row too many: {rows:?}");

    // The count of quoted held-out lines below the table.
    let test = profiles.iter().fold(Figure::default(), |s, p| s.add(Figure::of(p, "corpus_test")));
    let unquoted = profiles.iter().fold(Figure::default(), |s, p| s.add(Figure::of(p, "corpus_test_unquoted")));
    let sentence = format!("{} of the {} are quoted", test.lines - unquoted.lines, test.lines);
    assert!(flat(&doc("GUIDE.md")).contains(&sentence), "GUIDE.md should say {sentence:?}");
}

#[test]
fn readme_figures_are_what_faultsift_test_reports() {
    let profiles = corpus_report();
    let of = |name: &str, key: &str| Figure::of(profiles.iter().find(|p| p["profile"] == name).unwrap(), key);
    let agents = |key: &str| {
        profiles.iter().filter(|p| p["profile"] != "ci").fold(Figure::default(), |s, p| s.add(Figure::of(p, key)))
    };
    let corpus_lines = std::fs::read_to_string(root().join("testdata/corpus/real.tsv")).unwrap().lines().count() - 1;
    let older_lines = std::fs::read_to_string(root().join("testdata/corpus/older.tsv")).unwrap().lines().count() - 1;
    let not_faults =
        std::fs::read_to_string(root().join("testdata/corpus/not-faults.tsv")).unwrap().lines().count() - 1;
    let bait = profiles.iter().find(|p| p["profile"] == "claude").unwrap()["bait_lines"].as_u64().unwrap();
    let readme = flat(&doc("README.md"));
    let want = [
        format!("measure them on {} real fault lines", thousands(corpus_lines)),
        format!("and {} older ones", thousands(older_lines)),
        format!(
            "agents catch {} `train`, {} `test` ({} not quoted by a profile example); `ci` {} and {} ({})",
            agents("corpus_train").pair(),
            agents("corpus_test").pair(),
            agents("corpus_test_unquoted").pair(),
            of("ci", "corpus_train").pair(),
            of("ci", "corpus_test").pair(),
            of("ci", "corpus_test_unquoted").pair(),
        ),
        format!("no bait or not-fault line ({}) is paused", thousands(bait as usize + not_faults)),
    ];
    for sentence in &want {
        assert!(readme.contains(sentence.as_str()), "README.md should say {sentence:?}");
    }
    let guide = flat(&doc("GUIDE.md"));
    let want = [
        format!("{} lines that the programs printed during real outages", thousands(corpus_lines)),
        format!(
            "{} lines in all ({} bait, {} not-fault)",
            thousands(bait as usize + not_faults),
            thousands(bait as usize),
            thousands(not_faults)
        ),
    ];
    for sentence in &want {
        assert!(guide.contains(sentence.as_str()), "GUIDE.md should say {sentence:?}");
    }
}
