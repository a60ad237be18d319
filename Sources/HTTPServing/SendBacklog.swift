import Hummingbird
import NIOCore

/// Holds a connection's next answer until its earlier answers have mostly been sent: until the
/// bytes the connection has not yet passed to the kernel fall below NIO's low-water mark
/// (`Channel.isWritable`, 32 KiB by default), or it closes.
///
/// Hummingbird writes an answer through `NIOAsyncChannel`'s outbound writer, whose writes hop
/// to the event loop; the writer learns that the connection is full only when the event loop
/// has done those writes. A client that pipelines many requests for a large answer and never
/// reads could so have every answer made before the first write was done: 50 clients
/// pipelining 200 requests for the live page's 87 KB frame held up to 1.2 GB
/// (`scripts/hostile-http.py`). With this gate a connection holds at most one answer beyond the
/// mark. The check is submitted to the event loop after the earlier answer's writes, so it sees
/// them. A connection that stays undrained for `timeout` (its client takes nothing) is closed,
/// as nginx's `send_timeout` closes one.
final class SendBacklog: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private let refusals: HTTPRefusals
    /// Requests waiting for the connection to drain.
    private var waiting: [EventLoopPromise<Void>] = []
    /// Closes the connection unless it drains first; armed while requests wait.
    private var timer: Scheduled<Void>?

    private struct GraceOver: Error {}

    init(timeout: Duration, refusals: HTTPRefusals) {
        self.timeout = TimeAmount(timeout)
        self.refusals = refusals
    }

    /// Returns once `channel` is writable or closed (at once when it carries no `SendBacklog`)
    /// and says so; with a `grace`, returns false once it has waited that long, else closes
    /// the connection once the backlog's `timeout` has passed. A cancelled task closes the
    /// connection, whose client has not taken what it asked for.
    static func drained(_ channel: any Channel, grace: Duration? = nil) async throws -> Bool {
        let drained = channel.eventLoop.flatSubmit {
            guard !channel.isWritable, channel.isActive,
                  let backlog = try? channel.pipeline.syncOperations.handler(type: SendBacklog.self)
            else { return channel.eventLoop.makeSucceededFuture(true) }
            let promise = channel.eventLoop.makePromise(of: Void.self)
            backlog.waiting.append(promise)
            if let grace {
                // Failed only while still waiting (`release` takes all it completes out first).
                let bound = NIOLoopBound(backlog, eventLoop: channel.eventLoop)
                channel.eventLoop.scheduleTask(in: TimeAmount(grace)) {
                    guard let index = bound.value.waiting.firstIndex(where: { $0.futureResult === promise.futureResult }) else { return }
                    bound.value.waiting.remove(at: index)
                    promise.fail(GraceOver())
                }
            } else if backlog.timer == nil {
                let refusals = backlog.refusals
                backlog.timer = channel.eventLoop.scheduleTask(in: backlog.timeout) {
                    refusals.count(.unread)
                    channel.close(promise: nil)
                }
            }
            return promise.futureResult.map { true }.recover { _ in false }
        }
        return try await withTaskCancellationHandler { try await drained.get() } onCancel: { channel.close(promise: nil) }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { release() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        release()
    }

    private func release() {
        timer?.cancel()
        timer = nil
        let released = waiting
        waiting = []
        for promise in released { promise.succeed() }
    }
}

/// A responder that answers each request of a `LocalServer` connection only once the
/// connection's `SendBacklog` has drained.
struct BacklogBoundResponder<Inner: HTTPResponder>: HTTPResponder {
    typealias Context = Inner.Context
    let inner: Inner

    func respond(to request: Request, context: Context) async throws -> Response {
        try await ServedConnection.drained()
        return try await inner.respond(to: request, context: context)
    }
}

/// The connection of the request the current task answers (set by `LocalServer`), for a route
/// that writes its answer in pieces (a `ResponseBody`) as `SendBacklog` holds whole answers.
public enum ServedConnection {
    /// For an answer written in pieces (a `ResponseBody` of a `LocalServer` route): waits up to
    /// `grace` for the connection the current task serves to take more (`Channel.isWritable`)
    /// and says whether it does; true at once when it does, is closed, or is not a
    /// `LocalServer`'s. Hummingbird's writer holds a piece only once NIO has seen the
    /// connection full, so a route that holds much for its next pieces (a page of a store's
    /// rows) can ask first and, on false, let go of it before it waits with `drained()`.
    public static func hasRoom(within grace: Duration) async throws -> Bool {
        guard let channel = WebSocketConnection.served else { return true }
        return try await SendBacklog.drained(channel, grace: grace)
    }

    /// The IP address the client of the connection the current task serves connects from
    /// (without its port); nil outside a `LocalServer` connection.
    public static var clientAddress: String? { WebSocketConnection.served?.remoteAddress?.ipAddress }

    /// Whether the connection the current task serves is still open (true outside a
    /// `LocalServer` connection): a route can skip work for a client that has gone.
    public static var isOpen: Bool { WebSocketConnection.served?.isActive ?? true }

    /// Returns once the connection the current task serves is writable or closed (at once
    /// outside a `LocalServer` connection), closing it when its client takes nothing for the
    /// server's `RequestLimits.idleTimeout`.
    public static func drained() async throws {
        if let channel = WebSocketConnection.served { _ = try await SendBacklog.drained(channel) }
    }
}
