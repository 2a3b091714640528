# ctest-labels: slow
# fgbisect runs github (issue #31) against a loopback imitation of GitHub's
# Actions REST API (tests/tools/github_server.py: the documented paths, JSON
# fields, Link pagination, x-ratelimit headers; artifact zips answered with a
# 302 to another origin that refuses an Authorization header; an expired
# artifact answering 410), then days, run and the cache over the artifacts
# it lists.  A real git repository gives the runs' head_sha.
source "$(dirname "$0")/../lib.sh"
TMP=$(mktemp -d)
trap 'stop_server; rm -rf "$TMP"' EXIT
stop_server() { [[ -n ${SERVER_PID:-} ]] && kill "$SERVER_PID" 2>/dev/null; wait 2>/dev/null || true; }
cd "$TMP"
export XDG_CACHE_HOME=$TMP/cache
unset GITHUB_TOKEN
TOKEN=ghs_T0KEN-never-shown
fx=$FG_SOURCE_DIR/fixtures
gunzip -c "$fx/zeebe-healthy.collapsed.gz" >healthy.collapsed
gunzip -c "$fx/zeebe-regressed.collapsed.gz" >regressed.collapsed

# 30 daily builds: one commit a day; the regression lands on day 18.
git init -q repo
for d in $(seq 1 30); do
	GIT_AUTHOR_DATE="2026-08-$(printf %02d "$d")T03:00:00Z" GIT_COMMITTER_DATE="2026-08-$(printf %02d "$d")T03:00:00Z" \
		git -C repo -c user.name=t -c user.email=t@t commit -q --allow-empty -m "day $d"
done
git -C repo log --reverse --format=%H >shas

# The world: per day a run of the daily workflow with a grpc and a rest cpu
# artifact (the grpc one of day 2 expired), and a run of another workflow
# and one on another branch, which the filters leave out.
python3 - "$TOKEN" <<'PY'
import json, sys, zipfile
shas = open("shas").read().split()
runs, aid = [], 100
for d, sha in enumerate(shas, 1):
    day = "2026-08-%02d" % d
    bench = "medic-daily-%s-%s-test" % (day, sha[:8])
    src = "healthy" if d < 18 else "regressed"
    arts = []
    for variant in ("grpc", "rest"):
        aid += 1
        name = "flamegraph-%s-%s-cpu-camunda-0-%s" % (bench, variant, day.replace("-", ""))
        path = "zips/%d.zip" % aid
        import os; os.makedirs("zips", exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(src + ".collapsed", "c8-%s-%s-camunda-0-flamegraph-%s-cpu-%s.html" % (
                bench, variant, variant, day.replace("-", "")))
        arts.append({"id": aid, "name": name, "file": path, "expired": d == 2 and variant == "grpc"})
    runs.append({"id": 9000 + d, "head_sha": sha, "created_at": day + "T04:00:07Z", "head_branch": "main",
                 "workflow": "camunda-daily-load-tests.yml", "workflow_id": 77, "artifacts": arts})
    if d == 10:
        runs.append({"id": 8000 + d, "head_sha": sha, "created_at": day + "T09:00:00Z", "head_branch": "main",
                     "workflow": "ci.yml", "artifacts": [{"id": 1, "name": "flamegraph-medic-daily-x-grpc-cpu-camunda-0",
                                                           "file": "zips/101.zip"}]})
        runs.append({"id": 7000 + d, "head_sha": sha, "created_at": day + "T10:00:00Z", "head_branch": "stable",
                     "workflow": "camunda-daily-load-tests.yml", "artifacts": []})
json.dump({"token": sys.argv[1], "page_size": 4, "runs": runs}, open("world.json", "w"))
PY
python3 "$FG_SOURCE_DIR/tests/tools/github_server.py" world.json >ports &
SERVER_PID=$!
for _ in $(seq 100); do [[ -s ports ]] && break; sleep 0.05; done
read -r API BLOB <ports
api=http://127.0.0.1:$API/api
ctl() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$1"; }
# How many artifact zips were downloaded from the blob store (every id).
blobs() { python3 -c '
import json, sys, urllib.request
w = json.load(open("world.json"))
print(sum(int(urllib.request.urlopen("http://127.0.0.1:%s/_count?path=/blob/%d" % (sys.argv[1], a["id"])).read())
          for r in w["runs"] for a in r["artifacts"]))' "$BLOB"; }
gh=("$FGBISECT" runs github acme/camunda --api-url "$api" --workflow camunda-daily-load-tests.yml --branch main
	--artifact '^flamegraph-.*-grpc-cpu-')
# The runs file the world should give: one line per unexpired grpc artifact.
expected() { python3 -c '
import json, sys
w = json.load(open("world.json"))
lo, hi = sys.argv[2], sys.argv[3]
for r in sorted(w["runs"], key=lambda r: r["created_at"]):
    day = r["created_at"][:10]
    if r["workflow"] != "camunda-daily-load-tests.yml" or r["head_branch"] != "main" or not lo <= day <= hi:
        continue
    for a in r["artifacts"]:
        if "-grpc-cpu-" in a["name"] and not a["expired"]:
            print(day, r["head_sha"], "camunda-0", "grpc", "cpu",
                  "http://127.0.0.1:%s/api/repos/acme/camunda/actions/artifacts/%d/zip" % (sys.argv[1], a["id"]))' \
	"$API" "${1:-0000}" "${2:-9999}"; }
fields() { awk '!/^#/ {print $1, $2, $3, $4, $5, $6}' "$@"; }

# ---- listing -----------------------------------------------------------------
GH_TOKEN=$TOKEN "${gh[@]}" -o runs.txt 2>err
check_eq "runs github: the runs file" "$(fields runs.txt)" "$(expected)"
check_eq "runs github: summary" "$(cat err)" \
	"fgbisect: 30 runs listed, 29 artifacts written, 1 expired skipped (GitHub keeps artifacts 90 days by default)"
check_eq "runs github: 8 pages of runs (4 a page)" \
	"$(ctl "http://127.0.0.1:$API/_count?path=/api/repos/acme/camunda/actions/workflows/camunda-daily-load-tests.yml/runs")" 8
check_eq "runs github: no zip downloaded" "$(blobs)" 0
GH_TOKEN=$TOKEN "${gh[@]}" --since 2026-08-10 --until 2026-08-12 >window.txt 2>/dev/null
check_eq "runs github: --since/--until" "$(fields window.txt)" "$(expected 2026-08-10 2026-08-12)"
GH_TOKEN=wrong "${gh[@]}" --header "Authorization: Bearer $TOKEN" --since 2026-08-10 --until 2026-08-12 \
	>header.txt 2>/dev/null
check_eq "runs github: --header's token wins" "$(fields header.txt)" "$(expected 2026-08-10 2026-08-12)"
# Written once, extended later from its last date.
GH_TOKEN=$TOKEN "${gh[@]}" --until 2026-08-15 -o grow.txt 2>/dev/null
check_eq "extend: first part" "$(fields grow.txt)" "$(expected 0000 2026-08-15)"
GITHUB_TOKEN=$TOKEN "${gh[@]}" -o grow.txt 2>err
check_eq "extend: the whole" "$(fields grow.txt)" "$(expected)"
check_eq "extend: listed from the last date" "$(cat err)" \
	"fgbisect: 16 runs listed since 2026-08-15, 16 artifacts written, 0 expired skipped"

# ---- errors --------------------------------------------------------------------
set +e
"${gh[@]}" >/dev/null 2>err; rc=$?
check_eq "no token" "$rc:$(cat err)" \
	"4:fgbisect: $api/repos/acme/camunda/actions/workflows/camunda-daily-load-tests.yml/runs?per_page=100&branch=main: HTTP 401: bad credentials: the token (GH_TOKEN, GITHUB_TOKEN or --header) is wrong or expired"
GH_TOKEN=$TOKEN "$FGBISECT" runs github acme/camunda --api-url "$api" --workflow nope.yml >/dev/null 2>err; rc=$?
check_eq "no runs" "$rc:$(cat err)" \
	"3:fgbisect: no artifact found (0 runs listed, 0 expired artifacts)"
ctl "http://127.0.0.1:$API/_ratelimit?on=1" >/dev/null
GH_TOKEN=$TOKEN "${gh[@]}" >/dev/null 2>err; rc=$?
check_eq "rate limit: status" "$rc" 4
CHECKS=$((CHECKS + 1))
grep -Eq 'HTTP 403: the GitHub API rate limit is used up; it resets at [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} UTC \(in (29|30) min\)$' err ||
	fail "rate limit message: $(cat err)"
ctl "http://127.0.0.1:$API/_ratelimit?on=0" >/dev/null
"$FGBISECT" runs github acme --api-url "$api" >/dev/null 2>err; rc=$?
check_eq "bad repo" "$rc:$(cat err)" "2:fgbisect: 'acme' is not OWNER/REPO"
set -e

# ---- days over the artifacts: about log2 N downloads, then none ------------------
hdr=(--header "Authorization: Bearer $TOKEN")
"$FGBISECT" days --runs runs.txt -f TransactionalColumnFamily --threshold 5 "${hdr[@]}" --json >days.json 2>days.err
tested=$(json_get 'len(j["tested"])' <days.json)
check_eq "days: the first slow day" "$(json_get 'j["first_slow"]["date"]' <days.json)" 2026-08-18
CHECKS=$((CHECKS + 1))
[[ $tested -le 7 ]] || fail "days judged $tested runs, more than ceil(log2 29) + 2 = 7"
check_eq "days: one zip per judged run" "$(blobs)" "$tested"
check_eq "days: the token never reached the blob store" "$(ctl "http://127.0.0.1:$BLOB/_auth_seen")" 0
"$FGBISECT" days --runs runs.txt -f TransactionalColumnFamily --threshold 5 "${hdr[@]}" --json >days2.json 2>/dev/null
check_eq "days: downloaded" "$(json_get 'j["downloaded_profiles"]' <days.json)" "$tested"
check_eq "days again: the same answer" "$(sed 's/"downloaded_profiles":[0-9]*//' days2.json)" \
	"$(sed 's/"downloaded_profiles":[0-9]*//' days.json)"
check_eq "days again: nothing downloaded" "$(blobs):$(json_get 'j["downloaded_profiles"]' <days2.json)" "$tested:0"
CHECKS=$((CHECKS + 1))
! grep -rq "$TOKEN" "$XDG_CACHE_HOME" runs.txt grow.txt header.txt err days.err || fail "the token was written somewhere"

# ---- run mode: credentials and rate limits abort, an expired artifact skips ---------
cd repo
git checkout -q "$(sed -n 20p ../shas)"
set +e
"$FGBISECT" run --runs ../runs.txt -f TransactionalColumnFamily --threshold 5 "${hdr[@]}" >/dev/null 2>../err; rc=$?
check_eq "run: day 20 is slow" "$rc" 1
"$FGBISECT" run --runs ../runs.txt -f TransactionalColumnFamily --threshold 5 --no-cache \
	--header "Authorization: Bearer wrong" >/dev/null 2>../err; rc=$?
check_eq "run: refused credentials abort" "$rc" 255
CHECKS=$((CHECKS + 1))
grep -q 'HTTP status 401: the credentials were refused' ../err || fail "run 401: $(cat ../err)"
ctl "http://127.0.0.1:$API/_ratelimit?on=1" >/dev/null
"$FGBISECT" run --runs ../runs.txt -f TransactionalColumnFamily --threshold 5 --no-cache "${hdr[@]}" >/dev/null 2>../err
rc=$?
check_eq "run: a rate limit aborts" "$rc" 255
CHECKS=$((CHECKS + 1))
grep -q 'rate limit is used up' ../err || fail "run rate limit: $(cat ../err)"
ctl "http://127.0.0.1:$API/_ratelimit?on=0" >/dev/null
# Day 2's artifact expired (410): that build cannot be judged, the others can.
git checkout -q "$(sed -n 2p ../shas)"
python3 - ../runs.txt "$API" "$(sed -n 2p ../shas)" >../expired.txt <<'PY'
import sys
print(open(sys.argv[1]).read().rstrip("\n"))
print("2026-08-02", sys.argv[3], "camunda-0 grpc cpu",
      "http://127.0.0.1:%s/api/repos/acme/camunda/actions/artifacts/103/zip" % sys.argv[2])
PY
"$FGBISECT" run --runs ../expired.txt -f TransactionalColumnFamily --threshold 5 "${hdr[@]}" >/dev/null 2>../err; rc=$?
check_eq "run: an expired artifact skips" "$rc" 125
CHECKS=$((CHECKS + 1))
grep -q 'HTTP status 410' ../err || fail "run 410: $(cat ../err)"
set -e
finish
