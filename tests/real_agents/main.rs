//! Conformance with the real agent CLIs, offline.
//!
//! The pinned versions below are installed from npm once into a cache
//! outside the repository (`$AGENT_RESUME_CLI_CACHE`, else
//! `$XDG_CACHE_HOME/agent-resume-test/npm`, else
//! `~/.cache/agent-resume-test/npm`) and reused. A version bump is one line
//! of [`CLAUDE`], [`GEMINI`], [`QWEN`] or [`CODEX`]. A missing `npm` (or
//! `node`, or `tmux`) fails the test naming it: these tests never skip.
//!
//! Each CLI runs in an isolated `HOME` with dummy keys, pointed at a
//! stand-in model server on 127.0.0.1 ([`StandIn`]): 404 for every call but
//! the model call that completes a turn, which gets a short valid reply in
//! the CLI's own wire format (Anthropic messages SSE, Gemini
//! `streamGenerateContent`, OpenAI chat completions, OpenAI Responses).
//! Interactive runs happen in a private tmux server; each CLI's processes
//! are killed by pid at the end (Gemini re-launches itself as a child and
//! survives a tmux `kill-server`).
//!
//! Every assertion message names the CLI and its version.
//!
//! The restart test ([`real_restart`]) runs all four CLIs in bash panes of
//! one tmux server set up as a user's ([`Machine`]), each with its own
//! stand-in whose replies carry a marker and which keeps every request
//! body; the machine is rebooted and tmux started again, and each resumed
//! CLI's next request must carry its marker. [`restart`] runs a
//! [`Script`] per seat instead (its own prompts, a first prompt typed late,
//! `/clear` then another turn, two seats of one agent).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use agent_resume_test_support::tmux::Tmux;
use agent_resume_test_support::{require, wait_for, PrivateEnv};
use serde_json::{json, Value};

mod augment_cline;
mod continue_cli;
mod copilot;
mod droid;
mod grok;
mod kitty;
mod opencode;
mod qoder;
mod versions;
mod vibe;
use versions::{Cli, Registry, Setup, CLAUDE, CODEX, GEMINI, QWEN};

/// The Gemini model named on every run: with a fixed model Gemini skips its
/// routing classifier and makes exactly one model call per turn.
const GEMINI_MODEL: &str = "gemini-2.5-flash";

/// A session id no store holds.
const MADE_UP: &str = "0b1e2d3c-4f5a-4b6c-9d7e-8f9a0b1c2d3e";

/// How long one CLI run may take before the test kills it and fails.
const RUN_LIMIT: Duration = Duration::from_secs(60);

fn agent_resume() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agent-resume"))
}

// ------------------------------------------------------------ install ----

/// Where the pinned CLIs are cached.
fn cache_root() -> PathBuf {
    let abs = |v: &str| {
        std::env::var_os(v)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    abs("AGENT_RESUME_CLI_CACHE")
        .or_else(|| abs("XDG_CACHE_HOME").map(|p| p.join("agent-resume-test/npm")))
        .or_else(|| abs("HOME").map(|p| p.join(".cache/agent-resume-test/npm")))
        .expect("HOME (or XDG_CACHE_HOME, or AGENT_RESUME_CLI_CACHE) is set to an absolute path")
}

/// The installed executable of `cli`, installing it into the cache first
/// when it is not there (npm, or a venv for a PyPI package). Concurrent
/// tests each install into their own directory and the first rename wins.
fn installed(cli: &Cli) -> PathBuf {
    let dir = cache_root().join(cli.cache_name());
    let (package, extra) = match cli.registry {
        Registry::Npm { package, extra } => (package, extra),
        Registry::Pypi { .. } => {
            return install_venv_in_place(cli, &dir, &dir.join("bin").join(cli.bin));
        }
    };
    let bin = dir.join("node_modules/.bin").join(cli.bin);
    if bin.is_file() {
        return bin;
    }
    let npm = require("npm");
    require("node");
    let part = PathBuf::from(format!("{}.part-{}", dir.display(), std::process::id()));
    let _ = fs::remove_dir_all(&part);
    fs::create_dir_all(&part).expect("creates the install cache directory");
    let spec = format!("{package}@{}", cli.version);
    let started = Instant::now();
    let out = Command::new(&npm)
        .arg("install")
        .arg("--prefix")
        .arg(&part)
        .args(["--no-audit", "--no-fund", "--loglevel=error", &spec])
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("npm can be started");
    assert!(
        out.status.success(),
        "{}: `npm install {spec} {}` failed: {}",
        cli.name(),
        extra.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "installed {spec} into {} in {:.1} s",
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    if fs::rename(&part, &dir).is_err() {
        // Another test installed it first.
        let _ = fs::remove_dir_all(&part);
    }
    assert!(
        bin.is_file(),
        "{}: {} is not installed",
        cli.name(),
        bin.display()
    );
    bin
}

/// A PyPI CLI's venv made where it stays (a venv cannot move), under a
/// lock file so concurrent tests make it once.
fn install_venv_in_place(cli: &Cli, dir: &Path, bin: &Path) -> PathBuf {
    let Registry::Pypi { package, python } = cli.registry else {
        unreachable!("only PyPI CLIs are made in place")
    };
    if bin.is_file() {
        return bin.to_owned();
    }
    let py = find_python(python).unwrap_or_else(|| {
        panic!(
            "{}: needs one of {python:?} (on PATH or under ~/.pyenv/versions): not found",
            cli.name()
        )
    });
    let started = Instant::now();
    fs::create_dir_all(dir.parent().expect("the cache root")).expect("creates the cache root");
    let lock = PathBuf::from(format!("{}.lock", dir.display()));
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        if bin.is_file() {
            return bin.to_owned();
        }
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(_) => break,
            Err(_) => {
                assert!(
                    Instant::now() < deadline,
                    "{}: another test's install holds {} for 10 minutes",
                    cli.name(),
                    lock.display()
                );
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }
    let _ = fs::remove_dir_all(dir);
    let spec = format!("{package}=={}", cli.version);
    let venv = Command::new(&py).args(["-m", "venv"]).arg(dir).output();
    let pip = Command::new(dir.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", &spec])
        .stdin(Stdio::null())
        .output();
    let _ = fs::remove_file(&lock);
    let ok = venv.is_ok_and(|o| o.status.success());
    let pip = pip.expect("pip can be started");
    assert!(
        ok && pip.status.success() && bin.is_file(),
        "{}: `pip install {spec}` into {} failed: {}",
        cli.name(),
        dir.display(),
        text(&pip.stderr)
    );
    eprintln!(
        "pip install {spec}: into {} in {:.1} s",
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    bin.to_owned()
}

/// The first of `names` (`python3.13`, …) on `PATH` or under
/// `~/.pyenv/versions/*/bin`.
fn find_python(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    if let Some(home) = std::env::var_os("HOME") {
        let versions = PathBuf::from(home).join(".pyenv/versions");
        if let Ok(rd) = fs::read_dir(versions) {
            let mut found: Vec<PathBuf> = rd.flatten().map(|e| e.path().join("bin")).collect();
            found.sort();
            dirs.extend(found.into_iter().rev());
        }
    }
    names.iter().find_map(|n| {
        dirs.iter()
            .map(|d| d.join(n))
            .find(|p| p.is_file() && !p.to_string_lossy().contains("/shims/"))
    })
}

// ----------------------------------------------------------- stand-in ----

/// A stand-in model server on 127.0.0.1, stopped and joined on drop.
struct StandIn {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    replies: Arc<AtomicBool>,
    /// What every model reply says.
    text: Arc<Mutex<String>>,
    /// What a reply says instead when the request holds a word.
    rules: Rules,
    /// Every request body received, in order.
    bodies: Arc<Mutex<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
}

/// Words of a request and what the reply to a request holding one says,
/// the first that matches taken.
type Rules = Arc<Mutex<Vec<(String, String)>>>;

/// What a stand-in's connections share.
#[derive(Clone)]
struct Served {
    replies: Arc<AtomicBool>,
    text: Arc<Mutex<String>>,
    rules: Rules,
    bodies: Arc<Mutex<Vec<String>>>,
}

impl StandIn {
    /// Starts the server; with `replies` false every model call fails too
    /// (a turn that never completes).
    fn start(replies: bool) -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").expect("binds 127.0.0.1:0");
        let addr = listener.local_addr().expect("the bound address");
        let stop = Arc::new(AtomicBool::new(false));
        let served = Served {
            replies: Arc::new(AtomicBool::new(replies)),
            text: Arc::new(Mutex::new("ok".to_owned())),
            rules: Arc::default(),
            bodies: Arc::new(Mutex::new(Vec::new())),
        };
        let flag = Arc::clone(&stop);
        let shared = served.clone();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let shared = shared.clone();
                std::thread::spawn(move || serve(conn, &shared));
            }
        });
        StandIn {
            addr,
            stop,
            replies: served.replies,
            text: served.text,
            rules: served.rules,
            bodies: served.bodies,
            thread: Some(thread),
        }
    }

    /// From now on, every model reply says `text` (`ok` at first).
    fn set_text(&self, text: &str) {
        *self.text.lock().unwrap() = text.to_owned();
    }

    /// From now on, the reply to a request holding `word` says `text`
    /// (an earlier rule's word wins).
    fn reply_to(&self, word: &str, text: &str) {
        self.rules
            .lock()
            .unwrap()
            .push((word.to_owned(), text.to_owned()));
    }

    /// Every request body received so far, in order.
    fn bodies(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }

    /// From now on, model calls get a reply (`true`) or fail (`false`).
    fn set_replies(&self, on: bool) {
        self.replies.store(on, Ordering::SeqCst);
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the blocking accept.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serves one connection's requests (keep-alive) until the client closes
/// it or a read times out.
fn serve(conn: TcpStream, served: &Served) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(mut out) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    while let Some((method, path, body)) = read_request(&mut reader) {
        served
            .bodies
            .lock()
            .unwrap()
            .push(String::from_utf8_lossy(&body).into_owned());
        let replies = served.replies.load(Ordering::SeqCst);
        let asked = String::from_utf8_lossy(&body);
        let rule = served
            .rules
            .lock()
            .unwrap()
            .iter()
            .find(|(word, _)| asked.contains(word.as_str()))
            .map(|(_, text)| text.clone());
        let text = rule.unwrap_or_else(|| served.text.lock().unwrap().clone());
        let (status, ctype, payload) = respond(&method, &path, &body, replies, &text);
        let head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\n\r\n",
            payload.len()
        );
        if out.write_all(head.as_bytes()).is_err() || out.write_all(&payload).is_err() {
            return;
        }
    }
}

/// One request: method, path and body (content-length or chunked).
fn read_request(r: &mut BufReader<TcpStream>) -> Option<(String, String, Vec<u8>)> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let path = parts.next()?.to_owned();
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        let (k, v) = (k.trim().to_ascii_lowercase(), v.trim());
        if k == "content-length" {
            length = v.parse().ok()?;
        } else if k == "transfer-encoding" && v.eq_ignore_ascii_case("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).ok()?;
            let n = usize::from_str_radix(size.trim().split(';').next()?, 16).ok()?;
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).ok()?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        body.resize(length.min(64 << 20), 0);
        r.read_exact(&mut body).ok()?;
    }
    Some((method, path, body))
}

fn sse(events: &[(&str, Value)]) -> Vec<u8> {
    let mut out = String::new();
    for (name, data) in events {
        if !name.is_empty() {
            out.push_str(&format!("event: {name}\n"));
        }
        out.push_str(&format!("data: {data}\n\n"));
    }
    out.into_bytes()
}

/// The reply to one request: a short valid model reply saying `text` where
/// a turn must complete, 404 for everything else.
fn respond(
    method: &str,
    path: &str,
    body: &[u8],
    replies: bool,
    text: &str,
) -> (&'static str, &'static str, Vec<u8>) {
    let not_found = (
        "404 Not Found",
        "application/json",
        br#"{"error":{"message":"not found"}}"#.to_vec(),
    );
    if method != "POST" || !replies {
        return not_found;
    }
    let stream = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|b| b.get("stream").and_then(Value::as_bool))
        .unwrap_or(false);
    let route = path.split('?').next().unwrap_or(path);
    if route.ends_with("/v1/messages") {
        let usage = json!({"input_tokens": 1, "output_tokens": 1});
        let message = json!({"id": "msg_standin", "type": "message", "role": "assistant", "model": "claude-standin",
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage});
        if !stream {
            let mut m = message;
            m["content"] = json!([{"type": "text", "text": text}]);
            m["stop_reason"] = json!("end_turn");
            return ("200 OK", "application/json", m.to_string().into_bytes());
        }
        return (
            "200 OK",
            "text/event-stream",
            sse(&[
                (
                    "message_start",
                    json!({"type": "message_start", "message": message}),
                ),
                (
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ),
                (
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
                ),
                (
                    "content_block_stop",
                    json!({"type": "content_block_stop", "index": 0}),
                ),
                (
                    "message_delta",
                    json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 1}}),
                ),
                ("message_stop", json!({"type": "message_stop"})),
            ]),
        );
    }
    if route.ends_with(":streamGenerateContent") || route.ends_with(":generateContent") {
        let r = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}});
        if route.ends_with(":generateContent") {
            return ("200 OK", "application/json", r.to_string().into_bytes());
        }
        if path.contains("alt=sse") {
            return ("200 OK", "text/event-stream", sse(&[("", r)]));
        }
        return (
            "200 OK",
            "application/json",
            json!([r]).to_string().into_bytes(),
        );
    }
    if route.ends_with("/chat/completions") {
        let usage = json!({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2});
        if !stream {
            let r = json!({"id": "c1", "object": "chat.completion", "created": 1, "model": "standin",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}], "usage": usage});
            return ("200 OK", "application/json", r.to_string().into_bytes());
        }
        let mut out = sse(&[
            (
                "",
                json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "standin",
                "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": null}]}),
            ),
            (
                "",
                json!({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "standin",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}),
            ),
        ]);
        out.extend_from_slice(b"data: [DONE]\n\n");
        return ("200 OK", "text/event-stream", out);
    }
    if route.ends_with("/chat-stream") {
        // Augment's own endpoint (Auggie, through its `tenantURL`): one
        // JSON object per line, the last with a `stop_reason` (1: end of
        // turn).
        let r = json!({"text": text, "nodes": [{"id": 0, "type": 0, "content": text}],
            "unknown_blob_names": [], "checkpoint_not_found": false, "workspace_file_chunks": [],
            "stop_reason": 1});
        return ("200 OK", "application/json", format!("{r}\n").into_bytes());
    }
    if route.ends_with("/responses") {
        let item = json!({"type": "message", "role": "assistant", "id": "msg_standin",
            "content": [{"type": "output_text", "text": text, "annotations": []}]});
        return (
            "200 OK",
            "text/event-stream",
            sse(&[
                (
                    "response.created",
                    json!({"type": "response.created", "response": {"id": "resp_standin"}}),
                ),
                (
                    "response.output_item.done",
                    json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
                ),
                (
                    "response.completed",
                    json!({"type": "response.completed", "response": {"id": "resp_standin",
                "usage": {"input_tokens": 1, "input_tokens_details": null, "output_tokens": 1,
                          "output_tokens_details": null, "total_tokens": 2}}}),
                ),
            ]),
        );
    }
    not_found
}

// ------------------------------------------------------------ sandbox ----

/// Each variable a CLI needs to start offline in `home` with `path`: its
/// `XDG_*` under `home`, dummy keys, no update checks, and the stand-in of
/// the agent that reads each base-URL variable (`url("claude")` for
/// Anthropic's, `"gemini"` for Gemini's, `"qwen"` for OpenAI's; Codex reads
/// its own config, [`seed`]).
fn offline_env(env: &mut PrivateEnv, home: &Path, path: &str, url: impl Fn(&str) -> String) {
    let mut set = |k: &str, v: &dyn AsRef<std::ffi::OsStr>| env.set(k, v);
    set("PATH", &path);
    set("HOME", &home);
    set("LANG", &"C.UTF-8");
    set("TERM", &"xterm-256color");
    set("XDG_CONFIG_HOME", &home.join(".config"));
    set("XDG_DATA_HOME", &home.join(".local/share"));
    set("XDG_STATE_HOME", &home.join(".local/state"));
    set("XDG_CACHE_HOME", &home.join(".cache"));
    set("CODEX_HOME", &home.join(".codex"));
    set("ANTHROPIC_BASE_URL", &url("claude"));
    set("ANTHROPIC_API_KEY", &"sk-dummy");
    set("GOOGLE_GEMINI_BASE_URL", &url("gemini"));
    set("GEMINI_API_KEY", &"dummy");
    set("OPENAI_BASE_URL", &format!("{}/v1", url("qwen")));
    set("OPENAI_API_KEY", &"dummy");
    set("OPENAI_MODEL", &"standin");
    set("DISABLE_AUTOUPDATER", &"1");
    set("NO_UPDATE_NOTIFIER", &"1");
    set("CI", &"");
    fs::create_dir_all(home.join(".codex")).unwrap();
}

/// The first-run state a user of `agent` has after onboarding in `home`,
/// so no dialog stands between start-up and the prompt in `proj`; `url` is
/// the stand-in Codex's config names.
fn seed(agent: &str, home: &Path, proj: &Path, url: &str) {
    let proj = proj.to_string_lossy().into_owned();
    match agent {
        "claude" => {
            let state = json!({"hasCompletedOnboarding": true, "theme": "dark",
                "customApiKeyResponses": {"approved": ["sk-dummy"], "rejected": []},
                "projects": {proj: {"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}}});
            fs::write(home.join(".claude.json"), state.to_string()).unwrap();
        }
        "gemini" => {
            fs::create_dir_all(home.join(".gemini")).unwrap();
            let s = json!({"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
                "model": {"name": GEMINI_MODEL}});
            fs::write(home.join(".gemini/settings.json"), s.to_string()).unwrap();
        }
        "qwen" => {
            fs::create_dir_all(home.join(".qwen")).unwrap();
            let s = json!({"security": {"auth": {"selectedType": "openai"}}, "model": {"name": "standin"}});
            fs::write(home.join(".qwen/settings.json"), s.to_string()).unwrap();
        }
        _ => {
            // Codex reaches its model through a provider of the
            // config's own (it does not follow OPENAI_BASE_URL).
            let config = format!(
                "model = \"standin\"\nmodel_provider = \"standin\"\n\n\
                 [model_providers.standin]\nname = \"standin\"\nbase_url = \"{}/v1\"\n\
                 env_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n",
                url
            );
            fs::write(home.join(".codex/config.toml"), config).unwrap();
        }
    }
}

/// A user's directories under `root` (`home` with its `XDG_*` ones, and
/// `bin` holding agent-resume, as a user installs it) and the `PATH` that
/// finds agent-resume, each of `exes`, node, then the system's.
fn user_root(root: &Path, exes: &[PathBuf]) -> OsString {
    let node = require("node");
    for d in [
        "home/.config",
        "home/.local/share",
        "home/.local/state",
        "home/.cache",
        "bin",
    ] {
        fs::create_dir_all(root.join(d)).expect("creates the user's directories");
    }
    std::os::unix::fs::symlink(agent_resume(), root.join("bin/agent-resume"))
        .expect("links agent-resume");
    let mut path = vec![root.join("bin")];
    path.extend(exes.iter().map(|e| e.parent().unwrap().to_owned()));
    path.extend(
        [node.parent().unwrap(), Path::new("/usr/local/bin")]
            .map(Path::to_owned)
            .into_iter()
            .chain(["/usr/bin", "/bin"].map(PathBuf::from)),
    );
    std::env::join_paths(path).expect("a PATH")
}

/// An isolated home for one CLI: its environment, project directory and
/// the stand-in it talks to.
struct Sandbox {
    /// The CLI's own world: [`PrivateEnv::bare`] with each variable the CLI
    /// needs to start offline (its `XDG_*` under `HOME`, dummy keys, the
    /// stand-in's address, no update checks), which no shared shape gives.
    env: PrivateEnv,
    /// Kept for the sandbox's lifetime: dropped, it stops.
    server: StandIn,
    cli: &'static Cli,
    exe: PathBuf,
}

impl Sandbox {
    fn new(cli: &'static Cli, replies: bool) -> Sandbox {
        let exe = installed(cli);
        let mut env = PrivateEnv::bare(agent_resume());
        let root = env.root().to_owned();
        let home = root.join("home");
        fs::create_dir_all(root.join("work/proj")).expect("creates the project");
        let path = user_root(&root, std::slice::from_ref(&exe));
        let path = path.to_string_lossy().into_owned();
        let server = StandIn::start(replies);
        let url = server.url();
        offline_env(&mut env, &home, &path, |_| url.clone());
        let sb = Sandbox {
            env,
            server,
            cli,
            exe,
        };
        sb.seed();
        sb.ar_ok(&["enable"]);
        sb
    }

    fn root(&self) -> &Path {
        self.env.root()
    }
    fn home(&self) -> PathBuf {
        self.root().join("home")
    }
    fn proj(&self) -> PathBuf {
        self.root().join("work/proj")
    }
    fn name(&self) -> String {
        self.cli.name()
    }

    /// The first-run state of [`seed`] in the sandbox's home.
    fn seed(&self) {
        seed(
            self.cli.agent,
            &self.home(),
            &self.proj(),
            &self.server.url(),
        );
    }

    /// A command with exactly the sandbox's environment, in the project.
    fn command(&self, program: &Path) -> Command {
        let mut c = self.env.program(program, &[] as &[&str]).into_inner();
        c.current_dir(self.proj()).stdin(Stdio::null());
        c
    }

    fn ar(&self, args: &[&str]) -> Output {
        self.command(agent_resume())
            .args(args)
            .output()
            .expect("agent-resume runs")
    }

    fn ar_ok(&self, args: &[&str]) -> String {
        let out = self.ar(args);
        assert!(
            out.status.success(),
            "{}: agent-resume {args:?} failed: {}",
            self.name(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs the CLI to its end (bounded: killed and failed past
    /// [`RUN_LIMIT`]), with extra environment.
    fn cli(&self, args: &[&str], extra: &[(&str, &str)]) -> Output {
        let mut c = self.command(&self.exe);
        c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in extra {
            c.env(k, v);
        }
        let child = c.spawn().expect("the CLI starts");
        let pid = child.id();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        match rx.recv_timeout(RUN_LIMIT) {
            Ok(out) => out.expect("the CLI's output"),
            Err(_) => {
                kill_tree(pid);
                panic!(
                    "{}: `{} {args:?}` did not end within {RUN_LIMIT:?}",
                    self.name(),
                    self.cli.bin
                );
            }
        }
    }

    /// The recordings, as `recordings --json` lists them.
    fn recordings(&self) -> Vec<Value> {
        let out = self.ar_ok(&["recordings", "--json"]);
        serde_json::from_str::<Value>(&out)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }

    /// Every file under the agent's store whose name holds `id`.
    fn transcripts_of(&self, id: &str) -> Vec<PathBuf> {
        let store = store_dir(self.cli.agent, &self.home());
        let short = if self.cli.agent == "gemini" {
            &id[..8]
        } else {
            id
        };
        files_under(&store)
            .into_iter()
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy();
                n.contains(short) && n.ends_with(".jsonl")
            })
            .collect()
    }

    /// The id Gemini's chat file at `path` names (`sessionId`), or the
    /// file's own id for the other stores.
    fn transcript_id(&self, path: &Path) -> String {
        let text = fs::read_to_string(path).unwrap_or_default();
        let first: Value =
            serde_json::from_str(text.lines().next().unwrap_or("{}")).unwrap_or(Value::Null);
        first["sessionId"]
            .as_str()
            .or(first["payload"]["id"].as_str())
            .unwrap_or("")
            .to_owned()
    }

    /// A private tmux server whose panes have exactly the sandbox's
    /// environment; dropped, every process of its panes is killed by pid,
    /// then the server.
    fn tmux(&self) -> Server {
        let config = self.root().join("tmux.conf");
        fs::write(
            &config,
            "set -g remain-on-exit on\nset -g history-limit 10000\n",
        )
        .unwrap();
        let tmux = self.env.tmux(&config);
        tmux.ok(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            "200",
            "-y",
            "50",
            "-c",
        ]
        .iter()
        .map(OsString::from)
        .chain([
            self.proj().into_os_string(),
            "--".into(),
            require("sleep").into_os_string(),
            "100000".into(),
        ])
        .collect::<Vec<_>>());
        Server(tmux)
    }
}

/// A private tmux server whose panes' processes are killed by pid on drop
/// (a CLI may outlive `kill-server`).
struct Server(Tmux);

impl std::ops::Deref for Server {
    type Target = Tmux;
    fn deref(&self) -> &Tmux {
        &self.0
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        kill_panes(&self.0);
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// `pid` and every descendant, from `/proc`.
fn tree(pid: u32) -> Vec<u32> {
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        let parent = all[i];
        if let Ok(rd) = fs::read_dir("/proc") {
            for e in rd.flatten() {
                let Some(child) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                    continue;
                };
                let stat = fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
                let ppid = stat
                    .rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                    .and_then(|p| p.parse::<u32>().ok());
                if ppid == Some(parent) && !all.contains(&child) {
                    all.push(child);
                }
            }
        }
        i += 1;
    }
    all
}

/// Kills `pid` and its descendants (by pid, never by name).
fn kill_tree(pid: u32) {
    for p in tree(pid) {
        // A process of the tree may have ended meanwhile: kill's "No such
        // process" is expected, not news.
        let _ = Command::new("kill")
            .args(["-KILL", &p.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Kills every CLI process under the tmux server's panes.
fn kill_panes(tmux: &Tmux) {
    let out = tmux.run(&["list-panes", "-a", "-F", "#{pane_pid}"]);
    let pids = text(&out.stdout);
    for pid in pids.lines().filter_map(|p| p.trim().parse::<u32>().ok()) {
        kill_tree(pid);
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ----------------------------------------------------------- the runs ----

/// The argv of one interactive start of the CLI, as a user types it.
fn interactive(cli: &Cli, exe: &Path, flags: &[&str]) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![exe.into()];
    if cli.agent == "gemini" {
        argv.extend(["-m", GEMINI_MODEL].map(OsString::from));
    }
    argv.extend(flags.iter().map(OsString::from));
    argv
}

/// A headless one-turn run (`-p`, or `exec` for Codex).
fn headless_args<'a>(cli: &Cli, prompt: &'a str, resume: Option<&'a str>) -> Vec<&'a str> {
    let mut a: Vec<&str> = Vec::new();
    match (cli.agent, resume) {
        ("claude", r) => {
            a.push("-p");
            if let Some(id) = r {
                a.extend(["--resume", id]);
            }
            a.push(prompt);
        }
        ("gemini", r) => {
            a.extend(["-m", GEMINI_MODEL, "--skip-trust"]);
            if let Some(id) = r {
                a.extend(["--resume", id]);
            }
            a.extend(["-p", prompt]);
        }
        ("qwen", r) => {
            if let Some(id) = r {
                a.extend(["--resume", id]);
            }
            a.push(prompt);
        }
        (_, None) => a.extend(["exec", "--skip-git-repo-check", prompt]),
        (_, Some(id)) => a.extend(["exec", "--skip-git-repo-check", "resume", id, prompt]),
    }
    a
}

/// The error each CLI gives `--resume` of an id its store does not hold,
/// and its exit code (docs/agents.md, "Observed with the real CLIs
/// offline").
fn no_such_session(cli: &Cli) -> (&'static str, i32) {
    match cli.agent {
        "claude" => ("No conversation found with session ID", 1),
        "gemini" => ("Invalid session identifier", 42),
        "qwen" => ("No saved session found with ID", 1),
        _ => ("no rollout found for thread id", 1),
    }
}

/// Types `text` into a CLI's prompt and submits it. Codex and Gemini take
/// a fast burst of keys for a paste, where Enter is a newline: the Enter
/// that submits comes on its own, a moment later.
fn submit(tmux: &Tmux, pane: &str, text: &str) {
    tmux.ok(&["send-keys", "-t", pane, "-l", "--", text]);
    std::thread::sleep(Duration::from_secs(1));
    tmux.type_line(pane, "");
}

/// Whether the transcript at `path` holds the stand-in's reply.
fn holds_reply(path: &Path) -> bool {
    fs::read_to_string(path)
        .is_ok_and(|t| t.contains(r#""ok""#) || t.contains(r#"\"ok\""#) || t.contains(r#":"ok"#))
}

/// Types a prompt into the CLI's pane until its transcript for `id` holds
/// the stand-in's reply; the transcript. Typing again is harmless: the
/// CLI queues or ignores it.
fn turn(sb: &Sandbox, tmux: &Tmux, pane: &str, id: &str) -> PathBuf {
    let deadline = Instant::now() + agent_resume_test_support::PATIENCE;
    let mut typed = Instant::now() - Duration::from_secs(10);
    loop {
        let replied = sb.transcripts_of(id).into_iter().find(|p| holds_reply(p));
        if let Some(p) = replied {
            return p;
        }
        assert!(
            Instant::now() < deadline,
            "{}: no reply in the transcript of {id} ({:?}); the screen:\n{}",
            sb.name(),
            sb.transcripts_of(id),
            tmux.screen(pane)
        );
        if typed.elapsed() > Duration::from_secs(4) {
            submit(tmux, pane, "hello");
            typed = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Interactive conformance of one hook-capable CLI: install-hooks is
/// accepted, the hook fires in a tmux pane and records the pane, the
/// recorded id is the id of the transcript the CLI writes, and `--resume`
/// of that id gets past the CLI's "no such session" error while a made-up
/// id does not.
fn interactive_conformance(cli: &'static Cli) {
    let sb = Sandbox::new(cli, true);
    let name = sb.name();
    sb.ar_ok(&["install-hooks", cli.agent]);

    // The settings are accepted: a headless run with the hooks installed
    // completes a turn.
    let out = sb.cli(&headless_args(cli, "hi", None), &[]);
    assert!(
        out.status.success() && text(&out.stdout).contains("ok"),
        "{name}: a headless turn with agent-resume's hooks installed failed ({:?}):\n{}\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );

    let tmux = sb.tmux();
    let pane = tmux.spawn(&sb.proj(), &interactive(cli, &sb.exe, &[]));
    let rec = wait_for(
        &format!("{name}: the SessionStart hook's recording"),
        || {
            sb.recordings()
                .into_iter()
                .find(|r| r["agent"] == cli.agent)
        },
    );
    let pane_id = tmux.pane_format(&pane, "#{@agent_resume_pane}");
    assert_eq!(
        rec["pane"].as_str(),
        Some(pane_id.as_str()),
        "{name}: the recording is the pane's own (tmux option @agent_resume_pane)"
    );
    let id = rec["session_id"].as_str().expect("a session id").to_owned();

    // A turn makes the CLI write its transcript (Gemini keeps a chat only
    // once it got a reply).
    let transcript = turn(&sb, &tmux, &pane, &id);
    let written = sb.transcript_id(&transcript);
    if cli.agent == "gemini" {
        assert_eq!(
            written, id,
            "{name}: the recorded id is the id of the chat Gemini wrote"
        );
    }
    assert!(
        transcript.to_string_lossy().contains(&id[..8]),
        "{name}: the transcript {} is the recorded session {id}",
        transcript.display()
    );
    kill_panes(&tmux);

    let (refusal, code) = no_such_session(cli);
    let real = sb.cli(&headless_args(cli, "again", Some(&id)), &[]);
    let real_err = format!("{}{}", text(&real.stdout), text(&real.stderr));
    assert!(
        !real_err.contains(refusal) && !real_err.contains("No previous sessions found"),
        "{name}: `--resume {id}` of the recorded session is refused:\n{real_err}"
    );
    assert!(
        real.status.success(),
        "{name}: `--resume {id}` failed ({:?}):\n{real_err}",
        real.status
    );
    let fake = sb.cli(&headless_args(cli, "again", Some(MADE_UP)), &[]);
    let fake_err = format!("{}{}", text(&fake.stdout), text(&fake.stderr));
    assert!(
        fake_err.contains(refusal),
        "{name}: a made-up id is not refused with {refusal:?}:\n{fake_err}"
    );
    assert_eq!(
        fake.status.code(),
        Some(code),
        "{name}: exit code of a made-up id"
    );
}

#[test]
fn claude_code_accepts_the_hooks_records_its_transcripts_id_and_resumes_it() {
    interactive_conformance(&CLAUDE);
}

#[test]
fn gemini_cli_accepts_the_hooks_records_its_transcripts_id_and_resumes_it() {
    interactive_conformance(&GEMINI);
}

#[test]
fn qwen_code_accepts_the_hooks_records_its_transcripts_id_and_resumes_it() {
    interactive_conformance(&QWEN);
}

/// The pane's visible screen (no scrollback): what a user sees now.
fn visible(tmux: &Tmux, pane: &str) -> String {
    tmux.ok(&["capture-pane", "-p", "-t", pane])
}

/// The options of Codex's "Hooks need review" dialog at start.
const TRUST_ALL: &str = "Trust all and continue";
const WITHOUT_TRUSTING: &str = "Continue without trusting";

/// Starts Codex's TUI in a new pane and answers the "Hooks need review"
/// dialog it shows at start for the hook `install-hooks codex` added, as a
/// user does: Down moves the selection (`›`) until `choice` is selected on
/// screen, Enter takes it. Nothing is recorded while the dialog is up. The
/// pane.
fn codex_past_hook_review(sb: &Sandbox, tmux: &Tmux, choice: &str) -> String {
    let name = sb.name();
    let pane = tmux.spawn(&sb.proj(), &interactive(&CODEX, &sb.exe, &[]));
    let screen = codex_hook_review(&name, tmux, &pane, choice);
    assert!(
        sb.recordings().is_empty(),
        "{name}: a recording while the hook waits for review: {:?}",
        sb.recordings()
    );
    codex_answer_review(&name, tmux, &pane, choice, screen);
    pane
}

/// Waits for Codex's "Hooks need review" dialog offering `choice` in
/// `pane`; the screen.
fn codex_hook_review(name: &str, tmux: &Tmux, pane: &str, choice: &str) -> String {
    tmux.wait_screen(
        pane,
        &format!("{name}: the \"Hooks need review\" dialog at start"),
        |s| s.contains("Hooks need review") && s.contains(choice),
    )
}

/// Answers the review dialog on `screen` with `choice`, as a user does,
/// and waits for Codex's prompt.
fn codex_answer_review(name: &str, tmux: &Tmux, pane: &str, choice: &str, mut screen: String) {
    let selected = |screen: &str| {
        screen
            .lines()
            .any(|l| l.trim_start().starts_with('›') && l.contains(choice))
    };
    for _ in 0..4 {
        if selected(&screen) {
            break;
        }
        tmux.ok(&["send-keys", "-t", pane, "Down"]);
        std::thread::sleep(Duration::from_millis(500));
        screen = visible(tmux, pane);
    }
    assert!(
        selected(&screen),
        "{name}: {choice:?} cannot be selected with Down; the screen:\n{screen}"
    );
    tmux.ok(&["send-keys", "-t", pane, "Enter"]);
    tmux.wait_screen(
        pane,
        &format!("{name}: the prompt after {choice:?}"),
        |_| {
            let now = visible(tmux, pane);
            !now.contains("Hooks need review") && now.contains("OpenAI Codex")
        },
    );
}

/// Whether `config.toml` holds the trust Codex writes for a reviewed hook.
fn codex_trusts_a_hook(sb: &Sandbox) -> bool {
    fs::read_to_string(sb.home().join(".codex/config.toml"))
        .is_ok_and(|c| c.contains("[hooks.state") && c.contains("trusted_hash"))
}

/// Waits for the `notify` Codex's TUI sends for its own task-title thread
/// after a turn (that thread has no rollout: the hook logs it and records
/// nothing), then checks that the pane's recording is `id` and that `id` is
/// the id of exactly one rollout Codex wrote
/// (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`).
fn codex_recording_is_the_rollouts_id(sb: &Sandbox, pane_id: &str, id: &str) {
    let name = sb.name();
    let log = sb.home().join(".local/state/agent-resume/hook.log");
    wait_for(&format!("{name}: the task-title thread's notify"), || {
        fs::read_to_string(&log)
            .is_ok_and(|l| l.contains("no rollout"))
            .then_some(())
    });
    let recs: Vec<Value> = sb
        .recordings()
        .into_iter()
        .filter(|r| r["agent"] == "codex")
        .collect();
    assert!(
        recs.len() == 1
            && recs[0]["pane"].as_str() == Some(pane_id)
            && recs[0]["session_id"].as_str() == Some(id),
        "{name}: the pane {pane_id} is recorded with {id} alone: {recs:?}"
    );
    let rollouts = sb.transcripts_of(id);
    assert_eq!(
        rollouts.len(),
        1,
        "{name}: the recorded id {id} is a rollout's id: {:?}",
        files_under(&sb.home().join(".codex/sessions"))
    );
    let rollout = &rollouts[0];
    let file = rollout.file_name().unwrap().to_string_lossy().into_owned();
    let day = rollout
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .and_then(Path::parent);
    assert!(
        file.starts_with("rollout-")
            && file.ends_with(&format!("-{id}.jsonl"))
            && day == Some(sb.home().join(".codex/sessions").as_path())
            && sb.transcript_id(rollout) == id,
        "{name}: {} is not sessions/YYYY/MM/DD/rollout-…-{id}.jsonl naming {id}",
        rollout.display()
    );
}

/// `codex exec resume <id>` of the recorded session gets past "no rollout
/// found" and completes a turn; a made-up id does not.
fn codex_resumes(sb: &Sandbox, id: &str) {
    let name = sb.name();
    let (refusal, code) = no_such_session(&CODEX);
    let real = sb.cli(&headless_args(&CODEX, "again", Some(id)), &[]);
    let real_all = format!("{}{}", text(&real.stdout), text(&real.stderr));
    assert!(
        real.status.success() && !real_all.contains(refusal),
        "{name}: `exec resume {id}` is refused ({:?}):\n{real_all}",
        real.status
    );
    let fake = sb.cli(&headless_args(&CODEX, "again", Some(MADE_UP)), &[]);
    let fake_all = format!("{}{}", text(&fake.stdout), text(&fake.stderr));
    assert!(
        fake_all.contains(refusal),
        "{name}: a made-up id is not refused with {refusal:?}:\n{fake_all}"
    );
    assert_eq!(
        fake.status.code(),
        Some(code),
        "{name}: exit code of a made-up id"
    );
}

/// Codex with the hook trusted: `install-hooks codex --per-window` (each
/// TUI runs its own sessions and hooks; see the two-pane tests for Codex's
/// shared server) leaves a config Codex accepts (an `exec` turn completes, and is no recording); the TUI stops
/// at "Hooks need review"; after "Trust all and continue" the SessionStart
/// hook records the pane as the session starts — at the first prompt,
/// while the stand-in fails every model call, so no turn has completed and
/// `notify` cannot have run; after a completed turn the recorded id is
/// still that one and is the id of the rollout Codex wrote; a trusted
/// hook's `exec` run launched with a pane id is no recording; `exec resume`
/// of the id gets past "no rollout found" while a made-up id does not.
#[test]
fn codex_records_its_session_at_start_once_the_hook_is_trusted_and_resumes_its_rollouts_id() {
    let sb = Sandbox::new(&CODEX, true);
    let name = sb.name();
    let _daemons = CodexDaemons(&sb);
    sb.ar_ok(&["install-hooks", "codex", "--per-window"]);
    let hooks = fs::read_to_string(sb.home().join(".codex/hooks.json")).unwrap_or_default();
    assert!(
        hooks.contains("SessionStart") && hooks.contains("agent-resume hook codex"),
        "{name}: install-hooks codex wrote no SessionStart hook:\n{hooks}"
    );
    let out = sb.cli(&headless_args(&CODEX, "hi", None), &[]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        out.status.success(),
        "{name}: `codex exec` with agent-resume's hook and notify failed ({:?}):\n{all}",
        out.status
    );
    assert!(
        sb.recordings().is_empty(),
        "{name}: the exec run became a recording"
    );

    // No turn can complete from here until the replies are turned back on.
    sb.server.set_replies(false);
    let tmux = sb.tmux();
    let pane = codex_past_hook_review(&sb, &tmux, TRUST_ALL);
    assert!(
        codex_trusts_a_hook(&sb),
        "{name}: {TRUST_ALL:?} left no trust in config.toml"
    );
    let deadline = Instant::now() + agent_resume_test_support::PATIENCE;
    let mut typed = Instant::now() - Duration::from_secs(10);
    let rec = loop {
        if let Some(r) = sb.recordings().into_iter().find(|r| r["agent"] == "codex") {
            break r;
        }
        assert!(
            Instant::now() < deadline,
            "{name}: the trusted SessionStart hook recorded nothing at the session's start; \
             the screen:\n{}",
            tmux.screen(&pane)
        );
        if typed.elapsed() > Duration::from_secs(4) {
            submit(&tmux, &pane, "hello");
            typed = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let pane_id = tmux.pane_format(&pane, "#{@agent_resume_pane}");
    assert_eq!(
        rec["pane"].as_str(),
        Some(pane_id.as_str()),
        "{name}: the recording is the pane's own (tmux option @agent_resume_pane)"
    );
    let id = rec["session_id"].as_str().expect("a session id").to_owned();
    assert!(
        !sb.transcripts_of(&id).iter().any(|p| holds_reply(p)),
        "{name}: a turn completed before the recording; it may be notify's"
    );

    // A completed turn: the recorded id is the rollout's.
    if visible(&tmux, &pane).contains("esc to interrupt") {
        tmux.ok(&["send-keys", "-t", &pane, "Escape"]);
    }
    sb.server.set_replies(true);
    turn(&sb, &tmux, &pane, &id);
    codex_recording_is_the_rollouts_id(&sb, &pane_id, &id);

    // The trusted hook runs in `exec` too ("hook: SessionStart" on its
    // output); launched with a pane id it is still no recording.
    let out = sb.cli(
        &headless_args(&CODEX, "hi", None),
        &[("AGENT_RESUME_PANE", LAUNCHER_PANE)],
    );
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        out.status.success() && all.contains("hook: SessionStart"),
        "{name}: `codex exec` did not run the trusted SessionStart hook ({:?}):\n{all}",
        out.status
    );
    let recs = sb.recordings();
    assert!(
        recs.len() == 1 && recs[0]["session_id"].as_str() == Some(id.as_str()),
        "{name}: the trusted hook's exec run became a recording: {recs:?}"
    );
    drop(tmux);
    codex_resumes(&sb, &id);
}

/// Codex without trusting the hook (`--per-window`): after "Continue
/// without trusting" the turn-complete `notify` (the fallback) still
/// records the pane with the id of the rollout Codex wrote, and Codex keeps
/// no trust for the hook.
#[test]
fn codex_without_trusting_the_hook_is_recorded_by_notify_after_a_turn() {
    let sb = Sandbox::new(&CODEX, true);
    let name = sb.name();
    let _daemons = CodexDaemons(&sb);
    sb.ar_ok(&["install-hooks", "codex", "--per-window"]);
    let tmux = sb.tmux();
    let pane = codex_past_hook_review(&sb, &tmux, WITHOUT_TRUSTING);
    assert!(
        !codex_trusts_a_hook(&sb),
        "{name}: {WITHOUT_TRUSTING:?} left a trusted hook in config.toml"
    );
    let deadline = Instant::now() + agent_resume_test_support::PATIENCE;
    let mut typed = Instant::now() - Duration::from_secs(10);
    let rec = loop {
        if let Some(r) = sb.recordings().into_iter().find(|r| r["agent"] == "codex") {
            break r;
        }
        assert!(
            Instant::now() < deadline,
            "{name}: no recording from notify; the screen:\n{}",
            tmux.screen(&pane)
        );
        if typed.elapsed() > Duration::from_secs(4) {
            submit(&tmux, &pane, "hello");
            typed = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let id = rec["session_id"].as_str().expect("a session id").to_owned();
    assert!(
        sb.transcripts_of(&id).iter().any(|p| holds_reply(p)),
        "{name}: recorded before a turn completed, though the hook is not trusted"
    );
    let pane_id = tmux.pane_format(&pane, "#{@agent_resume_pane}");
    codex_recording_is_the_rollouts_id(&sb, &pane_id, &id);
}

/// The pids of the Codex app-server daemons running from this sandbox's
/// `$CODEX_HOME` (`…/.codex/packages/app-server-daemon/…/codex app-server
/// … --managed-daemon`), from `/proc`.
fn codex_daemons(sb: &Sandbox) -> Vec<u32> {
    let home = sb.home().join(".codex");
    let mut out = Vec::new();
    for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let raw = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let argv: Vec<String> = raw
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        if argv
            .first()
            .is_some_and(|a| Path::new(a).starts_with(&home))
            && argv.iter().any(|w| w == "app-server")
            && argv.iter().any(|w| w == "--managed-daemon")
        {
            out.push(pid);
        }
    }
    out
}

/// Kills every process running a program from the sandbox's `$CODEX_HOME`
/// (Codex's app-server daemon and its helper outlive the TUI that started
/// them), by pid.
struct CodexDaemons<'a>(&'a Sandbox);

impl Drop for CodexDaemons<'_> {
    fn drop(&mut self) {
        let home = self.0.home().join(".codex");
        for e in fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let raw = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let program = raw.split(|b| *b == 0).next().unwrap_or_default();
            if Path::new(&*String::from_utf8_lossy(program)).starts_with(&home) {
                kill_tree(pid);
            }
        }
    }
}

/// Starts another Codex TUI in a new pane once the hook is trusted (no
/// review dialog); the pane.
fn codex_another_tui(sb: &Sandbox, tmux: &Tmux) -> String {
    let pane = tmux.spawn(&sb.proj(), &interactive(&CODEX, &sb.exe, &[]));
    tmux.wait_screen(
        &pane,
        &format!("{}: the second TUI's prompt", sb.name()),
        |_| {
            let now = visible(tmux, &pane);
            !now.contains("Hooks need review") && now.contains("OpenAI Codex")
        },
    );
    pane
}

/// Submits `word` in the pane until the rollout that holds it has the
/// stand-in's reply; that rollout's id.
fn codex_turn_saying(sb: &Sandbox, tmux: &Tmux, pane: &str, word: &str) -> String {
    let deadline = Instant::now() + agent_resume_test_support::PATIENCE;
    let mut typed = Instant::now() - Duration::from_secs(10);
    loop {
        let rollout = files_under(&sb.home().join(".codex/sessions"))
            .into_iter()
            .find(|p| fs::read_to_string(p).is_ok_and(|t| t.contains(word)) && holds_reply(p));
        if let Some(p) = rollout {
            return sb.transcript_id(&p);
        }
        assert!(
            Instant::now() < deadline,
            "{}: no rollout with {word:?} and a reply; the screen:\n{}",
            sb.name(),
            tmux.screen(pane)
        );
        if typed.elapsed() > Duration::from_secs(4) {
            submit(tmux, pane, word);
            typed = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The panes of `mine` (pane id, that pane's own rollout id) the Codex
/// recordings name; fails when any recording holds another pane's session
/// or names no pane of the test.
fn codex_recordings_are_their_own(sb: &Sandbox, mine: &[(String, String)]) -> Vec<String> {
    let name = sb.name();
    let recs: Vec<Value> = sb
        .recordings()
        .into_iter()
        .filter(|r| r["agent"] == "codex")
        .collect();
    let mut recorded = Vec::new();
    for r in &recs {
        let pane = r["pane"].as_str().unwrap_or_default();
        let own = mine.iter().find(|(p, _)| p == pane);
        assert!(
            own.is_some_and(|(_, id)| r["session_id"].as_str() == Some(id)),
            "{name}: a pane holds a session that is not its own; panes and their rollouts: \
             {mine:?}; recordings: {recs:?}"
        );
        recorded.push(pane.to_owned());
    }
    recorded
}

/// Two Codex TUIs side by side in two panes of one `$CODEX_HOME`, the hook
/// trusted, a turn in each (pane A says "alpha", pane B "bravo"); then the
/// recordings after both panes' hooks and notifies ran.
fn codex_two_panes(per_window: bool) -> (Sandbox, Vec<(String, String)>, Vec<String>) {
    let sb = Sandbox::new(&CODEX, true);
    let name = sb.name();
    if per_window {
        sb.ar_ok(&["install-hooks", "codex", "--per-window"]);
    } else {
        sb.ar_ok(&["install-hooks", "codex"]);
    }
    let recorded = {
        let _daemons = CodexDaemons(&sb);
        let tmux = sb.tmux();
        let a = codex_past_hook_review(&sb, &tmux, TRUST_ALL);
        let b = codex_another_tui(&sb, &tmux);
        let id_a = codex_turn_saying(&sb, &tmux, &a, "alpha");
        let id_b = codex_turn_saying(&sb, &tmux, &b, "bravo");
        assert_ne!(id_a, id_b, "{name}: two panes, two rollouts");
        assert_eq!(
            codex_daemons(&sb).is_empty(),
            per_window,
            "{name}: Codex's app-server daemon runs exactly when daemon_auto_start is on"
        );
        // Each TUI's first turn ends with the notify of its task-title
        // thread, after the turn's own: both panes' reports have run.
        let log = sb.home().join(".local/state/agent-resume/hook.log");
        wait_for(&format!("{name}: both TUIs' task-title notifies"), || {
            (fs::read_to_string(&log)
                .unwrap_or_default()
                .matches("no rollout")
                .count()
                >= 2)
                .then_some(())
        });
        let pane_id = |p: &str| tmux.pane_format(p, "#{@agent_resume_pane}");
        let mine = vec![(pane_id(&a), id_a), (pane_id(&b), id_b)];
        if per_window {
            // Both recorded by their own SessionStart hooks.
            wait_for(&format!("{name}: both panes recorded"), || {
                (codex_recordings_are_their_own(&sb, &mine).len() == 2).then_some(())
            });
        }
        let recorded = codex_recordings_are_their_own(&sb, &mine);
        drop(tmux);
        (mine, recorded)
    };
    (sb, recorded.0, recorded.1)
}

/// Codex 0.171's default: the TUIs share one app-server daemon (started by
/// the first, with its environment, `TMUX_PANE` included), where both
/// their SessionStart hooks and notifies run. Neither pane ever holds the
/// other's session: the hook sees the daemon above it, logs
/// `shared-server` and records nothing.
#[test]
fn two_codex_panes_sharing_codex_s_background_server_never_hold_each_other_s_session() {
    let (sb, _mine, _recorded) = codex_two_panes(false);
    let log = fs::read_to_string(sb.home().join(".local/state/agent-resume/hook.log"))
        .unwrap_or_default();
    assert!(
        log.contains("codex shared-server:"),
        "{}: the hook under the daemon logged no shared-server line:\n{log}",
        sb.name()
    );
}

/// With `install-hooks codex --per-window` (`[features] daemon_auto_start
/// = false`) each TUI runs its own sessions and hooks: each pane is
/// recorded with its own rollout's id.
#[test]
fn two_codex_panes_with_per_window_capture_are_each_recorded_with_their_own_rollout() {
    let (sb, mine, recorded) = codex_two_panes(true);
    assert_eq!(
        recorded.len(),
        2,
        "{}: both panes recorded: {mine:?}",
        sb.name()
    );
}

/// A pane id as a launcher sets it (`AGENT_RESUME_PANE`), with no shell
/// integration.
const LAUNCHER_PANE: &str = "7d3c1f2a-5b6e-4c8d-9a0b-1c2d3e4f5a6b";

/// `-p` / `exec` runs fire the CLIs' hooks (and Codex's `notify`) but are
/// never a pane's recording, whoever launched them.
#[test]
fn headless_runs_of_every_cli_never_become_a_pane_recording() {
    let mut recorded = Vec::new();
    for cli in [&CLAUDE, &GEMINI, &QWEN, &CODEX] {
        let sb = Sandbox::new(cli, true);
        let name = sb.name();
        sb.ar_ok(&["install-hooks", cli.agent]);
        let out = sb.cli(
            &headless_args(cli, "hi", None),
            &[("AGENT_RESUME_PANE", LAUNCHER_PANE)],
        );
        assert!(
            out.status.success(),
            "{name}: the headless run failed ({:?}):\n{}\n{}",
            out.status,
            text(&out.stdout),
            text(&out.stderr)
        );
        let recs = sb.recordings();
        if !recs.is_empty() {
            recorded.push(format!("{name}: {recs:?}"));
        }
    }
    assert!(
        recorded.is_empty(),
        "headless runs became pane recordings:\n{}",
        recorded.join("\n")
    );
}

/// The shell integration in bash, and the CLI under it, as a user runs it.
fn bash_pane(sb: &Sandbox, tmux: &Tmux) -> String {
    fs::write(
        sb.home().join(".bashrc"),
        "PS1='bash$ '\neval \"$(agent-resume init bash)\"\n",
    )
    .unwrap();
    let pane = tmux.spawn(&sb.proj(), &["bash", "-i"]);
    tmux.wait_screen(&pane, "the bash prompt", |s| s.contains("bash$"));
    pane
}

/// `claude --permission-mode acceptEdits`, `/exit`, then `clear; claude` in
/// the same pane: the second run is recorded with its own flags (none),
/// never the first run's posture.
#[test]
fn a_later_clear_then_claude_is_recorded_with_its_own_flags_only() {
    let sb = Sandbox::new(&CLAUDE, true);
    let name = sb.name();
    sb.ar_ok(&["install-hooks", "claude"]);
    fs::write(
        sb.root().join("bin/claude"),
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", sb.exe.display()),
    )
    .unwrap();
    fs::set_permissions(
        sb.root().join("bin/claude"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let tmux = sb.tmux();
    let pane = bash_pane(&sb, &tmux);

    tmux.type_line(&pane, "claude --permission-mode acceptEdits");
    let first = wait_for(&format!("{name}: the first run's recording"), || {
        sb.recordings().into_iter().find(|r| r["agent"] == "claude")
    });
    let flags = first["flags"].to_string();
    assert!(
        flags.contains("acceptEdits"),
        "{name}: the first run is recorded with its own --permission-mode: {first}"
    );
    tmux.wait_screen(&pane, &format!("{name}: its prompt"), |s| s.contains('❯'));
    tmux.type_line(&pane, "/exit");
    tmux.wait_screen(&pane, "the bash prompt after /exit", |s| {
        s.matches("bash$").count() >= 2
    });

    tmux.type_line(&pane, "clear; claude");
    let first_id = first["session_id"].clone();
    let second = wait_for(&format!("{name}: the second run's recording"), || {
        sb.recordings()
            .into_iter()
            .find(|r| r["agent"] == "claude" && r["session_id"] != first_id)
    });
    kill_panes(&tmux);
    let flags = second["flags"].to_string();
    assert!(
        !flags.contains("acceptEdits") && !flags.contains("permission-mode"),
        "{name}: `clear; claude` was recorded with the earlier run's posture: {second}"
    );
}

/// A layout with one pane in the project, for `plan`.
fn layout(sb: &Sandbox, pane: &str) -> PathBuf {
    let p = sb.root().join("layout.json");
    let l = json!({"startup": true, "windows": [{"landing": true, "visible": true, "active_tab": 0,
        "tabs": [{"focused_pane": pane, "panes": [{"id": pane, "cwd": sb.proj(), "shell": "bash"}]}]}]});
    fs::write(&p, l.to_string()).unwrap();
    p
}

/// The plan's reason for a pane recorded with Gemini session `id`.
fn plan_reason(sb: &Sandbox, id: &str) -> Value {
    let proj = sb.proj();
    sb.ar_ok(&[
        "record",
        "--pane",
        LAUNCHER_PANE,
        "--agent",
        "gemini",
        "--session-id",
        id,
        "--cwd",
        proj.to_str().unwrap(),
        "--invocation",
        "gemini",
    ]);
    let l = layout(sb, LAUNCHER_PANE);
    let out = sb.ar_ok(&["plan", "--json", "--layout", l.to_str().unwrap()]);
    let rows: Value = serde_json::from_str(&out).expect("plan --json");
    rows[0]["reason"].clone()
}

/// The id of a Gemini `-o json` run.
fn gemini_session(sb: &Sandbox) -> String {
    let out = sb.cli(
        &["-m", GEMINI_MODEL, "--skip-trust", "-o", "json", "-p", "hi"],
        &[],
    );
    let stdout = text(&out.stdout);
    let start = stdout.find('{').unwrap_or(0);
    let v: Value = serde_json::from_str(&stdout[start..]).unwrap_or(Value::Null);
    match v["session_id"].as_str() {
        Some(id) => id.to_owned(),
        None => {
            // A failed turn prints no result: the id is the chat file's.
            let chats = files_under(&sb.home().join(".gemini/tmp"));
            let chat = chats
                .iter()
                .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .unwrap_or_else(|| {
                    panic!(
                        "{}: no chat file after a run:\n{stdout}\n{}",
                        sb.name(),
                        text(&out.stderr)
                    )
                });
            sb.transcript_id(chat)
        }
    }
}

/// A Gemini session whose only turn failed is one Gemini itself will not
/// resume: the plan says `session_missing`; one whose turn completed is
/// resumed.
#[test]
fn a_gemini_session_whose_only_turn_failed_plans_as_session_missing() {
    let failed = Sandbox::new(&GEMINI, false);
    let name = failed.name();
    let id = gemini_session(&failed);
    let resumed = failed.cli(&headless_args(&GEMINI, "again", Some(&id)), &[]);
    let said = format!("{}{}", text(&resumed.stdout), text(&resumed.stderr));
    assert!(
        said.contains("No previous sessions found"),
        "{name}: Gemini resumes a session whose only turn failed:\n{said}"
    );
    assert_eq!(
        plan_reason(&failed, &id),
        json!("session_missing"),
        "{name}: failed-turn session"
    );

    let replied = Sandbox::new(&GEMINI, true);
    let id = gemini_session(&replied);
    assert_eq!(
        plan_reason(&replied, &id),
        Value::Null,
        "{name}: a replied session is resumed"
    );
}

// ------------------------------------------------------- zero-config ----

/// The store where `cli` writes its session files.
fn store_of(sb: &Sandbox) -> PathBuf {
    store_dir(sb.cli.agent, &sb.home())
}

/// The folder under `home` where `agent` writes its session files.
fn store_dir(agent: &str, home: &Path) -> PathBuf {
    match agent {
        "claude" => home.join(".claude/projects"),
        "gemini" => home.join(".gemini/tmp"),
        "qwen" => home.join(".qwen/projects"),
        _ => home.join(".codex/sessions"),
    }
}

/// Types a prompt into the CLI's pane until a session file of its store
/// holds the stand-in's reply; that file.
fn session_file_after_a_turn(sb: &Sandbox, tmux: &Tmux, pane: &str) -> PathBuf {
    let deadline = Instant::now() + agent_resume_test_support::PATIENCE;
    let mut typed = Instant::now() - Duration::from_secs(10);
    loop {
        let replied = files_under(&store_of(sb))
            .into_iter()
            .find(|p| p.extension().is_some_and(|e| e == "jsonl") && holds_reply(p));
        if let Some(p) = replied {
            return p;
        }
        assert!(
            Instant::now() < deadline,
            "{}: no session file with a reply under {}; the screen:\n{}",
            sb.name(),
            store_of(sb).display(),
            tmux.screen(pane)
        );
        if typed.elapsed() > Duration::from_secs(4) {
            submit(tmux, pane, "hello");
            typed = Instant::now();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The session id of the session file at `path`, as the CLI itself names
/// it: Claude's and Qwen's file name (`<id>.jsonl`), Gemini's `sessionId`,
/// Codex's `session_meta` id.
fn session_file_id(sb: &Sandbox, path: &Path) -> String {
    match sb.cli.agent {
        "claude" | "qwen" => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        _ => sb.transcript_id(path),
    }
}

/// The flags of a recording as one line (`--model x --yolo`).
fn flags_line(rec: &Value) -> String {
    match &rec["flags"] {
        Value::Array(a) => a
            .iter()
            .flat_map(|f| [&f["name"], &f["value"]])
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect::<Vec<_>>()
            .join(" "),
        v => v.as_str().unwrap_or_default().to_owned(),
    }
}

/// One `agent-resume tmux save` of the sandbox's tmux server.
fn tmux_save(sb: &Sandbox, tmux: &Tmux) {
    let out = sb
        .command(agent_resume())
        .args(["tmux", "save", "-L", tmux.socket()])
        .env("TMUX_TMPDIR", tmux.tmpdir())
        .output()
        .expect("agent-resume runs");
    assert!(
        out.status.success(),
        "{}: agent-resume tmux save failed: {}",
        sb.name(),
        text(&out.stderr)
    );
}

/// Zero-config capture of one real CLI: with no hook installed, the CLI
/// started in a tmux pane with `flags` completes a turn, so its session
/// file exists; one `tmux save` then records the pane with the id of that
/// file and exactly `want_flags`. A headless run in another pane of the
/// same directory, stopped once it wrote its own session file (its model
/// call waiting on a listener that never answers), is never recorded by a
/// save, and the first pane keeps its id.
fn zero_config_capture(cli: &'static Cli, flags: &[&str], want_flags: &str) {
    let sb = Sandbox::new(cli, true);
    let name = sb.name();
    let tmux = sb.tmux();
    let pane = tmux.spawn(&sb.proj(), &interactive(cli, &sb.exe, flags));
    let file = session_file_after_a_turn(&sb, &tmux, &pane);
    let id = session_file_id(&sb, &file);
    assert!(
        !id.is_empty(),
        "{name}: the session file {} names no id",
        file.display()
    );
    assert!(
        sb.recordings().is_empty(),
        "{name}: recorded with no hook and before any save: {:?}",
        sb.recordings()
    );

    tmux_save(&sb, &tmux);
    let pane_id = tmux.pane_format(&pane, "#{@agent_resume_pane}");
    let recs = sb.recordings();
    assert!(
        recs.len() == 1
            && recs[0]["agent"] == cli.agent
            && recs[0]["pane"].as_str() == Some(pane_id.as_str())
            && recs[0]["session_id"].as_str() == Some(id.as_str()),
        "{name}: with no hook, one save records the pane {pane_id} with the id {id} of the \
         session file {} it wrote; recordings: {recs:?}",
        file.display()
    );
    assert_eq!(
        flags_line(&recs[0]),
        want_flags,
        "{name}: the zero-config recording carries exactly the allowlisted flags of the run"
    );

    // A headless run in another pane, alive while a save looks at it: its
    // model calls go to a listener that never answers, so it waits once it
    // wrote its own session file; it is then stopped.
    let hole = TcpListener::bind("127.0.0.1:0").expect("binds 127.0.0.1:0");
    let hole_url = format!("http://{}", hole.local_addr().expect("the bound address"));
    let config = sb.home().join(".codex/config.toml");
    if let Ok(c) = fs::read_to_string(&config) {
        fs::write(&config, c.replace(&sb.server.url(), &hole_url)).unwrap();
    }
    let env_bin = require("env");
    let mut argv: Vec<OsString> = vec![env_bin.clone().into_os_string()];
    argv.extend(
        [
            format!("ANTHROPIC_BASE_URL={hole_url}"),
            format!("GOOGLE_GEMINI_BASE_URL={hole_url}"),
            format!("OPENAI_BASE_URL={hole_url}/v1"),
        ]
        .map(OsString::from),
    );
    argv.push(sb.exe.clone().into());
    argv.extend(
        headless_args(cli, "hi", None)
            .into_iter()
            .map(OsString::from),
    );
    let before = files_under(&store_of(&sb));
    let headless = tmux.spawn(&sb.proj(), &argv);
    let pid: u32 = tmux
        .pane_format(&headless, "#{pane_pid}")
        .parse()
        .expect("the headless pane's pid");
    let env_word = env_bin.as_os_str().as_encoded_bytes().to_vec();
    wait_for(&format!("{name}: the headless run's process"), || {
        fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| {
                !c.starts_with(&env_word) && String::from_utf8_lossy(&c).contains(cli.bin)
            })
            .then_some(())
    });
    let own_file = || {
        files_under(&store_of(&sb))
            .into_iter()
            .find(|p| !before.contains(p) && p.extension().is_some_and(|e| e == "jsonl"))
    };
    let waited = Instant::now();
    while own_file().is_none() && waited.elapsed() < agent_resume_test_support::PATIENCE {
        std::thread::sleep(Duration::from_millis(50));
    }
    let own = own_file();
    for p in tree(pid) {
        let _ = Command::new("kill")
            .args(["-STOP", &p.to_string()])
            .stderr(Stdio::null())
            .status();
    }
    assert!(
        Path::new(&format!("/proc/{pid}")).exists()
            && tmux.pane_format(&headless, "#{pane_dead}") == "0",
        "{name}: the headless run ended before the save could see it; the screen:\n{}",
        tmux.screen(&headless)
    );
    let own = own.unwrap_or_else(|| {
        panic!(
            "{name}: the headless run wrote no session file of its own; the screen:\n{}",
            tmux.screen(&headless)
        )
    });
    tmux_save(&sb, &tmux);
    let headless_id = tmux.pane_format(&headless, "#{@agent_resume_pane}");
    let after = sb.recordings();
    assert!(
        after.len() == 1
            && after[0]["pane"].as_str() == Some(pane_id.as_str())
            && after[0]["session_id"].as_str() == Some(id.as_str())
            && !after
                .iter()
                .any(|r| r["pane"].as_str() == Some(headless_id.as_str())),
        "{name}: a save recorded the headless run `{:?}` (pane {headless_id}, its session \
         file {}): {after:?}",
        headless_args(cli, "hi", None),
        own.display()
    );
    drop(tmux);
}

#[test]
fn claude_code_with_no_hook_is_recorded_by_one_tmux_save_with_its_transcripts_id_and_flags() {
    zero_config_capture(&CLAUDE, &["--model", "sonnet"], "--model sonnet");
}

#[test]
fn gemini_cli_with_no_hook_is_recorded_by_one_tmux_save_with_its_chats_id_and_flags() {
    zero_config_capture(&GEMINI, &[], &format!("--model {GEMINI_MODEL}"));
}

#[test]
fn qwen_code_with_no_hook_is_recorded_by_one_tmux_save_with_its_chats_id_and_flags() {
    zero_config_capture(&QWEN, &["--model", "standin"], "--model standin");
}

#[test]
fn codex_with_no_hook_is_recorded_by_one_tmux_save_with_its_rollouts_id_and_flags() {
    zero_config_capture(&CODEX, &["-m", "standin"], "--model standin");
}

/// Two Codex TUIs in one directory share one background server (`codex
/// app-server --managed-daemon`), started by the first TUI and running
/// below it in the first pane's process tree, holding open the rollouts of
/// both. After a turn in the second pane only, one save never records the
/// first pane with the second pane's rollout id.
#[test]
fn two_codex_panes_sharing_one_app_server_are_never_recorded_with_each_others_rollout() {
    let sb = Sandbox::new(&CODEX, true);
    let name = sb.name();
    let tmux = sb.tmux();
    let first = tmux.spawn(&sb.proj(), &interactive(&CODEX, &sb.exe, &[]));
    tmux.wait_screen(&first, &format!("{name}: the first TUI"), |_| {
        visible(&tmux, &first).contains("OpenAI Codex")
    });
    let first_pid: u32 = tmux.pane_format(&first, "#{pane_pid}").parse().unwrap();
    wait_for(
        &format!("{name}: the app-server below the first TUI"),
        || {
            tree(first_pid)
                .into_iter()
                .any(|p| {
                    fs::read(format!("/proc/{p}/cmdline"))
                        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("app-server"))
                })
                .then_some(())
        },
    );
    let second = tmux.spawn(&sb.proj(), &interactive(&CODEX, &sb.exe, &[]));
    tmux.wait_screen(&second, &format!("{name}: the second TUI"), |_| {
        visible(&tmux, &second).contains("OpenAI Codex")
    });
    let file = session_file_after_a_turn(&sb, &tmux, &second);
    let id = session_file_id(&sb, &file);
    tmux_save(&sb, &tmux);
    let first_id = tmux.pane_format(&first, "#{@agent_resume_pane}");
    let second_id = tmux.pane_format(&second, "#{@agent_resume_pane}");
    let recs = sb.recordings();
    eprintln!("{name}: two TUIs, one app-server: {recs:?}");
    assert!(
        !recs
            .iter()
            .any(|r| r["pane"].as_str() == Some(first_id.as_str())
                && r["session_id"].as_str() == Some(id.as_str())),
        "{name}: the first pane {first_id} is recorded with the second pane's rollout id {id}: \
         {recs:?}"
    );
    assert!(
        recs.iter()
            .filter(|r| r["pane"].as_str() == Some(second_id.as_str()))
            .all(|r| r["session_id"].as_str() == Some(id.as_str())),
        "{name}: the second pane {second_id} is recorded with another id than its rollout's \
         {id}: {recs:?}"
    );
    // The real daemon keeps serving both windows whatever config.toml says
    // now: `--per-window` names it (its pid) instead of claiming each
    // window runs its own sessions.
    let daemons = wait_for(&format!("{name}: the managed daemon"), || {
        Some(codex_daemons(&sb)).filter(|d| !d.is_empty())
    });
    let out = sb.ar(&["install-hooks", "codex", "--per-window"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {said}");
    assert!(
        daemons.iter().any(|pid| said.contains(&pid.to_string()))
            && said.contains("shared background server is running (pid"),
        "{name}: install names the running daemon {daemons:?}: {said}"
    );
    assert!(
        !said.contains("each Codex window runs its own sessions"),
        "{name}: {said}"
    );
}

// ------------------------------------------------------ real restarts ----

/// The variable marking every process of a [`Machine`] (its value is the
/// machine's temp dir), so a reboot ends exactly the machine's processes.
const MACHINE_MARK: &str = "AGENT_RESUME_TEST_REAL_RESTART";

/// The prompt of a machine's bash panes.
const BASH_PROMPT: &str = "bash$";

/// What one seat of a [`Machine`] does before the restart, and what its
/// agent is asked after it.
#[derive(Clone, Copy)]
struct Script {
    cli: &'static Cli,
    /// The flags its first run is typed with (long forms, as a recording
    /// carries them).
    flags: &'static [&'static str],
    /// The first turn's prompt: a word no other seat's prompt, no
    /// conversation's reply and no agent's own instructions hold.
    prompt: &'static str,
    /// The prompt typed after the restart, whose request must carry the
    /// seat's conversation.
    recall: &'static str,
    /// How long after the agent's start its first prompt is typed.
    first_prompt_after: Duration,
    /// `/clear` typed after the first turn, then a second turn with this
    /// prompt: the conversation the pane must come back on.
    clear_then: Option<&'static str>,
}

impl Script {
    /// One turn saying "hello" as soon as the agent is up; "recall" after
    /// the restart.
    const fn new(cli: &'static Cli, flags: &'static [&'static str]) -> Script {
        Script {
            cli,
            flags,
            prompt: "hello",
            recall: "recall",
            first_prompt_after: Duration::ZERO,
            clear_then: None,
        }
    }
}

/// One agent of a [`Machine`]: its [`Script`], the stand-in it talks to
/// (shared by the seats of one agent: they share its config), whose
/// replies to this seat's prompts say `marker` (`before_clear` for a
/// request holding the prompt before `/clear`), and its project directory.
struct Seat {
    script: Script,
    cli: &'static Cli,
    flags: &'static [&'static str],
    server: Arc<StandIn>,
    marker: String,
    before_clear: String,
    dir: PathBuf,
}

impl Seat {
    /// The line a user types to start the agent.
    fn line(&self) -> String {
        let mut words = vec![self.cli.bin];
        words.extend(self.flags);
        words.join(" ")
    }

    /// The prompt of the turn whose conversation the pane must come back
    /// on.
    fn last_prompt(&self) -> &'static str {
        self.script.clear_then.unwrap_or(self.script.prompt)
    }
}

/// A user's machine with real agent CLIs, as a user sets it up:
/// `~/.bashrc` loads `init bash`, `~/.tmux.conf` loads `init tmux` (and
/// makes bash the panes' shell), `agent-resume enable` and `install-hooks`
/// for each agent were run, and every CLI talks to its own stand-in. The
/// tmux server starts with the first command that makes a session.
/// Dropped, the server and every process of the machine are killed, by
/// pid.
struct Machine {
    /// Declared first: killed before the temp dir goes.
    tmux: Tmux,
    env: PrivateEnv,
    seats: Vec<Seat>,
}

impl Machine {
    /// `hooks`: whether `install-hooks` is run for each agent (otherwise
    /// the agents are captured with no hook, by the saves' scans).
    fn new(agents: &[(&'static Cli, &'static [&'static str])], hooks: bool) -> Machine {
        let scripts: Vec<Script> = agents
            .iter()
            .map(|(cli, flags)| Script::new(cli, flags))
            .collect();
        Machine::seated(&scripts, hooks)
    }

    /// A machine with a seat for each of `scripts`.
    fn seated(scripts: &[Script], hooks: bool) -> Machine {
        let bash = require("bash");
        require("tmux");
        let exes: Vec<PathBuf> = scripts.iter().map(|s| installed(s.cli)).collect();
        let mut env = PrivateEnv::bare(agent_resume());
        let root = env.root().to_owned();
        let home = root.join("home");
        let path = user_root(&root, &exes);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let mut seats: Vec<Seat> = Vec::new();
        for (i, script) in scripts.iter().enumerate() {
            let cli = script.cli;
            let first = seats.iter().find(|s| s.cli.agent == cli.agent);
            let dir = match first {
                None => root.join("work").join(cli.agent),
                Some(_) => root.join("work").join(format!("{}-{i}", cli.agent)),
            };
            fs::create_dir_all(&dir).expect("creates the project");
            // Words no prompt, file name, id or other marker holds.
            let marker = format!("zqx{}s{i}n{nanos}", cli.agent);
            let before_clear = format!("zqy{}s{i}n{nanos}", cli.agent);
            let server = match first {
                None => {
                    let server = Arc::new(StandIn::start(true));
                    server.set_text(&format!("ok {marker}"));
                    server
                }
                Some(f) => {
                    // Replies name a seat only by its own prompt.
                    f.server.set_text("ok");
                    Arc::clone(&f.server)
                }
            };
            if let Some(then) = script.clear_then {
                server.reply_to(script.prompt, &format!("ok {before_clear}"));
                server.reply_to(then, &format!("ok {marker}"));
            } else {
                server.reply_to(script.prompt, &format!("ok {marker}"));
            }
            seats.push(Seat {
                script: *script,
                cli,
                flags: script.flags,
                server,
                marker,
                before_clear,
                dir,
            });
        }
        let url = |agent: &str| {
            seats
                .iter()
                .find(|s| s.cli.agent == agent)
                .map_or_else(|| "http://127.0.0.1:9".to_owned(), |s| s.server.url())
        };
        offline_env(&mut env, &home, &path.to_string_lossy(), url);
        env.set("SHELL", &bash);
        env.set(MACHINE_MARK, &root);
        for s in &seats {
            (s.cli.setup)(&mut Setup {
                cli: s.cli,
                home: &home,
                proj: &s.dir,
                url: &s.server.url(),
                env: &mut env,
            });
        }
        fs::write(
            home.join(".bashrc"),
            format!("PS1='{BASH_PROMPT} '\neval \"$(agent-resume init bash)\"\n"),
        )
        .unwrap();
        fs::write(
            home.join(".tmux.conf"),
            "set -g default-command \"bash -i\"\n\
             run-shell 'agent-resume init tmux | tmux source-file -'\n",
        )
        .unwrap();
        let tmux = env.tmux(&home.join(".tmux.conf"));
        let m = Machine { tmux, env, seats };
        m.ar_ok(&["enable"]);
        let mut agents: Vec<&str> = Vec::new();
        for s in &m.seats {
            if !agents.contains(&s.cli.agent) {
                agents.push(s.cli.agent);
            }
        }
        for agent in agents.into_iter().filter(|_| hooks) {
            if agent == "codex" {
                // Each TUI runs its own sessions and hooks (see the
                // two-pane tests for Codex's shared server).
                m.ar_ok(&["install-hooks", "codex", "--per-window"]);
            } else {
                m.ar_ok(&["install-hooks", agent]);
            }
        }
        m
    }

    fn root(&self) -> &Path {
        self.env.root()
    }

    fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// `restore.log`, beside the telemetry file.
    fn log(&self) -> PathBuf {
        self.home().join(".local/state/agent-resume/restore.log")
    }

    /// agent-resume with the machine's environment, reaching its server.
    fn ar(&self, args: &[&str]) -> Output {
        let mut c = self.env.command(args);
        c.reach(&self.tmux).current_dir(self.root());
        c.output()
    }

    fn ar_ok(&self, args: &[&str]) -> String {
        let out = self.ar(args);
        assert!(
            out.status.success(),
            "agent-resume {args:?} failed: {}",
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    /// The recordings, as `recordings --json` lists them.
    fn recordings(&self) -> Vec<Value> {
        let out = self.ar_ok(&["recordings", "--json"]);
        serde_json::from_str::<Value>(&out)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }

    /// The machine's processes: pid and command line.
    fn processes(&self) -> Vec<(u32, String)> {
        agent_resume_test_support::tmux::marked(MACHINE_MARK, self.root())
    }

    /// Waits until no save of the machine runs for a while.
    fn wait_settled(&self) {
        let mut quiet = 0;
        wait_for("the machine's saves to settle", || {
            let busy = self
                .processes()
                .iter()
                .any(|(_, c)| c.contains("tmux save") || c.contains("tmux start"));
            quiet = if busy { 0 } else { quiet + 1 };
            (quiet >= 25).then_some(())
        });
    }

    /// Kills the server and every process of the machine and removes
    /// tmux's socket directory: all a reboot leaves is what is on disk.
    fn reboot(&self) {
        self.tmux.kill_server();
        wait_for("every process of the machine to end", || {
            let left = self.processes();
            for (pid, _) in &left {
                kill_tree(*pid);
            }
            left.is_empty().then_some(())
        });
        // What the first server's start said.
        let _ = fs::remove_file(self.log());
        for entry in fs::read_dir(self.tmux.tmpdir()).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tmux-")
            {
                fs::remove_dir_all(&path).unwrap();
            }
        }
    }

    /// The live panes: stable id → (place `session:window.pane`, the
    /// pane's pid); none while no server runs.
    fn panes(&self) -> BTreeMap<String, (String, u32)> {
        let out = self.tmux.run(&[
            "list-panes",
            "-a",
            "-F",
            "#{@agent_resume_pane} #{session_name}:#{window_index}.#{pane_index} #{pane_pid}",
        ]);
        text(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut w = l.split(' ');
                let (id, place, pid) = (w.next()?, w.next()?, w.next()?.parse().ok()?);
                Some((id.to_owned(), (place.to_owned(), pid)))
            })
            .collect()
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        let _ = self.tmux.run(&["kill-server"]);
        for (pid, _) in self.processes() {
            kill_tree(pid);
        }
    }
}

/// The words after the agent's program in the command line of the first
/// process below `shell` that runs `cli` (its executable, or node running
/// its package's script).
fn agent_args(cli: &Cli, shell: u32) -> Option<Vec<String>> {
    let script = format!("node_modules/{}/", cli.package());
    tree(shell).into_iter().skip(1).find_map(|pid| {
        let raw = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
        let argv: Vec<String> = raw
            .strip_suffix(&[0])
            .unwrap_or(&raw)
            .split(|b| *b == 0)
            .map(|w| String::from_utf8_lossy(w).into_owned())
            .collect();
        let at = argv.iter().position(|w| {
            Path::new(w).file_name().is_some_and(|n| n == cli.process) || w.contains(&script)
        })?;
        Some(argv[at + 1..].to_vec())
    })
}

/// `args` without the resume of `id` (`<word> <id>` or `<word>=<id>` for
/// each of the CLI's resume words), when they hold it.
fn without_resume(cli: &Cli, args: &[String], id: &str) -> Option<Vec<String>> {
    let mut out = args.to_vec();
    for word in cli.resume_words {
        if let Some(at) = out.iter().position(|w| *w == format!("{word}={id}")) {
            out.remove(at);
            return Some(out);
        }
        if let Some(at) = out.windows(2).position(|p| p[0] == *word && p[1] == id) {
            out.drain(at..at + 2);
            return Some(out);
        }
    }
    None
}

/// The files under `store` that hold `needle`, SQLite's `-wal` and
/// `-journal` counted with their database: each as the database's path.
fn holding(store: &Path, needle: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = files_under(store)
        .into_iter()
        .filter(|p| {
            fs::read(p).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        })
        .map(|p| {
            let n = p.to_string_lossy().into_owned();
            PathBuf::from(
                n.strip_suffix("-wal")
                    .or_else(|| n.strip_suffix("-journal"))
                    .unwrap_or(&n),
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The sessions Claude's registry (`~/.claude/sessions/<pid>.json`) names
/// on the machine.
fn claude_registry(m: &Machine) -> Vec<String> {
    files_under(&m.home().join(".claude/sessions"))
        .iter()
        .filter_map(|p| serde_json::from_str::<Value>(&fs::read_to_string(p).ok()?).ok())
        .filter_map(|v| v["sessionId"].as_str().map(str::to_owned))
        .collect()
}

/// The file name of `path` up to its first dot: Claude's `<id>.jsonl`.
fn stem(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.split('.').next().unwrap_or_default().to_owned()
}

/// Whether a launch capture (`agent-resume capture launch`) of the
/// machine runs.
fn launch_watch_runs(m: &Machine) -> bool {
    m.processes()
        .iter()
        .any(|(_, c)| c.contains("capture launch"))
}

/// Where one seat's turns before the restart are.
#[derive(Clone, Debug)]
enum Step {
    /// The first prompt, until the store holds its reply.
    First,
    /// `/clear`, until the agent's registry no longer names the first
    /// conversation (its id).
    Clear(String),
    /// The prompt after `/clear`, until the store holds its reply.
    AfterClear,
    /// The store holds the reply of the conversation the pane must come
    /// back on.
    Done,
}

/// [`restart`] of one seat per agent, each with [`Script::new`].
fn real_restart(
    agents: &[(&'static Cli, &'static [&'static str])],
    hooks: bool,
    after: impl FnOnce(&Machine, &[String]),
) {
    let scripts: Vec<Script> = agents
        .iter()
        .map(|(cli, flags)| Script::new(cli, flags))
        .collect();
    restart(&scripts, hooks, after);
}

/// Real CLIs, real restarts. Each seat of `scripts` runs in its own bash
/// pane (window `i` of session `work`) started as a user types it with
/// its flags, and holds the conversation its script says, whose reply
/// carries its marker; the server is saved, then killed as a reboot
/// leaves it, and tmux is started again as a user starts it (a client on
/// a new session) with no other agent-resume command. Each pane's agent
/// is then back: its process runs with exactly the flags of the first
/// run plus the resume of its recorded conversation, `restore.log` says
/// it is confirmed, and its next request to the model carries the marker
/// (and the prompt) of its own conversation and nothing of another seat's
/// or of the conversation before a `/clear`. `hooks`: whether the agents'
/// hooks are installed (otherwise the saves' scans capture them). `after`
/// runs on the restarted machine, with each seat's recorded id, before
/// the user's client detaches.
fn restart(scripts: &[Script], hooks: bool, after: impl FnOnce(&Machine, &[String])) {
    let m = Machine::seated(scripts, hooks);
    let t = &m.tmux;
    let place = |i: usize| format!("work:{i}.0");
    let target = |i: usize| format!("=work:{i}.0");
    for (i, s) in m.seats.iter().enumerate() {
        let dir = s.dir.to_str().unwrap();
        if i == 0 {
            t.ok(&[
                "new-session",
                "-d",
                "-s",
                "work",
                "-x",
                "200",
                "-y",
                "50",
                "-c",
                dir,
            ]);
        } else {
            t.ok(&["new-window", "-d", "-t", &format!("=work:{i}"), "-c", dir]);
        }
    }
    let mut started = Vec::new();
    for (i, s) in m.seats.iter().enumerate() {
        t.wait_screen(&target(i), "the bash prompt", |sc| sc.contains(BASH_PROMPT));
        t.type_line(&target(i), &s.line());
        started.push(Instant::now());
        if let Some(answer) = s.cli.after_start {
            answer(t, &target(i));
        }
    }
    // Every Codex TUI shows the review of the hook before any is answered:
    // a TUI started after the trust was written would not ask.
    let codex: Vec<usize> = (0..m.seats.len())
        .filter(|&i| m.seats[i].cli.agent == "codex" && hooks)
        .collect();
    let screens: Vec<String> = codex
        .iter()
        .map(|&i| codex_hook_review(&m.seats[i].cli.name(), t, &target(i), TRUST_ALL))
        .collect();
    for (&i, screen) in codex.iter().zip(screens) {
        codex_answer_review(&m.seats[i].cli.name(), t, &target(i), TRUST_ALL, screen);
    }

    // The turns of every pane at once, each as its script says, until each
    // agent's store holds a session file with its reply's marker.
    let deadline = Instant::now() + 3 * agent_resume_test_support::PATIENCE;
    let mut typed: Vec<Option<Instant>> = vec![None; m.seats.len()];
    let mut steps: Vec<Step> = vec![Step::First; m.seats.len()];
    let mut files: Vec<Option<PathBuf>> = vec![None; m.seats.len()];
    let mut cleared: Vec<Option<String>> = vec![None; m.seats.len()];
    let mut late: Vec<Option<Duration>> = vec![None; m.seats.len()];
    while steps.iter().any(|s| !matches!(s, Step::Done)) {
        for (i, s) in m.seats.iter().enumerate() {
            let store = m.home().join(s.cli.store);
            let due = typed[i].is_none_or(|at| at.elapsed() > Duration::from_secs(4));
            let stuck = || {
                assert!(
                    Instant::now() < deadline,
                    "{}: stuck at {:?}; the screen:\n{}",
                    s.cli.name(),
                    steps[i],
                    t.screen(&target(i))
                );
            };
            match steps[i].clone() {
                Step::First if s.script.clear_then.is_some() => {
                    if let Some(f) = holding(&store, &s.before_clear).into_iter().next() {
                        steps[i] = Step::Clear(stem(&f));
                        typed[i] = None;
                    } else if due {
                        stuck();
                        submit(t, &target(i), s.script.prompt);
                        typed[i] = Some(Instant::now());
                    }
                }
                Step::First => {
                    files[i] = holding(&store, &s.marker).into_iter().next();
                    if files[i].is_some() {
                        steps[i] = Step::Done;
                        continue;
                    }
                    let wait = s.script.first_prompt_after;
                    if typed[i].is_none()
                        && (started[i].elapsed() < wait || !wait.is_zero() && launch_watch_runs(&m))
                    {
                        continue;
                    }
                    if due {
                        stuck();
                        if typed[i].is_none() && !wait.is_zero() {
                            late[i] = Some(started[i].elapsed());
                        }
                        submit(t, &target(i), s.script.prompt);
                        typed[i] = Some(Instant::now());
                    }
                }
                Step::Clear(id) => {
                    assert_eq!(s.cli.agent, "claude", "only Claude's /clear is scripted");
                    let names = claude_registry(&m);
                    if !names.is_empty() && !names.contains(&id) {
                        eprintln!(
                            "{}: the registry names {names:?} after `/clear` of {id}",
                            s.cli.name()
                        );
                        cleared[i] = Some(id);
                        steps[i] = Step::AfterClear;
                        typed[i] = None;
                    } else if due && !visible(t, &target(i)).contains("esc to interrupt") {
                        stuck();
                        submit(t, &target(i), "/clear");
                        typed[i] = Some(Instant::now());
                    }
                }
                Step::AfterClear => {
                    files[i] = holding(&store, &s.marker).into_iter().next();
                    if files[i].is_some() {
                        steps[i] = Step::Done;
                    } else if due {
                        stuck();
                        submit(t, &target(i), s.last_prompt());
                        typed[i] = Some(Instant::now());
                    }
                }
                Step::Done => {}
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    for (i, s) in m.seats.iter().enumerate() {
        eprintln!("{}: the conversation is {:?}", s.cli.name(), files[i]);
        if let Some(after) = late[i] {
            eprintln!(
                "{}: first prompt typed {after:?} after its start",
                s.cli.name()
            );
            assert!(after >= s.script.first_prompt_after);
        }
    }

    // Each pane recorded (by its agent's hook, or a scan) with its
    // conversation and the flags of its run; the run's own arguments are
    // those flags. A pane that cleared its conversation is checked after
    // the save below.
    let panes = m.panes();
    let mut before = Vec::new();
    let pane_of = |i: usize| {
        panes
            .iter()
            .find(|(_, (p, _))| *p == place(i))
            .unwrap_or_else(|| {
                panic!(
                    "{}: no pane at {}: {panes:?}",
                    m.seats[i].cli.name(),
                    place(i)
                )
            })
    };
    let recorded = |pane: &str| {
        wait_for(&format!("the recording of the pane {pane}"), || {
            m.recordings()
                .into_iter()
                .find(|r| r["pane"].as_str() == Some(pane))
        })
    };
    let is_own = |i: usize, rec: &Value| {
        let s = &m.seats[i];
        let file = files[i].clone().unwrap();
        let id = rec["session_id"].as_str().unwrap_or_default();
        rec["agent"] == s.cli.agent
            && id.len() >= 8
            && (file.to_string_lossy().contains(id)
                || holding(&m.home().join(s.cli.store), id).contains(&file))
    };
    for (i, s) in m.seats.iter().enumerate() {
        let name = s.cli.name();
        let (pane, (_, shell)) = pane_of(i);
        let file = files[i].clone().unwrap();
        let rec = recorded(pane);
        let id = rec["session_id"].as_str().unwrap_or_default().to_owned();
        if let Some(old) = &cleared[i] {
            let now = if id == stem(&file) {
                "the new"
            } else if id == *old {
                "the cleared"
            } else {
                "another"
            };
            eprintln!(
                "{name}: before the save, the pane is recorded with {now} conversation: {rec}"
            );
        } else {
            assert!(
                is_own(i, &rec),
                "{name}: the pane {pane} is recorded with the conversation of {}: {rec}",
                file.display()
            );
        }
        assert_eq!(
            flags_line(&rec),
            s.flags.join(" "),
            "{name}: the recording carries the run's flags"
        );
        let args = agent_args(s.cli, *shell)
            .unwrap_or_else(|| panic!("{name}: no {} process in the pane", s.cli.process));
        if s.cli.argv_shown {
            assert_eq!(args, s.flags, "{name}: the first run's arguments");
        }
        before.push((pane.clone(), id, args, s.server.bodies().len()));
    }
    m.wait_settled();
    m.ar_ok(&["tmux", "save", "-L", t.socket()]);
    for (i, s) in m.seats.iter().enumerate() {
        let Some(old) = &cleared[i] else { continue };
        let rec = recorded(&before[i].0);
        let id = rec["session_id"].as_str().unwrap_or_default().to_owned();
        // The new conversation's transcript may name the one before (its
        // parent): only its own id will do.
        assert!(
            id == stem(files[i].as_ref().unwrap()) && id != *old,
            "{}: after `/clear` and a turn, the pane is not recorded with the new conversation \
             of {} (before `/clear`: {old}): {rec}",
            s.cli.name(),
            files[i].clone().unwrap().display()
        );
        before[i].1 = id;
    }
    m.reboot();

    // The user types `tmux`: a control-mode client on a new session, its
    // stdin held open as a terminal would.
    let mut client = t
        .command()
        .args(["-C", "new-session", "-x", "200", "-y", "50"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("tmux starts");
    // Each pane is back in its place, its agent resumed with exactly the
    // flags of the first run.
    let panes = wait_for("every saved pane back in the new server", || {
        let panes = m.panes();
        before
            .iter()
            .all(|(pane, ..)| panes.contains_key(pane))
            .then_some(panes)
    });
    for (i, s) in m.seats.iter().enumerate() {
        let name = s.cli.name();
        let (pane, id, args, _) = &before[i];
        let (at, shell) = &panes[pane];
        assert_eq!(*at, place(i), "{name}: the pane is back in its place");
        if !s.cli.argv_shown {
            // Its next request below is the proof.
            continue;
        }
        let deadline = Instant::now() + agent_resume_test_support::PATIENCE;
        let resumed = loop {
            if let Some(a) =
                agent_args(s.cli, *shell).filter(|a| a.iter().any(|w| w.contains(id.as_str())))
            {
                break a;
            }
            assert!(
                Instant::now() < deadline,
                "{name}: no resumed process in {}; restore.log:\n{}\nthe processes: {:#?}\n\
                 the screen:\n{}",
                place(i),
                fs::read_to_string(m.log()).unwrap_or_default(),
                m.processes(),
                t.screen(&target(i))
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        eprintln!("{name}: resumed as {resumed:?}");
        assert_eq!(
            without_resume(s.cli, &resumed, id).as_ref(),
            Some(args),
            "{name}: the resumed process runs with exactly the first run's flags and the resume \
             of {id}: {resumed:?}"
        );
    }

    // The next turn of each resumed agent carries its own conversation
    // (its marker and last prompt), and nothing of another seat's or of
    // the conversation before a `/clear`.
    let mut pending: Vec<usize> = (0..m.seats.len()).collect();
    let mut typed: Vec<Option<Instant>> = vec![None; m.seats.len()];
    let deadline = Instant::now() + 2 * agent_resume_test_support::PATIENCE;
    while !pending.is_empty() {
        pending.retain(|&i| {
            let s = &m.seats[i];
            let mut foreign: Vec<&str> = m
                .seats
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, o)| o.marker.as_str())
                .chain(m.seats.iter().map(|o| o.before_clear.as_str()))
                .collect();
            if s.script.clear_then.is_some() {
                foreign.push(s.script.prompt);
            }
            let asked: Vec<String> = s.server.bodies()[before[i].3..]
                .iter()
                .filter(|b| b.contains(s.script.recall))
                .cloned()
                .collect();
            if let Some(w) = foreign
                .iter()
                .find(|w| asked.iter().any(|b| b.contains(**w)))
            {
                panic!(
                    "{}: a request after the restart carries {w:?}, of another conversation than \
                     the pane's own; the requests with the new prompt: {asked:?}",
                    s.cli.name()
                );
            }
            if asked
                .iter()
                .any(|b| b.contains(&s.marker) && b.contains(s.last_prompt()))
            {
                return false;
            }
            if typed[i].is_none_or(|at| at.elapsed() > Duration::from_secs(4)) {
                assert!(
                    Instant::now() < deadline,
                    "{}: no request after the restart carries the earlier reply {:?} and prompt \
                     {:?}; the requests with the new prompt: {asked:?}; the screen:\n{}",
                    s.cli.name(),
                    s.marker,
                    s.last_prompt(),
                    t.screen(&target(i))
                );
                submit(t, &target(i), s.script.recall);
                typed[i] = Some(Instant::now());
            }
            true
        });
        std::thread::sleep(Duration::from_millis(100));
    }

    // The start followed each resume to its end: each confirmed.
    let log = wait_for("the start's summary in restore.log", || {
        fs::read_to_string(m.log())
            .ok()
            .filter(|l| l.contains("agent(s) resumed"))
    });
    for (i, s) in m.seats.iter().enumerate() {
        if !hooks && !s.cli.confirms_without_hook {
            // Nothing the agent writes as it starts names its conversation:
            // its next request above is the proof; the log may only not say
            // it failed.
            let failed = format!("{}: {} exited at once", place(i), s.cli.agent);
            assert!(!log.contains(&failed), "{}: {log}", s.cli.name());
            continue;
        }
        let confirmed = format!("{}: {} confirmed (", place(i), s.cli.agent);
        assert!(
            log.lines().any(|l| l.starts_with(&confirmed)),
            "{}: restore.log does not say {} is confirmed:\n{log}\nhook.log:\n{}",
            s.cli.name(),
            place(i),
            fs::read_to_string(m.home().join(".local/state/agent-resume/hook.log"))
                .unwrap_or_default()
        );
    }
    eprintln!("restore.log after the restart:\n{log}");
    let n = m.seats.len();
    assert!(
        log.contains(&format!("{n} agent(s) resumed: ")),
        "restore.log:\n{log}"
    );
    let ids: Vec<String> = before.iter().map(|(_, id, ..)| id.clone()).collect();
    after(&m, &ids);
    if let Some(mut stdin) = client.stdin.take() {
        let _ = stdin.write_all(b"detach-client\n");
    }
    let _ = client.wait();
}

#[test]
fn real_claude_codex_gemini_and_qwen_come_back_after_a_reboot_in_their_conversations() {
    real_restart(
        &[
            (&CLAUDE, &["--model", "sonnet"]),
            (&CODEX, &["--model", "standin"]),
            (&GEMINI, &["--model", GEMINI_MODEL]),
            (&QWEN, &["--model", "standin"]),
        ],
        true,
        |_, _| {},
    );
}

/// The real-CLI conformance of one agent: [`real_restart`] of `cli`
/// started with `flags`, with its hooks installed or not; then on the
/// restarted machine `sessions --all --json` lists the recorded
/// conversation, and the CLI asked to resume [`Cli::made_up`]'s id in a
/// new window refuses it with the CLI's own words (and exit status).
pub(crate) fn conformance(cli: &'static Cli, flags: &'static [&'static str], hooks: bool) {
    real_restart(&[(cli, flags)], hooks, |m, ids| {
        let name = cli.name();
        let listed = m.ar_ok(&["sessions", "--all", "--json"]);
        assert!(
            listed.contains(&format!("\"{}\"", ids[0])),
            "{name}: `sessions --all --json` does not list {}:\n{listed}",
            ids[0]
        );
        let (args, refusal, code) = cli.made_up;
        let line = format!(
            "{} {}; echo \"exit=$?\"",
            cli.bin,
            args.iter()
                .map(|a| shell_words::quote(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        );
        let dir = m.seats[0].dir.to_str().unwrap().to_owned();
        m.tmux
            .ok(&["new-window", "-d", "-t", "=work:9", "-c", &dir]);
        let pane = "=work:9.0";
        m.tmux
            .wait_screen(pane, "the bash prompt", |sc| sc.contains(BASH_PROMPT));
        m.tmux.type_line(pane, &line);
        let want_exit = code.map(|c| format!("exit={c}"));
        let mut last = String::new();
        let said = wait_for(&format!("{name}: the refusal of a made-up id"), || {
            last = m.tmux.screen(pane).replace('\n', "");
            (last.contains(refusal) && want_exit.as_ref().is_none_or(|e| last.contains(e.as_str())))
                .then(|| last.clone())
        });
        assert!(said.contains(refusal), "{name}: {said}");
    });
}

#[test]
fn claude_code_with_no_hook_comes_back_after_a_reboot_confirmed_by_its_own_registry() {
    conformance(&CLAUDE, &["--model", "sonnet"], false);
}

/// The table of `docs/agents.md` ("Real CLIs, verified here"), from
/// [`versions::PINNED`].
fn pinned_table() -> String {
    let mut out = String::from(
        "| agent | pinned | a made-up id | a resume with no hook | known not to work |\n\
         |---|---|---|---|---|\n",
    );
    for cli in versions::PINNED {
        let registry = match cli.registry {
            Registry::Npm { .. } => "npm",
            Registry::Pypi { .. } => "PyPI",
        };
        let (_, refusal, code) = cli.made_up;
        let refused = match (refusal, code) {
            ("", Some(c)) => format!("exit {c}, nothing on the terminal"),
            (r, Some(c)) => format!("`{r}`, exit {c}"),
            (r, None) => format!("`{r}`, the CLI stays open"),
        };
        let no_hook = if cli.confirms_without_hook {
            "confirmed by what it writes at start"
        } else {
            "proved by its next turn"
        };
        out.push_str(&format!(
            "| {} | `{}@{}` ({registry}) | {refused} | {no_hook} | {} |\n",
            cli.agent,
            cli.package(),
            cli.version,
            if cli.gaps.is_empty() { "—" } else { cli.gaps },
        ));
    }
    out
}

/// Every verified agent of the catalog is pinned here, at a version it
/// was verified with, and `docs/agents.md` lists each pinned CLI as
/// [`pinned_table`] says.
#[test]
fn every_verified_agent_is_pinned_at_a_verified_version_and_documented() {
    let catalog = agent_resume_core::Catalog::embedded();
    for a in catalog.agents().iter().filter(|a| a.verified) {
        let pinned = versions::PINNED
            .iter()
            .find(|c| c.agent == a.kind.as_str())
            .unwrap_or_else(|| panic!("{}: verified but no pinned CLI runs it", a.kind.as_str()));
        assert!(
            a.verified_versions.iter().any(|v| v == pinned.version)
                || a.verified_versions.iter().any(|v| {
                    // A platform package may carry the version the CLI prints.
                    matches!(pinned.registry, Registry::Npm { extra, .. }
                        if extra.iter().any(|e| e.ends_with(&format!("@{v}"))))
                }),
            "{}: pinned at {}, verified with {:?}",
            a.kind.as_str(),
            pinned.version,
            a.verified_versions
        );
    }
    for cli in versions::PINNED {
        let a = catalog
            .agents()
            .iter()
            .find(|a| a.kind.as_str() == cli.agent)
            .unwrap_or_else(|| panic!("{}: pinned but not in the catalog", cli.agent));
        assert!(a.verified, "{}: pinned but not verified", cli.agent);
    }
    let doc = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/agents.md"))
        .expect("docs/agents.md");
    let want = pinned_table();
    assert!(
        doc.contains(&want),
        "docs/agents.md is out of date; its pinned CLIs must read:\n\n{want}"
    );
}

#[test]
fn qwen_code_with_no_hook_comes_back_after_a_reboot_confirmed_by_its_runtime_file() {
    conformance(&QWEN, &["--model", "standin"], false);
}

#[test]
fn gemini_cli_with_no_hook_comes_back_after_a_reboot_in_its_conversation() {
    conformance(&GEMINI, &["--model", GEMINI_MODEL], false);
}

/// Zero-config Claude after `/clear`: a turn, `/clear`, a turn on the new
/// conversation. Before the reboot the pane is recorded with the new
/// conversation (Claude's `~/.claude/sessions/<pid>.json` names it; its
/// argv names none), not the one before `/clear`; after it the resumed
/// Claude's next request carries the second prompt and its reply, nothing
/// of the first.
#[test]
fn claude_code_with_no_hook_comes_back_after_a_reboot_on_the_conversation_after_clear() {
    restart(
        &[Script {
            prompt: "tangelo",
            clear_then: Some("kumquat"),
            ..Script::new(&CLAUDE, &["--model", "sonnet"])
        }],
        false,
        |_, _| {},
    );
}

/// Zero-config Qwen whose first prompt comes once the launch capture has
/// ended (more than its 30 s after the start, `engine::launch::WAITS`):
/// Qwen holds its chat file open only while writing, and names its
/// conversation in `chats/<id>.runtime.json` with its pid; the pane is
/// recorded with that conversation before the reboot, comes back on it,
/// and restore.log confirms it.
#[test]
fn qwen_code_with_no_hook_and_a_late_first_prompt_comes_back_after_a_reboot_confirmed() {
    restart(
        &[Script {
            first_prompt_after: Duration::from_secs(35),
            ..Script::new(&QWEN, &["--model", "standin"])
        }],
        false,
        |_, _| {},
    );
}

/// Two Codex TUIs of one `$CODEX_HOME`, each in its own window, with
/// `install-hooks codex --per-window` and the hook trusted: each pane is
/// recorded with its own rollout, and after the reboot each resumed TUI's
/// next request carries its own conversation, never the other pane's.
#[test]
fn two_codex_panes_per_window_come_back_after_a_reboot_each_on_its_own_conversation() {
    restart(
        &[
            Script {
                prompt: "marmoset",
                recall: "tamarin",
                ..Script::new(&CODEX, &["--model", "standin"])
            },
            Script {
                prompt: "ocelot",
                recall: "caracal",
                ..Script::new(&CODEX, &["--model", "standin"])
            },
        ],
        true,
        |m, ids| {
            assert_ne!(ids[0], ids[1], "two panes, two rollouts");
            let config = fs::read_to_string(m.home().join(".codex/config.toml")).unwrap();
            assert!(
                config.contains("daemon_auto_start = false"),
                "install-hooks codex --per-window left no per-window setting:\n{config}"
            );
        },
    );
}
