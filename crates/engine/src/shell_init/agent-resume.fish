# agent-resume shell integration for fish.
# Load it with:  agent-resume init fish | source
#
# - resume lines start with a space, which fish keeps out of history;
# - when you run an agent, notes its allowlisted flags (never the text);
# - when the agent exits 0 while the pane is attached, clears the pane's
#   recording (a suspended, failed or killed agent keeps it);
# - at the pane's first prompt, takes the pane's armed resume line, if any,
#   and runs it as a command typed at that prompt (its own job, in the
#   foreground), only while the command line is empty: a line already
#   being typed is never added to, and the armed line is dropped;
# - inside tmux, publishes at each prompt that the shell sits idle at it
#   (its pane's prompt file, emptied when a line runs), and answers a probe
#   key with whether the line being edited is empty, so `agent-resume tmux
#   restore` types only into an empty, idle prompt; a line it could not
#   type is taken at the next prompt.
# Nothing runs unless the pane has an id (AGENT_RESUME_PANE, or TMUX_PANE).
# A prompt and a line cost no process: builtins and variables only (a
# process runs when an agent starts or ends, and at a pane's first prompt
# only when a restore made that pane).
#
# fish runs a command as a job of its own (its process group, the
# terminal, default signals, the terminal's normal modes) only when its
# line editor runs it; a command started from an event handler such as
# `fish_prompt` stays in fish's process group and never gets the terminal.
# So the prompt handler asks the terminal for its status (ESC [ 5 n), the
# terminal answers with a fixed key sequence (ESC [ 0 n) that reaches the
# line editor as input, and the binding for that answer takes the line,
# puts ` __agent_resume_resume` on the (empty) command line and executes
# it; that function runs the line. A terminal that never answers leaves the
# line armed.

set -g __agent_resume_bin @AGENT_RESUME_BIN@
# The key `tmux restore` started this pane with serves its first take
# only: kept unexported from here, so nothing started from this shell
# (rc files, nested shells, the agent) carries it.
set -g __agent_resume_take_key "$AGENT_RESUME_TAKE"
set -e AGENT_RESUME_TAKE
set -g __agent_resume_agents @AGENT_RESUME_COMMANDS@
# Tells `agent-resume doctor`, run from this shell, that it is loaded.
set -gx AGENT_RESUME_SHELL fish
set -g __agent_resume_running
set -g __agent_resume_kitty_launched
set -g __agent_resume_kitty_pwd
# The directory this user's prompt files live in (private, made by `agent-resume enable` or a tmux server's start).
set -g __agent_resume_prompts @AGENT_RESUME_PROMPTS@

function __agent_resume_has_pane
    set -q AGENT_RESUME_PANE; and test -n "$AGENT_RESUME_PANE"; and return 0
    set -q TMUX_PANE; and test -n "$TMUX_PANE"
end

# In a kitty window (outside tmux) the pane id is this window's own: asked
# of `agent-resume kitty pane` once per window (the id kitty started the
# window with, the one the window had at the last save, or a fresh one),
# never one inherited from another window or another kitty.
if set -q KITTY_WINDOW_ID; and set -q KITTY_LISTEN_ON; and test -n "$KITTY_LISTEN_ON"; and not set -q TMUX
    if not set -q AGENT_RESUME_KITTY_WINDOW; or test "$AGENT_RESUME_KITTY_WINDOW" != "$KITTY_LISTEN_ON#$KITTY_WINDOW_ID"
        set -l launched "$AGENT_RESUME_PANE"
        set -l id ($__agent_resume_bin kitty pane 2>/dev/null </dev/null)
        if test $status -eq 0; and test -n "$id"
            set -gx AGENT_RESUME_PANE $id
            # The id the window was started with (a restore's session file
            # names it): only then can a line wait for its first prompt.
            test "$id" = "$launched"; and set -g __agent_resume_kitty_launched 1
        else
            set -e AGENT_RESUME_PANE
        end
        set -gx AGENT_RESUME_KITTY_WINDOW "$KITTY_LISTEN_ON#$KITTY_WINDOW_ID"
        # `kitty pane` saved the snapshot with this directory.
        set -g __agent_resume_kitty_pwd $PWD
    end
end

# Whether a line starts an agent: its first word, past `NAME=value`
# assignments and `command`, `exec`, `env` or `nohup`, with any quotes
# around it and any directory before it, is an agent's command word. One
# regular expression (`shell_init::fish_agent_pattern`), no command
# substitution: a line that is no agent pays one match.
set -g __agent_resume_agent_re @AGENT_RESUME_AGENT_RE@
function __agent_resume_is_agent --argument-names line
    string match -qr -- $__agent_resume_agent_re $line
end

function __agent_resume_ended --argument-names st
    # Exit 0: the agent ended while attached. Stopped, failed or killed
    # agents keep the recording.
    test "$st" -eq 0; and $__agent_resume_bin forget --quiet --if-interactive </dev/null >/dev/null 2>&1
    return 0
end

set -g __agent_resume_was_resumed
function __agent_resume_preexec --on-event fish_preexec
    # Written here, not through a function: each call costs every line.
    if test -n "$__agent_resume_prompt_file"; and test -d "$__agent_resume_prompts"
        printf '%s\n' - >>$__agent_resume_prompt_file
    end
    set -g __agent_resume_running
    set -q AGENT_RESUME_PANE[1]; or set -q TMUX_PANE[1]; or return 0
    __agent_resume_has_pane; or return 0
    # The resumed line (taken below) ends as an agent typed here does, but
    # is not noted: the user did not type it.
    set -l resumed
    test "$argv[1]" = ' __agent_resume_resume'; and test -n "$__agent_resume_line"; and set resumed 1
    test -n "$resumed"; or __agent_resume_is_agent "$argv[1]"; or return 0
    # The job count before it: fish reports status 0 for a job stopped by
    # job control, so a job left behind is how a suspended agent shows.
    set -g __agent_resume_running (count (jobs -p 2>/dev/null))
    set -g __agent_resume_was_resumed $resumed
    test -n "$resumed"; and return 0
    printf '%s\n' "$argv[1]" | $__agent_resume_bin note --shell fish --shell-pid $fish_pid >/dev/null 2>&1
end

function __agent_resume_postexec --on-event fish_postexec
    set -l st $status
    if test -n "$__agent_resume_running"
        set -l before $__agent_resume_running
        set -g __agent_resume_running
        # Suspended (or sent to the background): keep the recording.
        test (count (jobs -p 2>/dev/null)) -gt $before; and return 0
        # A resumed line's status tells the restore that resumed it whether
        # the resume ran or failed at once.
        if test -n "$__agent_resume_was_resumed"
            set -g __agent_resume_was_resumed
            $__agent_resume_bin ended --status $st </dev/null >/dev/null 2>&1
        end
        __agent_resume_ended $st
    end
end

# What the terminal's answer takes: `first` (the pane's armed line) or the
# pane id `tmux restore` left; empty when no question is outstanding.
set -g __agent_resume_asked

# Asks the terminal for its status report; its answer runs
# __agent_resume_answered from the line editor. The binding is made here,
# at a prompt, so key bindings set up after this file was sourced (vi
# mode) do not drop it.
function __agent_resume_ask --argument-names what
    isatty stdin; and isatty stdout; or return 1
    for mode in default insert visual
        bind -M $mode \e\[0n __agent_resume_answered
    end
    set -g __agent_resume_asked $what
    printf '\e[5n'
end

# The terminal's answer, read by the line editor as a key: takes the line
# and runs it as if typed, but only at an empty command line. A status
# report nobody asked for does nothing. When nothing runs, the prompt the
# question held back is published.
function __agent_resume_answered
    set -l what $__agent_resume_asked
    set -g __agent_resume_asked
    test -n "$what"; or return 0
    __agent_resume_run_taken $what; and return 0
    __agent_resume_publish
    # A question `take` asked (`restore = "ask"`) wrote over the prompt.
    commandline -f repaint
    return 0
end

function __agent_resume_run_taken --argument-names what
    set -l take take --shell fish --shell-pid $fish_pid
    set -l key
    if test "$what" = first
        set key $__agent_resume_take_key
        set -g __agent_resume_take_key
    else
        set take $take --pending
    end
    # Input already typed: leave the armed line for no one (take drops it).
    if test -n "$(commandline)"
        AGENT_RESUME_TAKE="$key" $__agent_resume_bin $take --has-input >/dev/null 2>&1
        __agent_resume_pending_stuck $what
        return 1
    end
    set -l line (AGENT_RESUME_TAKE="$key" $__agent_resume_bin $take 2>/dev/null)
    set -l st $status
    __agent_resume_pending_stuck $what
    test $st -eq 0; or return 1
    test (count $line) -eq 1; or return 1
    # The command line holds a fixed word, and the line runs inside it;
    # the leading space keeps that word out of history.
    set -g __agent_resume_line $line
    commandline -r -- ' __agent_resume_resume'
    commandline -f execute
end

# A pending note the take could not read stays: never asked again by
# this shell.
function __agent_resume_pending_stuck --argument-names what
    test "$what" = pending; and test -e "$__agent_resume_prompt_file.pending"
    and set -g __agent_resume_no_pending 1
    return 0
end

# The line the terminal's answer took, run once as a job of the line
# editor's command; its status is the command's.
set -g __agent_resume_line
function __agent_resume_resume
    set -l line $__agent_resume_line
    set -g __agent_resume_line
    test -n "$line"; or return 1
    eval $line
end

set -g __agent_resume_first 1
function __agent_resume_first_prompt
    set -e __agent_resume_first
    # A line waits at a first prompt only in a pane a restore made: inside
    # tmux one started with a take key, in kitty a window started with its
    # id, elsewhere one a host named.
    if __agent_resume_in_tmux
        test -n "$__agent_resume_take_key"; or return 0
    else if set -q KITTY_LISTEN_ON[1]; and test -n "$KITTY_LISTEN_ON"
        test -n "$__agent_resume_kitty_launched"; or return 0
    else
        set -q AGENT_RESUME_PANE; and test -n "$AGENT_RESUME_PANE"; or return 0
    end
    # Only the pane's first shell takes: a nested shell inherits the marker.
    # It names this pane, so a pane that inherits it from elsewhere (a tmux
    # server started from a shell of ours) still takes.
    set -l key "pane:$AGENT_RESUME_PANE"
    __agent_resume_in_tmux; and set key "tmux:$TMUX:$TMUX_PANE"
    set -q AGENT_RESUME_TAKEN; and test "$AGENT_RESUME_TAKEN" = "$key"; and return 0
    set -gx AGENT_RESUME_TAKEN $key
    __agent_resume_ask first
end

# Inside tmux, with a pane tmux named (`%N`).
function __agent_resume_in_tmux
    set -q TMUX; and test -n "$TMUX"; and set -q TMUX_PANE
    and string match -qr '^%[0-9]+$' -- "$TMUX_PANE"
    # fish itself reports a missing command, whatever its redirections.
    and command -q tmux
end

set -g __agent_resume_seq 0
set -g __agent_resume_no_pending
# This pane's prompt file: `tmux-<server pid>-<pane number>`, from $TMUX
# (`<socket>,<server pid>,<session>`) and $TMUX_PANE.
set -g __agent_resume_prompt_file
if __agent_resume_in_tmux; and test -n "$__agent_resume_prompts"
    set -l server (string split , -- "$TMUX")[-2]
    string match -qr '^[0-9]+$' -- "$server"
    and set -g __agent_resume_prompt_file "$__agent_resume_prompts/tmux-$server-"(string sub -s 2 -- "$TMUX_PANE")
end

# Appends a line to the prompt file (a builtin and a redirection; a
# rewrite would pay a flush): `<seq>:<pid>` at a prompt, every 100th one
# afresh, `-` when a line runs. fish reports a failed redirection whatever
# its own redirections, so a directory gone since init is checked first:
# no prompt, and nothing said.
function __agent_resume_write_prompt --argument-names text
    test -d "$__agent_resume_prompts"; or return 0
    if test "$text" != -; and string match -q -- '*00' $__agent_resume_seq
        printf '%s\n' "$text" >$__agent_resume_prompt_file
    else
        printf '%s\n' "$text" >>$__agent_resume_prompt_file
    end
end

# Inside kitty (outside tmux): the kitty snapshot is saved in the background
# when this shell's directory is not the one of its last save (a new
# window's first prompt, a cd); kitty's own layout events save it through
# the watcher `init kitty` adds. A prompt with nothing changed runs nothing.
function __agent_resume_kitty_save
    set -q KITTY_LISTEN_ON; and test -n "$KITTY_LISTEN_ON"; or return 0
    set -q TMUX; and test -n "$TMUX"; and return 0
    test "$PWD" = "$__agent_resume_kitty_pwd"; and return 0
    set -g __agent_resume_kitty_pwd $PWD
    command $__agent_resume_bin kitty save </dev/null >/dev/null 2>&1 &
    disown 2>/dev/null
end

# At each prompt, inside tmux: publishes `<seq>:<pid>` in the prompt
# file, or first takes the line a restore left pending for this pane (its
# note exists: one stat) from the line editor, as at a first prompt.
# Builtins only. The first prompt's question goes before it; while a
# question is outstanding, a line is about to run and the prompt is not
# published.
function __agent_resume_publish --on-event fish_prompt
    set -q __agent_resume_first; and __agent_resume_first_prompt
    set -q KITTY_LISTEN_ON[1]; and __agent_resume_kitty_save
    test -z "$__agent_resume_asked"; or return 0
    test -n "$__agent_resume_prompt_file"; or return 0
    # The prompt's number: 1 at the first, then fish's own count of the
    # commands that set a status, behind a 2 (no `math`: a command
    # substitution costs every prompt). Two prompts with no command
    # between them share one: nothing ran.
    if test "$__agent_resume_seq" = 0
        set -g __agent_resume_seq 1
    else if set -q status_generation[1]
        set -g __agent_resume_seq 2$status_generation
    else
        set -g __agent_resume_seq (math $__agent_resume_seq + 1)
    end
    if test -z "$__agent_resume_no_pending"; and test -e "$__agent_resume_prompt_file.pending"
        __agent_resume_ask pending; and return 0
    end
    __agent_resume_write_prompt "$__agent_resume_seq:$fish_pid"
end

# The probe key: answers `<seq>:empty` only when the line being edited
# (every line of it) is empty; `<seq>:busy` otherwise. It never changes
# the line.
function __agent_resume_probe
    __agent_resume_in_tmux; or return 0
    set -l state busy
    test -z "$(commandline)"; and set state empty
    # In a command substitution: a foreground job would take the terminal
    # from the shell until it exited, and a restore reading the answer at
    # once would find another group in front.
    set -l sent (command tmux set-option -p -t "$TMUX_PANE" @agent_resume_probe "$__agent_resume_seq:$state" 2>/dev/null)
    return 0
end

if __agent_resume_in_tmux
    for mode in default insert visual
        bind -M $mode \e\[59999~ __agent_resume_probe
    end
end
