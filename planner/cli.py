"""`partition-planner`: the command line.

Subcommands:
  size      the sizing rule and the cost panel, from flags
  simulate  consumer-group assignments over candidate partition counts and group sizes
  demo      the model on the bundled example topic, with a recommendation
  perf-test read kafka-producer/consumer-perf-test output into Tp and Tc
  measure   run Kafka's perf tools on one partition of a cluster and land Tp and Tc
  collect   gather one data interval's figures from the configured sources
  observe   sample a live cluster over time into the observations dataset
  show      a topic's latest published recommendation, from the store
  sample    write a realistic sample fleet as a landing folder (demos, tests, benchmarks)
  plan      the whole pipeline for one data interval: collect, validate, size, simulate,
            validate, publish (what the Airflow DAG runs)
  export    a published run's changes as kafka-topics scripts, Strimzi, Terraform, KEDA, JSON
  apply     make a published run's partition changes on the cluster (a dry run by default)

Bad arguments print one line naming the flag and exit with code 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from planner.commands.common import EXIT_FAILED, EXIT_USAGE, Failed, Parser, UsageError


def build_parser() -> argparse.ArgumentParser:
    from planner.commands import (
        apply,
        collect,
        demo,
        export,
        measure,
        observe,
        perf_test,
        plan,
        sample,
        show,
        simulate,
        size,
    )

    parser = Parser(prog="partition-planner", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    size.add_parser(sub)
    simulate.add_parser(sub)
    demo.add_parser(sub)
    perf_test.add_parser(sub)
    measure.add_parser(sub)
    collect.add_parser(sub)
    observe.add_parser(sub)
    sample.add_parser(sub)
    show.add_parser(sub)
    plan.add_parser(sub)
    export.add_parser(sub)
    apply.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except UsageError as exc:
        sys.stderr.write(f"partition-planner {args.command}: error: {exc}\n")
        return EXIT_USAGE
    except Failed as exc:
        sys.stderr.write(f"partition-planner {args.command}: failed: {exc}\n")
        return EXIT_FAILED
    return result


if __name__ == "__main__":
    raise SystemExit(main())
