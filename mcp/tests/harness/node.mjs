// `zot-mcp wrap` over the official MCP test server
// (@modelcontextprotocol/server-everything), driven through the Node SDK's
// testing harness (`TestHost.spawn` of `zot-ext/testing`): the registered
// tools, echo, a structured-content tool, a clean exit.
//
// Usage: node node.mjs ZOT_MCP SERVER_JS

import assert from "node:assert/strict";

import { TestHost } from "zot-ext/testing";

const [zotMcp, server] = process.argv.slice(2);
const host = await TestHost.spawn(zotMcp, ["wrap", "--", "node", server, "stdio"]);
try {
  const tools = host.registration.tools.map((t) => t.name);
  for (const want of ["echo", "get-sum", "get-structured-content"]) {
    assert.ok(tools.includes(want), `${want} not in ${tools}`);
  }
  assert.equal(host.registration.hello.name, "mcp-servers/everything", "the server's name");
  assert.deepEqual((await host.tool("echo", { message: "hi" })).content, [{ type: "text", text: "Echo: hi" }]);
  const weather = await host.tool("get-structured-content", { location: "New York" });
  assert.equal(weather.is_error, undefined);
  assert.equal(typeof weather.structured_content.temperature, "number");
  assert.equal((await host.shutdown()).at(-1).type, "shutdown_ack");
  await host.finished;
  console.log(`Node TestHost.spawn: ${tools.length} tools registered, echo and structured content checked`);
} finally {
  await host.close();
}
