"""`policy mcp-proxy`: an MCP server that fronts another one and enforces a policy on its tool calls.

`proxy` holds the server (official `mcp` SDK), `approval` asks through MCP elicitation, `lock` pins
tool descriptions, `filtering` hides tools no call could run. Needs the `mcp` extra
(`pip install "toolpolicy[mcp]"`); see docs/mcp-proxy.md.
"""
