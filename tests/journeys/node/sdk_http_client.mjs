// A Streamable HTTP client of mesh-mcp written with the official TypeScript SDK
// (StreamableHTTPClientTransport): nobody here wrote its protocol code.
// argv: the server's MCP URL, then a plan (JSON):
//   {"version": "<the protocolVersion initialize asks for>", "calls": [[name, args], ...],
//    "logLevel": "<level for logging/setLevel>", "logTrigger": [name, args], "waitMs": <deadline>}
// The SDK's Client always asks for its latest revision; to negotiate an older one, the initialize
// request is rewritten on its way to the transport (nothing else is touched): the SDK then checks
// the server's answer is a revision it supports and sends it as MCP-Protocol-Version.
// Prints one JSON object: the negotiated version, whether a session id came, the server's
// capabilities, each tool's outputSchema, each call's outcome (the SDK validates structuredContent
// against the outputSchema with ajv and throws when it is missing or does not conform: `thrown`),
// the notifications/message received after logging/setLevel, every HTTP exchange the transport made
// (method, status, the session id and protocol version it carried), the errors the client reported
// before it ended the session, and what became of a request sent with the session id after DELETE.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const url = new URL(process.argv[2]);
const plan = JSON.parse(process.argv[3]);
const exchanges = [];
const errors = [];

// Every HTTP exchange, as the transport made it: method, status, the session id it carried.
function recordingFetch(label) {
  return async (input, init) => {
    const response = await fetch(input, init);
    const headers = new Headers(init?.headers);
    exchanges.push({
      transport: label,
      method: init?.method ?? "GET",
      status: response.status,
      session: headers.get("mcp-session-id"),
      protocolVersion: headers.get("mcp-protocol-version"),
      contentType: response.headers.get("content-type"),
    });
    return response;
  };
}

function describe(error) {
  return { code: error?.code ?? null, message: String(error?.message ?? error) };
}

const transport = new StreamableHTTPClientTransport(url, {
  fetch: recordingFetch("main"),
  reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
});
const send = transport.send.bind(transport);
transport.send = (message, options) => {
  if (message.method === "initialize") {
    message = { ...message, params: { ...message.params, protocolVersion: plan.version } };
  }
  return send(message, options);
};
const client = new Client({ name: "mesh-journey-ts-http", version: "0" });
client.onerror = (error) => errors.push(describe(error));
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
  logs.push(notification.params);
});

await client.connect(transport);
const out = {
  asked: plan.version,
  version: transport.protocolVersion ?? null,
  sessionId: transport.sessionId ?? null,
  capabilities: client.getServerCapabilities() ?? null,
  tools: {},
  calls: [],
  logs,
  exchanges,
  errors,
};
const listed = await client.listTools();
for (const tool of listed.tools) out.tools[tool.name] = tool.outputSchema ?? null;
for (const [name, callArgs] of plan.calls) {
  try {
    const result = await client.callTool({ name, arguments: callArgs });
    out.calls.push({
      name,
      isError: Boolean(result.isError),
      structured: result.structuredContent ?? null,
      text: result.content?.[0]?.text ?? "",
    });
  } catch (error) {
    out.calls.push({ name, thrown: describe(error) });
  }
}

if (plan.logLevel) {
  out.setLevel = await client.setLoggingLevel(plan.logLevel);
  const [name, callArgs] = plan.logTrigger;
  try {
    await client.callTool({ name, arguments: callArgs });
    out.trigger = { thrown: null };
  } catch (error) {
    out.trigger = { thrown: describe(error) };
  }
  // The message travels on the GET stream, not with the call's answer: wait for it, with a deadline.
  const deadline = Date.now() + (plan.waitMs ?? 10000);
  while (logs.length === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
}

// DELETE, then the old session id on a fresh transport (the SDK skips initialize when given one).
// Errors the client saw before it ended the session (closing aborts the GET stream: not counted).
out.errors = [...errors];
const ended = transport.sessionId;
await transport.terminateSession();
out.sessionAfterDelete = transport.sessionId ?? null;
await client.close();
const stale = new StreamableHTTPClientTransport(url, { sessionId: ended, fetch: recordingFetch("stale") });
const staleClient = new Client({ name: "mesh-journey-ts-http-stale", version: "0" });
staleClient.onerror = () => {};
await staleClient.connect(stale);
try {
  await staleClient.ping();
  out.afterDelete = { thrown: null };
} catch (error) {
  out.afterDelete = { thrown: describe(error) };
}
await staleClient.close();
process.stdout.write(JSON.stringify(out));
