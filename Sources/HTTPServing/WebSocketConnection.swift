import Platform
public import NIOCore
import NIOWebSocket

/// The connection under a `LocalServer` WebSocket route (`router.ws`), for a route that pushes
/// many messages: it writes its frames on the connection's event loop itself, several and then
/// one flush, where hummingbird-websocket's outbound writer takes a hop from the route's task
/// to the event loop and a flush per frame (with 1,000 `/live` subscribers those hops shared the
/// event loops with ingest: ingest p99 0.5–4 s). A route that writes here writes all its data
/// frames here; the library's pings and close go between whole frames.
public struct WebSocketConnection: Sendable {
    let channel: any Channel

    /// The connection of the request or WebSocket the current task serves, set by `LocalServer`
    /// for each connection's handler.
    @TaskLocal static var served: (any Channel)?

    /// The connection of the WebSocket route handler running in this task; nil outside one.
    public static var current: WebSocketConnection? { served.map(WebSocketConnection.init) }

    /// The connection's event loop: `isWritable` and `writeTexts` are used on it.
    public var eventLoop: any EventLoop { channel.eventLoop }
    /// Whether the connection is open.
    public var isActive: Bool { channel.isActive }
    /// Whether the connection takes more without holding more than its high-water mark unsent
    /// (NIO's default 64 KiB): a route that writes only then keeps a client that does not read
    /// from growing the server's buffers.
    public var isWritable: Bool { channel.isWritable }

    /// Keeps at most about `bytes` unsent for this connection: NIO's high-water mark (then
    /// `isWritable` is false) and the kernel's send buffer (SO_SNDBUF; Linux doubles it for its
    /// bookkeeping, and no longer grows it by itself — to tcp_wmem's 4 MB on loopback). For a
    /// live feed whose messages go stale: what waits in these buffers reaches a slow client late,
    /// what waits in the route's own mailbox can still be replaced by something newer.
    public func limitUnsentBytes(to bytes: Int) {
        let high = max(bytes, 2)
        _ = channel.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: high / 2, high: high))
        _ = channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(clamping: high))
    }

    /// Writes a close frame with `code` and `reason` (RFC 6455 §5.5.1, §7.4), then closes the
    /// connection: for a route that ends a client's connection while the client is still on it.
    /// Any thread.
    public func close(code: UInt16, reason: String) {
        var data = ByteBuffer()
        data.writeInteger(code)
        data.writeString(String(decoding: reason.utf8.prefix(123), as: UTF8.self))
        channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Writes each of `messages` (UTF-8) as one unfragmented text frame (RFC 6455 §5.6), then
    /// flushes once. On `eventLoop`.
    public func writeTexts(_ messages: [ByteBuffer]) {
        for message in messages { channel.write(WebSocketFrame(fin: true, opcode: .text, data: message), promise: nil) }
        channel.flush()
    }
}
