//! The wire log (`--wire FILE`): every frame in both directions, in the order
//! the host wrote or read it, as JSON lines
//! `{"ext":"<name>","dir":"host->ext"|"ext->host","frame":{...}}`.
//!
//! Host frames are logged by the extension's single writer right before the
//! bytes go to the pipe; extension frames are logged by its reader as each
//! line is read. Lines that are not JSON are logged as
//! `{"ext":..,"dir":"ext->host","invalid":"<text>"}` and oversize lines as
//! `{"ext":..,"dir":"ext->host","oversize":<bytes>}`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;

/// Direction of a logged frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Written by the host to the extension's stdin.
    HostToExt,
    /// Read by the host from the extension's stdout.
    ExtToHost,
}

impl Dir {
    /// The `dir` value of the log line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::HostToExt => "host->ext",
            Self::ExtToHost => "ext->host",
        }
    }
}

/// A shared, ordered sink of wire records.
#[derive(Clone)]
pub struct WireLog {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl std::fmt::Debug for WireLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WireLog")
    }
}

#[derive(serde::Serialize)]
struct Record<'a> {
    ext: &'a str,
    dir: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    frame: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    invalid: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    oversize: Option<usize>,
}

impl WireLog {
    /// A log writing to `out` (flushed after every record).
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        Self {
            out: Arc::new(Mutex::new(out)),
        }
    }

    /// A log into a shared in-memory buffer (for tests); read it with
    /// [`MemoryWire::lines`].
    pub fn memory() -> (Self, MemoryWire) {
        let buf = MemoryWire::default();
        (Self::new(Box::new(buf.clone())), buf)
    }

    /// Logs one line (without its LF) as read or written.
    pub fn line(&self, ext: &str, dir: Dir, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end_matches(['\n', '\r']);
        let parsed = serde_json::from_str::<&RawValue>(text).ok();
        let rec = Record {
            ext,
            dir: dir.as_str(),
            frame: parsed,
            invalid: if parsed.is_none() { Some(text) } else { None },
            oversize: None,
        };
        self.write(&rec);
    }

    /// Logs an oversize line from an extension.
    pub fn oversize(&self, ext: &str, len: usize) {
        self.write(&Record {
            ext,
            dir: Dir::ExtToHost.as_str(),
            frame: None,
            invalid: None,
            oversize: Some(len),
        });
    }

    fn write(&self, rec: &Record<'_>) {
        let Ok(mut line) = serde_json::to_vec(rec) else {
            return;
        };
        line.push(b'\n');
        let mut out = self.out.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = out.write_all(&line).and_then(|_| out.flush()) {
            tracing::warn!("wire log write failed: {e}");
        }
    }
}

/// An in-memory wire log buffer.
#[derive(Clone, Default)]
pub struct MemoryWire(Arc<Mutex<Vec<u8>>>);

impl MemoryWire {
    /// The records written so far, parsed. A frame that is valid JSON but
    /// that `serde_json::Value` cannot hold (a lone UTF-16 surrogate such as
    /// `"\ud800"`, as an extension may write) is given as its text under
    /// `frame_text` instead of `frame`: every record is there.
    pub fn lines(&self) -> Vec<serde_json::Value> {
        let buf = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&buf)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|_| loose_record(l)))
            .collect()
    }

    /// How many records were written in direction `dir`: what
    /// [`Self::lines`] would say, without building every frame (the
    /// `host_intake` fuzz target asks this once per input). A record that
    /// does not parse is not counted, as `lines` gives it no `dir`.
    pub fn count(&self, dir: Dir) -> usize {
        #[derive(serde::Deserialize)]
        struct DirOnly<'a> {
            #[serde(borrow)]
            dir: std::borrow::Cow<'a, str>,
        }
        let buf = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&buf)
            .lines()
            .filter(|l| serde_json::from_str::<DirOnly<'_>>(l).is_ok_and(|r| r.dir == dir.as_str()))
            .count()
    }
}

/// A record whose frame `serde_json::Value` refused (see
/// [`MemoryWire::lines`]).
fn loose_record(line: &str) -> serde_json::Value {
    #[derive(serde::Deserialize)]
    struct Loose<'a> {
        ext: String,
        dir: String,
        #[serde(borrow)]
        frame: Option<&'a RawValue>,
    }
    match serde_json::from_str::<Loose<'_>>(line) {
        Ok(r) => serde_json::json!({
            "ext": r.ext,
            "dir": r.dir,
            "frame_text": r.frame.map(RawValue::get),
        }),
        Err(_) => serde_json::json!({ "unreadable": line }),
    }
}

impl Write for MemoryWire {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
