"""The data explorer in the kiosk (docs/share.md, "The data explorer"), a
part of tests/share/vnc_test.py (ctest share_vnc) that runs on its Test
object: `deid share run` with `desktop.table` starts the explorer itself
and the kiosk shows it; through the proxy, the shortcuts that save the page
(a download and a file dialog), open a file (a file dialog) and print show
nothing but the explorer, and nothing lands on disk; the kiosk asked to
open a file:// page, chrome://downloads or a download of another origin
(as a second `chromium` of the same profile hands the running one a URL:
the nearest thing to a typed address, which the kiosk has no bar for)
shows only Chromium's blocked page; killing the explorer ends the session
and everything else; the recording shows the explorer.
"""
import os
import signal
import subprocess
import time
from pathlib import Path

BAR = (0x07, 0x45, 0x7E)  # the explorer's top bar (serve/web/explore.css)


def near(pixel, colour, tolerance=16):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def shows_explorer(image):
    """The explorer's page: its bar across the top, and under it a page of
    rows (the table's grey header cells), no error box."""
    if image is None or image.size != (800, 600):
        return False
    bar = all(near(image.getpixel((x, 20)), BAR) for x in (5, 400, 770))  # the scroll bar at the right
    pixels = [image.getpixel((x, y)) for x in range(0, 800, 4) for y in range(60, 600, 4)]
    header_cells = sum(1 for p in pixels if near(p, (0xF3, 0xF5, 0xF7), 2))
    error_box = sum(1 for p in pixels if near(p, (0xFD, 0xE8, 0xE8), 2))
    return bar and header_cells > 100 and error_box == 0


def differing(a, b):
    """The share of pixels that differ between two captures."""
    if a is None or b is None or a.size != b.size:
        return 1.0
    pa, pb = a.getdata(), b.getdata()
    return sum(1 for x, y in zip(pa, pb) if not near(x, y, 8)) / len(pa)


# An <input type=file> over the top left corner of the page of
# vnc_test.py's supervised_desktop (url mode): clicking it must open no
# file dialog (the policy's AllowFileSelectionDialogs).
FILE_INPUT = ("<input type=file style='position:fixed;top:0;left:0;width:240px;height:60px;z-index:2;"
              "font-size:20px'>")


def file_dialogs_open_nothing(t, server):
    """On vnc_test.py's url-mode page, which stops no key (the explorer's
    page stops Ctrl+S, Ctrl+O and Ctrl+P itself, so there the policy is
    behind the page): Ctrl+S (save: a download and a file dialog), Ctrl+O
    (a file dialog), Ctrl+P (printing) and a click on its <input type=file>
    open no window over the page. Chromium may show a bar at the top ("Access
    to local files on your machine is disabled by your administrator"),
    pushing the page down; a dialog or print preview would cover it."""
    from PIL import Image
    downloads = Path.home() / "Downloads"
    downloads_before = sorted(downloads.iterdir()) if downloads.is_dir() else []
    # The three shortcuts at once (a dialog or preview that any of them
    # opened would still be there), then the click.
    for actions, name, what in ((("key", "ctrl-s", "key", "ctrl-o", "key", "ctrl-p"), "shortcuts",
                                 "Ctrl+S (save the page), Ctrl+O (open a file) and Ctrl+P (print)"),
                                (("click", "60", "30"), "file-input", "a click on an <input type=file>")):
        t.client(server, t.alice, *actions, "hold", "1.5")
        png = t.work / f"kiosk-after-{name}.png"
        r = t.client(server, t.alice, "capture", str(png))
        after = Image.open(png).convert("RGB") if r["ok"] else None
        page = after is not None and all(near(after.getpixel((x, y)), (0x22, 0xAA, 0x66))
                                         for x in range(20, 800, 60) for y in range(200, 600, 40))
        t.check(page, f"{what}: no dialog and no preview over the page (kiosk-after-{name}.png)")
    t.check((sorted(downloads.iterdir()) if downloads.is_dir() else []) == downloads_before,
            "Ctrl+S saved nothing to ~/Downloads")


def explorer_desktop(t, python):
    from PIL import Image
    work = t.work
    rows = ["age,sex,diagnosis,region"]
    for i in range(120):
        rows.append(f"{20 + (i * 7) % 60},{'female' if i % 3 else 'male'},{['flu', 'cold', 'asthma'][i % 3]},"
                    f"{['north', 'south', 'east', 'west'][(i * 5) % 4]}")
    (work / "release.csv").write_text("\n".join(rows) + "\n")
    (work / "explore.yaml").write_text(
        "desktop: {size: 800x600, table: release.csv, recordings: explorer-recordings}\n"
        "tokens: tokens.json\naudit: audit.jsonl\n")
    downloads = Path.home() / "Downloads"
    downloads_before = sorted(downloads.iterdir()) if downloads.is_dir() else []
    share = t.procs.start("share-run-explorer", [t.deid, "share", "run", work / "explore.yaml", "--listen",
                                                 "127.0.0.1:0"], stdout=subprocess.PIPE)
    listening = share.stdout.readline().decode()
    components = share.stdout.readline().decode()
    recording = Path(share.stdout.readline().decode().split("recording to ", 1)[-1].strip())
    if "listening on 127.0.0.1:" not in listening:
        raise AssertionError(f"deid share run (explorer) did not start: {listening!r} (share-run-explorer.log)")
    server = "127.0.0.1::" + listening.rsplit(":", 1)[1].strip()
    display = components.split("desktop ", 1)[1].split(":", 2)
    display = ":" + display[1]
    pids = {name: int(pid) for name, pid in
            (part.strip().split(" (pid ") for part in components.split(": ", 2)[2].rstrip(")\n").split("), "))}
    t.check(set(pids) == {"Xvfb", "x11vnc", "explorer", "browser", "recorder"},
            f"deid share run with desktop.table started the explorer with the desktop ({components.strip()})")
    # The desktop's state directory, from the browser's profile (another
    # share running on the machine has one too).
    cmdline = Path(f"/proc/{pids['browser']}/cmdline").read_bytes().split(b"\0")
    profile = next((Path(a.decode().split("=", 1)[1]) for a in cmdline if a.startswith(b"--user-data-dir=")), None)
    state = profile.parent if profile else None

    def capture(name):
        png = work / name
        return Image.open(png).convert("RGB") if t.client(server, t.alice, "capture", str(png))["ok"] else None

    def wait_for_explorer(name, within):
        until = time.monotonic() + within
        while time.monotonic() < until:
            image = capture(name)
            if shows_explorer(image):
                return image
            time.sleep(0.3)
        return None
    shown = wait_for_explorer("explorer.png", 30)
    t.check(shown is not None, "the kiosk shows the data explorer: its bar and a page of rows (explorer.png)")
    if shown is None:
        return
    # Save (a download, and a file dialog), open (a file dialog), print,
    # through the proxy: the page stops them and the policy is behind it
    # (file_dialogs_open_nothing tests the policy alone).
    # The page at rest first (two captures alike), then the keys.
    for _ in range(10):
        again = capture("explorer.png")
        if differing(shown, again) < 0.001:
            break
        shown = again
    t.client(server, t.alice, "key", "ctrl-s", "key", "ctrl-o", "key", "ctrl-p", "hold", "1.5")
    after = capture("explorer-after-shortcuts.png")
    changed = differing(shown, after)
    t.check(shows_explorer(after) and changed < 0.01,
            f"Ctrl+S, Ctrl+O and Ctrl+P show nothing but the explorer ({100 * changed:.2f} % of pixels changed; "
            "explorer-after-shortcuts.png)")
    left_behind = [p for p in (state.rglob("*") if state else []) if p.suffix in (".crdownload", ".html", ".htm",
                                                                                  ".mhtml", ".pdf")]
    now = sorted(downloads.iterdir()) if downloads.is_dir() else []
    t.check(not left_behind and now == downloads_before and not list(work.glob("*.mhtml")),
            f"nothing was downloaded or saved ({left_behind or 'none'} in the profile, {Path.home()}/Downloads as it "
            "was)")
    # URLs handed to the running kiosk by a second chromium of its profile
    # (it passes them to the running one and exits), each then captured.
    other = t.procs.start("attachment-site", [python, "-c", ATTACHMENT_SITE, "0"], stdout=subprocess.PIPE)
    other_port = int(other.stdout.readline())
    explorer = next((a.decode() for a in cmdline if a.startswith(b"http://127.0.0.1:")), "http://127.0.0.1:1/")
    explorer = explorer.split("/?", 1)[0] + "/"

    def hand_to_kiosk(url, name, shown):
        """The screen once it shows what `shown` looks for, or after 10 s
        (a loaded machine may take seconds to draw the page)."""
        args = ["chromium", f"--user-data-dir={profile}", url] + (["--no-sandbox"] if os.geteuid() == 0 else [])
        subprocess.run(args, env=dict(os.environ, DISPLAY=display), capture_output=True, timeout=20)
        until = time.monotonic() + 10
        while True:
            time.sleep(0.5)
            image = capture(name)
            if shown(image) or time.monotonic() > until:
                return image

    def blocked_page(image):
        points = [(x, y) for x in (50, 400, 790) for y in (150, 400, 590)]
        return image is not None and all(min(image.getpixel(p)) >= 0xF0 for p in points) and not shows_explorer(image)
    for url, what, name in (("file:///etc/hostname", "a file:// page", "file"),
                            ("chrome://downloads", "chrome://downloads", "downloads"),
                            (f"http://127.0.0.1:{other_port}/data.csv", "a download from another origin", "download")):
        t.check(blocked_page(hand_to_kiosk(url, f"kiosk-asked-{name}.png", blocked_page)),
                f"the kiosk asked to open {what} shows Chromium's blocked page (kiosk-asked-{name}.png)")
    # The control: the explorer's own address, handed the same way, opens
    # (with the browser's cookie; its token is spent).
    t.check(shows_explorer(hand_to_kiosk(explorer, "kiosk-asked-explorer.png", shows_explorer)),
            "(control: the explorer's own address handed to the kiosk the same way shows the explorer)")
    t.check(b"GET" not in (work / "attachment-site.log").read_bytes(),
            "the other origin's download was never requested")
    t.check(not (downloads.is_dir() and sorted(downloads.iterdir()) != downloads_before),
            "no download landed in ~/Downloads")
    # The explorer is supervised like the other components: killing it
    # ends the running session and deid share run, and nothing is left.
    count = t.session_starts("alice")
    holder = t.start_client(server, t.alice, "hold", "20")
    until = time.monotonic() + 10
    while t.session_starts("alice") <= count and time.monotonic() < until:
        time.sleep(0.05)
    os.kill(pids["explorer"], signal.SIGKILL)
    try:
        code = share.wait(15)
    except subprocess.TimeoutExpired:
        code = None
    t.check(code == 3, f"killing the explorer ends deid share run with exit code 3 (got {code})")
    last = t.session_lines("alice")[-1]
    t.check(last["event"] == "session-end" and last["reason"] == "the desktop failed: explorer exited (signal 9)",
            f"the session ended with the explorer's exit as its reason ({last.get('reason')})")
    try:
        holder.wait(10)
    except subprocess.TimeoutExpired:
        t.check(False, "the recipient was disconnected when the explorer died")
    left = []
    for name, pid in pids.items():
        try:
            os.killpg(pid, 0)
            left.append(name)
        except ProcessLookupError:
            pass
    t.check(not left, f"no component is left running ({left or 'none'})")
    frames = work / "explorer-frames"
    frames.mkdir()
    subprocess.run(["ffmpeg", "-v", "error", "-i", recording, "-vf", "fps=1", frames / "%03d.png"],
                   capture_output=True)
    seen = [f.name for f in sorted(frames.glob("*.png")) if shows_explorer(Image.open(f).convert("RGB"))]
    t.check(bool(seen), f"frames of the recording show the explorer ({len(seen)} of "
                        f"{len(list(frames.glob('*.png')))}, e.g. explorer-frames/{seen[0] if seen else '-'})")


# A site on another origin whose one page is a download (an attachment):
# it logs every request to stderr (its log), so the test sees none came.
ATTACHMENT_SITE = r"""
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        sys.stderr.write("GET " + self.path + "\n"); sys.stderr.flush()
        self.send_response(200)
        self.send_header("Content-Type", "text/csv")
        self.send_header("Content-Disposition", "attachment; filename=data.csv")
        self.end_headers()
        self.wfile.write(b"a,b\n1,2\n")
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""
