//! Continuous mode (§9.5, HOST-97..101): durable `call_tool` results in
//! SQLite. A nested call is identified by its parent's durable scope plus its
//! `key`, or its position among the parent's calls when it has no key. When
//! a parent is replayed (the same session and transcript tool id runs
//! again), completed calls hand back their recorded result instead of running
//! again; a key reused for another tool or other arguments is refused.
//!
//! Entries are `<scope>/#<n>` for the parent's n-th call without a key and
//! `<scope>/<key>` for a keyed one, with one more `#` in front of a key that
//! starts with `#`: a key (which may be `#1`) can then never be spelt like a
//! keyless call. A parent's own scope is `<session id>/<tool id>`. A `/` or
//! `%` inside a session id, tool id or key is written `%2F` / `%25`, so that
//! a key like `a/#1` is never spelt like a call nested under key `a`. Other
//! keys are written as they always were, so their records in an existing
//! store still replay.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use zot_protocol::{ContentBlock, RawJson};

/// Store errors.
#[derive(Debug, thiserror::Error)]
pub enum DurableError {
    /// SQLite failed.
    #[error("durable store: {0}")]
    Sql(#[from] rusqlite::Error),
    /// The directory could not be created.
    #[error("durable store: {0}")]
    Io(#[from] std::io::Error),
    /// A recorded row could not be decoded.
    #[error("durable store: corrupt record: {0}")]
    Corrupt(String),
}

/// A recorded call.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Tool name.
    pub tool: String,
    /// Canonical JSON of the arguments.
    pub args: String,
    /// The (full) result content.
    pub content: Vec<ContentBlock>,
    /// Error result.
    pub is_error: bool,
}

/// The durable call store.
pub struct DurableStore {
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for DurableStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DurableStore")
    }
}

/// Canonical text of arguments (object keys sorted at every level), for
/// reuse checks. Sorted here rather than left to `serde_json::Map`: with
/// serde_json's `preserve_order` (on in this build, through schemars) a map
/// keeps the order the extension wrote.
pub fn canonical_args(args: &RawJson) -> String {
    let mut value = args.to_value();
    value.sort_all_objects();
    value.to_string()
}

/// The scope of a tool call the model made: its session and tool id.
pub fn top_scope(session_id: &str, tool_id: &str) -> String {
    format!("{}/{}", escape(session_id), escape(tool_id))
}

/// One part of an entry, with the separator `/` (and `%`, the escape
/// itself) percent-encoded; unchanged, and not copied, without them.
fn escape(part: &str) -> std::borrow::Cow<'_, str> {
    if !part.contains(['/', '%']) {
        return part.into();
    }
    part.replace('%', "%25").replace('/', "%2F").into()
}

/// The entry of the parent's `n`-th call without a key (from 1).
pub fn keyless_entry(scope: &str, n: u64) -> String {
    format!("{scope}/#{n}")
}

/// The entry of a call with a (non-empty) `key`: keyless entries are `#`
/// and a digit, escaped keys `##`, other keys never start with `#`.
pub fn keyed_entry(scope: &str, key: &str) -> String {
    let key = escape(key);
    if key.starts_with('#') {
        format!("{scope}/#{key}")
    } else {
        format!("{scope}/{key}")
    }
}

impl DurableStore {
    /// Opens (creating) the store at `path`.
    pub fn open(path: &Path) -> Result<Self, DurableError> {
        if let Some(dir) = path.parent() {
            crate::store::private_fs::create_private_dir_all(dir)?;
        }
        Self::init(Connection::open(path)?)
    }

    /// An in-memory store (tests).
    pub fn in_memory() -> Result<Self, DurableError> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Self, DurableError> {
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS durable_calls (
                entry TEXT PRIMARY KEY,
                tool TEXT NOT NULL,
                args TEXT NOT NULL,
                content TEXT NOT NULL,
                is_error INTEGER NOT NULL,
                recorded_at TEXT NOT NULL
            );",
        )?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The record of `entry`, if any.
    pub fn lookup(&self, entry: &str) -> Result<Option<Record>, DurableError> {
        let row = self
            .conn()
            .query_row(
                "SELECT tool, args, content, is_error FROM durable_calls WHERE entry = ?1",
                params![entry],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, bool>(3)?,
                    ))
                },
            )
            .optional()?;
        row.map(|(tool, args, content, is_error)| {
            let content =
                serde_json::from_str(&content).map_err(|e| DurableError::Corrupt(e.to_string()))?;
            Ok(Record {
                tool,
                args,
                content,
                is_error,
            })
        })
        .transpose()
    }

    /// Records a completed call (first write wins).
    pub fn record(&self, entry: &str, rec: &Record) -> Result<(), DurableError> {
        let content = serde_json::to_string(&rec.content)
            .map_err(|e| DurableError::Corrupt(e.to_string()))?;
        self.conn().execute(
            "INSERT OR IGNORE INTO durable_calls (entry, tool, args, content, is_error, recorded_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![entry, rec.tool, rec.args, content, rec.is_error, crate::util::rfc3339_now()],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_and_looks_up() {
        let s = DurableStore::in_memory().unwrap();
        assert!(s.lookup("a").unwrap().is_none());
        let rec = Record {
            tool: "echo".into(),
            args: canonical_args(
                &RawJson::from_string(r#"{"b":{"d":1,"c":2},"a":2}"#.into()).unwrap(),
            ),
            content: vec![ContentBlock::text("hi")],
            is_error: false,
        };
        assert_eq!(rec.args, r#"{"a":2,"b":{"c":2,"d":1}}"#);
        s.record("a", &rec).unwrap();
        assert_eq!(s.lookup("a").unwrap(), Some(rec));
    }

    #[test]
    fn keys_never_meet_keyless_calls() {
        let keyless: Vec<String> = (1..=3).map(|n| keyless_entry("s/t", n)).collect();
        let keys = ["#1", "##1", "#", "1", "a", "#a", "##", "n:1"];
        let keyed: Vec<String> = keys.iter().map(|k| keyed_entry("s/t", k)).collect();
        assert_eq!(keyless[0], "s/t/#1");
        assert_eq!(keyed[0], "s/t/##1");
        assert_eq!(keyed[4], "s/t/a", "plain keys keep their old entries");
        let mut all: Vec<&String> = keyless.iter().chain(&keyed).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), keyless.len() + keyed.len(), "{all:?}");
    }

    #[test]
    fn a_slash_in_a_key_or_id_never_spells_a_nested_call() {
        // Key `a/#1` under `s/t`, against the first keyless call under key `a`.
        let nested = keyless_entry(&keyed_entry(&top_scope("s", "t"), "a"), 1);
        let slashed = keyed_entry(&top_scope("s", "t"), "a/#1");
        assert_eq!(nested, "s/t/a/#1");
        assert_eq!(slashed, "s/t/a%2F#1");
        // A tool id with a slash against a keyed call under another one.
        assert_ne!(
            top_scope("s", "t/a"),
            keyed_entry(&top_scope("s", "t"), "a")
        );
        // The escape is escaped: `%2F` written by a key is not a `/`.
        assert_ne!(keyed_entry("s/t", "a%2Fb"), keyed_entry("s/t", "a/b"));
        assert_eq!(
            top_scope("sess-1", "toolu_01"),
            "sess-1/toolu_01",
            "plain ids unchanged"
        );
    }
}
