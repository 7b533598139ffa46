// Slash commands: run one, see the extension's response action (display,
// prompt, insert, tool_prompt, open_panel, noop, error) and what the host
// did with it. A line without the leading `/` is a prompt for the model (a
// live one with --model-url, else the scripted model), as in zot itself.

import { getText } from "../api";
import { fill, h, pretty } from "../dom";
import { obsRow } from "../observe";
import { store } from "../store";

export function commandsView(): HTMLElement {
  const input = h("input.command-input", {
    list: "command-list",
    placeholder: "/echo hello, or a prompt for the model",
    "data-test": "command-input",
    autocomplete: "off",
  });
  const options = h("datalist#command-list");
  const runs = h("div.command-runs");
  const history: string[] = [];
  let back = 0;
  const root = h(
    "div.view.commands",
    null,
    h(
      "form.command-bar",
      {
        onsubmit: (e: Event) => {
          e.preventDefault();
          void run();
        },
      },
      input,
      options,
      h("button.primary", { type: "submit", "data-test": "run-command" }, "Run"),
    ),
    h("div.command-help.muted"),
    runs,
  );

  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowUp" && history.length) {
      back = Math.min(back + 1, history.length);
      input.value = history[history.length - back] ?? "";
      e.preventDefault();
    } else if (e.key === "ArrowDown" && back > 0) {
      back -= 1;
      input.value = back ? (history[history.length - back] ?? "") : "";
      e.preventDefault();
    }
  });

  const run = async (): Promise<void> => {
    const text = input.value.trim();
    if (!text) return;
    const isPrompt = !text.startsWith("/");
    history.push(text);
    back = 0;
    input.value = "";
    // A live model's reply shows here as it streams, until the step ends.
    const streamed = h("pre.streamed", { "data-test": "streamed" });
    const card = h(
      "section.card.command-run",
      { "data-test": "command-run" },
      h("h3.mono", null, text),
      h("div.running", null, "running…"),
      streamed,
    );
    runs.prepend(card);
    store.modelText = "";
    const unwatch = store.on("model", () => {
      streamed.textContent = store.modelText;
    });
    try {
      const r = await store.step(isPrompt ? { prompt: text } : { command: text });
      unwatch();
      const frames = await store.framesIn(r.frames);
      const resp = frames.find((f) => f.type === "command_response");
      const obs = await store.obsIn(r.observations);
      let action: HTMLElement = h(
        "div.muted",
        null,
        isPrompt ? "a prompt: the model's turns below" : "no command_response (a built-in command, or none came)",
      );
      if (resp) {
        const body = JSON.parse(await getText(`/api/frame/${resp.n}`)) as Record<string, unknown>;
        const { type: _t, id: _i, ...fields } = body;
        const name = body.error ? "error" : String(body.action ?? "");
        action = h(
          "div.response",
          null,
          h("span.badge.action", { "data-test": "action", class: body.error ? "bad" : null }, name || "(none)"),
          resp.latency !== undefined ? h("span.muted", null, ` in ${resp.latency.toFixed(1)} ms`) : null,
          h("pre.json", null, pretty(fields)),
        );
      }
      fill(
        card,
        h("h3.mono", null, text),
        action,
        h(
          "div.obs-list",
          null,
          obs.filter((o) => o.o.kind !== "command").map((o) => obsRow(o.o)),
        ),
      );
    } catch (e) {
      unwatch();
      fill(card, h("h3.mono", null, text), h("div.error", null, String(e instanceof Error ? e.message : e)));
    }
  };

  store.on("state", () => {
    const st = store.state;
    if (!st) return;
    fill(
      options,
      st.builtin_commands.map((c) => h("option", { value: `/${c}` }, "built-in")),
      st.commands.map((c) => h("option", { value: `/${c.name}` }, `${c.ext}: ${c.description}`)),
    );
    const help = root.querySelector(".command-help");
    if (help)
      fill(
        help,
        st.commands.length
          ? st.commands.map((c) =>
              h(
                "button.link",
                {
                  onclick: () => {
                    input.value = `/${c.name} `;
                    input.focus();
                  },
                  title: c.description,
                },
                `/${c.name}`,
              ),
            )
          : "No extension command is registered.",
      );
  });
  return root;
}
