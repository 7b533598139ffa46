// Built by host/inspect-ui/build.mjs from host/inspect-ui/src; do not edit.
"use strict";
(() => {
  // host/inspect-ui/src/api.ts
  var token = new URLSearchParams(location.search).get("token") ?? "";
  var ApiError = class extends Error {
    constructor(message, status) {
      super(message);
      this.status = status;
    }
    status;
  };
  async function check(res) {
    if (res.ok) return res;
    let msg = await res.text();
    try {
      const j = JSON.parse(msg);
      if (j.error) msg = j.error;
    } catch {
    }
    throw new ApiError(msg.trim() || `HTTP ${res.status}`, res.status);
  }
  async function get(path) {
    const res = await check(await fetch(path, { headers: { "x-zot-token": token } }));
    return await res.json();
  }
  async function getText(path) {
    const res = await check(await fetch(path, { headers: { "x-zot-token": token } }));
    return res.text();
  }
  async function post(path, body) {
    const res = await check(
      await fetch(path, {
        method: "POST",
        headers: { "x-zot-token": token, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    );
    return await res.json();
  }
  function socket() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    return new WebSocket(`${proto}://${location.host}/ws?token=${encodeURIComponent(token)}`);
  }

  // host/inspect-ui/src/dom.ts
  function h(spec, attrs, ...children) {
    const [tagAndId, ...classes] = spec.split(".");
    const [tag, id] = (tagAndId ?? "div").split("#");
    const el = document.createElement(tag);
    if (id) el.id = id;
    if (classes.length) el.className = classes.join(" ");
    for (const [k, v] of Object.entries(attrs ?? {})) {
      if (v === void 0 || v === null || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") {
        el.addEventListener(k.slice(2), v);
      } else if (k === "class") {
        el.className = [el.className, String(v)].filter(Boolean).join(" ");
      } else if (k === "value" && "value" in el) {
        el.value = String(v);
      } else if (k === "checked" && el instanceof HTMLInputElement) {
        el.checked = Boolean(v);
      } else {
        el.setAttribute(k, v === true ? "" : String(v));
      }
    }
    append(el, children);
    return el;
  }
  function append(el, children) {
    for (const c of children) {
      if (c === null || c === void 0 || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    }
  }
  function fill(el, ...children) {
    el.replaceChildren();
    append(el, children);
  }
  function fmtBytes(n) {
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
    return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  }
  function pretty(v, maxString = 2e3) {
    return JSON.stringify(
      v,
      (_k, val) => typeof val === "string" && val.length > maxString ? `${val.slice(0, maxString)}… (${val.length - maxString} more characters)` : val,
      2
    );
  }
  function download(name, text, type = "application/json") {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = h("a", { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1e4);
  }

  // host/inspect-ui/src/observe.ts
  var s = (v) => typeof v === "string" ? v : JSON.stringify(v);
  function describe(o) {
    switch (o.kind) {
      case "loaded":
        return `loaded ${s(o.ext)} ${s(o.version)} (${s(o.source)})`;
      case "load_error":
        return `cannot load ${s(o.ext)}: ${s(o.message)}`;
      case "diagnostic":
        return `[${s(o.ext)}] ${s(o.message)}`;
      case "disconnected":
        return `${s(o.ext)} disconnected: ${s(o.reason)}`;
      case "exited":
        return `${s(o.ext)} exited: ${s(o.status)}`;
      case "session":
        return `session ${s(o.id)} in ${s(o.cwd)}`;
      case "user":
        return `you › ${s(o.text)}${o.from && o.from !== "user" ? ` (from ${s(o.from)})` : ""}`;
      case "command":
        return `you › ${s(o.text)}`;
      case "assistant":
        return `zot › ${s(o.text)}`;
      case "tool_call":
        return `⚙ ${s(o.name)} ${JSON.stringify(o.args)}${o.origin_extension ? ` via ${s(o.origin_extension)}` : ""}`;
      case "tool_result":
        return `↳ ${s(o.name)} [${s(o.status)}] ${s(o.text)}`;
      case "confirmation":
        return `? allow ${s(o.name)}: ${s(o.preview)} → ${s(o.answer)}`;
      case "note":
        return `[${s(o.ext)}] ${s(o.level)}: ${s(o.text)}`;
      case "notes_cleared":
        return `[${s(o.ext)}] notes cleared`;
      case "display":
        return `[${s(o.ext)}] ${s(o.text)}`;
      case "status":
        return `▌ ${s(o.text)}`;
      case "editor":
        return `editor: ${s(o.text)}`;
      case "panel":
        return `panel ${s(o.ext)}:${s(o.id)} ${s(o.event)}: ${s(o.title)} | ${o.lines.join(" / ")}`;
      case "panel_closed":
        return `panel ${s(o.ext)}:${s(o.id)} closed by ${s(o.by)}`;
      case "event":
        return `event ${s(o.event)} fired`;
      case "verdict":
        return `intercept ${s(o.event)}: ${s(o.verdict)}${o.reason ? ` (${s(o.reason)})` : ""}${o.result !== void 0 ? ` → ${JSON.stringify(o.result)}` : ""}`;
      case "reload":
        return `reloaded: ${s(o.stopped)} stopped, ${s(o.loaded)} loaded, ${s(o.ready)} ready, ${s(o.errors)} errors`;
      case "warning":
        return `⚠ ${s(o.text)}`;
      default: {
        const { kind, ...rest } = o;
        return `${kind} ${JSON.stringify(rest)}`;
      }
    }
  }
  function level(o) {
    if (o.kind === "status" || o.kind === "note") return String(o.level ?? "info");
    if (o.kind === "tool_result" && o.is_error) return "error";
    if (o.kind === "load_error" || o.kind === "disconnected" || o.kind === "expect_failed") return "error";
    if (o.kind === "warning" || o.kind === "verdict" && o.verdict === "block") return "warn";
    return "";
  }
  function obsRow(o) {
    return h(
      `div.obs.k-${o.kind}`,
      { "data-kind": o.kind, class: level(o) ? `lv-${level(o)}` : null },
      h("span.kind", null, o.kind),
      h("span.text", null, describe(o))
    );
  }

  // host/inspect-ui/src/store.ts
  var MAX_FRAMES = 2e4;
  var MAX_OBS = 5e4;
  var Store = class {
    state = null;
    frames = [];
    obs = [];
    logs = /* @__PURE__ */ new Map();
    notice = "";
    /** A live model's text as it streams, since the prompt began (a line
     * break between its requests); not kept: the turns' observations hold it. */
    modelText = "";
    listeners = /* @__PURE__ */ new Map();
    stateTimer;
    frameSeen = -1;
    obsSeen = -1;
    /** Calls `f` on every change of `topic`; returns what stops it. */
    on(topic, f) {
      let s2 = this.listeners.get(topic);
      if (!s2) {
        s2 = /* @__PURE__ */ new Set();
        this.listeners.set(topic, s2);
      }
      s2.add(f);
      return () => s2.delete(f);
    }
    emit(topic) {
      for (const f of this.listeners.get(topic) ?? []) f();
    }
    say(text) {
      this.notice = text;
      this.emit("notice");
    }
    async start() {
      this.connect();
      await Promise.all([this.refreshState(), this.backfill()]);
    }
    connect() {
      const ws = socket();
      ws.onmessage = (ev) => {
        const m = JSON.parse(String(ev.data));
        switch (m.t) {
          case "frame":
            this.addFrame(m.f);
            this.emit("frames");
            break;
          case "obs":
            this.addObs({ n: m.n, ts: m.ts, o: m.o });
            this.emit("obs");
            break;
          case "log": {
            const ext = m.ext;
            const lines = this.logs.get(ext) ?? [];
            lines.push(m.text);
            if (lines.length > 2e3) lines.shift();
            this.logs.set(ext, lines);
            this.emit("log");
            break;
          }
          case "state":
            this.scheduleState();
            break;
          case "model":
            if (typeof m.text === "string") this.modelText += m.text;
            if (typeof m.retrying === "string") this.modelText += `
(${m.retrying})
`;
            if (m.end && this.modelText && !this.modelText.endsWith("\n")) this.modelText += "\n";
            this.emit("model");
            break;
          case "lagged":
            void this.backfill();
            this.scheduleState();
            break;
        }
      };
      ws.onclose = () => {
        this.say("Disconnected from zot-host inspect (was it stopped?). Reload the page to reconnect.");
      };
    }
    addFrame(f) {
      if (f.n <= this.frameSeen) return;
      this.frameSeen = f.n;
      this.frames.push(f);
      if (this.frames.length > MAX_FRAMES) this.frames.splice(0, this.frames.length - MAX_FRAMES);
    }
    addObs(o) {
      if (o.n <= this.obsSeen) return;
      this.obsSeen = o.n;
      this.obs.push(o);
      if (this.obs.length > MAX_OBS) this.obs.splice(0, this.obs.length - MAX_OBS);
    }
    /** Fetches what the stream did not bring (on start, or after a lag). */
    async backfill() {
      const frames = await get(`/api/frames?from=${this.frameSeen + 1}`);
      const recs = await get("/api/observations?from=0");
      const merged = [...frames, ...this.frames.filter((f) => f.n > (frames.at(-1)?.n ?? -1))];
      const before = this.frames.filter((f) => f.n < (frames[0]?.n ?? Infinity));
      this.frames = [...before, ...merged].slice(-MAX_FRAMES);
      this.frameSeen = this.frames.at(-1)?.n ?? this.frameSeen;
      const last = recs.at(-1)?.n ?? -1;
      this.obs = [...recs, ...this.obs.filter((o) => o.n > last)].slice(-MAX_OBS);
      this.obsSeen = this.obs.at(-1)?.n ?? this.obsSeen;
      for (const ext of this.state?.extensions ?? []) await this.loadLog(ext.name);
      this.emit("frames");
      this.emit("obs");
    }
    async loadLog(ext) {
      this.logs.set(ext, await get(`/api/log/${encodeURIComponent(ext)}`));
      this.emit("log");
    }
    scheduleState() {
      if (this.stateTimer !== void 0) return;
      this.stateTimer = window.setTimeout(() => {
        this.stateTimer = void 0;
        void this.refreshState();
      }, 50);
    }
    async refreshState() {
      const first = this.state === null;
      this.state = await get("/api/state");
      if (first) for (const e of this.state.extensions) await this.loadLog(e.name);
      this.emit("state");
    }
    /** Runs a script step; errors become the notice line and are rethrown. */
    async step(step) {
      try {
        return await post("/api/step", step);
      } catch (e) {
        this.say(e instanceof ApiError ? e.message : String(e));
        throw e;
      }
    }
    async key(key, text = "") {
      try {
        await post("/api/key", { key, text });
      } catch (e) {
        this.say(e instanceof ApiError ? e.message : String(e));
      }
    }
    async cancel() {
      await post("/api/cancel", {});
    }
    /** The observations of a step's range. */
    async obsIn(range) {
      const all = await get(`/api/observations?from=${range[0]}`);
      return all.filter((o) => o.n < range[1]);
    }
    /** The frames of a step's range (from the server: the stream may still be on its way). */
    async framesIn(range) {
      const all = await get(`/api/frames?from=${range[0]}`);
      return all.filter((f) => f.n < range[1]);
    }
  };
  var store = new Store();

  // host/inspect-ui/src/views/commands.ts
  function commandsView() {
    const input = h("input.command-input", {
      list: "command-list",
      placeholder: "/echo hello, or a prompt for the model",
      "data-test": "command-input",
      autocomplete: "off"
    });
    const options = h("datalist#command-list");
    const runs = h("div.command-runs");
    const history2 = [];
    let back = 0;
    const root = h(
      "div.view.commands",
      null,
      h(
        "form.command-bar",
        {
          onsubmit: (e) => {
            e.preventDefault();
            void run();
          }
        },
        input,
        options,
        h("button.primary", { type: "submit", "data-test": "run-command" }, "Run")
      ),
      h("div.command-help.muted"),
      runs
    );
    input.addEventListener("keydown", (e) => {
      if (e.key === "ArrowUp" && history2.length) {
        back = Math.min(back + 1, history2.length);
        input.value = history2[history2.length - back] ?? "";
        e.preventDefault();
      } else if (e.key === "ArrowDown" && back > 0) {
        back -= 1;
        input.value = back ? history2[history2.length - back] ?? "" : "";
        e.preventDefault();
      }
    });
    const run = async () => {
      const text = input.value.trim();
      if (!text) return;
      const isPrompt = !text.startsWith("/");
      history2.push(text);
      back = 0;
      input.value = "";
      const streamed = h("pre.streamed", { "data-test": "streamed" });
      const card = h(
        "section.card.command-run",
        { "data-test": "command-run" },
        h("h3.mono", null, text),
        h("div.running", null, "running…"),
        streamed
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
        let action = h(
          "div.muted",
          null,
          isPrompt ? "a prompt: the model's turns below" : "no command_response (a built-in command, or none came)"
        );
        if (resp) {
          const body = JSON.parse(await getText(`/api/frame/${resp.n}`));
          const { type: _t, id: _i, ...fields } = body;
          const name = body.error ? "error" : String(body.action ?? "");
          action = h(
            "div.response",
            null,
            h("span.badge.action", { "data-test": "action", class: body.error ? "bad" : null }, name || "(none)"),
            resp.latency !== void 0 ? h("span.muted", null, ` in ${resp.latency.toFixed(1)} ms`) : null,
            h("pre.json", null, pretty(fields))
          );
        }
        fill(
          card,
          h("h3.mono", null, text),
          action,
          h(
            "div.obs-list",
            null,
            obs.filter((o) => o.o.kind !== "command").map((o) => obsRow(o.o))
          )
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
        st.commands.map((c) => h("option", { value: `/${c.name}` }, `${c.ext}: ${c.description}`))
      );
      const help = root.querySelector(".command-help");
      if (help)
        fill(
          help,
          st.commands.length ? st.commands.map(
            (c) => h(
              "button.link",
              {
                onclick: () => {
                  input.value = `/${c.name} `;
                  input.focus();
                },
                title: c.description
              },
              `/${c.name}`
            )
          ) : "No extension command is registered."
        );
    });
    return root;
  }

  // host/inspect-ui/src/schema.ts
  function resolve(s2, root) {
    let cur = s2 ?? {};
    for (let i = 0; i < 32; i++) {
      if (cur.$ref?.startsWith("#/")) {
        const path = cur.$ref.slice(2).split("/");
        let target = root;
        for (const p of path) target = target?.[p];
        const { $ref: _ref, ...rest } = cur;
        cur = { ...target, ...rest };
      } else if (cur.allOf?.length === 1 && Object.keys(cur).length <= 3) {
        const { allOf, ...rest } = cur;
        cur = { ...allOf[0], ...rest };
      } else {
        return cur;
      }
    }
    return cur;
  }
  function typeOf(s2) {
    if (Array.isArray(s2.type)) return s2.type.find((t) => t !== "null") ?? "string";
    if (s2.type) return s2.type;
    if (s2.properties) return "object";
    if (s2.enum) return typeof s2.enum[0] === "number" ? "number" : "string";
    return "";
  }
  function example(s0, root, name = "", hints = {}) {
    const s2 = resolve(s0, root);
    if (name in hints) return hints[name];
    if (s2.const !== void 0) return s2.const;
    if (s2.default !== void 0 && s2.default !== "" && s2.default !== 0) return s2.default;
    if (s2.enum?.length) return s2.enum[0];
    const alt = s2.oneOf ?? s2.anyOf;
    if (alt?.length) return example(alt[0], root, name, hints);
    switch (typeOf(s2)) {
      case "object": {
        const out = {};
        for (const [k, v] of Object.entries(s2.properties ?? {})) out[k] = example(v, root, k, hints);
        return out;
      }
      case "array":
        return s2.items ? [example(s2.items, root, name, hints)] : [];
      case "integer":
        return typeof s2.minimum === "number" && s2.minimum > 0 ? s2.minimum : 1;
      case "number":
        return 1;
      case "boolean":
        return false;
      case "string":
        return name ? `example ${name.replace(/_/g, " ")}` : "example";
      default:
        return {};
    }
  }
  function form(schema0, root = schema0) {
    return field(resolve(schema0, root), root, "", true, []);
  }
  function label(name, s2, required) {
    if (!name) return null;
    return h(
      "span.field-name",
      null,
      name,
      required ? h("span.req", { title: "required" }, "*") : null,
      typeOf(s2) ? h("span.field-type", null, typeOf(s2)) : null
    );
  }
  function field(s2, root, name, required, path) {
    const t = typeOf(s2);
    const id = ["f", ...path].join("-");
    const desc = s2.description ? h("div.field-desc", null, s2.description) : null;
    if (t === "object" && s2.properties) {
      const req = new Set(s2.required ?? []);
      const kids = Object.entries(s2.properties).map(([k, v]) => {
        const sub = resolve(v, root);
        return [k, field(sub, root, k, req.has(k), [...path, k]), req.has(k)];
      });
      const el = name ? h(
        "fieldset.field",
        null,
        h("legend", null, label(name, s2, required)),
        desc,
        kids.map((k) => k[1].el)
      ) : h(
        "div.form",
        null,
        desc,
        kids.map((k) => k[1].el)
      );
      return {
        el,
        read() {
          const out = {};
          for (const [k, f, isReq] of kids) {
            const v = f.read();
            if (v !== void 0 || isReq) out[k] = v;
          }
          return out;
        },
        write(v) {
          const o = v && typeof v === "object" ? v : {};
          for (const [k, f] of kids) f.write(o[k]);
        }
      };
    }
    if (s2.enum?.length) {
      const sel = h(
        "select",
        { id, "data-field": name },
        required ? null : h("option", { value: "" }, "—"),
        s2.enum.map((v, i) => h("option", { value: String(i) }, JSON.stringify(v)))
      );
      return {
        el: h("label.field", null, label(name, s2, required), sel, desc),
        read: () => sel.value === "" ? void 0 : s2.enum?.[Number(sel.value)],
        write(v) {
          const i = s2.enum?.findIndex((e) => JSON.stringify(e) === JSON.stringify(v)) ?? -1;
          sel.value = i >= 0 ? String(i) : required ? "0" : "";
        }
      };
    }
    if (t === "boolean") {
      const box = h("input", { type: "checkbox", id, "data-field": name });
      return {
        el: h("label.field.check", null, box, label(name, s2, required), desc),
        read: () => box.checked,
        write(v) {
          box.checked = v === true;
        }
      };
    }
    if (t === "string" || t === "integer" || t === "number") {
      const numeric = t !== "string";
      const multi = !numeric && /text|content|body|prompt|code|command/i.test(name);
      const input = multi ? h("textarea", { id, rows: 3, "data-field": name }) : h("input", { id, type: numeric ? "number" : "text", "data-field": name, step: t === "integer" ? 1 : "any" });
      return {
        el: h("label.field", null, label(name, s2, required), input, desc),
        read() {
          if (input.value === "") return required ? numeric ? 0 : "" : void 0;
          return numeric ? Number(input.value) : input.value;
        },
        write(v) {
          input.value = v === void 0 || v === null ? "" : String(v);
        }
      };
    }
    const area = h("textarea.json", { id, rows: 3, "data-field": name, spellcheck: "false" });
    return {
      el: h("label.field", null, label(name, s2, required), area, h("div.field-desc", null, "JSON"), desc),
      read() {
        if (area.value.trim() === "") return void 0;
        return JSON.parse(area.value);
      },
      write(v) {
        area.value = v === void 0 ? "" : JSON.stringify(v);
      }
    };
  }

  // host/inspect-ui/src/views/events.ts
  var protocol = null;
  function variant(frameType, event) {
    const frames = protocol?.oneOf ?? [];
    const frame = frames.find((f) => resolve(f.properties?.type, protocol ?? {}).enum?.[0] === frameType);
    return (frame?.oneOf ?? []).find((v) => resolve(v.properties?.event, protocol ?? {}).enum?.[0] === event);
  }
  function payload(frameType, event) {
    const s2 = variant(frameType, event);
    const st = store.state;
    const tool = st?.tools[0]?.name ?? "echo";
    const hints = {
      tool_name: tool,
      tool_id: "toolu_inspect",
      tool_args: {},
      step: 1,
      text: "Hello from the inspector",
      system_prompt: "You are zot.",
      provider: st?.session.provider ?? "scripted",
      model: st?.session.model ?? "scripted-model",
      session_id: st?.session.id ?? "session-1",
      cwd: st?.session.cwd ?? "",
      agent_run_id: "run-inspect",
      compaction_id: "compact-inspect",
      origin_extension: ""
    };
    const v = s2 ? example(s2, protocol ?? {}, "", hints) : { event };
    const stamped = frameType === "event" ? ["type", "id", "session_id", "cwd", "sequence"] : ["type", "id"];
    const out = {};
    for (const [k, val] of Object.entries(v)) if (!stamped.includes(k)) out[k] = val;
    out.event = event;
    return out;
  }
  function firePane(kind) {
    const frameType = kind === "emit" ? "event" : "event_intercept";
    const select = h("select", { "data-test": `${kind}-name` });
    const editor = h("textarea.json", { rows: 10, spellcheck: "false", "data-test": `${kind}-payload` });
    const out = h("div.fire-out", { "data-test": `${kind}-out` });
    const fire = async () => {
      let body;
      try {
        body = JSON.parse(editor.value);
      } catch (e) {
        store.say(`payload is not valid JSON: ${String(e)}`);
        return;
      }
      fill(out, h("div.running", null, "firing…"));
      const name = String(body.event ?? "");
      try {
        const r = await store.step({ [kind]: body });
        const v = r.output?.verdict;
        const subscribers = (store.state?.extensions ?? []).filter((e) => (kind === "emit" ? e.events : e.intercepts).includes(name)).map((e) => e.name);
        const table = h("table.frames");
        const summary = v ? h(
          "div.verdict",
          { "data-test": "verdict" },
          h("span.badge", { class: v.verdict === "block" ? "bad" : "ok" }, v.verdict),
          v.reason ? h("span", null, ` ${v.reason}`) : null,
          v.result !== null && v.result !== void 0 ? h("pre.json", null, pretty(v.result)) : null
        ) : h(
          "div.fired",
          { "data-test": "fired" },
          `${name} sent to ${subscribers.length} subscriber(s)${subscribers.length ? `: ${subscribers.join(", ")}` : ""}`
        );
        fill(
          out,
          summary,
          subscribers.length ? table : h(
            "div.muted",
            null,
            kind === "emit" ? "No extension subscribes to it." : "No extension intercepts it: the host allows."
          )
        );
        const wanted = (f) => f.n >= r.frames[0] && (kind === "emit" ? f.type === "event" && f.event === name : f.type === "event_intercept" && f.event === name || f.type === "event_intercept_response" && f.n < r.frames[1]);
        const limit = kind === "emit" ? subscribers.length : subscribers.length * 2;
        const shown = /* @__PURE__ */ new Set();
        const paintNew = async () => {
          for (; ; ) {
            const f = store.frames.filter(wanted).slice(0, limit).find((x) => !shown.has(x.n));
            if (!f) return;
            shown.add(f.n);
            const frame = JSON.parse(await getText(`/api/frame/${f.n}`));
            table.append(
              h(
                "tr",
                null,
                h("td", null, f.ext),
                h("td", null, f.dir === "host->ext" ? "→ sent" : "← answered"),
                h("td.mono", null, f.type),
                h("td.mono", null, f.latency !== void 0 ? `${f.latency.toFixed(1)} ms` : ""),
                h("td", null, h("pre.json.small", null, pretty(frame)))
              )
            );
          }
        };
        let chain = Promise.resolve();
        const paint = () => chain = chain.then(paintNew);
        const stop = store.on("frames", () => {
          void paint().then(() => {
            if (shown.size >= limit) stop();
          });
        });
        await paint();
        if (shown.size >= limit) stop();
      } catch (e) {
        fill(out, h("div.error", null, String(e instanceof Error ? e.message : e)));
      }
    };
    select.addEventListener("change", () => editor.value = JSON.stringify(payload(frameType, select.value), null, 2));
    const el = h(
      "section.card",
      null,
      h("h2", null, kind === "emit" ? "Lifecycle event" : "Interception"),
      h(
        "p.muted",
        null,
        kind === "emit" ? "Sent to every subscriber, stamped with the session id, cwd and the next sequence number." : "Sent through the chain of interceptors in load order, as the host does: first block wins, rewrites chain."
      ),
      h(
        "div.row",
        null,
        select,
        h(
          "button",
          { onclick: () => editor.value = JSON.stringify(payload(frameType, select.value), null, 2) },
          "Example"
        ),
        h("button.primary", { "data-test": `${kind}-fire`, onclick: () => void fire() }, "Fire")
      ),
      editor,
      out
    );
    return {
      el,
      refresh() {
        const names = kind === "emit" ? store.state?.events : store.state?.intercepts;
        if (!names || select.options.length) return;
        fill(
          select,
          names.map((n) => h("option", { value: n }, n))
        );
        editor.value = JSON.stringify(payload(frameType, select.value), null, 2);
      }
    };
  }
  function eventsView() {
    const emit = firePane("emit");
    const intercept = firePane("intercept");
    const root = h("div.view.events", null, emit.el, intercept.el);
    const refresh = () => {
      if (!protocol) return;
      emit.refresh();
      intercept.refresh();
    };
    void get("/api/schema").then((s2) => {
      protocol = s2;
      refresh();
    });
    store.on("state", refresh);
    return root;
  }

  // host/inspect-ui/src/views/extensions.ts
  function chips(items, empty = "none") {
    return h("div.chips", null, items.length ? items.map((i) => h("span.chip", null, i)) : h("span.muted", null, empty));
  }
  function regTable(rows) {
    if (!rows.length) return h("div.muted", null, "none");
    return h(
      "table.reg",
      null,
      rows.map(
        (r) => h(
          "tr",
          { class: r.active ? null : "inactive" },
          h("td.mono", null, r.name),
          h("td", null, r.active ? "active" : `inactive: ${r.note ?? ""}`)
        )
      )
    );
  }
  function extensionsView() {
    const root = h("div.view.extensions");
    const logs = /* @__PURE__ */ new Map();
    let shown = "";
    const render = () => {
      const st = store.state;
      if (!st) return;
      const key = JSON.stringify([st.extensions, st.tools, st.load_errors, st.passive]);
      if (key === shown) return;
      shown = key;
      logs.clear();
      const cards = st.extensions.map((e) => {
        const log = h("pre.log", { "data-log": e.name });
        logs.set(e.name, log);
        const tools = st.tools.filter((t) => t.ext === e.name);
        return h(
          "section.card.ext",
          { "data-ext": e.name },
          h(
            "header",
            null,
            h("h2", null, e.name, h("span.version", null, e.version)),
            h("span.badge", { class: e.connected ? "ok" : "bad" }, e.connected ? e.ready : `disconnected`),
            e.language ? h("span.badge", null, e.language) : null,
            h("span.badge", null, e.source),
            h(
              "button",
              {
                onclick: () => void store.step({ restart: e.name }),
                title: `Stop ${e.name} and start it again; the other extensions keep running`,
                "data-test": "restart"
              },
              "Restart"
            ),
            h(
              "button",
              {
                onclick: () => void store.step({ reload: true }),
                title: "Stop every extension and load them again (/reload-ext)"
              },
              "Reload all"
            )
          ),
          e.disconnect_reason ? h("div.error", null, `disconnected: ${e.disconnect_reason}`) : null,
          h(
            "div.kv",
            null,
            h("span", null, "dir"),
            h("span.mono", null, e.dir),
            h("span", null, "log"),
            h("span.mono", null, e.log)
          ),
          h("h3", null, "Capabilities"),
          chips(e.capabilities),
          h("h3", null, "Handshake"),
          h("details", null, h("summary", null, "hello"), h("pre.json", null, pretty(e.hello))),
          h("details", null, h("summary", null, "hello_ack"), h("pre.json", null, pretty(e.hello_ack))),
          h("h3", null, "Commands"),
          regTable(e.commands),
          h("h3", null, "Tools"),
          regTable(e.tools),
          tools.map(
            (t) => h(
              "details",
              null,
              h(
                "summary",
                null,
                `${t.name} schema`,
                h(
                  "span.muted",
                  null,
                  ` ${t.exposure}${t.interactive ? ", interactive" : ""}${t.deferred ? ", deferred" : ""}`
                )
              ),
              h("pre.json", null, pretty(t.schema)),
              t.output_schema ? h("pre.json", null, `output_schema: ${pretty(t.output_schema)}`) : null
            )
          ),
          h("h3", null, "Subscriptions"),
          chips(e.events),
          h("h3", null, "Interceptors"),
          chips(e.intercepts),
          e.diagnostics.length ? [
            h("h3", null, "Diagnostics"),
            h(
              "ul.diag",
              null,
              e.diagnostics.map((d) => h("li", null, d))
            )
          ] : null,
          h("h3", null, "stderr (live)"),
          log
        );
      });
      const errors = st.load_errors.map(
        (e) => h(
          "section.card.ext.failed",
          null,
          h("header", null, h("h2", null, e.ext), h("span.badge.bad", null, "load error")),
          h("pre.error", null, e.message)
        )
      );
      const passive = st.passive.length ? h("section.card", null, h("h3", null, "Theme / skills only (not started)"), chips(st.passive)) : null;
      fill(
        root,
        cards.length || errors.length ? null : h("p.muted", null, "No extension is loaded. Start zot-host inspect with --ext DIR."),
        cards,
        errors,
        passive
      );
      paintLogs();
    };
    const paintLogs = () => {
      for (const [name, el] of logs) {
        const lines = store.logs.get(name) ?? [];
        const stick = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
        el.textContent = lines.join("\n");
        if (stick) el.scrollTop = el.scrollHeight;
      }
    };
    store.on("state", render);
    store.on("log", paintLogs);
    return root;
  }

  // host/inspect-ui/src/views/panel.ts
  var KEYS = {
    ArrowUp: "up",
    ArrowDown: "down",
    ArrowLeft: "left",
    ArrowRight: "right",
    Enter: "enter",
    Escape: "esc",
    Tab: "tab",
    PageUp: "pageup",
    PageDown: "pagedown",
    Home: "home",
    End: "end",
    Backspace: "backspace",
    Delete: "delete"
  };
  function keyOf(e) {
    if (e.ctrlKey && e.key.toLowerCase() === "c") return { key: "ctrl+c", text: "" };
    if (e.ctrlKey || e.metaKey || e.altKey) return null;
    const named = KEYS[e.key];
    if (named) return { key: named, text: "" };
    if ([...e.key].length === 1) return { key: "rune", text: e.key };
    return null;
  }
  function panelView() {
    const screen = h("div.panel-screen", {
      tabindex: 0,
      "data-test": "panel",
      title: "Click here, then type: keys go to the panel"
    });
    const keys = h(
      "div.key-buttons",
      null,
      ["up", "down", "left", "right", "enter", "tab", "esc"].map(
        (k) => h("button", { onclick: () => void store.key(k), "data-key": k }, k)
      )
    );
    const root = h(
      "div.view.panel-view",
      null,
      h(
        "p.muted",
        null,
        "Panels opened by a command or a running tool appear here. Focus the panel and type: the keys go to its extension (Esc and Ctrl+C close it)."
      ),
      screen,
      keys
    );
    screen.addEventListener("keydown", (e) => {
      const k = keyOf(e);
      if (!k || !store.state?.panel) return;
      e.preventDefault();
      void store.key(k.key, k.text);
    });
    const render = () => {
      const p = store.state?.panel;
      if (!p) {
        screen.classList.add("empty");
        fill(screen, h("div.muted", null, "No panel is open. Run a command that opens one (e.g. /panel)."));
        return;
      }
      screen.classList.remove("empty");
      const len = (t) => [...t].length;
      const width = Math.max(20, len(p.title) + 2, len(p.footer), ...p.lines.map(len));
      const pad = (t) => t + " ".repeat(Math.max(0, width - len(t)));
      fill(
        screen,
        h("div.panel-title", null, `┌─ ${p.title} ${"─".repeat(width - len(p.title) - 1)}┐`),
        p.lines.map((l) => h("div.panel-line", null, `│ ${pad(l)} │`)),
        p.footer ? h("div.panel-footer", null, `│ ${pad(p.footer)} │`) : null,
        h("div.panel-title", null, `└${"─".repeat(width + 2)}┘`),
        h("div.panel-owner.muted", null, `${p.ext}:${p.id}`)
      );
    };
    store.on("state", render);
    return root;
  }

  // host/inspect-ui/src/views/tools.ts
  var BUILTIN = {
    read: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    write: {
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: ["path", "content"]
    },
    edit: {
      type: "object",
      properties: { path: { type: "string" }, old_text: { type: "string" }, new_text: { type: "string" } },
      required: ["path"]
    },
    bash: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }
  };
  var CONFIRMED = /* @__PURE__ */ new Set(["write", "edit", "bash"]);
  function entries() {
    const st = store.state;
    if (!st) return [];
    const ext = st.tools.map((t) => ({
      name: t.name,
      ext: t.ext,
      description: t.description,
      schema: t.schema ?? {},
      tool: t
    }));
    const builtin = st.builtin_tools.filter((n) => n in BUILTIN).map((n) => ({ name: n, ext: "built-in", description: "", schema: BUILTIN[n] }));
    const stubs = st.stubs.filter((n) => !st.tools.some((t) => t.name === n)).map((n) => ({ name: n, ext: "stub", description: "answered by you", schema: { type: "object" } }));
    return [...ext, ...stubs, ...builtin];
  }
  var SHOWN_TEXT = 64 * 1024;
  function textBlock(text) {
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
          }
        },
        "Show all"
      ),
      h("button", { onclick: () => download("result.txt", text, "text/plain") }, "Download")
    );
    return h("div", null, pre, more);
  }
  function renderResult(out) {
    return h(
      "div.result",
      { "data-test": "tool-result", class: out.is_error ? "is-error" : null },
      h(
        "div.result-head",
        null,
        h("span.badge", { class: out.is_error ? "bad" : "ok", "data-test": "tool-status" }, out.status),
        out.is_error ? h("span.badge.bad", null, "is_error") : null
      ),
      out.content.map((b) => {
        if (b.type === "text" && "text" in b) return textBlock(b.text);
        if (b.type === "image" && "data" in b)
          return h("img.block-image", { src: `data:${b.mime_type};base64,${b.data}`, alt: b.mime_type });
        return h("pre.block-other", null, JSON.stringify(b));
      }),
      out.structured_content !== null && out.structured_content !== void 0 ? [
        h("h4", null, "structured_content"),
        h("pre.json", { "data-test": "structured" }, pretty(out.structured_content))
      ] : null
    );
  }
  function waitingStubCalls() {
    const stubs = new Set(store.state?.stubs ?? []);
    const open = /* @__PURE__ */ new Map();
    for (const { o } of store.obs) {
      if (o.kind === "tool_call" && stubs.has(o.name)) open.set(o.tool_id, o);
      if (o.kind === "tool_result") open.delete(o.tool_id);
    }
    return [...open.values()];
  }
  function stubCallCard(c) {
    const text = h("textarea", { rows: 2, placeholder: "the result text", "data-test": "answer-text" });
    const isError = h("input", { type: "checkbox" });
    const structured = h("textarea.json", { rows: 2, placeholder: "structured_content (JSON, optional)" });
    const send = async () => {
      const answer = { tool: c.name, text: text.value, is_error: isError.checked };
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
        c.origin_extension ? h("span.muted", null, ` (call_tool from ${String(c.origin_extension)})`) : null
      ),
      h("pre.json", null, pretty(c.args)),
      text,
      h("label.check", null, isError, " is_error"),
      structured,
      h("button.primary", { "data-test": "answer", onclick: () => void send() }, "Send answer")
    );
  }
  function toolsView() {
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
          h("button", { onclick: () => void addStub() }, "Stub it")
        )
      ),
      h("div.tools-main", null, waiting, detail)
    );
    let selected = "";
    let shownKey = "";
    let current = null;
    let result = h("div");
    const addStub = async () => {
      const name = stubName.value.trim();
      if (!name) return;
      await store.step({ stub: name });
      stubName.value = "";
    };
    const renderList = () => {
      const es = entries();
      if (!selected && es[0]) selected = es[0].name;
      fill(
        list,
        es.map(
          (e) => h(
            "button.tool-item",
            {
              class: e.name === selected ? "selected" : null,
              "data-tool": e.name,
              onclick: () => {
                selected = e.name;
                renderList();
                renderDetail();
              }
            },
            h("span.mono", null, e.name),
            h("span.muted", null, e.ext),
            e.tool?.stub || e.ext === "stub" ? h("span.chip", null, "stub") : null
          )
        )
      );
    };
    const renderDetail = () => {
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
      const mode = (m) => {
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
        ["approve", "deny", "remember"].map((a) => h("option", { value: a }, a))
      );
      const isStub = st.stubs.includes(e.name);
      const stubToggle = e.ext === "built-in" ? null : h(
        "label.check",
        { title: "Calls of this tool (also from extensions' call_tool) wait for an answer you type" },
        h("input", {
          type: "checkbox",
          checked: isStub,
          "data-test": "stub-toggle",
          onchange: (ev) => void store.step(ev.target.checked ? { stub: e.name } : { unstub: e.name })
        }),
        " answer calls by hand (stub)"
      );
      const callBtn = h("button.primary", { "data-test": "call", onclick: () => void call(e) }, "Call");
      const cancelBtn = h(
        "button.danger",
        { "data-test": "tool-cancel", hidden: true, onclick: () => void store.cancel() },
        "Cancel"
      );
      result = h("div.result-box");
      fill(
        detail,
        h("h2.mono", null, e.name, h("span.muted", null, ` ${e.ext}`)),
        e.description ? h("p", null, e.description) : null,
        e.tool ? h(
          "div.chips",
          null,
          h("span.chip", null, e.tool.exposure),
          e.tool.interactive ? h("span.chip", null, "interactive") : null,
          e.tool.deferred ? h("span.chip", null, "deferred") : null,
          e.tool.namespace ? h("span.chip", null, `namespace ${e.tool.namespace}`) : null,
          e.tool.model_callable ? null : h("span.chip", null, "not model-callable")
        ) : null,
        stubToggle,
        h("details", null, h("summary", null, "input schema"), h("pre.json", null, pretty(e.schema))),
        e.tool?.output_schema ? h("details", null, h("summary", null, "output schema"), h("pre.json", null, pretty(e.tool.output_schema))) : null,
        h("div.tabs", null, f ? tabForm : null, tabJson),
        formBox,
        rawBox,
        h(
          "div.actions",
          null,
          CONFIRMED.has(e.name) ? [h("span", null, "confirmation: "), confirm] : null,
          callBtn,
          cancelBtn
        ),
        result
      );
      mode(current.mode);
      async function call(entry) {
        if (!current) return;
        let args;
        try {
          args = current.mode === "form" && current.form ? current.form.read() : JSON.parse(raw.value);
        } catch (err) {
          store.say(`arguments are not valid JSON: ${String(err)}`);
          return;
        }
        const spec = { name: entry.name, args };
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
    const cards = /* @__PURE__ */ new Map();
    const renderWaiting = () => {
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

  // host/inspect-ui/src/views/transcript.ts
  var MAX_ROWS = 3e3;
  function transcriptView() {
    const list = h("div.obs-list.transcript", { "data-test": "transcript" });
    const kinds = h("input", { placeholder: "kinds, e.g. note,display", size: 24 });
    const root = h(
      "div.view",
      null,
      h(
        "div.filters",
        null,
        kinds,
        h(
          "button",
          {
            onclick: async () => {
              const t = await get("/api/transcript");
              download(
                "transcript.jsonl",
                `${t.observations.map((o) => JSON.stringify(o)).join("\n")}
`,
                "application/x-ndjson"
              );
            }
          },
          "Download transcript (JSON lines)"
        )
      ),
      list
    );
    const render = () => {
      const want = kinds.value.split(",").map((k) => k.trim()).filter(Boolean);
      const obs = store.obs.filter((o) => !want.length || want.includes(o.o.kind));
      const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
      fill(
        list,
        obs.length > MAX_ROWS ? h("div.muted", null, `${obs.length - MAX_ROWS} earlier rows not shown`) : null,
        obs.slice(-MAX_ROWS).map((o) => obsRow(o.o))
      );
      if (stick) list.scrollTop = list.scrollHeight;
    };
    kinds.addEventListener("input", render);
    let pending = false;
    store.on("obs", () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        render();
      });
    });
    return root;
  }

  // host/inspect-ui/src/views/wire.ts
  var ROW = 22;
  var BIG = 256 * 1024;
  function wireView() {
    const fType = h("input", { placeholder: "type", "data-test": "filter-type", size: 14 });
    const fId = h("input", { placeholder: "id", size: 8, "data-test": "filter-id" });
    const fExt = h("select", { "data-test": "filter-ext" }, h("option", { value: "" }, "all extensions"));
    const fDir = h(
      "select",
      null,
      h("option", { value: "" }, "both ways"),
      h("option", { value: "host->ext" }, "host → ext"),
      h("option", { value: "ext->host" }, "ext → host")
    );
    const fText = h("input", { placeholder: "text", size: 14 });
    const count = h("span.muted");
    const viewport = h("div.wire-list", { "data-test": "wire-list" });
    const spacer = h("div.wire-spacer");
    const rows = h("div.wire-rows");
    viewport.append(spacer, rows);
    const detail = h("div.wire-detail", { "data-test": "wire-detail" }, h("p.muted", null, "Select a frame."));
    const root = h(
      "div.view.wire",
      null,
      h("div.filters", null, fType, fId, fExt, fDir, fText, count),
      h(
        "div.wire-head",
        null,
        h("span", null, "#"),
        h("span", null, "time"),
        h("span", null, "ext"),
        h("span", null, "dir"),
        h("span", null, "type"),
        h("span", null, "id"),
        h("span", null, "size"),
        h("span", null, "latency"),
        h("span", null, "frame")
      ),
      h("div.wire-split", null, viewport, detail)
    );
    let shown = [];
    let selected = -1;
    let follow = true;
    const matches = (f) => {
      const t = fType.value.trim();
      const id = fId.value.trim();
      const text = fText.value.trim();
      return (!t || f.type.includes(t) || (f.event ?? "").includes(t)) && (!id || f.id === id) && (!fExt.value || f.ext === fExt.value) && (!fDir.value || f.dir === fDir.value) && (!text || f.preview.includes(text));
    };
    const refilter = () => {
      shown = store.frames.filter(matches);
      count.textContent = `${shown.length} of ${store.frames.length} frames`;
      spacer.style.height = `${shown.length * ROW}px`;
      if (follow) viewport.scrollTop = viewport.scrollHeight;
      paint();
    };
    const paint = () => {
      const first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - 10);
      const last = Math.min(shown.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + 10);
      const els = [];
      for (let i = first; i < last; i++) {
        const f = shown[i];
        if (!f) continue;
        const row = h(
          "div.wire-row",
          {
            class: [
              f.dir === "host->ext" ? "out" : "in",
              f.n === selected ? "selected" : "",
              f.type === "invalid" || f.type === "oversize" ? "bad" : ""
            ].join(" "),
            "data-n": f.n,
            "data-type": f.type,
            onclick: () => void open(f)
          },
          h("span", null, String(f.n)),
          h("span", null, (f.ts / 1e3).toFixed(3)),
          h("span", null, f.ext),
          h("span", null, f.dir === "host->ext" ? "→" : "←"),
          h("span.mono", null, f.event ? `${f.type}:${f.event}` : f.type),
          h("span.mono", null, f.id ?? ""),
          h("span", null, fmtBytes(f.size)),
          h("span", null, f.latency !== void 0 ? `${f.latency.toFixed(1)} ms` : ""),
          h("span.mono.preview", null, f.preview)
        );
        row.style.top = `${i * ROW}px`;
        els.push(row);
      }
      fill(rows, els);
    };
    const open = async (f) => {
      selected = f.n;
      paint();
      fill(detail, h("div.running", null, `loading frame ${f.n}…`));
      let text;
      try {
        text = await getText(`/api/frame/${f.n}`);
      } catch (e) {
        fill(detail, h("div.error", null, String(e instanceof Error ? e.message : e)));
        return;
      }
      let body;
      try {
        body = pretty(JSON.parse(text), f.size > BIG ? 2e3 : 1e6);
      } catch {
        body = text.length > BIG ? `${text.slice(0, BIG)}… (${text.length - BIG} more characters)` : text;
      }
      const reply = f.reply_to !== void 0 ? h("span", null, `reply to #${f.reply_to} after ${f.latency?.toFixed(1)} ms`) : null;
      fill(
        detail,
        h(
          "div.frame-meta",
          null,
          h("strong", null, `#${f.n} ${f.type}`),
          h("span", null, `${f.dir} ${f.ext}`),
          h("span", null, `${(f.ts / 1e3).toFixed(3)} s`),
          h("span", null, fmtBytes(f.size)),
          reply,
          h("button", { onclick: () => download(`frame-${f.n}.json`, text) }, "Download")
        ),
        f.size > BIG ? h("p.muted", null, "A large frame: strings over 2000 characters are cut here; Download has the whole frame.") : null,
        h("pre.json", { "data-test": "frame-json" }, body)
      );
    };
    viewport.addEventListener("scroll", () => {
      follow = viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - ROW;
      paint();
    });
    for (const el of [fType, fId, fText]) el.addEventListener("input", refilter);
    for (const el of [fExt, fDir]) el.addEventListener("change", refilter);
    let pending = false;
    store.on("frames", () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        refilter();
      });
    });
    store.on("state", () => {
      const names = store.state?.extensions.map((e) => e.name) ?? [];
      const have = [...fExt.options].map((o) => o.value);
      for (const n of names) if (!have.includes(n)) fExt.append(h("option", { value: n }, n));
    });
    new ResizeObserver(paint).observe(viewport);
    return root;
  }

  // host/inspect-ui/src/main.ts
  var TABS = [
    ["extensions", "Extensions", extensionsView],
    ["tools", "Tools", toolsView],
    ["commands", "Commands", commandsView],
    ["panel", "Panel", panelView],
    ["events", "Events", eventsView],
    ["wire", "Wire", wireView],
    ["transcript", "Transcript", transcriptView]
  ];
  function notesBox() {
    const box = h("div.notes", { "data-test": "notes" });
    store.on("obs", () => {
      const notes = [];
      for (const { o } of store.obs) {
        if (o.kind === "note" || o.kind === "display")
          notes.push({ ext: String(o.ext), text: String(o.text), level: String(o.level ?? "display") });
        if (o.kind === "notes_cleared") {
          for (let i = notes.length - 1; i >= 0; i--) if (notes[i]?.ext === o.ext) notes.splice(i, 1);
        }
        if (o.kind === "session" || o.kind === "reload") notes.length = 0;
      }
      fill(
        box,
        h("h4", null, "Notes"),
        notes.length ? notes.slice(-30).map((n) => h("div.note", { class: `lv-${n.level}` }, h("span.muted", null, `[${n.ext}] `), n.text)) : h("div.muted", null, "none")
      );
    });
    return box;
  }
  function header() {
    const session = h("span.session.muted");
    const running = h("span.running-step", { "data-test": "running" });
    const cancel = h(
      "button.danger",
      { hidden: true, "data-test": "cancel", onclick: () => void store.cancel() },
      "Cancel"
    );
    const status = h("div.status-line", { "data-test": "status-line" });
    const notice = h("div.notice", { "data-test": "notice" });
    const exportBtn = h(
      "button",
      {
        "data-test": "export",
        title: "The session as a script that zot-host run replays with the same transcript",
        onclick: async () => download("session.json", await getText("/api/export"))
      },
      "Export script"
    );
    store.on("state", () => {
      const st = store.state;
      if (!st) return;
      session.textContent = `${st.session.id} · ${st.session.mode} · ${st.session.cwd} · ${st.steps} steps${st.closed ? " · ended" : ""}`;
      const r = st.running;
      running.textContent = r ? `running: ${JSON.stringify(r).slice(0, 120)}` : "";
      cancel.hidden = !(r && "call" in r);
    });
    store.on("obs", () => {
      const last = [...store.obs].reverse().find((o) => o.o.kind === "status" || o.o.kind === "warning");
      status.textContent = last ? describe(last.o) : "";
      status.className = `status-line lv-${String(last?.o.level ?? "warn")}`;
    });
    store.on("notice", () => {
      notice.textContent = store.notice;
      notice.hidden = !store.notice;
    });
    notice.addEventListener("click", () => store.say(""));
    return h(
      "header.top",
      null,
      h("h1", null, "zot-host inspect"),
      session,
      h("span.spacer"),
      running,
      cancel,
      h(
        "button",
        {
          onclick: () => void store.step({ reload: true }),
          title: "Stop every extension and load them again (/reload-ext)"
        },
        "Reload extensions"
      ),
      exportBtn,
      h("div.lines", null, status, notice)
    );
  }
  function main() {
    const app = document.getElementById("app");
    if (!app) return;
    const nav = h("nav.tabs-nav");
    const views = h("main.views");
    const panes = /* @__PURE__ */ new Map();
    const select = (id) => {
      for (const [k, el] of panes) el.hidden = k !== id;
      for (const b of nav.querySelectorAll("button")) b.classList.toggle("on", b.dataset.tab === id);
      history.replaceState(null, "", `${location.pathname}${location.search}#${id}`);
    };
    for (const [id, title, make] of TABS) {
      const el = make();
      el.hidden = true;
      panes.set(id, el);
      views.append(el);
      nav.append(h("button", { "data-tab": id, onclick: () => select(id) }, title));
    }
    fill(app, header(), h("div.body", null, h("aside.side", null, nav, notesBox()), views));
    const first = location.hash.slice(1);
    select(panes.has(first) ? first : "extensions");
    store.start().catch((e) => store.say(`cannot reach zot-host inspect: ${e instanceof Error ? e.message : String(e)}`));
  }
  main();
})();
