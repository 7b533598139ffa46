// `ask-user`: an interactive tool. It opens a panel with choices and waits
// for the user (no host deadline in the interactive TUI); it ends when the
// user picks a choice, dismisses the panel (Esc → `panel_close`), or the
// host cancels the call (`tool_cancel`, shutdown, EOF → `ctx.signal`
// aborts), closing its panel in every case.
import { pathToFileURL } from "node:url";

import { Extension, ToolOutput } from "zot-ext";

const FOOTER = "↑/↓ choose · enter answer · esc dismiss";

const lines = (choices, selected) => choices.map((c, i) => `${i === selected ? "▸ " : "  "}${c}`);

export function extension() {
  const ext = new Extension("ask-user", "0.1.0");
  return ext.tool(
    {
      name: "ask_user",
      description: "Ask the user to choose one answer",
      schema: {
        type: "object",
        properties: {
          question: { type: "string", description: "The question to show." },
          choices: { type: "array", items: { type: "string" }, description: "The possible answers (at least one)." },
        },
        required: ["question", "choices"],
      },
      interactive: true,
    },
    async ({ question, choices }, ctx) => {
      if (!Array.isArray(choices) || choices.length === 0) {
        return ToolOutput.error("choices must not be empty");
      }
      // One panel per invocation.
      const panel = `ask-${ctx.id}`;
      let selected = 0;
      const answer = new Promise((resolve) => {
        ext.onPanelKey(
          panel,
          (key) => {
            if (key.key === "up") selected = Math.max(0, selected - 1);
            else if (key.key === "down") selected = Math.min(choices.length - 1, selected + 1);
            else if (key.key === "enter") return resolve({ choice: choices[selected] });
            else return;
            ext.renderPanel(panel, lines(choices, selected));
          },
          () => resolve({ dismissed: true }),
        );
        if (ctx.signal.aborted) {
          resolve({ cancelled: true });
        } else {
          ctx.signal.addEventListener("abort", () => resolve({ cancelled: true }), { once: true });
        }
      });
      ext.openPanel({ id: panel, title: question, lines: lines(choices, 0), footer: FOOTER });

      const a = await answer;
      if (a.dismissed) {
        return ToolOutput.error("the user dismissed the question"); // the host closed the panel
      }
      ext.closePanel(panel);
      if (a.cancelled) {
        return ToolOutput.text("cancelled"); // not sent: the host gave up
      }
      return ToolOutput.text(`The user chose: ${a.choice}`);
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await extension().run();
}
