// zot-host inspect in a real browser: Debian's Chromium driven by
// playwright-core (no browser download), against the Rust conformance
// extension. The tests run in order on one page and one session, as a
// person would use it; the last one exports the session and replays it
// with `zot-host run`, which must print the same transcript.
//
// Environment: ZOT_HOST (the zot-host binary), CHROMIUM (default
// /usr/bin/chromium), ZOT_INSPECT_SHOTS (screenshot folder, default
// target/inspect-screenshots).

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, test as nodeTest } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const TARGET = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
const HOST = process.env.ZOT_HOST ?? join(TARGET, "debug/zot-host");
const SHOTS = process.env.ZOT_INSPECT_SHOTS ?? join(TARGET, "inspect-screenshots");
const EXT = join(ROOT, "tests/conformance/rust");

let tmp, project, server, url, base, token, browser, page, model, pageSocket;
const serverOutput = [];
const modelRequests = [];

/** Lets the model's first streamed reply go on past its first line. */
let releaseFirstReply;
const firstReplyReleased = new Promise((ok) => (releaseFirstReply = ok));

/** A live model on 127.0.0.1 speaking the OpenAI chat completions API: it
 * says it is thinking and calls the extension's echo tool once, then answers
 * with what it saw. Asked to stream, it sends server-sent events, and the
 * first reply stops after its first line until the test releases it. */
async function mockModel() {
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      const chat = JSON.parse(body);
      modelRequests.push(chat);
      const result = chat.messages.findLast((m) => m.role === "tool");
      const call = {
        id: "call_1",
        type: "function",
        function: { name: "echo", arguments: JSON.stringify({ text: "from the model" }) },
      };
      if (!chat.stream) {
        const message = result
          ? { role: "assistant", content: `the model saw: ${result.content}` }
          : { role: "assistant", content: "Let me think about it.", tool_calls: [call] };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ choices: [{ index: 0, message, finish_reason: "stop" }] }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (delta, finish_reason = null) =>
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason }] })}\n\n`);
      if (result) {
        send({ content: "the model saw: " });
        send({ content: result.content }, "stop");
      } else {
        send({ role: "assistant", content: "Let me think" });
        send({ content: " about it.\n" });
        await firstReplyReleased;
        send({ tool_calls: [{ index: 0, ...call }] }, "tool_calls");
      }
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise((ok) => srv.listen(0, "127.0.0.1", ok));
  return srv;
}

async function shot(name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

async function tab(name) {
  await page.click(`nav button[data-tab=${name}]`);
}

/** GET with raw headers (fetch may not set Host or Origin freely). */
function raw(path, headers) {
  return new Promise((ok, fail) => {
    const u = new URL(path, base);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => ok({ status: res.statusCode, body }));
    });
    req.on("error", fail);
    req.end();
  });
}

async function api(path) {
  const res = await fetch(new URL(path, base), { headers: { "x-zot-token": token } });
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return res.json();
}

/**
 * A test that, when it fails, prints what the host printed and the last
 * frames on its wire: a failure seen only in CI can then be read from the
 * log instead of guessed at.
 */
function test(name, body) {
  nodeTest(name, async (t) => {
    try {
      await body(t);
    } catch (e) {
      console.error(`--- ${name}: zot-host output (last 60 lines) ---`);
      console.error(serverOutput.join("").split("\n").slice(-60).join("\n"));
      try {
        const frames = await api("/api/frames?from=0");
        console.error(`--- the last 30 of ${frames.length} frames ---`);
        for (const f of frames.slice(-30)) console.error(`${f.dir} ${f.type} ${String(f.preview).slice(0, 200)}`);
      } catch (fe) {
        console.error(`(the frames could not be read: ${fe})`);
      }
      throw e;
    }
  });
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  tmp = mkdtempSync(join(tmpdir(), "zot-inspect-"));
  project = join(tmp, "project");
  mkdirSync(project);
  model = await mockModel();
  const modelUrl = `http://127.0.0.1:${model.address().port}/v1`;
  const args = ["inspect", "--ext", EXT, "--no-ext", "--cwd", project, "--zot-home", join(tmp, "home")];
  server = spawn(HOST, [...args, "--model-url", modelUrl, "--model", "mock-model"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stderr.on("data", (d) => serverOutput.push(String(d)));
  url = await new Promise((ok, fail) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      serverOutput.push(String(d));
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/);
      if (m) ok(m[0]);
    });
    server.on("exit", (code) => fail(new Error(`zot-host inspect exited (${code}): ${serverOutput.join("")}`)));
  });
  const u = new URL(url);
  base = `${u.protocol}//${u.host}`;
  token = u.searchParams.get("token");
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    // Root in CI containers: Chromium's sandbox needs user namespaces.
    args: ["--no-sandbox"],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  // The page's socket to zot-host, passed through; a test can also speak
  // as the server on it.
  await page.routeWebSocket(/\/ws\?/, (ws) => {
    pageSocket = ws;
    ws.connectToServer();
  });
  page.setDefaultTimeout(20_000);
});

after(async () => {
  await browser?.close();
  model?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((ok) => server.on("exit", ok));
    server.kill("SIGINT");
    await exited;
  }
  rmSync(tmp, { recursive: true, force: true });
});

test("requests without the token, from another origin or for another host are refused", async () => {
  const host = new URL(base).host;
  const none = await raw("/api/state", { host });
  assert.equal(none.status, 403);
  assert.match(none.body, /no token/);
  assert.equal((await raw("/api/state?token=0000", { host })).status, 403);
  assert.equal((await raw("/", { host })).status, 403, "the page itself needs the token");
  const evil = await raw(`/api/state?token=${token}`, { host, origin: "http://evil.example" });
  assert.equal(evil.status, 403);
  assert.match(evil.body, /another origin/);
  assert.equal((await raw(`/api/state?token=${token}`, { host: "evil.example" })).status, 403, "DNS rebinding");
  const ws = await raw("/ws", {
    host,
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
  });
  assert.equal(ws.status, 403, "the WebSocket needs the token too");
  assert.equal((await raw(`/api/state?token=${token}`, { host, origin: base })).status, 200);
});

test("the page shows the extension's handshake, registrations and live stderr", async () => {
  await page.goto(url);
  const card = page.locator("[data-ext=conformance]");
  await card.waitFor();
  await assert.doesNotReject(card.getByText("tool_cancel", { exact: true }).waitFor());
  await page.locator("[data-log=conformance]", { hasText: "conformance started" }).waitFor();
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText (the text as rendered), not the DOM property
  const text = await card.innerText();
  for (const want of ["callecho", "compose", "before_agent_start", "subagent_stop", "ready"])
    assert.ok(text.includes(want), `${want} in ${text}`);
  await shot("extensions");
});

test("a tool is called through the form generated from its schema", async () => {
  await tab("tools");
  await page.click("[data-tool=echo]");
  await page.fill("[data-field=text]", "hello from the form");
  await page.click("[data-test=call]");
  const result = page.locator("[data-test=tool-result]");
  await result.getByText("hello from the form").waitFor();
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, not the DOM property
  assert.equal(await page.locator("[data-test=tool-status]").innerText(), "completed");

  await page.click("[data-tool=add]");
  await page.fill("[data-field=a]", "2");
  await page.fill("[data-field=b]", "40");
  await page.click("[data-test=call]");
  await page.locator("[data-test=structured]", { hasText: '"sum": 42' }).waitFor();

  await page.click("[data-tool=image]");
  await page.click("[data-test=call]");
  const img = page.locator("[data-test=tool-result] img");
  await img.waitFor();
  assert.match(await img.getAttribute("src"), /^data:image\/png;base64,iVBOR/);

  await page.click("[data-tool=fail]");
  await page.click("[data-test=call]");
  await page.locator("[data-test=tool-result].is-error", { hasText: "boom" }).waitFor();
  await shot("tools");
});

test("a command runs and its response action is shown", async () => {
  await tab("commands");
  await page.fill("[data-test=command-input]", "/echo hi there");
  await page.click("[data-test=run-command]");
  const run = page.locator("[data-test=command-run]").first();
  await run.locator("[data-test=action]", { hasText: "display" }).waitFor();
  await run.getByText("[conformance] hi there").waitFor();
  await page.fill("[data-test=command-input]", "/oops bad input");
  await page.click("[data-test=run-command]");
  await page.locator("[data-test=command-run]").first().locator("[data-test=action]", { hasText: "error" }).waitFor();
  await page.fill("[data-test=command-input]", "/note a note for the notes area");
  await page.click("[data-test=run-command]");
  await page.locator("[data-test=notes]", { hasText: "a note for the notes area" }).waitFor();
  await shot("commands");
});

test("a prompt goes to the live model, whose text shows as it streams and whose tool call reaches the extension", async () => {
  await tab("commands");
  await page.fill("[data-test=command-input]", "please echo something");
  await page.click("[data-test=run-command]");
  const run = page.locator("[data-test=command-run]").first();
  // The streamed text shows while the reply is still under way.
  await run.locator("[data-test=streamed]", { hasText: "Let me think about it." }).waitFor();
  releaseFirstReply();
  await run.getByText("the model saw: from the model").waitFor();
  assert.equal(modelRequests.length, 2);
  assert.equal(modelRequests[0].model, "mock-model");
  assert.ok(
    modelRequests[0].tools.some((t) => t.function.name === "echo"),
    "the extension's tools are offered to the model",
  );
  assert.deepEqual(modelRequests[1].messages.at(-1), {
    role: "tool",
    tool_call_id: "call_1",
    content: "from the model",
  });
  await shot("prompt");
});

test("a panel opens and is driven by the keyboard", async () => {
  await page.fill("[data-test=command-input]", "/panel");
  await page.click("[data-test=run-command]");
  await page
    .locator("[data-test=command-run]")
    .first()
    .locator("[data-test=action]", { hasText: "open_panel" })
    .waitFor();
  await tab("panel");
  const panel = page.locator("[data-test=panel]");
  await panel.getByText("Counter").waitFor();
  await panel.focus();
  await page.keyboard.press("ArrowUp");
  await panel.getByText("│ 1").waitFor();
  await page.keyboard.press("ArrowUp");
  await panel.getByText("│ 2").waitFor();
  await page.keyboard.press("ArrowDown");
  await panel.getByText("│ 1").waitFor();
  await shot("panel");
  await page.keyboard.press("q");
  await panel.getByText("No panel is open").waitFor();
});

test("a lifecycle event and an interception are fired with editable payloads", async () => {
  await tab("events");
  await page.selectOption("[data-test=emit-name]", "subagent_start");
  const prefilled = JSON.parse(await page.inputValue("[data-test=emit-payload]"));
  assert.equal(prefilled.event, "subagent_start");
  assert.ok("agent_run_id" in prefilled && "agent_id" in prefilled, JSON.stringify(prefilled));
  prefilled.agent_id = "from-the-page";
  await page.fill("[data-test=emit-payload]", JSON.stringify(prefilled));
  await page.click("[data-test=emit-fire]");
  await page.locator("[data-test=emit-out] [data-test=fired]", { hasText: "1 subscriber" }).waitFor();

  await page.selectOption("[data-test=intercept-name]", "tool_call");
  const req = JSON.parse(await page.inputValue("[data-test=intercept-payload]"));
  assert.equal(req.event, "tool_call");
  assert.ok("tool_args" in req && "tool_name" in req, JSON.stringify(req));
  req.tool_name = "bash";
  req.tool_args = { command: "rm -rf /" };
  await page.fill("[data-test=intercept-payload]", JSON.stringify(req));
  await page.click("[data-test=intercept-fire]");
  const verdict = page.locator("[data-test=intercept-out] [data-test=verdict]");
  await verdict.getByText("block").waitFor();
  await verdict.getByText("refused: rm -rf").waitFor();
  await page.locator("[data-test=intercept-out] table.frames", { hasText: "event_intercept_response" }).waitFor();

  req.tool_args = { command: "ls" };
  await page.fill("[data-test=intercept-payload]", JSON.stringify(req));
  await page.click("[data-test=intercept-fire]");
  await page.locator("[data-test=intercept-out] [data-test=verdict]", { hasText: "echo GUARDED: ls" }).waitFor();

  // The extension saw the event with the page's payload.
  await tab("commands");
  await page.fill("[data-test=command-input]", "/events");
  await page.click("[data-test=run-command]");
  await page.locator("[data-test=command-run]").first().getByText("subagent_start").first().waitFor();
  await tab("events");
  await shot("events");
});

test("a running sleep is cancelled from the page", async () => {
  await tab("tools");
  await page.click("[data-tool=sleep]");
  await page.fill("[data-field=ms]", "60000");
  await page.click("[data-test=call]");
  await page.locator("[data-test=tool-running]").waitFor();
  // Cancel once the call is in flight (its tool_call frame was written).
  await page.waitForFunction(async () => {
    const token = new URLSearchParams(location.search).get("token");
    const frames = await (await fetch("/api/frames?from=0", { headers: { "x-zot-token": token } })).json();
    return frames.some((f) => f.type === "tool_call" && f.dir === "host->ext" && f.preview.includes('"sleep"'));
  });
  await page.click("[data-test=tool-cancel]");
  await page.locator("[data-test=tool-status]", { hasText: "cancelled" }).waitFor();
  await page.locator("[data-test=notes]", { hasText: "cancelled 60000" }).waitFor();
  await shot("cancelled");
});

test("a call_tool is answered by a reply typed in the page", async () => {
  await page.click("[data-tool=echo]");
  await page.check("[data-test=stub-toggle]");
  await page.locator("[data-tool=echo] .chip", { hasText: "stub" }).waitFor();
  await tab("commands");
  await page.fill("[data-test=command-input]", "/callecho ping");
  await page.click("[data-test=run-command]");
  await tab("tools");
  const waiting = page.locator("[data-test=stub-call][data-tool=echo]");
  await waiting.getByText("call_tool from conformance").waitFor();
  await waiting.locator("[data-test=answer-text]").fill("pong from the page");
  // The page redraws on every observation that arrives while the call
  // waits; the typed answer survives it. The server resends an observation
  // the page has (as after a lag), then a log line: the page handles its
  // socket's messages in order, so once the line shows the redraw is done.
  pageSocket.send(JSON.stringify({ t: "obs", n: 0, ts: 0, o: { kind: "notify", message: "again" } }));
  pageSocket.send(JSON.stringify({ t: "log", ext: "conformance", text: "marker after the resent observation" }));
  await page.locator("[data-log=conformance]", { hasText: "marker after the resent observation" }).waitFor({
    state: "attached",
  });
  assert.equal(await waiting.locator("[data-test=answer-text]").inputValue(), "pong from the page");
  await shot("stub");
  await waiting.locator("[data-test=answer]").click();
  await tab("commands");
  await page
    .locator("[data-test=command-run]")
    .first()
    .locator(".obs", { hasText: "called:pong from the page" })
    .waitFor();
  await tab("tools");
  await page.click("[data-tool=echo]");
  await page.uncheck("[data-test=stub-toggle]");
  await page.locator("[data-tool=echo] .chip", { hasText: "stub" }).waitFor({ state: "detached" });
});

test("a 4 MiB frame is listed and opened without loading it whole into the page", async () => {
  await page.click("[data-tool=big]");
  // The largest result that fits the 4 MiB frame limit.
  await page.fill("[data-field=bytes]", String(4 * 1024 * 1024 - 200));
  await page.click("[data-test=call]");
  await page.locator("[data-test=tool-result]", { hasText: "more" }).waitFor();
  await tab("wire");
  await page.fill("[data-test=filter-type]", "tool_result");
  const big = page.locator(".wire-row", { hasText: "4.0 MiB" }).last();
  await big.waitFor();
  await big.click();
  const json = page.locator("[data-test=frame-json]");
  await json.getByText("more characters").waitFor();
  const shown = await json.evaluate((el) => el.textContent.length);
  assert.ok(shown < 100_000, `the frame view holds ${shown} characters`);
  // The page still answers.
  assert.equal(await page.evaluate(() => 1 + 1), 2);
  await page.fill("[data-test=filter-type]", "");
  await shot("wire");
});

test("one extension is restarted from its card and works again", async () => {
  await tab("extensions");
  await page.click("[data-ext=conformance] [data-test=restart]");
  await tab("transcript");
  await page.locator("[data-test=transcript]").getByText("restarted conformance: ready").waitFor();
  await tab("tools");
  await page.click("[data-tool=echo]");
  await page.fill("[data-field=text]", "after the restart");
  await page.click("[data-test=call]");
  await page.locator("[data-test=tool-result]").getByText("after the restart").waitFor();
});

test("the exported script replays with zot-host run to the same transcript", async () => {
  await tab("transcript");
  await page.locator("[data-test=transcript] [data-kind=tool_result]").first().waitFor();
  await shot("transcript");
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("[data-test=export]")]);
  const script = join(tmp, "session.json");
  await download.saveAs(script);
  const exported = JSON.parse(readFileSync(script, "utf8"));
  const kinds = exported.steps.map((s) => Object.keys(s).filter((k) => k !== "wait")[0]);
  for (const k of ["call", "command", "key", "emit", "intercept", "stub", "answer", "unstub"])
    assert.ok(kinds.includes(k), `${k} step in ${kinds}`);
  const live = (await api("/api/transcript")).observations;
  const out = execFileSync(
    HOST,
    [
      "run",
      "--script",
      script,
      "--ext",
      EXT,
      "--no-ext",
      "--json",
      "--cwd",
      project,
      "--zot-home",
      join(tmp, "replay-home"),
    ],
    {
      encoding: "utf8",
      maxBuffer: 64 << 20,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // The replay's own ending (the extensions stopping when its script is
  // done) is what the live session, still running, has not had yet; the
  // homes differ only in their paths.
  const home = (obs, dir) => JSON.parse(JSON.stringify(obs).replaceAll(join(tmp, dir), "<home>"));
  const replay = out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  while (replay.at(-1)?.kind === "exited") replay.pop();
  assert.deepEqual(home(replay, "replay-home"), home(live, "home"));
});
