# Shared setup for tests/sh/bisect_*.sh (sourced after lib.sh; kept out of
# tests/sh so that ctest does not run it as a test).
#
# make_world N K: in $TMP, a git repository `repo` of N commits dated
# 2026-11-01.. (one a day, fixed author and committer), where commit K also
# changes TransactionalColumnFamily.java; a docroot of per-day profiles
# served over HTTP by tests/tools/fetch_server.py (healthy before K,
# regressed from K, two grpc nodes a day); and `runs.txt` listing them by URL.
# Sets PORT, SERVER_PID, COMMITS (array, oldest first), K_ID, XDG_CACHE_HOME.

FX="$FG_SOURCE_DIR/fixtures"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_CONFIG_NOSYSTEM=1 HOME="$TMP"
export XDG_CACHE_HOME="$TMP/cache"
unset FGBISECT_RUNS

make_world() {
	local n=$1 k=$2 i d
	git init -q -b main "$TMP/repo"
	local java="$TMP/repo/zeebe/db/src/main/java/io/camunda/zeebe/db/impl/rocksdb/transaction"
	mkdir -p "$java" "$TMP/docroot"
	COMMITS=()
	for ((i = 1; i <= n; i++)); do
		d=$(printf '2026-11-%02d' "$i")
		echo "change $i" >"$TMP/repo/file$i.txt"
		if ((i == 1 || i == k)); then
			echo "class TransactionalColumnFamily { /* version $i */ }" >"$java/TransactionalColumnFamily.java"
		fi
		git -C "$TMP/repo" add -A
		GIT_AUTHOR_DATE="${d}T12:00:00Z" GIT_COMMITTER_DATE="${d}T12:00:00Z" \
			git -C "$TMP/repo" commit -q -m "commit $i"
		COMMITS+=("$(git -C "$TMP/repo" rev-parse HEAD)")
		if ((i < k)); then
			ln -s "$FX/day01-broker-0-grpc.collapsed.gz" "$TMP/docroot/$d-broker-0.collapsed.gz"
			ln -s "$FX/day01-broker-1-grpc.collapsed.gz" "$TMP/docroot/$d-broker-1.collapsed.gz"
		else
			ln -s "$FX/day10-broker-0-grpc.collapsed.gz" "$TMP/docroot/$d-broker-0.collapsed.gz"
			ln -s "$FX/zeebe-regressed.collapsed.gz" "$TMP/docroot/$d-broker-1.collapsed.gz"
		fi
	done
	K_ID=${COMMITS[k - 1]}
	python3 "$FG_SOURCE_DIR/tests/tools/fetch_server.py" "$TMP/docroot" >"$TMP/port" &
	SERVER_PID=$!
	wait_for_file "$TMP/port" || fail "the HTTP server wrote no port"
	PORT=$(cat "$TMP/port")
	# Short ids, as daily benchmark names write them; relative locations
	# resolved against the runs file's own URL.
	{
		echo "# date  commit  node  protocol  event  location"
		for ((i = 1; i <= n; i++)); do
			d=$(printf '2026-11-%02d' "$i")
			for node in 0 1; do
				echo "$d ${COMMITS[i - 1]:0:8} broker-$node grpc cpu http://127.0.0.1:$PORT/files/$d-broker-$node.collapsed.gz"
			done
		done
	} >"$TMP/runs.txt"
}

stop_server() {
	if [[ -n "${SERVER_PID:-}" ]]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
}

# requests: how many profile downloads the server has served in all.
requests() {
	python3 - "$PORT" "$TMP/docroot" <<'PY'
import os, sys, urllib.request
port, root = sys.argv[1], sys.argv[2]
total = 0
for name in os.listdir(root):
    url = "http://127.0.0.1:%s/_count?path=/files/%s" % (port, name)
    total += int(urllib.request.urlopen(url).read())
print(total)
PY
}

