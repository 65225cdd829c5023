#!/usr/bin/env bash
# The production layout on this machine, for the load benchmark (docs/performance.md, "Issue 36:
# watchers and the fair floor"): a private PostgreSQL and Redis, the platform (`manage.py up
# --web 2 --http 6 --workers 1`: daphne, gunicorn, Celery) and nginx in front (docs/nginx-local.conf),
# all under var/bench-servers (BENCH_DIR) and on ports of their own, so that the benchmark
# watches these processes only.
#
#   benchmarks/servers.sh start        # prints the URL to give `benchmarks load --url`
#   eval "$(benchmarks/servers.sh env)"  # the settings the benchmark needs (its database, Redis)
#   benchmarks/servers.sh pause-engine # before measuring; resume-engine after (see below)
#   benchmarks/servers.sh stop
#
# PG_PORT, REDIS_PORT, PORT (daphne; gunicorn on PORT+1) and NGINX_PORT change the ports, HTTP the
# number of gunicorn processes (6; gunicorn reads more of its options from GUNICORN_CMD_ARGS). Run it
# as root (PostgreSQL runs as the postgres user, as .ci/run starts it). Start the servers under
# `nice -n 10` on a shared machine: every process they start inherits it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
here=${BENCH_DIR:-$root/var/bench-servers}
PG_PORT=${PG_PORT:-25436} REDIS_PORT=${REDIS_PORT:-26396} PORT=${PORT:-8620}
NGINX_PORT=${NGINX_PORT:-8622} HTTP=${HTTP:-6}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
settings=(
    "DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/bench"
    "REDIS_URL=redis://127.0.0.1:$REDIS_PORT/0"
    "SECRET_KEY=benchmark-only-not-a-secret-0123456789abcdefghijklmnopqrstuvwxyz"
    "DEBUG=false" "ALLOWED_HOSTS=127.0.0.1"
    "SESSION_COOKIE_SECURE=false" "CSRF_COOKIE_SECURE=false"
    "SITE_URL=http://127.0.0.1:$NGINX_PORT" "MICROCHIP_VAR_DIR=$here/var"
    # The analysis and the engine's review of each ended game are not a move's cost, and at their
    # production budgets (5 s a seat, up to 120 s a game) they ran beside the runs they disturbed.
    "ANALYSIS_TIME_LIMIT=0.5" "ENGINE_REVIEW_CPU_SECONDS=5" "ENGINE_REVIEW_SAMPLES=0"
)
export "${settings[@]}"

case "${1:-}" in
env) printf 'export %q\n' "${settings[@]}" ;;
start)
    mkdir -p "$here/pg" "$here/var" "$here/nginx"
    chown postgres "$here/pg"
    if [ ! -d "$here/pg/data" ]; then
        su postgres -c "$pg_bin/initdb -D $here/pg/data -A trust -U postgres" >/dev/null
    fi
    su postgres -c "$pg_bin/pg_ctl -D $here/pg/data -l $here/pg/pg.log -w -o '-p $PG_PORT \
        -k $here/pg -c listen_addresses=127.0.0.1 -c max_connections=300' start" >/dev/null
    psql="psql -h 127.0.0.1 -p $PG_PORT -U postgres"
    su postgres -c "$psql -tc \"SELECT 1 FROM pg_database WHERE datname = 'bench'\"" | grep -q 1 \
        || su postgres -c "$psql -c 'CREATE DATABASE bench'" >/dev/null
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
        --pidfile "$here/redis.pid" --dir "$here"
    cd "$root"
    setsid nohup .venv/bin/python manage.py up --host 127.0.0.1 --port "$PORT" --web 2 --http "$HTTP" \
        --workers 1 >"$here/up.log" 2>&1 &
    echo $! >"$here/up.pid"
    sed -e "s/127.0.0.1:8001/127.0.0.1:$((PORT + 1))/; s/127.0.0.1:8000/127.0.0.1:$PORT/" \
        -e "s/listen 127.0.0.1:8080/listen 127.0.0.1:$NGINX_PORT/" \
        "$root/docs/nginx-local.conf" >"$here/nginx/nginx.conf"
    for _ in $(seq 120); do
        curl -sf -o /dev/null "http://127.0.0.1:$((PORT + 1))/health/" && break
        sleep 1
    done
    nginx -p "$here/nginx" -c "$here/nginx/nginx.conf"
    curl -sf -o /dev/null "http://127.0.0.1:$NGINX_PORT/health/"
    echo "up at http://127.0.0.1:$NGINX_PORT"
    ;;
stop)
    nginx -p "$here/nginx" -c "$here/nginx/nginx.conf" -s quit 2>/dev/null || true
    if [ -f "$here/up.pid" ]; then
        kill -TERM "$(cat "$here/up.pid")" 2>/dev/null || true
        for _ in $(seq 20); do kill -0 "$(cat "$here/up.pid")" 2>/dev/null || break; sleep 1; done
        rm -f "$here/up.pid"
    fi
    if [ -f "$here/redis.pid" ]; then kill "$(cat "$here/redis.pid")" 2>/dev/null || true; fi
    su postgres -c "$pg_bin/pg_ctl -D $here/pg/data -m fast stop" >/dev/null 2>&1 || true
    ;;
pause-engine | resume-engine)
    # The engine's worker analyses and reviews every game that ends (`answer-cost` ends dozens a
    # minute): beside a run on two cores it made each move cost about a fifth more CPU. Paused (its
    # processes stopped, not ended: `up` would start them again), it takes up its queue again on
    # resume-engine.
    signal=$([ "$1" = pause-engine ] && echo STOP || echo CONT)
    pkill "-$signal" -s "$(cat "$here/up.pid")" -f "queues engine"
    ;;
*)
    echo "usage: $0 start|stop|env|pause-engine|resume-engine" >&2
    exit 2
    ;;
esac
