# Shiftdesk in one container: gunicorn serving the UI, /v1 and sign-in.
# Point SHIFTDESK_DATABASE_URL at PostgreSQL and SHIFTDESK_REDIS_URL at Redis for production.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip wheel --no-deps --wheel-dir /dist .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# The same install CI's smoke test checks: the wheel alone (templates, static files and
# migrations ship inside it), no extras, no checkout.
COPY --from=build /dist /dist
RUN pip install /dist/*.whl && rm -rf /dist \
    && useradd --system --home /srv/shiftdesk --create-home shiftdesk
WORKDIR /srv/shiftdesk
USER shiftdesk
# instance/ (SQLite database, signing key, UI sessions) is made in the working folder.
EXPOSE 8000
# Two workers; /metrics adds up both through prometheus-client's multiprocess folder, emptied
# at each start (docs/operations.md).
ENV WEB_CONCURRENCY=2 PROMETHEUS_MULTIPROC_DIR=/tmp/shiftdesk-metrics
HEALTHCHECK --interval=30s --timeout=5s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"
CMD ["sh", "-c", "rm -rf \"$PROMETHEUS_MULTIPROC_DIR\" && mkdir -p \"$PROMETHEUS_MULTIPROC_DIR\" && shiftdesk init && shiftdesk serve --host 0.0.0.0 --port 8000"]
