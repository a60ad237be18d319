import NIOCore
import NIOHTTP1

/// Answers `EventLoopRoutes` straight from a connection's bytes, in front of NIO's HTTP decoder,
/// while each request comes whole in what was read and in HTTP/1.1's plainest form (`PlainRequest`).
/// At the first request that is anything else (split over reads, for another route, refused by
/// the `HostPolicy`, HTTP/1.0, chunked, an upgrade) it passes that request's bytes and every later
/// byte of the connection on to the decoder and `EventLoopRouteHandler`, which answer, bound and
/// refuse it as they always did, and leaves the pipeline.
///
/// Measured reason for a scanner of our own beside NIO's llhttp decoder: at 19,900 tracking
/// devices × 1 Hz on 2 cores (release, `Benchmarks/tracking.sh`, `perf`), the decoder's callbacks,
/// the upgrade handler, `EventLoopRouteHandler`'s part-by-part handling and the three writes of a
/// reply through the response encoder were 20 % of the server's CPU samples, more than the
/// ingest's own decoding; a tracker's request is one small read.
///
/// Its rules are `EventLoopRouteHandler`'s: replies in request order (a pipelined request waits
/// for the reply before it, the socket not read further meanwhile), none begun while the
/// connection is not writable (NIO's high-water mark), a graceful shutdown or a half-closed input
/// close the connection after the reply in progress (at once without one), and the connection's
/// one idle timer, that handler's, sees these replies through `RouteActivity`.
final class EventLoopRouteFastPath: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let routes: any EventLoopRoutes
    private let limits: RequestLimits
    private let policy: HostPolicy
    private let activity: RouteActivity
    /// Bytes read and neither answered nor passed on.
    private var held: ByteBuffer?
    /// A reply is awaited.
    private var answering = false
    /// A `read` withheld while bytes are held, issued once they are handled.
    private var readWithheld = false
    /// The server is ending, or the client ended its input: close after the reply in progress.
    private var closeAfterReply = false
    /// The connection closes after its last reply: later bytes are dropped.
    private var closing = false
    /// Every byte from now on goes to the decoder.
    private var passedOn = false
    private var removed = false

    init(routes: any EventLoopRoutes, limits: RequestLimits, policy: HostPolicy, activity: RouteActivity) {
        self.routes = routes
        self.limits = limits
        self.policy = policy
        self.activity = activity
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !passedOn else { return context.fireChannelRead(data) }
        guard !closing else { return }
        var bytes = unwrapInboundIn(data)
        if held == nil { held = bytes } else { held!.writeBuffer(&bytes) }
        serve(context, reading: true)
    }

    func read(context: ChannelHandlerContext) {
        if passedOn || held == nil { context.read() } else { readWithheld = true }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !passedOn, context.channel.isWritable {
            serve(context, reading: false)
            releaseRead(context)
        }
        context.fireChannelWritabilityChanged()
    }

    /// A graceful shutdown or the client's end of input closes the connection here, after the
    /// reply in progress: the handlers behind, which would otherwise, have seen no request (the
    /// HTTP handlers Hummingbird adds after the first request's upgrade decision are not there).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        let ending = event is ChannelShouldQuiesceEvent || (event as? ChannelEvent) == .inputClosed
        guard ending, !passedOn else { return context.fireUserInboundEventTriggered(event) }
        if answering { closeAfterReply = true } else { end(context) }
    }

    /// Closes the connection, whose requests have all been answered here, after the handlers
    /// behind hear its input end, as when a client half-closes: the WebSocket upgrade handler,
    /// still waiting for a first head, then ends as `ChannelError.inputClosed`, which
    /// hummingbird-websocket traces, not as a handler removed by the close, which it logs as an
    /// error (a line for every tracker that hung up).
    private func end(_ context: ChannelHandlerContext) {
        closing = true
        held = nil
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }

    /// Answers the held requests in order until one has to wait; passes on from the first that
    /// is not whole and plain. `reading`: called while the socket's reads are handed in, whose
    /// `channelReadComplete` is still to come.
    private func serve(_ context: ChannelHandlerContext, reading: Bool) {
        while !answering, !passedOn, !closing, let bytes = held {
            guard context.channel.isWritable else { return }
            guard let plain = PlainRequest(bytes, limits: limits, maximumBodyBytes: routes.maximumBodyBytes),
                  policy.refusal(host: plain.host, origin: plain.origin) == nil, routes.answers(plain.request.head)
            else { return passOn(context, reading: reading) }
            held!.moveReaderIndex(forwardBy: plain.length)
            if held!.readableBytes == 0 { held = nil }
            answer(context, plain.request)
        }
    }

    private func answer(_ context: ChannelHandlerContext, _ request: EventLoopRequest) {
        answering = true
        activity.answering = true
        routes.answer(request, on: context.eventLoop) { response in
            guard !self.removed else { return }
            self.reply(context, response)
        }
    }

    private func reply(_ context: ChannelHandlerContext, _ response: EventLoopResponse) {
        answering = false
        activity.answering = false
        activity.lastReply = .now()
        let keepAlive = !response.close && !closeAfterReply
        let bytes = Self.encode(response, keepAlive: keepAlive, allocator: context.channel.allocator)
        guard keepAlive else {
            closing = true
            held = nil
            context.writeAndFlush(wrapOutboundOut(bytes)).assumeIsolated().whenComplete { _ in self.end(context) }
            return
        }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        serve(context, reading: false)
        releaseRead(context)
    }

    /// Hands the held bytes and every later one to the decoder, and leaves.
    private func passOn(_ context: ChannelHandlerContext, reading: Bool) {
        passedOn = true
        if let bytes = held {
            held = nil
            context.fireChannelRead(wrapInboundOut(bytes))
            if !reading { context.fireChannelReadComplete() }
        }
        releaseRead(context)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func releaseRead(_ context: ChannelHandlerContext) {
        guard readWithheld, held == nil else { return }
        readWithheld = false
        context.read()
    }

    /// `response` as HTTP/1.1 bytes, as `EventLoopRouteHandler` has NIO's encoder write it: the
    /// status line, its fields, `Content-Length` from the body unless given (none for 204 and 304,
    /// RFC 9110 §8.6), `Connection: close` when the connection ends after it, then the body.
    static func encode(_ response: EventLoopResponse, keepAlive: Bool, allocator: ByteBufferAllocator) -> ByteBuffer {
        var out = allocator.buffer(capacity: 128 + response.body.readableBytes)
        out.writeStaticString("HTTP/1.1 ")
        out.writeString(String(response.status.code))
        out.writeStaticString(" ")
        out.writeString(response.status.reasonPhrase)
        out.writeStaticString("\r\n")
        for (name, value) in response.headers {
            out.writeString(name)
            out.writeStaticString(": ")
            out.writeString(value)
            out.writeStaticString("\r\n")
        }
        if !response.headers.contains(name: "content-length"), response.status != .noContent, response.status != .notModified {
            out.writeStaticString("Content-Length: ")
            out.writeString(String(response.body.readableBytes))
            out.writeStaticString("\r\n")
        }
        if !keepAlive { out.writeStaticString("Connection: close\r\n") }
        out.writeStaticString("\r\n")
        out.writeImmutableBuffer(response.body)
        return out
    }
}

/// What `EventLoopRouteFastPath` did on a connection, for `EventLoopRouteHandler`'s idle timeout:
/// one timer a connection, whichever of the two answers its requests.
final class RouteActivity {
    /// A reply of the fast path is awaited.
    var answering = false
    /// When the fast path last wrote a reply.
    var lastReply = NIODeadline.uptimeNanoseconds(0)
}

/// A whole HTTP/1.1 request at the front of some bytes, in the plainest form, or nil: `METHOD
/// /target HTTP/1.1` with an upper-case method and a target of path and query bytes within
/// `RequestLimits.maximumRequestLine`, CR LF line ends, header fields with token names and
/// values of visible ASCII, spaces and tabs, none after the value (RFC 9110 §5.1, §5.5; no
/// obs-fold or obs-text),
/// the head within `RequestLimits.maximumHead`, at most one `Host`, `Origin` and
/// `Content-Length` (digits, at most the routes' bound), no `Transfer-Encoding`, `Upgrade` or
/// `Expect`, no `Connection` but `keep-alive`, and the whole body read. Anything else is for
/// NIO's decoder.
struct PlainRequest {
    var request: EventLoopRequest
    var host: String?
    var origin: String?
    /// Bytes of the head and body.
    var length: Int

    init?(_ bytes: ByteBuffer, limits: RequestLimits, maximumBodyBytes: Int) {
        guard let scanned = bytes.withUnsafeReadableBytes({ Self.scan($0, limits: limits, maximumBodyBytes: maximumBodyBytes) }) else {
            return nil
        }
        let body = bytes.getSlice(at: bytes.readerIndex + scanned.headLength, length: scanned.bodyLength) ?? ByteBuffer()
        request = EventLoopRequest(head: scanned.head, body: body)
        host = scanned.host
        origin = scanned.origin
        length = scanned.headLength + scanned.bodyLength
    }

    private struct Scanned {
        var head: HTTPRequestHead
        var host: String?
        var origin: String?
        var headLength: Int
        var bodyLength: Int
    }

    private static func scan(_ p: UnsafeRawBufferPointer, limits: RequestLimits, maximumBodyBytes: Int) -> Scanned? {
        let n = min(p.count, limits.maximumHead)
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: p[range]), as: UTF8.self) }
        var i = 0
        while i < n, p[i] >= UInt8(ascii: "A"), p[i] <= UInt8(ascii: "Z") { i += 1 }
        guard i > 0, i < n, p[i] == UInt8(ascii: " ") else { return nil }
        let method = HTTPMethod(rawValue: text(0..<i))
        i += 1
        let targetStart = i
        guard i < n, p[i] == UInt8(ascii: "/") else { return nil }
        while i < n, isTargetByte(p[i]) { i += 1 }
        guard i < n, p[i] == UInt8(ascii: " ") else { return nil }
        let uri = text(targetStart..<i)
        i += 1
        guard n - i >= 10, "HTTP/1.1\r\n".utf8.elementsEqual(p[i..<i + 10]), i + 10 <= limits.maximumRequestLine else { return nil }
        i += 10
        var headers = HTTPHeaders()
        var host: String?, origin: String?, contentLength: Int?
        while true {
            guard i + 1 < n else { return nil }
            if p[i] == 0x0D {
                guard p[i + 1] == 0x0A else { return nil }
                i += 2
                break
            }
            let nameStart = i
            while i < n, isToken(p[i]) { i += 1 }
            guard i > nameStart, i < n, p[i] == UInt8(ascii: ":") else { return nil }
            let name = nameStart..<i
            i += 1
            while i < n, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
            let valueStart = i
            while i < n, p[i] == 0x09 || (p[i] >= 0x20 && p[i] < 0x7F) { i += 1 }
            // Whitespace after a value is left to the decoder, which keeps it in the value (llhttp).
            guard i + 1 < n, p[i] == 0x0D, p[i + 1] == 0x0A, i == valueStart || (p[i - 1] != 0x20 && p[i - 1] != 0x09) else { return nil }
            let valueEnd = i
            i += 2
            let value = text(valueStart..<valueEnd)
            func named(_ field: StaticString) -> Bool {
                guard name.count == field.utf8CodeUnitCount else { return false }
                return field.withUTF8Buffer { lower in (0..<lower.count).allSatisfy { p[name.lowerBound + $0] | 0x20 == lower[$0] } }
            }
            if named("host") {
                guard host == nil else { return nil }
                host = value
            } else if named("origin") {
                guard origin == nil else { return nil }
                origin = value
            } else if named("content-length") {
                guard contentLength == nil, (1...10).contains(valueEnd - valueStart),
                      p[valueStart..<valueEnd].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                      let length = Int(value), length <= maximumBodyBytes else { return nil }
                contentLength = length
            } else if named("connection") {
                guard value.lowercased() == "keep-alive" else { return nil }
            } else if named("transfer-encoding") || named("upgrade") || named("expect") {
                return nil
            }
            headers.add(name: text(name), value: value)
        }
        let bodyLength = contentLength ?? 0
        guard p.count - i >= bodyLength else { return nil }
        return Scanned(head: HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers),
                       host: host, origin: origin, headLength: i, bodyLength: bodyLength)
    }

    /// A byte of an origin-form target's path and query (RFC 3986 §3.3, §3.4: unreserved,
    /// sub-delims, `:`, `@`, `/`, `?` and `%` escapes); any other is left to the decoder.
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
             UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"),
             UInt8(ascii: "?"), UInt8(ascii: "%"): true
        default: false
        }
    }

    /// RFC 9110 §5.6.2's `tchar`.
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
