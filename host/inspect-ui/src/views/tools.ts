// Tools: a form generated from each tool's JSON Schema (and a raw JSON
// editor) to call it, the result rendered, a Cancel button while it runs;
// stub tools whose calls (from extensions' call_tool, say) are answered by
// a reply typed here.

import { download, fill, fmtBytes, h, pretty } from "../dom";
import { example, type Form, form, type Schema } from "../schema";
import { type Obs, store, type Tool, type ToolOut } from "../store";

/** Schemas of the built-in tools (the host registers none on the wire). */
const BUILTIN: Record<string, Schema> = {
  read: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  write: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" } },
    required: ["path", "content"],
  },
  edit: {
    type: "object",
    properties: { path: { type: "string" }, old_text: { type: "string" }, new_text: { type: "string" } },
    required: ["path"],
  },
  bash: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
};
const CONFIRMED = new Set(["write", "edit", "bash"]);

interface Entry {
  name: string;
  ext: string;
  description: string;
  schema: Schema;
  tool?: Tool;
}

function entries(): Entry[] {
  const st = store.state;
  if (!st) return [];
  const ext = st.tools.map((t) => ({
    name: t.name,
    ext: t.ext,
    description: t.description,
    schema: (t.schema ?? {}) as Schema,
    tool: t,
  }));
  const builtin = st.builtin_tools
    .filter((n) => n in BUILTIN)
    .map((n) => ({ name: n, ext: "built-in", description: "", schema: BUILTIN[n] as Schema }));
  const stubs = st.stubs
    .filter((n) => !st.tools.some((t) => t.name === n))
    .map((n) => ({ name: n, ext: "stub", description: "answered by you", schema: { type: "object" } as Schema }));
  return [...ext, ...stubs, ...builtin];
}

/** Characters of a text block drawn at first (the rest on request). */
const SHOWN_TEXT = 64 * 1024;

function textBlock(text: string): HTMLElement {
  if (text.length <= SHOWN_TEXT) return h("pre.block-text", null, text);
  const pre = h("pre.block-text", null, text.slice(0, SHOWN_TEXT));
  const more = h(
    "div.more",
    null,
    h("span.muted", null, `… ${fmtBytes(text.length - SHOWN_TEXT)} more `),
    h(
      "button",
      {
        onclick: () => {
          pre.textContent = text;
          more.remove();
        },
      },
      "Show all",
    ),
    h("button", { onclick: () => download("result.txt", text, "text/plain") }, "Download"),
  );
  return h("div", null, pre, more);
}

export function renderResult(out: ToolOut): HTMLElement {
  return h(
    "div.result",
    { "data-test": "tool-result", class: out.is_error ? "is-error" : null },
    h(
      "div.result-head",
      null,
      h("span.badge", { class: out.is_error ? "bad" : "ok", "data-test": "tool-status" }, out.status),
      out.is_error ? h("span.badge.bad", null, "is_error") : null,
    ),
    out.content.map((b) => {
      if (b.type === "text" && "text" in b) return textBlock(b.text);
      if (b.type === "image" && "data" in b)
        return h("img.block-image", { src: `data:${b.mime_type};base64,${b.data}`, alt: b.mime_type });
      return h("pre.block-other", null, JSON.stringify(b));
    }),
    out.structured_content !== null && out.structured_content !== undefined
      ? [
          h("h4", null, "structured_content"),
          h("pre.json", { "data-test": "structured" }, pretty(out.structured_content)),
        ]
      : null,
  );
}

/** Calls of stub tools that wait for an answer. */
function waitingStubCalls(): Obs[] {
  const stubs = new Set(store.state?.stubs ?? []);
  const open = new Map<string, Obs>();
  for (const { o } of store.obs) {
    if (o.kind === "tool_call" && stubs.has(o.name as string)) open.set(o.tool_id as string, o);
    if (o.kind === "tool_result") open.delete(o.tool_id as string);
  }
  return [...open.values()];
}

/** The card of a stub call that waits: its arguments and the answer form. */
function stubCallCard(c: Obs): HTMLElement {
  const text = h("textarea", { rows: 2, placeholder: "the result text", "data-test": "answer-text" });
  const isError = h("input", { type: "checkbox" });
  const structured = h("textarea.json", { rows: 2, placeholder: "structured_content (JSON, optional)" });
  const send = async (): Promise<void> => {
    const answer: Record<string, unknown> = { tool: c.name, text: text.value, is_error: isError.checked };
    if (structured.value.trim()) {
      try {
        answer.structured_content = JSON.parse(structured.value);
      } catch (err) {
        store.say(`structured_content: ${String(err)}`);
        return;
      }
    }
    await store.step({ answer });
  };
  return h(
    "section.card.waiting",
    { "data-test": "stub-call", "data-tool": String(c.name) },
    h(
      "h3",
      null,
      `${String(c.name)} waits for your answer`,
      c.origin_extension ? h("span.muted", null, ` (call_tool from ${String(c.origin_extension)})`) : null,
    ),
    h("pre.json", null, pretty(c.args)),
    text,
    h("label.check", null, isError, " is_error"),
    structured,
    h("button.primary", { "data-test": "answer", onclick: () => void send() }, "Send answer"),
  );
}

export function toolsView(): HTMLElement {
  const list = h("div.tool-list");
  const detail = h("div.tool-detail.card");
  const waiting = h("div.stub-calls");
  const stubName = h("input", { placeholder: "tool name", "data-test": "stub-name" });
  const root = h(
    "div.view.tools",
    null,
    h(
      "div.tools-side",
      null,
      list,
      h(
        "div.stub-add",
        null,
        h("h4", null, "Answer a tool by hand"),
        stubName,
        h("button", { onclick: () => void addStub() }, "Stub it"),
      ),
    ),
    h("div.tools-main", null, waiting, detail),
  );
  let selected = "";
  let shownKey = "";
  let current: { form: Form | null; raw: HTMLTextAreaElement; mode: "form" | "json" } | null = null;
  let result: HTMLElement = h("div");

  const addStub = async (): Promise<void> => {
    const name = stubName.value.trim();
    if (!name) return;
    await store.step({ stub: name });
    stubName.value = "";
  };

  const renderList = (): void => {
    const es = entries();
    if (!selected && es[0]) selected = es[0].name;
    fill(
      list,
      es.map((e) =>
        h(
          "button.tool-item",
          {
            class: e.name === selected ? "selected" : null,
            "data-tool": e.name,
            onclick: () => {
              selected = e.name;
              renderList();
              renderDetail();
            },
          },
          h("span.mono", null, e.name),
          h("span.muted", null, e.ext),
          e.tool?.stub || e.ext === "stub" ? h("span.chip", null, "stub") : null,
        ),
      ),
    );
  };

  const renderDetail = (): void => {
    const e = entries().find((x) => x.name === selected);
    const st = store.state;
    const key = JSON.stringify([e, st?.stubs]);
    if (key === shownKey) return;
    shownKey = key;
    if (!e || !st) {
      fill(detail, h("p.muted", null, "No tool is registered."));
      current = null;
      return;
    }
    const f = e.schema.properties ? form(e.schema) : null;
    const raw = h("textarea.json.raw", { rows: 8, spellcheck: "false", "data-test": "raw-args" });
    const initial = example(e.schema, e.schema);
    raw.value = JSON.stringify(f ? f.read() : initial, null, 2);
    current = { form: f, raw, mode: f ? "form" : "json" };
    const formBox = h("div.form-box", null, f?.el ?? null);
    const rawBox = h("div.raw-box", null, raw);
    const tabForm = h("button.tab", { onclick: () => mode("form") }, "Form");
    const tabJson = h("button.tab", { onclick: () => mode("json"), "data-test": "json-tab" }, "JSON");
    const mode = (m: "form" | "json"): void => {
      if (!current) return;
      try {
        if (m === "json" && current.form) raw.value = JSON.stringify(current.form.read(), null, 2);
        if (m === "form" && current.form) current.form.write(JSON.parse(raw.value));
      } catch (err) {
        store.say(`arguments: ${String(err)}`);
        return;
      }
      current.mode = m;
      formBox.hidden = m !== "form";
      rawBox.hidden = m !== "json";
      tabForm.classList.toggle("on", m === "form");
      tabJson.classList.toggle("on", m === "json");
    };
    const confirm = h(
      "select",
      { "data-test": "confirm" },
      ["approve", "deny", "remember"].map((a) => h("option", { value: a }, a)),
    );
    const isStub = st.stubs.includes(e.name);
    const stubToggle =
      e.ext === "built-in"
        ? null
        : h(
            "label.check",
            { title: "Calls of this tool (also from extensions' call_tool) wait for an answer you type" },
            h("input", {
              type: "checkbox",
              checked: isStub,
              "data-test": "stub-toggle",
              onchange: (ev: Event) =>
                void store.step((ev.target as HTMLInputElement).checked ? { stub: e.name } : { unstub: e.name }),
            }),
            " answer calls by hand (stub)",
          );
    const callBtn = h("button.primary", { "data-test": "call", onclick: () => void call(e) }, "Call");
    const cancelBtn = h(
      "button.danger",
      { "data-test": "tool-cancel", hidden: true, onclick: () => void store.cancel() },
      "Cancel",
    );
    result = h("div.result-box");
    fill(
      detail,
      h("h2.mono", null, e.name, h("span.muted", null, ` ${e.ext}`)),
      e.description ? h("p", null, e.description) : null,
      e.tool
        ? h(
            "div.chips",
            null,
            h("span.chip", null, e.tool.exposure),
            e.tool.interactive ? h("span.chip", null, "interactive") : null,
            e.tool.deferred ? h("span.chip", null, "deferred") : null,
            e.tool.namespace ? h("span.chip", null, `namespace ${e.tool.namespace}`) : null,
            e.tool.model_callable ? null : h("span.chip", null, "not model-callable"),
          )
        : null,
      stubToggle,
      h("details", null, h("summary", null, "input schema"), h("pre.json", null, pretty(e.schema))),
      e.tool?.output_schema
        ? h("details", null, h("summary", null, "output schema"), h("pre.json", null, pretty(e.tool.output_schema)))
        : null,
      h("div.tabs", null, f ? tabForm : null, tabJson),
      formBox,
      rawBox,
      h(
        "div.actions",
        null,
        CONFIRMED.has(e.name) ? [h("span", null, "confirmation: "), confirm] : null,
        callBtn,
        cancelBtn,
      ),
      result,
    );
    mode(current.mode);

    async function call(entry: Entry): Promise<void> {
      if (!current) return;
      let args: unknown;
      try {
        args = current.mode === "form" && current.form ? current.form.read() : JSON.parse(raw.value);
      } catch (err) {
        store.say(`arguments are not valid JSON: ${String(err)}`);
        return;
      }
      const spec: Record<string, unknown> = { name: entry.name, args };
      if (CONFIRMED.has(entry.name)) spec.confirm = confirm.value;
      callBtn.disabled = true;
      cancelBtn.hidden = false;
      fill(result, h("div.running", { "data-test": "tool-running" }, `running ${entry.name}…`));
      try {
        const r = await store.step({ call: spec });
        fill(result, r.output?.tool ? renderResult(r.output.tool) : h("div.muted", null, "no result"));
      } catch {
        fill(result);
      } finally {
        callBtn.disabled = false;
        cancelBtn.hidden = true;
      }
    }
  };

  // One card per waiting call, kept across redraws (keyed by tool_id) so
  // that an answer being typed survives the observations that keep arriving.
  const cards = new Map<string, HTMLElement>();
  const renderWaiting = (): void => {
    const calls = waitingStubCalls();
    const open = new Set(calls.map((c) => String(c.tool_id)));
    for (const [id, card] of cards) {
      if (!open.has(id)) {
        card.remove();
        cards.delete(id);
      }
    }
    for (const c of calls) {
      const id = String(c.tool_id);
      if (!cards.has(id)) {
        const card = stubCallCard(c);
        cards.set(id, card);
        waiting.append(card);
      }
    }
  };

  store.on("state", () => {
    renderList();
    renderDetail();
    renderWaiting();
  });
  store.on("obs", renderWaiting);
  return root;
}
