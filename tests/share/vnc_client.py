"""A real VNC client for tests/share/vnc_test.py: vncdotool (pinned in
tests/share/requirements.txt) in a process of its own, since its Twisted
reactor runs once per process.

    python vnc_client.py HOST::PORT PASSWORD ACTION...

ACTION: paste TEXT (ClientCutText), type TEXT (a press and a release per
character, as fast as vncdotool sends them), key KEY (one key or a
combination, e.g. ctrl-shift-i), click X Y (move, press and
release button 1), hold SECONDS (stay connected, asking for updates; fails as soon as
the server closes the connection),
capture FILE (a PNG of the screen). PASSWORD "" answers no password.
Prints one JSON line: {"ok": true, "copied": [...]} (the clipboard texts
the server sent, ServerCutText) or {"ok": false, "error": "..."}; exits 0
or 1. With VNC_ENCODING=zrle in the environment it asks for ZRLE
rather than Raw.
"""
import json
import os
import sys
import time
import warnings

warnings.simplefilter("ignore")  # vncdotool's DES through cryptography's deprecated TripleDES

from vncdotool import api, rfb  # noqa: E402
from vncdotool.client import VNCDoToolClient  # noqa: E402
from twisted.internet import reactor  # noqa: E402

# VNC_ENCODING=zrle asks the server for ZRLE instead of Raw.
if os.environ.get("VNC_ENCODING") == "zrle":
    VNCDoToolClient.encoding = rfb.Encoding.ZRLE

copied = []
VNCDoToolClient.copy_text = lambda self, text: copied.append(text)
lost = []
_connection_lost = VNCDoToolClient.connectionLost


def connection_lost(self, reason):
    lost.append(str(reason.value))
    _connection_lost(self, reason)


VNCDoToolClient.connectionLost = connection_lost


def run(server, password, actions):
    client = api.connect(server, password=password or None, timeout=8)
    client.refreshScreen()  # completes the handshake, or raises the refusal
    i = 0
    while i < len(actions):
        action = actions[i]
        if action == "paste":
            client.paste(actions[i + 1])
            i += 2
        elif action == "type":
            for ch in actions[i + 1]:
                client.keyPress(ch)
            i += 2
        elif action == "key":
            client.keyPress(actions[i + 1])  # a combination like ctrl-shift-i: presses, then releases
            i += 2
        elif action == "click":
            client.mouseMove(int(actions[i + 1]), int(actions[i + 2]))
            client.mousePress(1)
            i += 3
        elif action == "hold":
            until = time.monotonic() + float(actions[i + 1])
            # Asks for a full update every quarter second without waiting
            # for it, so that a closed connection is seen at once.
            while time.monotonic() < until:
                if lost:
                    raise ConnectionError(f"the server closed the connection: {lost[0]}")
                reactor.callFromThread(client.protocol.framebufferUpdateRequest)
                time.sleep(0.25)
            i += 2
        elif action == "capture":
            client.captureScreen(actions[i + 1])
            i += 2
        else:
            raise ValueError(f"unknown action {action}")
    client.refreshScreen()  # everything sent before has been read by the peer
    client.disconnect()


def main():
    server, password, *actions = sys.argv[1:]
    code = 0
    try:
        run(server, password, actions)
        print(json.dumps({"ok": True, "copied": copied}), flush=True)
    except BaseException as e:  # noqa: BLE001 - the test reads the refusal
        print(json.dumps({"ok": False, "error": f"{type(e).__name__}: {e}", "copied": copied}), flush=True)
        code = 1
    finally:
        api.shutdown()
    sys.exit(code)


if __name__ == "__main__":
    main()
