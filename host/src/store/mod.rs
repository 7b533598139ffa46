//! What the host keeps on disk, mostly under `$ZOT_HOME`.
//!
//! Owns finding extensions ([`discovery`]), reading `extension.json`
//! ([`manifest`]), the one check every extension name passes before a path
//! is built from it ([`name`]), private folders and log files
//! (`private_fs`) and the continuous-mode results in SQLite
//! (`durable`). Installing, locking and staging are the CLI's
//! ([`crate::cli`]).
//!
//! Plain files and data only: it may not touch processes or the session.
pub mod discovery;
pub(crate) mod durable;
pub mod manifest;
pub mod name;
pub(crate) mod private_fs;
