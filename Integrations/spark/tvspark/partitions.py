"""The partition functions (mapInArrow): each partition's rows piped through one
`tokenverify verify` child, and the answers' columns added."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .child import VerifyError, VerifyProcess
from .options import JobOptions
from .ship import Shipment
from .worker_setup import lighten_worker

if TYPE_CHECKING:
    import pyarrow as pa

    from .request_batch import RequestBatch


@dataclass(frozen=True)
class TaskPlan:
    """Everything a task needs, pickled with the partition function."""

    options: JobOptions
    shipment: Shipment
    at: str
    threads: int
    line_offsets: dict[tuple[str, int], int]
    token_column: str = "token"
    context_columns: tuple[str, ...] = ()

    def process(self) -> VerifyProcess[Any]:
        return VerifyProcess(self.options.verify_argv(self.shipment.binary(), self.shipment.resolve,
                                                      self.at, self.threads))


def source_name(file_path: str) -> str:
    """The input file's path as the user gave it: a local file's plain path, else its URI."""
    if file_path.startswith("file:"):
        return urllib.parse.unquote(urllib.parse.urlparse(file_path).path)
    return file_path


def lines_partition(plan: TaskPlan, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """file_path, block_start, value (one row per line of a file split, in file order) in;
    source, line and the answer's columns out, one row per non-blank line."""
    lighten_worker()
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    from .answer_batch import ANSWER_ARROW_FIELDS, answer_columns
    from .request_batch import line_requests

    def requests() -> Iterator[tuple[tuple[pa.Array, pa.Array], RequestBatch]]:
        split: tuple[str, int] | None = None
        number = 0  # the line number of the split's last row so far
        seq = 1
        for batch in batches:
            rows = batch.num_rows
            if not rows:
                continue
            paths, values = batch.column(0), batch.column(2)
            starts = batch.column(1).to_numpy(zero_copy_only=False)
            # runs of rows from one file split (a partition may read several splits in turn)
            changes = np.zeros(rows, bool)
            if rows > 1:
                changes[1:] = pc.not_equal(paths.slice(1), paths.slice(0, rows - 1)).to_numpy(zero_copy_only=False)
                changes[1:] |= starts[1:] != starts[:-1]
            firsts = np.flatnonzero(changes | (np.arange(rows) == 0))
            ends = np.append(firsts[1:], rows)
            numbers = np.empty(rows, np.int64)
            names = []
            for first, end in zip(firsts, ends):
                here = (paths[int(first)].as_py(), int(starts[first]))
                if here != split:
                    split = here
                    if here[1] == 0:
                        number = 0
                    elif here in plan.line_offsets:
                        number = plan.line_offsets[here]
                    else:
                        raise VerifyError(f"no line count for split {here} (the input changed while the job ran?)")
                names.append(source_name(here[0]))
                numbers[first:end] = np.arange(number + 1, number + 1 + end - first)
                number += int(end - first)
            keep, request_batch = line_requests(values, seq, plan.options.max_line_bytes)
            seq += request_batch.count
            run_of_row = np.repeat(np.arange(len(firsts)), ends - firsts)
            sources = pa.array(names, pa.string()).take(pa.array(run_of_row[keep]))
            yield (sources, pa.array(numbers[keep])), request_batch

    schema = pa.schema([pa.field("source", pa.string()), pa.field("line", pa.int64()), *ANSWER_ARROW_FIELDS])
    for (sources, lines), answers in plan.process().run(requests()):
        yield pa.RecordBatch.from_arrays([sources, lines, *answer_columns(answers).columns], schema=schema)


def table_partition(plan: TaskPlan, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """A table's rows in; the same rows with the answer's columns added out."""
    lighten_worker()
    import pyarrow as pa

    from .answer_batch import ANSWER_ARROW_FIELDS, answer_columns
    from .request_batch import table_requests

    def requests() -> Iterator[tuple[pa.RecordBatch, RequestBatch]]:
        seq = 1
        for batch in batches:
            request_batch = table_requests(batch, plan.token_column, plan.context_columns, seq)
            seq += request_batch.count
            yield batch, request_batch

    for batch, answers in plan.process().run(requests()):
        schema = pa.schema([*batch.schema, *ANSWER_ARROW_FIELDS])
        yield pa.RecordBatch.from_arrays([*batch.columns, *answer_columns(answers).columns], schema=schema)
