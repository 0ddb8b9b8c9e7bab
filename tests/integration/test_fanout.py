"""The push fan-out by audience, with a table of 1,000 watchers: public events go to the slots
that have watchers (never more messages than slots), a player's events only to that player's
connections, the device log only to the table's staff; a push of a targeted message reads no
slot. The watches are made by the application (``push.subscribe``) and the push function's handler
is invoked in the test's process, both on DynamoDB in memory (``croupier.sim.memory``, the
simulator's store, held to moto's semantics by ``tests/unit/test_sim_dynamo.py``): on the local
stack, making the 1,000 watches alone took 45 s of CPU. The push queue and API Gateway's management
API are recorded instead of called. The whole path on the local stack (a round's change, the live
function, the queue, the push function, a screen) is ``test_screens.py``'s."""

from __future__ import annotations

import contextvars
import json
import math
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from botocore.exceptions import EndpointConnectionError, ReadTimeoutError

from croupier.app import config, push, store, tables
from croupier.app.config import settings
from croupier.app.identity import Identity
from croupier.app.records import Watcher
from croupier.local.stack import project_root
from croupier.sim.memory import InMemory
from tests.support.harness import TIMERS

pytestmark = pytest.mark.integration

WATCHERS = 1000


class Recorded:
    """The push queue's ``send_message_batch`` and the management API's ``post_to_connection``,
    recorded: what was sent, and to which connection."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []
        self.posts: list[tuple[str, dict[str, Any]]] = []

    def send_message_batch(self, QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        assert QueueUrl == settings().push_queue_url and len(Entries) <= 10
        self.messages.extend((e["MessageGroupId"], json.loads(e["MessageBody"])) for e in Entries)
        return {"Successful": [{"Id": e["Id"]} for e in Entries]}

    def post_to_connection(self, ConnectionId: str, Data: bytes) -> dict[str, Any]:
        self.posts.append((ConnectionId, json.loads(Data)))
        return {}

    def mine(self, message_id: str) -> list[tuple[str, dict[str, Any]]]:
        """The queue messages of one fan-out."""
        return [(group, body) for group, body in self.messages if body["id"] == message_id]


def watch(connection_id: str, who: Identity, table: str) -> None:
    push.connect(connection_id, who)
    push.subscribe(connection_id, [table])


QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/memory-croupier-push.fifo"


def open_table(name: str) -> str:
    table_id = f"{name}-{uuid.uuid4().hex[:6]}"
    tables.create_table("baccarat", {"timers": dict(TIMERS)}, f"reader-{table_id}", table_id)
    return table_id


@pytest.fixture(scope="module")
def crowd() -> Iterator[dict[str, Any]]:
    """A Baccarat table watched by 1,000 connections: 996 players, the player ``owner`` on two
    screens, a player who never bets, its dealer console; a supervisor watching every table; and
    two quiet tables for the tests that leave and renew. On AWS in memory, for the whole module,
    with the push queue's and the management API's clients recorded."""
    fake = Recorded()
    aws = InMemory(project_root(), clients={"sqs": fake, "apigatewaymanagementapi": fake},
                   PUSH_QUEUE_URL=QUEUE_URL, WEBSOCKET_ENDPOINT="https://ws.execute-api.us-east-1.amazonaws.com/memory")
    with aws.running():
        table, leave, fresh, filling = (open_table(name) for name in ("crowd", "leave", "fresh", "filling"))
        people = {"owner": [f"conn-owner-{n}" for n in range(2)],
                  "others": [f"conn-p{n:04d}" for n in range(WATCHERS - 4)]}
        for connection_id in people["owner"]:
            watch(connection_id, Identity("owner", "player", "real", None), table)
        watch("conn-dealer", Identity("dealer-1", "dealer", "real", table), table)
        for n, connection_id in enumerate(people["others"]):
            watch(connection_id, Identity(f"p{n:04d}", "player", "real", None), table)
        watch("conn-lurker", Identity("lurker", "player", "real", None), table)  # the 1,000th: never bets
        watch("conn-super", Identity("sup-1", "supervisor", "real", None), push.EVERY_TABLE)
        yield {"table": table, "leave": leave, "fresh": fresh, "filling": filling, "recorded": fake, "aws": aws,
               "mine": {*people["owner"], *people["others"], "conn-dealer", "conn-lurker", "conn-super"}, **people}


def queue_event(group: str, body: dict[str, Any]) -> dict[str, Any]:
    """The push queue's message as Lambda hands it to the push function."""
    return {"Records": [{"messageId": f"m-{body['id']}", "receiptHandle": "r", "body": json.dumps(body),
                         "attributes": {"MessageGroupId": group, "ApproximateReceiveCount": "1"},
                         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                         "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:push.fifo", "awsRegion": "us-east-1"}]}


def test_a_push_message_names_its_slot_or_its_watchers(crowd: dict[str, Any]) -> None:
    body = {"table_id": crowd["table"], "id": "both-1", "watched": crowd["table"], "events": []}
    for wrong in ({**body, "slot": 1, "to": [{"connection_id": "c", "subject": "s", "role": "player"}]}, body):
        # refused, with what was wrong: the only record of its batch, the invocation fails
        with pytest.raises(BatchProcessingError, match="names either its slot or its watchers"):
            crowd["aws"].invoke("push", queue_event("g", wrong))


def bet_placed(table: str, player: str) -> dict[str, Any]:
    return {"type": "bet-placed", "table_id": table, "round_id": f"{table}-r1", "at": 1, "player": player,
            "audience": "player", "bet": {"bet_id": "b1", "type": "player", "amount": 100}}


def slot_counts(table: str) -> dict[int, int]:
    """The watchers of each slot of the table that has any."""
    counts = store.get(store.game_table(), {"pk": f"WATCH#{table}", "sk": "SLOTS"}) or {}
    return {int(name[4:]): int(count) for name, count in counts.items() if name.startswith("slot") and int(count) > 0}


def slots_with_watchers(table: str) -> int:
    return len(slot_counts(table))


def test_a_public_event_makes_one_message_per_slot_with_watchers_not_per_watcher(
        crowd: dict[str, Any]) -> None:
    table, recorded = crowd["table"], crowd["recorded"]
    # GIVEN 1,000 watchers of the table, filling its slots in order
    counts, room = slot_counts(table), settings().push_slot_watchers
    assert sum(counts.values()) == WATCHERS
    assert sorted(counts) == list(range(math.ceil(WATCHERS / room)))
    assert all(counts[slot] == room for slot in sorted(counts)[:-1])  # every slot but the last is full
    # WHEN a public event is fanned out
    sent = push.fan_out(table, [{"type": "betting-closed", "table_id": table, "round_id": f"{table}-r1",
                                 "at": 1, "audience": "public"}], "public-1")
    # THEN one message per slot of the table, and one per slot of the screens watching every table
    messages = recorded.mine("public-1")
    assert sent == len(messages) == len(counts) + slots_with_watchers(push.EVERY_TABLE)
    assert len({group for group, _ in messages}) == len(messages)
    assert all("slot" in body and "to" not in body for _, body in messages)
    # and the slots' pushes together post it once to every one of the 1,000 watchers, and to the
    # supervisor watching every table
    for _, body in messages:
        push.deliver(table, body["watched"], body["slot"], body["events"], body["id"])
    reached = [c for c, posted in recorded.posts if posted["id"] == "public-1" and c in crowd["mine"]]
    assert len(reached) == len(set(reached)) == WATCHERS + 1


def test_a_players_bet_reaches_only_that_players_connections(
        crowd: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    table, recorded = crowd["table"], crowd["recorded"]
    # WHEN the owner's bet is placed
    sent = push.fan_out(table, [bet_placed(table, "owner")], "private-1")
    # THEN one message, for the owner's two connections alone; nothing for the other 998 watchers
    messages = recorded.mine("private-1")
    assert sent == len(messages) == 1
    group, body = messages[0]
    assert group == f"{table}:player:owner" and "slot" not in body
    assert sorted(w["connection_id"] for w in body["to"]) == sorted(crowd["owner"])
    # and the push function, given that message, posts to those two, reading no slot of watchers
    monkeypatch.setattr(push, "watchers", lambda *slot: pytest.fail(f"a targeted push read the slot {slot}"))
    answer = crowd["aws"].invoke("push", queue_event(group, body))
    assert answer == {"batchItemFailures": []}
    assert sorted(c for c, posted in recorded.posts if posted["id"] == "private-1") == sorted(crowd["owner"])


@pytest.mark.parametrize("unreached", [ReadTimeoutError(endpoint_url="https://ws"),
                                       EndpointConnectionError(endpoint_url="https://ws")], ids=type)
def test_a_screen_not_reached_in_time_fails_alone_and_the_push_goes_on(
        crowd: dict[str, Any], monkeypatch: pytest.MonkeyPatch, unreached: Exception) -> None:
    table, recorded = crowd["table"], crowd["recorded"]
    slow = crowd["owner"][0]
    posted = recorded.post_to_connection

    def post(ConnectionId: str, Data: bytes) -> dict[str, Any]:
        if ConnectionId == slow:  # the SDK's one attempt found the screen's endpoint too slow
            raise unreached
        return posted(ConnectionId, Data)

    monkeypatch.setattr(recorded, "post_to_connection", post)
    # WHEN a message for the owner's two screens is pushed, one of them not reached in time
    push.fan_out(table, [bet_placed(table, "owner")], f"slow-{type(unreached).__name__}")
    ((group, body),) = recorded.mine(f"slow-{type(unreached).__name__}")
    answer = crowd["aws"].invoke("push", queue_event(group, body))
    # THEN the push succeeds: its message is not held back for every screen of the group (the queue
    # would deliver it again only after its visibility timeout), the other screen has it, and the
    # slow one resyncs from the round's seq
    assert answer == {"batchItemFailures": []}
    assert [c for c, posted in recorded.posts if posted["id"] == body["id"]] == [crowd["owner"][1]]
    assert push.deliver(table, body["watched"], None, body["events"], body["id"],
                        [Watcher.from_item(w) for w in body["to"]]) == {
        "sent": 1, "gone": 0, "failed": 1, "none": 0, "expired": 0}


def test_push_messages_the_queue_did_not_take_fail_the_change_and_are_sent_again_the_same(
        crowd: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    table, recorded = crowd["table"], crowd["recorded"]
    sent = recorded.send_message_batch

    def first_refused(QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        answer = sent(QueueUrl, Entries[1:]) if Entries[1:] else {"Successful": []}
        return {"Successful": answer["Successful"], "Failed": [
            {"Id": Entries[0]["Id"], "SenderFault": False, "Code": "InternalError", "Message": "try again"}]}

    event = {"type": "betting-closed", "table_id": table, "round_id": f"{table}-r9", "at": 1, "audience": "public"}
    # WHEN SQS answers a batch of the fan-out with one of its messages not sent
    monkeypatch.setattr(recorded, "send_message_batch", first_refused)
    with pytest.raises(push.NotQueued, match=r"^1 of \d+ push messages not queued \(InternalError\)$"):
        push.fan_out(table, [event], "refused-1")
    queued_first = recorded.mine("refused-1")
    # THEN the change fails, for the stream to hand it again; sent again, its messages are the same
    # ones, so that the queue drops those it took the first time (content-based deduplication)
    monkeypatch.setattr(recorded, "send_message_batch", sent)
    count = push.fan_out(table, [event], "refused-1")
    queued_again = recorded.mine("refused-1")[len(queued_first):]
    assert len(queued_again) == count == len(queued_first) + 1
    assert all(message in queued_again for message in queued_first)


def test_a_bet_of_a_player_nobody_sees_sends_nothing(crowd: dict[str, Any]) -> None:
    table, recorded = crowd["table"], crowd["recorded"]
    assert push.fan_out(table, [bet_placed(table, "someone-not-watching")], "private-2") == 0
    assert recorded.mine("private-2") == []


def test_the_device_log_reaches_the_tables_staff_only(crowd: dict[str, Any]) -> None:
    table, recorded = crowd["table"], crowd["recorded"]
    event = {"type": "device-event", "table_id": table, "at": 1, "audience": "staff", "entry": {"seq": 1}}
    sent = push.fan_out(table, [event], "staff-1")
    messages = recorded.mine("staff-1")
    # the table's dealer console; and the staff watching every table (the supervisor): no player
    # of the 1,000 watchers
    assert sent == len(messages) == 2
    named = {body["watched"]: {w["connection_id"] for w in body["to"]} for _, body in messages}
    assert named == {table: {"conn-dealer"}, push.EVERY_TABLE: {"conn-super"}}
    assert not (named[table] | named[push.EVERY_TABLE]) & (crowd["mine"] - {"conn-dealer", "conn-super"})
    assert all(w["role"] != "player" for _, body in messages for w in body["to"])
    assert {group for group, _ in messages} == {f"{table}:staff", f"{push.EVERY_TABLE}:staff"}


def test_a_change_with_a_public_event_goes_to_the_slots_each_watcher_getting_what_it_may_see(
        crowd: dict[str, Any]) -> None:
    table = crowd["table"]
    public = {"type": "round-opened", "table_id": table, "round_id": f"{table}-r2", "at": 1, "audience": "public"}
    preselected = {"type": "preselected", "table_id": table, "round_id": f"{table}-r2", "at": 1,
                   "audience": "staff"}
    assert push.audience_of([public, preselected]) is None
    assert push.audience_of([bet_placed(table, "a"), bet_placed(table, "b")]) is None  # two players: the slots
    assert push.audience_of([preselected]) == ("staff", "")
    assert push.audience_of([bet_placed(table, "a")]) == ("player", "a")
    assert push.fan_out(table, [public, preselected], "mixed-1") == (
        slots_with_watchers(table) + slots_with_watchers(push.EVERY_TABLE))


def test_a_batch_of_changes_reads_whom_they_reach_once_for_all_of_them(
        crowd: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    table, recorded, aws = crowd["table"], crowd["recorded"], crowd["aws"]
    # GIVEN three changes of the crowd table's shoe (shuffled, ready, closed), handed to the live
    # function in one batch as the stream hands them
    with aws.running():
        game = store.game_table().name
        aws.dynamo.take_records(game)
        for phase in ("shuffled", "ready", "closed"):
            record = store.load_table(table)
            record.shoe = {"shoe_id": "shoe-batch", "phase": phase}
            store.save(record)
        records = aws.dynamo.take_records(game)
    assert len(records) == 3
    reads: list[str] = []
    slots_watched = push.slots_watched
    monkeypatch.setattr(push, "slots_watched", lambda watched: reads.append(watched) or slots_watched(watched))
    sent_before = len(recorded.messages)
    # WHEN the live function handles the batch
    assert aws.invoke("live", {"Records": records}) == {"batchItemFailures": []}
    # THEN each change went to every slot with watchers, of the table and of every table...
    sent = recorded.messages[sent_before:]
    per_change = slots_with_watchers(table) + slots_with_watchers(push.EVERY_TABLE)
    assert len(sent) == 3 * per_change and len({body["id"] for _, body in sent}) == 3
    assert sorted({body["events"][0]["type"] for _, body in sent}) == ["shoe-closed", "shoe-ready", "shoe-shuffled"]
    # ...and the slots were read once for the batch, not once per change
    assert sorted(reads) == sorted([table, push.EVERY_TABLE])


def test_leaving_a_table_forgets_the_watch_for_every_audience(crowd: dict[str, Any]) -> None:
    table = crowd["leave"]
    watch("conn-leaver", Identity("leaver", "player", "real", None), table)
    watch("conn-console", Identity("dealer-2", "dealer", "real", table), table)
    assert push.fan_out(table, [bet_placed(table, "leaver")], "leave-1") == 1
    push.unsubscribe("conn-leaver", [table])
    push.unsubscribe("conn-console")  # the connection gone: every table it watched
    assert push.fan_out(table, [bet_placed(table, "leaver")], "leave-2") == 0
    staff_only = {"type": "device-event", "table_id": table, "at": 1, "audience": "staff", "entry": {}}
    push.fan_out(table, [staff_only], "leave-3")
    reached = {w["connection_id"] for _, body in crowd["recorded"].mine("leave-3") for w in body["to"]}
    assert reached == {"conn-super"}  # the supervisor watching every table remains
    left = store.query_all(store.game_table(), KeyConditionExpression="pk = :p",
                           ExpressionAttributeValues={":p": f"WATCH#{table}"})
    assert not [item["sk"] for item in left if item.get("connection_id") in ("conn-leaver", "conn-console")]


def test_a_fresh_token_extends_every_watch_of_the_connection(crowd: dict[str, Any]) -> None:
    table = crowd["fresh"]
    who = Identity("renewer", "player", "real", None)
    push.connect("conn-renewer", who, token_expires_at=2_000_000_000)
    push.subscribe("conn-renewer", [table])
    until = push.reauthenticate("conn-renewer", who, 2_000_000_100)
    items = store.query_all(store.game_table(), KeyConditionExpression="pk = :p",
                            ExpressionAttributeValues={":p": f"WATCH#{table}"})
    watches = [item for item in items if item.get("connection_id") == "conn-renewer"]
    assert len(watches) == 2 and {int(item["token_expires_at"]) for item in watches} == {until}
    push.unsubscribe("conn-renewer")


def test_a_few_watchers_are_one_slot_and_a_full_table_joins_its_least_filled_slot(
        crowd: dict[str, Any]) -> None:
    table, recorded = crowd["filling"], crowd["recorded"]
    # GIVEN a table watched by its console and three players: one slot, one push per public event
    watch("conn-few-console", Identity("dealer-4", "dealer", "real", table), table)
    for n in range(3):
        watch(f"conn-few-{n}", Identity(f"few{n}", "player", "real", None), table)
    assert slot_counts(table) == {0: 4}
    opened = {"type": "round-opened", "table_id": table, "round_id": f"{table}-r1", "at": 1, "audience": "public"}
    push.fan_out(table, [opened], "few-1")
    assert [body["slot"] for _, body in recorded.mine("few-1") if body["watched"] == table] == [0]
    # WHEN slots take two watchers each, and there are three: the empty ones fill in order, then
    # every new watcher joins the least filled
    # (in this thread only: a local stack beside it in the process keeps its own settings)
    with config.using(settings().model_copy(update={"push_slot_watchers": 2, "push_slots": 3})):
        for n in range(6):
            watch(f"conn-more-{n}", Identity(f"more{n}", "player", "real", None), table)
        assert slot_counts(table) == {0: 4, 1: 3, 2: 3}
        # a watcher leaving makes room where it was, and the next one joins there
        gone = store.connection_of("conn-more-3")
        assert gone is not None and push.slot_at(gone, table) == 2
        push.unsubscribe("conn-more-3")
        watch("conn-more-6", Identity("more6", "player", "real", None), table)
        joined = store.connection_of("conn-more-6")
        assert joined is not None and push.slot_at(joined, table) == 2
        assert slot_counts(table) == {0: 4, 1: 3, 2: 3}
        for connection_id in ["conn-few-console", *(f"conn-few-{n}" for n in range(3)),
                              *(f"conn-more-{n}" for n in (0, 1, 2, 4, 5, 6))]:
            push.unsubscribe(connection_id)


def test_watchers_joining_at_once_never_overfill_a_slot(crowd: dict[str, Any]) -> None:
    table = crowd["fresh"]
    before = sum(slot_counts(table).values())
    # (in this thread only: a local stack beside it in the process keeps its own settings)
    with config.using(settings().model_copy(update={"push_slot_watchers": 5})):
        # WHEN 24 screens subscribe at once, 8 at a time
        contexts = [contextvars.copy_context() for _ in range(24)]  # each thread reaches the test's AWS
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda n: contexts[n].run(
                watch, f"conn-rush-{n}", Identity(f"rush{n}", "player", "real", None), table), range(24)))
        # THEN every one is counted once, and the slots filled in order, none beyond its room
        counts = slot_counts(table)
        assert sum(counts.values()) == before + 24
        assert all(count <= 5 for count in counts.values()) and sorted(counts) == list(range(len(counts)))
        for slot, count in counts.items():
            assert len(list(push.watchers(table, slot))) == count
        for n in range(24):
            push.unsubscribe(f"conn-rush-{n}")
