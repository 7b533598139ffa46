//! Running an [`Extension`]: over stdin/stdout, over any transport, or on a
//! runtime of its own. The session itself is the dispatcher's ([`serve`]).

use super::builder::Extension;
use super::dispatch::serve;
use super::RunError;
use crate::engine::Transport;

impl Extension {
    /// Runs the extension over stdin/stdout until `shutdown` or EOF, on the
    /// caller's tokio runtime. stdout is protected first (see
    /// [`Transport::stdio`]).
    ///
    /// ```no_run
    /// #[tokio::main(flavor = "current_thread")]
    /// async fn main() -> Result<(), zot_ext::RunError> {
    ///     zot_ext::Extension::new("demo", "1.0.0").run().await
    /// }
    /// ```
    pub async fn run(self) -> Result<(), RunError> {
        let transport = Transport::stdio().map_err(RunError::Io)?;
        self.run_with(transport).await
    }

    /// Runs the extension over any transport (e.g. [`Transport::memory`]).
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let (transport, mut host) = zot_ext::engine::Transport::memory();
    /// let task = tokio::spawn(zot_ext::Extension::new("demo", "1.0.0").run_with(transport));
    /// assert!(host.recv_line().await.unwrap().contains(r#""type":"hello""#));
    /// host.close_input(); // EOF before hello_ack: the handshake fails
    /// assert!(task.await.unwrap().is_err());
    /// # });
    /// ```
    pub async fn run_with(self, transport: Transport) -> Result<(), RunError> {
        serve(self, transport).await
    }

    /// Runs the extension on its own current-thread tokio runtime (no
    /// cross-core wake-ups) and returns when the session ends; for `fn main`.
    ///
    /// ```no_run
    /// fn main() -> Result<(), zot_ext::RunError> {
    ///     zot_ext::Extension::new("demo", "1.0.0").run_blocking()
    /// }
    /// ```
    pub fn run_blocking(self) -> Result<(), RunError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(RunError::Io)?;
        // The session runs as a task, not as the `block_on` future itself:
        // waking a task queues it, while waking the `block_on` future makes
        // the scheduler poll epoll once more before it runs (one syscall per
        // request on an idle extension).
        let result = rt.block_on(async move {
            tokio::spawn(self.run())
                .await
                .unwrap_or_else(|e| Err(RunError::Task(e)))
        });
        // Handlers still running (or blocked) must not delay the exit.
        rt.shutdown_timeout(std::time::Duration::from_millis(100));
        result
    }
}
