# bash completion for fgbisect.  Source it (". contrib/fgbisect.bash") or
# install it as /usr/share/bash-completion/completions/fgbisect.  Commands
# and options come from fgbisect itself (--list-commands, CMD --list-options:
# the commands' option tables), so this file never falls behind them.
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
	if [[ $cmd == runs ]]; then
		# The action after it: scan or github (scan while none is typed).
		cmd="runs scan"
		for ((i++; i < COMP_CWORD; i++)); do
			[[ ${COMP_WORDS[i]} == github ]] && cmd="runs github"
		done
	fi
	local listing
	listing=$($prog $cmd --list-options 2>/dev/null) || return
	# After an option that takes an argument: files (or nothing to offer).
	if [[ $prev == -* ]] && grep -q -- "^$prev " <<<"$listing"; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(cut -d' ' -f1 <<<"$listing")" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _fgbisect fgbisect
