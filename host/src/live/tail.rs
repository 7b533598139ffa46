//! Follows the extensions' stderr logs (`$ZOT_HOME/logs/ext-<name>.log`,
//! which the child writes directly) into the feed, from where each file
//! ended when the live session began.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::feed::Feed;
use crate::process::manager::Manager;

/// How often the logs are looked at. The child writes the file itself, so
/// there is no event to await; a quarter second is live enough for a person.
const POLL: Duration = Duration::from_millis(250);
/// Bytes read from one log per look at most (a flood is caught up on over
/// several looks instead of all at once).
const MAX_READ: u64 = 1 << 20;
/// A line longer than this is cut (the rest is shown as a count).
const MAX_LINE: usize = 16 * 1024;

/// The sizes of the logs in `dir` now: where following starts.
pub fn sizes(dir: &Path) -> HashMap<PathBuf, u64> {
    let mut out = HashMap::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if let Ok(m) = e.metadata() {
                out.insert(e.path(), m.len());
            }
        }
    }
    out
}

struct Followed {
    offset: u64,
    partial: Vec<u8>,
}

/// Follows the logs of every loaded extension until aborted.
pub fn spawn(
    feed: Arc<Feed>,
    mgr: Arc<Manager>,
    start: HashMap<PathBuf, u64>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut files: HashMap<PathBuf, Followed> = HashMap::new();
        loop {
            for ext in mgr.extensions() {
                let path = ext.log.path().to_owned();
                let f = files.entry(path.clone()).or_insert_with(|| Followed {
                    offset: start.get(&path).copied().unwrap_or(0),
                    partial: Vec::new(),
                });
                for line in read_new(&path, f) {
                    feed.log_line(&ext.name, &line);
                }
            }
            tokio::time::sleep(POLL).await;
        }
    })
}

fn read_new(path: &Path, f: &mut Followed) -> Vec<String> {
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len < f.offset {
        // Truncated or replaced: start over.
        f.offset = 0;
        f.partial.clear();
    }
    if len == f.offset || file.seek(SeekFrom::Start(f.offset)).is_err() {
        return Vec::new();
    }
    let mut buf = Vec::new();
    let n = file.take(MAX_READ).read_to_end(&mut buf).unwrap_or(0);
    f.offset += n as u64;
    f.partial.extend_from_slice(&buf[..n]);
    let mut lines = Vec::new();
    while let Some(i) = f.partial.iter().position(|b| *b == b'\n') {
        let rest = f.partial.split_off(i + 1);
        let mut line = std::mem::replace(&mut f.partial, rest);
        line.pop();
        lines.push(clip(&line));
    }
    if f.partial.len() > MAX_LINE {
        lines.push(clip(&std::mem::take(&mut f.partial)));
    }
    lines
}

fn clip(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    match text.char_indices().nth(MAX_LINE) {
        Some((cut, _)) => format!("{}… ({} bytes)", &text[..cut], line.len()),
        None => text.into_owned(),
    }
}
