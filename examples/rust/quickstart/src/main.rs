use zot_ext::{Ctx, Extension, Response, ToolOutput};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
}

async fn greet(args: Greet, ctx: Ctx) -> Result<ToolOutput, zot_ext::Error> {
    if ctx.is_cancelled() {
        return Err(zot_ext::Error::msg("cancelled"));
    }
    Ok(ToolOutput::text(format!("Hello, {}!", args.name)))
}

fn main() -> Result<(), zot_ext::RunError> {
    Extension::new("hello", "1.0.0")
        .command("hi", "Say hi", |args, _ctx| async move {
            Response::display(format!("hi {args}"))
        })
        .tool("greet", "Greet someone", greet)
        .run_blocking()
}
