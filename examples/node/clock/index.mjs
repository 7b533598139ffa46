// `clock`: slash commands in plain Node, no SDK — the whole protocol a
// command-only extension needs, by hand: newline-delimited JSON on
// stdin/stdout, `hello` first, registrations after `hello_ack`, then
// `ready`; one `command_response` per `command_invoked`; `shutdown_ack` on
// `shutdown`; exit on EOF. Logs go to stderr (stdout is the wire).
import { createInterface } from "node:readline";

const send = (frame) => process.stdout.write(`${JSON.stringify(frame)}\n`);
const log = (msg) => process.stderr.write(`[clock] ${msg}\n`);

const commands = {
  time: ["Show the local time", () => new Date().toLocaleTimeString("en-GB")],
  date: ["Show today's date", () => new Date().toISOString().slice(0, 10)],
  utc: ["Show the time in UTC", () => `${new Date().toISOString().slice(11, 19)} UTC`],
};

send({ type: "hello", name: "clock", version: "0.1.0", capabilities: ["commands"] });

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  let frame;
  try {
    frame = JSON.parse(line);
  } catch {
    log(`malformed frame skipped: ${line.slice(0, 80)}`);
    return;
  }
  switch (frame.type) {
    case "hello_ack":
      for (const [name, [description]] of Object.entries(commands)) {
        send({ type: "register_command", name, description });
      }
      send({ type: "ready" });
      break;
    case "command_invoked": {
      const command = commands[frame.name];
      send(
        command
          ? { type: "command_response", id: frame.id, action: "display", display: command[1](frame.args ?? "") }
          : { type: "command_response", id: frame.id, action: "noop", error: `no handler for /${frame.name}` },
      );
      break;
    }
    case "shutdown":
      send({ type: "shutdown_ack" });
      lines.close();
      break;
    default:
      break; // events, panels... this extension has none
  }
});
// EOF (or shutdown): nothing keeps the process alive, so it exits.
lines.on("close", () => process.stdin.destroy());
