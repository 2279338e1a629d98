#!/usr/bin/env bash
# Validates every bundled model, topology and scenario file against its JSON Schema (draft 2020-12), and checks
# that the schemas reject a few bad documents, so they are not vacuous. Needs a Python with the jsonschema
# module (Debian: python3-jsonschema); exits 77 (ctest: skipped, not passed) when none is found.
# Usage: config_schemas.sh <dualpath-binary> <repo-root>
set -u
ROOT="$2"
PY=""
for candidate in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
  if [ -n "$candidate" ] && "$candidate" -c 'import jsonschema' 2>/dev/null; then PY="$candidate"; break; fi
done
if [ -z "$PY" ]; then
  echo "config_schemas: SKIPPED (no python3 with jsonschema; install python3-jsonschema)"
  exit 77
fi

exec "$PY" - "$ROOT" <<'PYEOF'
import copy, glob, json, os, sys, warnings
import jsonschema

root = sys.argv[1]
warnings.simplefilter("ignore", DeprecationWarning)  # RefResolver is deprecated in jsonschema >= 4.18
schemas = {}
for folder in ("models", "topologies", "scenarios"):
    with open(os.path.join(root, folder, "schema.json"), encoding="utf-8") as f:
        schemas[folder] = json.load(f)
store = {s["$id"]: s for s in schemas.values()}

def validator(schema):
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    try:  # jsonschema >= 4.18
        from referencing import Registry, Resource
        registry = Registry().with_resources((k, Resource.from_contents(v)) for k, v in store.items())
        return cls(schema, registry=registry)
    except ImportError:  # Debian 12 ships 4.10, which resolves $ref through RefResolver
        return cls(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))

failures = 0
checked = 0
for folder, schema in schemas.items():
    v = validator(schema)
    for path in sorted(glob.glob(os.path.join(root, folder, "*.json"))):
        if os.path.basename(path).endswith("schema.json"):  # schema.json, overlay.schema.json
            continue
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        errors = list(v.iter_errors(doc))
        checked += 1
        for e in errors:
            failures += 1
            print(f"FAIL {os.path.relpath(path, root)}: /{'/'.join(map(str, e.absolute_path))}: {e.message}")

# Overlay files (scenarios/overlays/*.json) have their own schema.
with open(os.path.join(root, "scenarios", "overlay.schema.json"), encoding="utf-8") as f:
    schemas["overlay"] = json.load(f)
ov = validator(schemas["overlay"])


def check_files(v, paths):
    """Validates each file against `v`, counting it and each error."""
    global checked, failures
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        checked += 1
        for e in v.iter_errors(doc):
            failures += 1
            print(f"FAIL {os.path.relpath(path, root)}: /{'/'.join(map(str, e.absolute_path))}: {e.message}")


check_files(ov, sorted(glob.glob(os.path.join(root, "scenarios", "overlays", "*.json"))))

# Calibration files (calibrations/*.json) have their own schema, and it refuses a model key and a value without
# its figures' entry shape.
with open(os.path.join(root, "calibrations", "schema.json"), encoding="utf-8") as f:
    cal = validator(json.load(f))
check_files(cal, [p for p in sorted(glob.glob(os.path.join(root, "calibrations", "*.json")))
                 if os.path.basename(p) != "schema.json"])
for label, bad in (("a model key", {"calibration": 1, "name": "x", "label": "x", "set": {"model.linear_efficiency": 0.5}}),
                   ("no figures", {"calibration": 1, "name": "x", "label": "x", "set": {},
                                   "parameters": {"topology.snic_bw": {"fitted_to": []}}})):
    if cal.is_valid(bad):
        failures += 1
        print(f"FAIL calibrations/schema.json accepts a bad document: {label}")

# Bad documents the schemas must reject.
with open(os.path.join(root, "topologies", "hopper-8gpu-80g.json"), encoding="utf-8") as f:
    topo = json.load(f)
with open(os.path.join(root, "scenarios", "default.json"), encoding="utf-8") as f:
    scen = json.load(f)
bad = []
t = copy.deepcopy(topo); t["snic_bw"] = "80 GiB"; bad.append(("topologies", "bandwidth given as bytes", t))
t = copy.deepcopy(topo); t["snic_bw"] = 400; bad.append(("topologies", "bandwidth without unit", t))
t = copy.deepcopy(topo); t["gpu"]["flops"] = "989 TiFLOPS"; bad.append(("topologies", "binary FLOP prefix", t))
t = copy.deepcopy(topo); t["snic"] = "400 Gbps"; bad.append(("topologies", "unknown key", t))
with open(os.path.join(root, "models", "ds-27b.json"), encoding="utf-8") as f:
    model = json.load(f)
m = copy.deepcopy(model); m["profile"] = "p.json"; bad.append(("models", "a profile without timing = profile", m))
m = copy.deepcopy(model); m["timing"] = "profile"; bad.append(("models", "timing = profile without a profile", m))
s = copy.deepcopy(scen); s["workload"]["mode"] = "batch"; bad.append(("scenarios", "bad mode", s))
s = copy.deepcopy(scen); del s["workload"]["agents"]; bad.append(("scenarios", "offline without agents", s))
s = copy.deepcopy(scen); s["deployment"]["fetch_period"] = "50 GB"; bad.append(("scenarios", "duration as bytes", s))
s = copy.deepcopy(scen); s["model"] = {"name": "x"}; bad.append(("scenarios", "inline model missing keys", s))
s = copy.deepcopy(scen); s["topology"] = dict(topo, cnic_bw="1 s"); bad.append(("scenarios", "inline topology bad unit", s))
s = copy.deepcopy(scen); s["decode_topology"] = dict(topo, snic_bw="1 s"); bad.append(("scenarios", "inline decode_topology bad unit", s))
faults = [{"kind": "snic-down", "node": 0, "at": "300 s", "until": "600 s"},
          {"kind": "snic-degrade", "node": 1, "factor": 0.5, "at": "1 s"},
          {"kind": "storage-degrade", "factor": 0.25, "at": "10 s", "until": "20 s"},
          {"kind": "node-down", "node": 1, "at": "30 s"},
          {"kind": "cnic-down", "node": 1, "gpu": 3, "at": "30 s"}]
s = copy.deepcopy(scen); s["faults"] = faults; checked += 1
for e in validator(schemas["scenarios"]).iter_errors(s):
    failures += 1
    print(f"FAIL scenarios/schema.json refuses documented faults: {e.message}")
# The DRAM pool's documented settings are accepted; a bad eviction or a size without unit is not.
s = copy.deepcopy(scen); s["policy"] = {"name": "dram-pool", "pool": {"bytes_per_node": "80 GB", "eviction": "none"}}
checked += 1
for e in validator(schemas["scenarios"]).iter_errors(s):
    failures += 1
    print(f"FAIL scenarios/schema.json refuses documented pool settings: {e.message}")
s = copy.deepcopy(scen); s["policy"] = {"name": "dram-pool", "pool": {"eviction": "random"}}
bad.append(("scenarios", "unknown pool eviction", s))
s = copy.deepcopy(scen); s["policy"] = {"name": "dram-pool", "pool": {"bytes_per_node": 80e9}}
bad.append(("scenarios", "pool size without unit", s))
for label, f in (("unknown fault kind", {"kind": "node-up", "node": 0, "at": "1 s"}),
                 ("fault time without unit", {"kind": "snic-down", "node": 0, "at": 300}),
                 ("snic-down with a factor", {"kind": "snic-down", "node": 0, "factor": 0.5, "at": "1 s"}),
                 ("degrade without factor", {"kind": "snic-degrade", "node": 0, "at": "1 s"}),
                 ("storage-degrade with a node", {"kind": "storage-degrade", "node": 0, "factor": 0.5, "at": "1 s"}),
                 ("factor 1", {"kind": "snic-degrade", "node": 0, "factor": 1, "at": "1 s"}),
                 ("node-down with until", {"kind": "node-down", "node": 0, "at": "1 s", "until": "2 s"}),
                 ("node-down without node", {"kind": "node-down", "at": "1 s"}),
                 ("cnic-down without gpu", {"kind": "cnic-down", "node": 0, "at": "1 s"}),
                 ("a gpu on another kind", {"kind": "node-down", "node": 0, "gpu": 1, "at": "1 s"})):
    s = copy.deepcopy(scen); s["faults"] = [f]; bad.append(("scenarios", label, s))
o = {"overlay": 1, "set": {"topology.snic_bw": "1 GB/s"}}
bad.append(("overlay", "wrong version", dict(o, overlay=2)))
bad.append(("overlay", "unknown top-level key", dict(o, sets={})))
bad.append(("overlay", "missing set", {"overlay": 1}))
bad.append(("overlay", "set not an object", dict(o, set=["topology.snic_bw=1 GB/s"])))
bad.append(("overlay", "empty path segment", dict(o, set={"topology..snic_bw": "1 GB/s"})))
for folder, label, doc in bad:
    if validator(schemas[folder]).is_valid(doc):
        failures += 1
        print(f"FAIL {folder}/schema.json accepts a bad document: {label}")

print(f"config_schemas: {checked} files validated with jsonschema {getattr(jsonschema, '__version__', '?')}, "
      f"{len(bad)} bad documents, {failures} failures")
sys.exit(1 if failures else 0)
PYEOF
