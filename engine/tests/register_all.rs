//! `register_all`: everything an extension registered before its session
//! ran, handed over at once; what the engine refuses is counted (and
//! logged) without stopping the rest.

mod common;

use common::*;
use zot_ext_engine::session::registration::Registrations;
use zot_ext_engine::testing::default_hello_ack;
use zot_ext_engine::SchemaOrigin;
use zot_protocol::{RawJson, RegisterCommand, RegisterTool};

fn command(name: &str) -> RegisterCommand {
    RegisterCommand {
        name: name.to_owned(),
        description: String::new(),
    }
}

#[tokio::test]
async fn refused_registrations_are_counted_and_the_rest_announced() {
    let mut refused = None;
    let (_engine, _host, announced) = engine_with(config(), default_hello_ack(), |e| {
        refused = Some(e.register_all(Registrations {
            commands: vec![command("hi"), command("HI")],
            tools: vec![
                (
                    RegisterTool::new("my tool", "", RawJson::object_schema()),
                    SchemaOrigin::Given,
                ),
                (
                    RegisterTool::new("echo", "", RawJson::object_schema()),
                    SchemaOrigin::Derived,
                ),
            ],
            events: vec!["turn_end".to_owned()],
            intercepts: vec!["turn_end".to_owned()],
        }));
    })
    .await;
    // The second spelling of /hi, the tool name with a space, and an
    // interceptor for an event that cannot be intercepted.
    assert_eq!(refused, Some(3));
    let text = announced.join("\n");
    assert!(text.contains(r#""name":"hi""#), "{text}");
    assert!(!text.contains(r#""name":"HI""#), "{text}");
    assert!(text.contains(r#""name":"echo""#), "{text}");
    assert!(!text.contains("my tool"), "{text}");
    assert!(text.contains(r#""events":["turn_end"]"#), "{text}");
    assert!(!text.contains(r#""intercept":["turn_end"]"#), "{text}");
}
