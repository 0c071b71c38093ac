//! Record conditions of a rule over JSON Lines (SPEC §1.7, §4): `record =
//! { "/pointer" = value }`, each value a string, an integer, a boolean, or a
//! list of accepted ones; beyond SPEC §4, `{ present = true|false }` asks
//! only whether the pointer leads to a value (not null) or to none. Checked
//! the same way at load and by `build.rs` for the built-ins (which includes
//! this file), so it depends on `toml` only.

/// One accepted value of a condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scalar {
    /// A JSON string equal to this.
    Str(String),
    /// A JSON number equal to this integer.
    Int(i64),
    /// A JSON boolean.
    Bool(bool),
    /// Any value but null (`{ present = true }`), or none at all: the pointer
    /// leads nowhere, or to null (`{ present = false }`).
    Present(bool),
}

/// `pointer` must lead to one of `accepted`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    /// An RFC 6901 JSON pointer (`/message/content/0/text`).
    pub pointer: String,
    /// The values that satisfy the condition (at least one).
    pub accepted: Vec<Scalar>,
}

/// The longest pointer accepted, in bytes.
pub const MAX_POINTER_LEN: usize = 256;

/// Checks a JSON pointer's syntax: empty (the whole record) or `/`-separated
/// tokens in which `~` is only ever followed by `0` or `1`.
pub fn check_pointer(pointer: &str) -> Result<(), String> {
    if pointer.len() > MAX_POINTER_LEN {
        return Err(format!("JSON pointer is {} bytes long; the limit is {MAX_POINTER_LEN}", pointer.len()));
    }
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!("JSON pointer {pointer:?} must start with `/` (as in \"/type\")"));
    }
    let mut chars = pointer.chars();
    while let Some(c) = chars.next() {
        if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
            return Err(format!("JSON pointer {pointer:?}: `~` must be followed by 0 or 1 (`~0` is `~`, `~1` is `/`)"));
        }
    }
    Ok(())
}

fn scalar(pointer: &str, value: &toml::Value) -> Result<Scalar, String> {
    match value {
        toml::Value::String(s) => Ok(Scalar::Str(s.clone())),
        toml::Value::Integer(i) => Ok(Scalar::Int(*i)),
        toml::Value::Boolean(b) => Ok(Scalar::Bool(*b)),
        toml::Value::Table(t) if t.len() == 1 && t.get("present").is_some_and(toml::Value::is_bool) => {
            Ok(Scalar::Present(t["present"].as_bool() == Some(true)))
        }
        other => Err(format!(
            "record condition {pointer:?}: a {} is not accepted (use a string, an integer, a boolean, a list of them, or {{ present = true|false }})",
            other.type_str()
        )),
    }
}

/// The conditions of a `record` table, in key order.
pub fn conditions(table: &toml::Table) -> Result<Vec<Condition>, String> {
    table
        .iter()
        .map(|(pointer, value)| {
            check_pointer(pointer)?;
            let accepted = match value {
                toml::Value::Array(items) if items.is_empty() => {
                    return Err(format!("record condition {pointer:?}: the list of accepted values is empty"));
                }
                toml::Value::Array(items) => items.iter().map(|v| scalar(pointer, v)).collect::<Result<_, _>>()?,
                other => vec![scalar(pointer, other)?],
            };
            Ok(Condition { pointer: pointer.clone(), accepted })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_syntax() {
        assert!(check_pointer("").is_ok());
        assert!(check_pointer("/isApiErrorMessage").is_ok());
        assert!(check_pointer("/a~1b/0/~0").is_ok());
        assert!(check_pointer("type").unwrap_err().contains("must start with `/`"));
        assert!(check_pointer("/a~2").unwrap_err().contains("followed by 0 or 1"));
        assert!(check_pointer("/a~").is_err());
        assert!(check_pointer(&format!("/{}", "a".repeat(MAX_POINTER_LEN))).is_err());
    }

    #[test]
    fn condition_values() {
        let t: toml::Table = toml::from_str("\"/a\" = true\n\"/b\" = [429, 529]\n\"/c\" = \"x\"\n").unwrap();
        let c = conditions(&t).unwrap();
        assert_eq!(c[0], Condition { pointer: "/a".into(), accepted: vec![Scalar::Bool(true)] });
        assert_eq!(c[1].accepted, [Scalar::Int(429), Scalar::Int(529)]);
        assert_eq!(c[2].accepted, [Scalar::Str("x".into())]);
        let t: toml::Table = toml::from_str("\"/d\" = { present = false }\n\"/e\" = { present = true }\n").unwrap();
        let c = conditions(&t).unwrap();
        assert_eq!(
            (&c[0].accepted[..], &c[1].accepted[..]),
            (&[Scalar::Present(false)][..], &[Scalar::Present(true)][..])
        );
        for bad in [
            "\"/a\" = 1.5",
            "\"/a\" = []",
            "\"/a\" = { b = 1 }",
            "\"/a\" = { present = 1 }",
            "\"/a\" = { present = true, b = 1 }",
            "\"/a\" = [[1]]",
            "a = 1",
        ] {
            let t: toml::Table = toml::from_str(bad).unwrap();
            assert!(conditions(&t).is_err(), "{bad}");
        }
    }
}
