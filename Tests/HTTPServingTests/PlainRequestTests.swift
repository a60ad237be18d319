@testable import HTTPServing
import NIOCore
import NIOHTTP1
import Testing

// `PlainRequest`: the requests `EventLoopRouteFastPath` answers before NIO's decoder, and every
// form it leaves to the decoder (which answers or refuses them as RFC 9112 says).

private func plain(_ text: String, limits: RequestLimits = RequestLimits(), maximumBodyBytes: Int = 100) -> PlainRequest? {
    PlainRequest(ByteBuffer(string: text), limits: limits, maximumBodyBytes: maximumBodyBytes)
}

@Test func plainRequest_wholeAndPlain_isReadWithItsFieldsBodyAndLength() throws {
    let first = "POST /overland?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n"
        + "X-Spaced: \t a  b\r\nContent-Length: 4\r\nConnection: Keep-Alive\r\n\r\n[1,2]"
    let request = try #require(plain(first + "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
    #expect(request.request.head.method == .POST)
    #expect(request.request.head.uri == "/overland?x=1")
    #expect(request.request.head.version == .http1_1)
    #expect(request.request.head.isKeepAlive)
    #expect(request.request.head.headers.first(name: "x-spaced") == "a  b", "whitespace before a value is not part of it (RFC 9110 §5.5)")
    #expect(request.request.head.headers.first(name: "content-type") == "application/json")
    #expect(String(buffer: request.request.body) == "[1,2")
    #expect(request.host == "127.0.0.1:8080")
    #expect(request.origin == nil)
    #expect(request.length == first.utf8.count - 1, "the head and the 4 bytes of body; the next request is not part of it")
    let get = try #require(plain("GET /?id=a&lat=1 HTTP/1.1\r\nhost: h\r\norigin: http://h\r\n\r\n"))
    #expect(get.request.body.readableBytes == 0)
    #expect(get.host == "h" && get.origin == "http://h", "field names are case-insensitive")
}

@Test func plainRequest_everyOtherForm_isLeftToTheDecoder() {
    var tight = RequestLimits()
    tight.maximumRequestLine = 40
    tight.maximumHead = 60
    let refused: [(String, String)] = [
        ("HTTP/1.0", "GET / HTTP/1.0\r\nHost: h\r\n\r\n"),
        ("lower-case method", "get / HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("absolute form", "GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a space in the target", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a fragment", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("a brace in the target", "GET /a{b} HTTP/1.1\r\nHost: h\r\n\r\n"),
        ("bare LF", "GET / HTTP/1.1\nHost: h\n\n"),
        ("bare LF in a field", "GET / HTTP/1.1\r\nHost: h\nX: y\r\n\r\n"),
        ("obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  b\r\n\r\n"),
        ("obs-text", "GET / HTTP/1.1\r\nHost: h\r\nX: caf\u{E9}\r\n\r\n"),
        ("whitespace after a value (NIO's decoder keeps it in the value)", "GET / HTTP/1.1\r\nHost: h\r\nX: a \r\n\r\n"),
        ("a space before the colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n"),
        ("an empty name", "GET / HTTP/1.1\r\n: h\r\n\r\n"),
        ("chunked", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ("two lengths", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na"),
        ("a signed length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +1\r\n\r\na"),
        ("a length over the bound", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n" + String(repeating: "a", count: 101)),
        ("a huge length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4294967296\r\n\r\na"),
        ("the body not all read", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nabc"),
        ("the head not all read", "GET / HTTP/1.1\r\nHost: h\r\n"),
        ("half a request line", "GET /ab"),
        ("Connection: close", "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"),
        ("an upgrade", "GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n"),
        ("Expect", "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\na"),
        ("two hosts", "GET / HTTP/1.1\r\nHost: h\r\nHost: evil\r\n\r\n"),
        ("two origins", "GET / HTTP/1.1\r\nHost: h\r\nOrigin: http://h\r\nOrigin: http://evil\r\n\r\n"),
    ]
    for (why, text) in refused { #expect(plain(text) == nil, "\(why)") }
    #expect(plain("GET /\(String(repeating: "a", count: 30)) HTTP/1.1\r\nHost: h\r\n\r\n", limits: tight) == nil, "a request line over the limit")
    #expect(plain("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "a", count: 40))\r\n\r\n", limits: tight) == nil, "a head over the limit")
    #expect(plain("GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "a", count: 10))\r\n\r\n", limits: tight) != nil, "within both limits")
}

@Test func eventLoopRouteFastPath_encode_writesTheReplyAsTheEncoderDoes() {
    let ok = EventLoopRouteFastPath.encode(EventLoopResponse(contentType: "application/json", body: "[]"), keepAlive: true,
                                           allocator: ByteBufferAllocator())
    #expect(String(buffer: ok) == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]")
    let busy = EventLoopRouteFastPath.encode(EventLoopResponse(status: .serviceUnavailable, body: "down\n", retryAfter: 5, close: true),
                                             keepAlive: false, allocator: ByteBufferAllocator())
    #expect(String(buffer: busy) == "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\n"
        + "Content-Length: 5\r\nConnection: close\r\n\r\ndown\n")
    let empty = EventLoopRouteFastPath.encode(EventLoopResponse(status: .noContent, headers: [:], body: ByteBuffer()), keepAlive: true,
                                              allocator: ByteBufferAllocator())
    #expect(String(buffer: empty) == "HTTP/1.1 204 No Content\r\n\r\n", "no Content-Length for 204 (RFC 9110 §8.6)")
}
