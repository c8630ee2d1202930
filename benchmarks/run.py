"""Run every benchmark of issue 7 side by side and print one table of figures and ratios.

    .venv/bin/python -m benchmarks.run            # the full run, about 2-4 minutes
    .venv/bin/python -m benchmarks.run --quick    # smaller sizes and fewer repeats, about a minute
    .venv/bin/python benchmarks/run.py --only edit --sizes 512,1024
    .venv/bin/python -m benchmarks.run --only hostile   # hostile session files refused, no Qt

Each part runs in its own offscreen child process (see ``benchmarks/_util.py``); inside a part the
app and its references are timed in the same process, interleaved, so a busy machine slows all of
them alike. Progress goes to stderr, the tables (Markdown) to stdout. No test asserts on time.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._util import FRAME_MS, machine, run_child, xvfb, xvfb_available  # noqa: E402

TARGET_EDIT_REF = 1.25  # app edit→pixels at most 1.25× the bare pyqtgraph reference doing the same work (aim 1.0)
TARGET_EDIT_MPL = 4.0  # and at least 4× faster than matplotlib
TARGET_EDIT_FRAME = FRAME_MS  # and within one 60 Hz frame at L ≤ 512
TARGET_DRAG_FRAMES = 2.0
TARGET_LARGE_DRAG_PER_S = 3.0  # a temperature drag at L = 4096 shows a new value at least 3 times a second
TARGET_FIRST_RESULTS_S = 0.5  # a 4096 × 512, 8-head session's first results after the window shows it
TARGET_BLOCK_MS = 100.0
TARGET_RSS = 1.5
TARGET_TABLES_MS = 100.0  # "instantly": within the 0.1 s people perceive as immediate
TARGET_STARTUP = 1.5
TARGET_HOSTILE_S = 1.0  # docs/reliability.md: a hostile session file is refused in under a second


def mark(ok):
    return "✓" if ok else "✗"


def fmt_ms(ms):
    if ms is None or (isinstance(ms, float) and math.isnan(ms)):
        return "—"
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    return f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"


def gib(b):
    return f"{b / 2 ** 30:.2f} GiB"


def log(text):
    print(text, file=sys.stderr, flush=True)


def parse(argv):
    p = argparse.ArgumentParser(description="Attention Explorer benchmarks (issue 7): one table of figures and ratios")
    p.add_argument("--quick", action="store_true",
                   help="L = 4, 64, 512 for edit→pixels, 3 repeats, the cell slider only, L = 2048 for the large part")
    p.add_argument("--sizes", help="comma-separated L for edit→pixels (default 4,64,512,1024)")
    p.add_argument("--repeats", type=int, help="timed repeats per size (default 7, 5 at L ≥ 1024; --quick 3)")
    p.add_argument("--only", help="comma-separated parts: edit,drag,large,open,startup,hostile (default all)")
    p.add_argument("--drag-L", type=int, default=1024)
    p.add_argument("--large-L", type=int, help="L of the large part (default 4096; --quick 2048)")
    p.add_argument("--startup-runs", type=int, help="start-ups of each kind (default 5; --quick 3)")
    p.add_argument("--blas-threads", type=int,
                   help="set OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/MKL_NUM_THREADS in the children")
    p.add_argument("--no-mpl", action="store_true", help="skip the matplotlib comparison")
    p.add_argument("--offscreen", action="store_true",
                   help="edit and drag offscreen, painted by grab(), instead of on a private Xvfb with the pixels "
                        "read back from the screen (the default where Xvfb is installed)")
    p.add_argument("--json", metavar="FILE", help="also write every raw figure to FILE")
    a = p.parse_args(argv)
    a.sizes = [int(x) for x in a.sizes.split(",")] if a.sizes else ([4, 64, 512] if a.quick else [4, 64, 512, 1024])
    parts = {"edit", "drag", "large", "open", "startup", "hostile"}
    a.only = set(a.only.split(",")) if a.only else parts
    unknown = a.only - parts
    if unknown:
        p.error(f"unknown parts: {', '.join(sorted(unknown))}")
    a.large_L = a.large_L or (2048 if a.quick else 4096)
    a.startup_runs = a.startup_runs or (3 if a.quick else 5)
    return a


def main(argv=None):
    a = parse(argv)
    env = None
    if a.blas_threads:
        env = {k: str(a.blas_threads) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    if not a.no_mpl and importlib.util.find_spec("matplotlib") is None:
        log("matplotlib is not installed: the comparison is skipped (pip install matplotlib, or .[bench])")
        a.no_mpl = True
    if not a.offscreen and not xvfb_available():
        log("Xvfb is not installed: edit and drag run offscreen (grab() paints) instead of on a real screen")
        a.offscreen = True
    info = machine()
    if env:
        info["blas_threads"] = a.blas_threads
    info["screen"] = "offscreen (grab)" if a.offscreen else "Xvfb (pixels read back from the X server)"
    started = time.time()
    with (contextlib.nullcontext(None) if a.offscreen else xvfb()) as display:
        run_parts(a, env, display, results := {"machine": info})
    info["load_end"] = machine().get("load")
    info["wall_s"] = round(time.time() - started, 1)

    print(report(results))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))
        log(f"raw figures written to {a.json}")
    return 0


def run_parts(a, env, display, results):
    """Every part asked for, each in its own child; edit and drag on ``display`` (None: offscreen)."""
    results.update({"edit": [], "drag": [], "large": None, "tables": None, "open": None, "startup": None,
                    "hostile": None})

    if "edit" in a.only:
        for L in a.sizes:
            repeats = a.repeats or (3 if a.quick else (5 if L >= 1024 else 7))
            log(f"edit → pixels, L = {L} ({repeats} repeats) …")
            args = ["--L", L, "--repeats", repeats] + (["--no-mpl"] if a.no_mpl else [])
            results["edit"].append(run_child("edit_pixels", args, env=env, display=display))
    if "drag" in a.only:
        for slider in (("cell",) if a.quick else ("cell", "temperature")):
            log(f"drag, {slider} slider, L = {a.drag_L} …")
            results["drag"].append(run_child("drag", ["--L", a.drag_L, "--slider", slider], env=env,
                                             display=display))
        if not a.quick:
            log(f"drag, temperature slider, L = {a.large_L} …")
            results["drag"].append(run_child("drag", ["--L", a.large_L, "--slider", "temperature", "--events", 360],
                                             env=env, display=display, timeout=900))
    if "large" in a.only:
        log(f"L = {a.large_L}, 8 heads: GUI block and peak memory …")
        results["large"] = run_child("large", ["--part", "window", "--L", a.large_L], env=env, timeout=900)
        log(f"L = {a.large_L}, D = 768: the editor's tables …")
        results["tables"] = run_child("large", ["--part", "tables", "--L", a.large_L], env=env)
    if "open" in a.only:
        L = 4096 if a.large_L >= 4096 else a.large_L
        log(f"open a {L} × 512, 8-head session file (JSON and .aesz) …")
        results["open"] = run_child("open_file", ["--L", L, "--repeats", 1 if a.quick else 2], env=env, timeout=900)
    if "startup" in a.only:
        log(f"start-up, {a.startup_runs} runs each …")
        results["startup"] = run_child("startup", ["--runs", a.startup_runs], env=env)
        if display:  # also as a person sees it: on a (private) X server, pixels read back
            log(f"start-up on a real screen, {a.startup_runs} runs each …")
            results["startup_screen"] = run_child("startup", ["--runs", a.startup_runs, "--screen"], env=env)
    if "hostile" in a.only:
        log("hostile session files, refused by load_session …")
        results["hostile"] = run_child("hostile_files", ["--repeats", 1 if a.quick else 3], env=env)


def report(r):
    m = r["machine"]
    out = [f"# Attention Explorer benchmarks — {time.strftime('%Y-%m-%d %H:%M')}", "",
           f"{m.get('cpu', '?')}, {m['cpus']} CPUs, {m.get('ram_gib', '?')} GiB RAM; edit and drag: "
           f"{m.get('screen', 'offscreen')}, the rest offscreen; "
           f"load average {m.get('load', ['?'])[0]} at start, {(m.get('load_end') or ['?'])[0]} at end; "
           f"Python {m['python']}, PySide6 {m.get('pyside6')}, pyqtgraph {m.get('pyqtgraph')}, "
           f"NumPy {m.get('numpy')}, matplotlib {m.get('matplotlib') or 'not installed'}; "
           f"BLAS threads {m.get('blas_threads')}; whole run {m.get('wall_s')} s.", ""]
    if r["edit"]:
        e0 = r["edit"][0]
        where = "real screen (Xvfb)" if e0.get("screen") else "offscreen (grab)"
        out += [f"## ① Edit → pixels, {where}: a Q cell, d = {e0['d']}, {e0['heads']} heads (median ms)", "",
                "| L | app | pyqtgraph reference, same work | matplotlib, same work | app / reference "
                f"(≤ {TARGET_EDIT_REF}, aim 1.0) | matplotlib / app (≥ {TARGET_EDIT_MPL:.0f}) | app within one frame "
                f"(L ≤ 512) | matplotlib / reference | whole-window `grab()` |",
                "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for e in r["edit"]:
            app, ref = e["app"]["median_ms"], e["reference"]["median_ms"]
            mpl = e.get("matplotlib", {}).get("median_ms")
            ratio_ref = app / ref
            frame = f"{app / FRAME_MS:.2f} frames {mark(app <= TARGET_EDIT_FRAME)}" if e["L"] <= 512 else "—"
            cells = [str(e["L"]), fmt_ms(app), fmt_ms(ref), fmt_ms(mpl),
                     f"{ratio_ref:.2f}× {mark(ratio_ref <= TARGET_EDIT_REF)}"]
            if mpl:
                ratio_mpl = mpl / app
                cells += [f"{ratio_mpl:.2f}× {mark(ratio_mpl >= TARGET_EDIT_MPL)}", frame, f"{mpl / ref:.2f}×"]
            else:
                cells += ["—", frame, "—"]
            whole = (e.get("whole-window grab") or e.get("idle window grab") or {}).get("median_ms")
            cells += [fmt_ms(whole)]
            if not e.get("consistent", True):
                cells[0] += " (!)"
            out.append("| " + " | ".join(cells) + " |")
        work = ("the edited row of the head's scores, weights and output recomputed"
                if e0.get("reference_work", "full") == "row" else "every head recomputed")
        pixels = ("the pixels over each side's weights heatmap read back from the X server "
                  "(`QScreen.grabWindow`), the three 1600×1000 windows side by side on one Xvfb screen"
                  if e0.get("screen") else "`grab()` of each side's weights heatmap (offscreen: it repaints it)")
        out += ["", "app: `table.setData` on the editor's Q model → `model.flush()` → `processEvents()` → the pixels; "
                f"reference: plain NumPy ({work}) + `ImageItem.setImage` ×3 in a bare 1600×1000 pyqtgraph window "
                "with the same heatmaps in the same places + `processEvents()` + the pixels; matplotlib: the same "
                "NumPy + `set_data` ×3 + `canvas.draw()` (Qt backend on the screen, Agg offscreen) + the pixels. "
                f"The pixels: {pixels}. Whole-window `grab()` is the old offscreen measure's paint, the app's whole "
                "window repainted with nothing changed, which a real screen never does after an edit. "
                "matplotlib / reference: the most any program doing the reference's work can gain on matplotlib.",
                ""]
    if r["drag"]:
        d0 = r["drag"][0]
        out += [f"## ② Drag: slider events at {d0['rate']:.0f}/s, {d0['heads']} heads", "",
                "| L | slider | events | whole results (shown head first) | drag duration (÷ 16.7 ms) | weights "
                "heatmap painted | new values drawn during the drag | longest wait for one | last event → on screen "
                "(≤ 2 frames at L ≤ 1024) | … every panel | longest GUI block | reference NumPy stages, every head |",
                "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for d in r["drag"]:
            ok = d["latency_frames"] <= TARGET_DRAG_FRAMES if d["L"] <= 1024 else None
            painted = d.get("weights_paints")
            rate = d.get("weights_drawn_per_s")
            rate_ok = "" if d["L"] <= 1024 or rate is None else " " + mark(rate >= TARGET_LARGE_DRAG_PER_S)
            every = d.get("all_latency_from_due_ms")
            out.append(f"| {d['L']} | {d['slider']} | {d['events']} | {d['recomputes']} ({d.get('shown_head_first', '—')}) | "
                       f"{d['drag_frames']:.0f} | {'—' if painted is None else painted} | "
                       + ("—" if rate is None else f"{rate:.1f}/s{rate_ok}") + " | "
                       f"{fmt_ms(d.get('longest_wait_for_a_new_value_ms'))} | {fmt_ms(d['latency_from_due_ms'])} = "
                       f"{d['latency_frames']:.1f} frames{'' if ok is None else ' ' + mark(ok)} | "
                       + ("—" if every is None else f"{fmt_ms(every)} = {d['all_latency_frames']:.1f} frames") + " | "
                       f"{fmt_ms(d['longest_tick_gap_ms'])} | {fmt_ms(d.get('reference_stages_ms'))} |")
        out += ["", "Whole results (`changed`) and the shown head's ① and ② handed over first (`shown_ready`) coalesce "
                "(far fewer than events). A cell drag updates one row in place on the GUI thread; a temperature drag "
                "recomputes every head on the worker thread, the selected head first: its scores and weights are "
                "drawn as soon as they are made, and a newer value stops the job once they have been (so during a "
                "drag the other heads and ③ wait for the pointer to rest). \"New values drawn\": the weights "
                "heatmap's draws while the pointer moved, per second of it. \"Last event → on screen\": the weights "
                "heatmap showing the last value, its pixels read back; \"every panel\": the whole results, the "
                "output heatmap's pixels. The last column is the plain NumPy of one whole recompute on one core.", ""]
    big, tables = r["large"], r["tables"]
    if big or tables:
        L = (big or tables)["L"]
        out += [f"## ③ L = {L} stays usable", "", "| figure | measured | target | met |", "|---|---:|---:|:---:|"]
        if big:
            blocks = " / ".join(fmt_ms(e["longest_block_ms"]) for e in big["edits"])
            kinds = " / ".join(e.get("kind", f"edit {i + 1}") for i, e in enumerate(big["edits"]))
            out.append(f"| longest GUI-thread block during an edit ({big['heads']} heads, d = {big['d']}; "
                       f"{kinds}) | {blocks} | ≤ {TARGET_BLOCK_MS:.0f} ms | "
                       f"{mark(big['longest_block_ms'] <= TARGET_BLOCK_MS)} |")
            out.append(f"| edit → pixels ({kinds}) | "
                       + " / ".join(f"{e['edit_to_pixels_s']:.2f} s" for e in big["edits"]) + " | — | |")
            out.append("| kernel CPU time in it (mapping fresh memory), page faults | "
                       + " / ".join(f"{e['sys_s']:.2f} s ({e['minor_faults'] / 1e3:.0f} k faults)"
                                    for e in big["edits"]) + " | — | |")
            out.append(f"| peak RSS (open, 8 heads, edit) / (H, L, L) float64 scores + weights | {gib(big['peak_rss'])} / "
                       f"{gib(big['model_arrays_bytes'])} = {big['peak_over_arrays']:.2f}× | ≤ {TARGET_RSS}× | "
                       f"{mark(big['peak_over_arrays'] <= TARGET_RSS)} |")
            if big.get("peak_rss_edit"):
                out.append(f"| … during the edits alone (RSS before them {gib(big['rss_before_edit'])}) | "
                           f"{gib(big['peak_rss_edit'])} = {big['peak_rss_edit'] / big['model_arrays_bytes']:.2f}× | "
                           f"≤ {TARGET_RSS}× | {mark(big['peak_rss_edit'] / big['model_arrays_bytes'] <= TARGET_RSS)} |")
            out.append(f"| open the window (1 head): shown, covered while computing / with its results / then "
                       f"switch to {big['heads']} heads | {big['open_s']:.2f} s / "
                       f"{big.get('open_results_s', float('nan')):.2f} s / {big['set_heads_s']:.2f} s | — | |")
        if tables:
            out.append(f"| editor's tables open, {tables['L']} × {tables['d']} (build, show, paint) | "
                       f"{fmt_ms(tables['open_ms'])} | ≤ {TARGET_TABLES_MS:.0f} ms | "
                       f"{mark(tables['open_ms'] <= TARGET_TABLES_MS)} |")
            out.append(f"| scroll to the far corner / select a cell | {fmt_ms(tables['scroll_corner_ms'])} / "
                       f"{fmt_ms(tables['select_cell_ms'])} | ≤ {TARGET_TABLES_MS:.0f} ms | "
                       f"{mark(max(tables['scroll_corner_ms'], tables['select_cell_ms']) <= TARGET_TABLES_MS)} |")
        out.append("")
    o = r.get("open")
    if o:
        out += [f"## ⑥ Open a {o['L']} × {o['d']}, {o['heads']}-head session with File ▸ Open (reading included)", "",
                "| file | size | longest GUI block (≤ 100 ms) | of it: handing the session to the window | "
                f"session shown | first results on screen after it (≤ {TARGET_FIRST_RESULTS_S} s) | all its results on "
                "screen (after shown) | before: `load_session` on the GUI thread |",
                "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for kind, label in (("json", "JSON"), ("aesz", "binary (.aesz)")):
            x = o[kind]
            out.append(f"| {label} | {o['bytes'][kind] / 2 ** 20:.0f} MiB | {fmt_ms(x['longest_block_ms'])} "
                       f"{mark(x['longest_block_ms'] <= TARGET_BLOCK_MS)} | {fmt_ms(x['show_ms'])} | "
                       f"{x['shown_s']:.2f} s | " + (f"{x['first_results_after_shown_s']:.2f} s "
                       f"{mark(x['first_results_after_shown_s'] <= TARGET_FIRST_RESULTS_S)}"
                       if "first_results_after_shown_s" in x else "—") + " | "
                       f"{x['results_s']:.2f} s ({x['results_after_shown_s']:.2f} s) | "
                       f"{x['load_session_on_gui_thread_s']:.2f} s |")
        out += ["", "A 2-ms heartbeat on the GUI thread during `Documents.open` of each file until every heatmap shows "
                "the new results (worst of the runs; times are medians). A JSON file is parsed in another process "
                "(`explorer.core.session_convert`) and handed back in the binary form, which a thread reads. First "
                "results: the selected head's scores and weights, drawn and uncovered before the other heads are "
                "made.", ""]
    s = r["startup"]
    if s:
        ratio = s["ratio"]["total"]
        out += [f"## ④ Start-up to the first painted window (median of {s['runs']} fresh processes)", "",
                "| | total | imports | build | show + paint |", "|---|---:|---:|---:|---:|"]
        for kind, label in (("app", "Attention Explorer (demo)"), ("empty", "empty pyqtgraph window")):
            x = s[kind]
            out.append(f"| {label} | {fmt_ms(1000 * x['total'])} | {fmt_ms(1000 * x['imports'])} | "
                       f"{fmt_ms(1000 * x['build'])} | {fmt_ms(1000 * x['paint'])} |")
        complete = s["app"].get("complete", s["app"]["total"])
        out += ["", f"app / empty (median of each round's ratio) = **{ratio:.2f}×** (target ≤ {TARGET_STARTUP}) "
                f"{mark(ratio <= TARGET_STARTUP)}; every panel on screen drawn at {fmt_ms(1000 * complete)} = "
                f"{s['ratio']['complete']:.2f}× the empty window", ""]
    s = r.get("startup_screen")
    if s:
        painted, complete = s["ratio"]["total"], s["ratio"]["complete"]  # medians of each round's ratio
        out += [f"On a real screen (Xvfb; each clock stops when the pixels are read back from the X server, no "
                f"whole-window `grab()`): first paint {fmt_ms(1000 * s['app']['total'])} vs "
                f"{fmt_ms(1000 * s['empty']['total'])} = **{painted:.2f}×**; every panel on screen drawn "
                f"{fmt_ms(1000 * s['app']['complete'])} = **{complete:.2f}×** {mark(complete <= TARGET_STARTUP)}", ""]
    h = r.get("hostile")
    if h:
        out += [f"## ⑤ Hostile session files refused by `load_session` (≤ {TARGET_HOSTILE_S:.0f} s each)", "",
                "| file | files | largest | time | met |", "|---|---:|---:|---:|:---:|"]
        for row in h["rows"]:
            size = row["bytes"]
            size_text = (f"{size / 2 ** 30:,.0f} GiB" if size >= 2 ** 30 else f"{size / 2 ** 20:.1f} MiB"
                         if size >= 2 ** 20 else f"{size / 1024:.1f} KiB")
            out.append(f"| {row['kind']} | {row['files']} | {size_text} | {fmt_ms(1000 * row['seconds'])} | "
                       f"{mark(row['seconds'] <= TARGET_HOSTILE_S)} |")
        slowest = max(h["rows"], key=lambda row: row["seconds"])
        out += ["", f"Slowest: {slowest['kind']}, {fmt_ms(1000 * slowest['seconds'])}. Huge files: the median of "
                f"{h['repeats']} load(s) each; damaged files: each loaded once, the slowest of each kind. The tests bound "
                "the same loads by counted work instead (one open, one read, at most one parse).", ""]
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
