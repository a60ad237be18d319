public import NIOCore
public import NIOHTTP1

/// Routes a server answers on the connection's event loop, in front of the router: no Swift
/// task, async body sequence or router walk per request — the request is parsed by NIO's HTTP
/// decoder, handed to `respond` whole, and the reply written on the event loop when `respond`'s
/// promise is completed (from any thread). For a route whose answer waits on something that is
/// not a task (the tracking server's group commit) and that is asked 20,000 times a second;
/// every other request, the WebSocket handshake among them, goes on to the router.
///
/// The server's rules hold on these routes too (`EventLoopRouteHandler`): `Host` and `Origin`
/// checked (`HostPolicy`), a body over `maximumBodyBytes` refused (413) as soon as it is
/// announced or sent, a body slower than `RequestLimits.bodyTimeout` cut (408), a connection idle
/// longer than `RequestLimits.idleTimeout` closed, replies in request order.
public protocol EventLoopRoutes: Sendable {
    /// The largest request body these routes take, bytes.
    var maximumBodyBytes: Int { get }
    /// Whether a request with this head is answered here (by method and path).
    func answers(_ head: HTTPRequestHead) -> Bool
    /// Answers `request` by succeeding `reply` exactly once, from any thread; called on the event
    /// loop, so it must not block. A failed promise is answered 500 and the connection closed.
    func respond(to request: EventLoopRequest, reply: EventLoopPromise<EventLoopResponse>)
}

extension EventLoopRoutes {
    /// Asks `respond` for `request` and hands its reply to `reply` on `eventLoop` (the
    /// connection's): a failed promise becomes a 500 that closes the connection.
    func answer(_ request: EventLoopRequest, on eventLoop: any EventLoop, reply: @escaping (EventLoopResponse) -> Void) {
        let promise = eventLoop.makePromise(of: EventLoopResponse.self)
        promise.futureResult.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let response): reply(response)
            case .failure(let error): reply(EventLoopResponse(status: .internalServerError, body: "\(error)", close: true))
            }
        }
        respond(to: request, reply: promise)
    }
}

/// A request for `EventLoopRoutes`: its head, and its whole body (empty when it has none).
public struct EventLoopRequest: Sendable {
    public var head: HTTPRequestHead
    public var body: ByteBuffer

    public init(head: HTTPRequestHead, body: ByteBuffer) {
        self.head = head
        self.body = body
    }

    /// The target's path: before `?` (and `#`).
    public var path: Substring { Self.path(of: head.uri) }

    /// The target's query, still percent-encoded: after `?`, before `#`; empty without one.
    public var query: Substring {
        let uri = head.uri
        guard let mark = uri.utf8.firstIndex(of: UInt8(ascii: "?")) else { return "" }
        let rest = uri[uri.utf8.index(after: mark)...]
        return rest[..<(rest.utf8.firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex)]
    }

    /// The path of a request target (`/a?b` → `/a`), read on its bytes.
    public static func path(of uri: String) -> Substring {
        uri[..<(uri.utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? uri.endIndex)]
    }
}

/// A reply of `EventLoopRoutes`: a status, header fields and a body.
public struct EventLoopResponse: Sendable {
    public var status: HTTPResponseStatus
    /// The reply's header fields but `Connection`, which the handler writes, and
    /// `Content-Length`, which it writes from `body` (none for 204 and 304) unless given here (a
    /// HEAD reply names the length of the body a GET would get, RFC 9110 §9.3.2).
    public var headers: HTTPHeaders
    public var body: ByteBuffer
    /// Whether the connection closes after this reply.
    public var close: Bool

    public init(status: HTTPResponseStatus = .ok, headers: HTTPHeaders, body: ByteBuffer, close: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.close = close
    }

    /// A text reply of `contentType`; `retryAfter` seconds in `Retry-After` (RFC 9110 §10.2.3)
    /// for a 503, nil for none.
    public init(status: HTTPResponseStatus = .ok, contentType: String = "text/plain; charset=utf-8", body: String,
                retryAfter: Int? = nil, close: Bool = false) {
        var headers: HTTPHeaders = ["Content-Type": contentType]
        if let retryAfter { headers.add(name: "Retry-After", value: String(retryAfter)) }
        self.init(status: status, headers: headers, body: ByteBuffer(string: body), close: close)
    }
}
