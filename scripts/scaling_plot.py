#!/usr/bin/env python3
"""The analysis half of scripts/scaling (standard library + matplotlib).

  scaling_plot.py header                 the CSV's header line
  scaling_plot.py row --json J ...       one CSV row from a run's JSON report
  scaling_plot.py show                   one CSV row (stdin) as a readable line
  scaling_plot.py report CSV OUTDIR [--cores N]
                                         checks, medians, OUTDIR/scaling-{strong,weak}.png;
                                         exit 1 if a run failed or states/transitions differ

Speedup and efficiency are computed from throughput (states / seconds), which
for strong scaling (one network) is the ratio of the times and for weak
scaling (the network grows with the ranks) the scaled speedup; efficiency is
the speedup divided by the growth in cores (ranks x threads). docs/scaling.md
describes every column and plot.
"""
import argparse
import csv
import json
import math
import statistics
import sys
from collections import defaultdict

COLUMNS = ["mode", "model", "network", "ranks", "threads", "cores", "oversubscribed", "repetition",
           "exit_code", "status", "wall_seconds", "seconds", "analysis_seconds", "states", "transitions",
           "states_per_second", "peak_rss_max_bytes", "bytes_sent", "launcher", "load_before"]


def cmd_header(_args):
    print(",".join(COLUMNS))


def cmd_row(a):
    """A row for every run, failed ones included (status says why)."""
    row = dict.fromkeys(COLUMNS, "")
    row.update(mode=a.mode, model=a.model, network=a.network, ranks=a.ranks, threads=a.threads,
               cores=a.ranks * a.threads, oversubscribed=a.oversubscribed, repetition=a.rep,
               exit_code=a.exit_code, wall_seconds=a.wall, launcher=a.launcher, load_before=a.load)
    status = "ok"
    try:
        with open(a.json) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        d = None
        status = f"no JSON report ({type(e).__name__})"
    if d is not None:
        s = d["stats"]
        rss = s.get("rank_peak_rss_bytes") or [s["peak_rss_bytes"]]
        row.update(seconds=f"{s['seconds']:.4f}", analysis_seconds=f"{s['analysis_seconds']:.4f}",
                   states=d["states"], transitions=d["transitions"],
                   states_per_second=f"{d['states'] / s['seconds']:.0f}" if s["seconds"] > 0 else "",
                   peak_rss_max_bytes=max(rss), bytes_sent=s.get("bytes_sent", 0))
        # Exit codes 0 and 1 are verdicts (1: a property fails); 2 and 3 are
        # errors or an incomplete exploration.
        if a.exit_code not in ("0", "1"):
            status = f"exit code {a.exit_code}"
        elif not d.get("complete", True):
            status = f"incomplete ({d.get('incomplete_reason')})"
        elif (s.get("ranks", 1), s["threads"]) != (a.ranks, a.threads):
            status = f"ran {s.get('ranks', 1)}x{s['threads']}, not {a.ranks}x{a.threads}"
    elif a.exit_code not in ("0", "1"):
        status += f", exit code {a.exit_code}"
    row["status"] = status
    w = csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n")
    w.writerow(row)


def cmd_show(_args):
    r = next(csv.DictReader(sys.stdin, COLUMNS))
    cfg = f"{r['ranks']}x{r['threads']}" + (" (oversubscribed)" if r["oversubscribed"] == "yes" else "")
    if r["status"] != "ok":
        print(f"{r['mode']:6} {r['network']:8} {cfg:8} rep {r['repetition']}: FAILED: {r['status']}", flush=True)
        return
    print(f"{r['mode']:6} {r['network']:8} {cfg:8} rep {r['repetition']}: {int(r['states']):>10} states "
          f"{num(r['wall_seconds']):8.2f} s wall {float(r['seconds']):8.2f} s explore "
          f"{float(r['analysis_seconds']):7.2f} s analysis  {int(r['peak_rss_max_bytes']) / 2**20:7.1f} MiB/rank max"
          + (f"  (load {r['load_before']} before)" if r["load_before"] else ""),
          flush=True)


def num(text):
    """A CSV number, NaN when empty (Slurm without accounting has no wall time)."""
    return float(text) if text not in ("", None) else math.nan


def median(values):
    values = [v for v in values if not math.isnan(v)]
    return statistics.median(values) if values else math.nan


class Config:
    """The repetitions of one (mode, model, network, ranks, threads)."""

    def __init__(self, rows):
        r0 = rows[0]
        self.mode, self.model, self.network = r0["mode"], r0["model"], r0["network"]
        self.ranks, self.threads = int(r0["ranks"]), int(r0["threads"])
        self.cores = self.ranks * self.threads
        self.over = any(r["oversubscribed"] == "yes" for r in rows)
        self.states, self.transitions = int(r0["states"]), int(r0["transitions"])
        self.reps = len(rows)
        self.wall_all = [num(r["wall_seconds"]) for r in rows]
        self.explore_all = [float(r["seconds"]) for r in rows]
        self.wall = median(self.wall_all)
        self.explore = median(self.explore_all)
        self.analysis = median([float(r["analysis_seconds"]) for r in rows])
        self.rss = median([float(r["peak_rss_max_bytes"]) for r in rows])
        self.sent = median([float(r["bytes_sent"]) for r in rows])

    @property
    def label(self):
        return f"{self.ranks}x{self.threads}"

    def throughput(self, which):
        t = self.wall if which == "wall" else self.explore
        return self.states / t if t > 0 else math.nan


def relative(configs, which):
    """Speedup and efficiency of each config against the one with the fewest cores."""
    base = min(configs, key=lambda c: c.cores)  # the first such config (min is stable)
    out = {}
    for c in configs:
        sp = c.throughput(which) / base.throughput(which)
        out[id(c)] = (sp, sp / (c.cores / base.cores))
    return base, out


def check(rows):
    """Failed runs and graphs that differ; returns the messages (empty: all fine)."""
    problems = [f"{r['mode']} {r['model']} {r['network']} {r['ranks']}x{r['threads']} repetition "
                f"{r['repetition']}: {r['status']} (logs/{r['mode']}-{r['network']}-{r['ranks']}x{r['threads']}"
                f"-rep{r['repetition']}.*)" for r in rows if r["status"] != "ok"]
    seen = defaultdict(lambda: defaultdict(set))
    for r in rows:
        if r["status"] == "ok":
            seen[(r["model"], r["network"])][(r["states"], r["transitions"])].add(
                f"{r['mode']} {r['ranks']}x{r['threads']}")
    for (model, net), v in seen.items():
        if len(v) > 1:
            detail = "; ".join(f"{s} states {t} transitions at {', '.join(sorted(cfgs))}"
                               for (s, t), cfgs in sorted(v.items()))
            problems.append(f"MISMATCH {model} {net}: {detail}")
    return problems


def summary(mode, configs, host_cores):
    base, rel_wall = relative(configs, "wall")
    _, rel_exp = relative(configs, "explore")
    print(f"\n{mode} scaling ({base.model}; speedup and efficiency against {base.label} {base.network}, "
          f"from states/s; medians over the repetitions)")
    print(f"{'network':8} {'RxT':>5} {'cores':>5} {'reps':>4} {'states':>10} {'wall s':>8} {'explore s':>9} "
          f"{'analysis s':>10} {'states/s':>10} {'speedup':>7} {'eff':>5} {'expl sp':>7} {'expl eff':>8} "
          f"{'RSS/rank MiB':>12} {'sent MiB':>9}")
    for c in configs:
        sw, ew = rel_wall[id(c)]
        se, ee = rel_exp[id(c)]
        note = "  oversubscribed" if c.over else ""
        print(f"{c.network:8} {c.label:>5} {c.cores:>5} {c.reps:>4} {c.states:>10} {c.wall:8.2f} {c.explore:9.2f} "
              f"{c.analysis:10.2f} {c.throughput('explore'):10.0f} {sw:7.2f} {ew:5.2f} {se:7.2f} {ee:8.2f} "
              f"{c.rss / 2**20:12.1f} {c.sent / 2**20:9.1f}{note}")
    if any(c.over for c in configs):
        print(f"oversubscribed: ranks x threads above this machine's {host_cores} cores; "
              "those runs share cores and say nothing about scaling")


def plot(mode, configs, png, host_cores, loads):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    strong = mode == "strong"
    xof = (lambda c: c.cores) if strong else (lambda c: c.ranks)
    xlabel = "cores (ranks x threads per rank)" if strong else "ranks"
    base, rel_wall = relative(configs, "wall")
    _, rel_exp = relative(configs, "explore")
    # One series (colour) per number of threads per rank, points in x order.
    series = defaultdict(list)
    for c in configs:
        series[c.threads].append(c)
    for s in series.values():
        s.sort(key=xof)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    # Series drawn slightly apart on x, so that 1x2 and 2x1 (same cores)
    # and their error bars do not cover each other.
    def dodge(i, x):
        return x * 2 ** (0.04 * (i - (len(series) - 1) / 2))
    xs = sorted({xof(c) for c in configs})

    fig, axes = plt.subplots(2, 3, figsize=(16, 9))
    (ax_time, ax_sp, ax_eff), (ax_thr, ax_mem, ax_text) = axes

    def lines(ax, value, both=True):
        # solid, circles: the whole check (wall clock); dashed, squares: the
        # exploration alone; hollow markers: oversubscribed runs. Every
        # whole-check point is labelled RxT (1x2 and 2x1 share an x).
        top = 0
        for i, (t, cs) in enumerate(sorted(series.items())):
            colour = colours[i % len(colours)]
            name = f"{t} thread{'s' if t > 1 else ''}/rank"
            kinds = [("wall", "-", "o", "whole check"), ("explore", "--", "s", "exploration")] if both \
                else [(None, "-", "o", "")]
            for which, style, marker, what in kinds:
                pts = [(dodge(i, xof(c)), value(c, which), c) for c in cs]
                pts = [p for p in pts if not math.isnan(p[1])]
                if not pts:
                    continue
                top = max(top, max(p[1] for p in pts))
                ax.plot([p[0] for p in pts], [p[1] for p in pts], linestyle=style, marker=marker, color=colour,
                        markersize=6, label=f"{name}, {what}" if what else name)
                for x, y, c in pts:
                    if c.over:
                        ax.plot([x], [y], marker=marker, color=colour, markerfacecolor="white", markersize=6)
                    if which in ("wall", None):
                        # even series labelled on the right, odd ones on the left
                        right = i % 2 == 0
                        ax.annotate(c.label + ("*" if c.over else "") + ("" if strong else f" {c.network}"), (x, y), textcoords="offset points",
                                    xytext=(7 if right else -7, -3 + 10 * (i // 2)), fontsize=8,
                                    color=colour, ha="left" if right else "right")
        ax.set_xscale("log", base=2)
        ax.set_xlim(xs[0] / 1.25, xs[-1] * 1.35)
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([str(x) for x in xs])
        ax.set_xlabel(xlabel)
        ax.set_ylim(0, top * 1.15 if top > 0 else 1)
        ax.grid(True, alpha=0.3)

    # Time, with min..max over the repetitions as error bars.
    lines(ax_time, lambda c, w: c.wall if w == "wall" else c.explore)
    for i, (t, cs) in enumerate(sorted(series.items())):
        for c in cs:
            for vals, med in ((c.wall_all, c.wall), (c.explore_all, c.explore)):
                vals = [v for v in vals if not math.isnan(v)]
                if len(vals) > 1:
                    ax_time.errorbar([dodge(i, xof(c))], [med], yerr=[[med - min(vals)], [max(vals) - med]],
                                     color=colours[i % len(colours)], capsize=3, linewidth=1)
    ax_time.set_ylabel("seconds (median; bars: min..max)")
    ax_time.set_title("time" + ("" if strong else " (the network grows with the ranks)"))
    ax_time.set_ylim(0, max(max(v for v in c.wall_all + c.explore_all if not math.isnan(v)) for c in configs) * 1.15)
    ax_time.legend(fontsize=8)

    lines(ax_sp, lambda c, w: (rel_wall if w == "wall" else rel_exp)[id(c)][0])
    ax_sp.plot(xs, [x / xof(base) for x in xs], ":", color="gray", label="ideal")
    ax_sp.set_ylabel(f"speedup vs {base.label} (states/s ratio)")
    ax_sp.set_title("speedup" if strong else "scaled speedup (throughput vs 1 rank)")
    ax_sp.set_ylim(0, max(ax_sp.get_ylim()[1], xs[-1] / xof(base) * 1.1))
    ax_sp.legend(fontsize=8)

    lines(ax_eff, lambda c, w: (rel_wall if w == "wall" else rel_exp)[id(c)][1])
    ax_eff.axhline(1, linestyle=":", color="gray", label="ideal")
    ax_eff.set_ylabel("efficiency = speedup / (cores / base cores)")
    ax_eff.set_title("parallel efficiency")
    ax_eff.set_ylim(0, max(1.15, max(v[1] for v in list(rel_wall.values()) + list(rel_exp.values()) if not math.isnan(v[1])) * 1.1))
    ax_eff.legend(fontsize=8)

    lines(ax_thr, lambda c, w: c.throughput(w))
    ax_thr.set_ylabel("states / second")
    ax_thr.set_title("throughput (states / whole check or exploration s)")
    ax_thr.legend(fontsize=8)

    lines(ax_mem, lambda c, _w: c.rss / 2**20, both=False)
    ax_mem.set_ylabel("MiB (the largest rank's peak RSS)")
    ax_mem.set_title("peak memory per rank")
    ax_mem.legend(fontsize=8)

    ax_text.axis("off")
    text = [f"model: {base.model}", ""]
    for c in configs:
        text.append(f"{c.label + ('*' if c.over else ''):>6} {c.network:8} {c.states:>11,} states "
                    f"{c.transitions:>13,} trans")
    text += ["", "RxT: R ranks x T threads per rank", "hollow marker, *: oversubscribed",
             f"  (more cores than the machine's {host_cores})" if host_cores else "",
             "solid, circles: whole check (wall clock,",
             "  incl. mpirun start-up)",
             "dashed, squares: exploration (stats.seconds)"]
    if not strong:
        text.append("network: one ring node more per doubling of ranks")
    if loads:
        text.append(f"load average before the runs: {min(loads):.1f} .. {max(loads):.1f}")
        if host_cores and max(loads) > host_cores + 0.5:
            text.append(f"  (above the {host_cores} cores: times skewed by other work)")
    ax_text.text(0, 1, "\n".join(text), va="top", family="monospace", fontsize=9, transform=ax_text.transAxes)

    reps = max(c.reps for c in configs)
    what = f"{base.network}" if strong else f"{configs[0].network} .. {configs[-1].network}"
    fig.suptitle(f"ddsmc check, {mode} scaling: {base.model} {what}, {reps} repetition{'s' if reps > 1 else ''} "
                 f"each{' (some runs oversubscribed)' if any(c.over for c in configs) else ''}", fontsize=13)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    print(f"wrote {png}")


def cmd_report(a):
    with open(a.csv) as f:
        rows = list(csv.DictReader(f))
    problems = check(rows)
    ok = [r for r in rows if r["status"] == "ok"]
    groups = {}  # in the order of the runs (failed ones included), as the driver ran them
    for r in rows:
        groups.setdefault((r["mode"], r["model"], r["network"], r["ranks"], r["threads"]), [])
    for r in ok:
        groups[(r["mode"], r["model"], r["network"], r["ranks"], r["threads"])].append(r)
    by_mode = defaultdict(list)
    for rs in groups.values():
        if rs:
            by_mode[rs[0]["mode"]].append(Config(rs))
    loads = [float(r["load_before"]) for r in rows if r.get("load_before")]
    try:
        import matplotlib  # noqa: F401 (plot() imports it again, with the Agg backend)
        have_plot = True
    except ImportError:
        have_plot = False
        print("matplotlib is missing: no plots (install python3-matplotlib, e.g. by scripts/setup)")
    for mode in ("strong", "weak"):
        configs = by_mode.get(mode)
        if not configs:
            continue
        summary(mode, configs, a.cores)
        if have_plot:
            plot(mode, configs, f"{a.outdir}/scaling-{mode}.png", a.cores, loads)
    if problems:
        print("\n" + "!" * 72, file=sys.stderr)
        for p in problems:
            print(f"!!! {p}", file=sys.stderr)
        print(f"!!! (the runs are in {a.csv})", file=sys.stderr)
        print("!" * 72, file=sys.stderr)
        return 1
    if loads:
        print(f"1-minute load average before the runs: {min(loads):.2f} .. {max(loads):.2f} "
              "(it includes the previous run)")
        if a.cores and max(loads) > a.cores + 0.5:
            print(f"warning: the load went above this machine's {a.cores} cores: other work "
                  "shared the cores and skewed the times")
    models = {(r["model"], r["network"]) for r in ok}
    print(f"\nall {len(rows)} runs ok; states and transitions identical across configurations "
          f"for each of the {len(models)} networks")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("header").set_defaults(fn=cmd_header)
    row = sub.add_parser("row")
    row.set_defaults(fn=cmd_row)
    for name in ("mode", "model", "network", "oversubscribed", "launcher", "wall", "exit-code", "json", "load"):
        row.add_argument(f"--{name}", required=True)
    for name in ("ranks", "threads", "rep"):
        row.add_argument(f"--{name}", type=int, required=True)
    sub.add_parser("show").set_defaults(fn=cmd_show)
    rep = sub.add_parser("report")
    rep.set_defaults(fn=cmd_report)
    rep.add_argument("csv")
    rep.add_argument("outdir")
    rep.add_argument("--cores", type=int, default=0, help="this machine's cores (0: not local)")
    a = p.parse_args()
    sys.exit(a.fn(a) or 0)


if __name__ == "__main__":
    main()
