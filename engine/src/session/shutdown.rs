//! The end of a session: `shutdown`, stdin EOF, a broken transport, a failed
//! handshake or a local close all take one path (SDK-24, SDK-48, SDK-49):
//!
//! 1. every open job is cancelled ([`Job::Cancel`]) and every outstanding
//!    `call_tool` fails (OP-29); [`Job::Shutdown`] tells the dispatcher. A
//!    command or interception waiting on a `call_tool` is answered here, by
//!    the engine, the same in every SDK (see
//!    `Inner::answer_waiting_on_calls`);
//! 2. handlers get a short grace (`EngineConfig::shutdown_grace`, 500 ms)
//!    to send their last frames, ending early once every open job has been
//!    answered;
//! 3. the writer is flushed, `shutdown_ack` written (on `shutdown` only) and
//!    the writer closed;
//! 4. [`Job::Finished`] ends the job stream.
//!
//! With the stdio transport a watchdog thread also exits the process
//! (status 0) shortly before the host's 2 s grace would expire, whatever is
//! still running.

use std::time::Duration;

use zot_protocol::ExtFrame;

use crate::jobs::{Job, JobId};
use crate::lock;
use crate::session::close_reason::CloseReason;
use crate::wire::writer::WriteLane;
use crate::{Inner, OpenKind, Phase};

impl Inner {
    /// Starts closing (once): cancels every job and call and queues `jobs`
    /// followed by the cancellations and [`Job::Shutdown`]. Returns whether
    /// this call started it.
    pub(crate) fn begin_close(&self, reason: CloseReason, mut jobs: Vec<Job>) -> bool {
        let calls = {
            let mut st = lock(&self.state);
            if matches!(st.phase, Phase::Closing | Phase::Finished) {
                return false;
            }
            st.phase = Phase::Closing;
            st.close_reason = Some(reason.clone());
            let mut ids: Vec<u64> = st.jobs.keys().copied().collect();
            ids.sort_unstable();
            for id in ids {
                let job = &st.jobs[&id];
                // Event and panel jobs are not cancelled: a `session_end`
                // queued just before `shutdown` still runs within the grace
                // (their context token is the session token).
                if !matches!(job.kind, OpenKind::Serial(_)) && job.token.cancel() {
                    jobs.push(Job::Cancel { id: JobId(id) });
                }
            }
            let waiting = self.take_waiting_on_calls(&mut st);
            (waiting, self.fail_all_calls(&mut st))
        };
        let (waiting, calls) = calls;
        self.answer_waiting_on_calls(&reason, waiting);
        self.session.cancel();
        if !matches!(reason, CloseReason::Handshake(_)) {
            jobs.push(Job::Shutdown);
        }
        self.queue.push_all(jobs);
        self.resolve_closed(calls);
        if self.stdio && matches!(reason, CloseReason::Shutdown | CloseReason::Eof) {
            if let Some(after) = self.config.exit_watchdog {
                start_watchdog(self.config.name.clone(), after);
            }
        }
        true
    }

    /// Takes out the open commands and interceptions that wait on a
    /// `call_tool`: the call can no longer be answered, so the engine
    /// answers them itself (below) and drops what their handlers answer
    /// later (a tool job sends nothing once cancelled anyway, SDK-23).
    fn take_waiting_on_calls(&self, st: &mut crate::State) -> Vec<crate::OpenJob> {
        let mut ids: Vec<u64> = st
            .jobs
            .iter()
            .filter(|(_, j)| {
                !j.children.is_empty()
                    && matches!(j.kind, OpenKind::Command | OpenKind::Intercept(_))
            })
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids.into_iter()
            .filter_map(|id| {
                st.answered_at_close.insert(id);
                self.take_job(st, id)
            })
            .collect()
    }

    /// One outcome for a request whose handler waits on a `call_tool` at
    /// shutdown or EOF, whatever the SDK: the Rust handler would go on and
    /// report the failed call, Python's would be cancelled and Node's might
    /// be cut off by the exit. A command gets `noop` with an error, an
    /// interception the verdict of a failed interceptor.
    fn answer_waiting_on_calls(&self, reason: &CloseReason, jobs: Vec<crate::OpenJob>) {
        let why = match reason {
            CloseReason::Shutdown => "the host shut down",
            CloseReason::Eof => "the host closed stdin",
            _ => "the session ended",
        };
        let message = format!("cancelled: {why} while call_tool was pending");
        for job in jobs {
            let frame = match &job.kind {
                OpenKind::Command => {
                    let mut r = zot_protocol::CommandResponse::new(
                        &job.invocation,
                        zot_protocol::CommandAction::Noop,
                    );
                    r.error = message.clone();
                    ExtFrame::CommandResponse(r)
                }
                OpenKind::Intercept(k) => ExtFrame::EventInterceptResponse(
                    crate::requests::intercept::failure(&job.invocation, k, &message),
                ),
                _ => continue,
            };
            self.reply(frame);
        }
    }

    /// Finishes closing: grace, flush, `shutdown_ack`, [`Job::Finished`].
    pub(crate) async fn finish_close(&self, reason: CloseReason) {
        let can_write = !matches!(reason, CloseReason::Broken(_)) && !self.writer.is_broken();
        if can_write && !matches!(reason, CloseReason::Handshake(_)) {
            self.grace().await;
        }
        if reason == CloseReason::Shutdown && can_write {
            if let Err(e) = self.write_frame(&ExtFrame::ShutdownAck, WriteLane::Direct) {
                self.diag(&format!("shutdown_ack not sent: {e}"));
            }
        }
        self.writer.close();
        // What was suppressed is counted before the session says it ended.
        self.diags.flush();
        {
            let mut st = lock(&self.state);
            st.phase = Phase::Finished;
            st.jobs.clear();
            st.serial_open = 0;
            st.ids.clear();
            st.expired.clear();
            st.answered_at_close.clear();
        }
        self.queue.push(Job::Finished {
            error: reason.error(),
        });
        self.done.cancel();
    }

    /// Waits until every open job was answered, at most the shutdown grace.
    async fn grace(&self) {
        let deadline = tokio::time::sleep(self.config.shutdown_grace);
        tokio::pin!(deadline);
        loop {
            let idle = self.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            {
                // Open jobs, and an on-hello hook still running (its
                // registrations and `ready` must precede the last replies).
                let st = lock(&self.state);
                let hello_pending = self.hello_ack.get().is_some() && !st.announced;
                if st.jobs.is_empty() && !hello_pending {
                    return;
                }
            }
            tokio::select! {
                _ = &mut deadline => return,
                _ = idle => {}
            }
        }
    }
}

/// Exits the process after `after` unless it exited on its own before.
fn start_watchdog(name: String, after: Duration) {
    let spawned = std::thread::Builder::new()
        .name("zot-ext-watchdog".into())
        .spawn(move || {
            crate::runtime::signals::block_in_this_thread();
            std::thread::sleep(after);
            crate::runtime::log::line(&name, "still running after shutdown; exiting (watchdog)");
            #[allow(
                clippy::exit,
                reason = "the watchdog exists to end a process whose shutdown hangs"
            )]
            std::process::exit(0);
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start the exit watchdog");
    }
}
