"""Talking to a phpBB board as a browser would: one requests.Session with a constant User-Agent, polite
pacing, retries with backoff and jitter, sign-in through the login form, the session's cookies kept (by a
`keep` callback: the store) across restarts and renewed when the board answers with a login box.

A failed session is silent on phpBB (200 with a login box or guest pages), so every page asked for with
`login=True` is checked for the logout link and, when it is missing, the bot signs in and asks again once.

So is a disabled board (200 "currently unavailable"): that page is a failure here, as a 5xx is. A sign-in
refused for a reason another try cannot fix (a wrong password, a ban, the CAPTCHA phpBB wants after
`max_login_attempts` failures) is not tried again until the bot restarts: each try would count as one more
failure. Every answer is read within `timeout` seconds as a whole (not per read) and up to `max_bytes`;
redirects are followed only on the board's own host, and forms are sent only there.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from bs4 import BeautifulSoup

from forumbot.errors import PlatformError
from forumbot.platforms import phpbb_html as html
from forumbot.platforms.exchange import Exchanges

log = logging.getLogger("forumbot.phpbb")
USER_AGENT = "Mozilla/5.0 (compatible; forumbot/0.1; play-by-post game master)"
FORM_INVALID = "The submitted form was invalid"
MAX_HOPS = 5
MAX_BYTES = 16 * 1024 * 1024          # an answer larger than this is refused (a topic page of 10 long posts: ~2 MB)
DISABLED = "this board is currently unavailable"            # phpBB's BOARD_UNAVAILABLE (English)
ATTEMPTS = "maximum allowed number of login attempts"


class SessionLost(PlatformError):
    """A form came back as a login box: the session ended between loading the form and sending it."""

    def __init__(self, what: str) -> None:
        super().__init__(f"phpBB ended the bot's session while {what}", retryable=True)


@dataclass
class Page:
    status: int
    soup: BeautifulSoup
    location: str = ""
    url: str = ""


class PhpbbSession(Exchanges):
    """HTTP to one board. `keep(text)` saves the session's cookies (JSON), `kept` is what was saved before."""

    site = "phpBB"

    def __init__(self, base_url: str, account: str, password: Callable[[], str], *, user_agent: str = USER_AGENT,
                 min_interval: float = 1.0, form_wait: float = 1.1, timeout: float = 30.0, retries: int = 3,
                 backoff: float = 2.0, sleep: Callable[[float], None] | None = None,
                 rng: random.Random | None = None, guest: bool = False, max_bytes: int = MAX_BYTES) -> None:
        self.guest = guest                                # read as a guest: never sign in
        self.base = base_url.rstrip("/") + "/"
        self.account = account
        self._password = password
        self.http = requests.Session()
        self.http.headers["User-Agent"] = user_agent      # phpBB's browser_check: never change it mid-session
        super().__init__(timeout=timeout, max_bytes=max_bytes, min_interval=min_interval, sleep=sleep)
        self.form_wait, self.retries, self.backoff = form_wait, retries, backoff
        self.refused: str | None = None                   # why signing in cannot work until a restart
        self.rng = rng or random.Random()
        self.keep: Callable[[str], None] = lambda _text: None
        self.unread_pms: int | None = None                # the header badge of the last page read

    # ---- cookies kept across restarts ----------------------------------------------------------
    def restore(self, kept: str | None) -> None:
        if not kept:
            return
        try:
            cookies = json.loads(kept)
        except ValueError:
            return
        host = urlsplit(self.base).hostname or ""
        for item in cookies if isinstance(cookies, list) else []:
            name, value, domain, path = (list(item) + ["", "/"])[:4]
            self.http.cookies.set(name, value, domain=domain or host, path=path or "/")

    def _save(self) -> None:
        """The cookies as [name, value, domain, path]: restored exactly as the jar held them (a host-only
        cookie of `localhost` is kept under `localhost.local`, and must come back there)."""
        self.keep(json.dumps(sorted([c.name, c.value, c.domain, c.path] for c in self.http.cookies)))

    # ---- requests ------------------------------------------------------------------------------
    def url(self, path: str) -> str:
        return urljoin(self.base, path.removeprefix("/").removeprefix("./"))

    def request(self, method: str, path: str, data: list[tuple[str, str]] | None = None, *, what: str) -> Page:
        """One exchange. GETs are retried with backoff and jitter on timeouts, dropped connections, 5xx and
        truncated pages; a POST is not (it may have gone through): it fails retryable and the caller's
        exactly-once machinery (markers, find_sent) decides."""
        attempts = self.retries if method == "GET" else 1
        for attempt in range(1, attempts + 1):
            try:
                page = self._once(method, path, data, what)
                for _ in range(MAX_HOPS):         # a GET follows redirects (http → https) on the board's host
                    if method != "GET" or page.status not in (301, 302, 303, 307, 308) or not page.location:
                        break
                    page = self._once("GET", self._on_site(urljoin(page.url, page.location), what), None, what)
                return page
            except PlatformError as err:
                if not err.retryable or attempt == attempts:
                    raise
                delay = self.backoff * 2 ** (attempt - 1) * self.rng.uniform(0.5, 1.0)
                log.info("%s failed (%s); trying again in %.1fs", what, err, delay)
                self.sleep(delay)
        raise AssertionError("unreachable")

    def _once(self, method: str, path: str, data: list[tuple[str, str]] | None, what: str) -> Page:
        self._check_stopping()
        self._pace()
        url = self.url(path)
        self.requests += 1
        started = time.monotonic()
        try:
            response = self._headers(lambda: self.http.request(method, url, data=data, timeout=self.timeout,
                                                               allow_redirects=False, stream=True), started, what)
            body = self._body(response, started, what)
        except requests.Timeout:
            raise self._late(what) from None
        except requests.RequestException as err:
            raise PlatformError(f"cannot reach the phpBB board while {what}: {err}", retryable=True) from None
        if response.status_code >= 500 and response.status_code != 503:
            raise PlatformError(f"phpBB answered {response.status_code} while {what}", retryable=True)
        if response.status_code == 429:
            after = response.headers.get("Retry-After")
            raise PlatformError(f"the board rate-limits the bot (429) while {what}"
                                + (f"; try again in {after}s" if after else ""), retryable=True)
        if response.status_code in (401, 403):
            raise PlatformError(f"the board refused access ({response.status_code}) while {what}: its firewall may "
                                "block the bot's address or User-Agent; ask the board's admins")
        text = body.decode(response.encoding or "utf-8", errors="replace")
        if not response.is_redirect and "</html>" not in text[-4096:].lower():
            raise PlatformError(f"phpBB sent a truncated page while {what}", retryable=True)
        soup = html.parse(text) if text else html.parse("<html></html>")
        if response.status_code == 503 and soup.select_one("body#errorpage") is None:
            raise PlatformError(f"phpBB answered 503 while {what}", retryable=True)
        badge = html.unread_pm_count(soup)
        if badge is not None:
            self.unread_pms = badge
        said = html.info_message(soup)
        if said and DISABLED in said.lower():
            raise PlatformError(f"the phpBB board is disabled ('{said}') while {what}: the bot waits for it, and no "
                                "deadline fires until the board is back and read", retryable=True)
        if response.cookies:
            self._save()
        return Page(response.status_code, soup, response.headers.get("Location", ""), url)

    def get(self, path: str, *, what: str, login: bool = True) -> Page:
        """A page as the bot sees it: signs in first when the board answers as to a guest."""
        page = self.request("GET", path, what=what)
        if login and not self.guest and not html.logged_in(page.soup) and page.status != 404 and page.status != 503:
            log.info("phpBB answered %s as to a guest (%s); signing in", what,
                     html.login_reason(page.soup) or "no logout link")
            self.login()
            page = self.request("GET", path, what=what)
            if not html.logged_in(page.soup) and page.status not in (404, 503):
                raise PlatformError(f"phpBB still treats the bot as a guest after signing in ({what}): check that "
                                    f"cookies reach the board and that the account {self.account} is not banned")
        return page

    # ---- forms ---------------------------------------------------------------------------------
    def submit(self, page: Page, form_id: str, values: dict[str, str], *, what: str,
               submit: str = "post", waited: float | None = None) -> Page:
        """Send a form of `page` with `values` filled in, a second or more after it was served (phpBB refuses
        younger forms); a form refused as invalid is sent again once from the fresh form that comes back."""
        for attempt in range(2):
            form = page.soup.select_one(f"form#{form_id}")
            if form is None:
                raise PlatformError(f"phpBB sent no {form_id} form while {what}", retryable=True)
            fields = [(k, v) for k, v in html.form_fields(form, submit) if k not in values]
            data = fields + list(values.items())
            if "post" not in dict(data) and submit == "post":
                data.append(("post", "Submit"))
            # phpBB refuses a form younger than a second; a refused form is sent again a full second later
            self.sleep(max(self.form_wait, 1.1) if attempt else
                       self.form_wait if waited is None else max(0.0, self.form_wait - waited))
            action = self._on_site(urljoin(page.url or self.base, str(form.get("action") or page.url)), what)
            answer = self.request("POST", action, data, what=what)
            if form_id != "login" and html.login_box(answer.soup):
                raise SessionLost(what)            # phpBB dropped the session: nothing was posted
            if attempt == 0 and any(FORM_INVALID in e for e in html.form_errors(answer.soup)):
                log.info("phpBB refused the form as invalid while %s; sending it again", what)
                page = answer
                continue
            return answer
        return answer

    def login(self) -> None:
        """Sign in through the login form. Raises a final PlatformError for a refused account, and again without
        asking the board until the bot restarts (`refused`)."""
        if self.refused:
            raise PlatformError(self.refused)
        page = self.request("GET", "ucp.php?mode=login", what="opening the login form")
        if html.logged_in(page.soup):
            return
        if page.soup.select_one("form#login") is None:
            said = html.info_message(page.soup)
            if said and "banned" in said.lower():
                raise self._refuse(f"phpBB: the account {self.account} is banned: {said}")
            raise PlatformError(f"phpBB sent no login form ({said or 'is the board URL right?'})")
        if _captcha(page.soup):
            raise self._refuse(self._captcha_text())
        answer = self.submit(page, "login", {"username": self.account, "password": self._password(),
                                             "autologin": "on"}, what="signing in", submit="login")
        if answer.status == 302 or html.logged_in(answer.soup):
            self._save()
            log.info("signed in to phpBB as %s", self.account)
            return
        errors = " ".join(html.form_errors(answer.soup)) or html.info_message(answer.soup) or "no reason given"
        if _captcha(answer.soup) or ATTEMPTS in errors:
            raise self._refuse(self._captcha_text())
        if re.search(r"banned", errors, re.I):
            raise self._refuse(f"phpBB: the account {self.account} is banned: {errors}")
        if re.search(r"incorrect (password|username)", errors, re.I):
            raise self._refuse(f"phpBB refused the sign-in of {self.account}: {errors} (check the password in the "
                               "environment variable or password file the config names, then restart the bot; it "
                               "does not try again by itself: after max_login_attempts failures phpBB wants a "
                               "CAPTCHA)")
        raise PlatformError(f"phpBB refused the sign-in of {self.account}: {errors}", retryable=True)

    def _refuse(self, why: str) -> PlatformError:
        self.refused = why
        log.error("%s", why)
        return PlatformError(why)

    def _captcha_text(self) -> str:
        return (f"phpBB wants a CAPTCHA to sign in {self.account}: too many failed sign-ins (max_login_attempts). A "
                f"board admin must reset them (ACP > Users > {self.account}: or in the database, "
                "user_login_attempts = 0 and the account's phpbb_login_attempts rows deleted), or someone signs in "
                f"once as {self.account} in a browser; then restart the bot (it does not try again by itself)")

    def forget(self) -> None:
        self.http.cookies.clear()
        self._save()

    @staticmethod
    def query_of(location: str) -> dict[str, Any]:
        return html.query(location)


def _captcha(soup: BeautifulSoup) -> bool:
    return soup.select_one('form#login input[name*="confirm"], form#login .captcha') is not None
