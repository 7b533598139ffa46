//! One fresh target process for one scenario: spawn, handshake, warm-up,
//! the primitive exchanges the scenarios are built from, and the end.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::conn::Conn;
use crate::error::{Error, Result};
use crate::frames;
use crate::handshake::{handshake, ExtInfo, HandshakeTimes};
use crate::spawn::LaunchSpec;

/// Frames larger than this are written from a helper thread when talking to
/// the pipe echo, which answers while the frame is still being written.
const PIPE_BUFFER: usize = 32 * 1024;

/// A running target.
#[derive(Debug)]
pub struct Session {
    /// The connection.
    pub conn: Conn,
    /// `true` for the plain line echo (no protocol, no handshake).
    pub pipe: bool,
    /// What the extension announced (empty for the pipe).
    pub info: ExtInfo,
    /// The instant just before the spawn.
    pub spawned: Instant,
    /// Handshake timings (`None` for the pipe).
    pub times: Option<HandshakeTimes>,
    next_id: u64,
}

/// How the session is started.
#[derive(Debug, Clone, Copy)]
pub struct StartParams<'a> {
    /// Core of the target.
    pub target_cpu: usize,
    /// Core of the harness.
    pub harness_cpu: usize,
    /// stderr log of the target.
    pub log: &'a Path,
    /// Deadline of the handshake.
    pub handshake_timeout: Duration,
}

impl Session {
    /// Spawns the target and, for extensions, runs the handshake up to
    /// `ready`.
    pub fn start(spec: &LaunchSpec, pipe: bool, p: StartParams<'_>) -> Result<Self> {
        let (child, spawned) = spec.spawn(&[p.target_cpu], &[p.harness_cpu], p.log)?;
        let mut conn = Conn::new(child)?;
        let (info, times) = if pipe {
            (ExtInfo::default(), None)
        } else {
            let (info, times) = handshake(&mut conn, spawned, &spec.cwd, p.handshake_timeout)?;
            (info, Some(times))
        };
        Ok(Session {
            conn,
            pipe,
            info,
            spawned,
            times,
            next_id: 0,
        })
    }

    /// A new correlation id (decimal, as the stored host does).
    pub fn next_id(&mut self) -> String {
        self.next_id += 1;
        self.next_id.to_string()
    }

    /// Sends one `echo` call with `text` and waits for its result. Returns
    /// the time from the write to the reply (verification excluded).
    pub fn echo(&mut self, text: &str) -> Result<Duration> {
        let id = self.next_id();
        let mut frame = Vec::with_capacity(text.len() + 64);
        frames::echo_call(&mut frame, &id, text);
        self.round_trip(&frame, &id, text)
    }

    /// Sends an encoded `echo` call (`frame`, ending in `\n`) and waits for
    /// the result with `id`, which must carry `text`. The pipe waits for the
    /// same line instead.
    pub fn round_trip(&mut self, frame: &[u8], id: &str, text: &str) -> Result<Duration> {
        if self.pipe {
            let expected = &frame[..frame.len() - 1];
            let t = Instant::now();
            let (took, same) = if frame.len() > PIPE_BUFFER {
                self.conn
                    .send_recv_line(frame, |line| (t.elapsed(), line == expected))?
            } else {
                self.conn.send(frame)?;
                let line = self.conn.recv_line()?;
                (t.elapsed(), line == expected)
            };
            if !same {
                return Err(Error::new("pipe echoed a different line"));
            }
            return Ok(took);
        }
        let t = Instant::now();
        self.conn.send(frame)?;
        loop {
            let r = self.conn.recv()?;
            if r.is_result_for(id) {
                let took = t.elapsed();
                if r.is_error || r.first_text() != text {
                    let got: String = r.first_text().chars().take(200).collect();
                    return Err(Error::new(format!(
                        "echo {id}: unexpected result (is_error {}, {} bytes of text, {} expected): {got:?}",
                        r.is_error,
                        r.first_text().len(),
                        text.len()
                    )));
                }
                return Ok(took);
            }
        }
    }

    /// Waits for the `tool_result` of `id`, ignoring other frames; returns
    /// the elapsed time since `since`, `is_error` and the first text's
    /// length.
    pub fn wait_result(&mut self, id: &str, since: Instant) -> Result<(Duration, bool, usize)> {
        loop {
            let r = self.conn.recv()?;
            if r.is_result_for(id) {
                return Ok((since.elapsed(), r.is_error, r.first_text().len()));
            }
        }
    }

    /// `n` small `echo` round trips, so that code paths, caches and JITs are
    /// warm before measuring.
    pub fn warm_up(&mut self, n: usize, text: &str) -> Result<()> {
        for _ in 0..n {
            self.echo(text)?;
        }
        Ok(())
    }

    /// Ends the target (`shutdown` for extensions, EOF for the pipe).
    pub fn finish(self) {
        let shutdown = (!self.pipe).then_some(frames::SHUTDOWN);
        self.conn.finish(shutdown);
    }
}
