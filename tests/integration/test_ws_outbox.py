"""A connection's outbox in-process, with a scripted socket: order kept, and a client that stops
reading cut off (1013) instead of being buffered without end."""

from __future__ import annotations

import asyncio

from visual_degrees_tools.local.server.session import CLOSE_TRY_AGAIN, OUTBOX_BYTES, Outbox


class StuckSocket:
    """Takes the first `accepts` frames, then blocks every send, as a client that stopped reading."""

    def __init__(self, accepts: int) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self._accepts = accepts

    async def send(self, message: str) -> None:
        if len(self.sent) >= self._accepts:
            await asyncio.Event().wait()  # never returns
        self.sent.append(message)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


def test_frames_go_out_in_order_then_the_close() -> None:
    async def scenario() -> StuckSocket:
        socket = StuckSocket(accepts=100)
        outbox = Outbox(socket)
        for n in range(5):
            outbox.push(str(n))
        outbox.close(1001, "bye")
        outbox.push("after close")
        await outbox.flushed()
        return socket

    socket = asyncio.run(scenario())
    assert socket.sent == ["0", "1", "2", "3", "4"]
    assert socket.closed == (1001, "bye")


def test_a_client_that_stops_reading_is_cut_off_at_the_limit() -> None:
    async def scenario() -> tuple[StuckSocket, bool]:
        # Given a client that took two frames and reads no more
        socket = StuckSocket(accepts=2)
        outbox = Outbox(socket, limit_bytes=10)

        # When far more is queued for it than the limit
        for n in range(50):
            outbox.push(str(n))
            await asyncio.sleep(0)
        await outbox.flushed()
        return socket, outbox.closing

    socket, closing = asyncio.run(scenario())
    # Then it is closed with 1013 (try again later), not buffered forever
    assert closing
    assert socket.closed is not None and socket.closed[0] == CLOSE_TRY_AGAIN
    assert socket.sent == ["0", "1"]


def test_the_limit_counts_bytes_not_messages() -> None:
    # Given a client that took one frame and reads no more
    async def scenario(frames: list[str]) -> tuple[StuckSocket, bool]:
        socket = StuckSocket(accepts=1)
        outbox = Outbox(socket)
        for frame in frames:
            outbox.push(frame)
            await asyncio.sleep(0)
        closing = outbox.closing
        outbox.abandon()
        return socket, closing

    # When 100 of the largest replies are queued for it (9.6 MB, in a hundred messages)
    socket, closing = asyncio.run(scenario(["x" * 96_000] * 100))
    # Then it is cut off once OUTBOX_BYTES wait unsent
    assert closing and socket.closed is not None and socket.closed[0] == CLOSE_TRY_AGAIN
    # While the same number of small messages (a tenth of the bytes would do) is kept for it
    socket, closing = asyncio.run(scenario(["é" * 100] * 100))
    assert not closing and socket.closed is None
    assert 100 * 96_000 > OUTBOX_BYTES > 100 * 200


def test_bytes_sent_make_room_again() -> None:
    # Given a client that reads: more than the limit goes through it, a frame at a time
    async def scenario() -> tuple[StuckSocket, bool]:
        socket = StuckSocket(accepts=1_000)
        outbox = Outbox(socket, limit_bytes=1_000)
        for _ in range(100):
            outbox.push("x" * 400)
            await asyncio.sleep(0)  # the writer sends it
        outbox.close(1000, "")
        await outbox.flushed()
        return socket, outbox.closing

    socket, _ = asyncio.run(scenario())
    assert len(socket.sent) == 100 and socket.closed == (1000, "")
