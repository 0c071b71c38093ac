//! Build-time data compiled into the binary:
//!
//! - `$OUT_DIR/builtins.rs`: every `profiles/*.toml`, as text (for `show` and
//!   `test`) and as a ready rule table with each pattern's required literals
//!   (for `classify`, which then parses no TOML and no regex syntax for a
//!   built-in profile). A built-in pattern that does not parse fails the build.
//! - `$OUT_DIR/bait.rs`: the bait corpus `testdata/bait/*.txt` for `test`.
//! - `$OUT_DIR/corpus.rs`: the real fault lines `testdata/corpus/real.tsv`
//!   and `older.tsv`, whose recall per split `test` reports.

#![allow(clippy::expect_used)] // A build script fails by panicking, with the message.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[path = "src/profile/define.rs"]
#[allow(dead_code)]
mod define;
#[path = "src/profile/lite.rs"]
#[allow(dead_code)]
mod lite;
#[path = "src/profile/literal.rs"]
#[allow(dead_code)]
mod literal;
#[path = "src/profile/record.rs"]
#[allow(dead_code)]
mod record;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=src/profile/define.rs");
    println!("cargo:rerun-if-changed=src/profile/literal.rs");
    println!("cargo:rerun-if-changed=src/profile/lite.rs");
    println!("cargo:rerun-if-changed=src/profile/record.rs");
    write(&out.join("builtins.rs"), &builtins(&root.join("profiles")));
    write(&out.join("bait.rs"), &bait(&root.join("testdata/bait")));
    let real = root.join("testdata/corpus/real.tsv");
    println!("cargo:rerun-if-changed={}", real.display());
    let older = root.join("testdata/corpus/older.tsv");
    println!("cargo:rerun-if-changed={}", older.display());
    write(
        &out.join("corpus.rs"),
        &format!(
            "/// `testdata/corpus/real.tsv`.\npub const REAL: &str = include_str!({:?});\n\
             /// `testdata/corpus/older.tsv`.\npub const OLDER: &str = include_str!({:?});\n",
            real.display().to_string(),
            older.display().to_string()
        ),
    );
}

/// A built-in pattern's syntax tree, or the parser's message (a pattern that
/// does not parse fails the build).
fn parse(pattern: &str, case_insensitive: bool) -> Result<regex_syntax::hir::Hir, String> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .nest_limit(64)
        .build()
        .parse(pattern)
        .map_err(|e| e.to_string())
}

/// `pattern` parsed, panicking with `what` named when it does not parse or
/// matches the empty string (as a profile file's are rejected at load).
fn checked(f: &Path, what: &str, pattern: &str, case_insensitive: bool) -> regex_syntax::hir::Hir {
    let hir = parse(pattern, case_insensitive).unwrap_or_else(|e| panic!("{}: {what}: {e}", f.display()));
    assert_ne!(
        hir.properties().minimum_len(),
        Some(0),
        "{}: {what}: {pattern:?} matches the empty string",
        f.display()
    );
    hir
}

/// The Rust expression of a pattern's `Option<LiteForm>`.
fn lite_form(hir: &regex_syntax::hir::Hir) -> String {
    match lite::form(hir) {
        Some(f) => format!("Some(LiteForm {{ pattern: {:?}, ascii_words: {} }})", f.pattern, f.ascii_words),
        None => "None".to_string(),
    }
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    files
}

fn bait(dir: &Path) -> String {
    let mut out = String::from(
        "/// The bait corpus: `(file name, text)`, sorted by name.\npub const FILES: &[(&str, &str)] = &[\n",
    );
    for f in files(dir, "txt") {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let _ = writeln!(out, "    ({name:?}, include_str!({:?})),", f.display().to_string());
    }
    out.push_str("];\n");
    out
}

fn builtins(dir: &Path) -> String {
    // A `static`, not a `const`: a const's tables are copied into each
    // codegen unit that names them (a plain release build once held 5.8 MB
    // more of them after an unrelated change moved code between units), and
    // every copy's pointers are relocated when the process starts.
    let mut out = String::from("/// Every built-in profile, sorted by name.\npub static BUILTINS: &[Builtin] = &[\n");
    for f in files(dir, "toml") {
        let stem = f.file_stem().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut table: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let limits = define::Limits { pattern: usize::MAX, total: usize::MAX };
        define::expand(&mut table, limits).unwrap_or_else(|e| panic!("{}: {}: {}", f.display(), e.at, e.message));
        assert!(!table.contains_key("env_fault_patterns"), "{}: write [[rule]] tables in built-ins", f.display());
        let extends = table.get("extends").and_then(|v| v.as_str());
        let disable: Vec<&str> = table
            .get("disable")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        let name = table.get("name").and_then(|v| v.as_str()).unwrap_or(&stem).to_string();
        assert_eq!(name, stem, "{}: a built-in profile's name is its file stem", f.display());
        let _ = writeln!(
            out,
            "    Builtin {{\n        name: {name:?},\n        text: include_str!({:?}),",
            f.display().to_string()
        );
        let model = match table.get("carries_model_output").and_then(|v| v.as_bool()) {
            Some(m) => format!("Some({m})"),
            None => "None".to_string(),
        };
        let _ = writeln!(
            out,
            "        carries_model_output: {model},\n        extends: {extends:?},\n        disable: &{disable:?},\n        rules: &["
        );
        let rules = table.get("rule").and_then(|v| v.as_array()).cloned().unwrap_or_default();
        for rule in rules {
            let get = |k: &str| rule.get(k).and_then(|v| v.as_str()).map(str::to_string);
            let id = get("id").unwrap_or_else(|| panic!("{}: a rule without id", f.display()));
            let kind = get("kind").unwrap_or_else(|| "env_fault".into());
            let action = get("action").unwrap_or_else(|| "pause".into());
            let variant = match action.as_str() {
                "pause" => "Pause",
                "retry" => "Retry",
                "charge" => "Charge",
                other => panic!("{}: rule {id}: unknown action {other}", f.display()),
            };
            let ci = rule.get("case_insensitive").and_then(|v| v.as_bool()).unwrap_or(false);
            let fallback = rule.get("fallback").and_then(|v| v.as_bool()).unwrap_or(false);
            let record = rule.get("record").map(|v| {
                let table = v.as_table().unwrap_or_else(|| panic!("{}: rule {id}: record is a table", f.display()));
                let conditions =
                    record::conditions(table).unwrap_or_else(|e| panic!("{}: rule {id}: {e}", f.display()));
                lean_conditions(&conditions)
            });
            let field = get("field");
            if let Some(field) = &field {
                assert!(record.is_some(), "{}: rule {id}: `field` needs `record`", f.display());
                record::check_pointer(field).unwrap_or_else(|e| panic!("{}: rule {id}: field: {e}", f.display()));
            }
            let patterns: Vec<String> = match (get("pattern"), rule.get("patterns").and_then(|v| v.as_array())) {
                (Some(p), None) => vec![p],
                (None, Some(ps)) => ps.iter().filter_map(|p| p.as_str().map(str::to_string)).collect(),
                (None, None) if record.is_some() => Vec::new(),
                _ => panic!("{}: rule {id}: exactly one of pattern or patterns", f.display()),
            };
            let _ = write!(
                out,
                "            LeanRule {{ id: {id:?}, kind: {kind:?}, action: Action::{variant}, case_insensitive: {ci}, patterns: &["
            );
            for p in &patterns {
                let hir = checked(&f, &format!("rule {id}"), p, ci);
                let literals = match literal::required(&hir, ci) {
                    Some(l) => format!("Some(&{l:?})"),
                    None => "None".to_string(),
                };
                let lite = lite_form(&hir);
                let also: Vec<String> =
                    literal::also_required(&hir, ci).iter().map(|set| format!("&{set:?}")).collect();
                let _ = write!(
                    out,
                    "LeanPattern {{ source: {p:?}, literals: {literals}, also: &[{}], lite: {lite} }}, ",
                    also.join(", ")
                );
            }
            let after = match rule.get("after").and_then(|v| v.as_table()) {
                Some(a) => {
                    let pattern = a.get("pattern").and_then(|v| v.as_str()).unwrap_or_default();
                    let within = a.get("within").and_then(|v| v.as_integer()).unwrap_or(0);
                    parse(pattern, ci).unwrap_or_else(|e| panic!("{}: rule {id}: after: {e}", f.display()));
                    format!("Some(LeanAfter {{ pattern: {pattern:?}, within: {within} }})")
                }
                None => "None".to_string(),
            };
            let record = record.map_or_else(|| "None".to_string(), |r| format!("Some({r})"));
            let _ = writeln!(out, "], after: {after}, record: {record}, field: {field:?}, fallback: {fallback} }},");
        }
        let progress_text: Vec<&str> = table
            .get("progress")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        // Each progress pattern's required literals, as for rule patterns, so
        // that `classify` parses no progress pattern either.
        let progress_literals: Vec<String> = progress_text
            .iter()
            .map(|p| {
                let hir = parse(p, false).unwrap_or_else(|e| panic!("{}: progress: {e}", f.display()));
                match literal::required(&hir, false) {
                    Some(l) => format!("Some(&{l:?})"),
                    None => "None".to_string(),
                }
            })
            .collect();
        let progress: Vec<String> = table
            .get("progress_records")
            .and_then(|v| v.as_array())
            .map(|entries| {
                entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        let t =
                            e.as_table().unwrap_or_else(|| panic!("{}: progress_records[{i}] is a table", f.display()));
                        let c = record::conditions(t)
                            .unwrap_or_else(|e| panic!("{}: progress_records[{i}]: {e}", f.display()));
                        lean_conditions(&c)
                    })
                    .collect()
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "        ],\n        progress: &{progress_text:?},\n        progress_literals: &[{}],\n        progress_records: &[{}],",
            progress_literals.join(", "),
            progress.join(", ")
        );
        // `busy` and `volatile` (for `stall`) must parse and must not match
        // the empty string, as rule patterns must.
        for key in ["busy", "volatile"] {
            let patterns: Vec<&str> = table
                .get(key)
                .and_then(|v| v.as_array())
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            for p in &patterns {
                checked(&f, key, p, false);
            }
            let _ = writeln!(out, "        {key}: &{patterns:?},");
            // What `stall` looks each pattern up by (see literal::screen).
            let literals: Vec<String> = patterns
                .iter()
                .map(|p| {
                    let hir = regex_syntax::Parser::new().parse(p).unwrap_or_else(|e| panic!("{key}: {e}"));
                    match literal::screen(&hir) {
                        Some(l) => format!("Some(&{l:?})"),
                        None => "None".to_string(),
                    }
                })
                .collect();
            let _ = writeln!(out, "        {key}_literals: &[{}],", literals.join(", "));
        }
        // The pane's structure: each pattern with its `regex-lite` form.
        let tool_output = table.get("tool_output").map(|v| {
            let t = v.as_table().unwrap_or_else(|| panic!("{}: tool_output is a table", f.display()));
            // A pattern of `tool_output` (or of its `prompt` table, `within`)
            // with its lite form.
            let built_in = |table: &toml::Table, within: &str, k: &str| {
                table.get(k).and_then(|v| v.as_str()).map(|p| {
                    let hir = checked(&f, &format!("tool_output.{within}{k}"), p, false);
                    format!("({p:?}, {})", lite_form(&hir))
                })
            };
            let missing = |k: &str| panic!("{}: tool_output.{k} is missing", f.display());
            let built = |k: &str| built_in(t, "", k);
            let required = |k: &str| built(k).unwrap_or_else(|| missing(k));
            let optional = |k: &str| built(k).map_or_else(|| "None".to_string(), |r| format!("Some({r})"));
            let prompt = t.get("prompt").map_or_else(
                || "None".to_string(),
                |v| {
                    let p = v.as_table().unwrap_or_else(|| panic!("{}: tool_output.prompt is a table", f.display()));
                    let part = |k: &str| built_in(p, "prompt.", k).unwrap_or_else(|| missing(&format!("prompt.{k}")));
                    format!("Some(({}, {}))", part("row"), part("below"))
                },
            );
            let blank_ends_item = t.get("blank_ends_item").and_then(|v| v.as_bool()).unwrap_or(false);
            format!(
                "Some(BuiltToolOutput {{ item: {}, tool: {}, result: {}, row: {}, blank_ends_item: {blank_ends_item}, message: {}, message_row: {}, prompt: {} }})",
                required("item"),
                required("tool"),
                optional("result"),
                required("row"),
                optional("message"),
                optional("message_row"),
                prompt,
            )
        });
        let _ = writeln!(out, "        tool_output: {},", tool_output.as_deref().unwrap_or("None"));
        let banner: Vec<&str> = table
            .get("banner")
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .map(|w| w.as_str().unwrap_or_else(|| panic!("{}: banner words are strings", f.display())))
                    .collect()
            })
            .unwrap_or_default();
        let _ = writeln!(out, "        banner: &{banner:?},");
        out.push_str("    },\n");
    }
    out.push_str("];\n");
    out
}

/// Record conditions as the Rust expression of a `&[LeanCondition]`.
fn lean_conditions(conditions: &[record::Condition]) -> String {
    let mut out = String::from("&[");
    for c in conditions {
        let accepted: Vec<String> = c
            .accepted
            .iter()
            .map(|s| match s {
                record::Scalar::Str(v) => format!("LeanScalar::Str({v:?})"),
                record::Scalar::Int(v) => format!("LeanScalar::Int({v})"),
                record::Scalar::Bool(v) => format!("LeanScalar::Bool({v})"),
                record::Scalar::Present(v) => format!("LeanScalar::Present({v})"),
            })
            .collect();
        let _ = write!(out, "LeanCondition {{ pointer: {:?}, accepted: &[{}] }}, ", c.pointer, accepted.join(", "));
    }
    out.push(']');
    out
}
