#!/usr/bin/env python3
# npm ci refuses a lock that lacks entries for optional dependencies, and this machine's npm registry
# mirror answers 404 for the other-platform binaries of @biomejs/biome and oxc-parser (knip), so
# `npm install` writes such a lock. This adds a stub entry (version, os, cpu, libc, optional) for
# each missing optional package: npm ci then accepts the lock and skips them on this platform.
# Run after `npm install` changes package-lock.json: python3 scripts/lock-optional-stubs.py
import json, sys
p = sys.argv[1] if len(sys.argv) > 1 else "package-lock.json"
lock = json.load(open(p))
pk = lock["packages"]
added = []
for path, entry in list(pk.items()):
    for name, version in (entry.get("optionalDependencies") or {}).items():
        key = "node_modules/" + name
        if key in pk: continue
        leaf = name.split("/")[-1]
        parts = leaf.split("-")
        osn = next((o for o in ["android","darwin","freebsd","linux","win32","openharmony","netbsd","openbsd","sunos","aix","wasm32"] if o in parts), None)
        cpu = next((c for c in ["arm64","x64","ia32","arm","ppc64","riscv64","s390x","loong64","mips64el","wasm32"] if c in parts), None)
        stub = {"version": version, "dev": entry.get("dev", False), "optional": True}
        if not stub["dev"]: del stub["dev"]
        if cpu: stub["cpu"] = [cpu]
        if osn and osn != "wasm32": stub["os"] = [osn]
        if "musl" in parts or "musleabihf" in parts: stub["libc"] = ["musl"]
        elif osn == "linux": stub["libc"] = ["glibc"]
        pk[key] = stub
        added.append(key)
lock["packages"] = dict(sorted(pk.items(), key=lambda kv: (kv[0] != "", kv[0])))
json.dump(lock, open(p, "w"), indent=2)
open(p, "a").write("\n")
print("\n".join(added))
