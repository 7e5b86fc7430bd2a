"""Every page, as every role, at every width: a crawler over the staff UI.

On the demo organisation (the data people first see), each demo account signs in and follows
every same-origin link in the navigation and on each page it reaches, two clicks deep from the
home page, GET only. Addresses are deduplicated by kind (ids, dates, numbers and tokens in the
path and query count as one), so one appointment stands for all. Each page is opened once and
checked at 1280 px, then the window narrows to 390 px and the same page is checked again (the
markup does not depend on the width, so the crawl finds the same pages at both; only the CSS
does, and it applies as the window narrows). Every page must answer below 400, promise no page
that does not exist, log no console error and pass axe-core with the best-practice rules at
1280 px. At 390 px it must fit the screen without scrolling sideways and pass the axe-core rules
whose outcome depends on the layout (`NARROW_RULES`), and two more checks hold (issue 25,
docs/style.md "Touch and focus"):
- every touch target is at least 44x44 px: buttons, `[role=button]`, form controls (inputs but
  hidden ones, selects, text areas, summaries; a checkbox or radio by its label) and links but
  those inside running text (`TARGETS` below says which), when visible on the page;
- on a list page (one with `[data-record]` elements: table rows, cards, agenda items) the first
  record starts within the first 844 px, so on a phone what the person came for comes first (a
  form the address opened above the list, its heading focused, counts as that first thing).
A link that answers 404 while the page it was read on no longer shows it is no finding: another
journey on the same demo site deleted its record meanwhile (a label, say); it is listed apart.
One test per account, so the crawls spread over the test workers. All problems of an account
are collected and reported together, each with its page, account and width; the number of pages
visited is printed and written to test-artifacts/every-page-<account>.txt.
"""

from __future__ import annotations

import html
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.browser.conftest import AXE_ALL_TAGS, AXE_SCRIPT, AxeResults, Browse
from tests.page_kinds import kind

ACCOUNTS = ["admin", "manager", "scheduler", "provider"]
# A plain (not mobile-emulated) 390 px viewport: mobile emulation zooms out to fit a page that
# is too wide, which would hide the overflow this test looks for.
WIDTHS = {1280: {"width": 1280, "height": 900}, 390: {"width": 390, "height": 844}}
DEPTH = 2
# Sign-in starts a new OIDC flow; it is not a page of the signed-in UI.
SKIPPED_PREFIXES = ("/signin", "/auth/")
# Addresses answered with a file rather than a page: checked for their status only.
FILE_SUFFIXES = (".ics", ".csv", ".json", ".css", ".js", ".svg", ".png")
# Words that promise pages or features the product does not have.
PROMISES = re.compile(
    r"on (?:its|their) way|coming soon|not (?:built|available|ready) yet|under construction"
    r"|(?:a|in a|with a) later (?:issue|release|version|update)|will (?:soon )?be (?:added|built)"
    r"|stands in for|add the missing punch",
    re.IGNORECASE)
LINKS = """() => Array.from(document.querySelectorAll("a[href]"), a => a.href)"""
WIDTH = "() => [document.documentElement.scrollWidth, window.innerWidth]"
NEXT_FRAME = "() => new Promise(done => requestAnimationFrame(() => done()))"
# The axe-core rules run again at 390 px: those whose outcome depends on the layout (sizes and
# spacing of targets, colours under media queries, regions that scroll) or on which elements a
# narrow screen shows (the phone menu's disclosure and the names of what it reveals).
NARROW_RULES = ["target-size", "color-contrast", "scrollable-region-focusable", "region",
                "button-name", "link-name", "summary-name", "nested-interactive",
                "aria-hidden-focus"]
TOUCH = 44  # px, WCAG 2.5.5 (AAA) as our rule for phones
SCREEN = 844  # px, the height of the phone the list check holds on
# Every touch target smaller than TOUCH x TOUCH, as [description, width, height]. Every link is
# a target except one inside running text: its paragraph, item, cell, caption or label has
# words of its own besides its links and buttons (WCAG 2.5.8 exempts such inline targets). So
# links styled as buttons, menu links, row actions in table cells, groups of actions and a
# link alone on its line ("Back to your requests") all count. Hidden elements,
# screen-reader-only ones (1 px) and the skip link while off screen are no targets. A checkbox
# or radio counts by its label when it has one.
TARGETS = r"""(touch) => {
  const controls = "button, [role=button], input:not([type=hidden]), select, textarea, summary";
  const blocks = "p, li, dd, dt, td, th, small, label, figcaption, blockquote, caption, legend";
  const visible = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return el.getClientRects().length > 0 && style.visibility !== "hidden"
      && box.width > 1 && box.height > 1 && box.bottom + window.scrollY > 0
      && box.right + window.scrollX > 0;
  };
  const letters = (el) => (el.innerText || "").replace(/[^\p{L}\p{N}]/gu, "").length;
  // Running text: the link's block has words besides its links and buttons (a row of links
  // with separators is a group of actions, not a sentence).
  const inRunningText = (a) => {
    const block = a.parentElement && a.parentElement.closest(blocks);
    if (!block) return false;
    const actions = [...block.querySelectorAll("a, button")].reduce((n, el) => n + letters(el), 0);
    return letters(block) > actions;
  };
  const describe = (el) => {
    let text = (el.getAttribute("aria-label") || el.innerText || el.value || el.name
      || el.getAttribute("type") || "").replace(/\s+/g, " ").trim();
    if (text.length > 40) text = text.slice(0, 39) + "\u2026";
    const id = el.id ? "#" + el.id : "";
    const cls = !id && el.classList.length ? "." + [...el.classList].join(".") : "";
    return `${el.tagName.toLowerCase()}${id}${cls} \u201c${text}\u201d`;
  };
  const found = [];
  const seen = new Set();
  const check = (el, box) => {
    if (seen.has(el)) return;
    seen.add(el);
    const w = Math.round(box.width), h = Math.round(box.height);
    if (w < touch || h < touch) found.push([describe(el), w, h]);
  };
  for (const el of document.querySelectorAll(controls)) {
    if (!visible(el)) continue;
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (el.tagName === "INPUT" && (type === "checkbox" || type === "radio")) {
      const label = el.closest("label") || (el.id && document.querySelector(
        `label[for="${CSS.escape(el.id)}"]`));
      const target = label && visible(label) ? label : el;
      check(el, target.getBoundingClientRect());
      continue;
    }
    check(el, el.getBoundingClientRect());
  }
  for (const a of document.querySelectorAll("a[href]")) {
    if (!visible(a) || inRunningText(a)) continue;
    check(a, a.getBoundingClientRect());
  }
  return found;
}"""
# The first record of a list page: null when the page has none, else [visible, top]. A form
# the address opened above the list (its heading takes the focus: `autofocus`), such as the new
# shift form over the team schedule, is what the person came for: it stands for the first record.
FIRST_RECORD = """() => {
  window.scrollTo(0, 0);
  const record = document.querySelector("[data-record]");
  if (!record) return null;
  const opened = document.querySelector("main [autofocus]");
  const first = opened && (opened.compareDocumentPosition(record)
                           & Node.DOCUMENT_POSITION_FOLLOWING) ? opened : record;
  const box = first.getBoundingClientRect();
  return [first.getClientRects().length > 0 && box.height > 0, Math.round(box.top + scrollY)];
}"""


@dataclass
class Crawl:
    """What one account saw, at both widths."""

    account: str
    visited: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)
    """Links that answered 404 because their page no longer links to them: the record was
    deleted after the crawler read the link (another journey runs on the same demo site)."""

    def problem(self, path: str, width: int, text: str) -> None:
        self.problems.append(f"{path} [{self.account}, {width}px]: {text}")


def _axe(page: Any, crawl: Crawl, path: str, width: int, run_only: dict[str, Any]) -> None:
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    results = AxeResults(page.evaluate("options => window.axe.run(document, options)",
                                       {"runOnly": run_only, "resultTypes": ["violations"]}))
    for violation in results.response["violations"]:
        targets = ", ".join(" ".join(node["target"]) for node in violation["nodes"][:3])
        crawl.problem(path, width, f"axe {violation['id']}: {violation['help']} ({targets})")


def _check_text(page: Any, crawl: Crawl, path: str, width: int) -> None:
    text = page.evaluate("document.body.innerText")
    for match in {m.group(0) for m in PROMISES.finditer(text)}:
        crawl.problem(path, width, f"promises what does not exist: “{match}”")


def _check_page(browse: Browse, crawl: Crawl, path: str) -> None:
    """The checks every page must pass at each width, recorded against `path`: first at 1280
    px, then with the window narrowed to 390 px (and widened again for the next page)."""
    page = browse.page
    _check_text(page, crawl, path, 1280)
    _axe(page, crawl, path, 1280, {"type": "tag", "values": AXE_ALL_TAGS})
    page.set_viewport_size(WIDTHS[390])
    try:
        page.evaluate(NEXT_FRAME)  # the narrow layout is in place
        _check_text(page, crawl, path, 390)  # what the phone hides is not read out here
        scroll, inner = page.evaluate(WIDTH)
        if scroll > min(inner, 390):
            crawl.problem(path, 390, f"{scroll}px wide on a 390px screen")
        for what, width, height in page.evaluate(TARGETS, TOUCH):
            crawl.problem(path, 390, f"touch target {what} is {width}x{height}px, under "
                                     f"{TOUCH}x{TOUCH}")
        record = page.evaluate(FIRST_RECORD)
        if record is not None and not (record[0] and record[1] < SCREEN):
            where = f"starts at {record[1]}px" if record[0] else "is hidden"
            crawl.problem(path, 390, f"the first record {where}, not within the first {SCREEN}px")
        _axe(page, crawl, path, 390, {"type": "rule", "values": NARROW_RULES})
    finally:
        page.set_viewport_size(WIDTHS[1280])


def _withdrawn(browse: Browse, source: str, url: str) -> bool:
    """Whether `source` no longer links to `url` (read again now)."""
    answer = browse.context.request.get(source, max_redirects=5)
    target = urlsplit(url)
    for href in re.findall(r'href="([^"]+)"', answer.text()):
        link = urlsplit(html.unescape(href))
        if (link.path, link.query) == (target.path, target.query):
            return False
    return True


def _visit(browse: Browse, crawl: Crawl, url: str, source: str | None = None) -> bool:
    """Open `url` (a link read on `source`), check it, and tell whether it is a page whose links
    are worth following. A 404 for a link its page no longer shows is no finding: the record
    was deleted meanwhile (`Crawl.withdrawn`)."""
    site = browse.site
    path = url.removeprefix(site.url) or "/"
    crawl.visited.append(path)
    if urlsplit(url).path.endswith(FILE_SUFFIXES):
        answer = browse.context.request.get(url, max_redirects=5)
        if answer.status >= 400:
            crawl.problem(path, 1280, f"answers {answer.status}")
        return False
    try:
        response = browse.page.goto(url)
        browse.settle()
    except Exception as exc:  # a navigation that never becomes a page is a finding too
        crawl.problem(path, 1280, f"does not open: {exc}")
        return False
    if response is not None and response.status == 404 and source is not None \
            and _withdrawn(browse, source, url):
        crawl.withdrawn.append(path)
        browse.problems.clear()  # the 404's console message
        return False
    if response is not None and response.status >= 400:
        crawl.problem(path, 1280, f"answers {response.status}")
    landed = browse.path()
    if landed.startswith(SKIPPED_PREFIXES):
        crawl.problem(path, 1280, f"sends a signed-in user to {landed}")
        return False
    _check_page(browse, crawl, path)
    for message in browse.problems:
        crawl.problem(path, 1280, message)
    browse.problems.clear()
    return response is not None and response.status < 400


def _links(browse: Browse) -> list[str]:
    """The page's same-origin link targets, without fragments."""
    origin = urlsplit(browse.site.url)
    found = []
    for href in browse.page.evaluate(LINKS):
        parts = urlsplit(href)
        if (parts.scheme, parts.netloc) != (origin.scheme, origin.netloc):
            continue
        if parts.path.startswith(SKIPPED_PREFIXES):
            continue
        found.append(urlunsplit(parts._replace(fragment="")))
    return found


def crawl_as(site: Any, browser: Any, account: str) -> Crawl:
    """Sign in as `account` and visit every kind of page two clicks deep, checking each at
    both widths."""
    crawl = Crawl(account)
    context = browser.new_context(viewport=WIDTHS[1280])
    # axe-core arrives with each page rather than being evaluated into it afterwards.
    context.add_init_script(AXE_SCRIPT)
    try:
        browse = Browse(site, context)
        browse.sign_in(f"{account}@example.com")
        browse.problems.clear()
        home = site.url + "/"
        seen = {kind(home)}
        queue: deque[tuple[str, int, str | None]] = deque([(home, 0, None)])
        while queue:
            url, depth, source = queue.popleft()
            if not _visit(browse, crawl, url, source) or depth >= DEPTH:
                continue
            for link in _links(browse):
                if kind(link) not in seen:
                    seen.add(kind(link))
                    queue.append((link, depth + 1, url))
    finally:
        context.close()
    return crawl


# One crawl of some twenty pages with axe on every page: longer than one journey. Each account
# is a group of its own, so the four crawls spread over the workers.
@pytest.mark.timeout(600)
@pytest.mark.parametrize("account", [
    pytest.param(account, marks=pytest.mark.xdist_group(f"every-page-{account}"))
    for account in ACCOUNTS])
def test_every_page_works_for_every_account_at_every_width(demo_site, browser, artifacts,
                                                           account):
    started = time.monotonic()
    crawl = crawl_as(demo_site, browser, account)
    lines = [f"{account} at 1280px and 390px: {len(crawl.visited)} pages in "
             f"{time.monotonic() - started:.0f}s", "", *crawl.visited,
             *([""] + [f"withdrawn meanwhile: {path}" for path in crawl.withdrawn]
               if crawl.withdrawn else [])]
    (artifacts / f"every-page-{account}.txt").write_text("\n".join(lines) + "\n")
    print(lines[0])
    assert not crawl.problems, (f"{len(crawl.problems)} problems:\n" + "\n".join(crawl.problems)
                                + "\n" + lines[0])
