//! The reference host for the zot extension protocol (filled by the host issue).
