"""hello-py: the quick start. Slash commands, and one registered in the
on-hello hook from the host's ``hello_ack`` metadata."""

from __future__ import annotations

from zot_ext import Ctx, Extension, HostInfo, Response

ext = Extension("hello-py", "0.1.0")


@ext.command("hello", "Greet someone")
def hello(args: str) -> Response:
    return Response.display(f"Hello, {args or 'world'}!")


@ext.command("ask-hello", "Ask the model to greet someone")
def ask_hello(args: str) -> Response:
    return Response.prompt(f"Write a one-line greeting for {args}.")


@ext.command("ping", "Send a note")
def ping(args: str, ctx: Ctx) -> Response:
    ctx.notify("pong", "success")
    return Response.noop()


@ext.on_hello
def where(host: HostInfo) -> None:
    summary = f"zot {host.zot_version} · {host.provider}/{host.model} · project {host.cwd}"
    ext.command("where", "Show the host and the project", lambda args: Response.display(summary))


if __name__ == "__main__":
    ext.log("hello started")
    ext.run()
