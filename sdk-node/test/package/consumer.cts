// Type-checked (never run) as a CommonJS module, like consumer.mts.
import zot = require("zot-ext");
import testing = require("zot-ext/testing");

import "zot-ext/protect-stdout";

const ext = new zot.Extension("typed", "1.0.0").tool({ name: "t" }, (args: { n: number }) =>
  zot.ToolOutput.text(String(args.n + 1)),
);
ext.on("assistant_message", (e) => {
  const text: string | undefined = e.text;
  void text;
});
export const start: Promise<testing.TestHost> = testing.TestHost.start(ext);
