#!/bin/sh
# The image's entry point (installed as /usr/local/bin/shiftdesk-container): the command picks
# the container's role. gunicorn reads its settings from the environment (app/gunicorn_conf.py).
#   all          migrate, then serve the UI, /v1 and sign-in in one container (the default)
#   api          serve /v1 and sign-in (/auth) for UI containers and clients
#   ui           serve the staff UI, reaching the API at SHIFTDESK_API_URL over HTTP only
#   worker       execute report runs from the Redis queue (SHIFTDESK_REDIS_URL)
#   init [...]   migrate to head and make the signing key, then exit (`shiftdesk init`)
#   healthcheck  the image's HEALTHCHECK: GET /healthz of this container's gunicorn
#   anything else runs as given (`shiftdesk token EMAIL`, `sh`)
set -eu

# prometheus-client writes each process's metrics there (gunicorn empties it when it starts).
if [ -n "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
    mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
fi

serve() {
    exec gunicorn -c python:app.gunicorn_conf app.wsgi:app
}

role="${1:-all}"
case "$role" in
    all)
        shiftdesk init
        serve
        ;;
    api)
        serve
        ;;
    ui)
        if [ -z "${SHIFTDESK_API_URL:-}" ]; then
            echo "The ui role reaches the API over HTTP: set SHIFTDESK_API_URL." >&2
            exit 2
        fi
        serve
        ;;
    worker)
        exec shiftdesk worker
        ;;
    init)
        shift
        exec shiftdesk init "$@"
        ;;
    healthcheck)
        # A worker serves no HTTP: it is healthy while it runs (rq restarts dead work horses).
        if tr '\0' ' ' </proc/1/cmdline | grep -q "shiftdesk worker"; then
            exit 0
        fi
        bind="${GUNICORN_BIND:-0.0.0.0:8000}"
        port="${bind%%,*}"
        port="${port##*:}"
        exec python -c 'import sys, urllib.request
try:
    urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/healthz", timeout=4)
except OSError as exc:
    sys.exit(f"/healthz on port {sys.argv[1]}: {exc}")' "$port"
        ;;
    *)
        exec "$@"
        ;;
esac
