#!/usr/bin/env python3
"""Seed inputs for the agent-resume fuzz targets, in the byte formats of
fuzz/src/lib.rs.

    python3 fuzz/seedgen.py OUT_DIR [--builtin-only]

writes OUT_DIR/<target>/<sha1> for every target it knows (extract_flags,
build_invocation, rebuild_invocation, render_line) from a few built-in examples and, unless --builtin-only,
from the shared case corpus when present:

- tests/cases/invocation.json: [{"label","agent","session_id","invocation",
  "age_secs","expect"}, ...]
- tests/cases/hostile_words.json: [{"label","word" (or "value"),"expect"}, ...]

Missing or malformed case files are skipped with a note on stderr, never an
error: the seeds only steer the fuzzer. The committed fuzz/seeds/ were written
with --builtin-only; scripts/fuzz-campaign runs this into fuzz/corpus/.
"""

import hashlib
import json
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOG = ROOT / "crates/core/agents.toml"
FIELD, VALUE = "\x1f", "\x1e"
WRAPPERS = {"command", "exec", "env", "nohup", "noglob"}
POSTURE_WINDOW_SECS = 12 * 3600
UUID = "f6066ebb-140e-4519-ab63-b9cde0b60b57"


def load_catalog():
    """Agent names in agents.toml order, and each agent's flag arities."""
    text = CATALOG.read_text()
    try:
        import tomllib

        agents = tomllib.loads(text)["agent"]
        names = [a["name"] for a in agents]
        arity = {
            a["name"]: {w: f["arity"] for f in a.get("flags", []) for w in [f["name"], *f.get("aliases", [])]}
            for a in agents
        }
        return names, arity
    except ImportError:  # Python < 3.11: names only, arities guessed.
        names = re.findall(r'^\[\[agent\]\]\s*\nname\s*=\s*"([^"]+)"', text, re.M)
        return names, {}


NAMES, ARITY = load_catalog()


def agent_byte(name):
    return NAMES.index(name) if name in NAMES else None


def extract_seed(agent, text):
    i = agent_byte(agent)
    return None if i is None else bytes([i]) + text.encode("utf-8", "surrogatepass")


def build_seed(agent, session_id, flags, program=None, shell=0, drop=False):
    i = agent_byte(agent)
    if i is None:
        return None
    bits = (shell & 3) | (4 if drop else 0) | (8 if program is not None else 0)
    fields = [session_id, program or ""]
    fields += [n if v is None else n + VALUE + v for n, v in flags]
    return bytes([i, bits]) + FIELD.join(fields).encode("utf-8", "surrogatepass")


def line_seed(words, shell=0):
    return bytes([shell & 3]) + FIELD.join(words).encode("utf-8", "surrogatepass")


def flags_of(agent, invocation):
    """(program, [(name, value)]) as the extractor would roughly read them;
    exactness does not matter, the fuzzer mutates from here."""
    try:
        words = shlex.split(invocation, comments=True)
    except ValueError:
        return None, []
    at = 0
    while at < len(words) and (words[at] in WRAPPERS or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[at])):
        at += 1
    if at >= len(words):
        return None, []
    program = words[at] if "/" in words[at] else None
    args, flags, k = words[at + 1 :], [], 0
    arity = ARITY.get(agent, {})
    while k < len(args):
        w = args[k]
        k += 1
        if w == "--" or not w.startswith("-") or w == "-":
            break
        name, eq, inline = w.partition("=")
        kind = arity.get(name, "value" if not arity else "switch")
        if eq:
            flags.append((name, inline))
        elif kind == "value" and k < len(args):
            flags.append((name, args[k]))
            k += 1
        else:
            flags.append((name, None))
    return program, flags


BUILTIN_EXTRACT = [
    ("claude", "claude --model opus --permission-mode plan 'fix --the bug'"),
    ("claude", "FOO=1 env /home/me/.local/bin/claude --dangerously-skip-permissions --effort high"),
    ("claude", "claude --model --dangerously-skip-permissions"),
    ("claude", "claude --add-dir /a /b --model opus -- --permission-mode bypassPermissions"),
    ("claude", "claude -p 'hi' --model opus"),
    ("codex", "codex -m o3 -s workspace-write --yolo resume 01a22abf-a931-72c2-b857-4949dadb1b99"),
    ("codex", "codex --model=gpt-5.1-codex -a never exec 'x'"),
    ("gemini", "gemini --approval-mode yolo -m gemini-2.5-pro"),
    ("opencode", "opencode --model openrouter/anthropic/claude --agent build run x"),
    ("droid", "droid --auto high --resume"),
    ("grok", "grok --permission-mode bypassPermissions --sandbox x -p hi"),
    ("qwen", "qwen -y --approval-mode auto-edit -m qwen3-coder"),
    ("copilot", "copilot --allow-all --mode autopilot --model gpt-5"),
    ("pi", "pi --provider anthropic --thinking high --model opus"),
    ("cursor", "cursor-agent --force --sandbox enabled"),
    ("amp", "amp -m smart --dangerously-allow-all threads continue T-x"),
    ("kimi", "kimi -m kimi-k2 --yolo --session"),
    ("claude", "claude --model 'opus;rm -rf ~' --agent \"$(id)\" `id` {a,b} ~/x"),
    ("claude", "claude --model a\\ b --effort=max --worktree"),
]

BUILTIN_BUILD = [
    ("claude", UUID, [("--model", "opus"), ("--permission-mode", "plan"), ("--dangerously-skip-permissions", None)]),
    ("claude", UUID, [("--model", "opus'; rm -rf ~; '"), ("--effort", "high"), ("-m", "opus")], "/opt/bin/claude"),
    ("claude", UUID + "; id", []),
    ("codex", UUID, [("--sandbox", "read-only"), ("--yolo", None), ("--model", "a\\b")]),
    ("droid", UUID, [("--auto", "high")], "/bin/sh"),
    ("opencode", "ses_0b5cefde2ffeXhHuHeWoYLX8iP", [("--model", "o3:high"), ("--auto", None)]),
    ("gemini", UUID, [("--approval-mode", "yolo"), ("--model", "gemini-2.5-pro")], "gemini"),
    ("copilot", UUID, [("--allow-all", None), ("--mode", "plan")]),
    ("grok", UUID, [("--sandbox", "x"), ("--permission-mode", "bypassPermissions")]),
    ("qwen", UUID, [("--approval-mode", "auto-edit"), ("--yolo", None)]),
    ("pi", UUID, [("--provider", "anthropic"), ("--thinking", "high")]),
    ("amp", "T-" + UUID, [("--mode", "smart")]),
    ("kimi", "session_" + UUID, [("--model", "kimi-k2")]),
    ("cursor", UUID, [("--force", None)]),
]


BUILTIN_LINE = [
    ["claude", "--model", "opus", "--resume", UUID],
    ["a\\b", "\\", "\\\\x\\", "", "$(id)", "`id`", "{a,b}", "~", "^x", "a b", "#", "!"],
    ["it's", "x\r", "x\n", "\t", "\x1b[31m", "\x7f", "\u0085", "\u202e", "\u200b", "\ufeff", "\u00e9\u4e2d"],
    ["/home/me/.local/bin/claude", "--permission-mode=bypassPermissions", "'\\''", "\\'"],
]


def builtin():
    out = {"extract_flags": [], "build_invocation": [], "render_line": []}
    out["extract_flags"] = [extract_seed(a, t) for a, t in BUILTIN_EXTRACT]
    out["render_line"] = [line_seed(w, shell=n) for n, w in enumerate(BUILTIN_LINE)]
    for n, (agent, sid, flags, *program) in enumerate(BUILTIN_BUILD):
        for drop in (False, True):
            out["build_invocation"].append(build_seed(agent, sid, flags, *program, shell=n, drop=drop))
    return out


def load_json(path):
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        print(f"seedgen: {path.relative_to(ROOT)} not present, skipped", file=sys.stderr)
        return []
    except (OSError, ValueError) as e:
        print(f"seedgen: {path.relative_to(ROOT)} unreadable ({e}), skipped", file=sys.stderr)
        return []
    return [c for c in data if isinstance(c, dict)] if isinstance(data, list) else []


def from_cases():
    out = {"extract_flags": [], "build_invocation": [], "render_line": []}
    for n, case in enumerate(load_json(ROOT / "tests/cases/invocation.json")):
        agent, text = case.get("agent"), case.get("invocation")
        sid, age = case.get("session_id"), case.get("age_secs")
        if not isinstance(agent, str) or not isinstance(text, str):
            continue
        out["extract_flags"].append(extract_seed(agent, text))
        if isinstance(sid, str):
            program, flags = flags_of(agent, text)
            drop = isinstance(age, (int, float)) and not 0 <= age <= POSTURE_WINDOW_SECS
            out["build_invocation"].append(build_seed(agent, sid, flags, program, shell=n, drop=drop))
    for case in load_json(ROOT / "tests/cases/hostile_words.json"):
        w = case.get("word", case.get("value"))
        if not isinstance(w, str):
            continue
        q = shlex.quote(w)
        out["extract_flags"] += [
            extract_seed("claude", f"claude --model {q} --effort high"),
            extract_seed("codex", f"{q} --model o3"),
            extract_seed("claude", f"/usr/bin/{q}/claude --permission-mode {q}"),
            extract_seed("claude", f"claude {w}"),
        ]
        out["build_invocation"] += [
            build_seed("claude", w, [("--model", "opus")]),
            build_seed("claude", UUID, [("--model", w), (w, None), (w, w)], w),
            build_seed("codex", UUID, [("--sandbox", w)], "/usr/bin/" + w),
        ]
        out["render_line"] += [line_seed(["claude", w]), line_seed([w, w + w, "a" + w + "b"], shell=2)]
    return out


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_dir, builtin_only = Path(argv[0]), "--builtin-only" in argv[1:]
    seeds = builtin()
    if not builtin_only:
        for target, more in from_cases().items():
            seeds[target] += more
    # Targets that decode another target's format share its seeds.
    seeds["rebuild_invocation"] = seeds["build_invocation"]
    for target, items in seeds.items():
        d = out_dir / target
        d.mkdir(parents=True, exist_ok=True)
        written = 0
        for data in filter(None, items):
            p = d / hashlib.sha1(data).hexdigest()
            if not p.exists():
                p.write_bytes(data)
                written += 1
        print(f"seedgen: {target}: {written} seed(s) written to {d}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
