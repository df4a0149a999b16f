"""A direct-path task's work on its byte ranges: the ranges through one child (arrow_child), the
child's Arrow answers written as one Parquet file with the lines output's schema, and the
answers counted by (valid, reason) for the summary.

The file is written under `DIR/_temporary/` and renamed to `DIR/part-NNNNN.parquet` (NNNNN the
task's index) only once the child exited 0 after a whole stream, so that a retried or
speculative attempt of the task replaces it with the same rows and a failed one leaves nothing
behind. Every batch's `line` values (the child numbers the lines of all the task's ranges, one
after the other) must rise strictly and stay within the task's lines; each becomes its range's
file (`source`) and its line number in that file. Python touches columns and row groups only,
never a row.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .answer_batch import ANSWER_ARROW_FIELDS
from .arrow_child import AnswerStream
from .protocol import ANSWER_FIELDS
from .plan import RangeTask
from .remote import staged_part, upload
from .store import Store

# The output of `lines` input, as the Spark path writes it: the file, the line, the answer.
OUTPUT_SCHEMA = pa.schema([pa.field("source", pa.string()), pa.field("line", pa.int64()), *ANSWER_ARROW_FIELDS])
# What a task returns to the driver: its answers counted by (valid, reason); a task without
# answers returns one row with count 0, so that every task is heard from.
COUNTS_SCHEMA = pa.schema([pa.field("task", pa.int64()), pa.field("valid", pa.bool_()),
                           pa.field("reason", pa.string()), pa.field("count", pa.int64())])
TEMPORARY = "_temporary"


@dataclass(frozen=True)
class ParquetChoices:
    """How the part files are written: the codec (pyarrow's name for Spark's
    spark.sql.parquet.compression.codec), the columns written without a dictionary, and the
    Arrow bytes gathered into one row group."""

    compression: str
    plain_columns: tuple[str, ...]
    row_group_bytes: int = 16 << 20


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


# A barrier stage's exchange (line_numbers.gather without the job's tasks): the task and its
# ranges' line counts in, the task with every range's first line out.
Numbering = Callable[[RangeTask, Sequence[int]], RangeTask]


def write_task(argv: Sequence[str], task: RangeTask, output: str, parquet: ParquetChoices, store: Store | None = None,
               numbering: Numbering | None = None) -> Any:
    """Runs `argv` (`tokenverify verify …`, without the output format) over the task's ranges,
    writes OUTPUT_DIR/part-NNNNN.parquet, and returns the task's counts (a COUNTS_SCHEMA batch).
    On a remote store (`store`; `output` the folder's path in it), the part is written to a
    local file first and put in place whole once the child ended well (remote.upload): a store
    without rename gets the same object from every attempt of the task, never a partial one.
    With `numbering` (a barrier stage's task), the child's answers are spooled until its ranges'
    lines are counted and `numbering` gave their first lines."""
    final = os.path.join(output, part_name(task.index))
    if store is not None:
        temporary = staged_part()
    else:
        temporary = os.path.join(output, TEMPORARY, f"{part_name(task.index)[:-8]}-{uuid.uuid4().hex}.parquet")
    dictionary = [name for name in OUTPUT_SCHEMA.names if name not in parquet.plain_columns]
    try:
        with pq.ParquetWriter(temporary, OUTPUT_SCHEMA, compression=parquet.compression,
                              use_dictionary=dictionary) as writer, AnswerStream(argv, task, spool=numbering is not None) as answers:
            numbered = numbering(task, answers.counted()) if numbering is not None else task
            groups = _RowGroups(numbered, answers, writer, parquet.row_group_bytes)
            for batch in answers.batches():
                groups.add(batch)
            answers.finish()
            groups.flush()
            groups.check_end()
        if store is not None:
            upload(temporary, store, final)
            os.unlink(temporary)
        else:
            os.replace(temporary, final)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return groups.counts.batch(task.index)


class _RowGroups:
    """The child's batches gathered until they hold `limit` Arrow bytes, then checked, given
    their files and line numbers, counted, and written as one row group: Python's work is per
    row group, not per batch, and Parquet gets large row groups."""

    def __init__(self, task: RangeTask, answers: AnswerStream, writer: Any, limit: int) -> None:
        self.answers = answers
        self.writer = writer
        self.limit = limit
        self.batches: list[Any] = []
        self.bytes = 0
        self.last = 0  # the task's last line number written
        pieces = task.ranges
        # the lines of the file before each range, and the task's line number after each range
        # fed so far (answers.ends, growing as the feeder goes on where it counts the lines)
        self.first_lines = np.array([piece.first_line for piece in pieces], np.int64)
        self.sources = pa.array([piece.file.source for piece in pieces], pa.string())
        self.counts = _Counts()

    def add(self, batch: Any) -> None:
        if batch.num_rows:
            self.batches.append(batch)
            self.bytes += batch.get_total_buffer_size()  # nbytes is ten times slower
            if self.bytes >= self.limit:
                self.flush()

    def flush(self) -> None:
        if not self.batches:
            return
        table = pa.Table.from_batches(self.batches)
        self.batches, self.bytes = [], 0
        lines = self._checked(table.column("line"))
        ends = np.array(self.answers.ends, np.int64)  # a row past the last end is in the range being fed
        pieces = np.searchsorted(ends, lines, side="left")  # the range of each row
        if pieces[-1] >= len(self.first_lines):
            raise self.answers.fail(f"line {lines[-1]} is past the task's {ends[-1] if len(ends) else 0} lines")
        # a task's line number in a range becomes the line number in its file: the lines of the
        # file before the range, less the task's lines before it
        starts = np.zeros(len(self.first_lines), np.int64)  # the task's lines before each range known so far
        starts[1:len(ends) + 1] = ends[:len(self.first_lines) - 1]
        shifts = self.first_lines - starts
        out = pa.Table.from_arrays([self.sources.take(pieces), pa.array(lines + shifts[pieces], pa.int64()),
                                    *(table.column(name) for name in ANSWER_FIELDS)], schema=OUTPUT_SCHEMA)
        self.counts.add(out)
        self.writer.write_table(out, row_group_size=table.num_rows)

    def _checked(self, lines: Any) -> Any:
        """The task's line numbers, checked to rise strictly within its lines."""
        if lines.null_count:
            raise self.answers.fail("an answer has no line number")
        values = lines.to_numpy()
        rising = values[0] > self.last and bool(np.all(values[1:] > values[:-1]))
        known = len(self.answers.ends) == len(self.first_lines)
        if not rising or (known and values[-1] > self.answers.ends[-1]):
            within = f"the task's {self.answers.ends[-1]} lines" if known else "the lines fed"
            raise self.answers.fail(f"line numbers {values[0]}…{values[-1]} after line {self.last} do not rise strictly within {within}")
        self.last = int(values[-1])
        return values

    def check_end(self) -> None:
        """After the child's whole stream: no answer past the task's lines (their count is
        whole now, also where the feeder counted them)."""
        total = self.answers.ends[-1] if self.answers.ends else 0
        if self.last > total:
            raise self.answers.fail(f"line {self.last} is past the task's {total} lines")


class _Counts:
    """Answers counted by (valid, reason), a table at a time."""

    def __init__(self) -> None:
        self.counts: dict[tuple[bool, str | None], int] = {}

    def add(self, table: Any) -> None:
        valid = table.column("valid")
        valid_rows = int(pc.sum(valid).as_py() or 0)
        if valid_rows:
            self.counts[(True, None)] = self.counts.get((True, None), 0) + valid_rows
        if valid_rows < table.num_rows:
            reasons = pc.value_counts(pc.filter(table.column("reason"), pc.invert(valid)))
            for reason, count in zip(reasons.field("values").to_pylist(), reasons.field("counts").to_pylist()):
                self.counts[(False, reason)] = self.counts.get((False, reason), 0) + count

    def batch(self, index: int) -> Any:
        """The counts as rows of COUNTS_SCHEMA for task `index` (one row of count 0 if none)."""
        rows: list[tuple[bool | None, str | None, int]] = [(valid, reason, count) for (valid, reason), count in self.counts.items()]
        rows = rows or [(None, None, 0)]
        return pa.RecordBatch.from_arrays(
            [pa.array([index] * len(rows), pa.int64()), pa.array([row[0] for row in rows], pa.bool_()),
             pa.array([row[1] for row in rows], pa.string()), pa.array([row[2] for row in rows], pa.int64())],
            schema=COUNTS_SCHEMA)
