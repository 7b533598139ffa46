//! `hello`: slash commands, and commands registered from the host's
//! `hello_ack` in the on-hello hook.

use zot_ext::{Extension, Response};
use zot_protocol::NotifyLevel;

fn extension() -> Extension {
    Extension::new("hello", "0.1.0")
        // `/hello Ada` → a note "Hello, Ada!" in the chat.
        .command("hello", "Greet someone", |args, _ctx| async move {
            let name = if args.is_empty() {
                "world".to_owned()
            } else {
                args
            };
            Response::display(format!("Hello, {name}!"))
        })
        // `/ask-hello Ada` → sends a prompt to the model.
        .command(
            "ask-hello",
            "Ask the model to greet someone",
            |args, _ctx| async move {
                Response::prompt(format!("Write a one-line greeting for {args}."))
            },
        )
        // `/ping` → a note through `notify`, and nothing else.
        .command("ping", "Send a note", |_args, ctx| async move {
            ctx.notify("pong", NotifyLevel::Success)?;
            Ok::<_, zot_ext::Error>(Response::noop())
        })
        // Registered once the host said who it is.
        .on_hello(|host, reg| {
            let summary = format!(
                "zot {} · {}/{} · project {}",
                host.zot_version, host.provider, host.model, host.cwd
            );
            reg.command(
                "where",
                "Show the host and the project",
                move |_args, _ctx| {
                    let summary = summary.clone();
                    async move { Response::display(summary) }
                },
            );
        })
}

fn main() -> Result<(), zot_ext::RunError> {
    let ext = extension();
    ext.handle().log("hello started");
    ext.run_blocking()
}

#[cfg(test)]
mod tests {
    use zot_ext::testing::TestHost;

    #[tokio::test]
    async fn greets_and_describes_the_host() {
        let mut host = TestHost::start(super::extension()).await.unwrap();
        assert_eq!(
            host.command("hello", "").await.unwrap().display,
            "Hello, world!"
        );
        assert_eq!(
            host.command("hello", "Ada").await.unwrap().display,
            "Hello, Ada!"
        );
        assert!(host
            .command("where", "")
            .await
            .unwrap()
            .display
            .starts_with("zot test · test/test"));
    }
}
