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
ENV WEB_CONCURRENCY=2
CMD ["sh", "-c", "shiftdesk init && shiftdesk serve --host 0.0.0.0 --port 8000"]
