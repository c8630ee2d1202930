"""Command line and ``main()``: ``attention-explorer [SESSION] [--screenshot FILE] [--export-script FILE]
[--size WxH] [--lang en|zh] [--model FOLDER [--text TEXT] [--layer N --head M]]``."""
import explorer.blas_at_start  # noqa: F401  (first: before anything loads NumPy)

import argparse
import gc
import os
import sys
import time
from pathlib import Path

USAGE_SIZE = "WIDTHxHEIGHT, e.g. 1600x1000"
# What Qt's offscreen platform says on every headless screenshot; harmless, and absent on a real display
OFFSCREEN_NOTES = ("This plugin does not support propagateSizeHints", "This plugin does not support raise")


def matrix_target(path):
    """For a matrix file given where a session goes: "Q", "K" or "V" when its name says which (Q.npy),
    "QKV" for an .npz (members Q, K, V), "" when there is no telling; None for any other file."""
    from explorer.core.matrix_io import MATRIX_LOAD_SUFFIXES  # what File ▸ Import matrix reads

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in MATRIX_LOAD_SUFFIXES:
        return None
    if suffix == ".npz":
        return "QKV"
    return path.stem.upper() if path.stem.upper() in ("Q", "K", "V") else ""


def matrix_advice(path):
    return (f"{Path(path).name} is a matrix file, not a session. Bring it in with File ▸ Import matrix ▸ into "
            f"Q, K or V… (or name it Q, K or V — e.g. Q.npy — to import it from the command line).")


def bring_in_matrix(window, path, target, quiet=False):
    """Import the matrix file ``path`` into ``target`` ("Q", "K", "V" or "QKV"); the reason it failed, or None.
    ``quiet``: say why in the returned text only (no dialog: a headless screenshot)."""
    documents, reasons = window.documents, []
    if quiet:
        documents.error = lambda title, text: reasons.append(text)
    try:
        done = documents.import_qkv(path) if target == "QKV" else documents.import_matrix(target, path)
    finally:
        if quiet:
            del documents.error  # the class's own again
    return None if done else (reasons[0] if reasons else f"could not import {Path(path).name}")


def open_session(app, window, path, quiet=False):
    """Open the SESSION argument as File ▸ Open does: a large file is read off the GUI thread (a JSON
    one in another process), the window shown and usable meanwhile. ``quiet``: wait until it is read
    and return why it could not be opened, if so (a headless screenshot, or before --model);
    otherwise a dialog says why. Returns None, or (not quiet) False when it failed at once."""
    documents = window.documents
    if not quiet:
        return None if documents.open(path, ask=False, remember=False) else False
    reasons = []
    documents.error = lambda title, text: reasons.append(text)
    try:
        documents.open(path, ask=False, remember=False)
        while documents.opening:
            app.processEvents()
            time.sleep(0.005)
    finally:
        del documents.error  # the class's own again
    return reasons[0] if reasons else None


def parse_size(text):
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--size must be {USAGE_SIZE}, got {text!r}") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"--size must be between 200x200 and 8000x8000, got {text!r}")
    return w, h


def build_parser():
    p = argparse.ArgumentParser(prog="attention-explorer",
                                description="Edit the numbers of attention and watch QKᵀ → softmax → ·V recompute.")
    p.add_argument("session", nargs="?", help="a session file (.json) to open; default: the chapter's demo. A matrix file named "
                                            "Q, K or V (Q.npy, K.csv, …) is imported into that matrix, an .npz "
                                            "with members Q, K and V into all three")
    p.add_argument("--screenshot", metavar="FILE", help="render the window headless to a PNG file and exit")
    p.add_argument("--export-script", metavar="FILE", help="write the session (SESSION, --model's head, or the demo) "
                   "as a NumPy script that recomputes, prints and saves its attention, and exit (2 if it cannot)")
    p.add_argument("--size", type=parse_size, default=None, metavar="WxH",
                   help="window size (default 1600x1000 for screenshots)")
    p.add_argument("--lang", choices=("en", "zh"), help="the interface's language for this run: en (English) or zh "
                   "(中文); default: the one chosen in View ▸ Language, else the system locale's")
    p.add_argument("--model", metavar="FOLDER", help="open a real model in the Model view: a checkpoint folder "
                   "(config.json, *.safetensors, tokenizer.json), a repo id already in the Hugging Face cache "
                   "(gpt2), or 'embedded' for the tiny model that ships with the explorer")
    p.add_argument("--text", help="the text to run through --model (default: the Model view's example)")
    p.add_argument("--layer", type=int, metavar="N", help="with --head: make that head of --model the session; layers "
                   "and heads count from 1, as the Model view shows them (the shipped model's induction head: "
                   "--layer 2 --head 1)")
    p.add_argument("--head", type=int, metavar="M", help="with --layer: make that head of --model the session "
                   "(counted from 1)")
    return p


def without_model(args):
    """Why --text, --layer or --head cannot be used here (no --model), or None."""
    given = [flag for flag, value in (("--text", args.text), ("--layer", args.layer), ("--head", args.head))
             if value is not None]
    if not given:
        return None
    return (f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --model (a checkpoint folder, a "
            f"cached repo id, or 'embedded')")


def open_model(window, args):
    """--model, --text, --layer and --head: the Model view runs the text; a chosen head becomes the
    session. Returns why it could not, or None."""
    if (args.layer is None) != (args.head is None):
        return "--layer and --head go together"
    if args.layer is not None and (args.layer < 1 or args.head < 1):
        return (f"--layer {args.layer} --head {args.head}: layers and heads count from 1, as the Model view shows "
                f"them (the first head is --layer 1 --head 1)")
    panel = window.open_model()
    if args.text is not None:
        panel.text.setText(args.text)
    failures = []
    window.model.checkpoints.failed.connect(failures.append)
    panel.open_model(args.model)
    if failures:
        return failures[-1]
    window.model.checkpoints.finish()
    if window.model.checkpoints.latest is None:
        return failures[-1] if failures else "the model did not run"
    said = []
    window.model.message.connect(said.append)
    if args.layer is not None:
        c = window.model.checkpoints.model.config
        if args.layer > c.layers or args.head > c.heads:
            return (f"--layer {args.layer} --head {args.head}: {args.model} has layers 1…{c.layers} and heads "
                    f"1…{c.heads}")
        if not panel.open_head(args.layer - 1, args.head - 1):
            return said[-1] if said else f"could not open layer {args.layer} head {args.head} of {args.model}"
        window.model.undo_stack.setClean()  # the session asked for, as a file opened: nothing to save yet
    return None


def quiet_offscreen_notes():
    """Leave out the offscreen platform's notes (a --screenshot run then prints only what is wrong); every
    other Qt message goes where it went. Returns the handler it replaced, to put back."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode, context, message):
        if message.startswith(OFFSCREEN_NOTES):
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = qInstallMessageHandler(handler)
    return previous


def main(argv=None):
    """Run the application; returns the exit status (0 on every normal exit)."""
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    headless = bool(args.screenshot or args.export_script)
    if headless and not os.environ.get("QT_QPA_PLATFORM") and not os.environ.get("DISPLAY"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"

    from explorer.gc_pause import paused_collection

    with paused_collection():  # Qt, NumPy, pyqtgraph and the explorer load without collections between them
        from explorer.main_window import MainWindow  # first: it loads NumPy before Qt

        from PySide6.QtCore import QEvent, qInstallMessageHandler
        from PySide6.QtWidgets import QApplication

        from explorer.i18n import set_language, starting_language
        from explorer.style import apply_style

    offscreen = os.environ.get("QT_QPA_PLATFORM") == "offscreen"
    previous_handler = quiet_offscreen_notes() if offscreen else None
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Attention Explorer")
    app.setOrganizationName("AttentionExplorer")
    apply_style(app)
    if not set_language(starting_language(args.lang)):
        print("attention-explorer: the 中文 translation could not be loaded; the interface is in English",
              file=sys.stderr)

    problem = None
    target = matrix_target(args.session) if args.session else None
    if target == "":
        problem = matrix_advice(args.session)
    session_path = args.session if args.session and target is None else None
    window = MainWindow(persist_layout=not headless, recovery=not headless)
    if args.size or args.screenshot:
        window.resize(*(args.size or (1600, 1000)))
    if session_path and (headless or args.model):  # needed before the picture or script, or before the model
        problem = open_session(app, window, session_path, quiet=True)
        session_path = None
    model_problem = None
    if not problem:
        problem = model_problem = open_model(window, args) if args.model else without_model(args)
    status = 0
    try:
        if headless:
            if target:
                problem = bring_in_matrix(window, args.session, target, quiet=True)
            if args.export_script:
                status = export_script(window, args.export_script, problem)
                problem = None
            if args.screenshot and status == 0:
                status = take_screenshot(app, window, args.screenshot, problem)
        else:
            window.show()
            if target:
                bring_in_matrix(window, args.session, target)  # says why in a dialog if it cannot
            elif problem:
                window.documents.error("Could not open the model" if model_problem else "Could not open the session",
                                       problem)
            else:
                opened = session_path is None or open_session(app, window, session_path) is not False
                # (restoring overtakes a SESSION still being read; a head asked for by --model is not replaced)
                if opened and window.recovery is not None and not args.model:
                    window.recovery.offer()
            app.exec()
    finally:
        if window.recovery is not None:
            window.recovery.discard()
        if window.isVisible():
            window.close()
        window.deleteLater()
        del window
        # Deleted here, while the application lives and nothing paints (outside the event loop a plain
        # processEvents leaves a deleteLater waiting); what pyqtgraph's own cycles keep goes with them.
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()
        if offscreen:
            qInstallMessageHandler(previous_handler)
    return status


def export_script(window, path, problem=None):
    """--export-script: write the session as File ▸ Export ▸ Session as Python script… does; 0, or 2 with the
    reason on stderr (nothing is written when the session could not be opened or a setting has no code)."""
    from explorer.core.as_code import write_script
    from explorer.core.errors import ExplorerError

    if problem:
        print(f"attention-explorer: {problem}; no script written to {path}", file=sys.stderr)
        return 2
    try:
        write_script(window.model.to_session(), path)
    except ExplorerError as exc:
        print(f"attention-explorer: {exc}", file=sys.stderr)
        return 2
    return 0


def take_screenshot(app, window, path, problem=None):
    """Show the window offscreen, let every panel paint, grab it to ``path``; 0 on success, else 1
    with the reason on stderr (nothing is written when the session's attention could not be computed)."""
    window.show()
    for _ in range(3):
        app.processEvents()
    window.build_shown_panels()  # every dock on screen shows its real panel (the rest stay unbuilt)
    window.model.flush()  # a large SESSION is computed on the worker: its results are needed now
    if not window.model.up_to_date:  # its recompute failed (not enough memory): no picture of nothing
        why = window.model.failure or "it was not computed"
        print(f"attention-explorer: could not compute attention for this session ({why}); "
              f"no screenshot written to {path}", file=sys.stderr)
        return 1
    if window.model.state.model_head is not None:  # a model's head: what the model says next, in the picture
        app.processEvents()
        window.model.flow_back.finish()
        for _ in range(3):  # its table changes the dock's layout
            app.processEvents()
    window.uncover_now()
    for panel in window.panels.built().values():
        panel.refresh()
    for _ in range(3):  # a text that wraps anew relays its panel out, then the scroll area it sits in
        app.processEvents()
    if problem:
        print(f"attention-explorer: {problem}", file=sys.stderr)
        return 1
    if not window.grab().save(path, "PNG"):
        print(f"attention-explorer: could not write the screenshot to {path}", file=sys.stderr)
        return 1
    window.model.undo_stack.setClean()
    return 0
