"""What reaches the X server, for tests/share/vnc_test.py (python-xlib,
pinned in tests/share/requirements.txt), on $DISPLAY:

    python x_probe.py sink FILE      a window over the whole screen with the
                                     keyboard grabbed; appends "key KEYSYM" and
                                     "button N X Y" per press to FILE; prints
                                     "ready" once it has the keyboard
    python x_probe.py pattern        a window of coloured bands and text over the
                                     whole screen (something for the encodings
                                     to compress); prints "ready" once drawn
    python x_probe.py cut-buffer     prints CUT_BUFFER0 of the root window
                                     (where x11vnc puts a client's clipboard)
    python x_probe.py set-cut-buffer TEXT   sets it (x11vnc then sends TEXT to
                                     its clients as ServerCutText)
"""
import os
import sys

from Xlib import X, Xatom, display


def sink(path):
    d = display.Display(os.environ["DISPLAY"])
    screen = d.screen()
    w = screen.root.create_window(
        0, 0, screen.width_in_pixels, screen.height_in_pixels, 0, screen.root_depth,
        X.InputOutput, X.CopyFromParent, background_pixel=screen.white_pixel,
        event_mask=X.KeyPressMask | X.ButtonPressMask | X.StructureNotifyMask)
    w.map()
    while d.next_event().type != X.MapNotify:
        pass
    w.set_input_focus(X.RevertToParent, X.CurrentTime)
    if w.grab_keyboard(True, X.GrabModeAsync, X.GrabModeAsync, X.CurrentTime) != X.GrabSuccess:
        sys.exit("cannot grab the keyboard")
    d.sync()
    print("ready", flush=True)
    with open(path, "a") as out:
        while True:
            e = d.next_event()
            if e.type == X.KeyPress:
                out.write(f"key {d.keycode_to_keysym(e.detail, 0):#x}\n")
            elif e.type == X.ButtonPress:
                out.write(f"button {e.detail} {e.event_x} {e.event_y}\n")
            out.flush()


def pattern():
    d = display.Display(os.environ["DISPLAY"])
    screen = d.screen()
    w = screen.root.create_window(
        0, 0, screen.width_in_pixels, screen.height_in_pixels, 0, screen.root_depth,
        X.InputOutput, X.CopyFromParent, background_pixel=screen.black_pixel,
        event_mask=X.ExposureMask | X.StructureNotifyMask)
    w.map()
    colormap = screen.default_colormap
    ready = False
    while True:
        e = d.next_event()
        if e.type not in (X.Expose, X.MapNotify):
            continue
        for i in range(16):
            colour = colormap.alloc_color((i * 4099) % 65536, (i * 7919) % 65536, (i * 104729) % 65536).pixel
            gc = w.create_gc(foreground=colour, background=screen.black_pixel)
            w.fill_rectangle(gc, i * 37 % 600, i * 29, 200 - i * 9, 30)
            w.image_text(gc, 10 + i * 3, 470 - i * 25, f"row {i}: deid share 0123456789")
        d.flush()
        if not ready:
            d.sync()
            print("ready", flush=True)
            ready = True


def main():
    if sys.argv[1] == "pattern":
        pattern()
        return
    if sys.argv[1] == "sink":
        sink(sys.argv[2])
        return
    d = display.Display(os.environ["DISPLAY"])
    root = d.screen().root
    atom = d.intern_atom("CUT_BUFFER0")
    if sys.argv[1] == "cut-buffer":
        p = root.get_full_property(atom, Xatom.STRING)
        value = p.value if p else b""
        print(value.decode() if isinstance(value, bytes) else str(value))
    elif sys.argv[1] == "set-cut-buffer":
        root.change_property(atom, Xatom.STRING, 8, sys.argv[2].encode())
        d.sync()


if __name__ == "__main__":
    main()
