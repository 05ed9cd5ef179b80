"""Drives `coderd mcp` with the official Python MCP SDK's stdio client: initialize, list the tools,
call read, patch, search, and check a tool error. Usage: mcp_client.py CODERD ROOT SOCKET.
Prints one line per check; exits non-zero on the first failure."""
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters, stdio_client

coderd, root, socket = sys.argv[1:4]


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        sys.exit(1)


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def main():
    params = StdioServerParameters(command=coderd, args=["mcp", "--root", root, "--socket", socket])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "coderd", "initialize names coderd", init.server_info)
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ["read", "patch", "search", "tree", "write", "multipatch"]:
                check(name in tools, f"tools/list has {name}", sorted(tools))
            check("shutdown" not in tools, "tools/list leaves out shutdown")
            check(tools["read"].annotations.read_only_hint is True, "read is read_only_hint")
            check(tools["patch"].annotations.destructive_hint is True, "patch is destructive_hint")
            check("file" in tools["read"].input_schema["properties"], "read's input schema has `file`")

            r = await session.call_tool("read", {"file": "main.go", "start": 7, "end": 7})
            check(not r.is_error and json.loads(text_of(r))["content"] == '\tfmt.Println("old")\n', "read a window", text_of(r))

            r = await session.call_tool("patch", {"file": "main.go", "search": 'fmt.Println("old")', "replace": 'fmt.Println("new")'})
            check(not r.is_error, "patch applies", text_of(r))
            r = await session.call_tool("read", {"file": "main.go", "start": 7, "end": 7})
            check('"new"' in json.loads(text_of(r))["content"], "patch is on disk", text_of(r))

            r = await session.call_tool("search", {"pattern": "HandleRequest"})
            found = json.loads(text_of(r))
            check(not r.is_error and found["files"][0]["path"].endswith("handler.go"), "search finds the function", text_of(r))

            r = await session.call_tool("read", {"file": "no-such-file.go"})
            check(r.is_error and "C211" in text_of(r), "a missing file is a tool error with C211", text_of(r))
            check((r.structured_content or {}).get("recovery"), "the error carries a recovery hint", r.structured_content)
            r = await session.call_tool("patch", {"file": "main.go", "serch": "x", "replace": "y"})
            check(r.is_error and "did you mean `search`" in text_of(r), "bad params are a C210 tool error with a pointer", text_of(r))
            r = await session.call_tool("read", {"file": "../outside/secret.txt"})
            check(r.is_error and "C215" in text_of(r), "the jail holds over MCP", text_of(r))
    print("mcp client: all checks passed")


asyncio.run(main())
