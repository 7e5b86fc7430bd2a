# syntax=docker/dockerfile:1
# Shiftdesk's image. One image, a role per container chosen by its command
# (deploy/docker-entrypoint.sh): `all` (the default: migrate, then UI, /v1 and sign-in in one
# container), `api`, `ui`, `worker`, `init`. README "Deployment" says how to run it against
# PostgreSQL and Redis and how to size it; compose.yaml runs scale mode with it.

# -- build: the project's wheel and a wheel of every pinned dependency -------------------------
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip wheel --wheel-dir /wheels .

# -- runtime: the wheels installed offline; no build tools, no wheels left behind ---------------
FROM python:3.11-slim AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# The same install CI's smoke test checks: the wheel alone (templates, static files and
# migrations ship inside it), no extras, no checkout.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-index --find-links /wheels shiftdesk \
    && groupadd --system --gid 10001 shiftdesk \
    && useradd --system --uid 10001 --gid shiftdesk --home-dir /srv/shiftdesk --create-home \
       --shell /usr/sbin/nologin shiftdesk
COPY --chmod=755 deploy/docker-entrypoint.sh /usr/local/bin/shiftdesk-container
WORKDIR /srv/shiftdesk
# Numeric, so that a platform requiring a non-root user can check it without /etc/passwd.
USER 10001:10001

# gunicorn (app/gunicorn_conf.py): 2 worker processes of 8 threads on port 8000, a worker that
# says nothing for 60 s is restarted. /metrics adds up the workers through prometheus-client's
# folder, emptied when gunicorn starts. The signing key lives in the database (the SQLite file
# under instance/ unless SHIFTDESK_DATABASE_URL names PostgreSQL), so every container shares it.
# MALLOC_ARENA_MAX=2: without it glibc gives each thread a malloc arena of its own, and a threaded
# worker's memory creeps up towards the sum of its threads' peaks (deploy/run_scaled.py).
ENV GUNICORN_BIND=0.0.0.0:8000 WEB_CONCURRENCY=2 GUNICORN_THREADS=8 GUNICORN_TIMEOUT=60 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/shiftdesk-metrics SHIFTDESK_SIGNING_KEY_STORE=database \
    MALLOC_ARENA_MAX=2
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["shiftdesk-container", "healthcheck"]
ENTRYPOINT ["shiftdesk-container"]
CMD ["all"]
