import sys, json
from benchmarks import drag
from benchmarks._util import run_standalone_on_screen
def main(argv=None):
    within, slider = float(sys.argv[1]), sys.argv[2]
    from explorer.model import coordinator
    coordinator.DRAWN_WITHIN_S = within
    res = drag.measure(1024, 64, 8, 240, 120.0, slider, 0, repeats=5)
    print("RESULT", within, slider, round(res["latency_frames"], 2), res["latency_from_due_each_ms"], round(res["weights_drawn_per_s"], 1), round(res["all_latency_frames"],1))
if __name__ == "__main__":
    run_standalone_on_screen(main)
