"""Signet's UNO driver: keeps one LibreOffice running and converts documents over UNO.

Usage: python3 uno-driver.py '<json: {"argv": [...], "connect": "uno:pipe,...", "startTimeout": s, "parent": pid or null}>'
       python3 uno-driver.py guard <parent pid> <command> [args...]   (no uno needed)

It starts soffice (argv) in its own process group, which Node made a new one, so that Node's kill
of that group at a deadline takes LibreOffice along at any moment, even before the driver could
say anything about it; it connects, prints {"event": "ready"}, then reads one JSON job per line on
stdin and answers one JSON line per job on stdout:
  {"input", "output" (file URLs), "inFilter", "outFilter", "filterData": {name: value}}
  -> {"ok": true} | {"ok": false, "kind": "load"|"store", "error"} | {"ok": false, "kind": "crash", "error"} (then exits).

LibreOffice never outlives the Node process that started the driver: when stdin closes, or when
the parent is gone (a watchdog thread compares getppid() with "parent", so a kill -9 of Node
is caught even while LibreOffice is still starting), the driver kills its process group, itself
and LibreOffice.

A `soffice --convert-to` run with the same profile hands its job to the running instance (LibreOffice's
own single-instance pipe), which converts it in its main thread as a one-shot would; the driver vetoes
the termination that follows, so the instance stays up.

The guard mode runs one command (a one-shot `soffice --convert-to`) in the guard's own process
group, which Node made a new one, and exits with its status; when the parent is gone it kills the
whole group, so a one-shot LibreOffice does not outlive a killed server either.
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

office = None


def reply(message):
    try:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()
    except Exception:
        # Node is gone (broken pipe): take LibreOffice along rather than die with a traceback.
        die(7)


def props(values):
    out = []
    for name, value in values.items():
        p = PropertyValue()
        p.Name = name
        p.Value = value
        out.append(p)
    return tuple(out)


def die(code):
    # soffice is a launcher: kill the whole process group, soffice.bin included (and this driver).
    if office is not None:
        try:
            os.killpg(0, signal.SIGKILL)
        except Exception:
            pass
    os._exit(code)


def parent_gone(parent):
    return os.getppid() != parent if parent else os.getppid() == 1


def watch_parent(parent):
    while True:
        if parent_gone(parent):
            die(6)
        time.sleep(0.1)


def terminate_veto():
    import unohelper
    from com.sun.star.frame import TerminationVetoException, XTerminateListener

    class Veto(unohelper.Base, XTerminateListener):
        def queryTermination(self, event):
            raise TerminationVetoException()

        def notifyTermination(self, event):
            pass

        def disposing(self, source):
            pass

    global veto
    veto = Veto()  # kept referenced for the life of the driver
    return veto


def guard(parent, argv):
    child = subprocess.Popen(argv)

    def watch():
        while True:
            if parent_gone(parent):
                os.killpg(0, signal.SIGKILL)
            time.sleep(0.1)

    threading.Thread(target=watch, daemon=True).start()
    code = child.wait()
    os._exit(code if code >= 0 else 128 - code)


def main():
    # uno is imported here, not at the top, so the guard mode starts without it.
    global office, uno, PropertyValue
    import uno
    from com.sun.star.beans import PropertyValue
    from com.sun.star.connection import NoConnectException

    cfg = json.loads(sys.argv[1])
    # "parent": null inside a bubblewrap sandbox, whose --die-with-parent ends it with Node (the
    # driver sees only its own PID namespace there, where its parent is the sandbox's init).
    watched = cfg.get("parent", 0) is not None
    parent = cfg.get("parent")
    if watched and parent_gone(parent):
        os._exit(6)
    # In this process group, not a new one: a group of its own, reported to Node afterwards, was
    # left running when Node's deadline killed this driver between the start and the report.
    office = subprocess.Popen(cfg["argv"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Started after office is set, so a parent that died at any point before is still caught.
    if watched:
        threading.Thread(target=watch_parent, args=(parent,), daemon=True).start()
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + cfg.get("startTimeout", 60)
    ctx = None
    while ctx is None:
        if office.poll() is not None:
            reply({"event": "exited", "code": office.returncode})
            die(3)
        if time.monotonic() > deadline:
            reply({"event": "start-timeout"})
            die(4)
        try:
            ctx = resolver.resolve(cfg["connect"])
        except NoConnectException:
            time.sleep(0.05)
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    # A `soffice --convert-to` started with this profile hands its job to this instance (the
    # converter does so for documents that crash a load over UNO), which would then terminate:
    # veto that, so the instance stays up. The driver stops LibreOffice with SIGKILL anyway.
    desktop.addTerminateListener(terminate_veto())
    reply({"event": "ready", "pid": office.pid})

    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        doc = None
        stage = "load"
        try:
            load = {
                "Hidden": True,
                "ReadOnly": True,
                "FilterName": job["inFilter"],
                "MacroExecutionMode": 0,
                "UpdateDocMode": 0,
            }
            if job.get("inFilterOptions"):
                load["FilterOptions"] = job["inFilterOptions"]
            doc = desktop.loadComponentFromURL(job["input"], "_blank", 0, props(load))
            if doc is None:
                reply({"ok": False, "kind": "load", "error": "no document loaded"})
                continue
            stage = "store"
            data = uno.Any("[]com.sun.star.beans.PropertyValue", props(job.get("filterData", {})))
            store = {"FilterName": job["outFilter"], "Overwrite": True}
            if job.get("filterData"):
                store["FilterData"] = data
            uno.invoke(doc, "storeToURL", (job["output"], uno.Any("[]com.sun.star.beans.PropertyValue", props(store))))
            reply({"ok": True})
        except Exception as error:
            alive = office.poll() is None
            name = type(error).__name__
            text = "%s: %s" % (name, getattr(error, "Message", str(error)))
            if not alive or name == "DisposedException" or "bridge" in text.lower():
                reply({"ok": False, "kind": "crash", "error": text})
                die(5)
            reply({"ok": False, "kind": stage, "error": text})
        finally:
            if doc is not None:
                try:
                    doc.close(True)
                except Exception:
                    pass
    die(0)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "guard":
        guard(int(sys.argv[2]), sys.argv[3:])
    else:
        main()
