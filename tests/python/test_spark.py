# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.spark (docs/spark.md) on a local[2] Spark: the histogram grouped by
Spark gives the CSV path's answers (transformation, information loss,
suppressed records, the released rows as a set), the release is a lazy
plan, jobs that need the records one by one are refused, and outputs
appear whole or not at all.

One SparkSession for the whole test session (starting one takes tens of
seconds); skipped without PySpark or Java.
"""
import collections
import json
import os
import shutil
import subprocess
import sys

import pandas as pd
import pytest

pytest.importorskip("pyspark")
if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
    pytest.skip("no Java for Spark (set JAVA_HOME)", allow_module_level=True)

import deid  # noqa: E402
import deid.spark  # noqa: E402
from conftest import ADULT, EXAMPLES, REFERENCE, ROOT, adult_job, arx_runs, run_cli, write_yaml_job  # noqa: E402


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from pyspark.sql import SparkSession
    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    # The executors' Python is this one, with deid installed: released
    # identifiers are computed there (docs/spark.md, "Identifiers").
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    s = (SparkSession.builder.master("local[2]").appName("deid-tests")
         .config("spark.sql.warehouse.dir", str(warehouse))
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


@pytest.fixture(scope="session")
def adult_df(spark):
    # Two partitions of the one file, so that first appearance crosses splits.
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(1 << 20))
    df = spark.read.csv(str(ADULT / "adult.csv"), header=True, sep=";")
    assert df.rdd.getNumPartitions() > 1
    return df


def rows_of_frame(frame):
    """A release as a multiset of rows of text (null and NaN as '')."""
    frame = frame.astype(object).where(frame.notna(), "")
    return collections.Counter(tuple(str(v) for v in row) for row in frame.itertuples(index=False))


def rows_of_spark(df):
    return rows_of_frame(df.toPandas())


def comparable(info):
    info = json.loads(json.dumps(info))
    for key in ("time_ms", "peak_rss_bytes", "files", "utility"):
        info.pop(key, None)
    info["search"].pop("time_to_best_ms", None)
    info.get("check", {}).pop("memory", None)
    return info


# Runs the grouped path supports (not kl-divergence), a spread of models.
RUNS = [r for r in arx_runs() if r["quality_model"] != "kl-divergence"]


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r["name"])
def test_reference_runs_as_the_csv_path(adult_df, run):
    job = adult_job(run)
    want = deid.anonymize(str(ADULT / "adult.csv"), job)
    got = deid.spark.anonymize(adult_df, job)
    assert got.found == want.found
    assert got.result["transformation"] == want.info["transformation"]
    assert got.result["information_loss"] == want.info["information_loss"]
    assert got.result["suppressed_records"] == want.info["suppressed_records"]
    assert comparable(got.result) == comparable(want.info)
    assert got.result["files"][0]["pushdown"] == "histogram"
    assert got.result["files"][0]["row_order"] == "files"


# The cup data (63,441 records, 8 quasi-identifiers) is not bundled: it is
# read from the shared data folder beside the repository, as the C++
# reference tests read it, and these tests skip without it. Three of ARX's
# reference runs on cup that the grouped path supports (risk models and
# l-diversity with a sensitive column), the cheapest to search.
CUP = ROOT.parent / "shared" / "data" / "cup"
CUP_RUNS = ["cup_avgrisk01_s5", "cup_sampleuniq001_s5", "cup_lgrass2_income"]


def cup_job(run):
    attributes = {q: {"role": "quasi-identifying", "hierarchy": str(CUP / "hierarchies" / f"{q}.csv")}
                  for q in run["quasi_identifiers"]}
    if run["sensitive"]:
        attributes[run["sensitive"]] = {"role": "sensitive"}
    return {"attributes": attributes, "default-role": "insensitive", "privacy": run["privacy"],
            "suppression-limit": run["suppression_limit"], "quality": {"model": run["quality"]},
            "search": {"algorithm": "optimal"}, "output": {"utility": False}}


@pytest.fixture(scope="module")
def cup_df(spark):
    if not (CUP / "cup.csv").exists():
        pytest.skip(f"no cup data at {CUP}")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(1 << 20))
    df = spark.read.csv(str(CUP / "cup.csv"), header=True, sep=";")
    assert df.rdd.getNumPartitions() > 1
    return df


@pytest.mark.parametrize("name", CUP_RUNS)
def test_cup_runs_as_the_csv_path(cup_df, name):
    with open(REFERENCE / "arx-privacy-models.json") as f:
        run = next(r for r in json.load(f)["runs"] if r["name"] == name)
    job = cup_job(run)
    want = deid.anonymize(str(CUP / "cup.csv"), dict(job, input={"path": str(CUP / "cup.csv"), "delimiter": ";"}))
    got = deid.spark.anonymize(cup_df, job)
    assert got.found and want.found
    assert got.result["transformation"] == want.info["transformation"] == run["optimum"]
    assert got.result["information_loss"] == want.info["information_loss"]
    assert got.result["suppressed_records"] == want.info["suppressed_records"] == run["suppressed_records"]
    assert comparable(got.result) == comparable(want.info)
    if run["sensitive"]:
        assert rows_of_spark(got.data) == rows_of_frame(want.data)


def test_release_is_the_csv_paths_rows(adult_df, tmp_path):
    job = adult_job(RUNS[0])
    job["privacy"] = [{"k-anonymity": {"k": 5}}, {"l-diversity": {"attribute": "occupation", "l": 2}}]
    job["attributes"] = {q: {"role": "quasi-identifying", "hierarchy": str(ADULT / "hierarchies" / f"{q}.csv")}
                         for q in ["age", "education", "marital-status", "sex", "workclass"]}
    job["attributes"]["occupation"] = {"role": "sensitive"}
    job["attributes"]["race"] = {"role": "identifying"}
    job["suppression-limit"] = 0.05
    want = deid.anonymize(str(ADULT / "adult.csv"), job)
    got = deid.spark.anonymize(adult_df, job)
    assert comparable(got.result) == comparable(want.info)
    assert got.suppressed_records > 0
    released = got.data
    assert released.columns == list(want.data.columns)
    assert "race" not in released.columns
    assert rows_of_spark(released) == rows_of_frame(want.data)
    rows = got.write(tmp_path / "out.parquet")
    assert rows == 30162
    assert got.result["files"][1] == {"role": "output", "path": str(tmp_path / "out.parquet"), "sha256": None,
                                      "bytes": 0, "pushdown": "spark", "rows": 30162}
    back = pd.read_parquet(tmp_path / "out.parquet")
    assert rows_of_frame(back) == rows_of_frame(want.data)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]


def _fail_while_writing(r, adult_df, target):
    """Replaces `target` by a release whose job fails on the executors."""
    from pyspark.sql import functions as F
    failing = deid.spark.SparkResult(adult_df, r._run, r._histogram, r.result)
    failing._data = r.data.withColumn("age", F.raise_error(F.lit("killed")).cast("string"))
    with pytest.raises(Exception, match="killed"):
        failing.write(target, mode="replace")


def test_write_whole_or_not_at_all(spark, adult_df, tmp_path):
    job = adult_job(RUNS[0])
    r = deid.spark.anonymize(adult_df, job)
    target = tmp_path / "out.parquet"
    r.write(target)
    before = sorted(os.listdir(target))
    with pytest.raises(deid.InputError, match="exists"):
        r.write(target)
    # A job that fails while Spark writes leaves the old output and no temporary.
    from pyspark.sql import functions as F
    _fail_while_writing(r, adult_df, target)
    assert sorted(os.listdir(target)) == before
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
    r.write(target, mode="replace")
    assert len(pd.read_parquet(target)) == 30162
    # An input that changed since the histogram (a value no map holds)
    # fails the write: nothing is published.
    changed = adult_df.withColumn("age", F.when(F.col("age") == "39", F.lit("139")).otherwise(F.col("age")))
    with pytest.raises(Exception, match="not in the histogram"):
        deid.spark.SparkResult(changed, r._run, r._histogram, r.result).write(tmp_path / "new.parquet")
    assert not os.path.exists(tmp_path / "new.parquet")
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]


def test_stale_temporaries_are_removed(adult_df, tmp_path):
    """A write's temporary directory whose lock no process holds (its run was
    killed) is removed by the next write of the same output; one whose lock
    is held, or without a lock file, is left."""
    import fcntl
    r = deid.spark.anonymize(adult_df, adult_job(RUNS[0]))
    target = tmp_path / "out.parquet"
    dead, alive, unlocked = (tmp_path / f".out.parquet.deid-{c * 32}" for c in "abc")
    for d in (dead, alive, unlocked):
        d.mkdir()
        (d / "part-0.parquet").write_bytes(b"partial")
    (tmp_path / f"{dead.name}.lock").write_text("killed\n")
    (tmp_path / f"{alive.name}.lock").write_text("running\n")
    held = os.open(tmp_path / f"{alive.name}.lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        r.write(target)
    finally:
        os.close(held)
    assert sorted(p for p in os.listdir(tmp_path)) == sorted(
        [alive.name, f"{alive.name}.lock", unlocked.name, "out.parquet"])
    assert deid.spark.remove_stale(target) == [str(alive)]
    assert sorted(p for p in os.listdir(tmp_path)) == sorted([unlocked.name, "out.parquet"])


def _mount(spark, name, directory):
    """viewfs://NAME/data: a Hadoop file system other than file://, mounted on
    a local directory (ViewFs within one mount point renames as its target
    does); it stands for HDFS, which these tests cannot start."""
    spark._jsc.hadoopConfiguration().set(f"fs.viewfs.mounttable.{name}.link./data", "file://" + str(directory))
    return f"viewfs://{name}/data"


def test_write_to_a_hadoop_file_system(spark, adult_df, tmp_path):
    root = _mount(spark, "deidwrite", tmp_path)
    target = root + "/out.parquet"
    r = deid.spark.anonymize(adult_df, adult_job(RUNS[0]))
    assert r.write(target) == 30162
    assert r.result["files"][1]["path"] == target
    before = sorted(os.listdir(tmp_path / "out.parquet"))
    assert len(pd.read_parquet(tmp_path / "out.parquet")) == 30162
    with pytest.raises(deid.InputError, match="exists"):
        r.write(target)
    _fail_while_writing(r, adult_df, target)
    assert sorted(os.listdir(tmp_path / "out.parquet")) == before
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
    # Replaced: the new directory in place, the old one and the temporary gone.
    marker = tmp_path / "out.parquet" / "old-output"
    marker.write_text("")
    assert r.write(target, mode="replace") == 30162
    assert not marker.exists()
    assert rows_of_frame(pd.read_parquet(tmp_path / "out.parquet")) == rows_of_spark(r.data)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]
    with pytest.raises(deid.InputError, match="does not exist"):
        r.write(root + "/missing/out.parquet")
    # An object store renames by copying: refused before anything is written.
    with pytest.raises(deid.InputError, match="s3a:// has no atomic rename"):
        r.write("s3a://bucket/out.parquet")
    with pytest.raises(deid.InputError, match="local path"):
        deid.spark.remove_stale(target)


def test_the_command_reads_and_writes_urls(spark, adult_df, cli, tmp_path):
    """python -m deid.spark with --input, --output and the job's
    input.parquet / output.parquet as URLs: kept as written (not resolved
    against the job's directory), read and written through Hadoop."""
    root = _mount(spark, "deidcommand", tmp_path)
    adult_df.write.parquet(str(tmp_path / "adult.parquet"))
    job = adult_job(RUNS[0])
    job["input"] = {"parquet": root + "/adult.parquet"}
    job["output"] = {"parquet": root + "/job-out.parquet", "result": str(tmp_path / "result.json")}
    (tmp_path / "job").mkdir()
    path = write_yaml_job(job, tmp_path / "job" / "job.yaml")
    assert deid.spark.main([str(path), "-q"]) == 0
    want = deid.anonymize(str(ADULT / "adult.csv"), adult_job(RUNS[0]))
    assert rows_of_frame(pd.read_parquet(tmp_path / "job-out.parquet")) == rows_of_frame(want.data)
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["files"][1]["path"] == root + "/job-out.parquet"
    assert deid.spark.main([str(path), "-q", "--input", root + "/adult.parquet", "--output",
                            root + "/flag-out.parquet"]) == 0
    assert len(pd.read_parquet(tmp_path / "flag-out.parquet")) == 30162
    # The deid command refuses the job, naming deid.spark.
    p = subprocess.run([cli, "anonymize", str(path)], capture_output=True, text=True)
    assert p.returncode == 2 and "is a URL (viewfs://deidcommand/data/adult.parquet), which only deid.spark" \
        in p.stderr, p.stderr


def test_typed_columns_as_the_arrow_path(spark):
    """Spark's types reach the engine as the Arrow path reads them."""
    frame = pd.DataFrame({
        "age": [30, 31, 30, 45, 45, 31, 30, 45] * 3,
        "score": [1.5, 2.0, 1.5, None, None, 2.0, 1.5, None] * 3,
        "flag": [True, False, True, True, True, False, True, True] * 3,
        "zip": ["81667", "81675", "81667", None, "", "81675", "81667", ""] * 3,
        "note": ["=1+1", "ok", "ok", "-x", "ok", "ok", "+3", "ok"] * 3,
    })
    job = {"attributes": {"age": {"role": "quasi-identifying", "hierarchy": {"type": "masking"}},
                          "score": {"role": "quasi-identifying", "hierarchy": {"type": "masking"}},
                          "flag": {"role": "sensitive"},
                          "zip": {"role": "quasi-identifying", "hierarchy": {"type": "masking"}}},
           "default-role": "insensitive", "privacy": [{"k-anonymity": {"k": 3}}], "suppression-limit": 0.1}
    import pyarrow as pa
    want = deid.anonymize(pa.Table.from_pandas(frame, preserve_index=False), job)
    df = spark.createDataFrame(pa.Table.from_pandas(frame, preserve_index=False))
    got = deid.spark.anonymize(df, job, order_by=None)
    assert comparable(got.result) == comparable(want.info)
    assert got.result["warnings"] == want.info["warnings"]
    assert rows_of_spark(got.data) == rows_of_frame(want.data)


def test_order_by_names_a_column(spark, adult_df):
    from pyspark.sql import functions as F
    job = adult_job(RUNS[0])
    numbered = adult_df.withColumn("line", F.monotonically_increasing_id())
    job["attributes"]["line"] = {"role": "identifying"}
    shuffled = numbered.repartition(3, "age")
    got = deid.spark.anonymize(shuffled, job, order_by="line")
    want = deid.anonymize(str(ADULT / "adult.csv"), adult_job(RUNS[0]))
    assert comparable(got.result) == comparable(want.info)
    assert got.result["files"][0]["row_order"] == "column 'line'"
    with pytest.raises(deid.JobError, match="not a column"):
        deid.spark.anonymize(adult_df, job, order_by="nope")


@pytest.mark.parametrize("extra, match", [
    ({"subset": {"file": str(ADULT / "adult.csv"), "delimiter": ";"}}, "research subset"),
    ({"quality": {"model": "kl-divergence"}}, "kl-divergence"),
    ({"local-recoding": {"mode": "single"}}, "local-recoding recodes the records one by one"),
])
def test_row_by_row_jobs_are_refused(adult_df, extra, match):
    job = adult_job(RUNS[0])
    for key, value in extra.items():
        if key == "attributes":
            job["attributes"].update(value)
        else:
            job[key] = value
    with pytest.raises(deid.JobError, match=match) as e:
        deid.spark.anonymize(adult_df, job)
    assert "PostgreSQL" not in str(e.value) and "deid.anonymize" in str(e.value)


def test_linked_tables_are_refused(adult_df):
    # Linked tables are joined to the rows, which a grouped table does not
    # hold: the deid command releases them (docs/identifiers.md).
    job = adult_job(RUNS[0])
    job["identifiers"] = {"person": "sex"}
    job["linked"] = [{"path": "visits.csv", "key": "sex", "output": "visits-deid.csv", "columns": {}}]
    with pytest.raises(deid.JobError, match="the job links tables"):
        deid.spark.anonymize(adult_df, job)


def test_histogram_fetch_is_a_few_jobs(spark, adult_df):
    """The sorted histogram comes to the driver in range partitions sized by
    its entries, not spark.sql.shuffle.partitions: fetching one partition is
    a job over all of them, so 200 shuffle partitions once meant 200 jobs
    of 200 tasks."""
    job = adult_job(RUNS[0])
    want = deid.spark.anonymize(adult_df, job).result
    sc = spark.sparkContext
    spark.conf.set("spark.sql.shuffle.partitions", "200")
    sc.setJobGroup("deid-histogram", "histogram with 200 shuffle partitions")
    try:
        got = deid.spark.anonymize(adult_df, job).result
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        spark.conf.set("spark.sql.shuffle.partitions", "4")
    assert comparable(got) == comparable(want)
    jobs = sc.statusTracker().getJobIdsForGroup("deid-histogram")
    assert 0 < len(jobs) < 20, jobs


def _sorted_in_order(spark, monkeypatch, stream):
    """InOrder's batches of a shuffled table sorted by `k`, with range
    partitions of 700 rows and Arrow batches of at most 250, and the
    tasks of each Spark job run meanwhile."""
    from pyspark.sql import functions as F
    from deid.spark import _histogram
    monkeypatch.setattr(_histogram, "ROWS_PER_FETCH", 700)
    if not stream:
        monkeypatch.setattr(_histogram, "_partition_stream", lambda df, schema: None)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "250")
    sc = spark.sparkContext
    df = spark.range(0, 5000, numPartitions=3).select(((F.col("id") * 7919) % 5003).alias("k"), F.col("id"))
    try:
        with _histogram.InOrder(df, F.col("k")) as parts:
            group = f"deid-in-order-{stream}"
            sc.setJobGroup(group, "InOrder's fetch")
            batches = list(parts.batches())
            sc.setLocalProperty("spark.jobGroup.id", None)
            count = parts.parts
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")
    # Per job, the tasks of its last stage (the one whose results it
    # returns), in the order the jobs ran.
    tasks = []
    for j in sorted(sc.statusTracker().getJobIdsForGroup(group)):
        last = sc.statusTracker().getStageInfo(max(sc.statusTracker().getJobInfo(j).stageIds))
        tasks.append(last.numTasks)
    return batches, count, tasks


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "filtered"])
def test_sorted_table_comes_in_order_a_batch_at_a_time(spark, monkeypatch, stream):
    """A sorted table comes to the driver in order across its range
    partitions. Streamed (docs/spark.md, "Memory"): one Arrow batch at a
    time, each partition by a Spark job of one task, run on it alone.
    Without the JVM (Spark Connect): each partition by a job that filters
    all of them."""
    batches, parts, tasks = _sorted_in_order(spark, monkeypatch, stream)
    keys = [k for b in batches for k in b.column("k").to_pylist()]
    ids = [i for b in batches for i in b.column("id").to_pylist()]
    assert parts >= 6
    assert keys == sorted(keys) and sorted(ids) == list(range(5000))
    assert keys == [(i * 7919) % 5003 for i in ids]
    # Before the fetches, the range partitioner's sampling (a job or two
    # over the input's 3 partitions) and, filtered, the jobs that keep the
    # sorted table on the executors and count it.
    if stream:
        assert max(b.num_rows for b in batches) <= 250
        assert tasks[-parts:] == [1] * parts and len(tasks) <= parts + 2, tasks
    else:
        assert tasks[-parts:] == [parts] * parts and len(tasks) <= parts + 5, tasks


def test_histogram_in_many_partitions_as_in_one(adult_df, monkeypatch):
    """The histogram fetched in many range partitions gives the answers of
    one partition: first appearance holds across them."""
    from deid.spark import _histogram
    job = adult_job(RUNS[0])
    want = deid.spark.anonymize(adult_df, job)
    monkeypatch.setattr(_histogram, "ROWS_PER_FETCH", 500)
    got = deid.spark.anonymize(adult_df, job)
    assert got.result["check"]["histogram_entries"] > 4 * 500  # five range partitions or more
    assert comparable(got.result) == comparable(want.result)
    assert rows_of_spark(got.data) == rows_of_spark(want.data)


def test_release_is_lazy(spark, adult_df):
    job = adult_job(RUNS[0])
    r = deid.spark.anonymize(adult_df, job)
    plan = r.data._jdf.queryExecution().optimizedPlan().toString()
    assert "Join" in plan and "LocalRelation" in plan


def test_job_with_spark_tables(spark, adult_df, tmp_path):
    """input.table and output.table with its modes, from python -m deid.spark
    (run in this process, on this session)."""
    adult_df.write.format("parquet").saveAsTable("adult_in")
    job = adult_job(RUNS[0])
    job["input"] = {"table": "adult_in"}
    job["output"] = {"table": "adult_out", "result": str(tmp_path / "result.json")}
    path = write_yaml_job(job, tmp_path / "job.yaml")
    assert deid.spark.main([str(path), "-q"]) == 0
    want = deid.anonymize(str(ADULT / "adult.csv"), adult_job(RUNS[0]))
    got = json.loads((tmp_path / "result.json").read_text())
    assert comparable(got) == comparable(want.info)
    assert got["files"][1] == {"role": "output", "path": "spark table adult_out", "sha256": None, "bytes": 0,
                               "pushdown": "spark", "rows": 30162}
    assert rows_of_spark(spark.table("adult_out")) == rows_of_frame(want.data)
    assert deid.spark.main([str(path), "-q"]) == 2  # mode create: the table exists
    job["output"]["mode"] = "replace"
    write_yaml_job(job, path)
    assert deid.spark.main([str(path), "-q"]) == 0
    assert spark.table("adult_out").count() == 30162
    # Replaced in one catalog operation (SET LOCATION): the table's files are
    # the new directory, the old one is removed.
    location = {r[0]: r[1] for r in spark.sql("DESCRIBE TABLE EXTENDED adult_out").collect()}["Location"]
    assert "/adult_out__deid_" in location
    warehouse = spark.conf.get("spark.sql.warehouse.dir").removeprefix("file:")
    assert sorted(os.listdir(warehouse)) == ["adult_in", os.path.basename(location)]
    job["output"]["mode"] = "append"
    write_yaml_job(job, path)
    assert deid.spark.main([str(path), "-q"]) == 0
    assert spark.table("adult_out").count() == 2 * 30162
    assert sorted(t.name for t in spark.catalog.listTables()) == ["adult_in", "adult_out"]
    # A table of other columns is replaced by two renames.
    spark.range(3).write.format("parquet").saveAsTable("other")
    r = deid.spark.anonymize(spark.table("adult_in"), adult_job(RUNS[0]))
    assert r.write_table("other", mode="replace") == 30162
    assert spark.table("other").columns == r.data.columns
    assert sorted(t.name for t in spark.catalog.listTables()) == ["adult_in", "adult_out", "other"]


def test_the_command_refuses_spark_tables(cli, tmp_path):
    job = adult_job(RUNS[0])
    job["input"] = {"table": "adult_in"}
    p = subprocess.run([cli, "anonymize", str(write_yaml_job(job, tmp_path / "job.yaml"))], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "input.table names a table of a Spark session" in p.stderr, p.stderr
    job = adult_job(RUNS[0])
    job["output"] = {"table": "adult_out", "mode": "append"}
    p = subprocess.run([cli, "anonymize", str(write_yaml_job(job, tmp_path / "job.yaml"))], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "python -m deid.spark" in p.stderr, p.stderr


def test_risk_as_the_csv_path(adult_df):
    """deid.spark.risk: the report of deid.risk on the same rows, of the
    input and of a release (its '*' records suppressed)."""
    job = adult_job(RUNS[0])
    want = deid.risk(str(ADULT / "adult.csv"), job)
    got = deid.spark.risk(adult_df, job)
    assert got.info == want.info
    assert got.info["records"] == 30162
    released = deid.anonymize(str(ADULT / "adult.csv"), job)
    spark_released = deid.spark.anonymize(adult_df, job)
    assert spark_released.suppressed_records > 0
    want = deid.risk(released.data, job).info
    got = deid.spark.risk(spark_released.data, job).info
    assert want.pop("input") == "DataFrame" and got.pop("input") == str(ADULT / "adult.csv")  # the plan's file
    assert got == want
    assert got["suppressed_records"] == released.info["suppressed_records"]


def test_risk_warnings_as_the_arrow_path(spark):
    """Formula warnings of every column, grouped or not, quote the first value
    in the rows' order, as the Arrow path does."""
    import pyarrow as pa
    table = pa.table({"zip": ["=1", "81667", "-x", "81667"] * 2, "age": [30, 31, 30, 31] * 2,
                      "note": ["ok", "@a", "+3", "=b"] * 2, "sens": ["-y", "ok", "ok", "=z"] * 2})
    masked = {"role": "quasi-identifying", "hierarchy": {"type": "masking"}}
    job = {"attributes": {"zip": masked, "age": masked,
                          "sens": {"role": "sensitive"}}, "default-role": "insensitive",
           "privacy": [{"k-anonymity": {"k": 2}}]}
    want = deid.risk(table, job).info
    got = deid.spark.risk(spark.createDataFrame(table), job).info
    assert len(want["warnings"]) == 3
    assert want.pop("input") == "Arrow" and got.pop("input") == "Spark DataFrame"
    assert got == want


@pytest.fixture(scope="module")
def keyed_adult(spark, tmp_path_factory):
    """The adult table with a key column 'id' (insensitive, released as it
    is), as a CSV file and as Spark reads it; the job of the release test."""
    d = tmp_path_factory.mktemp("keyed")
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame.insert(0, "id", [f"r{i}" for i in range(len(frame))])
    frame.to_csv(d / "adult.csv", sep=";", index=False)
    job = adult_job(RUNS[0])
    job["privacy"] = [{"k-anonymity": {"k": 5}}, {"l-diversity": {"attribute": "occupation", "l": 2}}]
    job["attributes"] = {q: {"role": "quasi-identifying", "hierarchy": str(ADULT / "hierarchies" / f"{q}.csv")}
                         for q in ["age", "education", "marital-status", "sex", "workclass"]}
    job["attributes"]["occupation"] = {"role": "sensitive"}
    job["attributes"]["race"] = {"role": "identifying"}
    job["suppression-limit"] = 0.05
    df = (spark.read.option("header", True).option("sep", ";").option("nullValue", "\u0000")
          .option("emptyValue", "").csv(str(d / "adult.csv")))
    return d, job, df


def verdicts(report, details=True):
    return [(c["check"], c["status"]) + ((c["detail"],) if details else ())
            for c in report["checks"] if not c["check"].startswith(("sha256", "key ("))]


def test_verify_as_the_csv_path(spark, keyed_adult):
    """deid.spark.verify gives deid verify's verdicts on the CSV path's files:
    for the release, and for the same tampering of both (a cell
    un-generalized, a row deleted)."""
    from pyspark.sql import functions as F
    d, job, df = keyed_adult
    want = deid.anonymize(str(d / "adult.csv"), job)
    want.to_csv(d / "out.csv")
    want.save_result(d / "result.json")
    csv_report = deid.verify(job, input=d / "adult.csv", output=d / "out.csv", result=d / "result.json")
    assert csv_report["valid"]
    r = deid.spark.anonymize(df, job)
    r.write(d / "out.parquet")
    released = spark.read.parquet(str(d / "out.parquet"))
    report = deid.spark.verify(job, input=df, output=released, key="id", result=r.result)
    assert report["valid"], report
    assert verdicts(report) == verdicts(csv_report)
    lines = {c["check"]: c for c in report["checks"]}
    assert lines["key (id)"]["status"] == "ok"
    assert lines["sha256 output"]["status"] == "ok" and "30162 rows" in lines["sha256 output"]["detail"]
    assert lines["sha256 input"]["status"] == "skipped"

    # One quasi-identifier cell un-generalized: the original value of r7.
    out = pd.read_csv(d / "out.csv", sep=";", dtype=str, keep_default_na=False)
    original = pd.read_csv(d / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    row = out.index[out["id"] == "r7"][0]
    out.loc[row, "age"] = original.loc[original["id"] == "r7", "age"].iloc[0]
    assert out.loc[row, "age"] != pd.read_csv(d / "out.csv", sep=";", dtype=str).loc[row, "age"]
    out.to_csv(d / "tampered.csv", sep=";", index=False)
    csv_bad = deid.verify(job, input=d / "adult.csv", output=d / "tampered.csv", result=d / "result.json")
    bad = released.withColumn("age", F.when(F.col("id") == "r7", F.lit(out.loc[row, "age"])).otherwise(F.col("age")))
    spark_bad = deid.spark.verify(job, input=df, output=bad, key="id", result=r.result)
    assert not csv_bad["valid"] and not spark_bad["valid"]
    assert verdicts(spark_bad, False) == verdicts(csv_bad, False)
    failed = [c for c in spark_bad["checks"] if c["status"] == "FAILED"]
    assert failed[0]["check"] == "generalization" and failed[0]["key"] == "r7" and failed[0]["column"] == "age"
    assert "the row with id 'r7'" in failed[0]["detail"]

    # A row deleted: rows fails, and the key names it. Row by row, the
    # verdicts are the CSV path's; grouped, the key and rows lines alone.
    out = pd.read_csv(d / "out.csv", sep=";", dtype=str, keep_default_na=False)
    out[out["id"] != "r9"].to_csv(d / "deleted.csv", sep=";", index=False)
    csv_bad = deid.verify(job, input=d / "adult.csv", output=d / "deleted.csv", result=d / "result.json")
    deleted = released.where(F.col("id") != "r9")
    spark_bad = deid.spark.verify(job, input=df, output=deleted, key="id", result=r.result, grouped=False)
    assert verdicts(spark_bad, False) == verdicts(csv_bad, False)
    grouped_bad = deid.spark.verify(job, input=df, output=deleted, key="id", result=r.result)
    assert [(c["check"], c["status"]) for c in grouped_bad["checks"]] == [
        ("key (id)", "FAILED"), ("rows", "FAILED"), ("release", "skipped")]
    assert not grouped_bad["valid"]
    assert grouped_bad["checks"][1]["detail"].startswith("the output has 30161 rows, the input 30162")
    lines = {c["check"]: c for c in spark_bad["checks"]}
    assert lines["rows"]["status"] == "FAILED"
    assert lines["key (id)"]["status"] == "FAILED"
    assert "id='r9': 1 input row, 0 output rows" in lines["key (id)"]["detail"]
    assert lines["sha256 output"]["status"] == "FAILED"


def test_grouped_verify_finds_what_the_rows_show(spark, keyed_adult):
    """The grouped verification (the default) against the row-by-row one on
    the same tamperings: a copied value changed, an identifying value
    copied into a released column, a class made too small; the same
    verdicts and details, each failure named by the same key."""
    from pyspark.sql import functions as F
    d, job, df = keyed_adult
    r = deid.spark.anonymize(df, job)
    released = r.data
    tampered = {
        "copied": released.withColumn("salary-class", F.when(F.col("id") == "r11", F.lit("changed"))
                                      .otherwise(F.col("salary-class"))),
        "leak": released.join(df.select("id", F.col("race").alias("__race")), "id")
        .withColumn("salary-class", F.when(F.col("id") == "r12", F.col("__race")).otherwise(F.col("salary-class")))
        .drop("__race"),
        "class": released.withColumn("education", F.when(F.col("id") == "r13", F.lit("*"))
                                     .otherwise(F.col("education"))),
    }
    for name, output in [("valid", released)] + list(tampered.items()):
        rows = deid.spark.verify(job, input=df, output=output, key="id", result=r.result, grouped=False)
        grouped = deid.spark.verify(job, input=df, output=output, key="id", result=r.result)
        assert verdicts(grouped) == verdicts(rows), name
        assert rows["valid"] == (name == "valid"), (name, rows)
        failed = [(c["check"], c.get("key")) for c in rows["checks"] if c["status"] == "FAILED"]
        assert failed == [(c["check"], c.get("key")) for c in grouped["checks"] if c["status"] == "FAILED"], name
    lines = {c["check"]: c for c in deid.spark.verify(job, input=df, output=tampered["leak"], key="id")["checks"]}
    assert lines["identifier values"]["status"] == "FAILED" and lines["identifier values"]["key"] == "r12"


def test_risk_and_verify_commands(keyed_adult, capsys):
    """python -m deid.spark risk and verify: deid risk's report of the
    release Spark wrote, and deid verify's checks of it, exit 1 once a row
    is tampered with."""
    d, job, df = keyed_adult
    job = dict(job, input={"path": str(d / "adult.csv"), "delimiter": ";"})
    path = write_yaml_job(job, d / "commands.yaml")
    out, result = d / "commands.parquet", d / "commands.json"
    assert deid.spark.main([str(path), "--output", str(out), "--result", str(result), "-q"]) == 0
    assert deid.spark.main(["risk", str(path), "--input", str(out), "--json", str(d / "risk.json"), "-q"]) == 0
    got = json.loads((d / "risk.json").read_text())
    want = deid.risk(pd.read_parquet(out), job).info
    assert got["records"] + got["suppressed_records"] == 30162
    assert got["records"] == want["records"] and got["suppressed_records"] == want["suppressed_records"] > 0
    assert got["sample_risk"] == want["sample_risk"]
    assert "highest" in capsys.readouterr().out.lower()
    checks = d / "checks.json"
    assert deid.spark.main(["verify", str(path), "--output", str(out), "--key", "id", "--result", str(result),
                            "--json", str(checks)]) == 0
    assert json.loads(checks.read_text())["valid"]
    assert "k-anonymity (k=5)" in capsys.readouterr().out
    tampered = pd.read_parquet(out)
    tampered.loc[tampered["id"] == "r3", "sex"] = "x"
    tampered.to_parquet(d / "tampered.parquet")
    assert deid.spark.main(["verify", str(path), "--output", str(d / "tampered.parquet"), "--key", "id", "-q"]) == 1
    assert "failed" in capsys.readouterr().err
    assert deid.spark.main(["verify", str(path), "--output", str(out), "--key", "nope", "-q"]) == 2


def test_verify_needs_the_key(keyed_adult, adult_df):
    d, job, df = keyed_adult
    with pytest.raises(deid.JobError, match="key 'id' is not a column of the output"):
        deid.spark.verify(job, input=df, output=adult_df, key="id")


def test_spark_submit_runs_the_launcher(tmp_path):
    """spark-submit (PySpark's own bin/spark-submit) runs the file that
    `python -m deid.spark --launcher` names, on local[2], with the command's
    options: the CSV path's result and release."""
    import sys
    import pyspark
    launcher = subprocess.run([sys.executable, "-m", "deid.spark", "--launcher"], capture_output=True, text=True,
                              check=True).stdout.strip()
    assert launcher == deid.spark.LAUNCHER and os.path.isfile(launcher)
    job = adult_job(RUNS[0])
    path = write_yaml_job(job, tmp_path / "job.yaml")
    home = os.path.dirname(os.path.abspath(pyspark.__file__))
    env = dict(os.environ, SPARK_HOME=home, SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable,
               PYSPARK_DRIVER_PYTHON=sys.executable)
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    p = subprocess.run([os.path.join(home, "bin", "spark-submit"), "--master", "local[2]",
                        "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1",
                        launcher, str(path), "--output", str(tmp_path / "out.parquet"),
                        "--result", str(tmp_path / "result.json"), "-q"],
                       env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    want = deid.anonymize(str(ADULT / "adult.csv"), job)
    got = json.loads((tmp_path / "result.json").read_text())
    assert comparable(got) == comparable(want.info)
    assert got["files"][1]["rows"] == 30162
    assert rows_of_frame(pd.read_parquet(tmp_path / "out.parquet")) == rows_of_frame(want.data)


# Released identifiers (docs/spark.md, "Identifiers"): pseudonyms, masks
# and date shifts computed on the executors by the engine's code, the
# values `deid anonymize` writes. The patients example with a few cells
# changed: a name with letters beyond ASCII (masks count code points), a
# date with a time of day (kept), an empty date (stays empty).
SECRET = "correct horse battery staple"


def patients_job(tmp_path):
    job = {
        "input": {"path": str(tmp_path / "patients.csv")},
        "attributes": {
            "mrn": {"role": "identifying", "action": "pseudonym"},
            "name": {"role": "identifying", "action": "mask", "keep-first": 1, "keep-last": 1},
            "phone": {"role": "identifying", "action": "mask", "digits": "#"},
            # "-" makes every value one a spreadsheet would run: the result warns.
            "email": {"role": "identifying", "action": "mask", "regex": "^[^@]+", "replacement": "-"},
            "admitted": {"role": "identifying", "action": "date-shift"},
            "discharged": {"role": "identifying", "action": "date-shift"},
            "age": {"role": "quasi-identifying",
                    "hierarchy": {"type": "intervals", "min": 0, "max": 100, "widths": [10, 20, 40]}},
            "sex": {"role": "quasi-identifying", "hierarchy": {"type": "masking", "levels": 1}},
            "diagnosis": {"role": "sensitive"},
        },
        "identifiers": {"secret": {"env": "DEID_TEST_SECRET"}, "person": "mrn", "shift-days": 30},
        "privacy": [{"k-anonymity": {"k": 2}}],
        "suppression-limit": 0.2,
        "output": {"path": str(tmp_path / "cli.csv"), "result": str(tmp_path / "cli.json")},
    }
    text = (EXAMPLES / "patients" / "patients.csv").read_text()
    text = (text.replace("Ann Smith", "Zoë Ångström").replace("2024-05-01,52", "2024-05-01T08:30,52")
            .replace("2021-01-31,", ","))
    (tmp_path / "patients.csv").write_text(text)
    return job


def read_csv_as_text(spark, path):
    """A CSV file as python -m deid.spark reads one: every value as text."""
    return (spark.read.option("header", True).option("nullValue", "\u0000").option("emptyValue", "")
            .csv(str(path)))


def test_identifiers_as_the_cli(spark, cli, tmp_path, monkeypatch):
    from pyspark.sql import functions as F
    monkeypatch.setenv("DEID_TEST_SECRET", SECRET)
    job = patients_job(tmp_path)
    run_cli(cli, "anonymize", write_yaml_job(job, tmp_path / "job.yaml"))
    want = json.loads((tmp_path / "cli.json").read_text())
    got = deid.spark.anonymize(read_csv_as_text(spark, tmp_path / "patients.csv"), job)
    assert got.result["identifiers"] == want["identifiers"]
    assert got.result["identifiers"]["secret_fingerprint"] == "c00cc69366b264af"
    assert [w.split(":")[0] for w in got.result["warnings"]] == ["column 'email'"]
    assert comparable(got.result) == comparable(want)
    cli_rows = pd.read_csv(tmp_path / "cli.csv", dtype=str, keep_default_na=False)
    released = got.data
    assert released.columns == list(cli_rows.columns)
    assert rows_of_spark(released) == rows_of_frame(cli_rows)
    # P-0001 (tests/python/test_identifiers.py): +11 days.
    first = released.where(F.col("mrn") == "83e2c76d568f4c6d").collect()[0]
    assert (first["name"], first["phone"], first["admitted"]) == ("Z**********m", "###-###-####", "2024-03-07")


def test_identifier_errors(spark, tmp_path, monkeypatch):
    from pyspark.sql import functions as F
    monkeypatch.setenv("DEID_TEST_SECRET", SECRET)
    job = patients_job(tmp_path)
    df = read_csv_as_text(spark, tmp_path / "patients.csv")
    bad = df.withColumn("admitted", F.when(F.col("mrn") == "P-0004", "2022-02-30").otherwise(F.col("admitted")))
    with pytest.raises(deid.InputError, match=r"\(column 'admitted'\): '2022-02-30' is not a date of the form"):
        deid.spark.anonymize(bad, job)
    # Two values with one pseudonym of 8 digits under SECRET (found by search).
    import pyarrow as pa
    pairs = spark.createDataFrame(pa.table({"line": ["1", "2"], "mrn": ["P-0023391", "P-0093064"], "age": ["30", "30"]}))
    collide = {"attributes": {"mrn": {"role": "identifying", "action": "pseudonym", "length": 8},
                              "age": job["attributes"]["age"], "line": {"role": "insensitive"}},
               "identifiers": {"secret": {"env": "DEID_TEST_SECRET"}}, "privacy": [{"k-anonymity": {"k": 2}}]}
    with pytest.raises(deid.InputError, match="same pseudonym 27231cfa \\(the rows with line '1' and '2'\\)"):
        deid.spark.anonymize(pairs, collide, order_by="line")
    job["output"]["linkage"] = str(tmp_path / "linkage.csv")
    with pytest.raises(deid.JobError, match="linkage"):
        deid.spark.anonymize(df, job)
