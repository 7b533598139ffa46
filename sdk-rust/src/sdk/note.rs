//! The arguments of `notify`: `(message, level)`, the order of every SDK
//! (the message first and the level last, where the Node and Python SDKs
//! can default it to `info`; Rust has no default arguments, so the level is
//! always given). 0.1 took `(level, message)`: that order still compiles
//! for one release and logs a one-time deprecation line (a trait impl
//! cannot carry `#[deprecated]`).

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

use zot_protocol::NotifyLevel;

/// What [`Ctx::notify`](crate::Ctx::notify) and
/// [`ExtHandle::notify`](crate::ExtHandle::notify) take: `(message, level)`
/// (or, deprecated, `(level, message)`), the message a string type.
#[diagnostic::on_unimplemented(
    message = "notify takes (message, level): a string and a `NotifyLevel`",
    label = "expected `notify(message, NotifyLevel::Info)`"
)]
pub trait NoteArgs {
    /// The message, the level, and whether this was the deprecated order.
    #[doc(hidden)]
    fn into_note(self) -> (String, NotifyLevel, bool);
}

macro_rules! note_args {
    ($($t:ty),+) => {$(
        impl NoteArgs for ($t, NotifyLevel) {
            fn into_note(self) -> (String, NotifyLevel, bool) {
                (self.0.into(), self.1, false)
            }
        }

        impl NoteArgs for (NotifyLevel, $t) {
            fn into_note(self) -> (String, NotifyLevel, bool) {
                (self.1.into(), self.0, true)
            }
        }
    )+};
}

note_args!(&str, String, &String, Cow<'_, str>);

static WARNED: AtomicBool = AtomicBool::new(false);

/// The message and level of `args`, after the one-time deprecation line
/// for the old order (through `log`, the extension's stderr logger).
pub(crate) fn note(args: impl NoteArgs, log: impl FnOnce(&str)) -> (String, NotifyLevel) {
    let (message, level, deprecated) = args.into_note();
    if deprecated && !WARNED.swap(true, Ordering::Relaxed) {
        log("deprecated: notify(level, message); call notify(message, level), the order of every zot-ext SDK");
    }
    (message, level)
}
