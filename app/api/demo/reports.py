"""The demo's report runs: three completed (with their CSV files) and one failed."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

from app.api import models as m
from app.api.demo.schedule import segments_of
from app.api.demo.state import FIRST_DAY, LAST_DAY, Demo, demo_id, stamp


def write_report_runs(demo: Demo) -> None:
    """A few report runs, their files summarising what the load wrote before them."""
    admin, manager = demo.staff["admin@example.com"], demo.staff["manager@example.com"]
    ed = demo.teams[0]
    week = [p for p in demo.plans if p.person is not None and p.team is ed
            and -7 <= p.day < 0 and not p.deleted]
    hours: Counter[str] = Counter()
    for plan in week:
        assert plan.person is not None
        hours[plan.person.name] += sum((b - a).total_seconds() / 3600
                                       for a, b, k in segments_of(demo, plan) if k == "working")
    timesheet = "provider,team,scheduled_hours\n" + "".join(
        f"{name},{ed.name},{value}\n" for name, value in sorted(hours.items()))
    statuses = Counter(k.split(":", 1)[1] for k in demo.counts if k.startswith("request:"))
    time_off = "status,requests\n" + "".join(
        f"{s},{demo.counts['request:' + s]}\n" for s in sorted(statuses))
    coverage = "team,open_shifts\n" + "".join(
        f"{t.name},{sum(1 for p in demo.plans if p.person is None and p.team is t)}\n"
        for t in demo.teams)
    runs = [
        ("timesheet-summary", manager, -6, "completed", timesheet,
         {"teamId": str(ed.id), "startDate": stamp(demo.at(-7, 0)),
          "endDate": stamp(demo.at(0, 0))}),
        ("time-off-summary", admin, -3, "completed", time_off,
         {"startDate": stamp(demo.at(FIRST_DAY, 0)), "endDate": stamp(demo.at(LAST_DAY, 0))}),
        ("shift-coverage", admin, -1, "completed", coverage,
         {"startDate": stamp(demo.at(0, 0)), "endDate": stamp(demo.at(7, 0))}),
        ("appointments-by-provider", admin, -2, "failed", None,
         {"startDate": stamp(demo.at(-14, 0)), "endDate": stamp(demo.at(0, 0))}),
    ]
    rows = []
    for report, who, day, status, content, parameters in runs:
        created = demo.at(day, 10 * 60 + 17)
        data = content.encode() if content is not None else None
        rows.append({
            "id": demo_id(f"run:{report}"), "report_id": report, "created_at": created,
            "created_by_id": who, "parameters": parameters, "status": status,
            "file_name": f"{report}.csv" if data is not None else None,
            "file_media_type": "text/csv" if data is not None else None,
            "file_size_bytes": len(data) if data is not None else None,
            "file_content": data,
            "error": None if data is not None else "The report worker stopped before the run "
                                                   "finished; start the run again.",
            "completed_at": created + timedelta(minutes=2),
        })
    demo.insert(m.ReportRun, rows, "runs")
