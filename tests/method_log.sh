# hotfiles' method histories checked against git itself (`git log -L
# FIRST,LAST:PATH` over the lines fgbisect reports for each method), shared
# by tests/sh/hotfiles_methods.sh and contrib/check-methods-real.sh (sourced,
# not run; kept out of tests/sh so that ctest does not run it).  Needs git
# and jq.

# git log -L over a method's ranges at BAD: WHICH is "window" (the commits of
# GOOD..BAD that touched them, sorted, comma-separated) or "last" (the newest
# commit at or before BAD that touched them).
method_log_L() { # repo which path ranges-json good bad
	local repo=$1 which=$2 path=$3 ranges=$4 good=$5 bad=$6 a b spec=()
	while read -r a b; do spec+=(-L "$a,$b:$path"); done < <(jq -r '.[] | "\(.[0]) \(.[1])"' <<<"$ranges")
	if [ "$which" = window ]; then
		git -C "$repo" log --format=%H -s "${spec[@]}" "$good..$bad" | sed '/^$/d' | sort | paste -sd, -
	else
		git -C "$repo" log --format=%H -s -n1 "${spec[@]}" "$bad" | sed '/^$/d'
	fi
}

# Every method a `hotfiles --json` output found, against method_log_L: one
# line on stdout for each disagreement; sets method_checked (methods
# compared) and method_changed (those that changed in the window).
method_check() { # json repo good bad
	local json=$1 repo=$2 good=$3 bad=$4 frame path ranges last win want
	method_checked=0 method_changed=0
	while IFS=$'\t' read -r frame path ranges last win; do
		method_checked=$((method_checked + 1))
		[ -z "$win" ] || method_changed=$((method_changed + 1))
		want=$(method_log_L "$repo" window "$path" "$ranges" "$good" "$bad")
		[ "$win" = "$want" ] || echo "$frame: method commits [$win], git log -L says [$want]"
		want=$(method_log_L "$repo" last "$path" "$ranges" "$good" "$bad")
		[ "$last" = "$want" ] || echo "$frame: last method commit $last, git log -L -n1 says $want"
	done < <(jq -r '.files[] | select(.method != null and .method.status == "found") |
		[.frame, .path, (.method.lines | tojson), .method.last.commit,
		 (.method_commits | map(.commit) | sort | join(","))] | @tsv' "$json")
}
