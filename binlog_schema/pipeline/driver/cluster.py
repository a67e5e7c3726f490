"""A Spark standalone master and worker on loopback, from the pip-installed pyspark (whose
wheel has no ``sbin/start-master.sh``): ``spark-class`` runs
``org.apache.spark.deploy.master.Master`` and ``...worker.Worker``; both are stopped by their
process ids. For tests, benchmarks and trying ``--master spark://...`` on one machine::

    with LocalCluster(cores=2) as url:
        subprocess.run(["binlog-schema", "spark", "decode", "--master", url, ...])
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request


def spark_home() -> str:
    import pyspark
    return os.path.dirname(os.path.abspath(pyspark.__file__))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalCluster:
    """Start on enter (waits until the worker has registered), stop on exit."""

    def __init__(self, cores: int = 2, memory: str = "2g", timeout: float = 90.0,
                 log_dir: str | None = None):
        self.cores, self.memory, self.timeout = cores, memory, timeout
        self.dir = log_dir or tempfile.mkdtemp(prefix="binlog-schema-cluster-")
        os.makedirs(self.dir, exist_ok=True)
        self.procs: list = []
        self.url = None

    def _env(self):
        env = dict(os.environ)
        env["SPARK_HOME"] = spark_home()
        env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        env["SPARK_LOG_DIR"] = self.dir
        env["SPARK_WORKER_DIR"] = os.path.join(self.dir, "work")
        return env

    def _start(self, name, *args):
        cls = os.path.join(spark_home(), "bin", "spark-class")
        log = open(os.path.join(self.dir, f"{name}.log"), "wb")
        p = subprocess.Popen(["bash", cls, *args], stdout=log, stderr=subprocess.STDOUT,
                             env=self._env(), start_new_session=True)
        self.procs.append((p, log))
        return p

    def _state(self, ui_port):
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as r:
            return json.load(r)

    def __enter__(self) -> str:
        port, ui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{port}"
        self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                    "--port", str(port), "--webui-port", str(ui))
        self._start("worker", "org.apache.spark.deploy.worker.Worker", self.url,
                    "--host", "127.0.0.1", "--cores", str(self.cores), "--memory", self.memory,
                    "--webui-port", str(free_port()),
                    "--work-dir", os.path.join(self.dir, "work"))
        deadline = time.time() + self.timeout
        while time.time() < deadline:
            for p, _ in self.procs:
                if p.poll() is not None:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"a standalone daemon exited ({p.returncode}); logs in "
                                       f"{self.dir}")
            try:
                state = self._state(ui)
                if state.get("aliveworkers", 0) >= 1 or len(state.get("workers", [])) >= 1:
                    return self.url
            except OSError:
                pass
            time.sleep(0.5)
        self.__exit__(None, None, None)
        raise TimeoutError(f"the standalone master/worker did not come up in {self.timeout}s "
                           f"(logs in {self.dir})")

    def pids(self) -> list:
        return [p.pid for p, _ in self.procs]

    def __exit__(self, *exc):
        for p, log in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.kill(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.kill(p.pid, signal.SIGKILL)
                    p.wait()
            log.close()
        self.procs = []
        return False

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
