"""A finished report run's file, passed on to the browser: the UI fetches it through the API's
signed link (the browser holds no token) and answers it as an attachment. Shared by the reports
pages and the timesheets' payroll export.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid

from flask import Response

from app.client import ApiClient, ApiProblem


def fetch(client: ApiClient, run_id: uuid.UUID, fallback_name: str) -> Response | str:
    """The run's file as an attachment response, or the API's sentence when it refuses (a 5xx
    is raised). Its name keeps only letters, digits, `-`, `_` and `.` (`fallback_name` when
    none are left)."""
    try:
        file = client.report_file(client.report_download(run_id).url)
    except ApiProblem as refused:
        if refused.status >= 500:
            raise
        return refused.detail
    name = "".join(c for c in file.name if c.isalnum() or c in "-_.") or fallback_name
    return Response(file.content, mimetype=file.media_type,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
