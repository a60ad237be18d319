import HTTPServing
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

/// What the tile server reads of a request: its method, raw path and the header fields its
/// answers depend on — the same from Hummingbird's `Request` and from a request answered on the
/// event loop (`TileEventLoopRoutes`).
struct TileRequest: Sendable {
    var method: HTTPRequest.Method
    /// The target's path, still percent-encoded, without its query.
    var path: String
    var host: String?
    var acceptEncoding: String?
    var ifNoneMatch: String?

    init(_ request: Request) {
        method = request.method
        path = request.uri.path
        host = request.head.authority
        acceptEncoding = request.headers[.acceptEncoding]
        ifNoneMatch = request.headers[.ifNoneMatch]
    }

    init(_ head: HTTPRequestHead) {
        method = HTTPRequest.Method(head.method.rawValue) ?? .get
        path = String(EventLoopRequest.path(of: head.uri))
        host = head.headers.first(name: "host")
        acceptEncoding = head.headers.first(name: "accept-encoding")
        ifNoneMatch = head.headers.first(name: "if-none-match")
    }
}

/// Any answer of the tile server but an archive's bytes (streamed by `TileServer.archive`).
struct TileAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer

    init(_ status: HTTPResponse.Status = .ok, headers: HTTPFields, body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The answer to a HEAD request: the same status and fields, `Content-Length` that of the
    /// body a GET gets, no body (RFC 9110 §9.3.2).
    var head: TileAnswer {
        var answer = self
        if status != .noContent, status != .notModified { answer.headers[.contentLength] = String(body.readableBytes) }
        answer.body = ByteBuffer()
        return answer
    }

    var response: Response { Response(status: status, headers: headers, body: .init(byteBuffer: body)) }

    var eventLoopResponse: EventLoopResponse {
        var fields = HTTPHeaders()
        fields.reserveCapacity(headers.count)
        for field in headers { fields.add(name: field.name.canonicalName, value: field.value) }
        return EventLoopResponse(status: HTTPResponseStatus(statusCode: status.code), headers: fields, body: body)
    }
}

/// The tile server's requests answered on the event loop (`EventLoopRoutes`), without a Swift
/// task per request: every GET, HEAD and OPTIONS but those of the archives themselves (their
/// bytes are streamed in chunks through Hummingbird, `TileServer.handle(_: Request)`). Raster tiles and glyph ranges, which may be
/// drawn or made for tens of milliseconds, are answered from NIO's thread pool, so a drawing never
/// holds up the tiles of other connections on the loop.
struct TileEventLoopRoutes: EventLoopRoutes {
    let server: TileServer

    /// These routes take no request bodies.
    var maximumBodyBytes: Int { 0 }

    /// GET, HEAD and OPTIONS of any path but an archive's (one ending `.pmtiles`, or any with
    /// a `%` escape, which might decode to one).
    func answers(_ head: HTTPRequestHead) -> Bool {
        guard head.method == .GET || head.method == .HEAD || head.method == .OPTIONS else { return false }
        let path = EventLoopRequest.path(of: head.uri).utf8
        return !path.contains(UInt8(ascii: "%")) && !path.reversed().starts(with: ".pmtiles".utf8.reversed())
    }

    func respond(to request: EventLoopRequest, reply: EventLoopPromise<EventLoopResponse>) {
        let tileRequest = TileRequest(request.head), server = self.server
        guard Self.mayTakeLong(tileRequest.path) else { return reply.succeed(server.handle(tileRequest).eventLoopResponse) }
        NIOThreadPool.singleton.runIfActive(eventLoop: reply.futureResult.eventLoop) { server.handle(tileRequest).eventLoopResponse }
            .cascade(to: reply)
    }

    /// Raster tiles (`/styles/…/{z}/{x}/{y}.png`) and glyph ranges (`/fonts/…`).
    static func mayTakeLong(_ path: String) -> Bool {
        let bytes = path.utf8
        return bytes.starts(with: "/fonts/".utf8) || bytes.starts(with: "/styles/".utf8) && bytes.reversed().starts(with: "gnp.".utf8)
    }
}
