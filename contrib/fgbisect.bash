# bash completion for fgbisect.  Source it (". contrib/fgbisect.bash") or
# install it as /usr/share/bash-completion/completions/fgbisect.  Commands,
# options and their values come from fgbisect itself (--list-commands,
# runs --list-actions, CMD --list-options, CMD --list-values OPTION: the
# commands' option tables), so this file never falls behind them.
_fgbisect() {
	local cur prev cmd words_=() i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	local prog=${COMP_WORDS[0]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			cmd=run
		else
			mapfile -t COMPREPLY < <(compgen -W "$("$prog" --list-commands 2>/dev/null)" -- "$cur")
			return
		fi
	fi
	# runs: its action first (scan, ...), then that action's options.
	if [[ $cmd == runs ]]; then
		if ((COMP_CWORD == i + 1)); then
			mapfile -t COMPREPLY < <(compgen -W "$("$prog" runs --list-actions 2>/dev/null)" -- "$cur")
			return
		fi
		cmd="runs ${COMP_WORDS[i + 1]}"
	fi
	local listing
	listing=$($prog $cmd --list-options 2>/dev/null) || return
	# After an option that takes an argument: its values when it has a
	# fixed set, else files.
	if [[ $prev == -* ]] && grep -q -- "^$prev " <<<"$listing"; then
		local values
		values=$($prog $cmd --list-values "$prev" 2>/dev/null)
		if [[ -n $values ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(cut -d' ' -f1 <<<"$listing")" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _fgbisect fgbisect
