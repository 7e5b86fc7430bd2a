"""The time-off queue through the test client as the ED manager."""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from app.api import models as m
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
    token = mweb.csrf()
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
        "csrf_token": mweb.csrf(), "seen_status": "pending", "seen_shifts": "",
        "conflict_resolution": "keep", "back": "/manage/time-off?status=pending"})
    assert response.status_code == 303
    assert response.headers["Location"] == "/manage/time-off?status=pending"


def test_reject_requires_a_reason(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY))
    mweb.sign_in("manager@example.com")
    response = mweb.client.post(f"/manage/time-off/{request_id}/reject", headers=HX, data={
        "csrf_token": mweb.csrf(), "seen_status": "pending", "seen_shifts": "",
        "rejection_reason": "  ", "back": "/manage/time-off"})
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Tell the provider why." in body
    assert 'aria-invalid="true"' in body


def test_decision_on_a_request_changed_meanwhile_shows_the_change(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY, status="cancelled"))
    mweb.sign_in("manager@example.com")
    response = mweb.client.post(f"/manage/time-off/{request_id}/approve", headers=HX, data={
        "csrf_token": mweb.csrf(), "seen_status": "pending", "seen_shifts": "",
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
        "csrf_token": mweb.csrf(), "seen_status": "pending", "seen_shifts": "",
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
        "csrf_token": mweb.csrf(), "seen_status": "pending", "seen_shifts": "",
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
        "csrf_token": mweb.csrf(), "ids": [str(clean), str(busy)], "back": "/manage/time-off"})
    assert response.status_code == 303
    page = mweb.client.get("/manage/time-off").get_data(as_text=True)
    assert "Approved 1 request. 1 overlap shifts" in page
    assert f'request-{busy}"' in page
    assert f'request-{clean}"' not in page


def test_bulk_approve_takes_at_most_200_requests(mweb):
    mweb.sign_in("manager@example.com")
    ids = [str(uuid.uuid4()) for _ in range(201)]
    response = mweb.client.post("/manage/time-off/approve-clean", data={
        "csrf_token": mweb.csrf(), "ids": ids, "back": "/manage/time-off"})
    assert response.status_code == 303
    page = mweb.client.get("/manage/time-off").get_data(as_text=True)
    assert "Approve at most 200 requests at once" in page


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


# Cancellation requests, filter mistakes, words instead of wire names ------------------------------

def _asks_to_cancel(arrange, start, **extra):
    def make(s, w):
        request_id = add_request(s, w, start=start, status="approved", **extra)
        row = s.get(m.TimeOffRequest, request_id)
        row.cancellation_requested_at = datetime(2026, 5, 20, 14, 0, tzinfo=UTC)
        row.conflict_resolution = "calloutWithOpen"
        return request_id

    return arrange(make)


def test_cancellation_requests_are_announced_and_filtered(mweb, arrange):
    request_id = _asks_to_cancel(arrange, DAY.replace(day=15))
    mweb.sign_in("manager@example.com")
    queue = html.unescape(mweb.client.get("/manage/time-off").get_data(as_text=True))
    assert "Cancellation requests: 1 waiting for your decision" in queue
    listed = mweb.client.get("/manage/time-off?status=cancellation")
    body = html.unescape(listed.get_data(as_text=True))
    assert listed.status_code == 200
    assert f'id="request-{request_id}"' in body
    assert "Asks to cancel" in body
    assert "Pat Provider asked on Wed 20 May to cancel this approved leave." in body
    assert "Mon 15 Jun · 1 day" in body or "Mon 15 Jun 2026 · 1 day" in body
    assert "calloutWithOpen" not in body
    assert "Shifts marked as callouts, open copies posted" in body
    assert body.count('class="request-row') == 1


def test_cancel_the_leave_with_and_without_javascript(mweb, arrange):
    first = _asks_to_cancel(arrange, DAY.replace(day=16))
    second = _asks_to_cancel(arrange, DAY.replace(day=17))
    mweb.sign_in("manager@example.com")
    opened = html.unescape(_opened(mweb, first).get_data(as_text=True))
    assert "Pat Provider asks to cancel this leave" in opened
    assert "Cancel the leave" in opened
    assert "Keep it" in opened
    full = mweb.client.post(f"/manage/time-off/{first}/cancel", data={
        "csrf_token": mweb.csrf(), "seen_status": "approved",
        "back": "/manage/time-off?status=cancellation"})
    assert full.status_code == 303
    assert full.headers["Location"] == "/manage/time-off?status=cancellation"
    page = html.unescape(mweb.client.get(full.headers["Location"]).get_data(as_text=True))
    assert "Cancelled Pat Provider's time off (" in page
    assert f'id="request-{first}"' not in page
    partial = mweb.client.post(f"/manage/time-off/{second}/cancel", headers=HX, data={
        "csrf_token": mweb.csrf(), "seen_status": "approved", "back": "/manage/time-off"})
    body = partial.get_data(as_text=True)
    assert partial.status_code == 200
    assert body.strip().startswith(f'<li id="request-{second}"')
    assert "Cancelled" in body
    assert "hx-swap-oob" in body


def test_keep_it_tells_the_provider_why(mweb, arrange):
    request_id = _asks_to_cancel(arrange, datetime(2027, 6, 18, 4, 0, tzinfo=UTC))
    mweb.sign_in("manager@example.com")
    answer = mweb.client.post(f"/manage/time-off/{request_id}/keep", headers=HX, data={
        "csrf_token": mweb.csrf(), "seen_status": "approved", "back": "/manage/time-off",
        "reason": "  Cover is already booked  "})
    body = html.unescape(answer.get_data(as_text=True))
    assert answer.status_code == 200
    assert "Kept Pat Provider's time off" in body
    assert "Kept after a request to cancel: Cover is already booked" in body
    again = mweb.client.post(f"/manage/time-off/{request_id}/keep", data={
        "csrf_token": mweb.csrf(), "seen_status": "approved", "back": "/manage/time-off"})
    assert again.status_code == 409
    assert "nobody is waiting for a decision on cancelling it now" in html.unescape(
        again.get_data(as_text=True))
    mweb.sign_in("provider@example.com")
    page = html.unescape(mweb.client.get(f"/time-off/{request_id}").get_data(as_text=True))
    assert "Your manager kept this leave: Cover is already booked" in page


def test_reversed_filter_dates_are_inline_with_the_filters_kept(mweb):
    mweb.sign_in("manager@example.com")
    for headers in ({}, {**HX, "HX-Boosted": "true"}):  # the boosted filter form: whole page
        answer = mweb.client.get(
            "/manage/time-off?status=any&start=2026-06-10&end=2026-06-01", headers=headers)
        body = html.unescape(answer.get_data(as_text=True))
        assert answer.status_code == 422
        assert "The To date can't be before the From date." in body
        assert "endDate" not in body
    full = html.unescape(mweb.client.get(
        "/manage/time-off?status=any&start=2026-06-10&end=2026-06-01").get_data(as_text=True))
    assert "<title>Error:" in full
    assert 'id="end-error"' in full
    assert 'value="2026-06-10"' in full
    assert 'value="2026-06-01"' in full
    assert '<option selected value="any">' in full


def test_stale_page_link_falls_back_to_the_first_page(mweb):
    mweb.sign_in("manager@example.com")
    answer = mweb.client.get("/manage/time-off?status=any&cursor=not-a-real-cursor")
    assert answer.status_code == 200
    assert "Time-off queue" in answer.get_data(as_text=True)


def test_filters_fold_away_and_show_chips_that_each_remove_one(mweb):
    mweb.sign_in("manager@example.com")
    body = html.unescape(mweb.client.get(
        "/manage/time-off?status=any&start=2026-06-01&end=2026-06-30").get_data(as_text=True))
    assert '<details class="folded-filters">' in body  # folded: the requests come first
    assert "<summary>" in body
    assert "3 on" in body
    chips = body[body.index('aria-label="Active filters"'):]
    chips = chips[:chips.index("</ul>")]
    assert "Status: Any status" in chips
    assert 'href="/manage/time-off?start=2026-06-01&end=2026-06-30&status="' in chips
    assert 'href="/manage/time-off?status=any&end=2026-06-30&start="' in chips
    assert 'href="/manage/time-off?status=any&start=2026-06-01&end="' in chips
    assert "Clear all" in chips
    assert "endDate" not in body


def test_filters_open_when_they_need_fixing_and_the_default_is_no_chip(mweb):
    mweb.sign_in("manager@example.com")
    bad = mweb.client.get("/manage/time-off?start=2026-06-10&end=2026-06-01")
    assert bad.status_code == 422
    assert '<details class="folded-filters" open>' in bad.get_data(as_text=True)
    plain = mweb.client.get("/manage/time-off?status=pending").get_data(as_text=True)
    assert 'aria-label="Active filters"' not in plain  # pending is what the queue shows anyway


def test_cards_say_how_long_each_request_waited_and_how_soon_it_starts(mweb, arrange):
    zone = ZoneInfo("America/New_York")
    today = datetime.now(UTC).astimezone(zone).date()
    soon = datetime.combine(today + timedelta(days=5), time(), tzinfo=zone).astimezone(UTC)

    def two(s, w):
        fresh = add_request(s, w, start=soon, note="Soon")
        old = add_request(s, w, start=soon + timedelta(days=3), note="Asked long ago")
        s.get(m.TimeOffRequest, old).created_at = datetime.now(UTC) - timedelta(days=3)
        return fresh, old

    fresh, old = arrange(two)
    mweb.sign_in("manager@example.com")
    body = mweb.client.get("/manage/time-off").get_data(as_text=True)
    assert body.count(" data-record>") >= 2
    card = body[body.index(f'id="request-{fresh}"'):]
    card = card[:card.index("</li>")]
    assert "Waiting since today · Starts in 5 days" in card
    card = body[body.index(f'id="request-{old}"'):]
    card = card[:card.index("</li>")]
    assert "Waiting 3 days · Starts in 8 days" in card


def test_approve_and_decline_sit_side_by_side_with_the_reason_under_both(mweb, arrange):
    request_id = arrange(lambda s, w: add_request(s, w, start=DAY))
    mweb.sign_in("manager@example.com")
    body = _opened(mweb, request_id, **HX).get_data(as_text=True)
    buttons = body.index('class="mgr-decision-buttons"')
    approve = body.index(f'form="approve-{request_id}">Approve</button>')
    decline = body.index(f'form="decline-{request_id}" class="secondary"')
    reason = body.index(f'id="reason-{request_id}"')
    assert buttons < approve < decline < reason
    assert re.search(rf'<textarea[^>]*form="decline-{request_id}"', body)  # the decline's
    assert "Reason for declining" in body


def test_the_request_shows_the_coverage_approving_it_would_leave(mweb, arrange):
    """The seeded forecast wants 4 nurses 7 AM-7 PM on 2 March 2026; Pat is one of the four
    scheduled (each with a break 1:00-1:30 PM). Pat's day off leaves three."""
    midnight = datetime(2026, 3, 2, 5, 0, tzinfo=UTC)
    request_id = arrange(lambda s, w: add_request(s, w, start=midnight))
    mweb.sign_in("manager@example.com")
    body = html.unescape(_opened(mweb, request_id).get_data(as_text=True))
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))
    assert "Coverage if you approve" in text
    assert "7:00 AM \u2013 1:00 PM: 1 short (was covered)" in text
    assert "1:00 PM \u2013 2:00 PM: 2.5 short (was 2 short)" in text
    assert "2:00 PM \u2013 7:00 PM: 1 short (was covered)" in text
    assert "In all 13.5 staff-hours short of the forecast over these shifts, against 2 now." \
        in text
    assert "deleted; nobody is asked to cover. Leaves 11.5 staff-hours short of the forecast." \
        in text
    assert "Leaves 11.5 staff-hours short of the forecast until someone claims the open " \
           "shifts." in text
    # Nothing was approved by looking.
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        assert session.get(m.TimeOffRequest, request_id).status == "pending"
