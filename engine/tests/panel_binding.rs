//! Panel input is bound, as it arrives, to the registration of the panel's
//! handlers the SDK bound last (`bind_panel`); input for a panel without
//! handlers never becomes a job (SDK-46), and a close ends the binding.

mod common;

use common::*;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::{Job, Outcome};

/// `(kind, panel, registration)` of each panel job in `jobs`.
fn panel_jobs(jobs: &[Job]) -> Vec<(&'static str, String, u64)> {
    jobs.iter()
        .filter_map(|j| match j {
            Job::PanelKey {
                key, registration, ..
            } => Some(("key", key.panel_id.clone(), *registration)),
            Job::PanelClose {
                panel_id,
                registration,
                ..
            } => Some(("close", panel_id.clone(), *registration)),
            Job::PanelResize {
                resize,
                registration,
                ..
            } => Some(("resize", resize.panel_id.clone(), *registration)),
            _ => None,
        })
        .collect()
}

/// Sends `lines`, then a `turn_start` event as a marker, and returns the
/// jobs up to the marker (each answered).
async fn jobs_for(
    engine: &zot_ext_engine::Engine,
    host: &mut zot_ext_engine::MemoryHost,
    lines: &[&str],
) -> Vec<Job> {
    for l in lines {
        host.send_line(l).await.unwrap();
    }
    host.send_line(r#"{"type":"event","event":"turn_start","step":1,"sequence":1}"#)
        .await
        .unwrap();
    let mut got = Vec::new();
    loop {
        for job in jobs(engine).await {
            let marker = matches!(job, Job::Event { .. });
            match &job {
                Job::Event { id, .. }
                | Job::PanelKey { id, .. }
                | Job::PanelClose { id, .. }
                | Job::PanelResize { id, .. } => {
                    engine.complete(*id, Outcome::Done).unwrap();
                }
                _ => {}
            }
            if marker {
                return got;
            }
            got.push(job);
        }
    }
}

const KEY_P: &str = r#"{"type":"panel_key","panel_id":"p","key":"up","text":""}"#;
const KEY_Q: &str = r#"{"type":"panel_key","panel_id":"q","key":"up","text":""}"#;
const CLOSE_P: &str = r#"{"type":"panel_close","panel_id":"p"}"#;
const RESIZE_P: &str = r#"{"type":"panel_resize","panel_id":"p","width":80,"height":24}"#;

#[tokio::test]
async fn input_carries_the_registration_bound_when_it_arrived() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.subscribe("turn_start").unwrap();
        e.bind_panel("p", 1);
    })
    .await;
    // No handlers for q: its key never becomes a job.
    let got = jobs_for(&engine, &mut host, &[KEY_P, KEY_Q, RESIZE_P]).await;
    assert_eq!(
        panel_jobs(&got),
        [("key", "p".into(), 1), ("resize", "p".into(), 1)]
    );

    // Handlers replaced: later input goes to the new registration.
    engine.bind_panel("p", 2);
    let got = jobs_for(&engine, &mut host, &[KEY_P]).await;
    assert_eq!(panel_jobs(&got), [("key", "p".into(), 2)]);

    // Forgotten: ignored.
    engine.unbind_panel("p");
    let got = jobs_for(&engine, &mut host, &[KEY_P, CLOSE_P]).await;
    assert_eq!(panel_jobs(&got), []);
}

#[tokio::test]
async fn a_close_ends_the_binding_as_it_arrives() {
    let (engine, mut host, _) = engine_with(config(), default_hello_ack(), |e| {
        e.subscribe("turn_start").unwrap();
        e.bind_panel("p", 3);
    })
    .await;
    // The key after the close is for a panel without handlers.
    let got = jobs_for(&engine, &mut host, &[KEY_P, CLOSE_P, KEY_P, CLOSE_P]).await;
    assert_eq!(
        panel_jobs(&got),
        [("key", "p".into(), 3), ("close", "p".into(), 3)]
    );

    // Reopened under the same id: bound afresh.
    engine.bind_panel("p", 4);
    let got = jobs_for(&engine, &mut host, &[KEY_P]).await;
    assert_eq!(panel_jobs(&got), [("key", "p".into(), 4)]);
}
