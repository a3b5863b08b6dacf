#!/usr/bin/env bash
# Run the KV Cache Explainer past one process: N single-process `panel serve app.py` servers on
# 127.0.0.1 behind nginx with sticky sessions (deploy/nginx.conf).
#
#   deploy/run-local.sh start N [PORT]   start N app processes and nginx on 127.0.0.1:PORT
#                                         (default 8080); open http://127.0.0.1:PORT/app
#   deploy/run-local.sh status           list the processes (exit 0 when all are running)
#   deploy/run-local.sh stop             stop them all by PID and wait until they are gone
#
# Environment (all optional):
#   PANEL             the panel command (default: <repo>/.venv/bin/panel); may have words,
#                     e.g. PANEL="/usr/bin/python3 -m panel"
#   NGINX_BIN         the nginx binary (default: nginx on PATH, else /usr/sbin/nginx); not
#                     NGINX: nginx itself reads $NGINX as a list of inherited sockets
#   KV_APP_PORT       port of the first app process; app i listens on KV_APP_PORT+i-1
#                     (default 5101)
#   KV_RUN_DIR        run directory: rendered nginx.conf, PID files, logs (default deploy/.run)
#   KV_START_TIMEOUT  seconds to wait for every process to answer (default 600: a first
#                     start measures the live model, under a minute on 2 cores; later ones
#                     read the warm-up cache and answer within seconds)
#   KV_EXPLAINER_CACHE  the warm-up cache's directory, shared by every process (default
#                     ~/.cache/kv-cache-explainer; steps/warmcache.py); prebuild it with
#                     `.venv/bin/python -m steps.warmcache`
#   KV_APP_SCRIPT     the Panel script to serve, relative to the repository (default app.py;
#                     the classroom benchmark serves benchmarks/minimal_app.py the same way);
#                     warmup.py is the --setup of app.py only
#
# App i runs:  panel serve app.py --address 127.0.0.1 --port KV_APP_PORT+i-1 (no --num-threads:
#              worker threads only delay each move: docs/performance.md, "No worker threads")
#              --websocket-compression-level 1
#              --allow-websocket-origin 127.0.0.1:PORT --allow-websocket-origin localhost:PORT
#              --use-xheaders --liveness [--setup warmup.py   when <repo>/warmup.py exists]
# Its log is KV_RUN_DIR/app-<port>.log; nginx logs to KV_RUN_DIR/logs/{error,access}.log.
# The nginx config is deploy/nginx.conf with the port of its `# @LISTEN` line and the lines
# between `# @BEGIN backends` / `# @END backends` replaced, written to KV_RUN_DIR/nginx.conf.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TEMPLATE="$ROOT/deploy/nginx.conf"
RUN_DIR=${KV_RUN_DIR:-$ROOT/deploy/.run}
PANEL=${PANEL:-$ROOT/.venv/bin/panel}
NGINX_CMD=${NGINX_BIN:-$(command -v nginx || echo /usr/sbin/nginx)}
unset NGINX  # never pass $NGINX to nginx: it would parse it as inherited socket numbers
APP_PORT=${KV_APP_PORT:-5101}
START_TIMEOUT=${KV_START_TIMEOUT:-600}
SCRIPT=${KV_APP_SCRIPT:-app.py}
ENDPOINT=/$(basename "$SCRIPT" .py)
PIDS="$RUN_DIR/pids"

die() { echo "run-local.sh: $*" >&2; exit 1; }
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }

# The command line a PID file's process must show, so that a PID reused by the system is never
# signalled: app processes carry "--port <port>", nginx its rendered config path.
expected_cmdline() {  # pidfile-name
    case $1 in
        nginx.pid) echo "$RUN_DIR/nginx.conf" ;;
        app-*.pid) local p=${1#app-}; echo "--port ${p%.pid} " ;;
    esac
}

alive() {  # pid pidfile-name
    local pid=$1 cmd
    kill -0 "$pid" 2>/dev/null || return 1
    [[ ${2:-} ]] || return 0                          # no name: just started, not exec'd yet
    [[ -r /proc/$pid/cmdline ]] || return 0          # no /proc: trust kill -0
    cmd=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null || true)
    [[ $cmd == *"$(expected_cmdline "$2")"* ]]
}

pid_files() {  # nginx first (it stops taking requests before the apps go), then apps
    [[ -d $PIDS ]] || return 0
    [[ -f $PIDS/nginx.pid ]] && echo "$PIDS/nginx.pid"
    local f
    for f in "$PIDS"/app-*.pid; do [[ -f $f ]] && echo "$f"; done
    return 0
}

# HTTP status of GET http://127.0.0.1:<port><path>, or "" when nothing answers (bash only).
http_status() {  # port path
    timeout 30 bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n" "$2" "$1" >&3
        IFS=" " read -r _ code _ <&3 && echo "$code"
        cat <&3 >/dev/null' _ "$1" "$2" 2>/dev/null || true
}

cmd_status() {
    local f name pid state all=0 n=0
    if [[ -f $RUN_DIR/proxy.port ]]; then
        echo "proxy: http://127.0.0.1:$(cat "$RUN_DIR/proxy.port")/app   (run dir $RUN_DIR)"
    fi
    while read -r f; do
        [[ -n $f ]] || continue
        n=$((n + 1)); name=$(basename "$f"); pid=$(cat "$f")
        if alive "$pid" "$name"; then state=running; else state=dead; all=1; fi
        printf '%-16s pid %-8s %s\n' "${name%.pid}" "$pid" "$state"
    done < <(pid_files)
    if ((n == 0)); then echo "nothing started (no PID files in $PIDS)"; return 1; fi
    return $all
}

cmd_stop() {
    local f name pid waiting=() i
    while read -r f; do
        [[ -n $f ]] || continue
        name=$(basename "$f"); pid=$(cat "$f")
        if alive "$pid" "$name"; then
            kill -TERM "$pid" 2>/dev/null || true
            waiting+=("$pid:$name")
        fi
    done < <(pid_files)
    for i in $(seq 1 100); do                      # up to 20 s for a clean exit
        local still=()
        for entry in "${waiting[@]+"${waiting[@]}"}"; do
            alive "${entry%%:*}" "${entry#*:}" && still+=("$entry")
        done
        waiting=("${still[@]+"${still[@]}"}")
        ((${#waiting[@]} == 0)) && break
        sleep 0.2
    done
    for entry in "${waiting[@]+"${waiting[@]}"}"; do   # then SIGKILL, and wait for it
        echo "run-local.sh: ${entry#*:} (pid ${entry%%:*}) ignored SIGTERM, killing" >&2
        kill -KILL "${entry%%:*}" 2>/dev/null || true
        for i in $(seq 1 100); do alive "${entry%%:*}" "${entry#*:}" || break; sleep 0.1; done
    done
    rm -f "$PIDS"/*.pid "$RUN_DIR/proxy.port"
    echo "stopped"
}

render_nginx_conf() {  # n proxy_port
    local n=$1 port=$2 i servers=""
    for ((i = 0; i < n; i++)); do
        servers+="        server 127.0.0.1:$((APP_PORT + i)) max_fails=3 fail_timeout=10s;"$'\n'
    done
    # Markers: a line holding only "# @BEGIN backends" / "# @END backends", and the listen line
    # "listen ADDRESS:PORT; # @LISTEN" whose PORT is replaced (its address is kept). Mentions of
    # the markers in comments are left alone.
    local begin='^[[:space:]]*# @BEGIN backends[[:space:]]*$' end='^[[:space:]]*# @END backends[[:space:]]*$'
    local listen='^[[:space:]]*listen[[:space:]][^;]*:[0-9]+;[[:space:]]*# @LISTEN[[:space:]]*$'
    [[ $(grep -cE "$begin" "$TEMPLATE") == 1 && $(grep -cE "$end" "$TEMPLATE") == 1 \
       && $(grep -cE "$listen" "$TEMPLATE") == 1 ]] || die "template markers missing in $TEMPLATE"
    SERVERS=$servers PORT=$port BEGIN_RE=$begin END_RE=$end LISTEN_RE=$listen awk '
        $0 ~ ENVIRON["BEGIN_RE"]  { print; printf "%s", ENVIRON["SERVERS"]; skip = 1; next }
        $0 ~ ENVIRON["END_RE"]    { skip = 0 }
        skip                      { next }
        $0 ~ ENVIRON["LISTEN_RE"] { sub(/:[0-9]+;/, ":" ENVIRON["PORT"] ";") }
        { print }' "$TEMPLATE" > "$RUN_DIR/nginx.conf"
}

fail_start() {
    echo "run-local.sh: $*" >&2
    local log
    for log in "$RUN_DIR"/app-*.log "$RUN_DIR/logs/error.log" "$RUN_DIR/nginx.out"; do
        [[ -s $log ]] && { echo "--- tail of $log" >&2; tail -n 20 "$log" >&2; }
    done
    cmd_stop >&2 || true
    exit 1
}

cmd_start() {
    local n=${1:-} port=${2:-8080} i p
    is_uint "$n" && ((n >= 1)) || die "usage: $0 start N [PORT]  (N >= 1 app processes)"
    is_uint "$port" && is_uint "$APP_PORT" || die "ports must be numbers"
    [[ -x $NGINX_CMD ]] || die "nginx not found (apt-get install -y nginx, or set NGINX_BIN=)"
    [[ -f $ROOT/$SCRIPT ]] || die "no $SCRIPT in $ROOT (KV_APP_SCRIPT)"
    local panel_cmd
    read -r -a panel_cmd <<< "$PANEL"
    command -v "${panel_cmd[0]}" >/dev/null || die "panel not found at ${panel_cmd[0]} (set PANEL=)"
    if [[ -n $(pid_files) ]]; then
        cmd_status || true
        die "already started from $RUN_DIR: run '$0 stop' first"
    fi

    mkdir -p "$PIDS" "$RUN_DIR/logs" "$RUN_DIR/tmp"
    rm -f "$RUN_DIR"/app-*.log "$RUN_DIR/nginx.out" "$RUN_DIR"/logs/*.log   # fresh logs per start
    echo "$port" > "$RUN_DIR/proxy.port"
    local setup=()
    [[ $SCRIPT == app.py && -f $ROOT/warmup.py ]] && setup=(--setup "$ROOT/warmup.py")

    cd "$ROOT"
    # The repository root on sys.path: `python -m panel` puts the working directory there, but
    # the .venv/bin/panel entry point does not, and warmup.py (run by --setup before any app
    # code) imports the repository's packages.
    export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
    for ((i = 0; i < n; i++)); do
        p=$((APP_PORT + i))
        nohup "${panel_cmd[@]}" serve "$SCRIPT" --address 127.0.0.1 --port "$p" \
            --websocket-compression-level 1 \
            --allow-websocket-origin "127.0.0.1:$port" --allow-websocket-origin "localhost:$port" \
            --use-xheaders --liveness "${setup[@]+"${setup[@]}"}" \
            > "$RUN_DIR/app-$p.log" 2>&1 < /dev/null &
        echo $! > "$PIDS/app-$p.pid"
    done

    render_nginx_conf "$n" "$port"
    "$NGINX_CMD" -t -q -p "$RUN_DIR/" -c "$RUN_DIR/nginx.conf" -e logs/error.log \
        || fail_start "nginx rejected $RUN_DIR/nginx.conf"
    nohup "$NGINX_CMD" -p "$RUN_DIR/" -c "$RUN_DIR/nginx.conf" -e logs/error.log -g 'daemon off;' \
        > "$RUN_DIR/nginx.out" 2>&1 < /dev/null &
    echo $! > "$PIDS/nginx.pid"

    # Wait until every app answers Panel's /liveness?endpoint=/app (its server is up; warmup.py,
    # when present, has already run: --setup runs before the server listens) and nginx answers.
    local deadline=$((SECONDS + START_TIMEOUT)) pending
    local -A ready=()
    while :; do
        pending=0
        for ((i = 0; i < n; i++)); do
            p=$((APP_PORT + i))
            [[ ${ready[$p]:-} ]] && continue
            alive "$(cat "$PIDS/app-$p.pid")" \
                || fail_start "app on port $p exited (see $RUN_DIR/app-$p.log)"
            if [[ $(http_status "$p" "/liveness?endpoint=$ENDPOINT") == 200 ]]; then
                ready[$p]=1; echo "app on 127.0.0.1:$p ready"
            else
                pending=1
            fi
        done
        alive "$(cat "$PIDS/nginx.pid")" || fail_start "nginx exited"
        if ((pending == 0)) && [[ -n $(http_status "$port" "/liveness") ]]; then break; fi
        ((SECONDS < deadline)) || fail_start "not ready after ${START_TIMEOUT}s"
        sleep 0.5
    done
    echo "serving http://127.0.0.1:$port$ENDPOINT with $n app processes (run dir $RUN_DIR)"
}

case ${1:-} in
    start)  shift; cmd_start "$@" ;;
    stop)   cmd_stop ;;
    status) cmd_status ;;
    *)      echo "usage: $0 start N [PORT] | stop | status" >&2; exit 2 ;;
esac
