//! The host side of the handshake: read `hello`, answer `hello_ack` at once,
//! collect the registrations until `ready`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::conn::Conn;
use crate::error::{Error, Result};
use crate::frames;

/// What an extension announced during its handshake.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ExtInfo {
    /// `hello.name`.
    pub name: String,
    /// `hello.capabilities`.
    pub capabilities: Vec<String>,
    /// Names of the registered tools.
    pub tools: Vec<String>,
    /// Subscribed event names.
    pub events: Vec<String>,
}

impl ExtInfo {
    /// Whether a tool of this name was registered.
    pub fn has_tool(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t == name)
    }

    /// Whether `hello.capabilities` holds `cap`.
    pub fn has_capability(&self, cap: &str) -> bool {
        self.capabilities.iter().any(|c| c == cap)
    }

    /// Whether the extension subscribed to `event`.
    pub fn subscribes(&self, event: &str) -> bool {
        self.events.iter().any(|e| e == event)
    }
}

/// Handshake timings, measured from the instant before the spawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandshakeTimes {
    /// Until `hello` was read.
    pub hello: Duration,
    /// Until `ready` was read.
    pub ready: Duration,
}

/// Runs the handshake on a freshly spawned extension. `spawned` is the
/// instant just before the spawn; the whole handshake must finish `within`.
pub fn handshake(
    conn: &mut Conn,
    spawned: Instant,
    ext_dir: &Path,
    within: Duration,
) -> Result<(ExtInfo, HandshakeTimes)> {
    let ack = frames::hello_ack(ext_dir);
    conn.arm(within);
    let mut info = ExtInfo::default();
    let hello = {
        let first = conn.recv().map_err(|e| e.context("waiting for hello"))?;
        let at = spawned.elapsed();
        if first.kind != "hello" {
            return Err(Error::new(format!(
                "first frame is `{}`, not `hello`",
                first.kind
            )));
        }
        info.name = first.name.as_deref().unwrap_or_default().to_owned();
        info.capabilities = first.capabilities.iter().map(|c| c.to_string()).collect();
        at
    };
    conn.send(&ack)?;
    loop {
        let f = conn.recv().map_err(|e| e.context("waiting for ready"))?;
        match f.kind.as_ref() {
            "ready" => {
                let ready = spawned.elapsed();
                return Ok((info, HandshakeTimes { hello, ready }));
            }
            "register_tool" => {
                let name = f.name.as_deref().unwrap_or_default().to_owned();
                info.tools.push(name);
            }
            "subscribe" => info.events.extend(f.events.iter().map(|e| e.to_string())),
            _ => {}
        }
    }
}
