"""The team timesheet's pay-period panel through the test client: open or signed off, what
blocks the sign-off (and the API's list when that changed meanwhile), reopening (administrators
only, after a confirmation), and the payroll export's start, progress, download and failures —
each as a whole page and as the htmx fragment."""

from __future__ import annotations

import csv
import io
import re
import time
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from app.api import models as m
from app.web.manage_timesheets.views import EXPORT_REPORT
from tests.factories import uid
from tests.web.manager.conftest import add_shift

BUSY = "period=2026-03-02"  # the seeded period: Pat's late clock-in waits, no clock-out
QUIET = "2026-05-04"  # a pay period of Pat's template with nothing in it but what a test adds
PANEL = 'id="ts-panel"'


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _panel(body: str) -> str:
    return body.split(PANEL, 1)[1].split("</section>", 1)[0]


def _url(mweb, period: str = BUSY, **more: str) -> str:
    extra = "".join(f"&{k}={v}" for k, v in more.items())
    return f"/manage/timesheets?team={mweb.world.ed}&{period}{extra}"


def _quiet(mweb, **more: str) -> str:
    return _url(mweb, f"period={QUIET}", **more)


def _quiet_window() -> tuple[datetime, datetime]:
    begin = datetime(2026, 5, 4, 4, tzinfo=UTC)  # midnight in New York (daylight time)
    return begin, begin + timedelta(days=14)


def _worked_day(arrange, state: str = "approved") -> str:
    """A shift of Pat's in the quiet period, clocked in and out; the shift's id."""
    start = datetime(2026, 5, 5, 11, tzinfo=UTC)

    def change(session, world):
        shift = add_shift(session, world, provider=world.provider, start=start, hours=8)
        card = m.Timecard(provider_id=world.provider, period_start=start - timedelta(days=1),
                          period_end=start + timedelta(days=2))
        session.add(card)
        session.flush()
        for minutes, action in [(0, "clock_in"), (480, "clock_out")]:
            session.add(m.TimecardPunch(timecard_id=card.id, provider_id=world.provider,
                                        action=action, state=state,
                                        time=start + timedelta(minutes=minutes)))
        return str(shift)

    return arrange(change)


def _sign_off_api(mweb, email: str = "manager@example.com") -> str:
    begin, end = _quiet_window()
    response = mweb.app.test_client().post(
        "/v1/timekeeping/timesheet/sign-offs",
        json={"teamId": str(mweb.world.ed), "startDate": begin.strftime("%Y-%m-%dT%H:%M:%SZ"),
              "endDate": end.strftime("%Y-%m-%dT%H:%M:%SZ")},
        headers={"Authorization": f"Bearer {mweb.token(email)}"})
    assert response.status_code == 201, response.get_json()
    return response.get_json()["id"]


def test_open_period_lists_what_blocks_the_sign_off_with_links_to_the_rows(mweb):
    mweb.sign_in("manager@example.com")
    body = mweb.client.get(_url(mweb)).get_data(as_text=True)
    panel = _panel(body)
    assert "Status Open" in _text(panel)
    assert "Mon 23 Feb \u2013 Sun 8 Mar" in _text(body.split("</h1>", 1)[1].split("</p>", 1)[0])
    assert "To review: 5 providers" in _text(panel)
    pat = panel.split("Pat Provider", 1)[1].split("</li>", 1)[0]
    assert "punch pending" in _text(pat) or "punches pending" in _text(pat)
    assert "error" in _text(pat)
    # Each count links to the first such row of Pat's, opening Pat's section without scripts.
    links = [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', pat)]
    assert links
    assert all(f"provider={mweb.world.provider}" in h for h in links)
    assert all("#row-" in h for h in links)
    opened = mweb.client.get(links[0].split("#")[0]).get_data(as_text=True)
    assert f'id="{links[0].split("#")[1]}"' in opened
    # The button is there but disabled, and says why in words.
    button = re.search(r"<button[^>]*>Sign off period</button>", panel)
    assert button is not None
    assert "disabled" in button.group(0)
    why = _text(panel.split('id="ts-sign-off-why"', 1)[1].split("</p>", 1)[0])
    assert re.search(r"Not yet: \d+ punch(es)? pending, \d+ missing clock-outs?", why), why
    assert "Preliminary export" in panel
    assert "the export is preliminary" in _text(panel)


def test_sign_off_refused_meanwhile_shows_the_blocking_list_inline(mweb):
    mweb.sign_in("manager@example.com")
    token = mweb.csrf()
    back = _url(mweb)
    full = mweb.client.post("/manage/timesheets/sign-off", data={"csrf_token": token,
                                                                 "back": back})
    body = full.get_data(as_text=True)
    assert full.status_code == 409
    assert "<title>Error:" in body
    blocked = body.split('aria-label="What blocks the sign-off"', 1)[1].split("</ul>", 1)[0]
    assert "Pat Provider" in blocked
    assert re.search(r"Pat Provider</a>: \d+ punch(es)? pending", blocked)
    assert f"provider={mweb.world.provider}" in blocked
    assert "#row-" in blocked
    partial = mweb.client.post("/manage/timesheets/sign-off",
                               data={"csrf_token": token, "back": back},
                               headers={"HX-Request": "true", "HX-Target": "timesheet"})
    html = partial.get_data(as_text=True)
    assert partial.status_code == 409
    assert html.lstrip().startswith('<div id="timesheet"')
    assert PANEL in html
    assert "Pat Provider" in html
    assert "<title>" not in html
    assert "HX-Request" in partial.headers["Vary"]


def test_sign_off_then_the_page_says_who_and_when_and_locks_the_rows(mweb, arrange):
    shift = _worked_day(arrange)
    mweb.sign_in("manager@example.com")
    before = mweb.client.get(_quiet(mweb, provider=str(mweb.world.provider)))
    panel = _panel(before.get_data(as_text=True))
    assert re.search(r"<button type=\"submit\">Sign off period</button>", panel)
    assert "Nothing blocks it" in _text(panel)
    answer = mweb.client.post("/manage/timesheets/sign-off", data={
        "csrf_token": mweb.csrf(),
        "back": _quiet(mweb, provider=str(mweb.world.provider), export=str(uuid.uuid4()))})
    assert answer.status_code == 303
    assert "export=" not in answer.headers["Location"]  # an earlier, preliminary file is stale
    page = mweb.client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Signed off the pay period Mon 4 May \u2013 Sun 17 May" in page
    status = _text(_panel(page))
    assert re.search(r"Signed off by Morgan Manager on \w{3} \d+ \w{3}( \d{4})?, \d+:\d\d [AP]M",
                     status), status
    assert "Sign off period" not in status
    assert "Export for payroll" in status
    assert "Preliminary" not in status
    # A manager signs off but cannot reopen.
    assert "Reopen" not in status
    assert "Only an administrator can reopen" in status
    row = page.split(f'id="row-{shift}"', 1)[1].split("</article>", 1)[0]
    assert "Signed off: reopen the period to change these punches." in _text(row)
    assert "Edit punches" not in row
    assert "approve-shift" not in row
    # An editor asked for in the address stays closed.
    edit = mweb.client.get(_quiet(mweb, provider=str(mweb.world.provider), edit=shift))
    assert "Save time" not in edit.get_data(as_text=True)


def test_admin_reopens_after_confirming(mweb, arrange):
    _worked_day(arrange)
    sign_off = _sign_off_api(mweb)
    mweb.sign_in("admin@example.com")
    page = mweb.client.get(_quiet(mweb)).get_data(as_text=True)
    link = re.search(r'<a class="ts-edit-link" href="([^"]+)"[^>]*hx-post="([^"]+)"[^>]*'
                     r'hx-confirm="[^"]+"[^>]*>Reopen', _panel(page))
    assert link is not None
    confirm = mweb.client.get(link.group(1).replace("&amp;", "&"))
    text = _text(confirm.get_data(as_text=True))
    assert confirm.status_code == 200
    assert "Reopen this pay period?" in text
    assert "Mon 4 May \u2013 Sun 17 May, signed off by Morgan Manager" in text
    assert "unlocks data payroll may already have" in text
    answer = mweb.client.post(f"/manage/timesheets/sign-offs/{sign_off}/reopen",
                              data={"csrf_token": mweb.csrf(), "back": _quiet(mweb)})
    assert answer.status_code == 303
    after = mweb.client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Reopened the pay period" in after
    assert re.search(r"Status Open \(reopened by Ada Admin on", _text(_panel(after)))
    assert "Sign off period" in _panel(after)


def test_reopen_refused_for_a_manager_and_for_unknown_ids_inline(mweb, arrange):
    sign_off = _sign_off_api(mweb)
    mweb.sign_in("manager@example.com")
    token = mweb.csrf()
    refused = mweb.client.post(f"/manage/timesheets/sign-offs/{sign_off}/reopen",
                               data={"csrf_token": token, "back": _quiet(mweb)})
    assert refused.status_code == 403
    panel = _panel(refused.get_data(as_text=True))
    assert 'role="alert"' in panel
    assert "Signed off by Morgan Manager" in _text(panel)
    unknown = mweb.client.post(f"/manage/timesheets/sign-offs/{uuid.uuid4()}/reopen",
                               data={"csrf_token": token, "back": _quiet(mweb)},
                               headers={"HX-Request": "true", "HX-Target": "timesheet"})
    assert unknown.status_code in (403, 422)  # the API refuses a manager before looking
    html = unknown.get_data(as_text=True)
    assert html.lstrip().startswith('<div id="timesheet"')
    assert 'role="alert"' in html
    # The confirmation page of an unknown sign-off: the timesheet, the refusal in its panel.
    page = mweb.client.get(f"/manage/timesheets/sign-offs/{uuid.uuid4()}/reopen?back="
                           + _quiet(mweb).replace("&", "%26"))
    assert page.status_code in (403, 422)
    assert 'role="alert"' in _panel(page.get_data(as_text=True))


def test_sign_off_of_another_teams_period_is_refused_inline(mweb):
    mweb.sign_in("manager@example.com")
    icu = uid("team:Intensive Care")
    answer = mweb.client.post("/manage/timesheets/sign-off", data={
        "csrf_token": mweb.csrf(), "back": f"/manage/timesheets?team={icu}&period={QUIET}"})
    assert answer.status_code in (403, 422)
    panel = _panel(answer.get_data(as_text=True))
    assert 'role="alert"' in panel


def _wait(mweb, run_id: str) -> str:
    """The run's status once it has left `running` (bounded)."""
    deadline = time.monotonic() + 20
    while True:
        with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
            status = session.scalar(select(m.ReportRun.status).where(
                m.ReportRun.id == uuid.UUID(run_id)))
        if status != "running" or time.monotonic() > deadline:
            return str(status)
        time.sleep(0.05)


def test_export_starts_polls_and_downloads_the_file(mweb, arrange):
    _worked_day(arrange)
    mweb.sign_in("manager@example.com")
    started = mweb.client.post("/manage/timesheets/exports", data={
        "csrf_token": mweb.csrf(), "back": _quiet(mweb)})
    assert started.status_code == 303
    where = started.headers["Location"]
    run_id = re.search(r"export=([0-9a-f-]{36})", where).group(1)
    assert _wait(mweb, run_id) == "completed"
    # htmx polls the progress region alone; done, it stops polling and offers the file.
    poll = mweb.client.get(where, headers={"HX-Request": "true", "HX-Target": "ts-export-run"})
    html = poll.get_data(as_text=True)
    assert html.lstrip().startswith('<div id="ts-export-run"')
    assert "hx-trigger" not in html
    assert "Download the payroll export" in html
    page = mweb.client.get(where).get_data(as_text=True)
    assert 'aria-live="polite"' in _panel(page)
    download = re.search(r'href="([^"]+/download[^"]*)"', _panel(page)).group(1)
    answer = mweb.client.get(download.replace("&amp;", "&"))
    assert answer.status_code == 200
    assert answer.mimetype == "text/csv"
    assert answer.headers["Content-Disposition"].startswith("attachment; filename=")
    rows = list(csv.DictReader(io.StringIO(answer.get_data(as_text=True))))
    pat = [r for r in rows if r.get("providerId") == str(mweb.world.provider)]
    assert sum(int(r["actualMinutes"]) for r in pat) == 480
    assert {r["status"] for r in rows} == {"preliminary"}


def test_export_while_running_polls_and_offers_refresh(mweb, arrange):
    run = arrange(lambda s, w: _run(s, w.manager, "running"))
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(_quiet(mweb, export=run)).get_data(as_text=True)
    region = page.split('id="ts-export-run"', 1)[1].split("</div>", 1)[0]
    assert 'hx-trigger="every 1s"' in region
    assert "Making the payroll export" in _text(region)
    assert re.search(r'<a class="ts-edit-link" href="[^"]*export=' + run, region)


def _run(session, user: uuid.UUID, status: str, report: str = EXPORT_REPORT,
         error: str | None = None) -> str:
    run = m.ReportRun(report_id=report, created_by_id=user, status=status, error=error,
                      parameters={})
    session.add(run)
    session.flush()
    return str(run.id)


def test_failed_export_shows_the_reason(mweb, arrange):
    run = arrange(lambda s, w: _run(s, w.manager, "failed", error="the job queue was down"))
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(_quiet(mweb, export=run)).get_data(as_text=True)
    assert "The payroll export failed: the job queue was down" in _text(_panel(page))
    assert "hx-trigger" not in _panel(page)


def test_someone_elses_or_a_made_up_export_is_refused_inline(mweb, arrange):
    theirs = arrange(lambda s, w: _run(s, w.admin, "completed"))
    mweb.sign_in("manager@example.com")
    for wanted, words in [(theirs, "not one of your payroll exports"),
                          ("not-a-run", "export link is not valid"),
                          (str(uuid.uuid4()), "")]:
        response = mweb.client.get(_quiet(mweb, export=wanted))
        assert response.status_code == 200
        region = _panel(response.get_data(as_text=True)).split('id="ts-export-run"', 1)[1]
        assert "ts-export-failed" in region.split("</div>", 1)[0]
        assert words in _text(region)
        assert "Download" not in region.split("</div>", 1)[0]
    download = mweb.client.get(f"/manage/timesheets/exports/{theirs}/download?back="
                               + _quiet(mweb).replace("&", "%26"))
    assert download.status_code == 303
    after = mweb.client.get(download.headers["Location"]).get_data(as_text=True)
    assert "not one of your payroll exports" in after


def test_a_sign_off_of_part_of_the_period_is_named_and_blocks_another(mweb):
    begin, _end = _quiet_window()
    response = mweb.app.test_client().post(
        "/v1/timekeeping/timesheet/sign-offs",
        json={"teamId": str(mweb.world.ed), "startDate": begin.strftime("%Y-%m-%dT%H:%M:%SZ"),
              "endDate": (begin + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")},
        headers={"Authorization": f"Bearer {mweb.token('manager@example.com')}"})
    assert response.status_code == 201, response.get_json()
    mweb.sign_in("manager@example.com")
    panel = _panel(mweb.client.get(_quiet(mweb)).get_data(as_text=True))
    assert "Status Open" in _text(panel)
    assert ("Part of this period (Mon 4 May \u2013 Sun 10 May) is signed off by Morgan Manager"
            in _text(panel))
    button = re.search(r"<button[^>]*>Sign off period</button>", panel)
    assert button is not None
    assert "disabled" in button.group(0)
    assert "part of the period is signed off already; reopen it first" in _text(panel)
    assert "Preliminary export" in panel
