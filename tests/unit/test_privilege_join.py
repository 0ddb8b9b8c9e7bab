"""The least-privilege verdicts of a session's processes, joined (tests/support/privilege.py)."""

from __future__ import annotations

from croupier.local import iam
from tests.support.privilege import Joined

PUT = ["BetsFunction", "dynamodb:PutItem", "arn:aws:dynamodb:us-east-1:1:table/game", ["TABLE#t"], "PutItem"]
SEND = ["PushFunction", "execute-api:ManageConnections", "arn:aws:execute-api:us-east-1:1:api/*", None, ""]


def test_a_refusal_anywhere_is_kept_and_a_grant_is_unused_only_where_no_process_used_it() -> None:
    # GIVEN two processes' verdicts: each used a grant the other did not, one made a refused call
    joined = Joined()
    joined.add([[*PUT, 3]], ["PushFunction: sqs:SendMessage on q — not granted"], ["grant A", "grant B", "grant C"])
    joined.add([[*PUT, 2], [*SEND, 1]], [], ["grant B", "grant C", "grant D"])
    # THEN the refused call stays; unused are the grants neither used; the calls are counted across both
    assert joined.refused == {"PushFunction: sqs:SendMessage on q — not granted"}
    assert joined.unused == {"grant B", "grant C"}
    put = iam.Call(*PUT[:3], ("TABLE#t",), "PutItem")
    assert joined.calls[put] == 5 and sum(joined.calls.values()) == 6
    assert joined.report().splitlines() == [
        "least privilege: 1 call(s) not granted, 2 grant(s) unused",
        "  NOT GRANTED PushFunction: sqs:SendMessage on q — not granted", "  unused grant B", "  unused grant C"]


def test_no_process_that_ran_a_stack_means_no_grant_is_called_unused() -> None:
    assert Joined().report() == "least privilege: 0 call(s) not granted, 0 grant(s) unused"
