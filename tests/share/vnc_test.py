"""deid share's RFB proxy with real components (docs/share.md, "Tests"):
Xvfb, x11vnc on 127.0.0.1 with its own password, `deid share proxy` in
front of it, and vncdotool as the recipient's VNC client, all started here
on 127.0.0.1 and stopped at the end, also on failure.

    tests/share/.venv/bin/python tests/share/vnc_test.py --deid build/deid

It asserts: a recipient without a token, with a wrong, an expired or a
revoked one is refused; a valid token reaches the desktop; clipboard text
sent by the client never reaches the X server (CUT_BUFFER0, PRIMARY,
CLIPBOARD), while the same text sent to x11vnc directly does (the check
can see it); the X server's clipboard never reaches the client, while a
direct client gets it; typing faster than the limit is throttled, what
reached the X server is what the audit log says was forwarded, and the
drops are counted; a click reaches the X server where it was made; every
input event is in the audit log with its recipient; revoking a token ends
its running session within a second; killing the VNC server ends the
session and the proxy stays up; the proxy stops cleanly on SIGTERM. Then
`deid share run` starts its own desktop (Xvfb, x11vnc, Chromium in kiosk
mode, ffmpeg recording the screen): the kiosk's page fills the screen
seen through the proxy; a click on its link to another origin shows
Chromium's blocked page (the kiosk's policy), not that origin's; the
shortcuts of developer tools, downloads and history show nothing else;
killing the browser ends the session and `deid
share run` (exit code 3) with every component and its state directory
gone; the recording is one private file, named in the audit log, with
frames that show the page. Then the data explorer
(tests/share/explorer_kiosk.py): `deid share run` with a released table
instead of a page, a file dialog, a download, printing and file:// kept
out of the kiosk. Nothing started here is left running. Exits 0 when all
hold, 1 otherwise.
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import explorer_kiosk

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable  # the virtual environment's, with vncdotool and python-xlib
KEYS = {"burst": 5, "per-second": 2, "per-minute": 60}


class Processes:
    """Every process the test starts, each in a session (process group) of
    its own, so that stopping one stops what it started (xclip's child)."""

    def __init__(self, work):
        self.work = work
        self.started = []

    def start(self, name, args, env=None, **kw):
        log = open(self.work / f"{name}.log", "ab")
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=kw.pop("stdout", log), stderr=log,
                             env=env, start_new_session=True, **kw)
        self.started.append((name, p))
        return p

    def stop(self, p, sig=signal.SIGTERM, wait=5):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.wait(wait)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(5)
            return False
        return True

    def stop_all(self):
        """Stops everything, newest first; returns the names of processes
        (or their children) that SIGTERM did not stop."""
        stubborn = []
        for name, p in reversed(self.started):
            if p.poll() is None and not self.stop(p):
                stubborn.append(name)
            try:  # anything left in its group (a forked child)
                os.killpg(p.pid, signal.SIGKILL)
                stubborn.append(name + "'s children")
            except ProcessLookupError:
                pass
        return stubborn


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, within=10):
    until = time.monotonic() + within
    while time.monotonic() < until:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


def eventually(check, within=3.0):
    until = time.monotonic() + within
    while time.monotonic() < until:
        if check():
            return True
        time.sleep(0.05)
    return check()


class Test:
    def __init__(self, deid, work):
        self.deid = deid
        self.work = work
        self.procs = Processes(work)
        self.failures = []
        self.tokens = work / "tokens.json"
        self.audit = work / "audit.jsonl"

    def check(self, ok, what):
        print(("ok:   " if ok else "FAIL: ") + what, flush=True)
        if not ok:
            self.failures.append(what)

    def audit_lines(self):
        if not self.audit.exists():
            return []
        return [json.loads(line) for line in self.audit.read_text().splitlines() if line]

    def token(self, recipient, expires="1h"):
        out = subprocess.run([self.deid, "share", "token", "add", "--tokens", self.tokens, "--recipient", recipient,
                              "--expires", expires], check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def client(self, server, password, *actions, timeout=30, encoding="raw"):
        out = subprocess.run([PYTHON, HERE / "vnc_client.py", server, password, *actions], capture_output=True,
                             text=True, timeout=timeout, env=dict(self.env, VNC_ENCODING=encoding))
        lines = out.stdout.strip().splitlines()
        return json.loads(lines[-1]) if lines else {"ok": False, "error": out.stderr[-500:], "copied": []}

    def start_client(self, server, password, *actions):
        return self.procs.start("client", [PYTHON, HERE / "vnc_client.py", server, password, *actions],
                                env=self.env, stdout=subprocess.PIPE)

    def probe(self, *args):
        return subprocess.run([PYTHON, HERE / "x_probe.py", *args], capture_output=True, text=True, check=True,
                              env=self.env, timeout=10).stdout.strip()

    def selections(self):
        texts = [self.probe("cut-buffer")]
        for selection in ("primary", "clipboard"):
            out = subprocess.run(["xclip", "-o", "-selection", selection], capture_output=True, text=True,
                                 env=self.env, timeout=5)
            texts.append(out.stdout if out.returncode == 0 else "")
        return texts

    def session_lines(self, recipient):
        return [a for a in self.audit_lines() if a.get("recipient") == recipient]

    def session_starts(self, recipient):
        return len([a for a in self.session_lines(recipient) if a["event"] == "session-start"])

    # ------------------------------------------------------------------ setup

    def start_desktop(self):
        read, write = os.pipe()
        self.xvfb = self.procs.start("xvfb", ["Xvfb", "-displayfd", str(write), "-screen", "0", "640x480x24",
                                              "-nolisten", "tcp"], pass_fds=(write,))
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            raise AssertionError("Xvfb did not start (xvfb.log)")
        self.env = dict(os.environ, DISPLAY=f":{number}")
        self.upstream_password = "up-" + os.urandom(4).hex()
        passwd = self.work / "x11vnc.passwd"
        subprocess.run(["x11vnc", "-storepasswd", self.upstream_password, passwd], check=True, capture_output=True)
        self.vnc_port = free_port()
        # Selection exchange left on: the proxy alone must keep the
        # clipboard out (docs/share.md adds -nosel as defense in depth).
        self.x11vnc = self.procs.start("x11vnc", ["x11vnc", "-display", f":{number}", "-rfbport", str(self.vnc_port),
                                                  "-localhost", "-rfbauth", passwd, "-forever", "-shared",
                                                  "-noxdamage"], env=self.env)
        wait_port(self.vnc_port)
        self.direct = f"127.0.0.1::{self.vnc_port}"

    def start_proxy(self):
        (self.work / "upstream.pass").write_text(self.upstream_password + "\n")
        os.chmod(self.work / "upstream.pass", 0o600)
        keys = ", ".join(f"{k}: {v}" for k, v in KEYS.items())
        (self.work / "share.yaml").write_text(
            f"upstream: {{address: 127.0.0.1:{self.vnc_port}, password-file: upstream.pass}}\n"
            f"tokens: tokens.json\naudit: audit.jsonl\n"
            f"limits:\n  keys: {{{keys}}}\n  buttons: {{burst: 5, per-second: 2}}\n")
        self.proxy = self.procs.start("proxy", [self.deid, "share", "proxy", self.work / "share.yaml", "--listen",
                                                "127.0.0.1:0"], stdout=subprocess.PIPE)
        line = self.proxy.stdout.readline().decode()
        if "listening on 127.0.0.1:" not in line:
            raise AssertionError(f"the proxy did not start: {line!r} (proxy.log)")
        self.server = "127.0.0.1::" + line.rsplit(":", 1)[1].strip()

    # ------------------------------------------------------------------ checks

    def refusals(self):
        r = self.client(self.server, "")
        self.check(not r["ok"], f"a client without a token is refused ({r.get('error', '')[:60]})")
        # A client that asks for no authentication at all (RFB 3.8, type 1).
        host, port = self.server.split("::")
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.recv(12)
            s.sendall(b"RFB 003.008\n")
            offer = s.recv(2)
            s.sendall(b"\x01")
            result = s.recv(64)
        self.check(offer == b"\x01\x02" and result[:4] == b"\x00\x00\x00\x01" and b"not offered" in result,
                   "the proxy offers VNC Authentication only and refuses security type None")
        r = self.client(self.server, "wrong123")
        self.check(not r["ok"], "a wrong token is refused")
        bob = self.token("bob", "2020-01-01T00:00:00Z")
        r = self.client(self.server, bob)
        self.check(not r["ok"], "an expired token is refused")
        carol = self.token("carol")
        subprocess.run([self.deid, "share", "token", "revoke", "--tokens", self.tokens, "--recipient", "carol"],
                       check=True, capture_output=True)
        r = self.client(self.server, carol)
        self.check(not r["ok"], "a revoked token is refused")
        reasons = [a.get("reason") for a in self.audit_lines() if a["event"] == "refused"]
        self.check({"unknown token", "token expired", "token revoked"} <= set(reasons),
                   f"the refusals are in the audit log with their reasons ({reasons})")

    def admitted(self):
        from PIL import Image, ImageChops
        pattern = self.procs.start("pattern", [PYTHON, HERE / "x_probe.py", "pattern"], env=self.env,
                                   stdout=subprocess.PIPE)
        if pattern.stdout.readline().strip() != b"ready":
            raise AssertionError("the pattern window did not start (pattern.log)")
        png = self.work / "screen.png"
        r = self.client(self.server, self.alice, "capture", str(png))
        self.check(r["ok"] and png.exists(), f"a valid token reaches the desktop ({r})")
        if not png.exists():
            return
        raw = Image.open(png).convert("RGB")
        self.check(raw.size == (640, 480) and len(raw.getcolors(1 << 16) or []) > 10,
                   "the capture through the proxy is the 640x480 desktop with the pattern on it")
        # The same screen in ZRLE: the proxy passes its compressed data
        # through, finding each rectangle's end from its length.
        zrle_png = self.work / "screen-zrle.png"
        r = self.client(self.server, self.alice, "capture", str(zrle_png), encoding="zrle")
        kept = [a["kept"] for a in self.session_lines("alice") if a["event"] == "set-encodings"][-1:]
        self.check(r["ok"] and kept and kept[0][0] == 16, f"a ZRLE session through the proxy ({r}, kept {kept})")
        if zrle_png.exists():
            zrle = Image.open(zrle_png).convert("RGB")
            self.check(ImageChops.difference(raw, zrle).getbbox() is None,
                       "the ZRLE capture through the proxy equals the Raw one, pixel for pixel")
        self.procs.stop(pattern)

    def clipboard_to_server(self):
        secret = "123-45-6789 Jane Roe"
        r = self.client(self.server, self.alice, "paste", secret, "hold", "0.5")
        self.check(r["ok"], f"pasting through the proxy leaves the session up ({r})")
        seen = self.selections()
        self.check(all(secret not in s for s in seen), f"clipboard text sent through the proxy is not in X ({seen})")
        # The control: sent to x11vnc directly, the same kind of text does
        # reach X, so the check above could have seen it.
        control = "control 42"
        self.client(self.direct, self.upstream_password, "paste", control, "hold", "0.5")
        self.check(eventually(lambda: control in self.selections()),
                   "the control: clipboard text sent to x11vnc directly reaches X")
        dropped = [a for a in self.session_lines("alice") if a["event"] == "client-cut-text"]
        self.check(len(dropped) == 1 and dropped[0]["verdict"] == "dropped" and dropped[0]["length"] == len(secret),
                   "the dropped clipboard message is in the audit log (its length, not its text)")
        self.check(secret not in self.audit.read_text(), "the audit log does not hold the clipboard's text")

    def clipboard_to_client(self):
        secret = "server side secret"
        starts = self.session_starts("alice")
        client = self.start_client(self.server, self.alice, "hold", "3")
        self.check(eventually(lambda: self.session_starts("alice") > starts, 10), "a session to hold is up")
        time.sleep(0.7)  # past the client's first update
        self.probe("set-cut-buffer", secret)
        out = json.loads(client.communicate(timeout=20)[0].decode().splitlines()[-1])
        self.check(out["ok"] and out["copied"] == [], f"the X server's clipboard never reaches the client ({out})")
        self.check(any(a["event"] == "server-cut-text" and a["verdict"] == "dropped"
                       for a in self.session_lines("alice")), "the proxy logged the ServerCutText it dropped")
        # The control has no audit log to say when it is connected: the
        # text changes twice, a second apart, while it holds.
        control = self.start_client(self.direct, self.upstream_password, "hold", "5")
        time.sleep(2.0)
        self.probe("set-cut-buffer", "control 43")
        time.sleep(1.0)
        self.probe("set-cut-buffer", "control 44")
        out = json.loads(control.communicate(timeout=20)[0].decode().splitlines()[-1])
        self.check({"control 43", "control 44"} & set(out["copied"]),
                   f"the control: a direct client receives the X server's clipboard ({out['copied']})")

    def typing_and_clicks(self):
        keys_file = self.work / "x-input.txt"
        sink = self.procs.start("sink", [PYTHON, HERE / "x_probe.py", "sink", keys_file], env=self.env,
                                stdout=subprocess.PIPE)
        if sink.stdout.readline().strip() != b"ready":
            raise AssertionError("the key sink did not start (sink.log)")
        text = "abcdefghijklmnopqrstuvwxyz0123"
        before = len(self.audit_lines())
        t0 = time.monotonic()
        r = self.client(self.server, self.alice, "type", text, "click", "100", "120")
        elapsed = time.monotonic() - t0
        self.check(r["ok"], "typing through the proxy leaves the session up")
        lines = self.audit_lines()[before:]
        keys = [a for a in lines if a["event"] == "key"]
        downs = [a for a in keys if a["down"]]
        forwarded = [a for a in downs if a["verdict"] == "forwarded"]
        limited = [a for a in downs if a["verdict"] == "rate-limited"]
        self.check(len(downs) == len(text) and len(keys) == 2 * len(text),
                   f"every key event is in the audit log ({len(downs)} presses, {len(keys)} events)")
        self.check(all(a.get("recipient") == "alice" and "time" in a for a in lines if a["event"] != "connection"),
                   "every audit line has its time and recipient")
        bound = KEYS["burst"] + KEYS["per-second"] * elapsed + 1
        self.check(KEYS["burst"] <= len(forwarded) <= bound,
                   f"typing {len(text)} characters at once: {len(forwarded)} passed (burst {KEYS['burst']}, "
                   f"at most {bound:.1f} in {elapsed:.1f} s)")
        end = [a for a in lines if a["event"] == "session-end"]
        self.check(len(end) == 1 and end[0]["keys-dropped"] == len(limited) == len(text) - len(forwarded),
                   f"the drops are counted ({end[0]['keys-dropped'] if end else '?'} keys dropped)")
        self.check(eventually(lambda: keys_file.exists() and "button" in keys_file.read_text()),
                   "the click reached the X server")
        received = keys_file.read_text().splitlines() if keys_file.exists() else []
        got_keys = [line.split()[1] for line in received if line.startswith("key")]
        sent_keys = [a["keysym"] for a in forwarded]
        self.check([int(k, 16) for k in got_keys] == [int(k, 16) for k in sent_keys],
                   f"the X server got exactly the forwarded keys ({len(got_keys)} of {len(text)})")
        self.check("button 1 100 120" in received, f"the click arrived where it was made ({received[-1:]})")
        self.check(any(a["event"] == "pointer" and a["x"] == 100 and a["y"] == 120 and a["buttons"] == 1
                       for a in lines), "the click is in the audit log with its position")
        self.procs.stop(sink)

    def revocation(self):
        dave = self.token("dave")
        client = self.start_client(self.server, dave, "hold", "20")
        started = eventually(lambda: any(a["event"] == "session-start" for a in self.session_lines("dave")), 8)
        self.check(started, "dave's session started")
        time.sleep(0.7)  # the client past its first update, holding the session
        subprocess.run([self.deid, "share", "token", "revoke", "--tokens", self.tokens, "--recipient", "dave"],
                       check=True, capture_output=True)
        t0 = time.monotonic()  # the store holds the revocation from here on
        ended = eventually(lambda: any(a["event"] == "session-end" for a in self.session_lines("dave")), 3)
        took = time.monotonic() - t0
        end = [a for a in self.session_lines("dave") if a["event"] == "session-end"]
        self.check(ended and took < 1.0 and end[0]["reason"] == "token revoked",
                   f"revoking the token ended the running session in {took:.2f} s ({end[:1]})")
        try:
            client.wait(10)
            self.check(True, "the revoked client was disconnected")
        except subprocess.TimeoutExpired:
            self.check(False, "the revoked client was disconnected")

    def killed_server(self):
        count = self.session_starts("alice")
        client = self.start_client(self.server, self.alice, "hold", "20")
        eventually(lambda: self.session_starts("alice") > count, 10)
        time.sleep(0.7)  # the client past its first update, holding the session
        self.procs.stop(self.x11vnc, signal.SIGKILL)
        ended = eventually(lambda: self.session_lines("alice")[-1]["event"] == "session-end", 3)
        last = self.session_lines("alice")[-1]
        self.check(ended and last["reason"] == "the VNC server closed the connection",
                   f"killing x11vnc ends the session ({last.get('reason')})")
        try:
            client.wait(10)
            self.check(True, "the client of the killed desktop was disconnected")
        except subprocess.TimeoutExpired:
            self.check(False, "the client of the killed desktop was disconnected")
        self.check(self.proxy.poll() is None, "the proxy is still up for the next session")
        r = self.client(self.server, self.alice)
        self.check(not r["ok"] and self.audit_lines()[-1].get("reason") == "the VNC server is not available",
                   "with the desktop gone a recipient is refused with the reason")

    def stop_proxy(self):
        self.proxy.send_signal(signal.SIGTERM)
        try:
            code = self.proxy.wait(5)
        except subprocess.TimeoutExpired:
            code = None
        self.check(code == 0, f"the proxy stops on SIGTERM with exit code 0 (got {code})")

    def supervised_desktop(self):
        """deid share run: the desktop started by the share, the kiosk
        showing a page, and killing the browser ending everything."""
        # The page the kiosk shows, green, one link over all of it to
        # another origin, whose page is red: the kiosk's policy must block it.
        site, other = self.work / "site", self.work / "other"
        site.mkdir()
        other.mkdir()
        site_port, other_port = free_port(), free_port()
        (site / "index.html").write_text(
            f"<body style='margin:0'><a href='http://127.0.0.1:{other_port}/' style='position:fixed;top:0;left:0;"
            "right:0;bottom:0;background:#22aa66;color:black'><h1 style='font-size:60px'>deid explorer</h1></a>"
            + explorer_kiosk.FILE_INPUT + "</body>")
        (other / "index.html").write_text("<body style='background:#ff0000'><h1>another site</h1></body>")
        for name, port, root in (("site", site_port, site), ("other-site", other_port, other)):
            self.procs.start(name, [PYTHON, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", root])
            wait_port(port)
        page = f"http://127.0.0.1:{site_port}/"
        (self.work / "run.yaml").write_text(
            f"desktop: {{size: 800x600, url: \"{page}\", recordings: recordings}}\n"
            "tokens: tokens.json\naudit: audit.jsonl\n")
        before = {p.name for p in Path(tempfile.gettempdir()).glob("deid-share-??????")}
        etc_before = sorted(str(p) for p in Path("/etc/chromium").rglob("*"))
        share = self.procs.start("share-run", [self.deid, "share", "run", self.work / "run.yaml", "--listen",
                                               "127.0.0.1:0"], stdout=subprocess.PIPE)
        listening = share.stdout.readline().decode()
        components = share.stdout.readline().decode()
        recording_line = share.stdout.readline().decode()
        if "listening on 127.0.0.1:" not in listening:
            raise AssertionError(f"deid share run did not start: {listening!r} (share-run.log)")
        server = "127.0.0.1::" + listening.rsplit(":", 1)[1].strip()
        pids = {name: int(pid) for name, pid in
                (part.strip().split(" (pid ") for part in components.split(": ", 2)[2].rstrip(")\n").split("), "))}
        self.check(set(pids) == {"Xvfb", "x11vnc", "browser", "recorder"},
                   f"deid share run started the desktop ({components.strip()})")
        recording = Path(recording_line.split("recording to ", 1)[-1].strip())
        from PIL import Image
        png = self.work / "kiosk.png"

        def page_shown():
            r = self.client(server, self.alice, "capture", str(png))
            if not r["ok"]:
                return False
            image = Image.open(png).convert("RGB")
            return image.size == (800, 600) and image.getpixel((400, 400)) == (0x22, 0xAA, 0x66)
        self.check(eventually(page_shown, 30), "the kiosk shows the page over the whole 800x600 screen")
        explorer_kiosk.file_dialogs_open_nothing(self, server)
        # A click on the link, through the proxy: the other origin is blocked.
        self.client(server, self.alice, "click", "400", "300")

        def centre():
            r = self.client(server, self.alice, "capture", str(png))
            return Image.open(png).convert("RGB").getpixel((400, 400)) if r["ok"] else None
        self.check(eventually(lambda: centre() not in (None, (0x22, 0xAA, 0x66)), 15),
                   "the click on the link left the page")
        colour = centre()
        self.check(colour is not None and min(colour) >= 0xF0,
                   f"the kiosk blocked the other origin: a blocked page, not the red one ({colour}; kiosk.png)")
        self.check("GET" not in (self.work / "other-site.log").read_text(),
                   "the other origin never received a request from the kiosk")
        # Developer tools and the browser's own pages (downloads, history),
        # by their shortcuts, through the proxy: at most a blocked page
        # (a shortcut may open a tab on one), never the tools or the page.
        self.client(server, self.alice, "key", "f12", "key", "ctrl-shift-i", "key", "ctrl-j", "key", "ctrl-h",
                    "hold", "2")
        keys_png = self.work / "kiosk-after-shortcuts.png"
        image = (Image.open(keys_png).convert("RGB")
                 if self.client(server, self.alice, "capture", str(keys_png))["ok"] else None)
        points = [(x, y) for x in (50, 400, 790) for y in (150, 400, 590)]
        self.check(image is not None and all(min(image.getpixel(p)) >= 0xF0 for p in points),
                   "the shortcuts of developer tools, downloads and history show only the blocked page "
                   "(kiosk-after-shortcuts.png)")
        keys = [a for a in self.session_lines("alice") if a["event"] == "key" and a["down"]][-7:]
        self.check(len(keys) == 7 and all(a["verdict"] == "forwarded" for a in keys),
                   "(the shortcuts reached the X server: the audit log says forwarded)")
        count = self.session_starts("alice")
        holder = self.start_client(server, self.alice, "hold", "20")
        eventually(lambda: self.session_starts("alice") > count, 10)
        time.sleep(0.7)
        os.kill(pids["browser"], signal.SIGKILL)
        try:
            code = share.wait(10)
        except subprocess.TimeoutExpired:
            code = None
        self.check(code == 3, f"killing the browser ends deid share run with exit code 3 (got {code})")
        last = self.session_lines("alice")[-1]
        self.check(last["event"] == "session-end" and
                   last["reason"] == "the desktop failed: browser exited (signal 9)",
                   f"the session ended with the component's exit as its reason ({last.get('reason')})")
        try:
            holder.wait(10)
            self.check(True, "the recipient was disconnected")
        except subprocess.TimeoutExpired:
            self.check(False, "the recipient was disconnected")
        left = []
        for name, pid in pids.items():
            try:
                os.killpg(pid, 0)
                left.append(name)
            except ProcessLookupError:
                pass
        self.check(not left, f"no component (nor anything it started) is left running ({left or 'none'})")
        after = {p.name for p in Path(tempfile.gettempdir()).glob("deid-share-??????")}
        self.check(after <= before, f"the desktop's state directory is removed ({sorted(after - before)})")
        self.check(sorted(str(p) for p in Path("/etc/chromium").rglob("*")) == etc_before,
                   "the machine's /etc/chromium is as it was (the kiosk's policy lived in its own namespace)")
        self.recording(recording)

    def recording(self, recording):
        """The screen recording of the desktop: one file, private, that
        plays for the session's length and whose last frame shows the
        kiosk's page."""
        files = list((self.work / "recordings").glob("*.mkv"))
        self.check(files == [recording] and recording.stat().st_mode & 0o777 == 0o600,
                   f"the desktop was recorded to one private file ({files})")
        if not recording.exists():
            return
        starts = [a for a in self.session_lines("alice") if a["event"] == "session-start" and "recording" in a]
        self.check(starts and starts[-1]["recording"] == str(recording),
                   "the audit log names the recording that shows each session")
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                                recording], capture_output=True, text=True)
        duration = float(probe.stdout.strip() or 0)
        self.check(duration > 1, f"the recording plays {duration:.1f} s")
        frames = self.work / "recording-frames"
        frames.mkdir()
        subprocess.run(["ffmpeg", "-v", "error", "-i", recording, "-vf", "fps=2", frames / "%03d.png"],
                       capture_output=True)
        from PIL import Image

        def near(pixel, colour):
            return all(abs(a - b) <= 16 for a, b in zip(pixel, colour))
        shown = [f.name for f in sorted(frames.glob("*.png"))
                 if near(Image.open(f).convert("RGB").getpixel((400, 400)), (0x22, 0xAA, 0x66))]
        self.check(shown and Image.open(frames / shown[0]).size == (800, 600),
                   f"frames of the recording show the kiosk's page ({len(shown)} of "
                   f"{len(list(frames.glob('*.png')))}, e.g. recording-frames/{shown[0] if shown else '-'})")

    def run(self):
        try:
            self.start_desktop()
            self.start_proxy()
            self.alice = self.token("alice")
            self.refusals()
            self.admitted()
            self.clipboard_to_server()
            self.clipboard_to_client()
            self.typing_and_clicks()
            self.revocation()
            self.killed_server()
            self.stop_proxy()
            self.supervised_desktop()
            explorer_kiosk.explorer_desktop(self, PYTHON)
        except Exception as e:  # noqa: BLE001 - reported, then everything is stopped
            self.check(False, f"the test ran to its end: {type(e).__name__}: {e}")
        finally:
            stubborn = self.procs.stop_all()
            self.check(not stubborn, f"every process stopped on SIGTERM ({stubborn or 'all'})")
        return not self.failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deid", required=True, help="the deid tool")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, audit log)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="deid-share-vnc-"))
    t0 = time.monotonic()
    ok = Test(os.path.abspath(args.deid), work).run()
    print(f"{'passed' if ok else 'FAILED'} in {time.monotonic() - t0:.1f} s; work directory {work}"
          + ("" if args.keep or not ok else " (removed)"))
    if ok and not args.keep:
        subprocess.run(["rm", "-rf", work])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
