# Shiftdesk in one container: gunicorn serving the UI, /v1 and sign-in.
# Point SHIFTDESK_DATABASE_URL at PostgreSQL and SHIFTDESK_REDIS_URL at Redis for production.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /srv/shiftdesk

COPY pyproject.toml README.md ./
COPY app ./app
COPY templates ./templates
COPY static ./static
RUN pip install -e . && useradd --system --home /srv/shiftdesk shiftdesk \
    && mkdir -p instance && chown shiftdesk instance
USER shiftdesk

EXPOSE 8000
CMD ["sh", "-c", "shiftdesk init && shiftdesk serve --host 0.0.0.0 --port 8000 --workers 2"]
