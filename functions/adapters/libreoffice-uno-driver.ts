/**
 * unoDriverSource is the python3 program that keeps one LibreOffice running and converts over UNO.
 * It is kept as a string (written to the converter's private folder at start) so bundlers need no
 * extra asset. Usage: python3 driver.py '<json: {"argv": [...], "connect": "uno:pipe,...", "startTimeout": s}>'.
 * It starts soffice (argv, in a process group of its own whose id it reports at once as {"event":"spawned","pid"}),
 * connects, prints {"event":"ready"}, then reads one
 * JSON job per line on stdin and answers one JSON line per job on stdout:
 *   {"input", "output" (file URLs), "inFilter", "outFilter", "filterData": {name: value}}
 *   -> {"ok": true} | {"ok": false, "kind": "load"|"store", "error"} | {"ok": false, "kind": "crash", "error"} (then exits).
 * When stdin closes (the Node process went away) it kills LibreOffice and exits.
 */
export const unoDriverSource = String.raw`
import json, os, signal, subprocess, sys, time
import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def props(values):
    out = []
    for name, value in values.items():
        p = PropertyValue()
        p.Name = name
        p.Value = value
        out.append(p)
    return tuple(out)


def die(office, code):
    # soffice is a launcher: kill its whole process group, soffice.bin included.
    try:
        os.killpg(office.pid, signal.SIGKILL)
    except Exception:
        pass
    os._exit(code)


def main():
    cfg = json.loads(sys.argv[1])
    office = subprocess.Popen(cfg["argv"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    reply({"event": "spawned", "pid": office.pid})
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + cfg.get("startTimeout", 60)
    ctx = None
    while ctx is None:
        if office.poll() is not None:
            reply({"event": "exited", "code": office.returncode})
            die(office, 3)
        if time.monotonic() > deadline:
            reply({"event": "start-timeout"})
            die(office, 4)
        try:
            ctx = resolver.resolve(cfg["connect"])
        except NoConnectException:
            time.sleep(0.05)
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    reply({"event": "ready", "pid": office.pid})

    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        doc = None
        stage = "load"
        try:
            doc = desktop.loadComponentFromURL(job["input"], "_blank", 0, props({
                "Hidden": True,
                "ReadOnly": True,
                "FilterName": job["inFilter"],
                "MacroExecutionMode": 0,
                "UpdateDocMode": 0,
            }))
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
                die(office, 5)
            reply({"ok": False, "kind": stage, "error": text})
        finally:
            if doc is not None:
                try:
                    doc.close(True)
                except Exception:
                    pass
    die(office, 0)


main()
`;
