//! How `install-hooks` / `uninstall-hooks` write the agents' files, run as
//! the built binary in a temporary home: a file or link planted where a
//! temporary file could go is never followed or renamed over the settings
//! file, a symlinked settings file is written through only to the user's own
//! regular file, and Codex's `config.toml` comes back byte for byte (CRLF, a
//! BOM, `[features.sub]`) with its backup gone.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use agent_resume_test_support::PrivateEnv;

/// A private home with a Codex on its own `bin`; no telemetry override.
struct Home(PrivateEnv);

impl Home {
    fn new() -> Home {
        let home = Home(
            PrivateEnv::new(env!("CARGO_BIN_EXE_agent-resume"))
                .with_own_bin()
                .without("AGENT_RESUME_TELEMETRY"),
        );
        fs::create_dir_all(home.p("bin")).unwrap();
        // A Codex with hooks, so `hooks.json` is written too.
        let codex = home.p("bin/codex");
        fs::write(&codex, "#!/bin/sh\necho 'codex-cli 0.171.0'\n").unwrap();
        fs::set_permissions(&codex, fs::Permissions::from_mode(0o755)).unwrap();
        home
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.0.root().join(rel)
    }

    fn run(&self, args: &[&str]) -> Output {
        self.0.run(args)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{args:?} failed: {err}");
        err
    }
}

/// Every entry directly in `dir`, links as links, with file bytes.
fn entries(dir: &Path) -> BTreeMap<String, Result<Vec<u8>, PathBuf>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let m = fs::symlink_metadata(&p).unwrap();
            let v = if m.file_type().is_symlink() {
                Err(fs::read_link(&p).unwrap())
            } else {
                Ok(fs::read(&p).unwrap())
            };
            (name, v)
        })
        .collect()
}

fn is_regular(p: &Path) -> bool {
    fs::symlink_metadata(p).unwrap().file_type().is_file()
}

const SETTINGS: &str = "{\r\n  \"model\": \"opus\"\r\n}\r\n";

const VICTIM: &str = "the victim's own bytes\n";

#[test]
fn a_link_planted_at_the_old_temporary_name_is_never_written_through_nor_renamed_over_the_settings_file(
) {
    let home = Home::new();
    let dir = home.p("cfg");
    fs::create_dir_all(&dir).unwrap();
    let victim = home.p("victim");
    fs::write(&victim, VICTIM).unwrap();
    let settings = dir.join("settings.json");
    fs::write(&settings, SETTINGS).unwrap();
    let config = dir.join("config.toml");
    fs::write(&config, "model = \"o3\"\n").unwrap();
    for name in [
        "settings.json.agent-resume.tmp",
        "config.toml.agent-resume.tmp",
        "hooks.json.agent-resume.tmp",
    ] {
        std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
    }
    let planted = entries(&dir);

    for (agent, file) in [("claude", &settings), ("codex", &config)] {
        let arg = file.to_str().unwrap();
        home.ok(&["install-hooks", agent, "--config-file", arg]);
        assert_eq!(fs::read_to_string(&victim).unwrap(), VICTIM, "{agent}");
        assert!(
            is_regular(file),
            "{agent}: the settings file is still a file"
        );
        assert!(
            fs::read_to_string(file).unwrap().contains(&format!(
                "hook{}{agent}",
                if agent == "codex" { "\", \"" } else { " " }
            )),
            "{agent}: {}",
            fs::read_to_string(file).unwrap()
        );
    }
    let hooks = dir.join("hooks.json");
    assert!(is_regular(&hooks), "codex's hooks.json is a file");

    for (agent, file) in [("claude", &settings), ("codex", &config)] {
        home.ok(&[
            "uninstall-hooks",
            agent,
            "--config-file",
            file.to_str().unwrap(),
        ]);
    }
    assert_eq!(fs::read_to_string(&victim).unwrap(), VICTIM);
    assert_eq!(
        entries(&dir),
        planted,
        "the files are back, the planted links untouched, no temporary file left"
    );
}

/// Codex configurations as Windows editors, BOM-writing editors and
/// hand-made sub-tables leave them.
const CODEX_FIXTURES: &[(&str, &str)] = &[
    (
        "crlf, a bom and a sub-table",
        "\u{feff}# mine\r\nmodel = \"o3\"  # default\r\nnotify = [\"notify-send\", \"done\"]\r\n\r\n[features.sub]\r\nx = 1\r\n",
    ),
    (
        "a features table after its sub-table",
        "[features.sub]\nx = 1\n\n[features]\nweb_search = true # keep\n[[profiles]]\nname = \"a\"\n",
    ),
    ("dotted features, no final newline", "features.web_search = true\r\nmodel = \"o3\""),
];

#[test]
fn codex_config_comes_back_byte_for_byte_and_its_backup_goes() {
    for (label, original) in CODEX_FIXTURES {
        for per_window in [false, true] {
            let home = Home::new();
            let dir = home.p("codex");
            fs::create_dir_all(&dir).unwrap();
            let config = dir.join("config.toml");
            fs::write(&config, original).unwrap();
            let arg = config.to_str().unwrap();
            let mut install = vec!["install-hooks", "codex", "--config-file", arg];
            if per_window {
                install.push("--per-window");
            }
            home.ok(&install);
            let installed = fs::read_to_string(&config).unwrap();
            let read: toml::Table = installed
                .trim_start_matches('\u{feff}')
                .parse()
                .unwrap_or_else(|e| panic!("{label}: {e}\n{installed:?}"));
            assert_eq!(
                read["notify"][1].as_str(),
                Some("hook"),
                "{label}: {installed:?}"
            );
            assert_eq!(
                read.get("features")
                    .and_then(|f| f.get("daemon_auto_start"))
                    .and_then(toml::Value::as_bool),
                per_window.then_some(false),
                "{label}: {installed:?}"
            );
            assert!(
                fs::read(dir.join("config.toml.agent-resume.bak")).unwrap() == original.as_bytes(),
                "{label}: the backup is the original"
            );
            home.ok(&["uninstall-hooks", "codex", "--config-file", arg]);
            assert_eq!(
                entries(&dir),
                BTreeMap::from([("config.toml".to_owned(), Ok(original.as_bytes().to_vec()))]),
                "{label} (per window: {per_window}): the original bytes, and no backup, \
                 record or hooks.json left"
            );
        }
    }
}

#[test]
fn the_codex_backup_stays_when_the_user_changed_the_file_meanwhile() {
    let home = Home::new();
    let dir = home.p("codex");
    fs::create_dir_all(&dir).unwrap();
    let config = dir.join("config.toml");
    let (_, original) = CODEX_FIXTURES[0];
    fs::write(&config, original).unwrap();
    let arg = config.to_str().unwrap();
    home.ok(&[
        "install-hooks",
        "codex",
        "--per-window",
        "--config-file",
        arg,
    ]);
    let edited = fs::read_to_string(&config).unwrap() + "[tui]\r\nanimations = false\r\n";
    fs::write(&config, &edited).unwrap();
    home.ok(&["uninstall-hooks", "codex", "--config-file", arg]);
    assert_eq!(
        fs::read_to_string(&config).unwrap(),
        format!("{original}[tui]\r\nanimations = false\r\n"),
        "ours is gone, the user's edit stays, every other byte as it was"
    );
    assert_eq!(
        fs::read(dir.join("config.toml.agent-resume.bak")).unwrap(),
        original.as_bytes(),
        "the backup stays: the file is not the original"
    );
}

#[test]
fn a_settings_link_to_anything_but_the_users_own_regular_file_is_refused_and_left_alone() {
    let home = Home::new();
    let foreign = home.p("foreign.json");
    fs::write(&foreign, SETTINGS).unwrap();
    // Owned by another user (the tests run as root, so this can be made).
    std::os::unix::fs::chown(&foreign, Some(65534), Some(65534)).unwrap();
    let folder = home.p("folder");
    fs::create_dir_all(&folder).unwrap();
    const LINK: &str =
        "is a link to something other than a regular file of your own; not touching it";
    for (label, target, said) in [
        ("another user's file", foreign.clone(), LINK),
        // Refused by the read already.
        ("a directory", folder.clone(), "is not a regular file"),
        ("nothing", home.p("missing.json"), LINK),
    ] {
        let dir = home.p(&format!("cfg-{}", label.replace(' ', "-")));
        fs::create_dir_all(&dir).unwrap();
        let link = dir.join("settings.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let before = entries(&dir);
        let out = home.run(&[
            "install-hooks",
            "claude",
            "--config-file",
            link.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{label}: {err}");
        assert!(err.contains(said), "{label}: {err}");
        assert_eq!(
            entries(&dir),
            before,
            "{label}: the link and its folder as they were"
        );
    }
    assert_eq!(fs::read_to_string(&foreign).unwrap(), SETTINGS);
    assert_eq!(fs::read_dir(&folder).unwrap().count(), 0);
    assert!(!home.p("missing.json").exists());
}
