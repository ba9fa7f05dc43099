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
#   (its pane's prompt file, emptied when a line runs), and answers a probe
#   key with whether the line being edited is empty, so `agent-resume tmux
#   restore` types only into an empty, idle prompt; a line it could not
#   type is taken at the next prompt.
# Nothing runs unless the pane has an id (AGENT_RESUME_PANE, or TMUX_PANE).
# A prompt and a line cost no process: builtins and variables only (a
# process runs when an agent starts or ends, and at a pane's first prompt
# only when a restore made that pane).

__agent_resume_bin=@AGENT_RESUME_BIN@
# The key `tmux restore` started this pane with serves its first take
# only: kept unexported from here, so nothing started from this shell
# (rc files, nested shells, the agent) carries it.
__agent_resume_take_key=${AGENT_RESUME_TAKE-}
unset -v AGENT_RESUME_TAKE
__agent_resume_agents=' @AGENT_RESUME_COMMANDS@ '
# Tells `agent-resume doctor`, run from this shell, that it is loaded.
export AGENT_RESUME_SHELL=bash
__agent_resume_running=
__agent_resume_armed=
__agent_resume_alive=
__agent_resume_trap=
__agent_resume_kitty_launched=
__agent_resume_kitty_pwd=
# The directory this user's prompt files live in (private, made by `agent-resume enable` or a tmux server's start).
__agent_resume_prompts=@AGENT_RESUME_PROMPTS@

case ":${HISTIGNORE-}:" in
  *':*AGENT_RESUME_LINE=1*:'*) ;;
  *) HISTIGNORE="${HISTIGNORE:+$HISTIGNORE:}*AGENT_RESUME_LINE=1*" ;;
esac

__agent_resume_is_agent() {
  local -a words
  local w
  read -r -a words <<<"$1"
  for w in "${words[@]}"; do
    # A resume line quotes every word (`'claude'`); a command ends at
    # `;`, `|` or `&` (`claude;ls`), as zsh splits it.
    w=${w//[\'\"]/}
    w=${w%%[;|&]*}
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
  __agent_resume_launched=${AGENT_RESUME_PANE-}
  if AGENT_RESUME_PANE=$("$__agent_resume_bin" kitty pane 2>/dev/null </dev/null) \
    && [ -n "$AGENT_RESUME_PANE" ]; then
    export AGENT_RESUME_PANE
    # The id the window was started with (a restore's session file names
    # it): only then can a line wait for its first prompt.
    [ "$AGENT_RESUME_PANE" = "$__agent_resume_launched" ] && __agent_resume_kitty_launched=1
  else
    unset AGENT_RESUME_PANE
  fi
  unset -v __agent_resume_launched
  export AGENT_RESUME_KITTY_WINDOW="$KITTY_LISTEN_ON#$KITTY_WINDOW_ID"
  # `kitty pane` saved the snapshot with this directory.
  __agent_resume_kitty_pwd=$PWD
fi

# The first simple command of each line, before it runs (from the DEBUG
# trap, armed by PS0 so nothing else — the prompt's own commands, the
# commands after the first — pays more than one test): empties the prompt
# file and notes an agent launch.
__agent_resume_line() {
  __agent_resume_armed=
  [ -n "$__agent_resume_prompt_file" ] && printf -- '-\n' 2>/dev/null >>"$__agent_resume_prompt_file"
  __agent_resume_has_pane || return 0
  __agent_resume_is_agent "$1" || return 0
  __agent_resume_running=1
  "$__agent_resume_bin" note --shell bash --shell-pid "$$" <<<"$1" >/dev/null 2>&1
  return 0
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
__agent_resume_no_pending=
# This pane's prompt file: `tmux-<server pid>-<pane number>`, from $TMUX
# (`<socket>,<server pid>,<session>`) and $TMUX_PANE.
__agent_resume_prompt_file=
if __agent_resume_in_tmux && [ -n "$__agent_resume_prompts" ]; then
  __agent_resume_prompt_file=${TMUX%,*}
  __agent_resume_prompt_file=${__agent_resume_prompt_file##*,}
  case $__agent_resume_prompt_file in
    '' | *[!0-9]*) __agent_resume_prompt_file= ;;
    *) __agent_resume_prompt_file="$__agent_resume_prompts/tmux-$__agent_resume_prompt_file-${TMUX_PANE#%}" ;;
  esac
fi

# At each prompt, inside tmux: takes the line a restore left pending for
# this pane (its note exists: one stat), then appends `<seq>:<pid>` to
# the prompt file. Builtins only.
__agent_resume_publish() {
  [ -n "$__agent_resume_prompt_file" ] || return 0
  __agent_resume_seq=$((__agent_resume_seq + 1))
  __agent_resume_ps2=
  # A continuation prompt (PS2) sets the flag as it is drawn (see below),
  # also when the user's rc set PS2 after this file.
  case $PS2 in
    *__agent_resume_ps2*) ;;
    *) PS2='${__agent_resume_ps2:0:$((__agent_resume_ps2=1,0))}'"$PS2" ;;
  esac
  if [ -z "$__agent_resume_no_pending" ] && [ -e "$__agent_resume_prompt_file.pending" ]; then
    local line
    if line=$("$__agent_resume_bin" take --pending --shell bash --shell-pid "$$" 2>/dev/null); then
      eval "$line"
      __agent_resume_resumed_ended $?
      __agent_resume_seq=$((__agent_resume_seq + 1))
    fi
    # A note the take could not read stays: never asked again by this shell.
    [ -e "$__agent_resume_prompt_file.pending" ] && __agent_resume_no_pending=1
  fi
  # Appended (a rewrite would pay a flush); every 100th prompt afresh.
  if ((__agent_resume_seq % 100)); then
    printf '%s\n' "$__agent_resume_seq:$$" 2>/dev/null >>"$__agent_resume_prompt_file"
  else
    printf '%s\n' "$__agent_resume_seq:$$" 2>/dev/null >|"$__agent_resume_prompt_file"
  fi
  return 0
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
  local st=$? alive=$__agent_resume_alive
  __agent_resume_alive=
  __agent_resume_armed=
  if [ -n "$__agent_resume_running" ]; then
    __agent_resume_running=
    __agent_resume_ended "$st"
  fi
  __agent_resume_first
  __agent_resume_kitty_save
  # Last: the prompt is published only once nothing else runs before it,
  # and only while this integration's DEBUG trap marks each line.
  if [ -n "$__agent_resume_trap" ] && [ -z "$alive" ]; then
    [ -n "$__agent_resume_prompt_file" ] && printf -- '-\n' 2>/dev/null >>"$__agent_resume_prompt_file"
    return 0
  fi
  __agent_resume_publish
}

# Inside kitty (outside tmux): the kitty snapshot is saved in the background
# when this shell's directory is not the one of its last save (a new
# window's first prompt, a cd); kitty's own layout events save it through
# the watcher `init kitty` adds. A prompt with nothing changed runs nothing.
__agent_resume_kitty_save() {
  [ -n "${KITTY_LISTEN_ON-}" ] && [ -z "${TMUX-}" ] || return 0
  [ "$PWD" = "$__agent_resume_kitty_pwd" ] && return 0
  __agent_resume_kitty_pwd=$PWD
  ( "$__agent_resume_bin" kitty save </dev/null >/dev/null 2>&1 & )
}

__agent_resume_first() {
  # A line waits at a first prompt only in a pane a restore made: inside
  # tmux one started with a take key, in kitty a window started with its
  # id, elsewhere one a host named.
  if __agent_resume_in_tmux; then
    [ -n "$__agent_resume_take_key" ] || return 0
  elif [ -n "${KITTY_LISTEN_ON-}" ]; then
    [ -n "$__agent_resume_kitty_launched" ] || return 0
  else
    [ -n "${AGENT_RESUME_PANE-}" ] || return 0
  fi
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
# line): the arithmetic arms the DEBUG trap for the line's first simple
# command and expands to nothing. No subshell, no process.
PS0="${PS0-}"'${__agent_resume_armed:0:$((__agent_resume_armed=1,0))}'
# With bash-preexec, its preexec functions share the DEBUG trap; otherwise
# the trap runs one test per simple command until PS0 arms it.
if [ -n "${bash_preexec_imported-}${__bp_imported-}" ]; then
  __agent_resume_preexec() {
    [ -z "$__agent_resume_armed" ] || __agent_resume_line "$1"
  }
  case " ${preexec_functions[*]-} " in
    *' __agent_resume_preexec '*) ;;
    *) preexec_functions+=(__agent_resume_preexec) ;;
  esac
else
  # It also notes that it ran for this prompt's own hook: a trap replaced
  # since (the user's, another tool's) stops the prompt being published,
  # so a line it no longer marks can never look like an idle prompt.
  trap '[ -z "$__agent_resume_armed" ] || __agent_resume_line "$BASH_COMMAND"; [ "$BASH_COMMAND" != __agent_resume_precmd ] || __agent_resume_alive=1' DEBUG
  __agent_resume_trap=1
fi
case ";${PROMPT_COMMAND-};" in
  *';__agent_resume_precmd;'*) ;;
  *) PROMPT_COMMAND="__agent_resume_precmd${PROMPT_COMMAND:+;$PROMPT_COMMAND}" ;;
esac
