//! Completing a job: the handler's outcome becomes the one reply the host
//! gets, or none where the protocol wants silence (a cancelled tool job,
//! an expired interception). Replies of a batch leave in one write.

use zot_protocol::validate::validate_tool_prompt;
use zot_protocol::{CommandAction, CommandResponse, ContentBlock, ExtFrame, ToolResult};

use crate::jobs::JobId;
use crate::requests::intercept::{self, InterceptKind};
use crate::wire::writer::WriteError;
use crate::{
    lock, CancelToken, CommandOutcome, CompleteError, Completion, DropReason, Engine,
    InterceptOutcome, OpenJob, OpenKind, Outcome, Phase, ToolOutcome,
};

impl Engine {
    /// Answers a job. The engine decides what goes on the wire: nothing
    /// for a cancelled tool job (SDK-23) or an expired interception; a
    /// normalized response otherwise (see [`CommandOutcome`],
    /// [`InterceptOutcome`]); an error reply for [`Outcome::Failed`]. A
    /// reply over the frame limit is refused with
    /// [`CompleteError::TooLarge`] and an error reply is sent instead.
    pub fn complete(&self, job: JobId, outcome: Outcome) -> Result<Completion, CompleteError> {
        let mut serial = 0;
        let result = self.complete_counting(job, outcome, &mut serial);
        if serial > 0 {
            self.inner.queue.serial_completed(serial);
        }
        result
    }

    /// [`Engine::complete`], counting a serial job's completion in `serial`
    /// (the serial jobs waiting for it are handed out by the caller).
    fn complete_counting(
        &self,
        job: JobId,
        outcome: Outcome,
        serial: &mut usize,
    ) -> Result<Completion, CompleteError> {
        let open = match self.open_for_answer(job)? {
            Ok(open) => open,
            Err(done) => return Ok(done),
        };
        if matches!(open.kind, OpenKind::Serial(_)) {
            *serial += 1;
        }
        let expected = open.kind.name();
        match (open.kind, outcome) {
            (kind, Outcome::Failed(message)) => {
                self.answer_failure(&open.invocation, &open.token, &kind, &message)
            }
            (OpenKind::Tool, Outcome::Tool(t)) => {
                self.answer_tool(&open.invocation, &open.token, t)
            }
            (OpenKind::Command, Outcome::Command(c)) => self.answer_command(&open.invocation, c),
            (OpenKind::Intercept(k), Outcome::Intercept(i)) => {
                self.answer_intercept(&open.invocation, &k, i)
            }
            (OpenKind::Serial(_), Outcome::Done) => Ok(Completion::Done),
            (kind, other) => {
                let got = other.kind();
                let msg = format!("internal error: a {got} outcome for a {expected} job");
                self.answer_failure(&open.invocation, &open.token, &kind, &msg)?;
                Err(CompleteError::WrongKind {
                    job: job.0,
                    expected,
                    got,
                })
            }
        }
    }

    /// Answers many jobs in one call, each as [`Engine::complete`] does, in
    /// order; returns what became of each, in the same order. The replies
    /// leave together (one `write(2)` for the batch, unless it outgrows the
    /// write buffer): the one way the bindings answer, one call per batch of
    /// answers their runtime produced in one turn.
    pub fn complete_all(
        &self,
        answers: impl IntoIterator<Item = (JobId, Outcome)>,
    ) -> Vec<Result<Completion, CompleteError>> {
        let writer = &self.inner.writer;
        writer.hold();
        let mut serial = 0;
        let results = answers
            .into_iter()
            .map(|(job, outcome)| self.complete_counting(job, outcome, &mut serial))
            .collect();
        // A failed write ends the session (the writer reports it); the
        // answers it carried were accepted, as for any reply written.
        let _ = writer.release();
        if serial > 0 {
            self.inner.queue.serial_completed(serial);
        }
        results
    }

    /// Takes the job out of the open set, or says what became of it.
    fn open_for_answer(&self, job: JobId) -> Result<Result<OpenJob, Completion>, CompleteError> {
        let mut st = lock(&self.inner.state);
        if let Some(open) = self.inner.take_job(&mut st, job.0) {
            return Ok(Ok(open));
        }
        if st.expired.remove(&job.0) {
            return Ok(Err(Completion::Dropped(DropReason::Expired)));
        }
        if st.answered_at_close.remove(&job.0) {
            return Ok(Err(Completion::Dropped(DropReason::Closed)));
        }
        if st.phase == Phase::Finished {
            return Ok(Err(Completion::Dropped(DropReason::Closed)));
        }
        Err(CompleteError::UnknownJob(job.0))
    }

    fn answer_failure(
        &self,
        invocation: &str,
        token: &CancelToken,
        kind: &OpenKind,
        message: &str,
    ) -> Result<Completion, CompleteError> {
        match kind {
            OpenKind::Tool => self.answer_tool(invocation, token, ToolOutcome::error(message)),
            OpenKind::Command => self.answer_command(
                invocation,
                CommandOutcome {
                    error: message.to_owned(),
                    ..CommandOutcome::default()
                },
            ),
            OpenKind::Intercept(k) => {
                let reason = intercept::failed_reason(&self.inner.config.name, k, message);
                let resp = intercept::failure(invocation, k, &reason);
                self.send_reply(&ExtFrame::EventInterceptResponse(resp))
            }
            OpenKind::Serial(what) => {
                // SDK-36: logged; the extension goes on.
                self.inner
                    .diag(&format!("{what} handler failed: {message}"));
                Ok(Completion::Done)
            }
        }
    }

    /// Writes a reply; maps write failures to [`CompleteError`].
    fn send_reply(&self, frame: &ExtFrame) -> Result<Completion, CompleteError> {
        match self.inner.write_reply(frame) {
            Ok(()) => Ok(Completion::Sent),
            Err(e @ WriteError::TooLarge { .. }) => Err(CompleteError::TooLarge(e)),
            Err(WriteError::Closed) => Ok(Completion::Dropped(DropReason::Closed)),
            Err(e) => Err(CompleteError::Transport(e)),
        }
    }

    fn answer_tool(
        &self,
        invocation: &str,
        token: &CancelToken,
        t: ToolOutcome,
    ) -> Result<Completion, CompleteError> {
        if token.is_cancelled() {
            return Ok(Completion::Dropped(DropReason::Cancelled));
        }
        let frame = ExtFrame::ToolResult(ToolResult {
            id: invocation.to_owned(),
            content: t.content,
            is_error: t.is_error,
            activate_tools: t.activate_tools,
            structured_content: t.structured_content,
        });
        match self.send_reply(&frame) {
            Err(CompleteError::TooLarge(e)) => {
                // The result exceeded the frame limit: the host still gets an
                // answer (an error the model can read), the caller the error.
                let text = format!("tool result not sent: {e}");
                self.inner.diag(&text);
                let fallback = ExtFrame::ToolResult(ToolResult {
                    id: invocation.to_owned(),
                    content: vec![ContentBlock::text(text)],
                    is_error: true,
                    ..ToolResult::default()
                });
                self.send_reply(&fallback)?;
                Err(CompleteError::TooLarge(e))
            }
            other => other,
        }
    }

    fn answer_command(
        &self,
        invocation: &str,
        c: CommandOutcome,
    ) -> Result<Completion, CompleteError> {
        let mut resp = CommandResponse::new(invocation, c.action);
        resp.prompt = c.prompt;
        resp.tool_name = c.tool_name;
        resp.tool_args = c.tool_args;
        resp.insert = c.insert;
        resp.display = c.display;
        resp.open_panel = c.open_panel;
        resp.error = c.error;
        if resp.action.as_str().is_empty() {
            resp.action = CommandAction::Noop; // SDK-17
        }
        if resp.action == CommandAction::ToolPrompt {
            // SDK-18: never send an invalid tool_prompt.
            if let Err(e) =
                validate_tool_prompt(&resp.prompt, &resp.tool_name, resp.tool_args.as_ref())
            {
                let mut err = CommandResponse::new(invocation, CommandAction::Noop);
                err.error = e.to_string();
                resp = err;
            }
        }
        match self.send_reply(&ExtFrame::CommandResponse(resp)) {
            Err(CompleteError::TooLarge(e)) => {
                let mut err = CommandResponse::new(invocation, CommandAction::Noop);
                err.error = format!("command response not sent: {e}");
                self.inner.diag(&err.error);
                self.send_reply(&ExtFrame::CommandResponse(err))?;
                Err(CompleteError::TooLarge(e))
            }
            other => other,
        }
    }

    fn answer_intercept(
        &self,
        invocation: &str,
        kind: &InterceptKind,
        out: InterceptOutcome,
    ) -> Result<Completion, CompleteError> {
        let (resp, diag) = intercept::respond(invocation, kind, out);
        if let Some(d) = diag {
            self.inner.diag(&d);
        }
        match self.send_reply(&ExtFrame::EventInterceptResponse(resp)) {
            Err(CompleteError::TooLarge(e)) => {
                let msg = format!("interceptor answer not sent: {e}");
                self.inner.diag(&msg);
                let resp = intercept::failure(invocation, kind, &msg);
                self.send_reply(&ExtFrame::EventInterceptResponse(resp))?;
                Err(CompleteError::TooLarge(e))
            }
            other => other,
        }
    }
}
