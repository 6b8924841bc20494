#!/usr/bin/env bash
# Run Neo4j 5.26 Community (+ APOC core + Neo4j Browser) in-process, without Docker.
#
#   neo4j-local.sh build                 compile the launcher and collect its jars (mvn -q -B package)
#                                        in the build cache, never beside this script
#   neo4j-local.sh start [--data DIR]    start in the background, wait for Bolt + /browser/
#   neo4j-local.sh stop  [--data DIR]    stop it (SIGTERM, SIGKILL after KG_NEO4J_STOP_TIMEOUT s)
#   neo4j-local.sh status [--data DIR]   exit 0 if running, 3 if not
#   neo4j-local.sh restart [--data DIR]
#
# Environment (all optional):
#   KG_NEO4J_HOME           data dir (databases, logs, pid file). Default: ${XDG_DATA_HOME:-~/.local/share}/kg-memory/neo4j
#   KG_NEO4J_CACHE          build cache (a copy of the sources and Maven's target/, about 140 MB, one
#                           folder per version of the sources). Default: ${XDG_CACHE_HOME:-~/.cache}/kg-memory/neo4j-local
#   NEO4J_PASSWORD          if set, auth is on (user neo4j, this password; Neo4j wants >= 8 chars);
#                           else NEO4J_AUTH=neo4j/<password> is honoured; otherwise auth is OFF.
#   KG_NEO4J_HOST           listen address, default 127.0.0.1
#   KG_NEO4J_BOLT_PORT      default 7687
#   KG_NEO4J_HTTP_PORT      default 7474
#   KG_NEO4J_PAGECACHE      default 512m
#   KG_NEO4J_JAVA_OPTS      default "-Xms512m -Xmx1g"
#   KG_NEO4J_START_TIMEOUT  seconds to wait for start, default 120
#   KG_NEO4J_STOP_TIMEOUT   seconds to wait for stop, default 60
#   JAVA                    java binary (Java 17+), default: java on PATH
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MAIN_CLASS=kgmemory.neo4jlocal.Launcher

HOST="${KG_NEO4J_HOST:-127.0.0.1}"
BOLT_PORT="${KG_NEO4J_BOLT_PORT:-7687}"
HTTP_PORT="${KG_NEO4J_HTTP_PORT:-7474}"
START_TIMEOUT="${KG_NEO4J_START_TIMEOUT:-120}"
STOP_TIMEOUT="${KG_NEO4J_STOP_TIMEOUT:-60}"
JAVA="${JAVA:-java}"
DATA="${KG_NEO4J_HOME:-${XDG_DATA_HOME:-$HOME/.local/share}/kg-memory/neo4j}"
CACHE="${KG_NEO4J_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kg-memory/neo4j-local}"

say() { echo "neo4j-local: $*"; }
die() { echo "neo4j-local: error: $*" >&2; exit 1; }

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
while [ $# -gt 0 ]; do
    case "$1" in
        --data) [ $# -ge 2 ] || die "--data needs a directory"; DATA="$2"; shift 2 ;;
        --data=*) DATA="${1#--data=}"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument: $1" ;;
    esac
done

case "$DATA" in /*) ;; *) DATA="$PWD/$DATA" ;; esac
case "$CACHE" in /*) ;; *) CACHE="$PWD/$CACHE" ;; esac

# The folder this script lives in may be read-only (a wheel in a system or read-only
# site-packages) and is never the place for 140 MB of jars, so Maven runs on a copy of the
# sources in the user's cache. The copy is keyed by a digest of the sources: an installed
# upgrade whose launcher changed builds afresh instead of running the previous version's jars,
# and a checkout and a wheel of the same sources share one build.
source_key() {
    local f sum
    sum=$(cd "$HERE" && {
        printf '%s\n' pom.xml; cat pom.xml
        find src -type f -name '*.java' | LC_ALL=C sort | while IFS= read -r f; do
            printf '%s\n' "$f"; cat "$f"
        done
    } | if command -v sha256sum >/dev/null 2>&1; then sha256sum
        elif command -v shasum >/dev/null 2>&1; then shasum -a 256
        else cksum; fi)
    sum="${sum%% *}"
    echo "${sum:0:16}"
}
BUILD="$CACHE/$(source_key)"
PID_FILE="$DATA/neo4j-local.pid"
LOG_FILE="$DATA/neo4j-local.log"
JAR="$BUILD/target/neo4j-local-0.1.0.jar"
CLASSPATH_="$JAR:$BUILD/target/lib/*"

# --- helpers ---------------------------------------------------------------

# pid of our running launcher for this data dir, or nothing. Trusts the pid file only if that
# process really is our launcher; otherwise (stale or lost pid file) looks the process up by its
# command line and rewrites the pid file.
running_pid() {
    local pid="" f
    [ -f "$PID_FILE" ] && pid="$(tr -dc '0-9' < "$PID_FILE")"
    if [ -n "$pid" ] && is_our_launcher "$pid"; then
        echo "$pid"
        return 0
    fi
    rm -f "$PID_FILE"
    for f in /proc/[0-9]*/cmdline; do
        pid="${f#/proc/}"; pid="${pid%/cmdline}"
        if is_our_launcher "$pid"; then
            echo "$pid" > "$PID_FILE"
            echo "$pid"
            return 0
        fi
    done
    return 0
}

is_our_launcher() { # pid
    kill -0 "$1" 2>/dev/null || return 1
    tr '\0' '\n' < "/proc/$1/cmdline" 2>/dev/null | paste -sd ' ' - \
        | grep -F -- "$MAIN_CLASS --data $DATA --plugins " >/dev/null
}

port_open() { # host port
    (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

http_ok() { # url -> success when it answers 200
    if command -v curl >/dev/null 2>&1; then
        [ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$1" || true)" = 200 ]
    else
        python3 - "$1" <<'EOF' 2>/dev/null
import sys, urllib.request
sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=5).status == 200 else 1)
EOF
    fi
}

built() { [ -f "$JAR" ] && [ -d "$BUILD/target/lib" ] && [ -d "$BUILD/target/plugins" ]; }

# --- commands --------------------------------------------------------------

# pids of launchers (any data dir) that run from this build's target/
launchers_here() {
    local f cmd
    for f in /proc/[0-9]*/cmdline; do
        # stderr first: a process can end between the glob and the read, and the shell reports a
        # failed input redirection on the stderr in force when it is made.
        cmd="$(tr '\0' ' ' 2>/dev/null < "$f")" || continue
        # Matched in the shell, not by a grep: a grep given the pattern as an argument has it in
        # its own command line, so a second build scanning at the same moment would count it.
        [[ "$cmd" == *"--plugins $BUILD/target/plugins"* ]] \
            && { f="${f#/proc/}"; echo "${f%/cmdline}"; }
    done
    return 0
}

do_build() {
    local busy
    busy="$(launchers_here | paste -sd ' ' -)"
    [ -z "$busy" ] || die "a launcher from $BUILD/target is running (pid $busy); stop it before rebuilding"
    command -v mvn >/dev/null 2>&1 || die "mvn not found (needs Maven 3.8+ and JDK 17+)"
    mkdir -p "$CACHE" 2>/dev/null && [ -w "$CACHE" ] \
        || die "cannot write the build cache $CACHE (set KG_NEO4J_CACHE to a writable folder)"
    # Built aside and moved into place whole, so a start never sees half a build.
    local tmp existed=0
    if built; then existed=1; fi
    tmp="$(mktemp -d "$CACHE/.build.XXXXXX")"
    cp "$HERE/pom.xml" "$tmp/pom.xml"
    cp -R "$HERE/src" "$tmp/src"
    # The copies keep a read-only install's modes; the next rebuild must be able to delete them.
    chmod -R u+w "$tmp"
    say "building (mvn -q -B package) in $BUILD ..."
    local t0=$SECONDS
    # Maven 3.8 prints stray colour resets even with -q -B; strip them.
    if ! mvn -q -B -Dstyle.color=never -f "$tmp/pom.xml" package 2>&1 \
            | sed -e $'s/\x1b\\[[0-9;]*m//g' -e '/^[[:space:]]*$/d' \
            || [ ! -f "$tmp/target/neo4j-local-0.1.0.jar" ]; then
        rm -rf "$tmp"
        die "build failed"
    fi
    # Two starts of the same sources may build at once (the cache is shared by checkouts and
    # installs): the later one keeps the first one's build, which a launcher may already run.
    if [ "$existed" = 0 ] && built; then
        rm -rf "$tmp"
        say "built in $((SECONDS - t0)) s; another build of these sources finished first: $JAR"
        return 0
    fi
    busy="$(launchers_here | paste -sd ' ' -)"
    [ -z "$busy" ] || { rm -rf "$tmp"; die "a launcher from $BUILD/target started during the build (pid $busy)"; }
    rm -rf "$BUILD"
    if ! mv -T "$tmp" "$BUILD" 2>/dev/null; then
        if built; then rm -rf "$tmp"  # a build of the same sources landed in between
        else mv "$tmp" "$BUILD"; fi   # a mv without -T (BSD): nothing is at $BUILD
    fi
    say "built in $((SECONDS - t0)) s: $JAR"
}

do_start() {
    local pid
    pid="$(running_pid)"
    if [ -n "$pid" ]; then
        say "already running (pid $pid); browser: http://$HOST:$HTTP_PORT/browser/  bolt: bolt://$HOST:$BOLT_PORT"
        return 0
    fi
    built || do_build
    command -v "$JAVA" >/dev/null 2>&1 || die "java not found (set JAVA=/path/to/java, Java 17+)"
    local p
    for p in "$BOLT_PORT" "$HTTP_PORT"; do
        if port_open "$HOST" "$p"; then
            die "port $HOST:$p is already in use by another process"
        fi
    done
    mkdir -p "$DATA"

    local java_opts="${KG_NEO4J_JAVA_OPTS:--Xms512m -Xmx1g}"
    # shellcheck disable=SC2206
    local jvm=($java_opts
        -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+DisableExplicitGC
        -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true
        -Dlog4j2.disable.jmx=true
        --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
        --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED)

    say "starting (data: $DATA, log: $LOG_FILE)"
    local t0=$SECONDS
    echo "==== $(date -u +%FT%TZ) start ====" >> "$LOG_FILE"
    local log_from
    log_from=$(( $(wc -c < "$LOG_FILE") + 1 ))
    local setsid_=()
    command -v setsid >/dev/null 2>&1 && setsid_=(setsid)
    KG_NEO4J_HOST="$HOST" KG_NEO4J_BOLT_PORT="$BOLT_PORT" KG_NEO4J_HTTP_PORT="$HTTP_PORT" \
        nohup "${setsid_[@]}" "$JAVA" "${jvm[@]}" -cp "$CLASSPATH_" "$MAIN_CLASS" \
        --data "$DATA" --plugins "$BUILD/target/plugins" >> "$LOG_FILE" 2>&1 < /dev/null &
    pid=$!
    echo "$pid" > "$PID_FILE"

    # ready = the launcher said so (password set, default database online) + Bolt port open + /browser/ 200
    local bolt=0 http=0 ready=0
    while [ $((SECONDS - t0)) -lt "$START_TIMEOUT" ]; do
        if ! kill -0 "$pid" 2>/dev/null; then
            rm -f "$PID_FILE"
            echo "---- last lines of $LOG_FILE (this start) ----" >&2
            tail -c +"$log_from" "$LOG_FILE" | tail -n 40 >&2
            die "Neo4j exited during startup"
        fi
        [ $bolt = 1 ] || { port_open "$HOST" "$BOLT_PORT" && bolt=1; } || true
        [ $http = 1 ] || { http_ok "http://$HOST:$HTTP_PORT/browser/" && http=1; } || true
        [ $ready = 1 ] || { tail -c +"$log_from" "$LOG_FILE" | grep '^\[neo4j-local\] ready:' >/dev/null && ready=1; } || true
        if [ $bolt = 1 ] && [ $http = 1 ] && [ $ready = 1 ]; then
            say "up in $((SECONDS - t0)) s (pid $pid)"
            say "browser: http://$HOST:$HTTP_PORT/browser/"
            say "bolt:    bolt://$HOST:$BOLT_PORT"
            return 0
        fi
        sleep 1
    done
    echo "---- last lines of $LOG_FILE (this start) ----" >&2
    tail -c +"$log_from" "$LOG_FILE" | tail -n 40 >&2
    say "not up after ${START_TIMEOUT} s (bolt=$bolt http=$http ready=$ready); stopping pid $pid" >&2
    do_stop >&2 || true
    exit 1
}

do_stop() {
    local pid
    pid="$(running_pid)"
    if [ -z "$pid" ]; then
        say "not running"
        return 0
    fi
    say "stopping pid $pid ..."
    kill -TERM "$pid" 2>/dev/null || true
    local t0=$SECONDS
    while kill -0 "$pid" 2>/dev/null; do
        if [ $((SECONDS - t0)) -ge "$STOP_TIMEOUT" ]; then
            say "still running after ${STOP_TIMEOUT} s, sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.5
    done
    rm -f "$PID_FILE"
    say "stopped"
}

do_status() {
    local pid
    pid="$(running_pid)"
    if [ -z "$pid" ]; then
        say "not running (data: $DATA)"
        return 3
    fi
    local b=down h=down
    if port_open "$HOST" "$BOLT_PORT"; then b=up; fi
    if http_ok "http://$HOST:$HTTP_PORT/browser/"; then h=up; fi
    say "running (pid $pid, data: $DATA); bolt $HOST:$BOLT_PORT $b, http $HOST:$HTTP_PORT/browser/ $h"
}

case "$cmd" in
    build) do_build ;;
    start) do_start ;;
    stop) do_stop ;;
    status) do_status ;;
    restart) do_stop; do_start ;;
    ""|-h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
esac
