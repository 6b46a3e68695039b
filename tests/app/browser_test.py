#!/usr/bin/env python3
"""The charts in a real browser (issue 24): headless Chromium opens the pages
that `ddsmc check --html` and `ddsmc view` write, with its JavaScript console
captured, and the test requires of every page:

  - nothing that would load from outside the file (no src/href, no url()
    but the arrowhead's #fragment, no @import), and no network (every host
    name resolves to nothing);
  - exactly one console line, the page script's own "ddsmc chart: T traces,
    A arrows" with T and A as expected: any error, warning, uncaught
    exception or other message fails the test (the script itself logs an
    error when its replay of a trace disagrees with the chart);
  - one <svg class="chart"> per trace, and as many arrows (<g class="msg">)
    as the trace has messages: one `start` per node in the initial state
    plus every message a step sends, counted from the trace's JSON, not from
    the chart;
  - the state panel shows the initial state after the script ran;
  - a screenshot that is not blank (many colours, enough non-white pixels).

Pages: every example's `check --html` (token_ring's two lasso
counterexamples first), a bound trace (echo at --state-bound 1), the page
`view` draws from a --json report, a 1,000-step simulate trace through
`view`, and a standalone SVG from `view --svg`.

usage: browser_test.py DDSMC SOURCE_DIR WORK_DIR [--screenshot-out PNG]
  --screenshot-out: also copy the failing example's screenshot there (the
  picture in README.md and docs/charts.md is made so).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

from PIL import Image

CHROMIUM = os.environ.get("CHROMIUM", "chromium")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


def run_ddsmc(ddsmc, args, want_code, cwd):
    r = subprocess.run([ddsmc] + args, cwd=cwd, capture_output=True, text=True, timeout=300)
    if want_code is not None and r.returncode != want_code:
        fail(f"ddsmc {' '.join(args)}: exit {r.returncode}, expected {want_code}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def chromium(work, page, mode, extra):
    """Runs headless Chromium on `page`; returns (stdout, console lines, seconds)."""
    profile = os.path.join(work, "profile-" + mode)
    shutil.rmtree(profile, ignore_errors=True)
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
           "--enable-logging=stderr", "--v=0", "--hide-scrollbars", "--window-size=1400,1000",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--disable-background-networking", "--disable-dev-shm-usage"] + extra
    cmd.append("file://" + os.path.abspath(page))
    start = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    seconds = time.time() - start
    if r.returncode != 0:
        fail(f"chromium {mode} {page}: exit {r.returncode}\n{r.stderr[-3000:]}")
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    return r.stdout, console, seconds


def static_checks(page, text):
    """Nothing in the file may come from elsewhere."""
    for what, pattern in [("a src attribute", r"\ssrc\s*="), ("an href attribute", r"\shref\s*="),
                          ("an @import", r"@import"), ("a url() that is not a #fragment", r"url\((?!#)"),
                          ("a link element", r"<link\b"), ("an http(s) address", r"https?://(?!www\.w3\.org/2000/svg\")")]:
        if re.search(pattern, text):
            fail(f"{page}: {what} (the page must stand alone)")


def expected_arrows(trace):
    """Messages of a trace, from its JSON: a `start` per node initially, plus every message sent."""
    return len(trace["initial"]) + sum(len(s.get("sent", [])) for s in trace["steps"])


def count_in_sections(dom):
    """Per <section class="trace">: (charts, arrows), in page order."""
    out = []
    for part in dom.split('<section class="trace"')[1:]:
        part = part.split("</section>")[0]
        out.append((len(re.findall(r'<svg class="chart"', part)), len(re.findall(r'<g class="msg[ "]', part))))
    return out


def screenshot_ok(png, what):
    try:
        img = Image.open(png).convert("RGB")
    except OSError as e:
        fail(f"{what}: no screenshot ({e})")
        return
    colors = img.getcolors(maxcolors=1 << 20) or []
    total = img.width * img.height
    white = sum(n for n, c in colors if c == (255, 255, 255))
    if len(colors) < 8 or total - white < total // 200:
        fail(f"{what}: the screenshot looks blank ({len(colors)} colours, {total - white} of {total} pixels not white)")


def check_page(work, page, traces, first_state_line, label, shot_out=None):
    """Opens `page` and checks it against `traces` (their JSON, in page order)."""
    with open(page, encoding="utf-8") as f:
        static_checks(page, f.read())
    dom, console, seconds = chromium(work, page, label + "-dom", ["--dump-dom"])
    want = f"ddsmc chart: {len(traces)} traces, {sum(expected_arrows(t) for t in traces)} arrows"
    if len(console) != 1 or f'"{want}"' not in console[0]:
        fail(f"{label}: the console should hold exactly \"{want}\", it holds:\n  " + "\n  ".join(console))
    sections = count_in_sections(dom)
    if len(sections) != len(traces):
        fail(f"{label}: {len(sections)} trace sections, expected {len(traces)}")
    for k, ((charts, arrows), t) in enumerate(zip(sections, traces), 1):
        if charts != 1:
            fail(f"{label}: trace {k} has {charts} charts, expected one")
        if arrows != expected_arrows(t):
            fail(f"{label}: trace {k} draws {arrows} arrows, its JSON has {expected_arrows(t)} messages")
    if first_state_line and first_state_line not in dom:
        fail(f"{label}: the state panel does not show '{first_state_line}' (did the script run?)")
    png = os.path.join(work, label + ".png")
    chromium(work, page, label + "-shot", ["--screenshot=" + png])
    screenshot_ok(png, label)
    if shot_out:
        shutil.copyfile(png, shot_out)
    print(f"{label}: {len(traces)} traces, {sum(expected_arrows(t) for t in traces)} arrows, "
          f"opened in {seconds:.1f} s, {os.path.getsize(page)} bytes", flush=True)


def traces_of(path):
    with open(path, encoding="utf-8") as f:
        return [t["trace"] for t in json.load(f)["traces"]]


def main():
    args = sys.argv[1:]
    shot_out = None
    if "--screenshot-out" in args:
        i = args.index("--screenshot-out")
        shot_out = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        print(__doc__)
        return 2
    ddsmc, src, work = os.path.abspath(args[0]), os.path.abspath(args[1]), os.path.abspath(args[2])
    if shutil.which(CHROMIUM) is None:
        print(f"browser_test: {CHROMIUM} not found (scripts/setup installs the Debian package chromium)")
        return 1
    os.makedirs(work, exist_ok=True)
    ex = lambda name: os.path.join(src, "examples", name + ".d2c")
    w = lambda name: os.path.join(work, name)

    # A failing example: two lasso counterexamples.
    # (Run from the source tree with the path as a user types it: the page's title shows it.)
    run_ddsmc(ddsmc, ["check", "examples/token_ring.d2c", "--html", w("token_ring.html"), "--trace",
                      w("token_ring.json"), "--json", w("token_ring.report.json")], 1, src)
    token = traces_of(w("token_ring.json"))
    if len(token) < 1:
        fail("token_ring: no trace to draw")
    check_page(work, w("token_ring.html"), token, "n0  {initiator}", "token_ring", shot_out)
    # The same drawn by `view` from the --json report.
    run_ddsmc(ddsmc, ["view", ex("token_ring"), w("token_ring.report.json"), "--html", w("view_report.html")], 0, src)
    check_page(work, w("view_report.html"), token, "n0  {initiator}", "view_report")
    # A bound trace.
    run_ddsmc(ddsmc, ["check", ex("echo"), "--state-bound", "1", "--html", w("bound.html"), "--trace",
                      w("bound.json")], 3, work)
    check_page(work, w("bound.html"), traces_of(w("bound.json")), None, "bound")
    # Every example's page (witnesses, counterexamples, both).
    for name in sorted(f[:-4] for f in os.listdir(os.path.join(src, "examples")) if f.endswith(".d2c")):
        if name == "token_ring":
            continue
        r = run_ddsmc(ddsmc, ["check", ex(name), "--html", w(name + ".html"), "--trace", w(name + ".json")], None, work)
        if r.returncode not in (0, 1):
            fail(f"{name}: exit {r.returncode}\n{r.stderr[-2000:]}")
            continue
        check_page(work, w(name + ".html"), traces_of(w(name + ".json")), None, name)
    # A 1,000-step simulate trace through view.
    run_ddsmc(ddsmc, ["simulate", ex("token_ring"), "--steps", "1000", "--trace", w("sim.json")], 0, work)
    sim = traces_of(w("sim.json"))
    if len(sim[0]["steps"]) != 1000:
        fail(f"simulate: {len(sim[0]['steps'])} steps, expected 1000")
    run_ddsmc(ddsmc, ["view", ex("token_ring"), w("sim.json"), "--html", w("sim.html")], 0, work)
    check_page(work, w("sim.html"), sim, "n0  {initiator}", "simulate-1000")
    # One trace as a standalone SVG file.
    run_ddsmc(ddsmc, ["view", ex("token_ring"), w("token_ring.json"), "--svg", w("trace1.svg"), "--index", "1"], 0, work)
    with open(w("trace1.svg"), encoding="utf-8") as f:
        svg = f.read()
    static_checks(w("trace1.svg"), svg)
    if len(re.findall(r'<g class="msg[ "]', svg)) != expected_arrows(token[0]):
        fail("trace1.svg: the arrows differ from the trace's messages")
    _, console, _ = chromium(work, w("trace1.svg"), "svg-dom", ["--dump-dom"])
    if console:
        fail("trace1.svg: console output:\n  " + "\n  ".join(console))
    chromium(work, w("trace1.svg"), "svg-shot", ["--screenshot=" + w("trace1.png")])
    screenshot_ok(w("trace1.png"), "trace1.svg")

    if failures:
        print(f"browser_test: {len(failures)} failures")
        return 1
    print("browser_test: every page opened without errors, with its charts and arrows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
