# agent-resume shell integration for bash.
# Load it with:  eval "$(agent-resume init bash)"
#
# - keeps resume lines (they carry AGENT_RESUME_LINE=1) out of history;
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

__agent_resume_bin=@AGENT_RESUME_BIN@
# The key `tmux restore` started this pane with serves its first take
# only: kept unexported from here, so nothing started from this shell
# (rc files, nested shells, the agent) carries it.
__agent_resume_take_key=${AGENT_RESUME_TAKE-}
unset -v AGENT_RESUME_TAKE
__agent_resume_agents=' @AGENT_RESUME_COMMANDS@ '
# Tells `agent-resume doctor`, run from this shell, that it is loaded.
export AGENT_RESUME_SHELL=bash
__agent_resume_seen=
__agent_resume_ran=

case ":${HISTIGNORE-}:" in
  *':*AGENT_RESUME_LINE=1*:'*) ;;
  *) HISTIGNORE="${HISTIGNORE:+$HISTIGNORE:}*AGENT_RESUME_LINE=1*" ;;
esac

__agent_resume_is_agent() {
  local -a words
  local w
  read -r -a words <<<"$1"
  for w in "${words[@]}"; do
    # A resume line quotes every word (`'claude'`).
    w=${w//[\'\"]/}
    case $w in
      [A-Za-z_]*=*) continue ;;
      command|exec|env|nohup) continue ;;
    esac
    case $__agent_resume_agents in
      *" ${w##*/} "*) return 0 ;;
    esac
    return 1
  done
  return 1
}

__agent_resume_has_pane() {
  [ -n "${AGENT_RESUME_PANE-}" ] || [ -n "${TMUX_PANE-}" ]
}

# In a kitty window (outside tmux) the pane id is this window's own: asked
# of `agent-resume kitty pane` once per window (the id kitty started the
# window with, the one the window had at the last save, or a fresh one),
# never one inherited from another window or another kitty.
if [ -n "${KITTY_WINDOW_ID-}" ] && [ -n "${KITTY_LISTEN_ON-}" ] && [ -z "${TMUX-}" ] \
  && [ "${AGENT_RESUME_KITTY_WINDOW-}" != "$KITTY_LISTEN_ON#$KITTY_WINDOW_ID" ]; then
  if AGENT_RESUME_PANE=$("$__agent_resume_bin" kitty pane 2>/dev/null </dev/null) \
    && [ -n "$AGENT_RESUME_PANE" ]; then
    export AGENT_RESUME_PANE
  else
    unset AGENT_RESUME_PANE
  fi
  export AGENT_RESUME_KITTY_WINDOW="$KITTY_LISTEN_ON#$KITTY_WINDOW_ID"
fi

# The last history entry without its number.
__agent_resume_last() {
  local entry
  entry=$(HISTTIMEFORMAT= builtin history 1)
  entry=${entry#"${entry%%[![:space:]]*}"}
  printf '%s' "${entry#*[[:space:]]}"
}

# Runs from PS0, in a subshell, just before a command line executes.
__agent_resume_preexec() {
  __agent_resume_in_tmux && command tmux set-option -p -u -t "$TMUX_PANE" @agent_resume_prompt >/dev/null 2>&1
  __agent_resume_has_pane || return 0
  local line
  line=$(__agent_resume_last)
  __agent_resume_is_agent "$line" || return 0
  "$__agent_resume_bin" note --shell bash --shell-pid "$$" <<<"$line" >/dev/null 2>&1
}

__agent_resume_ended() {
  # Exit 0: the agent ended while attached. 148 (stopped), failures and
  # signals keep the recording.
  [ "$1" -eq 0 ] && "$__agent_resume_bin" forget --quiet --if-interactive </dev/null >/dev/null 2>&1
  return 0
}

# After a resumed line: its status tells the restore that resumed it
# whether the resume ran or failed at once.
__agent_resume_resumed_ended() {
  "$__agent_resume_bin" ended --status "$1" </dev/null >/dev/null 2>&1
  __agent_resume_ended "$1"
}

# Whether history drops a line that repeats the last entry (ignoredups,
# ignoreboth — Debian's default .bashrc — or erasedups).
__agent_resume_drops_dups() {
  case ":${HISTCONTROL-}:" in
    *:ignoredups:* | *:ignoreboth:* | *:erasedups:*) return 0 ;;
  esac
  return 1
}

# Inside tmux, with a pane tmux named (`%N`).
__agent_resume_in_tmux() {
  [ -n "${TMUX-}" ] || return 1
  case ${TMUX_PANE-} in
    %*) ;;
    *) return 1 ;;
  esac
  case ${TMUX_PANE#%} in
    '' | *[!0-9]*) return 1 ;;
  esac
}

__agent_resume_seq=0
__agent_resume_ps2=

# At each prompt, inside tmux: one tmux call publishes `<seq>:<pid>` and
# reads whether `tmux restore` left this pane a line to take (its id).
__agent_resume_publish() {
  __agent_resume_in_tmux || return 0
  __agent_resume_seq=$((__agent_resume_seq + 1))
  __agent_resume_ps2=
  # A continuation prompt (PS2) sets the flag as it is drawn (see below).
  case $PS2 in
    *__agent_resume_ps2*) ;;
    *) PS2='${__agent_resume_ps2:0:$((__agent_resume_ps2=1,0))}'"$PS2" ;;
  esac
  local pending line
  pending=$(command tmux set-option -p -t "$TMUX_PANE" @agent_resume_prompt "$__agent_resume_seq:$$" \; \
    show-options -p -q -v -t "$TMUX_PANE" @agent_resume_pending 2>/dev/null) || return 0
  [ -n "$pending" ] || return 0
  command tmux set-option -p -u -t "$TMUX_PANE" @agent_resume_pending \; \
    set-option -p -u -t "$TMUX_PANE" @agent_resume_prompt >/dev/null 2>&1
  line=$("$__agent_resume_bin" take --pane "$pending" --shell bash --shell-pid "$$" 2>/dev/null) || {
    __agent_resume_publish
    return 0
  }
  eval "$line"
  __agent_resume_resumed_ended $?
  __agent_resume_publish
}

# The probe key: answers `<seq>:empty` only when the line being edited is
# empty and is not the continuation of an unfinished one; `<seq>:busy`
# otherwise. It never changes the line.
__agent_resume_probe() {
  local state=busy
  [ -z "$READLINE_LINE" ] && [ -z "$__agent_resume_ps2" ] && state=empty
  # In a command substitution: a foreground job would take the terminal
  # from the shell until it exited, and a restore reading the answer at
  # once would find another group in front.
  : "$(command tmux set-option -p -t "$TMUX_PANE" @agent_resume_probe "$__agent_resume_seq:$state" 2>/dev/null)"
  return 0
}

if __agent_resume_in_tmux; then
  bind -m emacs -x '"\e[59999~": __agent_resume_probe' 2>/dev/null
  bind -m vi-insert -x '"\e[59999~": __agent_resume_probe' 2>/dev/null
  bind -m vi-command -x '"\e[59999~": __agent_resume_probe' 2>/dev/null
fi

__agent_resume_precmd() {
  local st=$? entry ran=$__agent_resume_ran
  __agent_resume_ran=
  entry=$(HISTTIMEFORMAT= builtin history 1)
  # The line that just ran is the new history entry; when a line ran (PS0
  # was shown) but history kept none, it was most likely a re-run of the
  # last entry that history dropped as a duplicate. (A space-prefixed line
  # under ignoreboth, right after an agent, is the one case this misreads.)
  if [ -n "$__agent_resume_seen" ] && __agent_resume_has_pane \
    && { [ "$entry" != "$__agent_resume_seen" ] \
      || { [ -n "$ran" ] && __agent_resume_drops_dups; }; } \
    && __agent_resume_is_agent "$(__agent_resume_last)"; then
    __agent_resume_ended "$st"
  fi
  __agent_resume_seen=${entry:-none}
  __agent_resume_first
  __agent_resume_kitty_save
  # Last: the prompt is published only once nothing else runs before it.
  __agent_resume_publish
}

# Inside kitty (outside tmux): the kitty snapshot is saved in the background
# at each prompt, so it is current whenever kitty ends.
__agent_resume_kitty_save() {
  [ -n "${KITTY_LISTEN_ON-}" ] && [ -z "${TMUX-}" ] || return 0
  ( "$__agent_resume_bin" kitty save </dev/null >/dev/null 2>&1 & )
}

__agent_resume_first() {
  __agent_resume_has_pane || return 0
  # Only the pane's first shell takes: a nested shell inherits the marker.
  # It names this pane, so a pane that inherits it from elsewhere (a tmux
  # server started from a shell of ours) still takes.
  local key="pane:${AGENT_RESUME_PANE-}"
  __agent_resume_in_tmux && key="tmux:$TMUX:$TMUX_PANE"
  [ "${AGENT_RESUME_TAKEN-}" = "$key" ] && return 0
  export AGENT_RESUME_TAKEN="$key"
  local line key=$__agent_resume_take_key
  __agent_resume_take_key=
  line=$(AGENT_RESUME_TAKE=$key "$__agent_resume_bin" take --shell bash --shell-pid "$$" 2>/dev/null) || return 0
  eval "$line"
  __agent_resume_resumed_ended $?
}

# PS0 is expanded by this shell just before a line runs (never for an empty
# line): the arithmetic sets the flag here and expands to nothing; the
# command substitution notes the line in a subshell.
PS0="${PS0-}"'${__agent_resume_ran:0:$((__agent_resume_ran=1,0))}$(__agent_resume_preexec)'
case ";${PROMPT_COMMAND-};" in
  *';__agent_resume_precmd;'*) ;;
  *) PROMPT_COMMAND="__agent_resume_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}" ;;
esac
