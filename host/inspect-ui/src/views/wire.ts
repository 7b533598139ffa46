// The wire: every frame both ways with its time, size and, for replies, the
// latency since its request. The list is virtual (only the rows in view
// exist), and a frame's JSON is fetched and pretty-printed only when it is
// opened, so 4 MiB frames and long sessions do not slow the page.

import { getText } from "../api";
import { download, fill, fmtBytes, h, pretty } from "../dom";
import { type Frame, store } from "../store";

const ROW = 22;
/** Frames over this are shown with long strings cut (download for the whole). */
const BIG = 256 * 1024;

export function wireView(): HTMLElement {
  const fType = h("input", { placeholder: "type", "data-test": "filter-type", size: 14 });
  const fId = h("input", { placeholder: "id", size: 8, "data-test": "filter-id" });
  const fExt = h("select", { "data-test": "filter-ext" }, h("option", { value: "" }, "all extensions"));
  const fDir = h(
    "select",
    null,
    h("option", { value: "" }, "both ways"),
    h("option", { value: "host->ext" }, "host → ext"),
    h("option", { value: "ext->host" }, "ext → host"),
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
      h("span", null, "frame"),
    ),
    h("div.wire-split", null, viewport, detail),
  );
  let shown: Frame[] = [];
  let selected = -1;
  let follow = true;

  const matches = (f: Frame): boolean => {
    const t = fType.value.trim();
    const id = fId.value.trim();
    const text = fText.value.trim();
    return (
      (!t || f.type.includes(t) || (f.event ?? "").includes(t)) &&
      (!id || f.id === id) &&
      (!fExt.value || f.ext === fExt.value) &&
      (!fDir.value || f.dir === fDir.value) &&
      (!text || f.preview.includes(text))
    );
  };

  const refilter = (): void => {
    shown = store.frames.filter(matches);
    count.textContent = `${shown.length} of ${store.frames.length} frames`;
    spacer.style.height = `${shown.length * ROW}px`;
    if (follow) viewport.scrollTop = viewport.scrollHeight;
    paint();
  };

  const paint = (): void => {
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - 10);
    const last = Math.min(shown.length, Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + 10);
    const els: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const f = shown[i];
      if (!f) continue;
      const row = h(
        "div.wire-row",
        {
          class: [
            f.dir === "host->ext" ? "out" : "in",
            f.n === selected ? "selected" : "",
            f.type === "invalid" || f.type === "oversize" ? "bad" : "",
          ].join(" "),
          "data-n": f.n,
          "data-type": f.type,
          onclick: () => void open(f),
        },
        h("span", null, String(f.n)),
        h("span", null, (f.ts / 1000).toFixed(3)),
        h("span", null, f.ext),
        h("span", null, f.dir === "host->ext" ? "→" : "←"),
        h("span.mono", null, f.event ? `${f.type}:${f.event}` : f.type),
        h("span.mono", null, f.id ?? ""),
        h("span", null, fmtBytes(f.size)),
        h("span", null, f.latency !== undefined ? `${f.latency.toFixed(1)} ms` : ""),
        h("span.mono.preview", null, f.preview),
      );
      // Through the CSSOM: the page's CSP allows no inline style attributes.
      row.style.top = `${i * ROW}px`;
      els.push(row);
    }
    fill(rows, els);
  };

  const open = async (f: Frame): Promise<void> => {
    selected = f.n;
    paint();
    fill(detail, h("div.running", null, `loading frame ${f.n}…`));
    let text: string;
    try {
      text = await getText(`/api/frame/${f.n}`);
    } catch (e) {
      fill(detail, h("div.error", null, String(e instanceof Error ? e.message : e)));
      return;
    }
    let body: string;
    try {
      body = pretty(JSON.parse(text), f.size > BIG ? 2000 : 1_000_000);
    } catch {
      body = text.length > BIG ? `${text.slice(0, BIG)}… (${text.length - BIG} more characters)` : text;
    }
    const reply =
      f.reply_to !== undefined ? h("span", null, `reply to #${f.reply_to} after ${f.latency?.toFixed(1)} ms`) : null;
    fill(
      detail,
      h(
        "div.frame-meta",
        null,
        h("strong", null, `#${f.n} ${f.type}`),
        h("span", null, `${f.dir} ${f.ext}`),
        h("span", null, `${(f.ts / 1000).toFixed(3)} s`),
        h("span", null, fmtBytes(f.size)),
        reply,
        h("button", { onclick: () => download(`frame-${f.n}.json`, text) }, "Download"),
      ),
      f.size > BIG
        ? h("p.muted", null, "A large frame: strings over 2000 characters are cut here; Download has the whole frame.")
        : null,
      h("pre.json", { "data-test": "frame-json" }, body),
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
    // Many frames in a burst: one repaint per animation frame.
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
