//! Catching panics: a user handler's panic becomes its failure message and
//! never unwinds into the engine (or across an FFI boundary); a panic in an
//! engine task is caught by its supervisor (`engine::task`).

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// The text of a panic payload (`panic!("boom")` → `boom`), if it has one.
pub fn text(payload: &(dyn Any + Send)) -> Option<String> {
    if let Some(s) = payload.downcast_ref::<&str>() {
        Some((*s).to_owned())
    } else {
        payload.downcast_ref::<String>().cloned()
    }
}

/// The message of a handler's panic payload.
pub fn message(payload: &(dyn Any + Send)) -> String {
    text(payload).unwrap_or_else(|| "handler panicked".to_owned())
}

/// Runs `f`, turning a panic into `Err(message)`.
pub fn call<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| message(&*p))
}

pin_project_lite::pin_project! {
    /// A future that turns a panic while polling into `Err(payload)`.
    pub struct CatchPanic<F> {
        #[pin]
        inner: F,
    }
}

impl<F> CatchPanic<F> {
    /// Wraps `inner`.
    pub fn new(inner: F) -> Self {
        Self { inner }
    }
}

impl<F: Future> Future for CatchPanic<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.project().inner;
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(p) => Poll::Ready(Err(p)),
        }
    }
}
