"""map_on_cores: the same results in the same order, in processes or not."""

import os

import pytest

from site_builder import parallel


def square(x: int) -> int:
    return x * x


def worker_pid(_: int) -> int:
    return os.getpid()


@pytest.mark.parametrize("count, batch", [(0, None), (5, None), (parallel.PARALLEL_FROM + 37, None),
                                          (parallel.PARALLEL_FROM * 3 + 1, 50)],
                         ids=["none", "few-in-process", "many", "many-in-batches"])
def test_results_come_back_in_order(count, batch):
    items = list(range(count))
    assert list(parallel.map_on_cores(square, items, chunksize=4, batch=batch)) == [x * x for x in items]


def test_few_items_stay_in_this_process_and_many_go_to_workers(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert set(parallel.map_on_cores(worker_pid, list(range(3)))) == {os.getpid()}
    many = set(parallel.map_on_cores(worker_pid, list(range(parallel.PARALLEL_FROM)), chunksize=1))
    assert os.getpid() not in many
