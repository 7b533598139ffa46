"""The Windows Python check: output printed while the extension runs must
reach stderr, never the wire."""

import sys

import zot_ext

ext = zot_ext.Extension("stdout", "1.0.0")


@ext.command("hi", "Say hi")
def hi(args: str) -> zot_ext.Response:
    print("print in a handler")
    sys.stdout.write("sys.stdout.write in a handler\n")
    return zot_ext.Response.display(f"hi {args}")


ext.run()
