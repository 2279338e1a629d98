"""A capacity question: how many agents per second can DS 27B on 1P1D serve within a 0.3 s TTFT, with Basic and with
DualPath? Short probes (300 s of arrivals, the TTFT-only stop rule) keep it to about a minute; docs/capacity.md has
the full-length question.

    python3 examples/python/capacity_question.py
"""
import os

import dualpath as dp

scenario = dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "ds27b-1p1d.json"), set={
    "workload.mode": "online", "workload.aps": 0.5, "workload.duration": "300 s", "workload.stop": "slo-ttft"})
answer = dp.capacity(scenario, policies=["basic", "dualpath"], slo_ttft="0.3 s", resolution=0.1, jobs=2)
for name, p in answer["policies"].items():
    print(f"{name:9s} holds {p['capacity_aps']:.3f} APS (fails at {p['lowest_failing_aps']:.3f}; "
          f"{len(p['probes'])} probes; binds on {p.get('binds_at_capacity', '?')})")
