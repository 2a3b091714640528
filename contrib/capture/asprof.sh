#!/bin/sh
# fgbisect capture script: build the commit, start the service, profile it
# with async-profiler, and write the flame graph to $FGBISECT_OUT.
#
# UNTESTED: async-profiler cannot be installed where fgbisect's tests run, so
# this script has never been run by them.  Read it and adapt it before use.
#
#   fgbisect bisect --good v8.6.0 --bad main --frame TransactionalColumnFamily \
#       --threshold 4 --capture-timeout 1800 --capture contrib/capture/asprof.sh
#
# Environment (defaults in brackets):
#   BUILD     the build command [./mvnw -q -T1C -DskipTests -DskipChecks install]
#   START     starts the service in the background and prints its pid
#             [java -jar dist/target/camunda-zeebe.jar & echo $!]
#   LOAD      drives load while the profile runs [sleep 0 — none]
#   WARMUP    seconds to wait before profiling [60]
#   DURATION  seconds to profile [60]
#   ASPROF    the async-profiler launcher [asprof]
#   EVENT     the profiling event [cpu]
set -eu
: "${FGBISECT_OUT:?run this from fgbisect --capture}"
BUILD=${BUILD:-./mvnw -q -T1C -DskipTests -DskipChecks install}
START=${START:-'java -jar dist/target/camunda-zeebe.jar >/dev/null 2>&1 & echo $!'}
LOAD=${LOAD:-sleep 0}
WARMUP=${WARMUP:-60}
DURATION=${DURATION:-60}
ASPROF=${ASPROF:-asprof}
EVENT=${EVENT:-cpu}

# A failed build is a commit that cannot be judged: fgbisect skips it (125).
sh -c "$BUILD" >&2
pid=$(sh -c "$START")
# fgbisect kills the whole process group on --capture-timeout; stop the
# service on every other way out too.
trap 'kill "$pid" 2>/dev/null || true' EXIT
sleep "$WARMUP"
sh -c "$LOAD" >&2 &
load=$!
# -f with .html gives a flame graph; asprof picks the format by the name, so
# ask for html explicitly since FGBISECT_OUT has no extension.
"$ASPROF" -e "$EVENT" -d "$DURATION" -o flamegraph -f "$FGBISECT_OUT" "$pid" >&2
kill "$load" 2>/dev/null || true
