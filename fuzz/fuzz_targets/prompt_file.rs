//! Any bytes as `$TMUX`, `$TMUX_PANE` and the tail of a tmux pane's prompt
//! file (`agent_resume_tmux::{here_in, Prompts::published_in}`): a pane is
//! named only from `$TMUX`'s last two fields and a `%N`, and a prompt only
//! from the file's last complete line, `<seq>:<pid>` in ASCII digits with
//! a pid above 1. Input: `$TMUX` up to the first NUL, `$TMUX_PANE` up to
//! the second, then the tail (its first byte odd: it starts mid-file).
#![no_main]
use agent_resume_tmux::{here_in, Prompts};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut parts = data.splitn(3, |b| *b == 0);
    let tmux = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let pane = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let tail = parts.next().unwrap_or_default();
    if let Some((server, number)) = here_in(&tmux, &pane) {
        let fields: Vec<&str> = tmux.rsplit(',').collect();
        assert!(fields.len() >= 3);
        assert_eq!(fields[1].parse::<u32>().ok(), Some(server));
        assert_eq!(pane.strip_prefix('%').and_then(|n| n.parse::<u32>().ok()), Some(number));
    }
    let from_middle = tail.first().is_some_and(|b| b % 2 == 1);
    if let Some(p) = Prompts::published_in(tail, from_middle) {
        assert!(p.pid > 1);
        let end = tail.iter().rposition(|b| *b == b'\n').expect("a complete line");
        let start = tail[..end].iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        assert!(!(start == 0 && from_middle), "the cut first line is never taken");
        let last = std::str::from_utf8(&tail[start..end]).expect("the line is UTF-8");
        assert!(last.bytes().all(|b| b.is_ascii_digit() || b == b':'), "{last:?}");
        assert_eq!(
            last.split(':').map(|d| d.parse::<u64>().expect("digits")).collect::<Vec<_>>(),
            vec![p.seq, u64::from(p.pid)],
            "{last:?}"
        );
    }
});
