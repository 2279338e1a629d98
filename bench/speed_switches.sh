# The speed switches that `SWITCHES=on bench/sim_speed.sh` and bench/sim_fidelity.sh turn on, in one place, so a
# new switch reaches both (docs/performance.md: "Decode chunks that run past finishes", 3-step chunks; "Departures
# re-fill above their level"; "Arrivals re-fill above their first saturation"). Sourced, not run.
speed_switches=(--set sim.decode_chunk_end=steps --set sim.decode_chunk_steps=3 --set sim.departures=above-departed
                --set sim.arrivals=above-saturation)
