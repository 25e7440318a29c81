# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""python -m deid.spark JOB.yaml: the job's input read by Spark, grouped
there, searched on the driver, and the release written by Spark."""
from __future__ import annotations

import os
from typing import Optional, Sequence

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession

from .._core import InputError, JobError
from .._job import load_job
from ._anonymize import anonymize
from ._commit import _local
from ._hadoopfs import HadoopFs


#: The file spark-submit runs (submit.py): spark-submit takes a file, not a module.
LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "submit.py")


def _read_input(spark: SparkSession, path: str, delimiter: Optional[str]) -> DataFrame:
    """A Parquet file or directory (by its name or its magic bytes), else CSV
    read as text (every value as the file has it)."""
    local = _local(path)
    if local is None:  # a URL: hdfs://, s3a://, ...
        fs = HadoopFs(spark, path)
        parquet = path.endswith(".parquet") or fs.is_dir(fs.root) or (fs.exists(fs.root) and
                                                                      fs.head(fs.root, 4) == b"PAR1")
    else:
        parquet = local.endswith(".parquet") or os.path.isdir(local)
        if not parquet and os.path.isfile(local):
            with open(local, "rb") as f:
                parquet = f.read(4) == b"PAR1"
    if parquet:
        return spark.read.parquet(path)
    return (spark.read.option("header", True).option("sep", delimiter or ",").option("quote", '"')
            .option("escape", '"').option("multiLine", True).option("mode", "FAILFAST")
            .option("nullValue", "\u0000").option("emptyValue", "").csv(path))


def _spark_options(p: "argparse.ArgumentParser") -> None:
    p.add_argument("--master", help="Spark's master URL (default: spark-submit's, or local[*])")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a Spark setting (repeatable), as spark-submit's --conf")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on standard error")


def _session(args: "argparse.Namespace") -> SparkSession:
    builder = SparkSession.builder.appName("deid")
    if args.master:
        builder = builder.master(args.master)
    for setting in args.conf:
        key, eq, value = setting.partition("=")
        if not eq:
            raise ValueError(f"--conf {setting}: expected KEY=VALUE")
        builder = builder.config(key, value)
    return builder.getOrCreate()


def _job_input(spark: SparkSession, job_path: str, given: Optional[str], what: str) -> DataFrame:
    """The table a job reads: `given` (a file or directory), else the job's
    input.path or input.table."""
    job = load_job(job_path, given is not None)
    if given:
        return _read_input(spark, given, job.input_delimiter)
    if job.input_table:
        return spark.table(job.input_table)
    if not job.input_path or job.input_postgres:
        raise JobError(f"{job_path}: the {what} must be a file (input.path), a Spark table (input.table) or given "
                       "with --input")
    return _read_input(spark, job.input_path, job.input_delimiter)


def _run(code: "callable") -> int:
    """Runs a command's body with the exit codes of the deid command."""
    import sys

    def fail(status: int, message: str) -> int:
        print(f"deid.spark: {message}", file=sys.stderr)
        return status
    try:
        return code()
    except (JobError, InputError, ValueError) as e:
        return fail(2, str(e))
    except AnalysisException as e:
        return fail(2, str(e).splitlines()[0])
    except KeyboardInterrupt:
        return fail(130, "interrupted")
    except Exception as e:  # noqa: BLE001 - the CLI's exit code 3
        return fail(3, f"{type(e).__name__}: {e}")


def risk_main(argv: Sequence[str]) -> int:
    """``python -m deid.spark risk JOB.yaml [--input PATH] [--json FILE]
    [--report FILE]``: ``deid risk``'s report of a table Spark reads,
    computed from the histogram Spark groups (deid.spark.risk). Exit 0, or
    2 for a job or input error."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m deid.spark risk",
                                description="The re-identification risk of a table Spark reads, as deid risk "
                                            "reports it (docs/spark.md).")
    p.add_argument("job", help="the job file (docs/job-file.md)")
    p.add_argument("--input", help="the table: a Parquet file or directory, or a CSV file (default: the job's "
                                   "input.path or input.table)")
    p.add_argument("--json", help="also write the report as JSON to this file")
    p.add_argument("--report", help="also write the HTML report to this file")
    p.add_argument("--threshold", type=float, help="the risk of single records above which they count as at risk")
    _spark_options(p)
    args = p.parse_args(argv)

    def body() -> int:
        from ._risk import risk
        spark = _session(args)
        df = _job_input(spark, args.job, args.input, "table")
        r = risk(df, args.job, threshold=args.threshold)
        print(r.text, end="" if r.text.endswith("\n") else "\n")
        if args.json:
            r.save_json(args.json)
        if args.report:
            r.save_report(args.report)
        return 0
    return _run(body)


def verify_main(argv: Sequence[str]) -> int:
    """``python -m deid.spark verify JOB.yaml --output PATH --key COLUMN
    [--input PATH] [--result FILE] [--json FILE]``: ``deid verify``'s checks
    of a release Spark wrote (deid.spark.verify). Exit 0 when every check
    holds, 1 when one fails, 2 for a job or input error."""
    import argparse
    import json
    import sys
    p = argparse.ArgumentParser(prog="python -m deid.spark verify",
                                description="Check a release Spark wrote against its input with deid verify's "
                                            "independent verifier (docs/spark.md, docs/verify.md).")
    p.add_argument("job", help="the job file the release was made with")
    p.add_argument("--output", required=True, help="the release: a Parquet directory (or CSV file)")
    p.add_argument("--key", required=True, help="a column of both tables that names each record once")
    p.add_argument("--input", help="the input (default: the job's input.path or input.table)")
    p.add_argument("--result", help="the JSON result of the run: its counts and levels are checked too")
    p.add_argument("--json", help="also write the table of checks as JSON to this file")
    p.add_argument("--row-by-row", action="store_true",
                   help="bring both tables to the driver rather than the grouped pairs (the default unless the job "
                        "releases identifiers)")
    _spark_options(p)
    args = p.parse_args(argv)

    def body() -> int:
        from ._verify import verify
        from .._core import write_file
        spark = _session(args)
        df = _job_input(spark, args.job, args.input, "input")
        released = _read_input(spark, args.output, None)
        report = verify(args.job, input=df, output=released, key=args.key, result=args.result,
                        grouped=False if args.row_by_row else None)
        width = max((len(c["check"]) for c in report["checks"]), default=0)
        for c in report["checks"]:
            if args.quiet and c["status"] != "FAILED":
                continue
            print(f"{c['check']:<{width}}  {c['status']:<7}  {c['detail']}")
        if args.json:
            write_file(args.json, "table of checks", json.dumps(report, indent=2) + "\n")
        if not report["valid"]:
            first = next(c for c in report["checks"] if c["status"] == "FAILED")
            print(f"deid.spark: verify: {first['check']} failed: {first['detail']}", file=sys.stderr)
            return 1
        return 0
    return _run(body)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m deid.spark JOB.yaml [options]``, or ``spark-submit
    [spark options] LAUNCHER JOB.yaml [options]``: the job's input read by Spark, grouped there, searched
    here, and the release written by Spark (docs/spark.md). Exit codes as
    ``deid anonymize``: 0 released, 1 no transformation, 2 a job or input
    error, 3 another failure."""
    import argparse
    import sys
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "risk":
        return risk_main(argv[1:])
    if argv and argv[0] == "verify":
        return verify_main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m deid.spark",
                                epilog="Also: python -m deid.spark risk JOB.yaml [...], python -m deid.spark "
                                       "verify JOB.yaml --output PATH --key COLUMN [...] (each with --help).",
                                description="De-identify a table with Spark: deid anonymize's job, grouped and "
                                            "released by Spark, searched on the driver (docs/spark.md).")
    p.add_argument("job", nargs="?", help="the job file (docs/job-file.md)")
    p.add_argument("--input", help="the input: a Parquet file or directory, or a CSV file (default: the job's "
                                   "input.path)")
    p.add_argument("--output", help="the released table: a Parquet directory, written aside and renamed into "
                                    "place")
    p.add_argument("--mode", choices=["create", "replace"], default="create",
                   help="create (default): the output must not exist; replace: replaces it in one rename")
    p.add_argument("--result", help="the JSON result (default: the job's output.result, if any)")
    p.add_argument("--order-by", help="a key column whose order is the rows' order (default: the files' order)")
    p.add_argument("--threads", type=int, help="threads of the search on the driver (default: all cores)")
    _spark_options(p)
    p.add_argument("--launcher", action="store_true",
                   help="print the path of the file to give spark-submit (spark-submit [OPTIONS] FILE JOB.yaml "
                        "[these options]) and exit")
    args = p.parse_args(argv)
    if args.launcher:
        print(LAUNCHER)
        return 0
    if args.job is None:
        p.error("the job file is required")

    def fail(code: int, message: str) -> int:
        print(f"deid.spark: {message}", file=sys.stderr)
        return code

    def body() -> int:
        job = load_job(args.job, args.input is not None)
        source = args.input or job.input_path
        table = None if args.input else (job.input_table or None)
        if not (source or table) or job.input_postgres:
            return fail(2, f"{args.job}: the job's input must be a file (input.path), a Spark table (input.table) "
                           "or given with --input")
        if job.output_path and not job.output_parquet and not args.output:
            return fail(2, f"{args.job}: output.path names a CSV file; deid.spark writes Parquet: give "
                           "output.parquet, --output DIR or output.table")
        out_table = None if args.output else (job.output_table or None)
        if not args.output and job.output_parquet:
            args.output = job.output_path
        spark = _session(args)
        if out_table:
            exists = spark.catalog.tableExists(out_table)
            if job.output_mode == "create" and exists:
                return fail(2, f"table {out_table}: it exists (output.mode create); use replace or append")
            if job.output_mode == "append" and not exists:
                return fail(2, f"table {out_table}: it does not exist (output.mode append)")
        df = spark.table(table) if table else _read_input(spark, source, job.input_delimiter)
        if not args.quiet:
            print(f"deid.spark: grouping {table or source} on Spark ({spark.sparkContext.master})", file=sys.stderr)
        r = anonymize(df, args.job, order_by=args.order_by, threads=args.threads,
                      progress=None if args.quiet else True)
        if not args.quiet:
            print(r.summary(), file=sys.stderr)
        if r.found and args.output:
            if not args.quiet:
                print(f"deid.spark: writing {args.output}", file=sys.stderr)
            r.write(args.output, mode=args.mode)
        elif r.found and out_table:
            if not args.quiet:
                print(f"deid.spark: writing table {out_table}", file=sys.stderr)
            r.write_table(out_table, mode=job.output_mode)
        result = args.result or job.output_result
        if result:
            r.save_result(result)
        return 0 if r.found else 1
    return _run(body)
