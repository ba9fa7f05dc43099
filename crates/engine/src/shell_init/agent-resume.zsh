# agent-resume shell integration for zsh.
# Load it with:  eval "$(agent-resume init zsh)"
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

typeset -g _agent_resume_bin=@AGENT_RESUME_BIN@
# The key `tmux restore` started this pane with serves its first take
# only: kept unexported from here, so nothing started from this shell
# (rc files, nested shells, the agent) carries it.
typeset -g _agent_resume_take_key=${AGENT_RESUME_TAKE-}
unset AGENT_RESUME_TAKE
typeset -ga _agent_resume_agents=(@AGENT_RESUME_COMMANDS@)
# Tells `agent-resume doctor`, run from this shell, that it is loaded.
export AGENT_RESUME_SHELL=zsh
typeset -g _agent_resume_running=
typeset -g _agent_resume_kitty_launched=
typeset -g _agent_resume_kitty_pwd=
# The directory this user's prompt files live in (private, made by `agent-resume enable` or a tmux server's start).
typeset -g _agent_resume_prompts=@AGENT_RESUME_PROMPTS@

_agent_resume_history() {
  [[ $1 != *AGENT_RESUME_LINE=1* ]]
}

_agent_resume_is_agent() {
  # The patterns below need zsh's own options whatever the user set
  # (`#` is a repetition only with extended_glob).
  emulate -L zsh
  setopt extended_glob
  local w
  # ${(Q)…} unquotes: a resume line quotes every word (`'claude'`).
  for w in ${(Q)${(z)1}}; do
    [[ $w == [A-Za-z_][A-Za-z0-9_]#=* ]] && continue
    [[ $w == (command|exec|env|nohup|noglob) ]] && continue
    (( ${_agent_resume_agents[(Ie)${w:t}]} )) && return 0
    return 1
  done
  return 1
}

_agent_resume_has_pane() {
  [[ -n ${AGENT_RESUME_PANE-} || -n ${TMUX_PANE-} ]]
}

# In a kitty window (outside tmux) the pane id is this window's own: asked
# of `agent-resume kitty pane` once per window (the id kitty started the
# window with, the one the window had at the last save, or a fresh one),
# never one inherited from another window or another kitty.
if [[ -n ${KITTY_WINDOW_ID-} && -n ${KITTY_LISTEN_ON-} && -z ${TMUX-} \
  && ${AGENT_RESUME_KITTY_WINDOW-} != "$KITTY_LISTEN_ON#$KITTY_WINDOW_ID" ]]; then
  typeset -g _agent_resume_launched=${AGENT_RESUME_PANE-}
  if AGENT_RESUME_PANE=$("$_agent_resume_bin" kitty pane 2>/dev/null </dev/null) \
    && [[ -n $AGENT_RESUME_PANE ]]; then
    export AGENT_RESUME_PANE
    # The id the window was started with (a restore's session file names
    # it): only then can a line wait for its first prompt.
    [[ $AGENT_RESUME_PANE == "$_agent_resume_launched" ]] && _agent_resume_kitty_launched=1
  else
    unset AGENT_RESUME_PANE
  fi
  unset _agent_resume_launched
  # `kitty pane` saved the snapshot with this directory.
  _agent_resume_kitty_pwd=$PWD
  export AGENT_RESUME_KITTY_WINDOW="$KITTY_LISTEN_ON#$KITTY_WINDOW_ID"
fi

# Inside tmux, with a pane tmux named (`%N`).
_agent_resume_in_tmux() {
  emulate -L zsh
  [[ -n ${TMUX-} && ${TMUX_PANE-} == %<-> ]]
}

typeset -gi _agent_resume_seq=0
typeset -g _agent_resume_no_pending=
# This pane's prompt file: `tmux-<server pid>-<pane number>`, from $TMUX
# (`<socket>,<server pid>,<session>`) and $TMUX_PANE.
typeset -g _agent_resume_prompt_file=
if _agent_resume_in_tmux && [[ -n $_agent_resume_prompts ]]; then
  () {
    emulate -L zsh
    local server=${${TMUX%,*}##*,}
    [[ $server == <-> ]] && \
      _agent_resume_prompt_file="$_agent_resume_prompts/tmux-$server-${TMUX_PANE#%}"
  }
fi

# At each prompt, inside tmux: takes the line a restore left pending for
# this pane (its note exists: one stat), then appends `<seq>:<pid>` to
# the prompt file. Builtins only.
_agent_resume_publish() {
  [[ -n $_agent_resume_prompt_file ]] || return 0
  (( _agent_resume_seq++ ))
  if [[ -z $_agent_resume_no_pending && -e $_agent_resume_prompt_file.pending ]]; then
    local line
    if line=$("$_agent_resume_bin" take --pending --shell zsh --shell-pid "$$" 2>/dev/null); then
      eval "$line"
      _agent_resume_resumed_ended $?
      (( _agent_resume_seq++ ))
    fi
    # A note the take could not read stays: never asked again by this shell.
    [[ -e $_agent_resume_prompt_file.pending ]] && _agent_resume_no_pending=1
  fi
  # Appended (a rewrite would pay a flush); every 100th prompt afresh.
  if (( _agent_resume_seq % 100 )); then
    print -r -- "$_agent_resume_seq:$$" 2>/dev/null >>$_agent_resume_prompt_file
  else
    print -r -- "$_agent_resume_seq:$$" 2>/dev/null >|$_agent_resume_prompt_file
  fi
  return 0
}

# The probe key: answers `<seq>:empty` only when the line being edited is
# empty and continues no unfinished one (PREBUFFER); `<seq>:busy`
# otherwise. It never changes the line.
_agent_resume_probe() {
  local state=busy
  [[ -z $BUFFER && -z $PREBUFFER ]] && state=empty
  # In a command substitution: a foreground job would take the terminal
  # from the shell until it exited, and a restore reading the answer at
  # once would find another group in front.
  : "$(command tmux set-option -p -t "$TMUX_PANE" @agent_resume_probe "$_agent_resume_seq:$state" 2>/dev/null)"
  return 0
}

if _agent_resume_in_tmux; then
  zle -N _agent_resume_probe
  bindkey -M emacs '\e[59999~' _agent_resume_probe
  bindkey -M viins '\e[59999~' _agent_resume_probe
  bindkey -M vicmd '\e[59999~' _agent_resume_probe
fi

_agent_resume_preexec() {
  [[ -n $_agent_resume_prompt_file ]] && print -r -- - 2>/dev/null >>$_agent_resume_prompt_file
  _agent_resume_running=
  _agent_resume_has_pane || return 0
  _agent_resume_is_agent "$1" || return 0
  _agent_resume_running=1
  "$_agent_resume_bin" note --shell zsh --shell-pid "$$" <<<"$1" >/dev/null 2>&1
}

_agent_resume_ended() {
  # Exit 0: the agent ended while attached. 148 (stopped), failures and
  # signals keep the recording.
  (( $1 == 0 )) && "$_agent_resume_bin" forget --quiet --if-interactive </dev/null >/dev/null 2>&1
}

# After a resumed line: its status tells the restore that resumed it
# whether the resume ran or failed at once.
_agent_resume_resumed_ended() {
  "$_agent_resume_bin" ended --status "$1" </dev/null >/dev/null 2>&1
  _agent_resume_ended "$1"
}

_agent_resume_precmd() {
  local st=$?
  if [[ -n $_agent_resume_running ]]; then
    _agent_resume_running=
    _agent_resume_ended $st
  fi
  _agent_resume_first
  _agent_resume_kitty_save
  # Last: the prompt is published only once nothing else runs before it.
  _agent_resume_publish
}

# Inside kitty (outside tmux): the kitty snapshot is saved in the background
# when this shell's directory is not the one of its last save (a new
# window's first prompt, a cd); kitty's own layout events save it through
# the watcher `init kitty` adds. A prompt with nothing changed runs nothing.
_agent_resume_kitty_save() {
  [[ -n ${KITTY_LISTEN_ON-} && -z ${TMUX-} ]] || return 0
  [[ $PWD == "$_agent_resume_kitty_pwd" ]] && return 0
  _agent_resume_kitty_pwd=$PWD
  "$_agent_resume_bin" kitty save </dev/null >/dev/null 2>&1 &!
}

_agent_resume_first() {
  # A line waits at a first prompt only in a pane a restore made: inside
  # tmux one started with a take key, in kitty a window started with its
  # id, elsewhere one a host named.
  if _agent_resume_in_tmux; then
    [[ -n $_agent_resume_take_key ]] || return 0
  elif [[ -n ${KITTY_LISTEN_ON-} ]]; then
    [[ -n $_agent_resume_kitty_launched ]] || return 0
  else
    [[ -n ${AGENT_RESUME_PANE-} ]] || return 0
  fi
  # Only the pane's first shell takes: a nested shell inherits the marker.
  # It names this pane, so a pane that inherits it from elsewhere (a tmux
  # server started from a shell of ours) still takes.
  local key="pane:${AGENT_RESUME_PANE-}"
  _agent_resume_in_tmux && key="tmux:$TMUX:$TMUX_PANE"
  [[ ${AGENT_RESUME_TAKEN-} == "$key" ]] && return 0
  export AGENT_RESUME_TAKEN="$key"
  local line key=$_agent_resume_take_key
  _agent_resume_take_key=
  line=$(AGENT_RESUME_TAKE=$key "$_agent_resume_bin" take --shell zsh --shell-pid "$$" 2>/dev/null) || return 0
  eval "$line"
  _agent_resume_resumed_ended $?
}

autoload -Uz add-zsh-hook
add-zsh-hook zshaddhistory _agent_resume_history
add-zsh-hook preexec _agent_resume_preexec
add-zsh-hook precmd _agent_resume_precmd
