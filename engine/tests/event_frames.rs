//! Events cross into a binding as the host wrote them: with
//! `EngineConfig::event_frames` the job's JSON carries the host's frame
//! text, not an encoding of the decoded event.

mod common;

use common::*;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::Job;

// Keys in an order, spacing and with a field the typed event does not have:
// a re-encoding would change all three.
const EVENT: &str = r#"{"type":"event", "event":"turn_start","step":2,"x_new":{"b":1,"a":[true]}}"#;

async fn event_job(event_frames: bool) -> String {
    let mut cfg = config();
    cfg.event_frames = event_frames;
    let (engine, mut host, _) = engine_with(cfg, default_hello_ack(), |e| {
        e.subscribe("turn_start").unwrap();
    })
    .await;
    host.send_line(EVENT).await.unwrap();
    let batch = jobs(&engine).await;
    assert!(matches!(batch.as_slice(), [Job::Event { .. }]), "{batch:?}");
    Job::batch_to_json(&batch)
}

#[tokio::test]
async fn with_event_frames_an_event_crosses_as_the_host_wrote_it() {
    let json = event_job(true).await;
    assert!(json.ends_with(&format!(r#","event":{EVENT}}}]"#)), "{json}");
    let _: serde_json::Value = serde_json::from_str(&json).expect("the batch is JSON");
}

#[tokio::test]
async fn without_them_the_decoded_event_is_encoded() {
    let json = event_job(false).await;
    assert!(
        json.contains(r#""event":{"type":"event","event":"turn_start","#)
            && json.contains(r#""step":2"#),
        "{json}"
    );
    assert!(!json.contains("x_new"), "{json}");
}
