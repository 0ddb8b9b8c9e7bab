"""A DynamoDB stream delivered to a function as Lambda's event source mapping delivers it, for a
simulation: every choice from the run's random generator.

- The stream is split into shards by partition key: the records of one item (of one partition
  key) stay in commit order; records of different shards may be delivered in any relative order,
  as Lambda reads shards in parallel. Which shard goes next is drawn from the generator.
- The filter criteria drop the records no pattern matches (EventBridge's pattern syntax, over the
  whole record); a dropped record is never delivered.
- A batch is up to ``batch_size`` records of one shard. When the function raises, the batch is
  retried (up to ``max_retries`` times), split in two first when ``bisect`` is set; when it
  reports failed items (``batchItemFailures``), the batch goes again from the first of them. Each
  failed delivery counts as a retry; a batch out of retries goes to ``on_failure`` (its first and
  last sequence numbers) and the shard moves past it, as a failure destination does.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Record = dict[str, Any]
_VERDICTS_KEPT = 4_096


def filter_patterns(texts: list[str]) -> list[Any]:
    """An event source mapping's filter criteria (each pattern's JSON text), ready to match."""
    from moto.events.models import EventPattern

    return [EventPattern.load(text) for text in texts]


def passes(patterns: list[Any], record: Record) -> bool:
    """Does a stream record pass filter criteria (any of their patterns)? Matched as Lambda matches
    it: EventBridge's pattern syntax over the record as JSON (a record kept with a datetime in it
    is matched as the function would receive it)."""
    plain = json.loads(json.dumps(record, default=str))
    return any(pattern.matches_event(plain) for pattern in patterns)


def _on_keys_only(pattern: Any) -> bool:
    """Whether a filter pattern looks at the record's keys alone (``{"dynamodb": {"Keys": ...}}``)."""
    return (isinstance(pattern, dict) and list(pattern) == ["dynamodb"] and isinstance(pattern["dynamodb"], dict)
            and list(pattern["dynamodb"]) == ["Keys"])


@dataclass
class _Shard:
    records: list[Record] = field(default_factory=list)
    attempts: int = 0
    size: int = 0
    """The size of the batch being retried (0: a fresh batch of ``batch_size``)."""


@dataclass
class StreamMapping:
    """One function mapped to one table's stream."""

    function: Callable[[dict[str, Any]], Any]
    rng: random.Random
    shards: int = 4
    batch_size: int = 100
    max_retries: int = 10
    bisect: bool = True
    filters: list[str] | None = None
    """The filter criteria's patterns (JSON text, as in the template); None: every record."""
    on_failure: Callable[[dict[str, Any]], None] | None = None
    delivered: list[list[str]] = field(default_factory=list)
    """Each invocation's records, by sequence number, in order."""
    _shards: list[_Shard] = field(default_factory=list)
    _patterns: list[Any] | None = None
    _verdicts: dict[tuple[tuple[str, str, Any], ...], bool] = field(default_factory=dict)
    """The filter's verdict on each item's keys seen lately (patterns on the keys alone)."""

    def __post_init__(self) -> None:
        self._shards = [_Shard() for _ in range(self.shards)]
        self._patterns = filter_patterns(self.filters or []) if self.filters is not None else None
        self._keys_only = self.filters is not None and all(_on_keys_only(json.loads(text)) for text in self.filters)

    def add(self, records: list[Record]) -> None:
        """Records the stream gained, oldest first (each goes to its partition key's shard)."""
        for record in records:
            keys = record["dynamodb"]["Keys"]
            if self._patterns is not None and not self._passes(record, keys):
                continue
            partition = str(sorted(keys.items())[0])  # the first key attribute: pk
            shard = int(hashlib.sha256(partition.encode()).hexdigest()[:8], 16) % self.shards
            self._shards[shard].records.append(record)

    def _passes(self, record: Record, keys: dict[str, Any]) -> bool:
        """Does the record pass the filter? Patterns on the keys alone are matched on the keys
        alone (the same answer, without reading the images), once for each item's keys."""
        assert self._patterns is not None
        if not self._keys_only:
            return passes(self._patterns, record)
        told = tuple((name, kind, value) for name, typed in keys.items() for kind, value in typed.items())
        verdict = self._verdicts.get(told)
        if verdict is None:
            if len(self._verdicts) >= _VERDICTS_KEPT:
                self._verdicts.clear()
            verdict = self._verdicts[told] = passes(self._patterns, {"dynamodb": {"Keys": keys}})
        return verdict

    def pending(self) -> int:
        return sum(len(s.records) for s in self._shards)

    def step(self) -> bool:
        """Deliver one batch of one shard (drawn among those with records); False when none has any."""
        waiting = [s for s in self._shards if s.records]
        if not waiting:
            return False
        shard = self.rng.choice(waiting)
        batch = shard.records[:shard.size or self.batch_size]
        self.delivered.append([r["dynamodb"]["SequenceNumber"] for r in batch])
        try:
            answer = self.function({"Records": batch})
        except Exception:
            self._failed(shard, batch, halve=self.bisect)
            return True
        failures = answer.get("batchItemFailures") or [] if isinstance(answer, dict) else []
        if not failures:
            del shard.records[:len(batch)]
            shard.attempts, shard.size = 0, 0
            return True
        first = min(int(f["itemIdentifier"]) for f in failures)
        done = [r for r in batch if int(r["dynamodb"]["SequenceNumber"]) < first]
        del shard.records[:len(done)]
        self._failed(shard, batch[len(done):], halve=False)
        return True

    def _failed(self, shard: _Shard, batch: list[Record], *, halve: bool) -> None:
        shard.attempts += 1
        if shard.attempts > self.max_retries:
            del shard.records[:len(batch)]
            shard.attempts, shard.size = 0, 0
            if self.on_failure is not None:
                self.on_failure({"StartSequenceNumber": batch[0]["dynamodb"]["SequenceNumber"],
                                 "EndSequenceNumber": batch[-1]["dynamodb"]["SequenceNumber"],
                                 "BatchSize": len(batch)})
            return
        shard.size = max(1, len(batch) // 2) if halve and len(batch) > 1 else len(batch)

    def drain(self, limit: int = 100_000) -> int:
        """Deliver until no shard has records (at most ``limit`` batches); returns the batches."""
        n = 0
        while n < limit and self.step():
            n += 1
        return n
