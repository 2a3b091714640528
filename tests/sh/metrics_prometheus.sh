# ctest-labels: slow
# fgbisect metrics against a real Prometheus (Debian's prometheus package):
# one server on 127.0.0.1 on a free port, with a fresh TSDB backfilled from
# series this test generates (tests/tools/prom_series.py, constant rates so
# every mean is exact), shared by every case.  A loopback front
# (tests/tools/prom_proxy.py) plays Grafana's data-source proxy and the
# failing servers.
source "$FG_SOURCE_DIR/tests/lib.sh"

for tool in prometheus promtool python3 jq; do
	if ! command -v "$tool" >/dev/null; then
		echo "SKIP: $tool is not installed (apt-get install prometheus python3 jq)" >&2
		exit 77
	fi
done

tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Base run on 2026-11-20, every candidate on 2026-11-21, 04:00-05:00 UTC.
B=1795147200
C=1795233600
python3 "$FG_SOURCE_DIR/tests/tools/prom_series.py" "$tmp/series.om" c8-base=$B c8-healthy=$C \
	c8-efficiency=$C c8-saturated=$C c8-datagrowth=$C c8-queueing=$C c8-missing=$C \
	c8-noisy=$C c8-quiet=$C c8-together=$C c8-medic-daily-2026-11-20-aaaaaaa-test-grpc=$B:base c8-medic-daily-2026-11-21-bbbbbbb-test-grpc=$C:saturated
promtool tsdb create-blocks-from openmetrics "$tmp/series.om" "$tmp/tsdb" >/dev/null

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1h\n' >"$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
PROM=http://127.0.0.1:$port
# Ready once the TSDB is open (503 before); no curl binary needed.
if ! python3 - "$PROM/-/ready" <<'PY'
import sys, time, urllib.request
for _ in range(600):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=1)
        sys.exit(0)
    except Exception:
        time.sleep(0.1)
sys.exit(1)
PY
then
	cat "$tmp/prometheus.log" >&2
	fail "prometheus did not start"
	exit 1
fi

TOKEN=s3cret-token-value
python3 "$FG_SOURCE_DIR/tests/tools/prom_proxy.py" "$PROM" "$TOKEN" >"$tmp/proxy.port" &
pids+=($!)
wait_for_file "$tmp/proxy.port" || fail "the proxy wrote no port"
FRONT=http://127.0.0.1:$(cat "$tmp/proxy.port")

RANGES=(--base-range 2026-11-20T04:00:00Z..2026-11-20T05:00:00Z
	--candidate-range 2026-11-21T04:00:00Z..2026-11-21T05:00:00Z)
lens() { # lens CANDIDATE [options...]: base vs candidate, JSON on stdout
	local cand=$1
	shift
	"$FGBISECT" metrics --prometheus "$PROM" --base 'namespace="c8-base"' --candidate "namespace=\"c8-$cand\"" \
		"${RANGES[@]}" --json "$@"
}
jqr() { jq -r "$1"; } # jq starts in milliseconds: dozens of checks stay quick
sig() { # sig JSON NAME FIELD: a signal's field, e.g. .candidate.value
	jq -r --arg n "$2" ".signals[] | select(.name == \$n) | $3" <<<"$1"
}

# --- every scenario: the rule that fires, and the exact values behind it ---
declare -A expect=([healthy]=healthy [efficiency]=efficiency [saturated]=saturated
	[datagrowth]=data-growth [queueing]=queueing [missing]=healthy)
for cand in healthy efficiency saturated datagrowth queueing missing; do
	out=$(lens "$cand")
	check_eq "$cand: fired rule" "$(jqr .fired <<<"$out")" "${expect[$cand]}"
	declare "json_$cand=$out"
done
check_eq "base CPU (3 pods x 1.2 cores, the pod cgroup not counted)" "$(sig "$json_healthy" cpu ".base.value")" 3.6
check_eq "base CPU limit" "$(sig "$json_healthy" cpu_limit ".base.value")" 6
check_eq "base records/s" "$(sig "$json_healthy" records ".base.value")" 300
check_eq "efficiency: CPU per record" "$(sig "$json_efficiency" cpu_per_record ".candidate.value")" 15
check_eq "efficiency: CPU per record ratio" "$(sig "$json_efficiency" cpu_per_record ".ratio")" 1.25
check_eq "efficiency: CPU flat" "$(sig "$json_efficiency" cpu ".ratio")" 1
check_eq "saturated: utilisation" "$(sig "$json_saturated" cpu_utilisation ".candidate.value")" 0.97
check_eq "datagrowth: live size ratio" "$(sig "$json_datagrowth" live_size ".ratio")" 2
check_eq "queueing: p50 flat" "$(sig "$json_queueing" processing_p50 ".ratio")" 1
check_eq "queueing: p99 ratio (0.01 -> 0.09 s)" "$(sig "$json_queueing" processing_p99 ".ratio")" 9
check_eq "flush mean" "$(sig "$json_healthy" flush_mean ".base.value")" 0.002
check_eq "CPU per MiB (3.6 cores / 150 KiB/s * 1024)" "$(sig "$json_healthy" cpu_per_mb ".base.value")" 24.576
check_eq "breakdown rows" "$(sig "$json_queueing" processing_p99_by_type ".groups_total")" 3
check_eq "breakdown ratio" "$(sig "$json_queueing" processing_p99_by_type ".groups[0].ratio")" 9
# A missing metric is missing, never 0.
check_eq "missing: status" "$(sig "$json_missing" live_size ".candidate.status")" missing
check_eq "missing: no value" "$(sig "$json_missing" live_size ".candidate.value")" null
check_eq "missing: no ratio" "$(sig "$json_missing" live_size ".ratio")" null
check_eq "missing: derived from nothing" "$(sig "$json_missing" num_keys ".candidate.status")" missing
# Each rule fires on its case and on no other: every rule listed, matched ones
# in file order, the fired one first.
check_eq "rules listed" "$(jqr '.rules | length' <<<"$json_healthy")" 10
check_eq "saturated also matches efficiency? (no: CPU is not flat)" \
	"$(jq -c '[.rules[] | select(.matched) | .name]' <<<"$json_saturated")" '["saturated"]'

# Constant series: zero spread, an interval of zero width, exactly the ratio.
check_eq "constant: se" "$(sig "$json_efficiency" records ".candidate.se")" 0
check_eq "constant: interval" "$(sig "$json_efficiency" cpu_per_record ".ratio_ci95 | @csv")" "1.25,1.25"
check_eq "constant: conditions decided" "$(jq -r '[.rules[].conditions[].state] | unique | join(",")' <<<"$json_efficiency")" \
	"false,true"

# --- noise: the same shift of throughput (92% of the records, CPU flat), noisy and quiet ---
json_noisy=$(lens noisy)
json_quiet=$(lens quiet)
# The noisy mean crosses the efficiency rule's bounds, its interval holds them:
# the rule does not fire, and neither does healthy; the lens cannot tell.
check_eq "noisy: mean beyond the bound" "$(sig "$json_noisy" records '.ratio <= 0.95 and (.ratio_ci95[0] < 0.95) and (.ratio_ci95[1] > 0.95)')" true
check_eq "noisy: derived beyond the bound" \
	"$(sig "$json_noisy" cpu_per_record '.ratio >= 1.05 and (.ratio_ci95[0] < 1.05) and (.ratio_ci95[1] > 1.05)')" true
check_eq "noisy: nothing fires" "$(jqr .fired <<<"$json_noisy")" null
check_eq "noisy: undecided rules" "$(jqr '.undecided | join(",")' <<<"$json_noisy")" efficiency,healthy
check_eq "noisy: condition states" \
	"$(jq -r '.rules[] | select(.name=="efficiency") | [.conditions[].state] | join(",")' <<<"$json_noisy")" \
	"true,true,undecided,undecided,true"
check_eq "noisy: hypothesis" "$(jqr .hypothesis <<<"$json_noisy" | grep -c '^cannot tell: rule efficiency: processed records per second ×0.919 (0.858–0.985, within noise) for ratio(records) <= 0.95; ')" 1
check_eq "quiet: fires" "$(jqr .fired <<<"$json_quiet")" efficiency
check_eq "quiet: interval beyond the bound" "$(sig "$json_quiet" records '.ratio_ci95[1] < 0.95')" true
# CPU and records noisy with the same factor on each increment: CPU per
# record is steady, and its standard error (from the two series' points at the
# same instants, their covariance kept) says so, while each alone is noisy.
json_together=$(lens together)
check_eq "together: CPU noisy" "$(sig "$json_together" cpu '.ratio_ci95[1] - .ratio_ci95[0] > 0.1')" true
check_eq "together: CPU per record steady" \
	"$(sig "$json_together" cpu_per_record '"\(.ratio) \(.ratio_ci95[1] - .ratio_ci95[0] < 1e-6)"')" "1.08696 true"
check_eq "together: conditions" \
	"$(jq -r '.rules[] | select(.name=="efficiency") | [.conditions[].state] | join(",")' <<<"$json_together")" \
	"true,undecided,undecided,true,true"
text=$("$FGBISECT" metrics --prometheus "$PROM" --base 'namespace="c8-base"' --candidate 'namespace="c8-noisy"' "${RANGES[@]}")
check_eq "noisy text: cannot tell" "$(grep -c '^hypothesis: cannot tell: ' <<<"$text")" 1
check_eq "noisy text: within noise" \
	"$(grep -c '^  rule efficiency: processed records per second ×0.919 (0.858–0.985, within noise) for ratio(records) <= 0.95; CPU milliseconds per processed record ×1.088 (1.015–1.165, within noise) for ratio(cpu_per_record) >= 1.05$' <<<"$text")" 1
check_eq "noisy text: the interval column" "$(grep -cE '^processed records per second +300 +275.8 +0.919× worse +0.858–0.985 +records/s$' <<<"$text")" 1
# Every number of the interval again from the points Prometheus returns for
# the queries as sent, computed here independently: mean, lag-1
# autocorrelation, n_eff = n(1-r)/(1+r) clamped to [1, n], se = sd/sqrt(n_eff)
# with n_eff - 1 degrees of freedom, the log-ratio interval with Student's t
# (its quantile by bisection on Simpson's integral of the density) at the
# Welch-Satterthwaite degrees of freedom; the derived CPU per record by the
# delta method.
check_eq "noisy: the interval recomputed from the points" "$(LENS=$json_noisy python3 - "$PROM" <<'PY'
import json, math, os, sys, urllib.parse, urllib.request
lens = json.loads(os.environ["LENS"])
def points(q, side):
    t0, t1 = (lens[side][k] for k in ("start", "end"))
    args = urllib.parse.urlencode(dict(query=q, start=t0, end=t1, step=lens["step"]))
    body = json.load(urllib.request.urlopen(sys.argv[1] + "/api/v1/query_range?" + args))
    return [float(v) for _, v in body["data"]["result"][0]["values"]]
def mean_se(x):
    n = len(x); m = sum(x) / n; d = [v - m for v in x]; sq = sum(v * v for v in d)
    sd = math.sqrt(sq / (n - 1))
    if sd <= 1e-9 * abs(m):
        return m, 0.0, math.inf
    r = sum(d[i] * d[i + 1] for i in range(n - 1)) / sq
    neff = min(n, max(1.0, n * (1 - r) / (1 + r)))
    return m, sd / math.sqrt(neff), neff - 1
def t975(df):
    df = max(df, 1.0)
    if df > 1e7:
        return 1.959963984540054
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    pdf = lambda x: c * (1 + x * x / df) ** (-(df + 1) / 2)
    lo, hi = 1.9, 14.0
    for _ in range(50):
        t = (lo + hi) / 2; k = 4000; h = t / k
        area = (pdf(0) + pdf(t) + sum((4 if i % 2 else 2) * pdf(i * h) for i in range(1, k))) * h / 3
        lo, hi = (t, hi) if 0.5 - area > 0.025 else (lo, t)
    return (lo + hi) / 2
def welch(v1, d1, v2, d2):
    den = (v1 * v1 / d1 if v1 > 0 else 0) + (v2 * v2 / d2 if v2 > 0 else 0)
    return (v1 + v2) ** 2 / den if den > 0 else math.inf
sig = {s["name"]: s for s in lens["signals"]}
def side(name, which):
    return mean_se(points(sig[name]["queries"][which], which))
def g(x):
    return "%.6g" % x
def interval(b, sb, db, c, sc, dc):
    vb, vc = (sb / b) ** 2, (sc / c) ** 2
    w = t975(welch(vb, db, vc, dc)) * math.sqrt(vb + vc)
    return c / b * math.exp(-w), c / b * math.exp(w)
out = []
(b, sb, db), (c, sc, dc) = side("records", "base"), side("records", "candidate")
out.append("%s %s %s" % (g(sc), *map(g, interval(b, sb, db, c, sc, dc))))
def per_record(which, rec, srec, drec):
    cpu, scpu, dcpu = side("cpu", which)
    va, vr = (scpu / rec) ** 2, (cpu / rec * srec / rec) ** 2
    return cpu / rec * 1000, 1000 * math.sqrt(va + vr), welch(va, dcpu, vr, drec)
pb, pc = per_record("base", b, sb, db), per_record("candidate", c, sc, dc)
out.append("%s %s %s" % (g(pc[1]), *map(g, interval(*pb, *pc))))
print(" ".join(out))
PY
)" "$(sig "$json_noisy" records '"\(.candidate.se) \(.ratio_ci95[0]) \(.ratio_ci95[1])"') $(sig "$json_noisy" cpu_per_record '"\(.candidate.se) \(.ratio_ci95[0]) \(.ratio_ci95[1])"')"

# The text ends with the hypothesis and its evidence.
text=$("$FGBISECT" metrics --prometheus "$PROM" --base 'namespace="c8-base"' --candidate 'namespace="c8-missing"' "${RANGES[@]}")
check_eq "text: missing shown" "$(grep -c '^RocksDB live data size .* missing' <<<"$text")" 1
check_eq "text: hypothesis" "$(grep -c '^hypothesis (rule healthy): no regression' <<<"$text")" 1
check_eq "text: evidence" "$(grep -c '^  when ratio(records) >= 0.95: 1.000 (300 → 300 records/s)' <<<"$text")" 1

# --at/--window: one window for both sides (two runs side by side).
out=$("$FGBISECT" metrics --prometheus "$PROM" --base 'namespace="c8-healthy"' --candidate 'namespace="c8-efficiency"' \
	--at 2026-11-21T05:00:00Z --window 30m --json)
check_eq "--at: fired" "$(jqr .fired <<<"$out")" efficiency
check_eq "--at: window start" "$(jqr .base.start <<<"$out")" 2026-11-21T04:30:00Z
# The warm-up is cut from the start of a range.
out=$(lens healthy --warmup 20m --window 10m)
check_eq "--warmup: start" "$(jqr .candidate.start <<<"$out")" 2026-11-21T04:20:00Z
check_eq "--warmup: end" "$(jqr .candidate.end <<<"$out")" 2026-11-21T04:30:00Z

# --- Grafana's data-source proxy: the same answers with the token ---
out=$("$FGBISECT" metrics --prometheus "$FRONT/api/datasources/proxy/uid/prom/" --header "Authorization: Bearer $TOKEN" \
	--base 'namespace="c8-base"' --candidate 'namespace="c8-efficiency"' "${RANGES[@]}" --json 2>"$tmp/err")
check_eq "grafana: fired" "$(jqr .fired <<<"$out")" efficiency
check_eq "grafana: value" "$(sig "$out" cpu_per_record ".candidate.value")" 15
check_eq "grafana: token never printed" "$(grep -c "$TOKEN" <<<"$out$(cat "$tmp/err")")" 0
set +e
"$FGBISECT" metrics --prometheus "$FRONT/api/datasources/proxy/uid/prom" --header "Authorization: Bearer wrong" \
	--base 'namespace="c8-base"' --candidate 'namespace="c8-efficiency"' "${RANGES[@]}" >"$tmp/out" 2>"$tmp/err"
check_eq "grafana without the token: exit" $? 4
check_eq "grafana without the token: message" "$(grep -c 'HTTP status 401' "$tmp/err")" 1
check_eq "header never printed" "$(grep -c 'wrong' "$tmp/err" "$tmp/out" | awk -F: '{s+=$2} END {print s}')" 0

# --- failures: clear message, right exit code ---
expect_fail() { # expect_fail WHAT STATUS PATTERN command...
	local what=$1 want=$2 pattern=$3
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	check_eq "$what: exit" $? "$want"
	check_eq "$what: message /$pattern/ in: $(head -c 300 "$tmp/err")" "$(grep -cE -- "$pattern" "$tmp/err")" 1
}
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
expect_fail "server down" 4 "Could not connect|Couldn't connect|Connection refused|Failed to connect" \
	"$FGBISECT" metrics --prometheus "http://127.0.0.1:$free_port" --base 'a="b"' --candidate 'a="c"' "${RANGES[@]}"
expect_fail "HTTP 500" 4 "HTTP status 500" \
	"$FGBISECT" metrics --prometheus "$FRONT/fail500" --base 'a="b"' --candidate 'a="c"' "${RANGES[@]}"
expect_fail "an HTML page" 3 "not a Prometheus API answer.*HTML page" \
	"$FGBISECT" metrics --prometheus "$FRONT/html" --base 'a="b"' --candidate 'a="c"' "${RANGES[@]}"
expect_fail "a redirect" 4 "redirected to .*/login: not followed" \
	"$FGBISECT" metrics --prometheus "$FRONT/redirect" --base 'a="b"' --candidate 'a="c"' "${RANGES[@]}"
expect_fail "wrong path" 4 "HTTP status 404 \(is the base URL" \
	"$FGBISECT" metrics --prometheus "$FRONT/nothing" --base 'a="b"' --candidate 'a="c"' "${RANGES[@]}"
expect_fail "selector matching nothing" 4 "no series for any signal .* base selector \{namespace=\"c8-nope\"\}" \
	"$FGBISECT" metrics --prometheus "$PROM" --base 'namespace="c8-nope"' --candidate 'namespace="c8-healthy"' "${RANGES[@]}"
expect_fail "a window outside the run" 4 "no series for any signal" \
	"$FGBISECT" metrics --prometheus "$PROM" --base 'namespace="c8-base"' --candidate 'namespace="c8-healthy"' \
	--at 2026-11-25T00:00:00Z
cat >"$tmp/bad.metrics" <<'EOF'
signal cpu unit=cores
	query sum(rate(container_cpu_usage_seconds_total{sel}[{range}])
EOF
expect_fail "a query error (status error, bad_data)" 2 "signal 'cpu' \(.*bad.metrics:1, base\): query error \(bad_data.*parse error" \
	"$FGBISECT" metrics --prometheus "$PROM" --metrics-rules "$tmp/bad.metrics" --base 'namespace="c8-base"' \
	--candidate 'namespace="c8-healthy"' "${RANGES[@]}"
cat >"$tmp/many.metrics" <<'EOF'
signal cpu unit=cores
	query rate(container_cpu_usage_seconds_total{sel}[{range}])
EOF
expect_fail "several series" 2 "gives 6 series, not one: aggregate it" \
	"$FGBISECT" metrics --prometheus "$PROM" --metrics-rules "$tmp/many.metrics" --base 'namespace="c8-base"' \
	--candidate 'namespace="c8-healthy"' "${RANGES[@]}"
expect_fail "no --prometheus" 2 "need --prometheus" env -u FGBISECT_PROMETHEUS "$FGBISECT" metrics --base 'a="b"' --candidate 'a="c"'
expect_fail "a selector with braces" 2 "without braces" \
	"$FGBISECT" metrics --prometheus "$PROM" --base '{a="b"}' --candidate 'a="c"' "${RANGES[@]}"
expect_fail "a bad range" 2 "--base-range wants START..END" \
	"$FGBISECT" metrics --prometheus "$PROM" --base 'a="b"' --candidate 'a="c"' --base-range 2026-11-20..x \
	--candidate-range 1..2
set -e

# NaN: a signal whose every point is NaN is "nan", not a number a rule reads.
cat >"$tmp/nan.metrics" <<'EOF'
signal cpu unit=cores
	query sum(rate(container_cpu_usage_seconds_total{sel,container="camunda"}[{range}]))
signal undefined unit=x
	query sum(kube_pod_container_resource_limits{sel}) * 0 / 0
rule reads-nan
	when ratio(undefined) > 0
	hypothesis never
rule fallback
	when ratio(cpu) > 0
	hypothesis cpu known
EOF
out=$("$FGBISECT" metrics --prometheus "$PROM" --metrics-rules "$tmp/nan.metrics" --base 'namespace="c8-base"' \
	--candidate 'namespace="c8-healthy"' "${RANGES[@]}" --json)
check_eq "NaN: status" "$(sig "$out" undefined ".base.status")" nan
check_eq "NaN: rule on it does not fire" "$(jqr .fired <<<"$out")" fallback
text=$("$FGBISECT" metrics --prometheus "$PROM" --metrics-rules "$tmp/nan.metrics" --base 'namespace="c8-base"' \
	--candidate 'namespace="c8-healthy"' "${RANGES[@]}")
check_eq "NaN: shown" "$(grep -cE '^undefined +NaN +NaN' <<<"$text")" 1

# --- diff --metrics: the diff, then the lens reading the profiles' subsystem changes ---
H=$FG_SOURCE_DIR/fixtures/zeebe-healthy.collapsed.gz
R=$FG_SOURCE_DIR/fixtures/zeebe-regressed.collapsed.gz
out=$("$FGBISECT" diff --metrics --prometheus "$PROM" --base-selector 'namespace="c8-base"' \
	--candidate-selector 'namespace="c8-efficiency"' "${RANGES[@]}" "$H" "$R" --json)
check_eq "diff --metrics: the diff is there" "$(jqr '.grew | length > 0' <<<"$out")" true
check_eq "diff --metrics: profiles compared" "$(jqr .metrics.profiles_compared <<<"$out")" true
check_eq "diff --metrics: fired" "$(jqr .metrics.fired <<<"$out")" efficiency
# processing: 35.258418% -> 38.586263% of the samples (fgbisect subsystems counts): delta(*) names it.
check_eq "diff --metrics: largest subsystem change" \
	"$(jq -r '.metrics.rules[] | select(.name=="efficiency") | .conditions[4] | "\(.subsystem) \(.value)"' <<<"$out")" \
	"processing 3.32785"
text=$("$FGBISECT" diff --metrics --prometheus "$PROM" --base-selector 'namespace="c8-base"' \
	--candidate-selector 'namespace="c8-efficiency"' "${RANGES[@]}" "$H" "$R" --html "$tmp/lens.html")
# The report carries the lens: every signal's row and the hypothesis that fired.
check_eq "diff --metrics --html: the metrics section" "$(grep -c '<h2>Metrics</h2>' "$tmp/lens.html")" 1
check_eq "diff --metrics --html: the rule that fired" "$(grep -c 'Hypothesis (rule <code>efficiency</code>)' "$tmp/lens.html")" 1
check_eq "diff --metrics --html: one row a signal" \
	"$(sed -n '/<h2>Metrics<\/h2>/,/<\/table>/p' "$tmp/lens.html" | grep -c '^<tr><td>')" \
	"$(jq '.metrics.signals | length' <<<"$out")"
check_eq "diff --metrics text: evidence names the subsystem" \
	"$(grep -c '^  unless delta(\*) < 1.5: +3.33 points (processing)' <<<"$text")" 1
# Metrics never change the diff's answer or status: a server down is a warning.
set +e
out=$("$FGBISECT" diff --metrics --prometheus "http://127.0.0.1:$free_port" --base-selector 'a="b"' \
	--candidate-selector 'a="c"' "${RANGES[@]}" "$H" "$R" --json 2>"$tmp/err")
check_eq "diff --metrics, server down: exit" $? 0
set -e
check_eq "diff --metrics, server down: error member" "$(jqr .metrics.error.code <<<"$out")" fetch
check_eq "diff --metrics, server down: warning" "$(grep -c '^fgbisect: metrics: ' "$tmp/err")" 1

# --- days --metrics: the lens of the last fast and the first slow run ---
runs=$tmp/daily
d1=flamegraph-medic-daily-2026-11-20-aaaaaaa-test-grpc-cpu-camunda-0-20261120
d2=flamegraph-medic-daily-2026-11-21-bbbbbbb-test-grpc-cpu-camunda-0-20261121
mkdir -p "$runs/$d1" "$runs/$d2"
cp "$H" "$runs/$d1/camunda-0.collapsed.gz"
cp "$R" "$runs/$d2/camunda-0.collapsed.gz"
printf '2026-11-20 aaaaaaa camunda-0 grpc cpu %s/camunda-0.collapsed.gz\n2026-11-21 bbbbbbb camunda-0 grpc cpu %s/camunda-0.collapsed.gz\n' \
	"$d1" "$d2" >"$runs/runs.txt"
days=("$FGBISECT" days --runs "$runs/runs.txt" --frame TransactionalColumnFamily --threshold 5 --no-cache
	--metrics --prometheus "$PROM" --metrics-range '{date}T04:00:00Z..{date}T05:00:00Z')
out=$("${days[@]}" --selector 'namespace="c8-{benchmark}"' --json)
check_eq "days --metrics: first slow" "$(jqr .first_slow.date <<<"$out")" 2026-11-21
check_eq "days --metrics: base selector from {benchmark}" "$(jqr .metrics.base.selector <<<"$out")" \
	'namespace="c8-medic-daily-2026-11-20-aaaaaaa-test-grpc"'
check_eq "days --metrics: candidate window" "$(jqr '.metrics.candidate | "\(.start) \(.end)"' <<<"$out")" \
	"2026-11-21T04:15:00Z 2026-11-21T05:00:00Z"
check_eq "days --metrics: fired" "$(jqr .metrics.fired <<<"$out")" saturated
# The two runs' profiles are compared too: the delta() terms read the same
# subsystem change as diff --metrics of the same two profiles.
check_eq "days --metrics: profiles compared" "$(jqr .metrics.profiles_compared <<<"$out")" true
check_eq "days --metrics: largest subsystem change" \
	"$(jq -r '.metrics.rules[] | select(.name=="efficiency") | .conditions[4] | "\(.subsystem) \(.value)"' <<<"$out")" \
	"processing 3.32785"
text=$("${days[@]}" --selector 'namespace="c8-{benchmark}"')
check_eq "days --metrics text: hypothesis after the search" \
	"$(grep -c '^hypothesis (rule saturated): the node is saturated' <<<"$text")" 1
set +e
out=$("${days[@]}" --selector 'namespace="c8-{date}-{short}-{commit}-nope"' --json 2>"$tmp/err")
check_eq "days --metrics, nothing matches: the search's exit" $? 0
set -e
check_eq "days --metrics, nothing matches: {date} {short} {commit} filled" \
	"$(jqr .metrics.error.message <<<"$out" | grep -c 'c8-2026-11-20-aaaaaaa-aaaaaaa-nope')" 1
check_eq "days --metrics, nothing matches: same search" "$(jqr .first_slow.commit <<<"$out")" bbbbbbb
check_eq "days --metrics, nothing matches: warning" "$(grep -c '^fgbisect: metrics: ' "$tmp/err")" 1

echo "$CHECKS checks, $FAILS failures"
[[ $FAILS == 0 ]]
