# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""``python -m deid.spark`` on a real Spark standalone cluster (docs/spark.md):
a master and two workers, each its own JVM, listening on 127.0.0.1 only,
started by a fixture from PySpark's own bin/spark-class and stopped (the
process groups killed) also when a test fails. The job runs as
spark-submit would run it, in a process of its own; one test kills a
worker while the job runs, and Spark's recomputation gives the same
release.
"""
import collections
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pandas as pd
import pytest

pyspark = pytest.importorskip("pyspark")
if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
    pytest.skip("no Java for Spark (set JAVA_HOME)", allow_module_level=True)

import deid  # noqa: E402
from conftest import ADULT, write_yaml_job  # noqa: E402

SPARK_HOME = os.path.dirname(os.path.abspath(pyspark.__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_env(tmp):
    env = dict(os.environ, SPARK_HOME=SPARK_HOME, SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(tmp / "logs"),
               SPARK_NO_DAEMONIZE="1", PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    return env


def master_state(url):
    with urllib.request.urlopen(url + "/json/", timeout=5) as r:
        return json.loads(r.read())


class Cluster:
    """A master and two workers (1 core, 1 GB each), each in a process group of its own."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.env = spark_env(tmp)
        self.procs = {}
        port, ui = free_port(), free_port()
        self.master = f"spark://127.0.0.1:{port}"
        self.ui = f"http://127.0.0.1:{ui}"
        self._start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                    "--webui-port", str(ui))
        self._wait(lambda s: True, "the master")
        for w in ("worker1", "worker2"):
            self._start(w, "org.apache.spark.deploy.worker.Worker", self.master, "--host", "127.0.0.1",
                        "--cores", "1", "--memory", "1g", "--webui-port", str(free_port()),
                        "--work-dir", str(tmp / w))
        self._wait(lambda s: sum(x["state"] == "ALIVE" for x in s["workers"]) == 2, "two workers")

    def _start(self, name, cls, *args):
        log = open(self.tmp / f"{name}.log", "w")
        self.procs[name] = subprocess.Popen([os.path.join(SPARK_HOME, "bin", "spark-class"), cls, *args],
                                            env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def _wait(self, ready, what, timeout=180):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if ready(master_state(self.ui)):
                    return
            except OSError:
                pass
            time.sleep(1)
        raise AssertionError(f"Spark standalone: {what} did not come up; see {self.tmp}")

    def kill(self, name):
        """Kills a process group: the JVM and what it started (a worker's executors)."""
        p = self.procs.pop(name)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()

    def stop(self):
        for name in list(self.procs):
            self.kill(name)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = None
    try:
        c = Cluster(tmp_path_factory.mktemp("spark-cluster"))
        yield c
    finally:
        if c is not None:
            c.stop()


def job_file(tmp_path):
    h = ADULT / "hierarchies"
    job = {
        "attributes": {q: {"role": "quasi-identifying", "hierarchy": str(h / f"{q}.csv")}
                       for q in ["age", "education", "marital-status", "sex", "workclass"]},
        "default-role": "insensitive",
        "privacy": [{"k-anonymity": {"k": 5}}, {"l-diversity": {"attribute": "occupation", "l": 2}}],
        "suppression-limit": 0.05,
    }
    job["attributes"]["occupation"] = {"role": "sensitive"}
    return write_yaml_job(job, tmp_path / "job.yaml"), job


def run_job(cluster, tmp_path, *args, wait=True, ui_port=None):
    ui = ["--conf", f"spark.ui.port={ui_port}"] if ui_port else ["--conf", "spark.ui.enabled=false"]
    cmd = [sys.executable, "-m", "deid.spark", *map(str, args), "--master", cluster.master, "-q",
           "--conf", "spark.executor.memory=512m", "--conf", "spark.sql.shuffle.partitions=4",
           "--conf", "spark.ui.showConsoleProgress=false", *ui]
    p = subprocess.Popen(cmd, env=cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tmp_path)
    return p.communicate(timeout=300) + (p.returncode,) if wait else p


def executors_busy(port):
    """Whether the application's two executors have both started tasks."""
    base = f"http://127.0.0.1:{port}/api/v1/applications"
    try:
        with urllib.request.urlopen(base, timeout=2) as r:
            app = json.loads(r.read())[0]["id"]
        with urllib.request.urlopen(f"{base}/{app}/executors", timeout=2) as r:
            executors = [e for e in json.loads(r.read()) if e["id"] != "driver"]
    except (OSError, ValueError, IndexError, KeyError):
        return False
    return len(executors) == 2 and all(e["activeTasks"] + e["totalTasks"] > 0 for e in executors)


def rows(frame):
    frame = frame.astype(object).where(frame.notna(), "")
    return collections.Counter(tuple(str(v) for v in r) for r in frame.itertuples(index=False))


def comparable(info):
    info = json.loads(json.dumps(info))
    for key in ("time_ms", "peak_rss_bytes", "files", "utility"):
        info.pop(key, None)
    info["search"].pop("time_to_best_ms", None)
    return info


def test_job_on_the_cluster_as_the_csv_path(cluster, tmp_path):
    job, job_dict = job_file(tmp_path)
    csv = tmp_path / "adult.csv"
    shutil.copy(ADULT / "adult.csv", csv)
    job_dict["input"] = {"path": str(csv), "delimiter": ";"}
    write_yaml_job(job_dict, job)
    out, err, code = run_job(cluster, tmp_path, job, "--output", tmp_path / "out.parquet",
                             "--result", tmp_path / "result.json")
    assert code == 0, err
    want = deid.anonymize(None, job_dict)
    got = json.loads((tmp_path / "result.json").read_text())
    assert comparable(got) == comparable(want.info)
    assert got["files"][1]["rows"] == 30162
    assert rows(pd.read_parquet(tmp_path / "out.parquet")) == rows(want.data)
    # Mode create refuses the existing output (exit 2) and leaves it alone.
    before = sorted(os.listdir(tmp_path / "out.parquet"))
    out, err, code = run_job(cluster, tmp_path, job, "--output", tmp_path / "out.parquet")
    assert code == 2 and "exists" in err
    assert sorted(os.listdir(tmp_path / "out.parquet")) == before


def test_a_worker_killed_during_the_job(cluster, tmp_path):
    """Eight Parquet files of adult: the worker killed once both run
    executors; Spark reruns its tasks on the other, and the release is
    the CSV path's."""
    frame = pd.read_csv(ADULT / "adult.csv", sep=";")
    parts = tmp_path / "adult8.parquet"
    parts.mkdir()
    for i in range(8):
        frame.to_parquet(parts / f"part-{i}.parquet", index=False)
    job, job_dict = job_file(tmp_path)
    job_dict["input"] = {"path": str(parts)}  # replaced by --input: the same
    write_yaml_job(job_dict, job)
    ui = free_port()
    p = run_job(cluster, tmp_path, job, "--input", parts, "--output", tmp_path / "out.parquet",
                "--result", tmp_path / "result.json", wait=False, ui_port=ui)
    try:
        # Killed once both executors have run tasks of the job (the driver's
        # REST API): their shuffle outputs are lost with the worker.
        end = time.monotonic() + 240
        while time.monotonic() < end and p.poll() is None and not executors_busy(ui):
            time.sleep(0.1)
        assert p.poll() is None, f"the job ended before both executors ran tasks: {p.communicate()[1]}"
        cluster.kill("worker1")
        out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    (tmp_path / "driver.log").write_text(err)
    assert "lost executor" in err.lower(), [line for line in err.splitlines() if "xecutor" in line or "orker" in line]
    del job_dict["input"]
    want = deid.anonymize(pd.concat([frame] * 8, ignore_index=True), job_dict)
    got = json.loads((tmp_path / "result.json").read_text())
    assert comparable(got) == comparable(want.info)
    assert rows(pd.read_parquet(tmp_path / "out.parquet")) == rows(want.data)
