//! `Test`: builds one run of the binary in a scratch directory with a clean
//! environment, then checks its status and returns what it printed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use faultsift::profile::{Layer, Resolver};
use faultsift::{Pipeline, Settings, Verdict, Workload};

/// The repository root, for fixtures under `testdata/`.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pipeline of the built-in profile `name` (examples and all) for
/// one-shot runs with `status`.
pub fn builtin_pipeline(name: &str, status: Option<&str>) -> Pipeline {
    let profile = Resolver::new(vec![Layer::Builtin]).resolve(name).unwrap();
    let settings = Settings { status: status.map(str::to_string), ..Settings::default() };
    Pipeline::new(profile, settings, Workload::Few).unwrap()
}

/// A fixture's path.
pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

#[must_use]
pub struct Test {
    dir: tempfile::TempDir,
    args: Vec<OsString>,
    env: Vec<(String, OsString)>,
    stdin: Option<Vec<u8>>,
    status: i32,
}

pub struct Output {
    pub stdout: String,
    pub stderr: String,
}

impl Test {
    pub fn new() -> Self {
        Test { dir: tempfile::tempdir().unwrap(), args: Vec::new(), env: Vec::new(), stdin: None, status: 0 }
    }

    /// The scratch directory the command runs in.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn env(mut self, key: &str, value: impl Into<OsString>) -> Self {
        self.env.push((key.to_string(), value.into()));
        self
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// Writes a file (creating its directories) relative to the scratch directory.
    pub fn file(self, rel: &str, contents: impl AsRef<[u8]>) -> Self {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
        self
    }

    pub fn status(mut self, status: i32) -> Self {
        self.status = status;
        self
    }

    pub fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_faultsift"));
        cmd.args(&self.args).current_dir(self.dir.path());
        // Profiles must resolve from this test's directory only.
        for var in ["FAULTSIFT_PROFILE", "FAULTSIFT_PROFILE_PATH", "NO_COLOR", "GITHUB_STEP_SUMMARY"] {
            cmd.env_remove(var);
        }
        cmd.env("HOME", self.dir.path()).env("XDG_CONFIG_HOME", self.dir.path().join(".config"));
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs, checks the exit status, and returns the output.
    pub fn run(self) -> Output {
        let mut cmd = self.command();
        cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        if let Some(bytes) = &self.stdin {
            let mut pipe = child.stdin.take().unwrap();
            let bytes = bytes.clone();
            std::thread::spawn(move || {
                use std::io::Write;
                let _ = pipe.write_all(&bytes);
            });
        }
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(self.status), "args {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", self.args);
        Output { stdout, stderr }
    }

    /// Runs and parses every stdout line as a verdict.
    pub fn verdicts(self) -> Vec<Verdict> {
        let out = self.run();
        out.stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
    }

    /// Runs and parses the single verdict printed.
    pub fn verdict(self) -> Verdict {
        let mut v = self.verdicts();
        assert_eq!(v.len(), 1, "{v:#?}");
        v.remove(0)
    }
}

/// Asserts that the document `name` (at the repository root) states
/// `sentence`, wherever its paragraph was wrapped: a figure the docs give
/// follows the test that measures it.
pub fn assert_doc_says(name: &str, sentence: &str) {
    let flat = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = std::fs::read_to_string(root().join(name)).unwrap();
    assert!(flat(&text).contains(&flat(sentence)), "{name} should say {sentence:?}");
}

/// `167,900` for 167900, as the docs write counts of four digits and more.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `text`'s words in rows of at most `width` characters, filled greedily:
/// how a program that word-wraps its own lines breaks them.
pub fn word_rows(text: &str, width: usize) -> Vec<String> {
    let mut rows = vec![String::new()];
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let row = rows.last_mut().unwrap();
        let len = row.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            rows.push(word.to_string());
        } else {
            if len > 0 {
                row.push(' ');
            }
            row.push_str(word);
        }
    }
    rows
}
