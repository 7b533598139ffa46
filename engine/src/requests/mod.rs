//! The rules for the host's requests before and after a handler runs: a
//! tool's arguments checked against its schema, the ids in flight, panel
//! input bound to its registration, and the interception answer.

pub(crate) mod args;
pub(crate) mod intercept;
pub(crate) mod panels;
pub(crate) mod request_ids;
