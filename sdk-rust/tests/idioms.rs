//! The Rust idioms of the SDK, through the public API: typed event handlers
//! (`on_event::<E>`), errors that keep their causes (`Error::source`,
//! `RunError`'s `source()` and `code()`), and `notify(message, level)` in the
//! order of every SDK (the 0.1 order still compiles).

use std::error::Error as _;
use std::sync::{Arc, Mutex};

use zot_ext::events::{ToolResultEvent, TurnStartEvent};
use zot_ext::testing::TestHost;
use zot_ext::{Ctx, Error, Extension, NotifyLevel, Response, RunError, ToolOutput, ToolSpec};

#[tokio::test]
async fn typed_event_handlers_get_their_payload_and_share_the_name_with_on() {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (a, b, c) = (seen.clone(), seen.clone(), seen.clone());
    let ext = Extension::new("events", "1.0.0")
        .on_event(move |e: TurnStartEvent, _ctx| {
            let a = a.clone();
            async move { a.lock().unwrap().push(format!("turn {}", e.step)) }
        })
        // Registered by name first, then typed: the typed one replaces it.
        .on("tool_result", move |_e, _ctx| {
            let b = b.clone();
            async move { b.lock().unwrap().push("untyped".into()) }
        })
        .on_event(move |e: ToolResultEvent, _ctx: Ctx| {
            let c = c.clone();
            async move {
                c.lock()
                    .unwrap()
                    .push(format!("{} {:?}", e.tool_name, e.status));
                Ok::<_, Error>(())
            }
        });
    let mut host = TestHost::start(ext).await.unwrap();
    assert_eq!(host.registration().events, ["turn_start", "tool_result"]);
    host.send_json(r#"{"type":"event","event":"turn_start","step":2}"#)
        .await
        .unwrap();
    host.send_json(
        r#"{"type":"event","event":"tool_result","tool_name":"bash","status":"failed"}"#,
    )
    .await
    .unwrap();
    host.shutdown().await.unwrap();
    assert_eq!(*seen.lock().unwrap(), ["turn 2", "bash Failed"]);
}

#[derive(Debug, thiserror::Error)]
#[error("config unreadable")]
struct ConfigError(#[source] std::io::Error);

#[test]
fn handler_errors_keep_their_cause() {
    let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
    let e: Error = ConfigError(io).into();
    assert_eq!(e.to_string(), "config unreadable");
    let causes: Vec<String> = e.chain().map(|c| c.to_string()).collect();
    assert_eq!(causes, ["config unreadable", "no such file"]);
    assert!(e.downcast_ref::<std::io::Error>().is_some());
    assert!(format!("{e:?}").contains("caused by: no such file"));
    // Into a standard error, the chain goes along.
    let boxed: Box<dyn std::error::Error + Send + Sync> = e.into();
    assert_eq!(boxed.to_string(), "config unreadable");
    assert_eq!(boxed.source().unwrap().to_string(), "no such file");

    let wrapped = Error::with_source(
        "loading failed",
        ConfigError(std::io::ErrorKind::Other.into()),
    );
    let boxed: Box<dyn std::error::Error + Send + Sync> = wrapped.into();
    assert_eq!(boxed.to_string(), "loading failed");
    assert_eq!(boxed.source().unwrap().to_string(), "config unreadable");
    assert!(Error::msg("plain").source().is_none());
}

#[tokio::test]
async fn a_failing_handler_answers_with_its_message() {
    let ext = Extension::new("fail", "1.0.0").tool(
        "parse",
        "",
        |args: serde_json::Value, _ctx| async move {
            let n: i64 = args["n"].as_str().unwrap_or("").parse()?;
            Ok::<_, Error>(ToolOutput::text(n.to_string()))
        },
    );
    let mut host = TestHost::start(ext).await.unwrap();
    let r = host
        .tool("parse", serde_json::json!({"n": "x"}))
        .await
        .unwrap();
    assert!(r.is_error);
    assert_eq!(
        r.content[0].as_text().unwrap(),
        "invalid digit found in string"
    );
    host.shutdown().await.unwrap();
}

#[tokio::test]
async fn run_errors_are_an_enum_with_sources_and_codes() {
    let (transport, _host) = zot_ext::engine::Transport::memory();
    let err = Extension::new("", "1.0.0")
        .run_with(transport)
        .await
        .unwrap_err();
    assert!(matches!(err, RunError::Engine(_)), "{err:?}");
    assert_eq!(err.code(), "session");
    assert_eq!(
        err.source().unwrap().to_string(),
        "the extension name must not be empty"
    );

    let (transport, _host) = zot_ext::engine::Transport::memory();
    let err = Extension::new("x", "1.0.0")
        .command("bad name!", "", |_a, _c| async { Response::noop() })
        .run_with(transport)
        .await
        .unwrap_err();
    assert!(matches!(err, RunError::Register(_)), "{err:?}");
    assert_eq!(err.code(), "registration");
}

#[tokio::test]
async fn a_command_or_tool_name_registered_twice_fails_the_run_naming_it() {
    // The same texts TypeScript's and Python's RegistrationError carry.
    let (transport, _host) = zot_ext::engine::Transport::memory();
    let err = Extension::new("dup", "1.0.0")
        .command("deploy", "", |_a, _c| async { Response::noop() })
        .command("Deploy", "", |_a, _c| async { Response::noop() })
        .tool_raw(ToolSpec::new("t", ""), |_a, _c| async {
            ToolOutput::text("")
        })
        .tool_raw(ToolSpec::new("t", ""), |_a, _c| async {
            ToolOutput::text("")
        })
        .run_with(transport)
        .await
        .unwrap_err();
    assert!(matches!(err, RunError::Register(_)), "{err:?}");
    assert_eq!(err.code(), "registration");
    assert_eq!(
        err.to_string(),
        "invalid registration: \
         duplicate command name \"Deploy\": command \"deploy\" is already registered \
         (command names ignore case); \
         duplicate tool name \"t\": a tool of this name is already registered"
    );
}

#[tokio::test]
async fn notify_takes_the_message_first_and_the_old_order_still_works() {
    let ext = Extension::new("notes", "1.0.0").command("go", "", |_a, ctx| async move {
        ctx.notify("done", NotifyLevel::Info)?;
        ctx.notify(String::from("careful"), NotifyLevel::Warn)?;
        #[allow(clippy::needless_borrows_for_generic_args)]
        ctx.ext()
            .notify(&String::from("saved"), NotifyLevel::Success)?;
        // The 0.1 order: deprecated, still the same frame.
        ctx.notify(NotifyLevel::Error, "old order")?;
        Ok::<_, Error>(Response::noop())
    });
    let mut host = TestHost::start(ext).await.unwrap();
    host.command("go", "").await.unwrap();
    let notes: Vec<&String> = host
        .transcript()
        .iter()
        .filter(|l| l.contains(r#""type":"notify""#))
        .collect();
    assert_eq!(
        notes,
        [
            r#"{"type":"notify","level":"info","message":"done"}"#,
            r#"{"type":"notify","level":"warn","message":"careful"}"#,
            r#"{"type":"notify","level":"success","message":"saved"}"#,
            r#"{"type":"notify","level":"error","message":"old order"}"#,
        ]
    );
    host.shutdown().await.unwrap();
}
