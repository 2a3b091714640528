#!/bin/sh
# Installs what fgbisect needs on Debian 12 (or Ubuntu 22.04+): the build
# dependencies, and with --tests what the test suite uses too.  Only what
# dpkg says is missing: with everything installed it runs no apt-get (no
# root, no network, no dpkg lock).  As root it runs apt-get itself; otherwise
# through sudo (then sudo must be set up).  CI (.ci/run) calls it too.
# usage: contrib/install-deps.sh [--tests]
set -eu
packages="build-essential cmake pkg-config zlib1g-dev libgit2-dev libcurl4-openssl-dev libisal-dev libjansson-dev libarchive-dev"
case "${1:-}" in
--tests)
	# git (test repositories, git bisect), python3 (HTTP server, independent
	# computations), jq, clang + libclang-rt (libFuzzer), chromium (the SVG
	# rendered headless), prometheus (the metrics client against a real server), ca-certificates (for apt over https mirrors),
	# openjdk-17-jdk-headless (JDK recordings and `jfr print` for the JFR reader), linux-perf (a real `perf script`).
	packages="$packages git ca-certificates python3 jq prometheus clang libclang-rt-14-dev chromium openjdk-17-jdk-headless linux-perf"
	;;
"") ;;
*)
	echo "usage: $0 [--tests]" >&2
	exit 2
	;;
esac
# The packages dpkg does not list as installed (an unknown name counts as
# missing: apt-get then says what it is).
installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $packages 2>/dev/null | awk '$2 == "installed" { print $1 }') || true
missing=
for p in $packages; do
	case " $(echo $installed) " in
	*" $p "*) ;;
	*) missing="$missing $p" ;;
	esac
done
if [ -z "$missing" ]; then
	echo "$0: all $(echo $packages | wc -w) packages are installed"
	exit 0
fi
echo "$0: installing$missing"
if [ "$(id -u)" = 0 ]; then
	as_root=
elif command -v sudo >/dev/null; then
	as_root=sudo
else
	echo "$0: run as root, or install sudo: apt-get needs root to install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -qq
# shellcheck disable=SC2086
$as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
