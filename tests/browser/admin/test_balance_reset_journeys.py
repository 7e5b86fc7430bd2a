"""The administrator's balance reset upload in the browser, JavaScript on and off: a file with a
bad row is refused with a table of what is wrong (the bar fills while the file is sent, with
JavaScript), the fixed file goes through and its page names each person and policy; nothing is
stored before."""

from __future__ import annotations

import itertools
import uuid
from datetime import date

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.api import models as m
from tests.browser.conftest import Site
from tests.browser.provider.conftest import account, arrange
from tests.factories import uid

# Through the sign-in form every time: an administrator kept signed in by another journey of
# this worker may have signed out since, which ends that session's tokens.
pytestmark = [pytest.mark.xdist_group("browser-admin"), pytest.mark.real_sign_in]
_COUNTER = itertools.count(1)
# Before htmx swaps the answer in: what the form's progress bar showed.
WATCH_PROGRESS = """() => document.addEventListener("htmx:beforeSwap", () => {
  const bar = document.querySelector("progress[data-upload-progress]");
  window.uploadProgress = bar ? [bar.hidden, bar.value] : null;
}, {once: true})"""


def _balance_policy(site: Site, email: str) -> tuple[str, str]:
    """A new days policy keeping a balance, `email` its member; returns (id, name)."""
    name = f"Study leave {next(_COUNTER)}-{uuid.uuid4().hex[:4]}"
    policy_id = uuid.uuid4()

    def make(session: Session) -> None:
        policy = m.TimeOffPolicy(id=policy_id, type="paid-time-off", name=name,
                                 description=None, accrual_unit="days")
        policy.members = [session.get(m.Provider, uid(f"user:{email}"))]
        session.add(policy)
        session.flush()
        session.add(m.TimeOffAccrualSettings(policy_id=policy_id, method="per_period",
                                             rate="1", start_date=date(2026, 1, 1),
                                             period="monthly"))

    arrange(site, make)
    return str(policy_id), name


def _uploads(site: Site) -> int:
    return arrange(site, lambda s: s.scalar(select(func.count()).select_from(
        m.TimeOffBalanceUpload)))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_admin_fixes_a_refused_file_and_sees_what_it_set(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("the embedded server is enough")
    browse = tab if javascript else no_js_tab
    email = account(site, "Reset Member")
    policy_id, policy = _balance_policy(site, email)
    person = uid(f"user:{email}")
    header = "providerId,policyId,balance,effectiveDate\n"
    bad = f"{header}{person},{policy_id},-3,2026-02-01\n{person},{policy_id},2,2026-02-31\n"
    good = f"{header}{person},{policy_id},3.5,2026-02-01\n"
    stored = _uploads(site)
    browse.sign_in("admin@example.com", start="/")
    page = browse.page
    browse.follow_menu("Balance resets")
    expect(page.get_by_role("heading", name="Balance resets", level=1)).to_be_visible()
    expect(page.get_by_role("table").first).to_contain_text(policy)

    upload = page.get_by_label("CSV file")
    upload.set_input_files({"name": "study.csv", "mimeType": "text/csv",
                            "buffer": bad.encode()})
    if javascript:
        page.evaluate(WATCH_PROGRESS)
    browse.click(page.get_by_role("button", name="Upload and set balances"))

    refusal = page.get_by_role("table", name="Rows to fix")
    expect(refusal).to_contain_text("Negative where the policy does not allow it")
    expect(refusal).to_contain_text("effectiveDate")
    expect(page.get_by_role("alert")).to_contain_text("2 of 2 rows cannot be used")
    assert _uploads(site) == stored
    if javascript:  # the bar showed and filled while the file was sent
        assert page.evaluate("window.uploadProgress") == [False, 100]
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.set_viewport_size({"width": 1280, "height": 900})

    page.get_by_label("CSV file").set_input_files({"name": "study-fixed.csv",
                                                   "mimeType": "text/csv",
                                                   "buffer": good.encode()})
    browse.click(page.get_by_role("button", name="Upload and set balances"))

    expect(page.get_by_role("heading", level=1)).to_have_text("Balance reset: study-fixed.csv")
    expect(page.get_by_role("status")).to_contain_text("Balances set from “study-fixed.csv”")
    rows = page.get_by_role("table")
    expect(rows).to_contain_text("Reset Member")
    expect(rows).to_contain_text(policy)
    expect(rows).to_contain_text("3.5 days")
    expect(rows).to_contain_text("+3.5 days")
    assert _uploads(site) == stored + 1
    browse.click(page.get_by_role("link", name="Back to balance resets"))
    expect(page.get_by_role("region", name="Past uploads")).to_contain_text("study-fixed.csv")
