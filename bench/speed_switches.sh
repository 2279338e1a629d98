# The speed switches that `SWITCHES=on bench/sim_speed.sh` and bench/sim_fidelity.sh turn on, in one place, so a
# new switch reaches both: `sim.fidelity = fast`, the chunk switch (docs/performance.md, "Decode chunks that run
# past finishes", 3-step chunks) on top of the exact re-fills that are the defaults ("Departures re-fill above
# their level", "Arrivals re-fill above their first saturation"; docs/configuration.md, `sim.fidelity`). Sourced.
speed_switches=(--set sim.fidelity=fast)
