import NIOCore

/// Stands in front of the HTTP decoder for a connection's first request head, on the raw
/// bytes: holds it to `RequestLimits` (a request line over the limit gets 414, a head 431, a
/// head slower than the timeout 408) and to the `HostPolicy` (400, 403), answering and closing
/// by itself; once a head has passed, it leaves the pipeline. Later heads on a kept-alive
/// connection are held to the decoder's limits (the same sizes), the idle timeout and the
/// `HostPolicy` by `EventLoopRouteHandler`.
///
/// The first head is where it is needed: a WebSocket handshake can only be the first request,
/// and hummingbird-websocket decides it (answering 400 to any refusal) before a route or a
/// middleware sees it; on such a server Hummingbird also adds its idle timeout only after that
/// head has been read whole.
final class FirstHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limits: RequestLimits
    private let policy: HostPolicy
    private let refusals: HTTPRefusals
    /// The head's bytes so far (at most `limits.maximumHead`), and the request line's length
    /// once its end was seen.
    private var head: [UInt8] = []
    private var requestLine: Int?
    /// The last four bytes seen, to find the head's end (CR LF CR LF, or LF LF) across reads.
    private var window: UInt32 = 0
    private var deadline: Scheduled<Void>?
    private var refused = false

    init(limits: RequestLimits, policy: HostPolicy, refusals: HTTPRefusals) {
        self.limits = limits
        self.policy = policy
        self.refusals = refusals
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return } // a refused client's bytes are read and dropped
        let bytes = unwrapInboundIn(data)
        for byte in bytes.readableBytesView {
            head.append(byte)
            window = window << 8 | UInt32(byte)
            if requestLine == nil, byte == 0x0A, head.count > 2 { requestLine = head.count }
            if requestLine == nil, head.count > limits.maximumRequestLine { return refuse(context, 414, "URI Too Long", .requestLine) }
            if head.count > limits.maximumHead { return refuse(context, 431, "Request Header Fields Too Large", .head) }
            if window == 0x0D0A_0D0A || window & 0xFFFF == 0x0A0A {
                let fields = Self.fields(head)
                if let refusal = policy.refusal(hosts: fields["host"] ?? [], origin: fields["origin"]?.first) {
                    return refuse(context, refusal.status, refusal.status == 400 ? "Bad Request" : "Forbidden", refusal.kind, body: refusal.reason)
                }
                context.fireChannelRead(data)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
        }
        context.fireChannelRead(data)
    }

    /// The head's header field values by lowercased name, in order, trimmed.
    static func fields(_ head: [UInt8]) -> [String: [String]] {
        var fields: [String: [String]] = [:]
        for line in head.split(separator: 0x0A).dropFirst() {
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[line.index(after: colon)...], as: UTF8.self)
            fields[name, default: []].append(HostPolicy.trimmingWhitespace(value))
        }
        return fields
    }

    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: TimeAmount(limits.headTimeout)) {
            let (guardHandler, context) = loopBound.value
            guardHandler.refuse(context, 408, "Request Timeout", .headTimeout)
        }
    }

    /// Answers `status` on the raw socket, then closes the connection the way a client can
    /// read the answer (`Channel.closeLingering`'s way, from the guard's place). The handlers
    /// behind hear the input end at once, as when a client half-closes: an HTTP upgrade still
    /// waiting for its first head (hummingbird-websocket's) then ends as
    /// `ChannelError.inputClosed`, which it traces, and not as a handler removed by the close,
    /// which it logs as an error (a line per refused connection: a hostile client's way to
    /// flood the log). The full close they ask for in turn waits for the lingering close.
    private func refuse(_ context: ChannelHandlerContext, _ status: Int, _ phrase: String, _ kind: HTTPRefusals.Reason, body: String = "") {
        guard !refused else { return }
        refused = true
        refusals.count(kind)
        deadline?.cancel()
        let content = body.isEmpty ? "" : body + "\n"
        let response = "HTTP/1.1 \(status) \(phrase)\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(content.utf8.count)\r\n\r\n" + content
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response))).whenComplete { _ in
            let context = bound.value
            context.close(mode: .output, promise: nil)
            context.eventLoop.scheduleTask(in: lingeringTime) { bound.value.close(promise: nil) }
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
    }

    /// A full close asked for behind the guard after a refusal waits for the lingering close
    /// (which is the guard's own and does not pass through it).
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard refused, mode == .all else { return context.close(mode: mode, promise: promise) }
        context.channel.closeFuture.cascade(to: promise)
    }
}

extension Channel {
    /// Closes the way a client can read a refusal just written (a "lingering close", as
    /// Apache's): output first, the rest after a second in which what the client still sends is
    /// read and dropped, not reset. Its handlers hear the input end at once (`closeEndingInput`).
    func closeLingering() {
        close(mode: .output, promise: nil)
        pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        eventLoop.scheduleTask(in: lingeringTime) { self.close(promise: nil) }
    }

    /// Closes after the handlers hear the input end, as when a client half-closes. A WebSocket
    /// upgrade handler still waiting for a first head (the fast path answered every request so
    /// far, or the decoder refused the first) then closes the connection itself, at once, and
    /// ends as `ChannelError.inputClosed`, which hummingbird-websocket traces, and not as a
    /// handler removed by the close, which it logs as an error. Hummingbird's HTTP handler, once
    /// there, only waits for the close.
    func closeEndingInput() {
        pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        close(promise: nil)
    }
}

/// How long a lingering close reads and drops what the client still sends.
private let lingeringTime = TimeAmount.seconds(1)
