#!/usr/bin/env python3
"""Seed inputs for the agent-resume fuzz targets, in the byte formats of
fuzz/src/lib.rs.

    python3 fuzz/seedgen.py OUT_DIR [--builtin-only]

writes OUT_DIR/<target>/<sha1> for every target it knows (extract_flags,
build_invocation, rebuild_invocation, render_line, hook_payload, exit_hint,
report_message, store_row, plan, telemetry_privacy) from a few built-in
examples and, unless --builtin-only, from the shared case corpus when present:

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


def load_agents():
    """name -> the agent's table (code, commands, id_shape, resume), or {}
    on Python < 3.11, where codes are guessed from the order."""
    try:
        import tomllib
    except ImportError:
        return {}
    return {a["name"]: a for a in tomllib.loads(CATALOG.read_text())["agent"]}


AGENTS = load_agents()


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
    out.update(builtin_formats())
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
    for target, more in cases_formats().items():
        out.setdefault(target, []).extend(more)
    return out


# --- hook_payload, exit_hint, report_message, store_row, plan, telemetry_privacy ---

U7 = "01a22abf-a931-72c2-b857-4949dadb1b99"
PANE = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
OPENCODE_ID = "ses_0b5cefde2ffeXhHuHeWoYLX8iP"
SAMPLE_IDS = {
    "uuid": UUID,
    "opencode_id": OPENCODE_ID,
    "amp_thread": "T-" + UUID,
    "kimi_session": "session_" + UUID,
    "generic_id": "a1.b-c:d",
}
COLUMN = b"\x1f"


def sample_id(agent):
    return SAMPLE_IDS.get(AGENTS.get(agent, {}).get("id_shape"), UUID)


def agent_code(agent):
    a = AGENTS.get(agent)
    if a is not None:
        return a["code"]
    i = agent_byte(agent)
    return None if i is None else i + 1


def hint(agent, sid):
    """The resume command `agent` prints for `sid` (catalog's resume form)."""
    a = AGENTS.get(agent, {})
    cmd = a.get("commands", [agent])[0]
    resume = a.get("resume", {"flag": "--resume"})
    if "subcommand" in resume:
        return " ".join([cmd, *resume["subcommand"], sid])
    if resume.get("joined"):
        return f"{cmd} {resume['flag']}={sid}"
    return f"{cmd} {resume['flag']} {sid}"


def hook_seed(agent, payload):
    i = agent_byte(agent)
    if i is None:
        return None
    if not isinstance(payload, (bytes, str)):
        payload = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    if isinstance(payload, str):
        payload = payload.encode("utf-8", "surrogatepass")
    return bytes([i]) + payload


def report_seed(agent, sid=None, seq=1, **more):
    msg = {"v": 1, "pane": PANE, "agent": agent, "seq": seq}
    if sid is not None:
        msg["session_id"] = sid
    msg.update(more)
    return json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def column(v):
    """One store_row field: None is NULL, int an integer, bytes a blob, str text."""
    if v is None:
        return b"n"
    if isinstance(v, bool):
        raise TypeError(v)
    if isinstance(v, int):
        return b"i" + str(v).encode()
    if isinstance(v, float):
        return b"r" + repr(v).encode()
    if isinstance(v, bytes):
        return b"b" + v
    return b"t" + v.encode("utf-8", "surrogatepass")


def row_seed(agent, sid, flags=(), program=None, cwd=b"/home/me/proj", at=1_700_000_000_000, home=None):
    code = agent_code(agent) if isinstance(agent, str) else agent
    if isinstance(flags, str):
        js = flags
    else:
        js = json.dumps([{"name": n} if v is None else {"name": n, "value": v} for n, v in flags], ensure_ascii=False)
    return COLUMN.join(column(v) for v in [code, sid, js, program, cwd, at, home])


def noise(label, n):
    """n deterministic bytes: seeds for the structure-aware targets, where any
    bytes decode (fuzz/src/plan.rs) and the fuzzer steers from coverage."""
    out, k = b"", 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}:{k}".encode()).digest()
        k += 1
    return out[:n]


BUILTIN_HOOK = [
    ("claude", {"session_id": UUID, "transcript_path": f"/Users/me/.claude/projects/-Users-me-proj/{UUID}.jsonl",
                "cwd": "/Users/me/proj", "hook_event_name": "SessionStart", "source": "startup",
                "model": "claude-sonnet-4-6"}),
    ("claude", {"type": "result", "subtype": "success", "is_error": False, "result": "hi", "session_id": UUID}),
    ("codex", {"type": "agent-turn-complete", "thread-id": U7, "turn-id": "12345", "cwd": "/Users/example/project",
               "client": "codex-tui", "input-messages": ["Rename `foo`"], "last-assistant-message": "done"}),
    ("codex", {"type": "agent-turn-complete", "thread-id": U7, "client": "codex_exec"}),
    ("codex", {"cwd": "/p", "hook_event_name": "SessionStart", "model": "gpt-5", "permission_mode": "default",
               "session_id": U7, "source": "startup", "transcript_path": None}),
    ("codex", {"type": "thread.started", "thread_id": U7}),
    ("codex", f'progress\n{{"type":"thread.started","thread_id":"{U7}"}}\n{{"type":"turn.started"}}\n'),
    ("grok", {"hookEventName": "pre_tool_use", "hook_event_name": "PreToolUse", "sessionId": U7,
              "cwd": "/Users/you/project", "toolInput": {"command": "npm test"}}),
    ("grok", {"hook_event_name": "PreToolUse", "session_id": U7}),
    ("copilot", {"sessionId": UUID, "timestamp": 1700000000000, "cwd": "/p", "source": "new", "initialPrompt": "x"}),
    ("copilot", {"hook_event_name": "SessionStart", "session_id": UUID}),
    ("opencode", {"type": "session.created",
                  "properties": {"info": {"id": OPENCODE_ID, "projectID": "p", "directory": "/w"}}}),
    ("opencode", {"type": "session.idle", "properties": {"sessionID": OPENCODE_ID}}),
    ("opencode", {"type": "session.created", "properties": {"info": {"id": OPENCODE_ID, "parentID": "ses_x"}}}),
    ("opencode", {"type": "step_start", "timestamp": 1766204176981, "sessionID": OPENCODE_ID, "part": {}}),
    ("pi", {"type": "session", "version": 3, "id": U7, "timestamp": "t", "cwd": "/p"}),
    ("gemini", {"session_id": UUID, "transcript_path": "/t", "cwd": "/c", "hook_event_name": "BeforeTool"}),
    ("qwen", {"session_id": UUID, "cwd": "rel/dir", "hook_event_name": "SessionEnd"}),
    ("droid", {"session_id": UUID, "cwd": "/c", "hookEventName": "session_start"}),
    ("cursor", {"conversation_id": UUID, "hook_event_name": "beforeSubmitPrompt"}),
    ("antigravity", {"conversation_id": UUID, "cwd": "/p"}),
    ("amp", {"session_id": "T-" + UUID, "type": "result"}),
    ("kimi", {"session_id": "session_" + UUID, "hook_event_name": "SessionStart"}),
    ("claude", "not json"),
    ("claude", '{"session_id": 7}'),
    ("claude", '{"session_id":"$(reboot)","cwd":"/p"}'),
    ("claude", f'{{"session_id":"\\u0066{UUID[1:]}","cwd":"\\/p"}}'),
    ("codex", {"type": "agent-turn-complete", "thread-id": U7, "cwd": "/p", "client": "codex-tui",
               "input-messages": ["SECRETMARK"], "last-assistant-message": "SECRETMARK"}),
]

BUILTIN_HINT = [
    ("claude", f"bye\n\x1b[2mResume this session with:\x1b[0m\n\x1b[2mclaude --model opus --resume {UUID}\x1b[0m\n$ "),
    ("codex", f"Token usage: total=1\nTo continue this session, run:\n  codex resume {U7}\n"),
    ("codex", f"To continue this session, run:\n  codex resume {U7[:20]}\n{U7[20:]}\n"),
    ("gemini", f"To resume this session: gemini --resume {UUID}"),
    ("opencode", f"  Session   fix it\n  Continue  opencode -s {OPENCODE_ID}"),
    ("qwen", f"To continue this session, run qwen --resume {UUID}"),
    ("copilot", f"copilot --resume={UUID}"),
    ("claude", f"claude --resume {UUID}\nclaude --resume \"my analysis session\"\nclaude --resume {UUID}b57e REPL\n"
               "codex resume $(id)\n"),
    ("claude", f"claude --resume {UUID}\ngemini --resume {U7}\n"),
    ("cursor", f"cursor-agent --resume={UUID}"),
    ("amp", f"amp threads continue T-{UUID}"),
    ("claude", f"\x1b]0;title\x07/home/me/bin/claude -r '{UUID}'\r\n\x1b[31m"),
]


def builtin_formats():
    out = {"hook_payload": [hook_seed(a, p) for a, p in BUILTIN_HOOK]}
    out["exit_hint"] = [extract_seed(a, t) for a, t in BUILTIN_HINT]
    out["exit_hint"] += [extract_seed(a, "To continue this session, run:\n  " + hint(a, sample_id(a))) for a in NAMES]
    reports = [
        report_seed("claude", UUID, 7, cwd="/p", source="hook", invocation="claude --model opus"),
        report_seed("claude", seq=1),
        report_seed("claude", UUID, 2, cwd="rel/dir"),
        report_seed("claude", "$(id)", 3, cwd="/p"),
        report_seed("claude", UUID, 4, cwd="/p", headless=True, invocation="claude -p hi"),
    ]
    sources, events = ["hook", "exit_hint", "launch", "correlation"], ["observed", "ended", "suspended", "hidden",
                                                                         "teardown", "closed"]
    for n, (agent, text) in enumerate(BUILTIN_EXTRACT):
        reports.append(report_seed(agent, sample_id(agent), n + 1, cwd="/home/me/proj", source=sources[n % 4],
                                   event=events[n % 6] if n % 3 == 0 else "observed", invocation=text))
    out["report_message"] = reports
    out["store_row"] = [
        row_seed("claude", UUID, [("--model", "opus"), ("--permission-mode", "plan")]),
        row_seed("claude", UUID, [("--dangerously-skip-permissions", None)], "/home/me/.local/bin/claude",
                 b"/home/me/\xffproj", 1_700_000_000_000, b"/home/me/.claude"),
        row_seed("codex", U7, [("--sandbox", "read-only"), ("--model", "gpt-5.1-codex")], None, b"/w", -1),
        row_seed("opencode", OPENCODE_ID, [("--model", "openrouter/anthropic/claude")]),
        row_seed("amp", "T-" + UUID, [("--mode", "smart")]),
        row_seed("claude", UUID + "; id"),
        row_seed(99, UUID),
        row_seed(None, UUID),
        row_seed("claude", UUID, "{}"),
        row_seed("claude", UUID, [("--model", "opus'; rm -rf ~; '")], "$(id)", b"", 0),
        row_seed("claude", b"\xff" + UUID.encode()),
        COLUMN.join([b"i1", b"t" + UUID.encode(), b"t[]", b"b/bin/claude", b"b/w", b"r1.5", b"i7"]),
    ]
    out["plan"] = [noise("plan", n) for n in (16, 64, 128, 256, 512, 1024)] + [b"\xff" * 256, b"\x00" * 64]
    out["telemetry_privacy"] = [noise("privacy", n) for n in (16, 64, 128, 256, 512, 1024)] + [b"\x07" * 256]
    return out


def cases_formats():
    out = {t: [] for t in ("hook_payload", "exit_hint", "report_message", "store_row")}
    for n, case in enumerate(load_json(ROOT / "tests/cases/invocation.json")):
        agent, text, sid = case.get("agent"), case.get("invocation"), case.get("session_id")
        if not isinstance(agent, str) or not isinstance(text, str) or not isinstance(sid, str):
            continue
        program, flags = flags_of(agent, text)
        out["hook_payload"].append(hook_seed(agent, {"session_id": sid, "hook_event_name": "SessionStart",
                                                     "cwd": "/home/me/proj"}))
        out["exit_hint"].append(extract_seed(agent, f"$ {text}\n...\n{hint(agent, sid)}\n"))
        out["report_message"].append(report_seed(agent, sid, n + 1, cwd="/home/me/proj", invocation=text))
        out["store_row"].append(row_seed(agent, sid, flags, program))
    for case in load_json(ROOT / "tests/cases/hostile_words.json"):
        w = case.get("word", case.get("value"))
        if not isinstance(w, str):
            continue
        q = shlex.quote(w)
        out["hook_payload"] += [hook_seed("claude", {"session_id": w, "cwd": w}),
                                hook_seed("codex", {"type": "thread.started", "thread_id": w})]
        out["exit_hint"] += [extract_seed("claude", f"claude --resume {w}\n"),
                             extract_seed("codex", f"To continue this session, run:\n  codex resume {w}\n")]
        out["report_message"] += [report_seed("claude", UUID, 1, cwd="/" + w, invocation=f"claude --model {q}"),
                                  report_seed("claude", w, 2, invocation=w)]
        wb = w.encode("utf-8", "surrogatepass")
        out["store_row"] += [row_seed("claude", w), row_seed("claude", UUID, [("--model", w), (w, None)], w, wb, 0, wb)]
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
