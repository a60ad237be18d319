import Foundation
import GeoTestSupport
@testable import HTTPServing
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import Synchronization
import SystemIO
import Testing

#if canImport(Glibc)
import Glibc
#endif
import GeoBase

// MARK: - The policy, value by value

@Test func hostPolicy_byDefault_answersLoopbackNamesOnly() throws {
    let policy = try HostPolicy()
    for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "127.1.2.3", "localhost."] {
        #expect(policy.permits(host: host), "\(host)")
    }
    // A rebound DNS name, another address, and what is not an authority at all.
    for host in ["evil.example:8080", "127.0.0.1.evil.example", "192.168.1.5:8080", "[::2]:8080", "", "127.0.0.1:99999",
                 "127.0.0.1:8080/path", "user@127.0.0.1", "localhost:port", "[::1"] {
        #expect(!policy.permits(host: host), "\(host)")
    }
}

/// RFC 9112 §3.2: no `Host`, two, or one that is not `host[:port]` is 400; a host the server does
/// not answer for 403. Whitespace around a value is not part of it (RFC 9110 §5.5).
@Test func hostPolicy_refusal_is400ForNoneTwoOrAnInvalidHost_403ForAnotherHost() throws {
    let policy = try HostPolicy()
    #expect(policy.refusal(hosts: [String](), origin: nil)?.status == 400)
    #expect(policy.refusal(hosts: ["127.0.0.1", "127.0.0.1"], origin: nil)?.status == 400)
    for invalid in ["", "a b", "127.0.0.1:99999", "user@127.0.0.1", "[::1"] {
        #expect(policy.refusal(hosts: [invalid], origin: nil)?.status == 400, "\(invalid)")
    }
    #expect(policy.refusal(hosts: ["evil.example:8080"], origin: nil)?.status == 403)
    for spaced in ["127.0.0.1:8080 ", "\tlocalhost\t", " [::1]:8080 \t"] {
        #expect(policy.refusal(hosts: [spaced], origin: nil) == nil, "\(spaced.debugDescription)")
    }
    #expect(policy.refusal(hosts: ["127.0.0.1:8080 "], origin: "http://127.0.0.1:8080 ") == nil, "the page's own origin")
}

/// The allocation-free reading of a loopback `Host` says yes only where the general rules do,
/// and does say yes for the forms clients send (`127.0.0.1:PORT`, `localhost:PORT`).
@Test func hostPolicy_loopbackFastPath_agreesWithTheGeneralRules() {
    func general(_ value: String) -> Bool { HostPolicy.authority(value.lowercased()).map { HostPolicy.isLoopback($0.host) } ?? false }
    for value in ["127.0.0.1:8080", "127.0.0.1", "localhost:8080", "localhost", "127.255.255.255:65535", "127.1.2.3:1"] {
        #expect(HostPolicy.isLoopbackAuthority(value), "\(value)")
    }
    let parts = ["127", "128", "0", "255", "256", "1000", "", "+1", "0x7f", "localhost", "LOCALHOST", "[::1]", "a"]
    let ports = ["", ":", ":0", ":8080", ":65535", ":65536", ":123456", ":-1", ":+80", "::80"]
    for a in parts { for b in ["0", "", "300"] { for port in ports {
        for value in [a + port, "\(a).\(b).0.1" + port, "\(a).0.0" + port, "\(a).0.0.1.2" + port] {
            if HostPolicy.isLoopbackAuthority(value) { #expect(general(value), "\(value)") }
        }
    } } }
}

/// A public server's DNS name (`--host-name`, the tracking server's devices) is answered; other
/// names are still refused, so the read API stays out of a rebinding page's reach.
@Test func hostPolicy_hostNames_areAnsweredAndNothingElse() throws {
    let policy = try HostPolicy(bindAddresses: ["0.0.0.0"], hostNames: ["Tracker.Example.org"])
    #expect(policy.permits(host: "tracker.example.org:5055"))
    #expect(policy.permits(host: "tracker.example.org"))
    #expect(policy.permits(host: "203.0.113.7:5055")) // an IP literal, on a wildcard bind
    #expect(!policy.permits(host: "evil.example:5055"))
    #expect(!policy.permits(origin: "http://evil.example:5055", host: "evil.example:5055"))
}

@Test func hostPolicy_anyOrigin_admitsEveryPage_butStillChecksHost() throws {
    let policy = try HostPolicy(allowedOrigins: ["*"])
    #expect(policy.acceptsAnyOrigin)
    #expect(policy.refusal(host: "127.0.0.1:8080", origin: "https://anyone.example") == nil)
    #expect(policy.refusal(host: "127.0.0.1:8080", origin: "null") == nil)
    #expect(policy.refusal(host: "evil.example:8080", origin: "https://anyone.example")?.status == 403, "a rebound name is still refused")
    #expect(try !HostPolicy(allowedOrigins: ["https://one.example"]).acceptsAnyOrigin)
}

@Test func hostPolicy_origin_isThePagesOwnOrAnAllowedOne() throws {
    let policy = try HostPolicy()
    #expect(policy.permits(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
    #expect(policy.permits(origin: "http://[::1]:8080", host: "[::1]:8080"))
    // Another site; another local server's page (another port); a sandboxed frame; a scheme
    // that is not the web's.
    #expect(!policy.permits(origin: "https://evil.example", host: "127.0.0.1:8080"))
    #expect(!policy.permits(origin: "http://127.0.0.1:3000", host: "127.0.0.1:8080"))
    #expect(!policy.permits(origin: "null", host: "127.0.0.1:8080"))
    #expect(!policy.permits(origin: "file://127.0.0.1:8080", host: "127.0.0.1:8080"))
    // The origin of a rebound name: same-origin with its Host, but that Host is refused.
    #expect(!policy.permits(origin: "http://evil.example:8080", host: "evil.example:8080"))

    let allowing = try HostPolicy(bindAddresses: ["0.0.0.0"], allowedOrigins: ["http://Map.Example.org:8080"])
    #expect(allowing.permits(origin: "http://map.example.org:8080", host: "127.0.0.1:8080"))
    #expect(allowing.permits(host: "map.example.org:8080"))
    #expect(allowing.permits(host: "192.168.1.5:8080"), "a wildcard bind answers IP literals")
    #expect(!allowing.permits(host: "evil.example:8080"))
    #expect(throws: HTTPServingError.self) { try HostPolicy(allowedOrigins: ["map.example.org"]) }
}

// MARK: - A live server, spoken to over raw TCP

/// A server on a free port with a page and a WebSocket that sends one "position" and echoes.
/// `routes` adds more; `note` gets the server's log lines (warnings and errors), `refusals` its
/// count of what it refused.
private func withServer(limits: RequestLimits = .init(), maximumConnections: Int? = nil, routes: (Router<BasicWebSocketRequestContext>) -> Void = { _ in },
                        eventLoopRoutes: (any EventLoopRoutes)? = nil, note: @escaping @Sendable (String) -> Void = { _ in },
                        refusals: HTTPRefusals = HTTPRefusals(), _ body: (Int) async throws -> Void) async throws {
    let port = FreePort.take()
    let server = try LocalServer(.init(port: port, hosts: ["127.0.0.1"], limits: limits, maximumConnections: maximumConnections), refusals: refusals)
    server.router.get("/") { _, _ in "page" }
    routes(server.router)
    server.router.ws("/ws") { inbound, outbound, _ in
        try await outbound.write(.text("position 48.0 11.0"))
        for try await message in inbound.messages(maxSize: 1 << 16) {
            if case .text(let text) = message { try await outbound.write(.text("echo " + text)) }
        }
    }
    let (started, startedContinuation) = AsyncStream.makeStream(of: String.self)
    let task = Task { try await server.run(eventLoopRoutes: eventLoopRoutes, serving: { startedContinuation.yield($0) }, note: note) }
    var iterator = started.makeAsyncIterator()
    let url = await iterator.next()
    #expect(url == "http://127.0.0.1:\(port)/")
    do { try await body(port) } catch {
        task.cancel()
        throw error
    }
    // Stopped, and every line it noted in, before the caller looks at the notes.
    task.cancel()
    try? await task.value
}

/// Sends `request` and reads until the server closes (or resets) the connection or
/// `readTimeout` seconds pass (or what came back contains `expected`); returns what came back and
/// whether the server closed it.
private func exchange(port: Int, _ request: [UInt8], readTimeout: Int = 30, until expected: String? = nil) throws -> (reply: String, closed: Bool) {
    let fd = try connect(port: port, readTimeout: readTimeout)
    defer { try? fd.close() }
    try? fd.writeAll(request)
    var reply: [UInt8] = []
    let closed = try readUntilClosed(fd, chunkSize: 4096) { chunk in
        reply += chunk
        return expected.map { !String(decoding: reply, as: UTF8.self).contains($0) } ?? true
    }
    return (String(decoding: reply, as: UTF8.self), closed)
}

/// Reads `fd` until the server closes (or resets) it, its read timeout passes (EAGAIN: still
/// open), or `take` returns false for a chunk; whether the server closed it.
private func readUntilClosed(_ fd: SystemIO.FileDescriptor, chunkSize: Int, _ take: (ArraySlice<UInt8>) -> Bool) throws -> Bool {
    var chunk = [UInt8](repeating: 0, count: chunkSize)
    while true {
        do {
            let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            if n == 0 { return true }
            if !take(chunk[0..<n]) { return false }
        } catch let error as SystemIOError {
            return error.errno != EAGAIN && error.errno != EWOULDBLOCK
        }
    }
}

/// A connection to the server on `port` whose reads give up after `readTimeout` seconds.
private func connect(port: Int, readTimeout: Int) throws -> SystemIO.FileDescriptor {
    let fd = try TCPClient.connect(host: "127.0.0.1", port: port)
    var limit = timeval(tv_sec: readTimeout, tv_usec: 0)
    setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    return fd
}

private func handshake(host: String, origin: String?) -> [UInt8] {
    Array(("GET /ws HTTP/1.1\r\nHost: \(host)\r\n" + (origin.map { "Origin: \($0)\r\n" } ?? "")
           + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
}

@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_refusesOtherSitesAndReboundNames_servesItsOwnPage() async throws {
    let notes = Mutex<[String]>([]), refusals = HTTPRefusals()
    try await withServer(note: { line in notes.withLock { $0.append(line) } }, refusals: refusals) { port in
        // A page on another site opening the socket (cross-site WebSocket hijacking).
        let hijack = try exchange(port: port, handshake(host: "127.0.0.1:\(port)", origin: "https://evil.example"), readTimeout: 5)
        #expect(hijack.reply.hasPrefix("HTTP/1.1 403"), "\(hijack.reply.prefix(80))")
        #expect(!hijack.reply.contains("position"))
        // A rebound DNS name, for the page and for the socket.
        let rebound = try exchange(port: port, Array("GET / HTTP/1.1\r\nHost: evil.example:\(port)\r\nConnection: close\r\n\r\n".utf8))
        #expect(rebound.reply.hasPrefix("HTTP/1.1 403"), "\(rebound.reply.prefix(80))")
        let reboundSocket = try exchange(port: port, handshake(host: "evil.example:\(port)", origin: "http://evil.example:\(port)"), readTimeout: 5)
        #expect(reboundSocket.reply.hasPrefix("HTTP/1.1 403"), "\(reboundSocket.reply.prefix(80))")
        // No Host at all.
        let noHost = try exchange(port: port, Array("GET / HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
        #expect(noHost.reply.hasPrefix("HTTP/1.1 400"), "\(noHost.reply.prefix(80))")
        // The page's own origin gets the page and the socket, with the position on it.
        let page = try exchange(port: port, Array("GET / HTTP/1.1\r\nHost: localhost:\(port)\r\nConnection: close\r\n\r\n".utf8))
        #expect(page.reply.hasPrefix("HTTP/1.1 200") && page.reply.hasSuffix("page"))
        let own = try exchange(port: port, handshake(host: "127.0.0.1:\(port)", origin: "http://127.0.0.1:\(port)"), readTimeout: 30, until: "position")
        #expect(own.reply.hasPrefix("HTTP/1.1 101"), "\(own.reply.prefix(80))")
        #expect(own.reply.contains("position 48.0 11.0"))
        // Every refused connection has closed after its lingering second; none logged an error
        // (hummingbird-websocket logged one per refused handshake: a hostile client's log flood).
        try await Task.sleep(for: .seconds(2))
    }
    #expect(notes.withLock { $0 }.filter { $0.contains("error") } == [])
    #expect(counted(refusals) == [.host: 3, .origin: 1], "the rebound names and the request without Host; the other site's page")
}

/// The reasons `refusals` counted, without the zeros.
private func counted(_ refusals: HTTPRefusals) -> [HTTPRefusals.Reason: Int] {
    Dictionary(uniqueKeysWithValues: refusals.totals.filter { $0.count > 0 }.map { ($0.reason, $0.count) })
}

/// Connections over the server's bound (`OpenConnections`; by default the open-file limit less
/// what the process keeps for itself) are closed unanswered as soon as they are accepted,
/// counted, and nothing is logged; once one of those held closes, a new connection is served.
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_overItsConnectionBound_closesTheNewOnes_servesAgainWhenOneCloses() async throws {
    let notes = Mutex<[String]>([]), refusals = HTTPRefusals()
    try await withServer(maximumConnections: 4, note: { line in notes.withLock { $0.append(line) } }, refusals: refusals) { port in
        let request = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        var held = try (0..<4).map { _ in try connect(port: port, readTimeout: 30) }
        defer { held.forEach { try? $0.close() } }
        for fd in held {
            try fd.writeAll(request)
            var reply: [UInt8] = []
            _ = try readUntilClosed(fd, chunkSize: 4096) { chunk in
                reply += chunk
                return !String(decoding: reply, as: UTF8.self).hasSuffix("page")
            }
            #expect(String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "each of the four is served")
        }
        for _ in 0..<3 {
            let over = try exchange(port: port, request, readTimeout: 10)
            #expect(over.closed && over.reply.isEmpty, "a fifth connection is closed unanswered: \(over)")
        }
        try held.removeFirst().close()
        // The close reaches the server's event loop a moment after ours: a few tries.
        var served = false
        for _ in 0..<50 where !served {
            served = try exchange(port: port, request, readTimeout: 10, until: "page").reply.hasPrefix("HTTP/1.1 200")
            if !served { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(served, "a connection closed leaves room for a new one")
    }
    #expect(counted(refusals)[.connections] ?? 0 >= 3)
    #expect(notes.withLock { $0 }.isEmpty, "a connection turned away logs nothing: \(notes.withLock { $0 })")
}

@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_closesOnAnUnmaskedFrame_answersAMaskedOne() async throws {
    try await withServer { port in
        func frame(_ text: String, masked: Bool) -> [UInt8] {
            let payload = Array(text.utf8), mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            return [0x81, (masked ? 0x80 : 0) | UInt8(payload.count)] + (masked ? mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] } : payload)
        }
        let masked = try exchange(port: port, handshake(host: "127.0.0.1:\(port)", origin: nil) + frame("hello", masked: true), readTimeout: 30,
                                  until: "echo hello")
        #expect(masked.reply.contains("echo hello"))
        #expect(!masked.closed, "a good client stays connected")
        // RFC 6455 §5.1: the server closes the connection; the unmasked text is never handled.
        let unmasked = try exchange(port: port, handshake(host: "127.0.0.1:\(port)", origin: nil) + frame("hello", masked: false))
        #expect(unmasked.reply.contains("position"), "the handshake succeeded")
        #expect(!unmasked.reply.contains("echo hello"))
        #expect(unmasked.closed, "closed by the server, not by the 30 s read timeout")
    }
}

@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_boundsHeadsAndSlowClients() async throws {
    var limits = RequestLimits()
    limits.headTimeout = .seconds(5)
    let refusals = HTTPRefusals()
    try await withServer(limits: limits, refusals: refusals) { port in
        // A 100 KB URL and 100 KB of headers, as issue 36 sent them.
        let longURL = try exchange(port: port, Array("GET /\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(longURL.reply.hasPrefix("HTTP/1.1 414"), "\(longURL.reply.prefix(80))")
        #expect(longURL.closed)
        let longHeaders = try exchange(port: port, Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                          + (0..<1000).map { "X-Pad-\($0): \(String(repeating: "b", count: 100))\r\n" }.joined() + "\r\n").utf8))
        #expect(longHeaders.reply.hasPrefix("HTTP/1.1 431"), "\(longHeaders.reply.prefix(80))")
        #expect(longHeaders.closed)
        // Half a head, then silence (slowloris): answered 408 and closed at the 5 s deadline,
        // long before the test's 30 s read timeout.
        let slow = try exchange(port: port, Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
        #expect(slow.reply.hasPrefix("HTTP/1.1 408"), "\(slow.reply.prefix(80))")
        #expect(slow.closed)
        // A head split over several reads still gets its page. The pauses block this test's own
        // thread: a `Task.sleep` resumes on the shared pool, which a loaded CI run kept busy
        // past the 5 s head deadline (a 408 for this good client).
        let fd = try TCPClient.connect(host: "127.0.0.1", port: port)
        defer { try? fd.close() }
        for part in ["GET / HT", "TP/1.1\r\nHost: 127.0.", "0.1\r\nConnection: close\r\n", "\r\n"] {
            try fd.writeAll(part)
            usleep(50_000)
        }
        var reply: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while let n = try? chunk.withUnsafeMutableBytes({ try fd.read(into: $0) }), n > 0 { reply += chunk[0..<n] }
        #expect(String(decoding: reply, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }
    #expect(counted(refusals) == [.requestLine: 1, .head: 1, .headTimeout: 1])
}

@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_aClientThatPipelinesAndDoesNotRead_getsNoMoreAnswersMadeThanItsBuffersHold() async throws {
    let made = Atomic<Int>(0)
    try await withServer(routes: { router in
        router.get("/large") { _, _ in
            // The first answer finds the connection's event loop busy for 0.5 s, as under load
            // (hostile-http.py's 50 such clients): the answers made meanwhile wait there unsent.
            if made.add(1, ordering: .relaxed).newValue == 1 { WebSocketConnection.served?.eventLoop.execute { usleep(500_000) } }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 0, count: largeAnswer)))
        }
    }) { port in
        try expectPipelinedAnswersBounded(port: port) { made.load(ordering: .relaxed) }
    }
}

/// The same bound for the routes answered on the event loop (tiles, ingest), whose replies are
/// written as they are made.
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_aClientThatPipelinesAndDoesNotRead_getsNoMoreEventLoopAnswersThanItsBuffersHold() async throws {
    let made = LargeAnswers()
    try await withServer(eventLoopRoutes: made) { port in
        try expectPipelinedAnswersBounded(port: port) { made.count.load(ordering: .relaxed) }
    }
}

/// A client that pipelines and never reads does not hold its connection for ever, on either
/// kind of route: once nothing it asked for has been taken for the idle timeout, it is closed.
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_aClientThatPipelinesAndNeverReads_isClosedAfterTheIdleTimeout() async throws {
    var limits = RequestLimits()
    limits.idleTimeout = .seconds(1)
    let routerRefusals = HTTPRefusals(), eventLoopRefusals = HTTPRefusals()
    try await withServer(limits: limits, routes: { router in
        router.get("/large") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 0, count: largeAnswer))) }
    }, refusals: routerRefusals) { port in
        try expectNonReaderClosed(port: port)
    }
    try await withServer(limits: limits, eventLoopRoutes: LargeAnswers(), refusals: eventLoopRefusals) { port in
        try expectNonReaderClosed(port: port)
    }
    // The router's connection is closed by `SendBacklog` (its answer not taken), the event-loop
    // routes' by their handler's idle timeout (a client that pipelines and never reads is idle).
    #expect(counted(routerRefusals) == [.unread: 1])
    #expect(counted(eventLoopRefusals) == [.idle: 1])
}

/// Bytes of each answer to `GET /large`.
private let largeAnswer = 1 << 20

/// Answers `GET /large` on the event loop with `largeAnswer` zero bytes, counting the answers.
private final class LargeAnswers: EventLoopRoutes {
    let count = Atomic<Int>(0)
    var maximumBodyBytes: Int { 0 }
    func answers(_ head: HTTPRequestHead) -> Bool { head.uri == "/large" }
    func respond(to request: EventLoopRequest, reply: EventLoopPromise<EventLoopResponse>) {
        count.add(1, ordering: .relaxed)
        reply.succeed(EventLoopResponse(headers: [:], body: ByteBuffer(repeating: 0, count: largeAnswer)))
    }
}

/// Answers `/echo` on the event loop with the request's body, its target and its `X-Note`
/// field; `/echo?empty` with 204.
private final class EchoRoutes: EventLoopRoutes {
    var maximumBodyBytes: Int { 1 << 16 }
    func answers(_ head: HTTPRequestHead) -> Bool { EventLoopRequest.path(of: head.uri) == "/echo" }
    func respond(to request: EventLoopRequest, reply: EventLoopPromise<EventLoopResponse>) {
        if request.query == "empty" { return reply.succeed(EventLoopResponse(status: .noContent, headers: [:], body: ByteBuffer())) }
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "X-Target": request.head.uri]
        if let note = request.head.headers.first(name: "x-note") { headers.add(name: "X-Note", value: note) }
        reply.succeed(EventLoopResponse(headers: headers, body: request.body))
    }
}

/// Sends `parts` 50 ms apart (each a read of its own for the server) and reads until `expected`
/// came back or the server closed the connection (at most 10 s).
private func exchangeInParts(port: Int, _ parts: [String], until expected: String) throws -> String {
    let fd = try connect(port: port, readTimeout: 10)
    defer { try? fd.close() }
    for part in parts {
        try fd.writeAll(part)
        usleep(50_000)
    }
    var reply: [UInt8] = []
    _ = try readUntilClosed(fd, chunkSize: 4096) { chunk in
        reply += chunk
        return !String(decoding: reply, as: UTF8.self).contains(expected)
    }
    return String(decoding: reply, as: UTF8.self)
}

/// `EventLoopRouteFastPath` answers a request that comes whole and plain before NIO's decoder
/// sees it; the same request split inside its head goes through the decoder. Both get the same
/// bytes back, and the fast path keeps the decoder's order, refusals and connection handling.
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func eventLoopRoutes_aPlainRequestInOneRead_getsTheRepliesOfTheDecodersPath() async throws {
    let refusals = HTTPRefusals(), notes = Mutex<[String]>([])
    try await withServer(eventLoopRoutes: EchoRoutes(), note: { line in notes.withLock { $0.append(line) } }, refusals: refusals) { port in
        let host = "Host: 127.0.0.1:\(port)\r\n"
        func post(_ note: String) -> String {
            "POST /echo?a=1 HTTP/1.1\r\n\(host)X-Note: \t \(note)\r\nContent-Length: 5\r\n\r\nhello"
        }
        let whole = try exchange(port: port, Array(post("two words").utf8), readTimeout: 10, until: "hello")
        #expect(whole.reply == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Target: /echo?a=1\r\nX-Note: two words\r\n"
            + "Content-Length: 5\r\n\r\nhello")
        let split = try exchangeInParts(port: port, [String(post("two words").prefix(20)), String(post("two words").dropFirst(20))],
                                        until: "hello")
        #expect(split == whole.reply)
        let empty = "GET /echo?empty HTTP/1.1\r\n\(host)\r\n"
        let noContent = try exchange(port: port, Array(empty.utf8), readTimeout: 2).reply
        #expect(noContent == "HTTP/1.1 204 No Content\r\n\r\n")
        #expect(try exchangeInParts(port: port, [String(empty.prefix(10)), String(empty.dropFirst(10)), "GET /echo HTTP/1.1\r\n\(host)X-Note: end\r\n\r\n"],
                                    until: "end") == noContent + "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Target: /echo\r\n"
            + "X-Note: end\r\nContent-Length: 0\r\n\r\n")
        // Pipelined in one write: two for the fast path, one for the router, one more for the
        // routes (by then through the decoder): replies in request order.
        let pipelined = try exchange(port: port, Array((post("n1") + post("n2") + "GET / HTTP/1.1\r\n\(host)\r\n" + post("n4")).utf8),
                                     readTimeout: 10, until: "X-Note: n4").reply
        let order = ["X-Note: n1", "X-Note: n2", "\r\n\r\npage", "X-Note: n4"].map { pipelined.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order.compactMap { $0 } == order.compactMap { $0 }.sorted(), "\(pipelined)")
        // A chunked body goes through the decoder, reassembled.
        let chunked = try exchange(port: port, Array("POST /echo HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n".utf8),
                                   readTimeout: 10, until: "hello").reply
        #expect(chunked.hasSuffix("Content-Length: 5\r\n\r\nhello"), "\(chunked)")
        // A later request for another host, after one the fast path answered: refused and closed.
        let rebound = try exchange(port: port, Array((post("ok") + "POST /echo HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n").utf8))
        #expect(rebound.reply.contains("X-Note: ok") && rebound.reply.contains("HTTP/1.1 403"), "\(rebound.reply)")
        #expect(rebound.closed)
        // Connection: close after a plain request: answered, said and closed.
        let closing = try exchange(port: port, Array((post("first") + "GET /echo HTTP/1.1\r\n\(host)Connection: close\r\n\r\n").utf8))
        #expect(closing.reply.contains("X-Note: first") && closing.reply.hasSuffix("Connection: close\r\n\r\n"), "\(closing.reply)")
        #expect(closing.closed)
        // A client that ends its input after a plain request gets its reply, then the close.
        let halfClosed = try connect(port: port, readTimeout: 10)
        defer { try? halfClosed.close() }
        try halfClosed.writeAll(post("last"))
        shutdown(halfClosed.rawValue, Int32(SHUT_WR))
        var rest: [UInt8] = []
        #expect(try readUntilClosed(halfClosed, chunkSize: 4096) { rest += $0; return true }, "closed by the server")
        #expect(String(decoding: rest, as: UTF8.self).contains("X-Note: last"))
    }
    #expect(counted(refusals) == [.host: 1])
    #expect(notes.withLock { $0 } == [], "nothing logged for connections the clients or the server closed")
}

/// The fast path's replies count as activity for the connection's idle timeout, which still
/// closes the connection once nothing was asked for that long.
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func eventLoopRoutes_fastPathReplies_holdTheIdleTimeoutOff_untilTheClientFallsSilent() async throws {
    var limits = RequestLimits()
    limits.idleTimeout = .seconds(1)
    let refusals = HTTPRefusals(), notes = Mutex<[String]>([])
    try await withServer(limits: limits, eventLoopRoutes: EchoRoutes(), note: { line in notes.withLock { $0.append(line) } }, refusals: refusals) { port in
        let fd = try connect(port: port, readTimeout: 5)
        defer { try? fd.close() }
        // 2.5 s of requests 0.5 s apart: past the idle timeout counted from the connection's start.
        for k in 0..<6 {
            try fd.writeAll("GET /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Note: n\(k)\r\n\r\n")
            var reply: [UInt8] = []
            let closed = try readUntilClosed(fd, chunkSize: 4096) { chunk in
                reply += chunk
                return !String(decoding: reply, as: UTF8.self).hasSuffix("Content-Length: 0\r\n\r\n")
            }
            #expect(!closed && String(decoding: reply, as: UTF8.self).contains("X-Note: n\(k)"), "request \(k)")
            usleep(500_000)
        }
        #expect(try readUntilClosed(fd, chunkSize: 4096) { _ in true }, "closed by the idle timeout, not by the 5 s read timeout")
    }
    #expect(counted(refusals) == [.idle: 1])
    #expect(notes.withLock { $0 } == [], "nothing logged for a connection closed when idle")
}

/// A stopped server (its task cancelled, as SIGTERM does) closes every connection and returns
/// within its shutdown deadline (1 s): one whose requests the fast path answered, one the decoder
/// answered, and one halfway through its first head, which neither answered and whose upgrade
/// decision is still to come (nothing but the cut ends it: the head timeout is set to 60 s here).
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func eventLoopRoutes_aStoppedServer_closesEveryConnection_answeredOrHalfwayThroughAHead() async throws {
    var limits = RequestLimits()
    limits.headTimeout = .seconds(60)
    limits.idleTimeout = .seconds(60)
    var open: [(fd: SystemIO.FileDescriptor, name: String)] = []
    defer { for connection in open { try? connection.fd.close() } }
    var stopping = ContinuousClock.now
    // `withServer` stops the server (cancels its task) and waits for it once this body returns.
    try await withServer(limits: limits, eventLoopRoutes: EchoRoutes()) { port in
        func opened(_ name: String, sending first: String, answered: Bool) throws {
            let fd = try connect(port: port, readTimeout: 20)
            open.append((fd, name))
            try fd.writeAll(first)
            guard answered else { return }
            var reply: [UInt8] = []
            _ = try readUntilClosed(fd, chunkSize: 4096) { chunk in
                reply += chunk
                return !String(decoding: reply, as: UTF8.self).hasSuffix("\r\n\r\n") // the head of a reply without a body
            }
        }
        try opened("fast path", sending: "GET /echo HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", answered: true)
        try opened("decoder", sending: "GET /echo HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: keep-alive\r\n\r\n", answered: true)
        try opened("halfway", sending: "GET /echo HTTP/1.1\r\nHo", answered: false)
        usleep(200_000)
        stopping = ContinuousClock.now
    }
    let stopped = ContinuousClock.now - stopping
    for (fd, name) in open {
        #expect(try readUntilClosed(fd, chunkSize: 4096) { _ in true }, "\(name): closed by the server, not by the 20 s read timeout")
    }
    // The deadline, 1 s, with room for a loaded machine; the head and idle timeouts are 60 s.
    #expect(open.count == 3 && stopped < .seconds(20), "stopped after \(stopped)")
}

/// A request NIO's HTTP decoder refuses (a NUL in its target, an unknown HTTP version, a field
/// line without a colon) is answered 400 and the connection closed, on a server with event-loop
/// routes and on one without, as the connection's first request and after requests answered by
/// the router and by the routes (whose replies come first, in order). Two `Host` fields, or one
/// that is not a host, are 400 too (RFC 9112 §3.2); whitespace after the value is not part of it
/// (RFC 9110 §5.5).
@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_aRequestTheDecoderRefuses_isAnswered400AndClosed() async throws {
    for routes in [nil, EchoRoutes()] as [(any EventLoopRoutes)?] {
        let refusals = HTTPRefusals(), notes = Mutex<[String]>([])
        try await withServer(eventLoopRoutes: routes, note: { line in notes.withLock { $0.append(line) } }, refusals: refusals) { port in
            let host = "Host: 127.0.0.1:\(port)\r\n"
            let bad = ["GET /a\0b HTTP/1.1\r\n\(host)\r\n", "GET / HTTP/9.9\r\n\(host)\r\n", "GET / HTTP/1.1\r\n\(host)X-No-Colon\r\n\r\n"]
            let before = ["": [], "GET / HTTP/1.1\r\n\(host)\r\n": ["page"],
                          "GET /echo HTTP/1.1\r\n\(host)X-Note: n1\r\n\r\nGET / HTTP/1.1\r\n\(host)\r\n": ["X-Note: n1", "page"]]
            for request in bad {
                for (earlier, replies) in before where routes != nil || !earlier.contains("/echo") {
                    let answer = try exchange(port: port, Array((earlier + request).utf8), readTimeout: 10)
                    let name = "\(earlier.debugDescription) then \(request.debugDescription)"
                    #expect(answer.closed, "\(name): closed by the server, not by the 10 s read timeout")
                    let order = (replies + ["HTTP/1.1 400 Bad Request"]).map { answer.reply.range(of: $0)?.lowerBound }
                    #expect(order.allSatisfy { $0 != nil } && order.compactMap { $0 } == order.compactMap { $0 }.sorted(),
                            "\(name): \(answer.reply)")
                }
            }
            for fields in ["Host: 127.0.0.1\r\nHost: evil.example\r\n", "Host: 127.0.0.1\r\nhost: 127.0.0.1\r\n", "Host: a b\r\n"] {
                for target in ["/", "/echo"] {
                    for earlier in ["", "GET / HTTP/1.1\r\n\(host)\r\n"] {
                        let answer = try exchange(port: port, Array("\(earlier)GET \(target) HTTP/1.1\r\n\(fields)\r\n".utf8), readTimeout: 10)
                        #expect(answer.reply.hasPrefix(earlier.isEmpty ? "HTTP/1.1 400" : "HTTP/1.1 200") && answer.reply.contains("HTTP/1.1 400")
                                && answer.closed, "\(earlier.debugDescription) then \(fields.debugDescription) for \(target): \(answer.reply)")
                    }
                }
            }
            let trailing = try exchange(port: port, Array("GET / HTTP/1.1\r\nHost: 127.0.0.1 \t\r\nConnection: close\r\n\r\n".utf8), readTimeout: 10)
            #expect(trailing.reply.hasPrefix("HTTP/1.1 200"), "\(trailing.reply)")
        }
        #expect(notes.withLock { $0 } == [], "nothing logged for a hostile client's requests")
        let malformed = routes == nil ? 6 : 9
        #expect(counted(refusals) == [.malformed: malformed, .host: 12], "with\(routes == nil ? "out" : "") event-loop routes")
    }
}

/// `count` requests for `/large` in a row, as a pipelining client sends them.
private func pipelinedLarge(_ count: Int, port: Int) -> String {
    String(repeating: "GET /large HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", count: count)
}

/// Pipelines 50 requests for `/large` and reads nothing for 3 s (3 idle timeouts), then reads:
/// the server must have closed the connection, having sent what the buffers held (each side's,
/// a few MiB on loopback), not all 50 answers.
private func expectNonReaderClosed(port: Int) throws {
    let fd = try connect(port: port, readTimeout: 10)
    defer { try? fd.close() }
    try fd.writeAll(pipelinedLarge(50, port: port))
    usleep(3_000_000)
    var received = 0
    let closed = try readUntilClosed(fd, chunkSize: 1 << 16) { received += $0.count; return true }
    #expect(closed, "the connection is still open after \(received) bytes")
    #expect(received < 25 * largeAnswer, "\(received) bytes: the server answered on for a client that took nothing")
}

/// A client with a 4 KiB receive buffer pipelines 50 requests for `/large` and reads nothing for
/// 2 s: the answers `made` must fit the kernel's send buffer (tcp_wmem's largest, 4 MiB by
/// default) plus NIO's 64 KiB high-water mark and the one answer let past it. Then a client that
/// reads gets 10 answers whole: as many bytes as its heads (all alike) and bodies.
private func expectPipelinedAnswersBounded(port: Int, made: () -> Int) throws {
    let stuck = try TCPClient.connect(host: "127.0.0.1", port: port)
    defer { try? stuck.close() }
    var small: Int32 = 4096
    setsockopt(stuck.rawValue, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
    try stuck.writeAll(pipelinedLarge(50, port: port))
    usleep(2_000_000)
    let sendBuffer = (try? String(contentsOfFile: "/proc/sys/net/ipv4/tcp_wmem", encoding: .utf8))?
        .split(whereSeparator: \.isWhitespace).last.flatMap { Int($0) } ?? 4 << 20
    let bound = sendBuffer / largeAnswer + 3
    #expect(made() <= bound, "\(made()) answers made, bound \(bound)")
    let fd = try connect(port: port, readTimeout: 30)
    defer { try? fd.close() }
    try fd.writeAll(pipelinedLarge(10, port: port))
    var reply: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
    var received = 0, head = 0
    while head == 0 || received < 10 * (head + largeAnswer), let n = try? chunk.withUnsafeMutableBytes({ try fd.read(into: $0) }), n > 0 {
        received += n
        if head == 0 {
            reply += chunk[0..<n]
            if let end = reply.firstRange(of: Array("\r\n\r\n".utf8)) { head = end.upperBound }
        }
    }
    #expect(String(decoding: reply.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
    #expect(received == 10 * (head + largeAnswer), "\(received) bytes, head \(head)")
}

@Test(.onOwnThread, .timeLimit(.minutes(5)))
func localServer_aTakenPortIsAnError_beforeAnythingSaysServing() async throws {
    let taken = try TCPServer(port: 0)
    defer { taken.close() }
    let server = try LocalServer(.init(port: taken.port, hosts: ["127.0.0.1"]))
    let said = LockedStrings()
    await #expect(throws: HTTPServingError.self) {
        try await server.run(serving: { said.append($0) }, note: { _ in })
    }
    #expect(said.all.isEmpty, "nothing said 'serving': \(said.all)")
}

/// Strings appended from any thread.
private final class LockedStrings: @unchecked Sendable {
    private let lock = NSLock()
    private var strings: [String] = []
    func append(_ s: String) { lock.withLock { strings.append(s) } }
    var all: [String] { lock.withLock { strings } }
}

// MARK: - The server's own log

@Test func serverLog_passesWarningsAndErrors_atMostTenAMinute() {
    let notes = LockedStrings()
    let logger = Logger(label: "Hummingbird") { _ in ServerLog(note: { notes.append($0) }) }
    logger.info("Server started and listening on 127.0.0.1:8080")
    #expect(notes.all.isEmpty, "info lines are not notes: the server says where it serves itself")
    logger.warning("first", metadata: ["peer": "127.0.0.1"])
    #expect(notes.all == ["warning: first (peer=127.0.0.1)"])
    // A client that makes the server log an error per request in flight (hostile-http.py's
    // pipelining clients wrote 7,124 lines): within the minute, ten lines in all.
    for i in 0..<7_124 { logger.error("Error handling upgrade result \(i)") }
    #expect(notes.all.count == ServerLog.linesPerMinute)
    #expect(notes.all.last == "error: Error handling upgrade result 8")
}
