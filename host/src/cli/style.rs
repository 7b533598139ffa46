//! Terminal styling of the readable reports: colour only when stdout is a
//! terminal and `NO_COLOR` is unset; plain text otherwise.

use std::io::IsTerminal;

/// Paints text with ANSI colours, or not at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    colour: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset.
    pub fn for_stdout() -> Self {
        Self {
            colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        }
    }

    fn paint(self, code: &str, s: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }

    /// Healthy.
    pub fn ok(self, s: &str) -> String {
        self.paint("32", s)
    }

    /// A warning.
    pub fn warn(self, s: &str) -> String {
        self.paint("33", s)
    }

    /// A problem.
    pub fn bad(self, s: &str) -> String {
        self.paint("31", s)
    }

    /// Secondary text.
    pub fn dim(self, s: &str) -> String {
        self.paint("2", s)
    }

    /// Emphasis.
    pub fn bold(self, s: &str) -> String {
        self.paint("1", s)
    }
}

/// Lays out rows as left-aligned columns separated by two spaces (the last
/// column is not padded).
pub fn table(rows: &[Vec<String>]) -> Vec<String> {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    rows.iter()
        .map(|r| {
            let mut line = String::new();
            for (i, c) in r.iter().enumerate() {
                if i + 1 == r.len() {
                    line.push_str(c);
                } else {
                    line.push_str(c);
                    line.extend(std::iter::repeat_n(' ', widths[i] - c.chars().count() + 2));
                }
            }
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let rows = vec![
            vec!["NAME".into(), "STATE".into(), "PATH".into()],
            vec!["a".into(), "enabled".into(), "/x".into()],
        ];
        assert_eq!(
            table(&rows),
            vec!["NAME  STATE    PATH", "a     enabled  /x"]
        );
    }
}
