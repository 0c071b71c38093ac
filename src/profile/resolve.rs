//! Profile resolution (SPEC §4): the layers searched for `NAME.toml`, first found
//! wins, and `extends` that reaches into the layers below.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::schema::{self, ProfileFile};
use super::{Origin, Profile, builtin};
use crate::error::ProfileError;

/// `extends` chains longer than this are taken for a loop.
const MAX_EXTENDS_DEPTH: usize = 16;

/// One place profiles are looked up in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layer {
    /// A directory of `NAME.toml` files.
    Dir(PathBuf),
    /// The profiles compiled into the binary.
    Builtin,
}

/// The layers, in lookup order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolver {
    layers: Vec<Layer>,
    /// Loading stops with an error past this (`--timeout`).
    deadline: Option<std::time::Instant>,
}

/// A profile's text, found in a layer or given as a path.
#[derive(Debug, Clone)]
struct Found {
    origin: Origin,
    stem: String,
    text: Cow<'static, str>,
    /// Layer index, or None for `--profile PATH`.
    layer: Option<usize>,
}

/// One entry of [`Resolver::available`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Available {
    /// The profile's name (file stem).
    pub name: String,
    /// Where it resolves to.
    pub origin: Origin,
    /// The origins of the same name in lower layers, which it shadows.
    pub shadows: Vec<Origin>,
}

impl Resolver {
    /// A resolver over exactly these layers.
    pub fn new(layers: Vec<Layer>) -> Self {
        Resolver { layers, deadline: None }
    }

    /// This resolver, stopping a resolution that passes `deadline` with an
    /// error (loading counts against `--timeout`).
    pub fn with_deadline(mut self, deadline: std::time::Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The layers of SPEC §4: each `--profile-dir`, each directory of
    /// `FAULTSIFT_PROFILE_PATH`, the XDG config directory, then the built-ins.
    /// The working directory is never searched implicitly: the session being
    /// classified may have written it (`--profile-dir .faultsift/profiles`
    /// opts in). Directories from the environment that do not exist are
    /// skipped; a `--profile-dir` that does not exist is an error.
    pub fn from_env(profile_dirs: &[PathBuf]) -> Result<Self, ProfileError> {
        let mut layers = Vec::new();
        for dir in profile_dirs {
            if !dir.is_dir() {
                return Err(ProfileError::Read {
                    path: dir.clone(),
                    cause: std::io::Error::new(std::io::ErrorKind::NotFound, "--profile-dir is not a directory"),
                });
            }
            layers.push(Layer::Dir(dir.clone()));
        }
        let mut implicit: Vec<PathBuf> = Vec::new();
        if let Some(path) = std::env::var_os("FAULTSIFT_PROFILE_PATH") {
            implicit.extend(std::env::split_paths(&path).filter(|p| !p.as_os_str().is_empty()));
        }
        let config = std::env::var_os("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
        if let Some(config) = config {
            implicit.push(config.join("faultsift/profiles"));
        }
        layers.extend(implicit.into_iter().filter(|d| d.is_dir()).map(Layer::Dir));
        layers.push(Layer::Builtin);
        Ok(Resolver { layers, deadline: None })
    }

    /// The layers, in lookup order.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Resolves `--profile`: a value with a `/` or ending in `.toml` is a file;
    /// anything else a name looked up through the layers. The whole profile:
    /// examples, counterexamples, prose and file texts.
    pub fn resolve(&self, selector: &str) -> Result<Profile, ProfileError> {
        self.resolve_with(selector, Detail::Full)
    }

    /// As [`Resolver::resolve`], but what matching needs only: built-in
    /// profiles come from their precomputed tables, without parsing TOML.
    pub fn resolve_for_matching(&self, selector: &str) -> Result<Profile, ProfileError> {
        self.resolve_with(selector, Detail::Matching)
    }

    /// As [`Resolver::resolve_for_matching`], with the `busy` and `volatile`
    /// patterns that `faultsift stall` reads a screen with.
    pub fn resolve_for_stall(&self, selector: &str) -> Result<Profile, ProfileError> {
        self.resolve_with(selector, Detail::Stall)
    }

    /// As [`Resolver::resolve_for_stall`] for a tick that only reads a screen:
    /// a built-in profile (and its built-in bases) without its rules, which
    /// only `--classify` needs. A profile file is resolved whole.
    pub fn resolve_for_screen(&self, selector: &str) -> Result<Profile, ProfileError> {
        self.resolve_with(selector, Detail::Screen)
    }

    fn resolve_with(&self, selector: &str, detail: Detail) -> Result<Profile, ProfileError> {
        super::budget::with_budget(self.deadline, || self.resolve_budgeted(selector, detail))
    }

    fn resolve_budgeted(&self, selector: &str, detail: Detail) -> Result<Profile, ProfileError> {
        let found = if let Some(name) = selector.strip_prefix(BUILTIN_PREFIX) {
            let b = builtin::get(name).ok_or_else(|| ProfileError::NotFound {
                name: selector.to_string(),
                available: builtin::BUILTINS
                    .iter()
                    .map(|b| format!("{BUILTIN_PREFIX}{}", b.name))
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
            let layer = self.layers.iter().position(|l| *l == Layer::Builtin);
            Found { origin: Origin::Builtin, stem: b.name.to_string(), text: Cow::Borrowed(b.text), layer }
        } else if is_path(selector) {
            read_path(Path::new(selector))?
        } else {
            self.find(selector, 0)?.ok_or_else(|| self.not_found(selector))?
        };
        self.build(found, 0, detail)
    }

    /// Every profile name that resolves here, sorted, with what it shadows.
    pub fn available(&self) -> Vec<Available> {
        let mut out: Vec<Available> = Vec::new();
        for layer in &self.layers {
            for (name, origin) in layer_entries(layer) {
                match out.iter_mut().find(|a| a.name == name) {
                    Some(a) => a.shadows.push(origin),
                    None => out.push(Available { name, origin, shadows: Vec::new() }),
                }
            }
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The error for "no profile given", listing what resolves.
    pub fn none_given(&self) -> ProfileError {
        ProfileError::NoneGiven { available: self.available_list() }
    }

    fn not_found(&self, name: &str) -> ProfileError {
        ProfileError::NotFound { name: name.to_string(), available: self.available_list() }
    }

    fn available_list(&self) -> String {
        let names: Vec<String> = self.available().into_iter().map(|a| a.name).collect();
        if names.is_empty() { "none".to_string() } else { names.join(", ") }
    }

    /// The first `name` at or below layer `from`.
    fn find(&self, name: &str, from: usize) -> Result<Option<Found>, ProfileError> {
        for (i, layer) in self.layers.iter().enumerate().skip(from) {
            match layer {
                Layer::Dir(dir) => {
                    let path = dir.join(format!("{name}.toml"));
                    if path.is_file() {
                        let mut found = read_path(&path)?;
                        found.layer = Some(i);
                        return Ok(Some(found));
                    }
                }
                Layer::Builtin => {
                    if let Some(b) = builtin::get(name) {
                        return Ok(Some(Found {
                            origin: Origin::Builtin,
                            stem: b.name.to_string(),
                            text: Cow::Borrowed(b.text),
                            layer: Some(i),
                        }));
                    }
                }
            }
        }
        Ok(None)
    }

    fn build(&self, found: Found, depth: usize, detail: Detail) -> Result<Profile, ProfileError> {
        let origin_label = match &found.origin {
            Origin::Builtin => format!("builtin:{}", found.stem),
            Origin::File(p) => p.display().to_string(),
        };
        // A file's `disable` names inherited rules: its bases keep theirs.
        let detail = if detail == Detail::Screen && found.origin != Origin::Builtin { Detail::Stall } else { detail };
        let file = match (detail, &found.origin, builtin::get(&found.stem)) {
            (Detail::Matching, Origin::Builtin, Some(b)) => lean(b, false),
            (Detail::Stall, Origin::Builtin, Some(b)) => lean(b, true),
            (Detail::Screen, Origin::Builtin, Some(b)) => screen_only(b),
            (Detail::Full, Origin::Builtin, Some(b)) => {
                let mut file = schema::parse(&origin_label, &found.stem, &found.text)?;
                mark_builtin(&mut file, b);
                file
            }
            _ => schema::parse(&origin_label, &found.stem, &found.text)?,
        };
        // Only `test` reads the files' texts (self-match): matching keeps none.
        let text = (detail == Detail::Full).then(|| (origin_label.clone(), found.text.into_owned()));
        let Some(base_name) = file.extends.clone() else {
            return Ok(standalone(file, found.origin, text));
        };
        if depth >= MAX_EXTENDS_DEPTH {
            return Err(ProfileError::Extends {
                origin: origin_label,
                message: format!("extends chain deeper than {MAX_EXTENDS_DEPTH} (a loop?) at `{base_name}`"),
            });
        }
        // A file named X that extends X means the X below it.
        let from = match found.layer {
            Some(layer) if base_name == found.stem => layer + 1,
            _ => 0,
        };
        // A built-in extends built-ins only: a file in a directory layer must
        // not change what `builtin:NAME` means.
        let base_found = if found.origin == Origin::Builtin {
            builtin::get(&base_name).map(|b| Found {
                origin: Origin::Builtin,
                stem: b.name.to_string(),
                text: Cow::Borrowed(b.text),
                layer: found.layer,
            })
        } else {
            self.find(&base_name, from)?
        };
        let base_found = base_found.ok_or_else(|| ProfileError::Extends {
            origin: origin_label.clone(),
            message: format!("extends `{base_name}`, which does not resolve"),
        })?;
        let base = self.build(base_found, depth + 1, detail)?;
        merge(base, file, found.origin, &origin_label, text)
    }
}

/// How much of a profile to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detail {
    Full,
    Matching,
    /// Matching, plus the `busy` and `volatile` patterns (`stall`).
    Stall,
    /// The `busy` and `volatile` patterns only, for a built-in chain (a
    /// `stall` tick without `--classify`).
    Screen,
}

/// A built-in profile parsed in full (for `test`) runs as `classify` runs it:
/// patterns compiled on first use, on the engine its table names.
fn mark_builtin(file: &mut ProfileFile, b: &builtin::Builtin) {
    for rule in &mut file.rules {
        if let Some(lean) = b.rules.iter().find(|r| r.id == rule.id) {
            rule.builtin = true;
            rule.lite = lean.patterns.iter().map(|p| p.lite).collect();
            rule.also = lean.patterns.iter().map(|p| also(p.also)).collect();
        }
    }
}

/// A built-in pattern's other required literal sets, owned.
fn also(sets: &[&[&str]]) -> Vec<Vec<String>> {
    sets.iter().map(|set| set.iter().map(|s| (*s).to_string()).collect()).collect()
}

/// A built-in profile from its precomputed table: rules without examples or
/// prose, which matching does not need; the `stall` patterns only when asked,
/// so that `classify` allocates nothing for them.
fn lean(b: &builtin::Builtin, with_stall: bool) -> ProfileFile {
    let rules = b
        .rules
        .iter()
        .map(|r| super::Rule {
            id: r.id.to_string(),
            profile: b.name.to_string(),
            kind: r.kind.to_string(),
            action: r.action,
            patterns: r.patterns.iter().map(|p| p.source.to_string()).collect(),
            case_insensitive: r.case_insensitive,
            description: None,
            source: None,
            examples: Vec::new(),
            counterexamples: Vec::new(),
            after: r.after.map(|a| super::After { pattern: a.pattern.to_string(), within: a.within }),
            literals: r
                .patterns
                .iter()
                .map(|p| p.literals.map(|l| l.iter().map(|s| (*s).to_string()).collect()))
                .collect(),
            also: r.patterns.iter().map(|p| also(p.also)).collect(),
            lite: r.patterns.iter().map(|p| p.lite).collect(),
            builtin: true,
            record: r.record.map(|cs| cs.iter().map(builtin::LeanCondition::to_condition).collect()),
            field: r.field.map(str::to_string),
            fallback: r.fallback,
        })
        .collect();
    ProfileFile {
        name: b.name.to_string(),
        description: None,
        carries_model_output: b.carries_model_output,
        extends: b.extends.map(str::to_string),
        disable: b.disable.iter().map(|d| (*d).to_string()).collect(),
        rules,
        progress: b.progress.iter().map(|p| (*p).to_string()).collect(),
        unknown_keys: Vec::new(),
        progress_records: b
            .progress_records
            .iter()
            .map(|cs| cs.iter().map(builtin::LeanCondition::to_condition).collect())
            .collect(),
        stall: if with_stall {
            super::StallPatterns {
                busy: b.busy.iter().map(|p| (*p).to_string()).collect(),
                volatile: b.volatile.iter().map(|p| (*p).to_string()).collect(),
            }
        } else {
            super::StallPatterns::default()
        },
        tool_output: b.tool_output.map(|t| super::ToolOutput {
            item: t.item.0.to_string(),
            tool: t.tool.0.to_string(),
            result: t.result.map(|r| r.0.to_string()),
            row: t.row.0.to_string(),
            blank_ends_item: t.blank_ends_item,
            message: t.message.map(|m| m.0.to_string()),
            message_row: t.message_row.map(|m| m.0.to_string()),
            prompt: t.prompt.map(|(row, below)| super::Prompt { row: row.0.to_string(), below: below.0.to_string() }),
            lite: [
                t.item.1,
                t.tool.1,
                t.result.and_then(|r| r.1),
                t.row.1,
                t.message.and_then(|m| m.1),
                t.message_row.and_then(|m| m.1),
                t.prompt.and_then(|p| p.0.1),
                t.prompt.and_then(|p| p.1.1),
            ],
        }),
        banner: (!b.banner.is_empty()).then(|| b.banner.iter().map(|w| (*w).to_string()).collect()),
    }
}

/// A built-in profile's `busy` and `volatile` patterns, nothing to match with.
fn screen_only(b: &builtin::Builtin) -> ProfileFile {
    ProfileFile {
        name: b.name.to_string(),
        description: None,
        carries_model_output: b.carries_model_output,
        extends: b.extends.map(str::to_string),
        disable: Vec::new(),
        rules: Vec::new(),
        progress: Vec::new(),
        unknown_keys: Vec::new(),
        progress_records: Vec::new(),
        stall: super::StallPatterns {
            busy: b.busy.iter().map(|p| (*p).to_string()).collect(),
            volatile: b.volatile.iter().map(|p| (*p).to_string()).collect(),
        },
        tool_output: None,
        banner: None,
    }
}

fn standalone(file: ProfileFile, origin: Origin, text: Option<(String, String)>) -> Profile {
    Profile {
        name: file.name,
        description: file.description,
        carries_model_output: file.carries_model_output.unwrap_or(false),
        origin,
        rules: file.rules,
        progress: file.progress,
        unknown_keys: file.unknown_keys,
        stall: file.stall,
        texts: text.into_iter().collect(),
        progress_records: file.progress_records,
        tool_output: file.tool_output,
        banner: file.banner.unwrap_or_default(),
    }
}

/// Applies `file` over `base`: `disable` drops inherited rules; an own rule with
/// an inherited rule's id replaces it in place; other own rules follow.
fn merge(
    base: Profile,
    file: ProfileFile,
    origin: Origin,
    origin_label: &str,
    text: Option<(String, String)>,
) -> Result<Profile, ProfileError> {
    let mut rules = base.rules;
    for id in &file.disable {
        let before = rules.len();
        rules.retain(|r| r.id != *id && r.qualified_id() != *id);
        if rules.len() == before {
            return Err(ProfileError::UnknownDisable { origin: origin_label.to_string(), rule: id.clone() });
        }
    }
    for rule in file.rules {
        match rules.iter_mut().find(|r| r.id == rule.id) {
            Some(slot) => *slot = rule,
            None => rules.push(rule),
        }
    }
    let mut progress = base.progress;
    for p in file.progress {
        if !progress.contains(&p) {
            progress.push(p);
        }
    }
    let mut unknown_keys = base.unknown_keys;
    unknown_keys.extend(file.unknown_keys);
    let mut texts = base.texts;
    texts.extend(text);
    let mut progress_records = base.progress_records;
    progress_records.extend(file.progress_records);
    let mut stall = base.stall;
    stall.extend(file.stall);
    Ok(Profile {
        name: file.name,
        description: file.description.or(base.description),
        carries_model_output: file.carries_model_output.unwrap_or(base.carries_model_output),
        origin,
        rules,
        progress,
        unknown_keys,
        stall,
        texts,
        progress_records,
        tool_output: file.tool_output.or(base.tool_output),
        banner: file.banner.unwrap_or(base.banner),
    })
}

/// `--profile builtin:NAME` always means the built-in, whatever the
/// directories hold.
pub const BUILTIN_PREFIX: &str = "builtin:";

/// The note for stderr when `profile` (as resolved for `selector`) is a file
/// that takes a built-in's name: a session that could write a profile
/// directory must not pass for the built-in silently.
pub fn shadow_note(profile: &Profile) -> Option<String> {
    let Origin::File(path) = &profile.origin else { return None };
    builtin::get(&profile.name)?;
    Some(format!(
        "note: profile `{name}` is the file {}, not the built-in (--profile builtin:{name} for the built-in)",
        path.display(),
        name = profile.name
    ))
}

fn is_path(selector: &str) -> bool {
    selector.contains('/') || selector.contains(std::path::MAIN_SEPARATOR) || selector.ends_with(".toml")
}

/// The largest profile file read. Profiles come from any project's overlay
/// directory, and parsing costs many times the file's size in memory (SECURITY.md
/// gives the measured worst case): real profiles are a few kilobytes.
pub const MAX_PROFILE_BYTES: u64 = 4 << 20;

fn read_path(path: &Path) -> Result<Found, ProfileError> {
    let read = || -> std::io::Result<String> {
        use std::io::Read as _;
        // Checked before opening: opening a FIFO blocks until a writer comes.
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            let what = if meta.is_dir() { "a directory" } else { "not a regular file (a FIFO, socket or device)" };
            return Err(std::io::Error::other(format!("it is {what}")));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)?.take(MAX_PROFILE_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_PROFILE_BYTES {
            return Err(std::io::Error::other(format!("larger than the {} MiB limit", MAX_PROFILE_BYTES >> 20)));
        }
        String::from_utf8(bytes)
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "stream did not contain valid UTF-8"))
    };
    let text = read().map_err(|cause| ProfileError::Read { path: path.to_path_buf(), cause })?;
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Found { origin: Origin::File(path.to_path_buf()), stem, text: Cow::Owned(text), layer: None })
}

/// `(name, origin)` of every profile a layer holds, sorted by name.
fn layer_entries(layer: &Layer) -> Vec<(String, Origin)> {
    match layer {
        Layer::Builtin => builtin::BUILTINS.iter().map(|b| (b.name.to_string(), Origin::Builtin)).collect(),
        Layer::Dir(dir) => {
            let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
            let mut out: Vec<(String, Origin)> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
                .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), Origin::File(p))))
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out
        }
    }
}

/// Completes `--profile`: the names that resolve here (the directories of
/// `FAULTSIFT_PROFILE_PATH` and the XDG directory, and the built-ins, also as
/// `builtin:NAME`), not file names; a value with a `/` completes as a path.
pub fn complete_profile(current: &std::ffi::OsStr) -> Vec<clap_complete::CompletionCandidate> {
    let Some(current) = current.to_str() else { return Vec::new() };
    if current.contains('/') {
        use clap_complete::engine::ValueCompleter as _;
        return clap_complete::engine::PathCompleter::file().complete(std::ffi::OsStr::new(current));
    }
    let Ok(resolver) = Resolver::from_env(&[]) else { return Vec::new() };
    let mut names: Vec<(String, String)> =
        resolver.available().into_iter().map(|a| (a.name, format!("{}", a.origin))).collect();
    names.extend(crate::profile::builtin::BUILTINS.iter().map(|b| (format!("builtin:{}", b.name), "builtin".into())));
    names
        .into_iter()
        .filter(|(n, _)| n.starts_with(current))
        .map(|(n, origin)| clap_complete::CompletionCandidate::new(n).help(Some(origin.into())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_screen_resolve_has_the_stall_patterns_and_no_rules() {
        let r = Resolver::new(vec![Layer::Builtin]);
        for name in ["qwen", "claude", "ci"] {
            let screen = r.resolve_for_screen(name).unwrap();
            let stall = r.resolve_for_stall(name).unwrap();
            assert_eq!(screen.stall, stall.stall, "{name}");
            assert!(screen.rules.is_empty() && !stall.rules.is_empty(), "{name}");
        }
        assert!(r.resolve_for_screen("qwen").unwrap().stall.busy.len() >= 2, "gemini's busy patterns inherited");
        // A file that disables an inherited rule: its bases keep their rules.
        let dir = tempfile::tempdir().unwrap();
        let id = &r.resolve("claude").unwrap().rules[0].id;
        let path =
            write(dir.path(), "mine.toml", &format!("extends = \"claude\"\ndisable = [\"{id}\"]\nbusy = ['x y']\n"));
        let screen = r.resolve_for_screen(path.to_str().unwrap()).unwrap();
        assert_eq!(screen.stall.busy.last().map(String::as_str), Some("x y"));
    }

    #[test]
    fn first_layer_wins_and_shadows() {
        let top = tempfile::tempdir().unwrap();
        write(top.path(), "claude.toml", "[[rule]]\nid = \"mine\"\npattern = 'only mine'\n");
        let r = Resolver::new(vec![Layer::Dir(top.path().to_path_buf()), Layer::Builtin]);
        let p = r.resolve("claude").unwrap();
        assert_eq!(p.rules.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["mine"]);
        let claude = r.available().into_iter().find(|a| a.name == "claude").unwrap();
        assert_eq!(claude.shadows, [Origin::Builtin]);
    }

    #[test]
    fn overlay_extends_the_builtin_of_the_same_name() {
        let top = tempfile::tempdir().unwrap();
        let builtin = Resolver::new(vec![Layer::Builtin]).resolve("claude").unwrap();
        let first = builtin.rules[0].qualified_id();
        write(
            top.path(),
            "claude.toml",
            &format!(
                "extends = \"claude\"\ndisable = [\"{first}\"]\n[[rule]]\nid = \"extra\"\npattern = 'extra line'\n"
            ),
        );
        let r = Resolver::new(vec![Layer::Dir(top.path().to_path_buf()), Layer::Builtin]);
        let p = r.resolve("claude").unwrap();
        assert_eq!(p.rules.len(), builtin.rules.len());
        assert!(p.rules.iter().all(|r| r.qualified_id() != first));
        assert_eq!(p.rules.last().unwrap().qualified_id(), "claude/extra");
        assert!(p.carries_model_output, "inherited from the built-in");
        assert!(matches!(p.origin, Origin::File(_)));
    }

    #[test]
    fn own_rule_replaces_inherited_rule_in_place() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "base.toml",
            "[[rule]]\nid = \"a\"\npattern = 'aaa'\n[[rule]]\nid = \"b\"\npattern = 'bbb'\n",
        );
        write(dir.path(), "child.toml", "extends = \"base\"\n[[rule]]\nid = \"a\"\npattern = 'AAA'\n");
        let p = Resolver::new(vec![Layer::Dir(dir.path().to_path_buf())]).resolve("child").unwrap();
        let got: Vec<_> = p.rules.iter().map(|r| (r.qualified_id(), r.patterns[0].clone())).collect();
        assert_eq!(got, [("child/a".to_string(), "AAA".to_string()), ("base/b".into(), "bbb".into())]);
    }

    #[test]
    fn extends_loop_and_missing_base_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.toml", "extends = \"b\"\n");
        write(dir.path(), "b.toml", "extends = \"a\"\n");
        write(dir.path(), "c.toml", "extends = \"nowhere\"\n");
        let r = Resolver::new(vec![Layer::Dir(dir.path().to_path_buf())]);
        assert!(r.resolve("a").unwrap_err().to_string().contains("loop"));
        assert!(r.resolve("c").unwrap_err().to_string().contains("extends `nowhere`, which does not resolve"));
    }

    #[test]
    fn unknown_disable_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "x.toml", "extends = \"claude\"\ndisable = [\"no-such-rule\"]\n");
        let r = Resolver::new(vec![Layer::Dir(dir.path().to_path_buf()), Layer::Builtin]);
        assert!(r.resolve("x").unwrap_err().to_string().contains("no inherited rule `no-such-rule`"));
    }

    #[test]
    fn path_selector_loads_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "custom.toml", "env_fault_patterns = ['boom']\n");
        let p = Resolver::new(vec![Layer::Builtin]).resolve(path.to_str().unwrap()).unwrap();
        assert_eq!((p.name.as_str(), p.rules.len()), ("custom", 1));
    }

    #[test]
    fn not_found_lists_what_resolves() {
        let e = Resolver::new(vec![Layer::Builtin]).resolve("nope").unwrap_err().to_string();
        assert!(e.contains("no profile named `nope`") && e.contains("claude"), "{e}");
    }

    #[test]
    fn builtin_prefix_ignores_the_directories_and_their_bases() {
        let top = tempfile::tempdir().unwrap();
        write(top.path(), "claude.toml", "[[rule]]\nid = \"planted\"\npattern = 'x+'\n");
        // qwen extends gemini: a planted gemini.toml must not reach builtin:qwen.
        write(top.path(), "gemini.toml", "[[rule]]\nid = \"planted\"\npattern = 'x+'\n");
        let r = Resolver::new(vec![Layer::Dir(top.path().to_path_buf()), Layer::Builtin]);
        let p = r.resolve("builtin:claude").unwrap();
        assert_eq!(p.origin, Origin::Builtin);
        assert!(p.rules.iter().all(|r| r.id != "planted"));
        let q = r.resolve("builtin:qwen").unwrap();
        assert!(q.rules.iter().all(|r| r.id != "planted"), "the built-in's extends reached a directory");
        assert!(r.resolve("builtin:nope").unwrap_err().to_string().contains("builtin:claude"));
    }

    #[test]
    fn a_file_with_a_builtin_name_gets_a_note() {
        let top = tempfile::tempdir().unwrap();
        write(top.path(), "claude.toml", "[[rule]]\nid = \"mine\"\npattern = 'only mine'\n");
        let r = Resolver::new(vec![Layer::Dir(top.path().to_path_buf()), Layer::Builtin]);
        let note = shadow_note(&r.resolve("claude").unwrap()).unwrap();
        assert!(note.contains("not the built-in") && note.contains("builtin:claude"), "{note}");
        assert_eq!(shadow_note(&r.resolve("codex").unwrap()), None);
    }
}
