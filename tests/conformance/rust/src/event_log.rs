//! The record behind the `events` command: how many events arrived, and
//! the names of the last [`EVENTS_KEPT`] of them in arrival order.
//!
//! A long session sends millions of events (the soak of bench/README.md);
//! listing them all would outgrow both memory and the 4 MiB frame, so the
//! record is a ring of one byte per event: the name's place in
//! [`LIFECYCLE_EVENT_NAMES`], the only events subscribed to.

use std::collections::VecDeque;

use zot_protocol::values::LIFECYCLE_EVENT_NAMES;

/// How many event names `events` lists at most. With the longest name
/// (`tool_confirmation_requested`) the reply stays near 320 KB.
pub const EVENTS_KEPT: usize = 10_000;

/// The count and the last names.
#[derive(Debug)]
pub struct EventLog {
    count: u64,
    last: VecDeque<u8>,
}

impl Default for EventLog {
    fn default() -> Self {
        Self {
            count: 0,
            last: VecDeque::with_capacity(EVENTS_KEPT),
        }
    }
}

impl EventLog {
    /// Records one event.
    pub fn push(&mut self, name: &str) {
        let place = LIFECYCLE_EVENT_NAMES
            .iter()
            .position(|n| *n == name)
            .expect("only the lifecycle events are subscribed to");
        if self.last.len() == EVENTS_KEPT {
            self.last.pop_front();
        }
        self.last.push_back(place as u8);
        self.count += 1;
    }

    /// The `events` display: `{"count":<all events>,"last":[<names>]}`,
    /// compact.
    pub fn display(&self) -> String {
        let names: Vec<&str> = self
            .last
            .iter()
            .map(|&place| LIFECYCLE_EVENT_NAMES[usize::from(place)])
            .collect();
        let names = serde_json::to_string(&names).expect("strings serialize");
        format!(r#"{{"count":{},"last":{names}}}"#, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_count_and_the_last_names() {
        let mut log = EventLog::default();
        assert_eq!(log.display(), r#"{"count":0,"last":[]}"#);
        log.push("turn_end");
        for _ in 0..EVENTS_KEPT {
            log.push("turn_start");
        }
        log.push("session_end");
        let shown: serde_json::Value = serde_json::from_str(&log.display()).unwrap();
        assert_eq!(shown["count"], EVENTS_KEPT + 2);
        let last = shown["last"].as_array().unwrap();
        assert_eq!(last.len(), EVENTS_KEPT);
        assert_eq!(
            (last[0].as_str(), last[EVENTS_KEPT - 1].as_str()),
            (Some("turn_start"), Some("session_end"))
        );
        assert!(
            log.last.capacity() < 2 * EVENTS_KEPT,
            "the ring does not grow"
        );
    }
}
