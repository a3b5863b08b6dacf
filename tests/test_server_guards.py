"""Bokeh's teardown race (see steps/server_guards.py): a connection that the keep-alive job
already released is closed, and sent to, without errors."""
import asyncio

from bokeh.server.connection import ServerConnection
from bokeh.server.views.ws import WSHandler

import steps.server_guards as guards


def in_own_thread(fn, *args):
    """Run `fn` in a thread of its own, with no event loop: the browser tests of the same
    pytest run keep one running in the main thread."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


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
    assert in_own_thread(asyncio.run, handler.on_message('{"msgtype": "PATCH-DOC"}')) is None


def test_a_message_on_a_live_connection_is_handled():
    guards.install()
    handler, _ = handler_with_connection()
    seen = []

    class Receiver:
        async def consume(self, fragment):
            seen.append(fragment)
            return None                          # a fragment of a longer message
    handler.receiver = Receiver()
    in_own_thread(asyncio.run, handler.on_message("part"))
    assert seen == ["part"]


class FakeWs:
    def __init__(self, closing=False):
        self.closing = closing

    def is_closing(self):
        return self.closing


class FakeConnection:
    def __init__(self, closing=False):
        from bokeh.protocol import Protocol
        self._socket = type("Socket", (), {})()
        self._socket.ws_connection = FakeWs(closing)
        self.protocol = Protocol()


def message():
    from bokeh.protocol import Protocol
    return Protocol().create("OK", "1")


def test_a_page_that_leaves_between_two_frames(monkeypatch):
    """The first frame's write fails later, the second raises at once: the message ends
    quietly and no write is left unretrieved (asyncio would log it as an error)."""
    import gc
    from tornado.websocket import WebSocketClosedError, WebSocketHandler

    def scenario():
        loop = asyncio.new_event_loop()
        unretrieved = []
        loop.set_exception_handler(lambda loop, context: unretrieved.append(context))
        writes = []

        def write(socket, frame, binary=False):
            if writes:
                raise WebSocketClosedError()
            future = loop.create_future()
            future.set_exception(WebSocketClosedError())
            writes.append(future)
            return future
        monkeypatch.setattr(WebSocketHandler, "write_message", write)
        dropped = guards._dispatch_tornado(FakeConnection(), msg=message())
        loop.run_until_complete(asyncio.sleep(0))      # the done callbacks run
        writes.clear()
        gc.collect()
        loop.close()
        return dropped, unretrieved
    assert in_own_thread(scenario) == ([], [])


def test_messages_to_an_open_socket_are_written_whole(monkeypatch):
    from tornado.websocket import WebSocketHandler
    frames = []
    monkeypatch.setattr(WebSocketHandler, "write_message",
                        lambda socket, frame, binary=False: frames.append(frame) or frame)
    futures = guards._dispatch_tornado(FakeConnection(), msg=message())
    assert len(futures) == len(frames) == 3 and '"msgtype":"OK"' in frames[0].replace(" ", "")
    assert guards._dispatch_tornado(FakeConnection(closing=True), msg=message()) == []
    assert guards._dispatch_tornado(FakeConnection(), events=[]) == []
    assert len(frames) == 3


def test_panel_writes_through_the_guard():
    import panel.io.document as panel_document
    import app  # noqa: F401
    assert panel_document.dispatch_tornado is guards._dispatch_tornado
