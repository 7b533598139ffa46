//! MCP tool names → zot tool names.
//!
//! MCP allows names zot's model providers reject (dots, slashes, spaces,
//! over 64 characters); zot tool names are 1 to 64 of `A-Z a-z 0-9 _ -`
//! (docs/protocol.md §6.2). Every other character becomes `_`, long names
//! are cut, and a name already taken gets `_2`, `_3`… so every MCP tool
//! keeps exactly one zot name.

use std::collections::HashSet;

use zot_protocol::validate::validate_tool_name;

const MAX_LEN: usize = 64;

/// Assigns zot names in order, never the same one twice.
#[derive(Debug, Default)]
pub struct NameMap {
    taken: HashSet<String>,
}

impl NameMap {
    /// The zot name for the MCP tool `mcp_name`, unique among those given so far.
    pub fn assign(&mut self, mcp_name: &str) -> String {
        let base = sanitize(mcp_name);
        let mut name = base.clone();
        let mut n = 2u32;
        while self.taken.contains(&name) {
            let suffix = format!("_{n}");
            let keep = base.len().min(MAX_LEN - suffix.len());
            name = format!("{}{suffix}", &base[..keep]);
            n += 1;
        }
        debug_assert!(validate_tool_name(&name).is_ok(), "{name:?}");
        self.taken.insert(name.clone());
        name
    }
}

/// `name` with every character outside `A-Z a-z 0-9 _ -` replaced by `_`,
/// cut to 64 characters; `tool` for an empty name.
fn sanitize(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_LEN)
        .collect();
    if out.is_empty() {
        out.push_str("tool");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_names_stay_as_they_are() {
        let mut map = NameMap::default();
        assert_eq!(map.assign("get-weather_2"), "get-weather_2");
    }

    #[test]
    fn invalid_characters_become_underscores() {
        let mut map = NameMap::default();
        assert_eq!(map.assign("fs.read file/é"), "fs_read_file__");
        assert_eq!(map.assign(""), "tool");
    }

    #[test]
    fn clashes_get_a_number_and_long_names_are_cut() {
        let mut map = NameMap::default();
        assert_eq!(map.assign("a.b"), "a_b");
        assert_eq!(map.assign("a_b"), "a_b_2");
        assert_eq!(map.assign("a/b"), "a_b_3");
        let long = "x".repeat(70);
        assert_eq!(map.assign(&long), "x".repeat(64));
        let second = map.assign(&long);
        assert_eq!(second, format!("{}_2", "x".repeat(62)));
        assert!(validate_tool_name(&second).is_ok());
    }
}
