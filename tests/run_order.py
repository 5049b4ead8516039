"""The order in which the test files run: costliest first, by the CPU seconds in run_order.json.

With `-n N --dist loadfile --no-loadscope-reorder` (scripts/bootstrap.sh) each file runs whole in
one test process, in the order the items are collected: the workers start on the long files and
the short ones share out the end. (A long file queued last runs alone at the end while the other
cores idle: longest-first is the classic way to balance such a load. xdist's own
--loadscope-reorder sorts by number of tests, which queued files of a few long tests last.)

run_order.json holds the CPU seconds (the test process and the child processes it waited for)
of every test file that took a second or more, measured in a run of the whole suite. A file not
listed counts as UNLISTED seconds; among equal costs, the file of most tests goes first; the
tests of a file keep their order.

`pytest --update-run-order` measures every file that runs and, if the run passes, rewrites
run_order.json with what it measured (files that did not run keep their entry, files that no
longer exist lose theirs). Measure the whole suite the way CI runs it, on a machine that is as
quiet as you can get: the proportions count, not the seconds (docs/architecture.md,
"Developing bipub").
"""

from __future__ import annotations

import json
import resource
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
RUN_ORDER = TESTS / "run_order.json"
UNLISTED = 1.0  # the cost of a file not listed (listed: those of UNLISTED seconds or more)
_WORKER_KEY = "bipub_run_order"  # the measurements a worker sends back (xdist workeroutput)


def load_costs(path: Path = RUN_ORDER) -> dict[str, float]:
    """The listed CPU seconds per test file (paths relative to tests/)."""
    return {str(k): float(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}


def run_order(items: list[pytest.Item], costs: dict[str, float]) -> list[pytest.Item]:
    """The items file by file, costliest file first (UNLISTED: not in `costs`); among equal
    costs, the files of most tests first; the tests of a file keep their order."""
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)

    def rank(name: str) -> tuple[float, int]:
        return -costs.get(name.removeprefix("tests/"), UNLISTED), -len(files[name])

    return [item for name in sorted(files, key=rank) for item in files[name]]


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class Measure:
    """`--update-run-order`: the CPU seconds of each test file (its tests' set-up, call and
    tear-down, module fixtures included), summed in each test process and, under xdist, sent
    back to the controlling process, which rewrites run_order.json at the end of a passing run."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.costs: dict[str, float] = {}
        self.written = False

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, None, None]:
        start = _cpu()
        yield
        name = item.nodeid.split("::", 1)[0].removeprefix("tests/")
        self.costs[name] = self.costs.get(name, 0.0) + _cpu() - start

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """(xdist, in the controlling process: a worker's measurements)"""
        for name, cost in getattr(node, "workeroutput", {}).get(_WORKER_KEY, {}).items():
            self.costs[name] = self.costs.get(name, 0.0) + cost

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # a worker: its controller writes the file
            workeroutput[_WORKER_KEY] = self.costs
            return
        if exitstatus != pytest.ExitCode.OK or not self.costs:
            return
        costs = {
            name: round(cost, 1)
            for name, cost in {**load_costs(), **self.costs}.items()
            if (TESTS / name).is_file() and cost >= UNLISTED
        }
        listed = dict(sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])))
        text = json.dumps(listed, indent=1)
        RUN_ORDER.write_text(text + "\n", encoding="utf-8")
        self.written = True

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.written:
            terminalreporter.write_line(
                f"the CPU seconds of each test file: written to {RUN_ORDER}"
            )
        elif getattr(self.config, "workeroutput", None) is None:
            terminalreporter.write_line(f"{RUN_ORDER.name} not written: the run did not pass")
