"""SQS queues as a simulation needs them: on a virtual clock, every choice drawn from the run's
random generator, with the delivery semantics SQS documents.

- A **standard** queue delivers at least once and in no promised order: a receive takes any of the
  visible messages, and a message may be delivered again although it was deleted (a duplicate
  delivery), as often as ``duplicates`` says.
- A **FIFO** queue delivers each message group in order: a group's next message is not received
  while an earlier one of it is in flight; a message whose deduplication id was sent in the last
  5 minutes is accepted and dropped. A receive returns messages of one group (SQS fills a receive
  from one group first, and may return fewer than asked).
- Both: a received message is invisible for the queue's visibility timeout, then visible again
  unless deleted; after ``max_receives`` receives it moves to the dead-letter queue, if the queue
  has one (the redrive policy).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Any

from ..app.clock import VirtualClock

DEDUPLICATION_SECONDS = 300
"""A FIFO queue's deduplication interval."""


@dataclass(eq=False)
class Message:
    """A message as a queue holds it: each is itself (compared by identity, as the queue deletes
    the one it handed out), whatever its fields."""

    id: str
    body: Any
    group: str | None = None
    sent_at: float = 0.0
    receives: int = 0
    visible_at: float = 0.0
    receipt: str | None = None


@dataclass
class Queue:
    """One queue. ``duplicates``: the chance that a deleted message of a standard queue is
    delivered once more (SQS's at-least-once); ``dead_letter``: where a message goes after
    ``max_receives`` receives."""

    name: str
    clock: VirtualClock
    rng: random.Random
    fifo: bool = False
    visibility_timeout: float = 30.0
    max_receives: int | None = None
    dead_letter: Queue | None = None
    duplicates: float = 0.0
    messages: dict[Message, None] = field(default_factory=dict)
    """The messages held, in the order sent (a dict for its order and its deletes by identity)."""
    _ids: itertools.count[int] = field(default_factory=itertools.count)
    _seen: dict[str, float] = field(default_factory=dict)
    """A FIFO queue's deduplication ids and when each was sent."""
    _seen_kept: int = 1024

    def send(self, body: Any, group: str | None = None, deduplication_id: str | None = None,
             delay: float = 0.0) -> str | None:
        """Put a message, received no sooner than ``delay`` seconds from now (its delay seconds);
        its id, or None when a FIFO queue drops it as a duplicate."""
        now = self.clock.monotonic()
        if self.fifo:
            if group is None or deduplication_id is None:
                raise ValueError("a FIFO queue's message needs a group and a deduplication id")
            sent = self._seen.get(deduplication_id)
            if sent is not None and now - sent < DEDUPLICATION_SECONDS:
                return None
            if len(self._seen) >= self._seen_kept:  # forget the ids older than the interval
                self._seen = {key: at for key, at in self._seen.items() if now - at < DEDUPLICATION_SECONDS}
                self._seen_kept = max(1024, 2 * len(self._seen))
            self._seen[deduplication_id] = now
        message = Message(f"{self.name}-{next(self._ids)}", body, group, now, visible_at=now + delay)
        self.messages[message] = None
        return message.id

    def receive(self, most: int = 10) -> list[Message]:
        """Up to ``most`` visible messages, each then in flight for the visibility timeout."""
        now = self.clock.monotonic()
        visible: list[Message] = []
        busy: set[str | None] = set()  # the groups with a message in flight
        spent: list[Message] = []  # received as often as the redrive policy allows
        for message in self.messages:  # one pass, in the order sent
            if message.visible_at > now:
                busy.add(message.group)
            elif self.max_receives is not None and message.receives >= self.max_receives:
                spent.append(message)
            else:
                visible.append(message)
        self._redrive(spent, now)
        if self.fifo:
            chosen = self._fifo_batch(visible, busy, most)
        else:
            chosen = self.rng.sample(visible, min(most, len(visible)))
        for message in chosen:
            message.receives += 1
            message.visible_at = now + self.visibility_timeout
            message.receipt = f"{message.id}/{message.receives}"
        return chosen

    @staticmethod
    def _fifo_batch(visible: list[Message], busy: set[str | None], most: int) -> list[Message]:
        batch: list[Message] = []
        for message in visible:  # in the order sent
            if len(batch) == most:
                break
            if message.group in busy:
                continue
            if batch and batch[0].group != message.group:
                continue  # one group per receive: SQS returns as many of one group as it can first
            batch.append(message)
        return batch

    def delete(self, message: Message) -> None:
        """Delete a received message (its current receipt); a standard queue may still deliver it
        once more (``duplicates``)."""
        if message.receipt is None or message not in self.messages:
            return
        if not self.fifo and message.receives == 1 and self.rng.random() < self.duplicates:
            message.visible_at = self.clock.monotonic() + self.rng.uniform(0, self.visibility_timeout)
            message.receives = 1
            return
        del self.messages[message]

    def remove(self, message: Message) -> None:
        """Take a message off the queue, received or not (a dead-letter queue's redrive)."""
        del self.messages[message]

    def _redrive(self, spent: list[Message], now: float) -> None:
        for message in spent:
            del self.messages[message]
            if self.dead_letter is not None:
                self.dead_letter.messages[Message(message.id, message.body, message.group, now, visible_at=now)] = None

    def __len__(self) -> int:
        return len(self.messages)
