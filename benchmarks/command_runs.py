"""Whole commands as a user runs them: start a process, wait for it, and measure it.

Used by ``end_to_end.py`` and ``spark_pipeline.py``. A run is timed from just before the
process is started to just after it is reaped (start-up, imports and the last byte written
included). CPU seconds are the kernel's own accounting of that child, read with ``os.wait4``.
Peak RSS
is measured through GNU ``/usr/bin/time -f %M`` when present: Linux carries a process's peak
RSS across exec, so a child forked from this Python process would never read below this
process's own size; /usr/bin/time is small (without it, ``os.wait4``'s figure is used, with
that floor). The peak covers the child and the descendants it waited for. Each command runs
in its own session; whatever it leaves running in its process group is killed after the run.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass

MIB = 1 << 20
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


@dataclass
class Run:
    wall: float      # seconds, process start to reaped
    cpu: float       # user + system seconds of the child (and its waited-for children)
    rss_kib: int     # peak resident set of the child (or of its largest waited-for child)
    rc: int          # exit status (negative: killed by that signal)
    stderr_tail: str = ""

    def as_dict(self):
        return asdict(self)


def run_command(argv, *, cwd=None, env=None, stdout_path=os.devnull, keep_stderr=True) -> Run:
    """Run ``argv`` once, stdin empty, stdout to ``stdout_path`` (default /dev/null)."""
    err_path = rss_path = None
    if keep_stderr:
        fd, err_path = tempfile.mkstemp(prefix="bench-stderr-")
        os.close(fd)
    if GNU_TIME:
        fd, rss_path = tempfile.mkstemp(prefix="bench-rss-")
        os.close(fd)
        argv = [GNU_TIME, "-f", "%M", "-o", rss_path, *argv]
    try:
        with open(stdout_path, "wb") as out, open(err_path or os.devnull, "wb") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True)
            _pid, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
        try:  # anything the command left behind in its own process group
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        tail = ""
        if err_path:
            with open(err_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 2000))
                tail = f.read().decode("utf-8", "replace").strip()
        rss = usage.ru_maxrss
        if rss_path:
            with open(rss_path) as f:
                last = f.read().strip().splitlines()[-1:]  # after any "Command exited..." line
            if last and last[0].isdigit():
                rss = int(last[0])
        return Run(wall, usage.ru_utime + usage.ru_stime, rss, proc.returncode, tail)
    finally:
        for p in (err_path, rss_path):
            if p:
                os.unlink(p)


@dataclass
class Spread:
    median: float
    min: float
    max: float

    @classmethod
    def of(cls, values):
        values = list(values)
        return cls(statistics.median(values), min(values), max(values))

    def fmt(self, spec=None):
        """``median [min-max]``; by default 3 decimals below 1, else 2."""
        spec = spec or (".3f" if abs(self.median) < 1 else ".2f")
        return f"{self.median:{spec}} [{self.min:{spec}}-{self.max:{spec}}]"


def ratios(peer_runs, our_runs, field="wall"):
    """Per-turn ratios peer/ours (runs paired by turn)."""
    return [getattr(p, field) / getattr(o, field)
            for p, o in zip(peer_runs, our_runs) if getattr(o, field) > 0]


def load_line():
    try:
        one, five, _ = os.getloadavg()
        return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"
    except OSError:
        return "load average unknown"


def java_home(root):
    """JAVA_HOME for Spark: the environment's, else what ``ROOT/.venv/java-home`` names (a
    file holding the path, or a link to the JDK)."""
    p = os.path.join(root, ".venv", "java-home")
    if os.path.isdir(p):
        return os.path.realpath(p)
    if os.path.isfile(p):
        with open(p) as f:
            text = f.read().strip()
        if text:
            return text
    return os.environ.get("JAVA_HOME")


def ours_cwd_for(python, default):
    """The source tree a venv interpreter belongs to (``TREE/.venv/bin/python`` with
    ``TREE/binlog_schema``), so that ``python -m binlog_schema`` run there imports that tree's
    code; else ``default``."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    tree = os.path.dirname(venv)
    if os.path.isdir(os.path.join(tree, "binlog_schema")):
        return tree
    return default


def describe_ours(python, cwd):
    """Where ``python -m binlog_schema`` run in ``cwd`` imports the package from, and that
    tree's git commit (with a mark when its work tree has changes)."""
    r = subprocess.run([python, "-c", "import binlog_schema, os; "
                        "print(os.path.dirname(binlog_schema.__file__))"],
                       cwd=cwd, capture_output=True, text=True)
    where = r.stdout.strip() or f"(import failed: {r.stderr.strip()[-200:]})"
    commit = subprocess.run(["git", "-C", cwd, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", cwd, "status", "--porcelain", "--", "binlog_schema"],
                           capture_output=True, text=True).stdout.strip()
    if commit and dirty:
        commit += " + uncommitted changes in binlog_schema/"
    return where, commit or "unknown"


def add_common_arguments(ap, cases, *, root, repeats: int, python_help: str,
                         default_cases=None) -> None:
    """The arguments every whole-command benchmark takes: files, the interpreter and tree of
    ours, turns, cases, the mariadb-binlog binary, a JSON file for the figures."""
    import shutil
    ap.add_argument("files", nargs="*", help="binlog files (default: see below)")
    ap.add_argument("--python", default=os.path.join(root, ".venv", "bin", "python"),
                    help=python_help)
    ap.add_argument("--ours-cwd", help="directory ours runs in (-m binlog_schema resolves "
                    "there); default: the source tree of --python's venv, else this repository")
    ap.add_argument("--repeats", type=int, default=repeats,
                    help=f"timed turns (default {repeats})")
    default = list(cases) if default_cases is None else list(default_cases)
    ap.add_argument("--cases", default=",".join(default),
                    help=f"comma-separated, of: {', '.join(cases)} (default: "
                         f"{'all' if default == list(cases) else ', '.join(default)})")
    ap.add_argument("--mariadb-binlog", default=shutil.which("mariadb-binlog")
                    or shutil.which("mysqlbinlog"), help="the mariadb-binlog binary")
    ap.add_argument("--json", metavar="OUT", help="also save every run's figures as JSON")


def resolve_common(ap, args, cases, root, default_files):
    """(cases, python, ours_cwd, files) of parsed common arguments, said as the benchmark
    starts (the input notes, where ours imports from); files is empty when there is none."""
    chosen = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in chosen if c not in cases]
    if unknown:
        ap.error(f"unknown case(s) {unknown}; choose from {list(cases)}")
    python = os.path.abspath(args.python)
    ours_cwd = os.path.abspath(args.ours_cwd or ours_cwd_for(python, root))
    if args.files:
        files, notes = [os.path.abspath(f) for f in args.files], []
    else:
        files, notes = default_files()
    for n in notes:
        print(n)
    if not files:
        print("no input files")
        return chosen, python, ours_cwd, []
    if not args.mariadb_binlog:
        print("(mariadb-binlog not found: its comparisons are skipped)")
    where, commit = describe_ours(python, ours_cwd)
    print(f"ours: {python} -m binlog_schema, cwd {ours_cwd}\n"
          f"      imports {where} (commit {commit})")
    return chosen, python, ours_cwd, files


def summarize(commands, case_rows):
    """Per case row: each command's wall, CPU and RSS spreads, exit codes, and for the
    peers the per-turn ratios to ours."""
    out = []
    for row in case_rows:
        ours = commands[row["ours"]]["runs"]
        entry = {**row, "commands": {}}
        for cid in [row["ours"], *row["peers"]]:
            runs = commands[cid]["runs"]
            entry["commands"][cid] = {
                "label": commands[cid]["label"],
                "wall": Spread.of(r.wall for r in runs).__dict__,
                "cpu": Spread.of(r.cpu for r in runs).__dict__,
                "rss_mib": Spread.of(r.rss_kib / 1024 for r in runs).__dict__,
                "exit_codes": sorted({r.rc for r in runs}),
            }
            if cid != row["ours"]:
                entry["commands"][cid]["ratio_wall"] = Spread.of(ratios(runs, ours)).__dict__
                entry["commands"][cid]["ratio_cpu"] = Spread.of(
                    ratios(runs, ours, "cpu")).__dict__
        out.append(entry)
    return out


def save_figures(path, commands, summary, files, repeats, python, ours_cwd, **facts) -> None:
    """The figures of a run as JSON at ``path``: when, the machine's cores, the python, our
    checkout, where it imports the package from and its commit, ``facts`` (the peers'
    versions...), the files' sizes, every command's runs and the cases' summary."""
    import datetime
    import json
    where, commit = describe_ours(python, ours_cwd)
    doc = {"when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "python": python, "ours_cwd": ours_cwd, "ours_package": where,
           "ours_commit": commit, **facts, "repeats": repeats, "cpus": os.cpu_count(),
           "files": {f: os.path.getsize(f) for f in files},
           "commands": {cid: {"label": c["label"], "argv": c["argv"], "cwd": c["cwd"],
                              "runs": [r.as_dict() for r in c["runs"]]}
                        for cid, c in commands.items()},
           "cases": summary}
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=1)
    print(f"figures saved to {path}")


def command_table():
    """``(commands, add)``: the distinct commands (id -> spec, in turn order) and
    ``add(cid, label, argv, cwd)``, which registers a command once and returns its id."""
    commands: dict = {}

    def add(cid, label, argv, cwd):
        if cid not in commands:
            commands[cid] = {"label": label, "argv": argv, "cwd": cwd, "runs": []}
        return cid
    return commands, add
