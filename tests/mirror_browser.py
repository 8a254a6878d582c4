"""Opens local pages in headless Chromium, the network blocked, and tells
what each page requested and where its links lead.

    mirror_browser.py PAGE...   (paths of files)

Prints one JSON object: for each page as given, "requests" (each URL the
page asked for, with "ok" or the browser's error) and "links" (the href
of each <a>, as the browser resolved it). Chromium is driven by its
DevTools protocol over a pipe (fds 3 and 4), with Python's standard
library only."""
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import time

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Nothing leaves the machine: every proxied request is refused, and
    # no name resolves.
    "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--allow-file-access-from-files",
    "--remote-debugging-pipe",
]


class Browser:
    def __init__(self):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if binary is None:
            sys.exit("chromium is needed (Debian: apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="relink-chromium-")
        to_browser, self.write = os.pipe()
        self.read, from_browser = os.pipe()

        def pipes():
            # Moved above whatever else is open, then to 3 and 4: a pipe
            # may already be one of them.
            up = (os.dup(to_browser), os.dup(from_browser))
            for fd, wanted in zip(up, (3, 4)):
                os.dup2(fd, wanted)
                os.set_inheritable(wanted, True)

        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=pipes,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call(
            "Target.attachToTarget", targetId=page["targetId"], flatten=True
        )["sessionId"]
        self.call("Network.enable", session=True)
        self.call("Page.enable", session=True)

    def message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.read], [], [], left)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.read, 65536)
            if not chunk:
                raise EOFError("chromium ended")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(text)

    def call(self, method, session=False, **params):
        self.next_id += 1
        request = {"id": self.next_id, "method": method, "params": params}
        if session:
            request["sessionId"] = self.session
        os.write(self.write, json.dumps(request).encode() + b"\0")
        deadline = time.monotonic() + 30
        while True:
            message = self.message(deadline)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            self.events.append(message)

    def wait_for(self, method, seconds):
        deadline = time.monotonic() + seconds
        while True:
            for event in self.events:
                if event.get("method") == method:
                    return
            self.events.append(self.message(deadline))

    def open(self, url):
        """The page's requests and links, once it has loaded."""
        self.events = []
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired", 30)
        links = self.call(
            "Runtime.evaluate",
            session=True,
            expression="Array.from(document.querySelectorAll('a[href]'), a => a.href)",
            returnByValue=True,
        )["result"]["value"]
        # What the page asks for after its load event; a meta refresh
        # (the fixture's waits a second) is followed.
        refresh = self.call(
            "Runtime.evaluate",
            session=True,
            expression="!!document.querySelector('meta[http-equiv=refresh i]')",
            returnByValue=True,
        )["result"]["value"]
        self.settle(2.0 if refresh else 0.3)
        return {"requests": self.requests(), "links": links}

    def settle(self, seconds):
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.events.append(self.message(deadline))
            except TimeoutError:
                return

    def requests(self):
        urls, outcome = {}, {}
        for event in self.events:
            params = event.get("params", {})
            method = event.get("method")
            if method == "Network.requestWillBeSent":
                urls[params["requestId"]] = params["request"]["url"]
            elif method == "Network.loadingFinished":
                outcome[params["requestId"]] = "ok"
            elif method == "Network.loadingFailed":
                outcome[params["requestId"]] = params.get("errorText", "failed")
        return [[url, outcome.get(rid, "unfinished")] for rid, url in urls.items()]

    def close(self):
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    browser = Browser()
    try:
        seen = {}
        for page in sys.argv[1:]:
            seen[page] = browser.open(pathlib.Path(page).resolve().as_uri())
    finally:
        browser.close()
    json.dump(seen, sys.stdout, indent=1)


main()
