#!/usr/bin/env python3
"""Extracts every @coder example of ChatCLI's plugin document (../shared/seeds/chatcli-coder-plugin.txt,
or the path given) into tests/agent/chatcli_examples.json: the args of each <tool_call name="@coder">
in document order (51, duplicates kept), each CLI-style example line (subcommand then flags), and the
multipatch JSON block. The test replays them through the `tool` envelope (tests/it/agent.rs).
Methods that are not registered yet are listed under "pending"; the lead moves them out as they land."""
import json, re, sys, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
seed = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else root.parent / "shared/seeds/chatcli-coder-plugin.txt")
text = seed.read_text()
subcommands = ("read write patch multipatch tree outline map search exec test git-status git-diff "
               "git-log git-changed git-branch rollback clean checkpoint").split()

examples = [{"form": "tool_call", "raw": a} for a in re.findall(r"<tool_call name=\"@coder\" args='(.*?)'/>", text)]
for line in text.split("\n"):
    words = line.split(" ")
    if words[0] in subcommands and (len(words) == 1 or (words[1].startswith("--") and words[1] != "--")):
        examples.append({"form": "cli", "raw": line})
block = re.search(r"\{\n  \"cmd\": \"multipatch\".*?\n\}", text, re.S)
examples.append({"form": "json_block", "raw": block.group(0)})

out = root / "tests/agent/chatcli_examples.json"
previous = json.loads(out.read_text()) if out.exists() else {}
data = {
    "source": "chatcli-coder-plugin.txt (../shared/seeds), extracted by scripts/extract-chatcli-examples.py",
    "pending": previous.get("pending", []),
    "examples": examples,
}
out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
print(f"{len(examples)} examples ({sum(e['form'] == 'tool_call' for e in examples)} tool_call) -> {out}")
