#!/usr/bin/env python3
"""The web admin's journey in a real browser (headless Chromium + selenium).

Drives the pages of docs/web.md by their exact URLs, field names and button
labels, as a person would: sign in, create a monitor, see it go down,
acknowledge the incident, add a webhook channel and send a test, disconnect a
connected app, open a public status page.

    python3 Tests/e2e/browser.py --hub http://127.0.0.1:8080 \
        --email admin@example.com --password '…' [--steps login,new_monitor] \
        [--target URL] [--flip-file PATH] [--webhook-url URL] \
        [--status-slug SLUG --status-title TITLE --status-monitor NAME] \
        [--screenshots DIR]

Every step is a function named like the step; each prints `STEP OK: name`.
The first failure prints `STEP FAILED: name: reason`, the URL and the page's
text, and exits 1. `--steps` runs only the named steps (in journey order):
the Swift test (BrowserE2ETests) runs those whose pages exist.

Target flip: the monitor step points a monitor at --target. To make it go
down, the script writes the wanted status ("503") to --flip-file and waits
until the harness (the Swift test, which owns the target) deletes the file.
Without --flip-file, --target should be an address that already fails.

Needs: Debian chromium + chromium-driver, pip install selenium.
"""

import argparse
import os
import re
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

DESKTOP = (1280, 900)
PHONE = (390, 844)
WAIT = 60  # seconds for anything the hub does in the background (checks)

# Journey order. `selftest_failure` is not part of the journey: it opens a
# page that does not exist so the harness can prove a failing step is
# reported with its name and the page's text.
JOURNEY = ["login", "new_monitor", "monitor_down", "acknowledge_incident",
           "notify_webhook", "disconnect_app", "status_page"]


class StepFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise StepFailed(message)


class Journey:
    def __init__(self, args):
        self.args = args
        self.hub = args.hub.rstrip("/")
        self.monitor_id = None
        self.monitor_name = "Browser target"
        self.driver = self._start_browser()

    # ------------------------------------------------------------ browser

    def _start_browser(self):
        options = webdriver.ChromeOptions()
        options.binary_location = self.args.chromium
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to
        # start; the pages are our own, on loopback.
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--no-first-run", "--disable-extensions", "--hide-scrollbars",
                     "--window-size=%d,%d" % DESKTOP, "--lang=en-US"]:
            options.add_argument(flag)
        # An explicit driver path keeps selenium from fetching a driver.
        driver = webdriver.Chrome(options=options, service=Service(executable_path=self.args.chromedriver))
        driver.set_page_load_timeout(30)
        return driver

    def quit(self):
        try:
            self.driver.quit()
        except WebDriverException:
            pass

    def open(self, path):
        self.driver.get(self.hub + path)

    def path(self):
        m = re.match(r"https?://[^/]+(/[^?#]*)", self.driver.current_url)
        return m.group(1) if m else self.driver.current_url

    def text(self):
        try:
            return self.driver.find_element(By.TAG_NAME, "body").text
        except WebDriverException:
            return "(no page text)"

    def field(self, name):
        found = self.driver.find_elements(By.NAME, name)
        check(found, "no field named %r on %s" % (name, self.path()))
        return found[0]

    def fill(self, name, value):
        f = self.field(name)
        f.clear()
        f.send_keys(value)

    def select(self, name, value):
        Select(self.field(name)).select_by_value(value)

    def button(self, label, form_action=None):
        """The submit button with exactly this text (in the form whose action
        matches the regex `form_action`, when given)."""
        forms = self.driver.find_elements(By.CSS_SELECTOR, "form")
        for form in forms:
            action = form.get_attribute("action") or ""
            if form_action and not re.search(form_action, action):
                continue
            for b in form.find_elements(By.CSS_SELECTOR, "button, input[type=submit]"):
                if (b.text or b.get_attribute("value") or "").strip() == label:
                    return b
        raise StepFailed("no button %r%s on %s" % (label, " in a form to " + form_action if form_action else "",
                                                    self.path()))

    def forms_to(self, pattern):
        return [f for f in self.driver.find_elements(By.CSS_SELECTOR, "form")
                if re.search(pattern, f.get_attribute("action") or "")]

    def click(self, element):
        """Clicks a link or submit button and waits (bounded) until the browser
        has left the current page: a click returns before the form's 303 is
        followed, and a redirect back to the same path would otherwise be read
        from the old page."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        element.click()
        deadline = time.time() + 10
        while True:
            try:
                old.tag_name
            except StaleElementReferenceException:
                break   # the old document is gone: the new page is there
            except WebDriverException:
                pass    # mid-navigation the driver may answer other errors: ask again
            if time.time() > deadline:
                raise StepFailed("the page did not change within 10 s of the click (at %s)" % self.driver.current_url)
            time.sleep(0.05)

    def expect_page(self, path_regex, what):
        # click() has waited for the old page to go; the new one may still load.
        deadline = time.time() + 10
        while self.driver.execute_script("return document.readyState") != "complete" and time.time() < deadline:
            time.sleep(0.05)
        check(re.fullmatch(path_regex, self.path()), "%s: expected a page at %s, the browser is at %s"
              % (what, path_regex, self.driver.current_url))
        check(not self.driver.find_elements(By.CSS_SELECTOR, "p.error, .error[role=alert]"),
              "%s: the page shows an error" % what)

    def viewport(self, size, height=None):
        """Sets the page's viewport exactly (a window size would include
        browser chrome); the phone size is emulated as a mobile device so
        the page's meta viewport applies. None goes back to the window."""
        if size is None:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            return
        w, h = size
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": w, "height": height or h, "deviceScaleFactor": 1, "mobile": size == PHONE})

    def screenshot(self, page):
        """Saves the page at both widths (full height, at most 4000 px) as
        <page>-desktop.png and <page>-phone.png."""
        if not self.args.screenshots:
            return
        os.makedirs(self.args.screenshots, exist_ok=True)
        for suffix, size in [("desktop", DESKTOP), ("phone", PHONE)]:
            self.viewport(size)
            height = int(self.driver.execute_script("return document.documentElement.scrollHeight"))
            self.viewport(size, max(size[1], min(height, 4000)))
            self.driver.save_screenshot(os.path.join(self.args.screenshots, "%s-%s.png" % (page, suffix)))
        self.viewport(None)

    # ------------------------------------------------------------ steps

    def login(self):
        self.open("/login?next=/")
        self.screenshot("login")
        self.fill("email", self.args.email)
        self.fill("password", self.args.password)
        self.click(self.button("Sign in"))
        check(not self.path().startswith("/login"), "still on the sign-in page after signing in")
        self.expect_page(r"/", "after sign-in")
        check(self.forms_to(r"/logout$"), "no sign-out form after signing in")
        # The phone width must not need sideways scrolling.
        self.viewport(PHONE)
        wide = self.driver.execute_script("return document.documentElement.scrollWidth")
        self.viewport(None)
        check(int(wide) <= PHONE[0], "the page is %s px wide at phone width" % wide)
        self.screenshot("monitors")

    def new_monitor(self):
        check(self.args.target, "--target is needed for new_monitor")
        self.open("/")
        links = self.driver.find_elements(By.LINK_TEXT, "New monitor")
        check(links, "no \"New monitor\" link on the dashboard")
        self.click(links[0])
        self.expect_page(r"/monitors/new", "New monitor link")
        self.screenshot("monitor-new")
        self.fill("name", self.monitor_name)
        self.select("type", "http")
        self.fill("target", self.args.target)
        self.fill("interval", "10")
        self.fill("timeout", "5")
        self.fill("retries", "0")
        self.click(self.button("Create monitor"))
        self.expect_page(r"/monitors/\d+", "after Create monitor")
        self.monitor_id = self.path().rsplit("/", 1)[1]
        check(self.monitor_name in self.text(), "the monitor page does not name the new monitor")

    def monitor_down(self):
        check(self.monitor_id, "monitor_down needs new_monitor first")
        if self.args.flip_file:
            with open(self.args.flip_file, "w") as f:
                f.write("503\n")
            deadline = time.time() + WAIT
            while os.path.exists(self.args.flip_file):
                check(time.time() < deadline, "the harness did not flip the target (%s still there)" % self.args.flip_file)
                time.sleep(0.1)
        deadline = time.time() + WAIT
        while True:
            self.open("/monitors/%s" % self.monitor_id)
            # The first status badge is the monitor's own (the results table
            # below has one per check).
            badges = self.driver.find_elements(By.CSS_SELECTOR, ".status")
            if badges and "status-down" in (badges[0].get_attribute("class") or "").split():
                break
            check(time.time() < deadline, "the monitor did not show status down within %d s" % WAIT)
            self.click(self.button("Check now"))
            time.sleep(1)
        badge = self.driver.find_elements(By.CSS_SELECTOR, ".status")[0]
        check(badge.text.strip().lower() == "down", "the status badge says %r, not down" % badge.text)
        self.screenshot("monitor")
        self.open("/")
        check(self.driver.find_elements(By.CSS_SELECTOR, "a[href='/monitors/%s']" % self.monitor_id),
              "the dashboard has no link to the monitor")
        self.screenshot("monitors")

    def acknowledge_incident(self):
        self.open("/incidents")
        self.expect_page(r"/incidents", "Incidents")
        forms = self.forms_to(r"/incidents/\d+/acknowledge$")
        check(forms, "no incident to acknowledge")
        action = forms[0].get_attribute("action")
        self.click(self.button("Acknowledge", re.escape(action) + "$"))
        self.expect_page(r"/incidents", "after Acknowledge")
        check(not self.forms_to(re.escape(action) + "$"), "the incident can still be acknowledged")
        check("by " + self.args.email in self.text(), "the page does not say who acknowledged the incident")
        self.screenshot("incidents")

    def notify_webhook(self):
        check(self.args.webhook_url, "--webhook-url is needed for notify_webhook")
        self.open("/notify")
        self.expect_page(r"/notify", "Notify")
        self.fill("name", "Browser webhook")
        self.select("type", "webhook")
        for box in self.driver.find_elements(By.CSS_SELECTOR, "input[type=checkbox][name=events]"):
            if not box.is_selected():
                box.click()
        self.fill("config.url", self.args.webhook_url)
        self.click(self.button("Add channel"))
        self.expect_page(r"/notify", "after Add channel")
        check("Browser webhook" in self.text(), "the new channel is not listed")
        tests = self.forms_to(r"/notify/channels/\d+/test$")
        check(tests, "no Send test form")
        action = tests[-1].get_attribute("action")
        self.click(self.button("Send test", re.escape(action) + "$"))
        self.expect_page(r"/notify", "after Send test")
        self.screenshot("notify")

    def disconnect_app(self):
        self.open("/settings")
        self.expect_page(r"/settings", "Settings")
        self.screenshot("settings")
        before = self.forms_to(r"/settings/connected-apps/\d+/delete$")
        check(before, "no connected app to disconnect")
        action = before[0].get_attribute("action")
        self.click(self.button("Disconnect", re.escape(action) + "$"))
        self.expect_page(r"/settings", "after Disconnect")
        check(not self.forms_to(re.escape(action) + "$"), "the app is still listed as connected")

    def status_page(self):
        check(self.args.status_slug, "--status-slug is needed for status_page")
        self.open("/status/%s" % self.args.status_slug)
        self.expect_page(r"/status/%s" % re.escape(self.args.status_slug), "public status page")
        text = self.text()
        if self.args.status_title:
            check(self.args.status_title in text, "the status page does not show its title")
        if self.args.status_monitor:
            check(self.args.status_monitor in text, "the status page does not list %r" % self.args.status_monitor)
        self.screenshot("status")

    def selftest_failure(self):
        self.open("/no-such-page-for-the-harness")
        check(self.driver.find_elements(By.CSS_SELECTOR, "h1.never-there"), "the page has no h1.never-there (expected)")


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hub", required=True)
    p.add_argument("--email", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--steps", default=",".join(JOURNEY), help="comma-separated steps (default: the whole journey)")
    p.add_argument("--target", help="URL the new monitor checks")
    p.add_argument("--flip-file", help="file the script writes to ask the harness to make the target fail")
    p.add_argument("--webhook-url", help="URL of the webhook channel")
    p.add_argument("--status-slug")
    p.add_argument("--status-title")
    p.add_argument("--status-monitor", help="name of a monitor the status page lists")
    p.add_argument("--screenshots", help="directory for <page>-desktop.png and <page>-phone.png")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = p.parse_args(argv)
    args.steps = [s for s in args.steps.split(",") if s]
    known = JOURNEY + ["selftest_failure"]
    unknown = [s for s in args.steps if s not in known]
    if unknown:
        p.error("unknown steps: %s (known: %s)" % (", ".join(unknown), ", ".join(known)))
    args.steps = [s for s in known if s in args.steps]
    return args


def main(argv):
    args = parse(argv)
    journey = Journey(args)
    try:
        for name in args.steps:
            try:
                getattr(journey, name)()
            except (StepFailed, WebDriverException, AssertionError) as e:
                # WebDriver errors carry a long native stack trace: the message is enough.
                reason = e.msg if isinstance(e, WebDriverException) and e.msg else str(e)
                print("STEP FAILED: %s: %s" % (name, reason.strip() or type(e).__name__))
                print("URL: %s" % journey.driver.current_url)
                print("PAGE TEXT:\n%s" % journey.text())
                return 1
            print("STEP OK: %s" % name, flush=True)
    finally:
        journey.quit()
    print("%d passed, 0 failed" % len(args.steps))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
