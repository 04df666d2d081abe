# Runs the OpenAI Agents SDK's ToolOutputTrimmer (the real code:
# extensions/tool_output_trimmer.py of the SDK's src/agents, at the
# release window/internal/openai/trim.go names) on every call of every history
# export wrote, for each setting, and prints what each call sends: the
# golden window/testdata/conformance/openaitrim.json.
#
#   python3 openaitrim.py AGENTS VERSION COMMIT HISTORIES
#
# AGENTS is src/agents of a checkout of openai/openai-agents-python at
# the release. Its files the trimmer imports are copied as they are
# (extensions/tool_output_trimmer.py, _tool_identity.py, _debug.py,
# logger.py) into a package agents beside two modules that stand for the
# rest of the SDK: exceptions (UserError, which _tool_identity imports)
# and run_config (ModelInputData, a dataclass of the input items and the
# instructions, which the trimmer imports at call time; CallModelData is
# given as an object with model_data).
#
# A history becomes the Responses API items the SDK gives the filter, as
# window/internal/openai/trim.go reads it: a system message a system item; an
# assistant message an assistant item, then a function_call item per
# tool_use block; a user message a function_call_output item per
# tool_result block (its text the output), then a user item when it has
# another block or none. Each call's items are those of the messages
# before it.
#
# What a call sends is written per transcript message: "m<i>" as it was,
# "m<i>~<k>=<h>.<k>=<h>" when the output of its block k was trimmed to a
# text whose SHA-256 begins with h (8 hex digits); consecutive whole ones
# as "m<i>-m<j>". The golden holds the first 16 hex digits of the
# SHA-256 of those entries joined by commas, their number and the last
# three.
import hashlib
import json
import os
import shutil
import sys
import tempfile
import types

agents_dir, version, commit, histories_path = sys.argv[1:5]

pkg = tempfile.mkdtemp()
os.makedirs(os.path.join(pkg, "agents", "extensions"))
for d in ["agents", "agents/extensions"]:
    open(os.path.join(pkg, d, "__init__.py"), "w").close()
for name in ["extensions/tool_output_trimmer.py", "_tool_identity.py", "_debug.py", "logger.py"]:
    shutil.copy(os.path.join(agents_dir, name), os.path.join(pkg, "agents", name))
with open(os.path.join(pkg, "agents", "exceptions.py"), "w") as f:
    f.write("class UserError(Exception):\n    pass\n")
with open(os.path.join(pkg, "agents", "run_config.py"), "w") as f:
    f.write(
        "from dataclasses import dataclass\n"
        "from typing import Any\n\n"
        "@dataclass\n"
        "class ModelInputData:\n"
        "    input: list\n"
        "    instructions: Any = None\n"
    )
sys.path.insert(0, pkg)
from agents.extensions.tool_output_trimmer import ToolOutputTrimmer  # noqa: E402
from agents.run_config import ModelInputData  # noqa: E402

settings = [
    {"recent_turns": 2, "max_output_chars": 500, "preview_chars": 200, "trimmable_tools": None},
    {"recent_turns": 1, "max_output_chars": 500, "preview_chars": 200, "trimmable_tools": None},
    {"recent_turns": 3, "max_output_chars": 2000, "preview_chars": 100, "trimmable_tools": None},
    {"recent_turns": 2, "max_output_chars": 100, "preview_chars": 0, "trimmable_tools": None},
    {"recent_turns": 1, "max_output_chars": 50, "preview_chars": 20, "trimmable_tools": ["Bash", "Read"]},
    {"recent_turns": 2, "max_output_chars": 300, "preview_chars": 200, "trimmable_tools": ["shell", "exec_command"]},
]


def items_of(h):
    out = []
    for i, m in enumerate(h["messages"]):
        blocks = m.get("blocks") or []
        text = "".join(b.get("text", "") for b in blocks if b["type"] == "text")
        if m["role"] == "system":
            out.append({"role": "system", "content": text, "_m": i})
        elif m["role"] == "assistant":
            out.append({"role": "assistant", "content": text, "_m": i})
            for b in blocks:
                if b["type"] == "tool_use":
                    out.append({"type": "function_call", "call_id": b.get("id", ""), "name": b.get("name", ""),
                                "arguments": json.dumps(b.get("input")), "_m": i})
        else:
            others = 0
            for k, b in enumerate(blocks):
                if b["type"] == "tool_result":
                    out.append({"type": "function_call_output", "call_id": b.get("id", ""), "output": b.get("text", ""), "_m": i, "_k": k})
                else:
                    others += 1
            if others or not blocks:
                out.append({"role": "user", "content": text, "_m": i})
    return out


def runs(ids):
    out, start, end = [], -1, -1

    def flush():
        if start >= 0:
            out.append(f"m{start}" if start == end else f"m{start}-m{end}")

    for e in ids:
        if not (e.startswith("m") and e[1:].isdigit()):
            flush()
            start = end = -1
            out.append(e)
            continue
        i = int(e[1:])
        if start >= 0 and i == end + 1:
            end = i
            continue
        flush()
        start = end = i
    flush()
    return out


def encode(sent, n, orig_output):
    trimmed = {}
    for it in sent:
        if it.get("type") == "function_call_output" and it["output"] != orig_output[(it["_m"], it["_k"])]:
            h = hashlib.sha256(it["output"].encode("utf-8", "surrogatepass")).hexdigest()[:8]
            trimmed.setdefault(it["_m"], []).append(f"{it['_k']}={h}")
    ids = []
    for i in range(n):
        ids.append(f"m{i}~" + ".".join(trimmed[i]) if i in trimmed else f"m{i}")
    return runs(ids)


with open(histories_path) as f:
    histories = json.load(f)["histories"]

results = []
for s in settings:
    trimmer = ToolOutputTrimmer(recent_turns=s["recent_turns"], max_output_chars=s["max_output_chars"], preview_chars=s["preview_chars"],
                                trimmable_tools=None if s["trimmable_tools"] is None else frozenset(s["trimmable_tools"]))
    per_setting = []
    for h in histories:
        items = items_of(h)
        orig_output = {(it["_m"], it["_k"]): it["output"] for it in items if it.get("type") == "function_call_output"}
        calls = []
        for c in h["calls"]:
            given = [it for it in items if it["_m"] < c]
            sent = trimmer(types.SimpleNamespace(model_data=ModelInputData(input=given, instructions=None))).input
            enc = encode(sent, c, orig_output)
            calls.append({"sha256": hashlib.sha256(",".join(enc).encode()).hexdigest()[:16], "entries": len(enc), "tail": enc[-3:]})
        per_setting.append({"source": h["source"], "calls": calls})
    results.append(per_setting)

shutil.rmtree(pkg)
json.dump({"openai_agents": version, "commit": commit, "settings": settings, "results": results}, sys.stdout, ensure_ascii=False, separators=(",", ":"))
sys.stdout.write("\n")
