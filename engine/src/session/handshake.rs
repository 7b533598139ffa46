//! The handshake (docs/protocol.md §5): `hello` first, then after `hello_ack`
//! and the on-hello hook every registration, one `subscribe` and `ready`.
//!
//! Order on the wire (SDK-8): all `register_command` in registration order,
//! all `register_tool` in registration order, one `subscribe` (only when
//! there is an event or an interceptor) whose `events` keep first-registration
//! order (SDK-9) and whose `intercept` follows the fixed order
//! `before_agent_start`, `tool_call`, `turn_start`, `assistant_message`
//! (SDK-10, OP-21), then `ready` exactly once (SDK-11).
//!
//! A command or tool name registered twice is refused (commands compare
//! case-insensitively, as hosts do, §6.1): hosts keep the first
//! registration, so a second could never be invoked. Subscribing again to
//! an event or interceptor changes nothing (SDK-9). Registrations after
//! `ready` are written at once (OP-9: hosts accept them; tools reach the
//! model after the next registry rebuild).

use zot_protocol::validate::command_key;
use zot_protocol::values::INTERCEPTABLE_EVENT_NAMES;
use zot_protocol::{encode_frame, ExtFrame, RegisterCommand, RegisterTool, Subscribe};

use std::sync::Arc;

use crate::lock;
use crate::requests::args::ArgsCheck;
use crate::runtime::fast_hash::FastMap;
use crate::session::registration::{RegisterError, SchemaOrigin};
use crate::wire::writer::WriteLane;
use crate::{Engine, EngineError, Phase};

#[derive(Default)]
pub(crate) struct Registry {
    pub(crate) commands: Vec<RegisterCommand>,
    pub(crate) tools: Vec<RegisterTool>,
    /// The compiled argument check of each tool in `tools`, by name.
    pub(crate) checks: FastMap<String, Arc<ArgsCheck>>,
    pub(crate) events: Vec<String>,
    /// In [`INTERCEPTABLE_EVENT_NAMES`] order.
    pub(crate) intercepts: [bool; 4],
}

impl Registry {
    pub(crate) fn command(&self, name: &str) -> Option<&RegisterCommand> {
        self.commands.iter().find(|c| c.name == name).or_else(|| {
            let key = command_key(name);
            self.commands.iter().find(|c| command_key(&c.name) == key)
        })
    }

    pub(crate) fn tool(&self, name: &str) -> Option<&RegisterTool> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub(crate) fn subscribed(&self, event: &str) -> bool {
        self.events.iter().any(|e| e == event)
    }

    pub(crate) fn intercepts(&self, event: &str) -> bool {
        INTERCEPTABLE_EVENT_NAMES
            .iter()
            .position(|e| *e == event)
            .is_some_and(|i| self.intercepts[i])
    }

    fn subscribe_frame(&self) -> Option<Subscribe> {
        let intercept: Vec<String> = INTERCEPTABLE_EVENT_NAMES
            .iter()
            .zip(self.intercepts)
            .filter(|(_, on)| *on)
            .map(|(n, _)| (*n).to_owned())
            .collect();
        (!self.events.is_empty() || !intercept.is_empty()).then(|| Subscribe {
            events: self.events.clone(),
            intercept,
        })
    }

    /// Every announcement frame, `ready` last, encoded. A registration too
    /// large for one frame is skipped with a diagnostic.
    fn announcement(&self) -> (Vec<u8>, Vec<String>) {
        let mut out = Vec::new();
        let mut diags = Vec::new();
        let frames = self
            .commands
            .iter()
            .cloned()
            .map(ExtFrame::RegisterCommand)
            .chain(self.tools.iter().cloned().map(ExtFrame::RegisterTool))
            .chain(self.subscribe_frame().map(ExtFrame::Subscribe))
            .chain(std::iter::once(ExtFrame::Ready));
        for f in frames {
            match encode_frame(&f) {
                Ok(line) => out.extend_from_slice(&line),
                Err(e) => diags.push(format!("{} not sent: {e}", f.type_name())),
            }
        }
        (out, diags)
    }
}

impl Engine {
    fn register(
        &self,
        f: impl FnOnce(&mut Registry) -> Result<Option<ExtFrame>, RegisterError>,
    ) -> Result<(), RegisterError> {
        let mut st = lock(&self.inner.state);
        let announced = st.announced;
        let late = f(&mut st.registry)?;
        let (true, Some(frame)) = (announced, late) else {
            return Ok(());
        };
        let line = encode_frame(&frame).map_err(|e| RegisterError::Write(e.to_string()))?;
        // Written under the state lock so that it can never overtake the
        // announcement of `hello_done`; a write error is handled after the
        // lock is released (closing takes it again).
        let written = self.inner.writer.write(&line, WriteLane::Direct, false);
        drop(st);
        written.map_err(|e| {
            self.inner.on_write_error(&e);
            RegisterError::Write(e.to_string())
        })
    }

    /// Registers a slash command; a name registered before (compared
    /// case-insensitively) is refused.
    pub fn register_command(&self, cmd: RegisterCommand) -> Result<(), RegisterError> {
        crate::session::registration::check_command(&cmd.name)?;
        self.register(|r| {
            let names = r.commands.iter().map(|c| c.name.as_str());
            crate::session::registration::check_new_command(&cmd.name, names)?;
            r.commands.push(cmd.clone());
            Ok(Some(ExtFrame::RegisterCommand(cmd)))
        })
    }

    /// Registers a tool; a name registered before is refused. The name, the
    /// exposure and the schema are checked here (see [`SchemaOrigin`]), so a
    /// mistake fails in the author's process instead of as a host
    /// diagnostic.
    pub fn register_tool(
        &self,
        tool: RegisterTool,
        origin: SchemaOrigin,
    ) -> Result<(), RegisterError> {
        let check = crate::session::registration::compile_tool(&tool, origin)?;
        self.register(|r| {
            let names = r.tools.iter().map(|t| t.name.as_str());
            crate::session::registration::check_new_tool(&tool.name, names)?;
            r.checks.insert(tool.name.clone(), check);
            r.tools.push(tool.clone());
            Ok(Some(ExtFrame::RegisterTool(tool)))
        })
    }

    /// Subscribes to a lifecycle event by name (any name; unknown ones
    /// simply never fire). Events arrive as [`crate::Job::Event`].
    pub fn subscribe(&self, event: &str) -> Result<(), RegisterError> {
        if event.is_empty() {
            return Err(RegisterError::EmptyEvent);
        }
        self.register(|r| {
            if r.subscribed(event) {
                return Ok(None);
            }
            r.events.push(event.to_owned());
            Ok(Some(ExtFrame::Subscribe(Subscribe {
                events: vec![event.to_owned()],
                intercept: Vec::new(),
            })))
        })
    }

    /// Registers an interceptor for one of the four interceptable events.
    /// Requests arrive as [`crate::Job::Intercept`]; requests for events
    /// without an interceptor are allowed by the engine (SDK-40).
    pub fn intercept(&self, event: &str) -> Result<(), RegisterError> {
        let i = INTERCEPTABLE_EVENT_NAMES
            .iter()
            .position(|e| *e == event)
            .ok_or_else(|| RegisterError::NotInterceptable(event.to_owned()))?;
        self.register(|r| {
            if r.intercepts[i] {
                return Ok(None);
            }
            r.intercepts[i] = true;
            Ok(Some(ExtFrame::Subscribe(Subscribe {
                events: Vec::new(),
                intercept: vec![event.to_owned()],
            })))
        })
    }

    /// Ends the on-hello phase: writes every registration, one `subscribe`
    /// and `ready`, then any spontaneous frame that was sent meanwhile.
    /// Call it once after handling [`crate::Job::Hello`]; later calls do
    /// nothing. The jobs that waited behind `Hello` are handed out after
    /// the announcement.
    pub fn hello_done(&self) -> Result<(), EngineError> {
        let announced = self.announce();
        if self.inner.hello_ack.get().is_some() {
            self.inner.queue.release_after_hello();
        }
        announced
    }

    fn announce(&self) -> Result<(), EngineError> {
        let mut st = lock(&self.inner.state);
        if self.inner.hello_ack.get().is_none() {
            return Err(EngineError::NoHelloYet);
        }
        if st.announced {
            return Ok(());
        }
        st.announced = true;
        let closing = match st.phase {
            Phase::Hello => {
                st.phase = Phase::Running;
                false
            }
            // EOF or shutdown arrived during the on-hello hook: announce
            // anyway (the host reads what was written before the pipe
            // closed), but a write that fails now is no error of the caller.
            Phase::Closing => true,
            _ => return Ok(()),
        };
        let (lines, diags) = st.registry.announcement();
        // Under the state lock: a concurrent late registration waits for the
        // announcement. A spontaneous frame racing this call was held by the
        // writer and follows `ready`.
        let written = self.inner.writer.write(&lines, WriteLane::Direct, true);
        drop(st);
        // The reader and a closing session may be waiting for it.
        self.inner.announced.cancel();
        self.inner.idle.notify_waiters();
        for d in diags {
            self.inner.diag(&d);
        }
        if closing {
            return Ok(());
        }
        written.map_err(|e| {
            self.inner.on_write_error(&e);
            EngineError::Write(e.to_string())
        })
    }
}
