"""The local stack's ports (``croupier.local.stack.free_port``): each is held from the moment it is
picked until its server is bound, so that nothing else takes it meanwhile.

Found by a run of the suite in five processes: a stack picked a port, let it go, and bound its
WebSocket server to it seconds later; by then another socket had it (an outgoing connection of the
busy machine, or another process's stack that picked it too). The stack failed to start ("Address
already in use"), and with it all 385 tests of that process."""

from __future__ import annotations

import socket
import urllib.request

import pytest

from croupier.local.stack import free_port, release


def test_a_port_picked_for_a_server_is_refused_to_anyone_else_until_released() -> None:
    # GIVEN a port picked for one of the stack's servers
    port = free_port()
    try:
        # WHEN another program binds it, THEN it is refused
        with socket.socket() as other, pytest.raises(OSError) as refused:
            other.bind(("127.0.0.1", port))
        assert "in use" in str(refused.value)
        # WHEN another stack of the machine picks a port, THEN it is another one
        theirs = free_port()
        release(theirs)
        assert theirs != port
        # WHEN the server it was picked for binds it (with address reuse, as every server of the
        # stack does), THEN it listens and answers
        with socket.create_server(("127.0.0.1", port)) as server, \
                socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            accepted, _ = server.accept()
            with accepted:
                client.sendall(b"ping")
                assert accepted.recv(4) == b"ping"
    finally:
        release(port)
    # THEN, released and its server gone, the port is any server's again (with address reuse: the
    # connection it accepted and closed first waits out TIME_WAIT on it)
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", port))
        other.listen()


def test_a_started_stack_holds_none_of_its_ports(stack: object) -> None:
    # GIVEN a started local stack (its servers bound to the ports it picked)
    from croupier.local.stack import LocalStack, _held

    assert isinstance(stack, LocalStack)
    # THEN it let go of every hold, and its servers answer on those ports
    assert not set(stack._ports()) & set(_held)
    with urllib.request.urlopen(f"{stack.endpoint}/moto-api/", timeout=10) as answer:
        assert answer.status == 200
