"""The time-off queue through the test client as the ED manager."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.factories import uid
from tests.web.manager.conftest import add_request, add_shift

DAY = datetime(2026, 6, 1, 4, 0, tzinfo=UTC)  # midnight in New York (EDT)


def test_index_lists_pending_requests_with_count(mweb, arrange):
    mweb.sign_in("manager@example.com")
    response = mweb.client.get("/manage/time-off")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert "Time-off queue" in body
    assert "Pat Provider" in body


HX = {"HX-Request": "true"}


def _csrf(mweb):
    page = mweb.client.get("/manage/time-off").get_data(as_text=True)
    marker = 'name="csrf_token" value="'
    start = page.index(marker) + len(marker)
    return page[start:page.index('"', start)]


def _opened(mweb, request_id, **headers):
    return mweb.client.get(f"/manage/time-off/{request_id}", headers=headers)


def _seen(body):
    marker = 'name="seen_shifts" type="hidden" value="'
    if marker not in body:
        return ""
    start = body.index(marker) + len(marker)
    return body[start:body.index('"', start)]


def test_show_opens_a_request_with_its_conflicts_and_strategies(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY))
    arrange(lambda s, w: add_shift(s, w, provider=w.provider, start=DAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    full = _opened(mweb, request_id)
    body = full.get_data(as_text=True)
    assert full.status_code == 200
    assert "Time-off queue" in body
    assert "Shifts this request overlaps" in body
    assert "1 shift marked as callouts, and 1 open shift posted" in body
    assert f"/manage/schedule?team={mweb.world.ed}&amp;week=2026-06-01" in body
    fragment = _opened(mweb, request_id, **HX)
    text = fragment.get_data(as_text=True)
    assert text.strip().startswith(f'<li id="request-{request_id}"')
    assert "HX-Request" in fragment.headers["Vary"]
    assert "<html" not in text


def test_approve_with_delete_removes_the_shift_and_updates_badge(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY))
    shift_id = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                              start=DAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    seen = _seen(_opened(mweb, request_id).get_data(as_text=True))
    assert str(shift_id) in seen
    token = _csrf(mweb)
    response = mweb.client.post(f"/manage/time-off/{request_id}/approve", headers=HX, data={
        "csrf_token": token, "seen_status": "pending", "seen_shifts": seen,
        "conflict_resolution": "delete", "back": "/manage/time-off"})
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert "Approved" in body
    assert 'id="pending-count"' in body
    assert "hx-swap-oob" in body
    assert "1 overlapping shift: shifts deleted" in body
    assert mweb.client.get(f"/probe/shift?id={shift_id}").status_code == 404


def test_approve_without_js_redirects_back_to_the_queue(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY))
    mweb.sign_in("manager@example.com")
    response = mweb.client.post(f"/manage/time-off/{request_id}/approve", data={
        "csrf_token": _csrf(mweb), "seen_status": "pending", "seen_shifts": "",
        "conflict_resolution": "keep", "back": "/manage/time-off?status=pending"})
    assert response.status_code == 303
    assert response.headers["Location"] == "/manage/time-off?status=pending"


def test_reject_requires_a_reason(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY))
    mweb.sign_in("manager@example.com")
    response = mweb.client.post(f"/manage/time-off/{request_id}/reject", headers=HX, data={
        "csrf_token": _csrf(mweb), "seen_status": "pending", "seen_shifts": "",
        "rejection_reason": "  ", "back": "/manage/time-off"})
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Tell the provider why." in body
    assert 'aria-invalid="true"' in body


def test_decision_on_a_request_changed_meanwhile_shows_the_change(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY, status="cancelled"))
    mweb.sign_in("manager@example.com")
    response = mweb.client.post(f"/manage/time-off/{request_id}/approve", headers=HX, data={
        "csrf_token": _csrf(mweb), "seen_status": "pending", "seen_shifts": "",
        "conflict_resolution": "keep", "back": "/manage/time-off"})
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "Changed meanwhile." in body
    assert "it is now cancelled" in body


def test_decision_when_the_overlapping_shifts_changed_asks_again(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY))
    mweb.sign_in("manager@example.com")
    arrange(lambda s, w: add_shift(s, w, provider=w.provider, start=DAY.replace(hour=11)))
    response = mweb.client.post(f"/manage/time-off/{request_id}/approve", data={
        "csrf_token": _csrf(mweb), "seen_status": "pending", "seen_shifts": "",
        "conflict_resolution": "keep", "back": "/manage/time-off"})
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "The shifts this request overlaps changed" in body
    assert mweb.client.get(f"/probe/time-off?id={request_id}").status_code == 200


def test_forged_approval_of_another_teams_request_shows_403_inline(mweb):
    mweb.sign_in("manager@example.com")
    icu = mweb.world.ids["request_icu"]
    listing = mweb.client.get("/manage/time-off?status=any").get_data(as_text=True)
    assert str(icu) not in listing
    response = mweb.client.post(f"/manage/time-off/{icu}/approve", data={
        "csrf_token": _csrf(mweb), "seen_status": "pending", "seen_shifts": "",
        "conflict_resolution": "keep", "back": "/manage/time-off"})
    body = response.get_data(as_text=True)
    assert response.status_code == 403
    assert 'role="alert"' in body
    assert "Time-off queue" in body


def test_bulk_approve_skips_requests_with_conflicts(mweb, arrange):
    clean = arrange(lambda s, w: add_request(s, w, start=DAY, note="clean"))
    busy = arrange(lambda s, w: add_request(s, w, start=DAY.replace(day=10), note="busy"))
    arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                   start=DAY.replace(day=10, hour=11)))
    mweb.sign_in("manager@example.com")
    response = mweb.client.post("/manage/time-off/approve-clean", data={
        "csrf_token": _csrf(mweb), "ids": [str(clean), str(busy)], "back": "/manage/time-off"})
    assert response.status_code == 303
    page = mweb.client.get("/manage/time-off").get_data(as_text=True)
    assert "Approved 1 request. 1 overlap shifts" in page
    assert f'request-{busy}"' in page
    assert f'request-{clean}"' not in page


def test_filters_stay_in_the_url_and_bad_dates_are_inline(mweb):
    mweb.sign_in("manager@example.com")
    response = mweb.client.get("/manage/time-off?status=any&start=2026-13-40")
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'id="start-error"' in body
    assert "<title>Error:" in body


def test_cursor_paging_keeps_the_filters(mweb, arrange):
    def many(s, w):
        return [add_request(s, w, start=DAY.replace(month=9, day=1 + i), note=f"Batch {i}")
                for i in range(22)]

    arrange(many)
    mweb.sign_in("manager@example.com")
    first = mweb.client.get("/manage/time-off?start=2026-09-01&end=2026-09-30")
    body = first.get_data(as_text=True)
    assert body.count('class="request-row') == 20
    marker = 'href="/manage/time-off?'
    links = [chunk.split('"')[0] for chunk in body.split(marker)[1:]]
    following = next(link for link in links if "cursor=" in link)
    assert "start=2026-09-01" in following
    second = mweb.client.get("/manage/time-off?" + following.replace("&amp;", "&"))
    page = second.get_data(as_text=True)
    assert page.count('class="request-row') == 2
    assert "First page" in page


def test_queue_marks_a_conflict_hidden_behind_many_other_shifts(mweb, arrange):
    """Other people's shifts in the window must not crowd out the requester's own shift."""
    late = datetime(2026, 7, 28, 4, 0, tzinfo=UTC)

    def busy_month(session, world):
        for day in range(40):
            start = datetime(2026, 6, 20, 11, 0, tzinfo=UTC) + timedelta(days=day)
            for nurse in range(6):
                add_shift(session, world, provider=uid(f"user:ed.nurse{nurse}@example.com"),
                          start=start)
        add_request(session, world, start=datetime(2026, 6, 20, 4, 0, tzinfo=UTC),
                    provider=world.doctor, note="Early and clean")
        add_shift(session, world, provider=world.provider, start=late + timedelta(hours=7))
        return add_request(session, world, start=late, note="Late with a shift")

    request_id = arrange(busy_month)
    mweb.sign_in("manager@example.com")
    body = mweb.client.get("/manage/time-off").get_data(as_text=True)
    row = body[body.index(f'id="request-{request_id}"'):]
    row = row[:row.index("Review and decide")]
    assert "No shift conflicts" not in row
    assert "1 shift overlap" in row
