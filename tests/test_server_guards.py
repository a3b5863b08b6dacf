"""Bokeh's teardown race (see steps/server_guards.py): a connection that the keep-alive job
already released is closed, and sent to, without errors."""
import asyncio

from bokeh.server.connection import ServerConnection
from bokeh.server.views.ws import WSHandler

import steps.server_guards as guards


class FakeSession:
    def __init__(self):
        self.subscribers, self.lost = set(), 0

    def subscribe(self, c):
        self.subscribers.add(c)

    def unsubscribe(self, c):
        self.subscribers.discard(c)

    def notify_connection_lost(self):
        self.lost += 1


class FakeApplication:
    def __init__(self):
        self.lost = []

    def client_lost(self, connection):
        self.lost.append(connection)
        connection.detach_session()


def handler_with_connection():
    session = FakeSession()
    handler = object.__new__(WSHandler)          # no Tornado request: only what is used
    handler.connection = ServerConnection(None, handler, None, session)
    handler.application = FakeApplication()
    handler.close_code = handler.close_reason = None
    return handler, session


def test_the_guards_are_installed_by_the_app():
    import app  # noqa: F401
    assert WSHandler.on_close is guards._on_close
    assert WSHandler.on_message is guards._on_message


def test_close_after_the_keep_alive_released_the_connection():
    guards.install()
    handler, session = handler_with_connection()
    handler.application.client_lost(handler.connection)      # the keep-alive job, first
    handler.on_close()                                       # Bokeh alone: AssertionError
    assert session.lost == 0 and len(handler.application.lost) == 1


def test_a_normal_close_still_releases_the_connection():
    guards.install()
    handler, session = handler_with_connection()
    handler.on_close()
    assert session.lost == 1 and handler.application.lost == [handler.connection]
    assert handler.connection._session is None


def test_a_message_queued_before_the_page_left_is_dropped():
    guards.install()
    handler, _ = handler_with_connection()
    handler.connection.detach_session()

    class Receiver:
        async def consume(self, fragment):
            raise AssertionError("a detached connection's message was handled")
    handler.receiver = Receiver()
    assert asyncio.run(handler.on_message('{"msgtype": "PATCH-DOC"}')) is None


def test_a_message_on_a_live_connection_is_handled():
    guards.install()
    handler, _ = handler_with_connection()
    seen = []

    class Receiver:
        async def consume(self, fragment):
            seen.append(fragment)
            return None                          # a fragment of a longer message
    handler.receiver = Receiver()
    asyncio.run(handler.on_message("part"))
    assert seen == ["part"]
