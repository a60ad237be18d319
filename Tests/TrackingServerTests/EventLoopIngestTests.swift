import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GeoCore
import GeoTestSupport
import HTTPServing
import SystemIO
import Synchronization
import Testing
import TrackingProtocols
@testable import TrackingServer

/// SQLite underneath, every call passed on to it: the tests' stores subclass it and change
/// `commit` (and how many commits may overlap).
class SQLiteBackedStore: PositionStore, @unchecked Sendable {
    let inner: SQLitePositionStore

    init(path: String) throws { inner = try SQLitePositionStore(path: path) }

    var concurrentCommits: Int { 1 }
    func commit(_ rows: [StoredFix]) throws -> Int { try inner.commit(rows) }
    func devices() async throws -> [DeviceSettings] { try inner.devices() }
    func register(_ devices: [DeviceSettings]) async throws { try inner.register(devices) }
    func positions(device: String, from: Int64, to: Int64, limit: Int) async throws -> [StoredFix] {
        try inner.positions(device: device, from: from, to: to, limit: limit)
    }
    func latest(devices: [String]) async throws -> [StoredFix] { try inner.latest(devices: devices) }
    func latest(in box: BoundingBox) async throws -> [StoredFix] { try inner.latest(in: box) }
    func count(device: String, fixTime: Int64) async throws -> Int { try inner.count(device: device, fixTime: fixTime) }
    func removeDays(before day: Int64) async throws { try inner.removeDays(before: day) }
    func add(events: [FenceEvent]) throws -> [FenceEvent] { try inner.add(events: events) }
    func events(device: String?, from: Int64, to: Int64, limit: Int) async throws -> [FenceEvent] {
        try inner.events(device: device, from: from, to: to, limit: limit)
    }
    func latestEvents(devices: [String]) throws -> [FenceEvent] { try inner.latestEvents(devices: devices) }
    var readPageSize: Int { inner.readPageSize }
}

/// A store for the ingest path's tests: SQLite underneath, with commits the test can hold (to
/// see that no ack leaves before its batch is committed) or fail (storage down).
final class GatedStore: SQLiteBackedStore, @unchecked Sendable {
    struct Down: Error, CustomStringConvertible { var description: String { "the test's store is down" } }
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var held = false, down = false, entered = 0

    func hold(_ value: Bool) { condition.lock(); held = value; condition.broadcast(); condition.unlock() }
    func setDown(_ value: Bool) { condition.lock(); down = value; condition.unlock() }
    /// Blocks until `count` commits have begun (a minute at most); whether they had.
    func waitForCommits(_ count: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while entered < count { if !condition.wait(until: deadline) { return false } }
        return true
    }

    override func commit(_ rows: [StoredFix]) throws -> Int {
        condition.lock()
        entered += 1
        condition.broadcast()
        while held { condition.wait() }
        let failing = down
        condition.unlock()
        if failing { throw Down() }
        return try inner.commit(rows)
    }
}

/// The ingest endpoints on the event loop (`IngestRoutes` on `EventLoopRouteHandler`), over
/// kept-alive loopback connections, as devices send: the ack leaves only after the commit, a
/// failed store gets 503 and no ack, and the server's limits hold on this path.
@Suite struct EventLoopIngestTests {
    /// A response read off a kept-alive connection: status, header fields (lowercased names), body.
    struct Reply {
        var status: Int
        var fields: [String: String]
        var body: String
    }

    /// A connection to the server whose reads give up after 30 s (`SO_RCVTIMEO`): a server that
    /// never answers fails the test with a read error rather than hanging it.
    static func connect(_ port: Int) throws -> FileDescriptor {
        let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    /// Reads one response (its head, then `Content-Length` bytes); nil when the server closed first.
    static func readReply(_ socket: FileDescriptor) throws -> Reply? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1)
        while !bytes.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard try chunk.withUnsafeMutableBytes({ try socket.read(into: $0) }) == 1 else { return nil }
            bytes.append(chunk[0])
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n")
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var body: [UInt8] = []
        let length = Int(fields["content-length"] ?? "0") ?? 0
        while body.count < length {
            var part = [UInt8](repeating: 0, count: length - body.count)
            let n = try part.withUnsafeMutableBytes { try socket.read(into: $0) }
            guard n > 0 else { return nil }
            body += part[..<n]
        }
        return Reply(status: status, fields: fields, body: String(decoding: body, as: UTF8.self))
    }

    /// Whether the server sent anything within `milliseconds` (`poll(2)`).
    static func readable(_ socket: FileDescriptor, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Whether the server closed the connection: what is left to read ends without a response.
    static func closedWithoutReply(_ socket: FileDescriptor) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        return try chunk.withUnsafeMutableBytes { try socket.read(into: $0) } == 0
    }

    /// The server's `/metrics` lines counting what it refused before a route saw it, without the zeros.
    static func refusals(_ port: Int) throws -> [String] {
        let socket = try connect(port)
        defer { try? socket.close() }
        try socket.writeAll("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let body = try #require(try readReply(socket)).body
        return body.split(separator: "\n").filter { $0.hasPrefix("tracking_http_refusals_total{") && !$0.hasSuffix(" 0") }.map(String.init)
    }

    static func osmAnd(_ port: Int, device: String, time: Int, host: String? = nil) -> String {
        "GET /?id=\(device)&lat=52.5&lon=13.4&timestamp=\(time) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n\r\n"
    }

    /// Runs `body` on a thread of its own (blocking sockets), with the server on `limits`.
    static func withServer(_ ingest: TrackingIngest, limits: RequestLimits = .init(), _ body: @escaping @Sendable (Int) throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var options = LocalServer.Options(port: 0, hosts: ["127.0.0.1"])
        options.limits = limits
        let server = Task {
            try await TrackingRoutes.run(options, ingest: ingest, serving: { url in
                continuation.yield(Int(url.split(separator: ":").last!.dropLast())!)
            }, note: { _ in })
        }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            Thread { done.resume(with: Result { try body(port) }) }.start()
        }
    }

    /// Serves `ingest` (on `limits`) and runs `body` on one connection that already had a fix of
    /// `device` at `time` acknowledged, so what `body` sends takes the kept-alive path.
    static func withKeptAliveConnection(_ ingest: TrackingIngest, limits: RequestLimits = .init(), device: String, time: Int,
                                        _ body: @escaping @Sendable (_ port: Int, _ socket: FileDescriptor) throws -> Void) async throws {
        try await withServer(ingest, limits: limits) { port in
            let socket = try connect(port)
            defer { try? socket.close() }
            try socket.writeAll(osmAnd(port, device: device, time: time))
            #expect(try readReply(socket)?.status == 200)
            try body(port, socket)
        }
    }

    static func setUp(note: @escaping @Sendable (String) -> Void = { _ in }) async throws -> (URL, GatedStore, TrackingIngest) {
        let dir = try makeTemporaryDirectory()
        let store = try GatedStore(path: dir.appendingPathComponent("t.sqlite").path)
        return (dir, store, try await TrackingIngest(store: store, policy: .register, note: note))
    }

    /// With the commit held, the request waits unanswered (the router's answer to a pipelined
    /// `/metrics` too: replies keep request order); once it is let go the ack arrives and the
    /// fix is stored; the request pipelined after `/metrics` was not read before it was answered.
    @Test(.timeLimit(.minutes(2))) func ack_onlyAfterTheCommit_repliesInRequestOrder() async throws {
        let (dir, store, ingest) = try await Self.setUp()
        defer { removeTemporaryDirectory(dir) }
        let t = TrackingServerTests.nowSeconds - 100
        try await Self.withKeptAliveConnection(ingest, device: "a", time: t - 1) { port, socket in
            store.hold(true)
            try socket.writeAll(Self.osmAnd(port, device: "a", time: t) + "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
                                + Self.osmAnd(port, device: "a", time: t + 1))
            #expect(store.waitForCommits(2), "the second fix never reached the store")
            #expect(!Self.readable(socket, within: 500), "a reply left while its commit was held")
            store.hold(false)
            let ack = try #require(try Self.readReply(socket))
            #expect(ack.status == 200 && ack.body == "OK\n")
            let metrics = try #require(try Self.readReply(socket))
            #expect(metrics.status == 200)
            #expect(metrics.body.contains("tracking_requests_total{endpoint=\"osmand\"} 2\n"), "\(metrics.body.prefix(300))")
            #expect(metrics.body.contains("tracking_acknowledged_fixes_total 2\n"))
            // The held request's reply left ≥ 500 ms after it reached the route (the wait above).
            #expect(metrics.body.contains("tracking_ingest_duration_seconds_count 2\n"))
            let sum = metrics.body.split(separator: "\n").first { $0.hasPrefix("tracking_ingest_duration_seconds_sum ") }
            #expect(sum.flatMap { Double($0.split(separator: " ")[1]) }.map { $0 >= 0.5 } == true, "\(String(describing: sum))")
            #expect(try Self.readReply(socket)?.status == 200)
        }
        for time in [t - 1, t, t + 1] { #expect(try await store.count(device: "a", fixTime: Int64(time) * 1000) == 1) }
        ingest.stop()
    }

    /// While the store fails: 503 with `Retry-After`, no ack, nothing stored; the device's retry
    /// on the same connection once it is back is acknowledged and stored once. The log got a
    /// line for the failure, with the store's error, and one for the recovery.
    @Test(.timeLimit(.minutes(2))) func storageDown_503NoAck_retryOnTheSameConnectionStoredOnce() async throws {
        let notes = Mutex<[String]>([])
        let (dir, store, ingest) = try await Self.setUp { line in notes.withLock { $0.append(line) } }
        defer { removeTemporaryDirectory(dir) }
        let t = TrackingServerTests.nowSeconds - 100
        try await Self.withKeptAliveConnection(ingest, device: "b", time: t - 1) { port, socket in
            store.setDown(true)
            try socket.writeAll(Self.osmAnd(port, device: "b", time: t))
            let refused = try #require(try Self.readReply(socket))
            #expect(refused.status == 503 && refused.fields["retry-after"] == "1", "\(refused)")
            store.setDown(false)
            try socket.writeAll(Self.osmAnd(port, device: "b", time: t))
            #expect(try Self.readReply(socket)?.status == 200)
            try socket.writeAll(Self.osmAnd(port, device: "b", time: t)) // a retry of an acked fix
            #expect(try Self.readReply(socket)?.status == 200)
        }
        #expect(try await store.count(device: "b", fixTime: Int64(t) * 1000) == 1)
        let text = ingest.metrics.text()
        #expect(text.contains("tracking_commit_failures_total 1\n") && text.contains("tracking_acknowledged_fixes_total 3\n"))
        #expect(text.contains("tracking_responses_total{status=\"503\"} 1\n"))
        let lines = notes.withLock { $0 }
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("store: commits failing: ") == true && lines.first?.contains("down") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("store: commits succeed again after 1 failures in ") == true, "\(lines)")
        ingest.stop()
    }

    /// A store failing 1,000 times a second for two minutes: a line at the first failure, one a
    /// minute after (with the count since the line before; the next minute ends with the
    /// outage), one at the recovery; a second outage starts over. With shards, each shard's
    /// outage is its own.
    @Test func storeFailureLog_aFewLinesPerOutage() {
        let notes = Mutex<[String]>([])
        let log = StoreFailureLog { line in notes.withLock { $0.append(line) } }
        struct Refused: Error, CustomStringConvertible { var description: String { "53300: too many clients" } }
        let start = ContinuousClock.now
        for k in 0..<120_000 { log.failed(.commit, Refused(), at: start + .milliseconds(k)) }
        log.succeeded(.settle, at: start + .seconds(120)) // another operation: nothing to say
        log.succeeded(.commit, at: start + .seconds(120))
        log.succeeded(.commit, at: start + .seconds(121))
        log.failed(.commit, Refused(), at: start + .seconds(130))
        #expect(notes.withLock { $0 } == [
            "store: commits failing: 53300: too many clients",
            "store: commits still failing, 60000 more in 60 s: 53300: too many clients",
            "store: commits succeed again after 120000 failures in 120.0 s",
            "store: commits failing: 53300: too many clients",
        ])
        // Two shards, the second down for a minute while the first succeeds between its
        // failures: one outage of the second, not a line at each turn.
        notes.withLock { $0.removeAll() }
        for k in 0..<60_000 {
            log.failed(.commit, Refused(), part: 1, of: 2, at: start + .seconds(200) + .milliseconds(k))
            log.succeeded(.commit, part: 0, of: 2, at: start + .seconds(200) + .milliseconds(k))
        }
        log.succeeded(.commit, part: 1, of: 2, at: start + .seconds(260))
        #expect(notes.withLock { $0 } == [
            "store: commits on shard 2 of 2 failing: 53300: too many clients",
            "store: commits on shard 2 of 2 succeed again after 60000 failures in 60.0 s",
        ])
    }

    /// On a kept-alive connection: a chunked body (no length announced) that grows past 5 MiB
    /// gets 413 and the connection closes; a rebound DNS name in `Host` gets 403. Nothing of
    /// either is stored.
    @Test(.timeLimit(.minutes(2))) func chunkedBodyOverTheLimit_413_hostOfAnotherName_403() async throws {
        let (dir, store, ingest) = try await Self.setUp()
        defer { removeTemporaryDirectory(dir) }
        let t = TrackingServerTests.nowSeconds - 100
        try await Self.withKeptAliveConnection(ingest, device: "c", time: t - 1) { port, socket in
            try socket.writeAll("POST /overland HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 0x10000) + Array("\r\n".utf8)
            var sent = 0
            // 96 chunks of 64 KiB (6 MiB) at most, stopping when the answer came.
            while sent < 96, !Self.readable(socket, within: 0) {
                _ = try chunk.withUnsafeBytes { try socket.send($0) }
                sent += 1
            }
            let reply = try #require(try Self.readReply(socket))
            #expect(reply.status == 413 && reply.fields["connection"] == "close", "\(reply)")
            #expect(sent > 80, "answered after \(sent) chunks of 64 KiB: before the body reached 5 MiB")
            #expect(try Self.closedWithoutReply(socket))

            let other = try Self.connect(port)
            defer { try? other.close() }
            try other.writeAll(Self.osmAnd(port, device: "c", time: t - 2))
            #expect(try Self.readReply(other)?.status == 200)
            try other.writeAll(Self.osmAnd(port, device: "c", time: t, host: "evil.example:\(port)"))
            #expect(try Self.readReply(other)?.status == 403)
            #expect(try Self.refusals(port) == [#"tracking_http_refusals_total{reason="host"} 1"#, #"tracking_http_refusals_total{reason="body"} 1"#])
        }
        #expect(try await store.positions(device: "c", from: 0, to: .max, limit: 10).map(\.fixTime) == [Int64(t - 2) * 1000, Int64(t - 1) * 1000])
        ingest.stop()
    }

    /// A body trickled slower than `bodyTimeout` gets 408 and the connection closes; a kept-alive
    /// connection that sends half a head and falls silent is closed at `idleTimeout`. Nothing
    /// of either is stored.
    @Test(.timeLimit(.minutes(2))) func slowBody_408AtItsDeadline_halfAHeadClosedWhenIdle() async throws {
        let (dir, store, ingest) = try await Self.setUp()
        defer { removeTemporaryDirectory(dir) }
        var limits = RequestLimits()
        limits.bodyTimeout = .seconds(1)
        limits.idleTimeout = .seconds(2)
        let t = TrackingServerTests.nowSeconds - 100
        try await Self.withKeptAliveConnection(ingest, limits: limits, device: "d", time: t - 1) { port, socket in
            try socket.writeAll("POST / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                                + "Content-Length: 100\r\n\r\nid=d&lat=52.5&lon=13.4&timestamp=\(t)")
            let reply = try #require(try Self.readReply(socket))
            #expect(reply.status == 408, "\(reply)")
            #expect(try Self.closedWithoutReply(socket))

            let idle = try Self.connect(port)
            defer { try? idle.close() }
            try idle.writeAll(Self.osmAnd(port, device: "d", time: t - 2))
            #expect(try Self.readReply(idle)?.status == 200)
            try idle.writeAll("GET /?id=d&lat=52.5&lon=13.4&timestamp=\(t + 1) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ")
            #expect(try Self.closedWithoutReply(idle))
            #expect(try Self.refusals(port) == [#"tracking_http_refusals_total{reason="body_timeout"} 1"#, #"tracking_http_refusals_total{reason="idle"} 1"#])
        }
        #expect(try await store.positions(device: "d", from: 0, to: .max, limit: 10).map(\.fixTime) == [Int64(t - 2) * 1000, Int64(t - 1) * 1000])
        ingest.stop()
    }

    /// `stop()` returns only once the writer has committed what was queued and ended: a batch
    /// held in the store and a request queued behind it are both stored when `stop` returns,
    /// and `stop` waits for them (a restarted server reads `recent`'s keys at open, so a commit
    /// after `stop` returned let a retry of its fix be stored twice).
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func stop_returnsOnceTheQueuedCommitsAreDone() async throws {
        let (dir, store, ingest) = try await Self.setUp()
        defer { removeTemporaryDirectory(dir) }
        let t = TrackingServerTests.nowSeconds - 100
        func fix(_ second: Int) -> TrackedFix {
            TrackedFix(device: "s", location: Location(coordinate: Coordinate(uncheckedLatitude: 52.5, longitude: 13.4),
                                                       timestamp: Date(timeIntervalSince1970: Double(second)), horizontalAccuracy: .meters(5)),
                       source: .osmAnd)
        }
        let acks = Mutex<[Int: Bool]>([:])
        store.hold(true)
        ingest.ingest([fix(t)], receivedAt: Date()) { result in acks.withLock { $0[t] = (try? result.get()) != nil } }
        #expect(store.waitForCommits(1), "the first fix never reached the store")
        ingest.ingest([fix(t + 1)], receivedAt: Date()) { result in acks.withLock { $0[t + 1] = (try? result.get()) != nil } }
        let stopped = Mutex(false)
        let stopping = Thread { ingest.stop(); stopped.withLock { $0 = true } }
        stopping.start()
        try await Task.sleep(for: .milliseconds(300))
        #expect(!stopped.withLock { $0 }, "stop returned while a commit was held")
        store.hold(false)
        while !stopped.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(acks.withLock { $0 } == [t: true, t + 1: true])
        for second in [t, t + 1] { #expect(try await store.count(device: "s", fixTime: Int64(second) * 1000) == 1) }
    }
}
