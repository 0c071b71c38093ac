//! The built-in profiles, compiled into the binary from `profiles/`.

/// One built-in profile: its name and TOML text.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// The profile's name (its file stem in `profiles/`).
    pub name: &'static str,
    /// The TOML text.
    pub text: &'static str,
}

/// Every built-in profile, sorted by name.
pub const BUILTINS: &[Builtin] = &[Builtin { name: "claude", text: include_str!("../../profiles/claude.toml") }];

/// The built-in profile named `name`.
pub fn get(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}
