import NIOCore
import NIOHTTP1

/// Serves `EventLoopRoutes` on one connection: sits after the HTTP decoder and the WebSocket
/// upgrade handler (so it sees every request after the first head's upgrade decision), answers
/// the requests the routes take, and passes every other on to Hummingbird. Every server has one,
/// with or without routes: it holds each request to the `HostPolicy`, answers what the decoder
/// refuses, and keeps the idle timeout.
///
/// - Order: replies leave in request order (RFC 9112 §9.3.2). A request for the routes waits
///   until the router has ended its responses to the requests before it; parts that arrive while
///   a route's reply is awaited are held (and the socket not read further) until it is written.
/// - Backlog: a request for the routes also waits while the connection is not writable (more
///   than NIO's high-water mark, 64 KiB, of its earlier replies not yet taken by the kernel), as
///   the router's requests wait in `SendBacklog`: a client that pipelines and never reads holds
///   at most one reply beyond the mark, and is closed `idleTimeout` after its last reply was made.
/// - Limits: `Host`/`Origin` per `HostPolicy` (400, 403), for the router's requests too; a
///   request the decoder refuses 400 (`errorCaught`); a body announced or sent over
///   `maximumBodyBytes` gets 413 at once; a body not complete `bodyTimeout` after its head 408;
///   each refusal closes the connection. A connection with nothing in progress for
///   `idleTimeout` (a later head trickled byte by byte among them: the decoder holds it unseen)
///   is closed; this handler keeps that timeout for every request of the connection, as
///   Hummingbird's own would count only the requests it sees.
/// - A connection upgraded to a WebSocket loses this handler.
/// - `EventLoopRouteFastPath`, in front of the decoder, answers the plainest requests before
///   this handler sees them; its replies count for the idle timeout (`RouteActivity`).
final class EventLoopRouteHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let routes: any EventLoopRoutes
    private let limits: RequestLimits
    private let policy: HostPolicy
    private let refusals: HTTPRefusals
    private let activity: RouteActivity

    /// The request being read for the routes: its head, its body so far, when its head came.
    private var current: (head: HTTPRequestHead, body: ByteBuffer, started: NIODeadline)?
    /// Whether `current` was read whole and its reply is awaited.
    private var answering = false
    /// Requests passed on whose response has not ended.
    private var forwarded = 0
    /// Request parts not yet handled, in arrival order; a head with its `HostPolicy` refusal,
    /// worked out once when it comes (a head may wait through several drains).
    private var held = CircularBuffer<(part: HTTPServerRequestPart, refusal: HostPolicy.Refusal?)>()
    /// A `read` withheld while parts wait, issued once they are handled.
    private var readWithheld = false
    /// Since when nothing has been in progress.
    private var idleSince = NIODeadline.now()
    private var timer: Scheduled<Void>?
    private var timerDeadline = NIODeadline.distantFuture
    /// The server is ending: close after the reply in progress.
    private var closeAfterReply = false
    /// An `inputClosed` event held until the reply in progress is written.
    private var inputClosedHeld = false
    /// The decoder's error at the bytes after the held parts: answered 400 once they are.
    private var malformed: HTTPParserError?
    /// A refusal was sent: the client's further bytes are dropped.
    private var refused = false
    private var removed = false

    init(routes: any EventLoopRoutes, limits: RequestLimits, policy: HostPolicy, refusals: HTTPRefusals, activity: RouteActivity) {
        self.routes = routes
        self.limits = limits
        self.policy = policy
        self.refusals = refusals
        self.activity = activity
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, at: NIODeadline.now() + TimeAmount(limits.idleTimeout)) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, at: NIODeadline.now() + TimeAmount(limits.idleTimeout))
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let part = unwrapInboundIn(data)
        var refusal: HostPolicy.Refusal?
        if case .head(let head) = part {
            refusal = policy.refusal(hosts: head.headers["host"], origin: head.headers.first(name: "origin"))
        }
        held.append((part, refusal))
        _ = drain(context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // A body still coming: its deadline (GET requests, whole in one read, never arm it).
        if let current, !answering { arm(context, at: current.started + TimeAmount(limits.bodyTimeout)) }
        context.fireChannelReadComplete()
    }

    /// Reads on while a reply is awaited (a client that waits for it sends nothing meanwhile:
    /// withholding the read would cost two `epoll_ctl` calls a request, 3 % of the server's CPU
    /// time at 8,000 requests/s, `perf`), but not while parts are held (a pipelining client).
    func read(context: ChannelHandlerContext) {
        if held.isEmpty { context.read() } else { readWithheld = true }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        context.write(data, promise: promise)
        forwarded = max(0, forwarded - 1)
        guard forwarded == 0 else { return }
        idleSince = .now()
        // A request for the routes that waited for this response.
        if drain(context) { context.fireChannelReadComplete() }
        releaseRead(context)
    }

    /// The kernel took the earlier replies: a request held for the backlog is answered.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            if drain(context) { context.fireChannelReadComplete() }
            releaseRead(context)
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ChannelShouldQuiesceEvent where current != nil:
            // The router's handler would close now, before the reply in progress.
            closeAfterReply = true
        case let channelEvent as ChannelEvent where channelEvent == .inputClosed && current != nil:
            inputClosedHeld = true
        case is HTTPServerUpgradeEvents:
            context.fireUserInboundEventTriggered(event)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// NIO's decoder refused the bytes after the parts it handed in, and reads no more of them
    /// (`ByteToMessageHandler` then only reports what comes as further errors, dropped here).
    /// Answered 400 and closed once the requests before it are, as NIO's
    /// `HTTPServerProtocolErrorHandler` does: Hummingbird turns that handler off and answers 400
    /// itself, but only after a connection's first request's upgrade decision, which a refused
    /// first head never reaches (it held the connection silent until the idle timeout).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard malformed == nil, !refused else { return }
        guard let error = error as? HTTPParserError else { return context.fireErrorCaught(error) }
        // The input ended halfway through a request (a client's half-close, or `FirstHeadGuard`'s
        // refusal, which ends it): no one reads a reply, and the input's end that follows closes.
        guard error != .invalidEOFState else { return }
        malformed = error
        if drain(context) { context.fireChannelReadComplete() }
    }

    /// Handles held parts in order until one has to wait, then a decoder's error once every
    /// request before it is answered; whether any part was passed on.
    private func drain(_ context: ChannelHandlerContext) -> Bool {
        let passed = drainParts(context)
        if let malformed, !refused, held.isEmpty, !answering, forwarded == 0 {
            refuse(context, .badRequest, "malformed request: \(malformed)", .malformed)
        }
        return passed
    }

    /// Handles held parts in order until one has to wait; whether any was passed on.
    private func drainParts(_ context: ChannelHandlerContext) -> Bool {
        var passed = false
        while !answering, !refused, let (part, refusal) = held.first {
            switch part {
            case .head(let head):
                guard refusal != nil || routes.answers(head) else { fallthrough }
                guard forwarded == 0, context.channel.isWritable else { return passed }
                held.removeFirst()
                if let refusal {
                    refuse(context, HTTPResponseStatus(statusCode: refusal.status), refusal.reason, refusal.kind)
                    return passed
                }
                begin(context, head)
            case .head:
                held.removeFirst()
                forwarded += 1
                context.fireChannelRead(wrapInboundOut(part))
                passed = true
            case .body(var bytes):
                held.removeFirst()
                guard current != nil else {
                    context.fireChannelRead(wrapInboundOut(part))
                    passed = true
                    continue
                }
                guard current!.body.readableBytes + bytes.readableBytes <= routes.maximumBodyBytes else {
                    refuse(context, .payloadTooLarge, "body larger than \(routes.maximumBodyBytes) bytes", .body)
                    return passed
                }
                current!.body.writeBuffer(&bytes)
            case .end:
                held.removeFirst()
                guard let request = current else {
                    context.fireChannelRead(wrapInboundOut(part))
                    passed = true
                    continue
                }
                answer(context, EventLoopRequest(head: request.head, body: request.body))
            }
        }
        return passed
    }

    /// A head for the routes, its `Host` and `Origin` admitted: its body is read.
    private func begin(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        // Announced over the bound: refused before a byte of it is read, as nginx's
        // client_max_body_size does (a client announcing 4 GB does not wait for its 413).
        if let declared = head.headers.first(name: "content-length").flatMap({ Int($0) }), declared > routes.maximumBodyBytes {
            return refuse(context, .payloadTooLarge, "body larger than \(routes.maximumBodyBytes) bytes", .body)
        }
        current = (head, context.channel.allocator.buffer(capacity: 0), .now())
    }

    private func answer(_ context: ChannelHandlerContext, _ request: EventLoopRequest) {
        answering = true
        routes.answer(request, on: context.eventLoop) { response in
            guard !self.removed else { return }
            self.reply(context, response)
        }
    }

    private func reply(_ context: ChannelHandlerContext, _ response: EventLoopResponse) {
        guard let request = current else { return }
        let keepAlive = request.head.isKeepAlive && !response.close && !closeAfterReply && !inputClosedHeld
        let written = keepAlive ? nil : context.eventLoop.makePromise(of: Void.self)
        write(context, response, version: request.head.version, keepAlive: keepAlive, written: written)
        current = nil
        answering = false
        idleSince = .now()
        if !keepAlive {
            refused = true
            let channel = context.channel
            written?.futureResult.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        if drain(context) { context.fireChannelReadComplete() }
        releaseRead(context)
    }

    /// Writes `response`; `written` is completed once its last byte was.
    private func write(_ context: ChannelHandlerContext, _ response: EventLoopResponse, version: HTTPVersion, keepAlive: Bool,
                       written: EventLoopPromise<Void>? = nil) {
        var headers = response.headers
        // None for 204 and 304, which have no body (RFC 9110 §8.6, §15.3.5, §15.4.5).
        if !headers.contains(name: "content-length"), response.status != .noContent, response.status != .notModified {
            headers.add(name: "Content-Length", value: String(response.body.readableBytes))
        }
        if !keepAlive {
            headers.add(name: "Connection", value: "close")
        } else if version.minor == 0 {
            headers.add(name: "Connection", value: "keep-alive")
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))), promise: nil)
        if response.body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
    }

    /// Answers `status` and closes as `FirstHeadGuard` does (the client can read the answer);
    /// what it sends after is dropped.
    private func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ reason: String, _ kind: HTTPRefusals.Reason) {
        let version = current?.head.version ?? .http1_1
        refused = true
        refusals.count(kind)
        current = nil
        held.removeAll()
        let channel = context.channel, written = context.eventLoop.makePromise(of: Void.self)
        write(context, EventLoopResponse(status: status, body: reason + "\n", close: true), version: version, keepAlive: false, written: written)
        written.futureResult.whenComplete { _ in channel.closeLingering() }
    }

    private func releaseRead(_ context: ChannelHandlerContext) {
        guard readWithheld, held.isEmpty else { return }
        readWithheld = false
        context.read()
    }

    /// Makes the timer fire by `deadline` (a later one already armed is moved earlier).
    private func arm(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        if timer != nil {
            guard deadline < timerDeadline else { return }
            timer?.cancel()
        }
        timerDeadline = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { self.timerFired(context) }
    }

    private func timerFired(_ context: ChannelHandlerContext) {
        timer = nil
        guard !removed, !refused else { return }
        let now = NIODeadline.now()
        if let current, !answering {
            let due = current.started + TimeAmount(limits.bodyTimeout)
            if now >= due { return refuse(context, .requestTimeout, "the body took longer than \(limits.bodyTimeout)", .bodyTimeout) }
            arm(context, at: due)
        } else if answering || forwarded > 0 || activity.answering {
            // A route or the router at work. (Requests held only until the client takes its
            // replies are no progress: a client that pipelines and never reads is idle.)
            arm(context, at: now + TimeAmount(limits.idleTimeout))
        } else {
            let due = max(idleSince, activity.lastReply) + TimeAmount(limits.idleTimeout)
            if now >= due {
                refusals.count(.idle)
                return context.channel.closeEndingInput()
            }
            arm(context, at: due)
        }
    }
}
