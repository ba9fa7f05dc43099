# agent-resume shell integration for fish.
# Load it with:  agent-resume init fish | source
#
# - resume lines start with a space, which fish keeps out of history;
# - when you run an agent, notes its allowlisted flags (never the text);
# - when the agent exits 0 while the pane is attached, clears the pane's
#   recording (a suspended, failed or killed agent keeps it);
# - at the pane's first prompt, takes the pane's armed resume line, if any,
#   and runs it: the line is never typed into your editor.
# - inside tmux, publishes at each prompt that the shell sits idle at it
#   (the pane option @agent_resume_prompt, cleared when a line runs), and
#   answers a probe key with whether the line being edited is empty, so
#   `agent-resume tmux restore` types only into an empty, idle prompt; a
#   line it could not type is taken at the next prompt.
# Nothing runs unless the pane has an id (AGENT_RESUME_PANE, or TMUX_PANE).

set -g __agent_resume_bin @AGENT_RESUME_BIN@
set -g __agent_resume_agents @AGENT_RESUME_COMMANDS@
# Tells `agent-resume doctor`, run from this shell, that it is loaded.
set -gx AGENT_RESUME_SHELL fish
set -g __agent_resume_running

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
        set -l id ($__agent_resume_bin kitty pane 2>/dev/null </dev/null)
        if test $status -eq 0; and test -n "$id"
            set -gx AGENT_RESUME_PANE $id
        else
            set -e AGENT_RESUME_PANE
        end
        set -gx AGENT_RESUME_KITTY_WINDOW "$KITTY_LISTEN_ON#$KITTY_WINDOW_ID"
    end
end

function __agent_resume_is_agent --argument-names line
    for w in (string split -n ' ' -- $line)
        # A resume line quotes every word: `'claude'`.
        set w (string trim -c "'\"" -- $w)
        string match -qr '^[A-Za-z_][A-Za-z0-9_]*=' -- $w; and continue
        contains -- $w command exec env nohup; and continue
        set -l base (string split -r -m1 / -- $w)[-1]
        contains -- $base $__agent_resume_agents
        return
    end
    return 1
end

function __agent_resume_ended --argument-names st
    # Exit 0: the agent ended while attached. Stopped, failed or killed
    # agents keep the recording.
    test "$st" -eq 0; and $__agent_resume_bin forget --quiet --if-interactive </dev/null >/dev/null 2>&1
    return 0
end

function __agent_resume_preexec --on-event fish_preexec
    __agent_resume_in_tmux; and command tmux set-option -p -u -t "$TMUX_PANE" @agent_resume_prompt >/dev/null 2>&1
    set -g __agent_resume_running
    __agent_resume_has_pane; or return 0
    __agent_resume_is_agent "$argv[1]"; or return 0
    # The job count before it: fish reports status 0 for a job stopped by
    # job control, so a job left behind is how a suspended agent shows.
    set -g __agent_resume_running (count (jobs -p 2>/dev/null))
    printf '%s\n' "$argv[1]" | $__agent_resume_bin note --shell fish --shell-pid $fish_pid >/dev/null 2>&1
end

function __agent_resume_postexec --on-event fish_postexec
    set -l st $status
    if test -n "$__agent_resume_running"
        set -l before $__agent_resume_running
        set -g __agent_resume_running
        # Suspended (or sent to the background): keep the recording.
        test (count (jobs -p 2>/dev/null)) -gt $before; and return 0
        __agent_resume_ended $st
    end
end

function __agent_resume_first_prompt
    functions -e __agent_resume_first_prompt
    __agent_resume_has_pane; or return 0
    # Only the pane's first shell takes: a nested shell inherits the marker.
    # It names this pane, so a pane that inherits it from elsewhere (a tmux
    # server started from a shell of ours) still takes.
    set -l key "pane:$AGENT_RESUME_PANE"
    __agent_resume_in_tmux; and set key "tmux:$TMUX:$TMUX_PANE"
    set -q AGENT_RESUME_TAKEN; and test "$AGENT_RESUME_TAKEN" = "$key"; and return 0
    set -gx AGENT_RESUME_TAKEN $key
    # Input already typed: leave the armed line for no one (take drops it).
    if test -n "$(commandline)"
        $__agent_resume_bin take --shell fish --has-input >/dev/null 2>&1
        return 0
    end
    set -l line ($__agent_resume_bin take --shell fish 2>/dev/null); or return 0
    # fish never hands the terminal to a job started inside an event
    # handler, and an agent must own its terminal (Ctrl-C, reads): start it
    # as a background job with job control on, then bring it to the
    # foreground, which gives it the terminal.
    set -l mode interactive
    status is-full-job-control; and set mode full
    status is-no-job-control; and set mode none
    status job-control full
    eval $line &
    fg >/dev/null 2>&1
    status job-control $mode
    # fish's `fg` does not report the job's exit status, so whether the
    # resumed agent ended cleanly is unknown here: the recording is kept
    # (as after a failed resume). An agent typed at the prompt later is
    # handled by the preexec/postexec pair as usual.
end

# Inside tmux, with a pane tmux named (`%N`).
function __agent_resume_in_tmux
    set -q TMUX; and test -n "$TMUX"; and set -q TMUX_PANE
    and string match -qr '^%[0-9]+$' -- "$TMUX_PANE"
    # fish itself reports a missing command, whatever its redirections.
    and command -q tmux
end

set -g __agent_resume_seq 0

# Inside kitty (outside tmux): the kitty snapshot is saved in the background
# at each prompt, so it is current whenever kitty ends.
function __agent_resume_kitty_save
    set -q KITTY_LISTEN_ON; and test -n "$KITTY_LISTEN_ON"; or return 0
    set -q TMUX; and test -n "$TMUX"; and return 0
    command $__agent_resume_bin kitty save </dev/null >/dev/null 2>&1 &
    disown 2>/dev/null
end

# At each prompt, inside tmux: one tmux call publishes `<seq>:<pid>` and
# reads whether `tmux restore` left this pane a line to take (its id).
# The first prompt's take runs before it.
function __agent_resume_publish --on-event fish_prompt
    functions -q __agent_resume_first_prompt; and __agent_resume_first_prompt
    __agent_resume_kitty_save
    __agent_resume_in_tmux; or return 0
    set -g __agent_resume_seq (math $__agent_resume_seq + 1)
    set -l pending (command tmux set-option -p -t "$TMUX_PANE" @agent_resume_prompt "$__agent_resume_seq:$fish_pid" \; \
        show-options -p -q -v -t "$TMUX_PANE" @agent_resume_pending 2>/dev/null); or return 0
    test -n "$pending"; or return 0
    command tmux set-option -p -u -t "$TMUX_PANE" @agent_resume_pending \; \
        set-option -p -u -t "$TMUX_PANE" @agent_resume_prompt >/dev/null 2>&1
    set -l line ($__agent_resume_bin take --pane "$pending[1]" --shell fish 2>/dev/null)
    if test $status -eq 0
        # As at the first prompt: the agent must own its terminal.
        set -l mode interactive
        status is-full-job-control; and set mode full
        status is-no-job-control; and set mode none
        status job-control full
        eval $line &
        fg >/dev/null 2>&1
        status job-control $mode
    end
    __agent_resume_publish
end

# The probe key: answers `<seq>:empty` only when the line being edited
# (every line of it) is empty; `<seq>:busy` otherwise. It never changes
# the line.
function __agent_resume_probe
    __agent_resume_in_tmux; or return 0
    set -l state busy
    test -z "$(commandline)"; and set state empty
    command tmux set-option -p -t "$TMUX_PANE" @agent_resume_probe "$__agent_resume_seq:$state" >/dev/null 2>&1
    return 0
end

if __agent_resume_in_tmux
    for mode in default insert visual
        bind -M $mode \e\[59999~ __agent_resume_probe
    end
end
