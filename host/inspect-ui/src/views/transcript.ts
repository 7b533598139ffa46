// What a user of the host would see, step by step (the transcript
// `zot-host run --json` prints), newest last.

import { get } from "../api";
import { download, fill, h } from "../dom";
import { obsRow } from "../observe";
import { store } from "../store";

/** Rows drawn at most (the whole transcript is in the download). */
const MAX_ROWS = 3000;

export function transcriptView(): HTMLElement {
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
            const t = await get<{ observations: unknown[] }>("/api/transcript");
            download(
              "transcript.jsonl",
              `${t.observations.map((o) => JSON.stringify(o)).join("\n")}\n`,
              "application/x-ndjson",
            );
          },
        },
        "Download transcript (JSON lines)",
      ),
    ),
    list,
  );
  const render = (): void => {
    const want = kinds.value
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean);
    const obs = store.obs.filter((o) => !want.length || want.includes(o.o.kind));
    const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
    fill(
      list,
      obs.length > MAX_ROWS ? h("div.muted", null, `${obs.length - MAX_ROWS} earlier rows not shown`) : null,
      obs.slice(-MAX_ROWS).map((o) => obsRow(o.o)),
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
