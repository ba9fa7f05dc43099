//! A model of how tmux 3.3a reads one command-line argument, written from
//! its sources independently of `agent_resume_tmux::literal`: first
//! `cmd_parse_from_arguments` (`cmd-parse.y`: an argument ending in `;` ends
//! the command, unless `\` precedes the `;`, which then stays), then, where
//! the position expands formats, `format_expand1` (`format.c`).

/// What tmux makes of `arg`: the value it keeps, or `None` where the
/// argument would end the command or expand, run or cut anything.
pub fn tmux_reads(arg: &[u8], expanded: bool) -> Option<Vec<u8>> {
    let mut kept = arg.to_vec();
    if kept.last() == Some(&b';') {
        kept.pop();
        match kept.last_mut() {
            Some(last) if *last == b'\\' => *last = b';',
            _ => return None,
        }
    }
    if expanded {
        format_reads(&kept)
    } else {
        Some(kept)
    }
}

/// `format_expand1` over text that must expand nothing: `##` is `#`; a run
/// of two or more `#` before `[` is kept whole (a style); `#}` and `#,` are
/// `}` and `,`; `#` before any other non-letter is kept; `#(`, `#{`, `#`
/// before a letter and a final lone `#` expand, run or read past the end.
fn format_reads(fmt: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(fmt.len());
    let mut rest = fmt;
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'#' {
            out.push(b);
            continue;
        }
        let (&ch, tail) = rest.split_first()?;
        rest = tail;
        match ch {
            b'(' | b'{' => return None,
            b'#' => {
                let more = rest.iter().take_while(|c| **c == b'#').count();
                if rest.get(more) == Some(&b'[') {
                    out.extend(std::iter::repeat_n(b'#', more + 2));
                    out.push(b'[');
                    rest = &rest[more + 1..];
                } else {
                    out.push(b'#');
                }
            }
            b'}' | b',' => out.push(ch),
            c if c.is_ascii_alphabetic() => return None,
            c => out.extend_from_slice(&[b'#', c]),
        }
    }
    Some(out)
}
