// A client of mesh-mcp written with the official TypeScript SDK: nobody here wrote its protocol code.
// argv: the server's command line (a JSON array), then the calls to make (a JSON array of [name, args]).
// Prints one JSON object: the negotiated protocol version, each tool's outputSchema, and each call's
// outcome. The SDK validates a successful result of a tool with an outputSchema against it (with
// ajv) and throws when it does not conform or carries no structuredContent: such a call is reported
// with `thrown`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.argv[2]);
const calls = JSON.parse(process.argv[3]);
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
// The client hands the negotiated version to a transport that takes one (HTTP's do): keep it.
let version = null;
transport.setProtocolVersion = (negotiated) => {
  version = negotiated;
};
const client = new Client({ name: "mesh-journey-ts", version: "0" });
await client.connect(transport);
const out = { version, tools: {}, calls: [] };
const listed = await client.listTools();
for (const tool of listed.tools) out.tools[tool.name] = tool.outputSchema ?? null;
for (const [name, callArgs] of calls) {
  try {
    const result = await client.callTool({ name, arguments: callArgs });
    out.calls.push({
      name,
      isError: Boolean(result.isError),
      structured: result.structuredContent ?? null,
      text: result.content?.[0]?.text ?? "",
    });
  } catch (error) {
    out.calls.push({ name, thrown: String(error) });
  }
}
await client.close();
process.stdout.write(JSON.stringify(out));
