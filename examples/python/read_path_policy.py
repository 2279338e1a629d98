"""A read-path policy in Python: read the hit KV through the DE node only when the PE node's storage read queue is
more than twice the DE node's (a lazier rule than DualPath's "shorter queue"), then compare it with both paper
policies on the default scenario.

    python3 examples/python/read_path_policy.py
"""
import os

import dualpath as dp


class LazySecondPath(dp.Policy):
    features = {"layerwise": True, "dual_path": True, "scheduler": True}  # DualPath's mechanisms

    def choose_read_side(self, view, request):
        pe = view.node(view.engine(request.pe).node).read_queue_tokens
        de = view.node(view.engine(request.de).node).read_queue_tokens
        return "de" if pe > 2 * de else "pe"


dp.register_policy("lazy-second-path", LazySecondPath)
scenario = dp.Scenario(os.path.join(dp.DATA_DIR, "scenarios", "default.json"), set={"workload.agents": 64})
for name, run in dp.compare(scenario, ["basic", "dualpath", "lazy-second-path"]).items():
    de_share = (run.requests["read_side"] == "de").mean()
    print(f"{name:17s} JCT {run.jct:7.1f} s, {100 * de_share:4.1f}% of reads through the DE node")
