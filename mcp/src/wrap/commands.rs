//! Names of the slash commands `wrap` registers: `PREFIX:NAME`.
//!
//! A zot command name is any text without whitespace or control
//! characters, and names match whatever the case (docs/protocol.md §6.1).
//! Such characters in an MCP name become `_`, and a name already taken
//! (compared without case) gets `_2`, `_3`…, so every prompt keeps a
//! command the host will invoke.

use std::collections::HashSet;

use zot_protocol::validate::{command_key, validate_command_name};

/// Assigns command names under one prefix, never the same one twice.
#[derive(Debug)]
pub struct CommandNames {
    prefix: String,
    taken: HashSet<String>,
}

impl CommandNames {
    /// Names under `prefix` (itself cleaned the same way).
    pub fn new(prefix: &str) -> Self {
        Self {
            prefix: clean(prefix),
            taken: HashSet::new(),
        }
    }

    /// `PREFIX:NAME`, unique (without case) among the names given so far.
    pub fn assign(&mut self, name: &str) -> String {
        let base = format!("{}:{}", self.prefix, clean(name));
        let mut command = base.clone();
        let mut n = 2u32;
        while self.taken.contains(&command_key(&command)) {
            command = format!("{base}_{n}");
            n += 1;
        }
        debug_assert!(validate_command_name(&command).is_ok(), "{command:?}");
        self.taken.insert(command_key(&command));
        command
    }
}

/// `text` with whitespace and control characters as `_`; `mcp` if empty.
fn clean(text: &str) -> String {
    let out: String = text
        .chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if out.is_empty() {
        "mcp".into()
    } else {
        out
    }
}

/// The command prefix for a server: the extension's name when given,
/// else the last part of the server's name (`mcp-servers/everything` →
/// `everything`).
pub fn prefix(ext_name: Option<&str>, server_name: &str) -> String {
    ext_name
        .unwrap_or_else(|| server_name.rsplit('/').next().unwrap_or(server_name))
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_prefixed_cleaned_and_unique_without_case() {
        let mut names = CommandNames::new("my server");
        assert_eq!(names.assign("resources"), "my_server:resources");
        assert_eq!(names.assign("Resources"), "my_server:Resources_2");
        assert_eq!(names.assign("a b\tc"), "my_server:a_b_c");
        assert_eq!(names.assign(""), "my_server:mcp");
    }

    #[test]
    fn the_prefix_is_the_extension_name_or_the_servers_last_part() {
        assert_eq!(prefix(Some("ev"), "mcp-servers/everything"), "ev");
        assert_eq!(prefix(None, "mcp-servers/everything"), "everything");
        assert_eq!(prefix(None, "fixture"), "fixture");
    }
}
