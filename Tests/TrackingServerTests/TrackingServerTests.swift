import Foundation
import GeoCore
import GeoTestSupport
import HTTPServing
import Synchronization
import SystemIO
import Testing
import TrackingProtocols
@testable import TrackingServer

/// The tracking server end to end over loopback HTTP, on the default SQLite store.
@Suite struct TrackingServerTests {
    /// One HTTP/1.1 request with `Connection: close`; the status and body (`LoopbackHTTP`).
    static func http(_ port: Int, _ method: String, _ target: String, body: String = "", headers: [String] = []) async throws -> (status: Int, body: String) {
        try await LoopbackHTTP.request(port: port, method: method, target: target, body: body, headers: headers)
    }

    /// Runs the routes on a port the system picks while `body` runs.
    static func withServer(_ ingest: TrackingIngest, _ body: (Int) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            try await TrackingRoutes.run(LocalServer.Options(port: 0, hosts: ["127.0.0.1"]), ingest: ingest, serving: { url in
                continuation.yield(Int(url.split(separator: ":").last!.dropLast())!)
            }, note: { _ in })
        }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        try await body(port)
    }

    static var nowSeconds: Int { Int(Date().timeIntervalSince1970) }

    @Test func osmAnd_ack_isStored_retryNotDuplicated_latestNeverMovesBack() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            let t = Self.nowSeconds - 100
            try await Self.withServer(ingest) { port async throws in
                let query = "/?id=car&lat=52.5&lon=13.4&timestamp=\(t)&speed=5"
                #expect(try await Self.http(port, "GET", query).status == 200)
                #expect(try await Self.http(port, "GET", query).status == 200) // a retry: acknowledged, not duplicated
                #expect(try await Self.http(port, "GET", "/?id=car&lat=52.6&lon=13.4&timestamp=\(t - 50)").status == 200) // older, arrives later
            }
            #expect(try await store.count(device: "car", fixTime: Int64(t) * 1000) == 1)
            let latest = try #require(try await store.latest(device: "car"))
            #expect(latest.fixTime == Int64(t) * 1000 && latest.latitude == 52.5)
            #expect(try store.latest(devices: ["nobody", "car"]).map(\.fixTime) == [Int64(t) * 1000]) // by name, the unknown left out
            #expect(try await store.positions(device: "car", from: 0, to: .max, limit: 10).map(\.fixTime) == [Int64(t - 50) * 1000, Int64(t) * 1000])
            ingest.stop()
        }
    }

    /// Retention on SQLite, as `serve-tracking --retention-days 1` runs it: the first pass of
    /// `retainHistory` deletes the fixes of the days before yesterday (UTC) and keeps
    /// yesterday's, today's and the devices' latest positions.
    @Test func retainHistory_deletesDaysBeforeTheKeptOnes_keepsLatest() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            defer { ingest.stop() }
            let today = FixDay.of(Int64(Self.nowSeconds) * 1000)
            let rows = ["a", "b"].flatMap { device in (0...3).map { PostgresStoreTests.noonFix(device, day: today - $0) } }
            #expect(try store.commit(rows) == 8)
            let retention = Task { await ingest.retainHistory(days: 1) }
            defer { retention.cancel() }
            try await PostgresStoreTests.waitUntil("the first retention pass") {
                (try? store.positions(device: "b", from: 0, to: .max, limit: 10).count) == 2
            }
            for device in ["a", "b"] {
                #expect(try store.positions(device: device, from: 0, to: .max, limit: 10).map(\.fixTime) == [rows[1].fixTime, rows[0].fixTime])
                #expect(try await store.latest(device: device)?.fixTime == rows[0].fixTime)
            }
            #expect(ingest.metrics.text().contains("tracking_retention_failures_total 0"))
        }
    }

    #if canImport(Glibc)
    /// The server's release of free heap pages (glibc's malloc; elsewhere nothing is held to
    /// release): once 64 MiB were allocated and freed (under a block kept, so not at the arena's
    /// top), a look releases at least half of them, counted in `/metrics`; the next look, the
    /// resident set not grown since, releases nothing, nor does one after the same 64 MiB were
    /// taken and freed again (the refill of what was given back is not growth: the floor is the
    /// resident set before the release).
    @Test func releaseFreedMemory_onGrowthOnly_givesTheFreedPagesBack() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            func count(_ name: String) -> Int { FixPagesTests.counter(ingest, name) }
            try withHeapReleaseMeasured {
                // The free pages earlier tests left (a read API test's megabytes) given back
                // first: the 64 MiB would reuse them, and the resident set would not grow.
                _ = FreedHeapMemory.release()
                let floor = try #require(FreedHeapMemory.residentBytes())
                let kept = freeHeapBelowAKeptBlock(mebibytes: 64)
                defer { free(kept) }
                // 64 MiB is over 0.5 % of a test process's resident set up to 12.8 GB.
                let look = ingest.releaseFreedMemory(ifGrownOver: floor, by: 0.005)
                let after = try #require(FreedHeapMemory.residentBytes())
                #expect(count("tracking_memory_release_duration_seconds_count") == 1)
                #expect(count("tracking_memory_released_bytes_total") >= 32 << 20)
                let next = try #require(look.floor)
                #expect(!look.gaveBackLittle && next - after >= 32 << 20, "the floor is the level before the release: \(next), \(after) bytes")
                _ = ingest.releaseFreedMemory(ifGrownOver: next, by: 0.02)
                let again = freeHeapBelowAKeptBlock(mebibytes: 64)
                defer { free(again) }
                _ = ingest.releaseFreedMemory(ifGrownOver: next, by: 0.02)
            }
            #expect(count("tracking_memory_release_duration_seconds_count") == 1, "no growth, no release")
        }
    }
    #endif

    /// The floor after a release (`TrackingIngest.floor(after:releasedAt:over:)`, in MB here):
    /// a release that gave back at least half of the growth raises the floor to the level before
    /// it (the working set takes the pages back within seconds: that refill is no growth); one
    /// that gave back less (a backlog's requests held, not freed) keeps the floor, so the look
    /// after the backlog is freed releases it. (With the floor at the level before every release,
    /// a look mid-backlog kept the backlog's peak: 0.67 MB released after 64 MiB were freed.)
    @Test func floorAfterARelease_risesOnlyWhenTheGrowthWasFree() {
        #expect(TrackingIngest.floor(after: 27, releasedAt: 517, over: 490) == (517, false), "the refill of 27 MB given back")
        #expect(TrackingIngest.floor(after: 40, releasedAt: 532, over: 492) == (532, false), "a freed backlog's 40 MB")
        #expect(TrackingIngest.floor(after: 1, releasedAt: 532, over: 492) == (492, true), "a backlog of 40 MB still held")
        #expect(TrackingIngest.floor(after: 19, releasedAt: 532, over: 492) == (492, true), "under half given back")
        #expect(TrackingIngest.floor(after: 20, releasedAt: 532, over: 492) == (532, false), "half given back")
    }

    @Test func endpoints_replyWhatTheirAppsExpect_andReadBackAsGeoJSONAndGPX() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            let t = Self.nowSeconds - 60
            try await Self.withServer(ingest) { port async throws in
                let overland = #"{"locations":[{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.03,37.33]},"properties":{"timestamp":"\#(TrackOutput.iso8601(Int64(t) * 1000))","speed":4,"device_id":"ov"}}]}"#
                let o = try await Self.http(port, "POST", "/overland", body: overland, headers: ["Content-Type: application/json"])
                #expect(o.status == 200 && o.body == #"{"result":"ok"}"#)
                let own = try await Self.http(port, "POST", "/owntracks", body: #"{"_type":"location","lat":51.5,"lon":-0.1,"tst":\#(t)}"#,
                                        headers: ["X-Limit-U: jane", "X-Limit-D: phone"])
                #expect(own.status == 200 && own.body == "[]")
                let gps = try await Self.http(port, "POST", "/gpslogger", body: "lat=1.5&lon=2.5&timestamp=\(t)&spd=3&ser=gl",
                                        headers: ["Content-Type: application/x-www-form-urlencoded"])
                #expect(gps.status == 200)
                let geo = try await Self.http(port, "GET", "/api/positions?device=jane/phone&from=\(t - 1)&to=\(t + 1)")
                #expect(geo.status == 200 && geo.body.contains("[-0.1,51.5]"))
                let gpx = try await Self.http(port, "GET", "/api/positions?device=ov&format=gpx")
                #expect(gpx.status == 200 && gpx.body.contains(#"lat="37.33" lon="-122.03""#))
                let bad = try await Self.http(port, "GET", "/?id=x&lat=91&lon=0&timestamp=\(t)")
                #expect(bad.status == 400 && bad.body.contains("query parameter 'lat'"))
                let metrics = try await Self.http(port, "GET", "/metrics")
                #expect(metrics.body.contains("tracking_acknowledged_fixes_total 3"))
                #expect(metrics.body.contains("tracking_rejected_fixes_total 1"))
            }
            ingest.stop()
        }
    }

    @Test func unknownDevice_refused403_whenNotAutoRegistering() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .refuse, devices: [DeviceSettings(name: "known", osmAndSpeedUnit: .knots)])
            let t = Self.nowSeconds - 10
            try await Self.withServer(ingest) { port async throws in
                #expect(try await Self.http(port, "GET", "/?id=stranger&lat=1&lon=2&timestamp=\(t)").status == 403)
                #expect(try await Self.http(port, "GET", "/?id=known&lat=1&lon=2&timestamp=\(t)&speed=10").status == 200)
            }
            #expect(try await store.devices().map(\.name) == ["known"])
            let speed = try #require(try await store.latest(device: "known")?.speed)
            #expect(abs(speed - 5.144444) < 1e-6) // 10 knots in m/s: the device's setting
            ingest.stop()
        }
    }

    /// A body announced over the 5 MiB bound gets its 413 before a byte of the body is sent
    /// (hostile-http.py's "Content-Length 4 GB" waited for the body until the idle timeout).
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func bodyAnnouncedOverTheBound_413BeforeTheBody() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            try await Self.withServer(ingest) { port async throws in
                let head: String = try await withCheckedThrowingContinuation { continuation in
                    Thread {
                        continuation.resume(with: Result {
                            let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
                            defer { try? socket.close() }
                            try socket.writeAll("POST /overland HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\nContent-Length: 4000000000\r\n\r\n")
                            var reply: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
                            while !String(decoding: reply, as: UTF8.self).contains("\r\n\r\n"),
                                  let n = try? chunk.withUnsafeMutableBytes({ try socket.read(into: $0) }), n > 0 {
                                reply += chunk[0..<n]
                            }
                            return String(decoding: reply, as: UTF8.self)
                        })
                    }.start()
                }
                #expect(head.hasPrefix("HTTP/1.1 413"), "\(head.prefix(60))")
            }
            #expect(try await store.devices().isEmpty)
            ingest.stop()
        }
    }

    /// A database capped at a few pages fills up (SQLITE_FULL, as a full disk): from then on
    /// every request gets 503 and no ack, every acknowledged fix is stored, and no refused one is.
    @Test func storageFull_replies503_neverAnAck_andEveryAckIsStored() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: path, maximumPages: 12), policy: .register)
            let t = Self.nowSeconds - 3000
            var acked: [Int] = [], refused: [Int] = []
            try await Self.withServer(ingest) { port async throws in
                for i in 0..<2000 {
                    let status = try await Self.http(port, "GET", "/?id=full&lat=1&lon=2&timestamp=\(t + i)").status
                    if status == 200 { acked.append(i) } else { #expect(status == 503); refused.append(i) }
                    if refused.count >= 5 { break }
                }
            }
            let outcome = (acked: acked, refused: refused)
            ingest.stop()
            #expect(outcome.refused.count == 5, "the capped database never filled")
            #expect(outcome.acked.count > 10)
            let reader = try SQLitePositionStore(path: path, readOnly: true)
            for i in outcome.acked { #expect(try await reader.count(device: "full", fixTime: Int64(t + i) * 1000) == 1) }
            for i in outcome.refused { #expect(try await reader.count(device: "full", fixTime: Int64(t + i) * 1000) == 0) }
            #expect(ingest.metrics.text().contains("tracking_commit_failures_total 5"))
        }
    }

    /// Many concurrent requests share commits: fewer commits than requests, every ack stored.
    @Test func groupCommit_batchesConcurrentRequests() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            let t = Int64(Self.nowSeconds - 500)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for d in 0..<50 {
                    group.addTask {
                        for k in 0..<10 {
                            let fix = TrackedFix(device: "d\(d)", location: Location(coordinate: try Coordinate(latitude: 10, longitude: Double(k)),
                                                                                     timestamp: Date(timeIntervalSince1970: Double(t) + Double(k))), source: .osmAnd)
                            try await ingest.ingest([fix], receivedAt: Date())
                        }
                    }
                }
                try await group.waitForAll()
            }
            let text = ingest.metrics.text()
            let commits = Int(text.split(separator: "\n").first { $0.hasPrefix("tracking_commits_total") }!.split(separator: " ")[1])!
            #expect(commits < 500, "500 fixes from 50 concurrent devices took \(commits) commits")
            for d in 0..<50 { #expect(try await store.positions(device: "d\(d)", from: 0, to: .max, limit: 100).count == 10) }
            ingest.stop()
        }
    }

    /// A store that overlaps commits gets that many writers: while the batch of device "held"
    /// is kept in the store, the next batch (device "free") is committed and acknowledged; live
    /// subscribers get "free" only once "held" has committed, in the order the batches were taken.
    @Test(.timeLimit(.minutes(2))) func concurrentCommits_nextBatchAckedWhileOneIsHeld_liveGetsThemInOrder() async throws {
        try await withTemporaryDirectory { dir in
            let store = try OverlappingStore(path: dir.appendingPathComponent("t.sqlite").path, holding: "held")
            let live = LiveFanOut()
            let due = Shared(0)
            let subscriber = try #require(live.subscribe(.devices(["held", "free"])) { _ in due.withLock { $0 += 1 } })
            let committer = GroupCommitter(store: store, metrics: TrackingMetrics(), live: live)
            defer { committer.stop() }
            let t = Int64(Self.nowSeconds - 100) * 1000
            let row = { (device: String) in StoredFix(device: device, fixTime: t, payloadHash: 1, latitude: 1, longitude: 2, receivedAt: t, source: "osmand") }
            let heldAck = Shared<Int?>(nil), freeAck = Shared<Int?>(nil)
            store.hold(true)
            // Runs before `stop`, which waits for the held batch (with one writer, for both).
            defer { store.hold(false) }
            committer.commit([row("held")]) { result in heldAck.withLock { $0 = try? result.get() } }
            #expect(store.waitForHeldCommit(), "the held batch never reached the store")
            committer.commit([row("free")]) { result in freeAck.withLock { $0 = try? result.get() } }
            try await PostgresStoreTests.waitUntil("the next batch's ack while the one before is held") { freeAck.withLock { $0 } == 1 }
            #expect(heldAck.withLock { $0 } == nil, "the held batch was acknowledged before it committed")
            #expect(due.withLock { $0 } == 0, "live got the later batch before the one taken before it had committed")
            store.hold(false)
            try await PostgresStoreTests.waitUntil("the held batch's ack") { heldAck.withLock { $0 } == 1 }
            try await PostgresStoreTests.waitUntil("a live delivery") { due.withLock { $0 } > 0 }
            #expect(subscriber.take().fixes.map(\.fix.device) == ["free", "held"])
        }
    }
}

extension TrackingServerTests {
    /// Two writers and one request at a time: each request is one commit, never an empty one
    /// (both writers waited for the same oldest request, and the one that found the queue
    /// taken committed nothing: 15 of 75 commits in `FenceOracleTests`).
    @Test func concurrentCommits_requestsOneAtATime_oneCommitEach() async throws {
        try await withTemporaryDirectory { dir in
            let store = try OverlappingStore(path: dir.appendingPathComponent("t.sqlite").path, holding: "")
            let metrics = TrackingMetrics()
            let committer = GroupCommitter(store: store, metrics: metrics)
            defer { committer.stop() }
            let t = Int64(Self.nowSeconds - 1000) * 1000
            for k in 0..<200 {
                let row = StoredFix(device: "a", fixTime: t + Int64(k) * 1000, payloadHash: 1, latitude: 1, longitude: 2, receivedAt: t, source: "osmand")
                #expect(try await committer.commit([row]) == 1)
            }
            let text = metrics.text()
            #expect(text.contains("tracking_commits_total 200\n"), "\(text.split(separator: "\n").filter { $0.hasPrefix("tracking_commits_total") })")
        }
    }
}

/// An SQLite store that says it overlaps two commits and keeps each batch naming `holding` in
/// `commit` while `hold(true)` (the inner store serialises the commits it lets through).
final class OverlappingStore: SQLiteBackedStore, @unchecked Sendable {
    let holding: String
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var held = false, heldEntered = false

    init(path: String, holding: String) throws {
        self.holding = holding
        try super.init(path: path)
    }

    override var concurrentCommits: Int { 2 }
    func hold(_ value: Bool) { condition.lock(); held = value; condition.broadcast(); condition.unlock() }
    /// Blocks until a batch naming `holding` is kept in `commit` (a minute at most); whether it was.
    func waitForHeldCommit() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while !heldEntered { if !condition.wait(until: deadline) { return false } }
        return true
    }

    override func commit(_ rows: [StoredFix]) throws -> Int {
        if rows.contains(where: { $0.device == holding }) {
            condition.lock()
            heldEntered = true
            condition.broadcast()
            while held { condition.wait() }
            condition.unlock()
        }
        return try inner.commit(rows)
    }
}

/// Teltonika over TCP with the wiki's login and first Codec 8 packet: login answered 0x01, the
/// packet acknowledged with its record count after the commit, the record stored; a wrong CRC
/// closes the connection without an acknowledgement.
@Suite struct TeltonikaListenerTests {
    /// A Teltonika listener of `ingest` on a free loopback port, and that port (a listener that
    /// cannot bind fails the test: its stream of ports ends); the caller cancels it.
    static func teltonika(_ ingest: TrackingIngest, idleTimeout: Duration = TeltonikaListener.defaultIdleTimeout,
                          connections: OpenConnections = .process) async throws -> (listener: Task<Void, any Error>, port: Int) {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let listener = Task {
            defer { continuation.finish() }
            try await TeltonikaListener.run(host: "127.0.0.1", port: 0, ingest: ingest, idleTimeout: idleTimeout, connections: connections) {
                continuation.yield($0)
            }
        }
        var iterator = ports.makeAsyncIterator()
        return (listener, try #require(await iterator.next()))
    }

    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { i in
            UInt8(hex[hex.index(hex.startIndex, offsetBy: i)..<hex.index(hex.startIndex, offsetBy: i + 2)], radix: 16)!
        }
    }

    static func read(_ socket: FileDescriptor, _ count: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        while out.count < count {
            var chunk = [UInt8](repeating: 0, count: count - out.count)
            let n = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
            if n == 0 { break }
            out += chunk[..<n]
        }
        return out
    }

    @Test(.onOwnThread) func wikiLoginAndPacket_acknowledgedAfterStoring_wrongCRCClosesWithoutAck() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .refuse, devices: [DeviceSettings(name: "356307042441013")])
            let (listener, port) = try await Self.teltonika(ingest)
            defer { listener.cancel() }
            let packet = Self.bytes("000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF")

            let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
            try socket.writeAll(Self.bytes("000F333536333037303432343431303133"))
            #expect(try Self.read(socket, 1) == [1])
            try socket.writeAll(packet)
            #expect(try Self.read(socket, 4) == [0, 0, 0, 1])
            try socket.close()
            #expect(try await store.count(device: "356307042441013", fixTime: 1_560_161_086_000) == 1)

            let bad = try TCPClient.connect(host: "127.0.0.1", port: port)
            try bad.writeAll(Self.bytes("000F333536333037303432343431303133"))
            #expect(try Self.read(bad, 1) == [1])
            var corrupted = packet
            corrupted[corrupted.count - 1] ^= 0xFF
            try bad.writeAll(corrupted)
            #expect(try Self.read(bad, 4).isEmpty) // closed, no acknowledgement
            try bad.close()
            #expect(ingest.metrics.text().contains(#"tracking_teltonika_closed_total{reason="malformed"} 1"#))

            let stranger = try TCPClient.connect(host: "127.0.0.1", port: port)
            try stranger.writeAll(Self.bytes("000F333536333037303432343431303134")) // …014: not registered
            #expect(try Self.read(stranger, 1) == [0])
            try stranger.close()
            ingest.stop()
        }
    }

    /// A device that sends its login and 40 packets at once, without waiting for replies (every
    /// third packet's one record dated 1998, so that it holds no fix to store), gets the login's
    /// answer and each packet's count in the packets' order, every valid fix stored once; the
    /// packets with nothing to store are acknowledged too (a device resends an unacknowledged
    /// packet for ever) and their records counted as rejected.
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func packetsSentAhead_acknowledgedInOrder_eachValidFixStored() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            defer { ingest.stop() }
            let (listener, port) = try await Self.teltonika(ingest)
            defer { listener.cancel() }
            let start = Int64(Date().timeIntervalSince1970 * 1000) - 60_000
            var stream = Teltonika.login(imei: "356307042441013"), valid: [Int64] = []
            for k in 0..<40 {
                let time = k % 3 == 2 ? 899_000_000_000 : start + Int64(k) * 1000 // 1998-06-28: refused by the decoding rules
                if k % 3 != 2 { valid.append(time) }
                stream += Teltonika.packet([TeltonikaRecord(timestampMilliseconds: time, longitude: 25.28, latitude: 54.69, satellites: 9)],
                                           extended: k % 2 == 1)
            }
            let socket = try TCPClient.connect(host: "127.0.0.1", port: port)
            defer { try? socket.close() }
            try socket.writeAll(stream)
            #expect(try Self.read(socket, 1 + 4 * 40) == [1] + Array(repeating: [0, 0, 0, 1], count: 40).flatMap { $0 })
            let stored = try await store.positions(device: "356307042441013", from: 0, to: .max, limit: 100)
            #expect(stored.map(\.fixTime) == valid)
            #expect(ingest.metrics.text().contains("tracking_rejected_fixes_total 13"))
        }
    }

    /// A device that logs in and then sends half a packet, and one that only connects, are
    /// closed once silent for the idle timeout (here 1 s); a device sending on time is served.
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func teltonika_silentConnectionsClosedAfterTheIdleTimeout() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            let (listener, port) = try await Self.teltonika(ingest, idleTimeout: .seconds(1))
            defer { listener.cancel() }
            let slow = try TCPClient.connect(host: "127.0.0.1", port: port)
            defer { try? slow.close() }
            try slow.writeAll(Self.bytes("000F333536333037303432343431303133"))
            #expect(try Self.read(slow, 1) == [1])
            try slow.writeAll(Self.bytes("00000000000000360801")) // half a packet, then silence
            let idle = try TCPClient.connect(host: "127.0.0.1", port: port)
            defer { try? idle.close() }
            // Both reads end at the server's close (empty), not at a byte: nothing was acknowledged.
            #expect(try Self.read(slow, 4).isEmpty)
            #expect(try Self.read(idle, 1).isEmpty)
            #expect(ingest.metrics.text().contains(#"tracking_teltonika_closed_total{reason="idle"} 2"#))
        }
    }

    /// Connections over the listener's bound of open connections (here 2; by default the
    /// process's, which the HTTP server's count in too) are closed as soon as they are accepted,
    /// before a login is answered, and counted; once one of the two closes, a device is served.
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func teltonika_overTheConnectionBound_closedAndCounted_servedWhenOneCloses() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            let (listener, port) = try await Self.teltonika(ingest, connections: OpenConnections(maximum: 2))
            defer { listener.cancel() }
            let login = Self.bytes("000F333536333037303432343431303133")
            let first = try TCPClient.connect(host: "127.0.0.1", port: port)
            try first.writeAll(login)
            #expect(try Self.read(first, 1) == [1])
            let second = try TCPClient.connect(host: "127.0.0.1", port: port)
            defer { try? second.close() }
            try second.writeAll(login)
            #expect(try Self.read(second, 1) == [1])
            let third = try TCPClient.connect(host: "127.0.0.1", port: port)
            try? third.writeAll(login)
            #expect(((try? Self.read(third, 1)) ?? []).isEmpty, "a third connection was served")
            try? third.close()
            #expect(ingest.metrics.text().contains(#"tracking_teltonika_closed_total{reason="connections"} 1"#))

            try first.close()
            // The server counts a connection until its side has closed: a new one may come first.
            var served = false
            for _ in 0..<50 where !served {
                let next = try TCPClient.connect(host: "127.0.0.1", port: port)
                try? next.writeAll(login)
                served = ((try? Self.read(next, 1)) ?? []) == [1]
                try? next.close()
                if !served { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(served, "no device served after one of the two connections closed")
        }
    }

    /// Devices connecting while the listener is cancelled, 20 times over: the listener ends,
    /// closing every connection, and never traps on a connection accepted during its end.
    @Test(.onOwnThread) func teltonika_cancelledWhileDevicesConnect_endsWithoutACrash() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            for _ in 0..<20 {
                let (listener, port) = try await Self.teltonika(ingest)
                let connecting = Thread {
                    for _ in 0..<200 {
                        guard let socket = try? TCPClient.connect(host: "127.0.0.1", port: port) else { return }
                        try? socket.writeAll(Self.bytes("000F333536333037303432343431303133"))
                        try? socket.close()
                    }
                }
                connecting.start()
                try await Task.sleep(for: .milliseconds(5))
                listener.cancel()
                _ = await listener.result
                #expect(throws: (any Error).self, "the port still accepts after the listener ended") {
                    try TCPClient.connect(host: "127.0.0.1", port: port).close()
                }
            }
        }
    }

    /// Devices logging in one after another, each keeping its connection, while the listener is
    /// cancelled, 10 times over: once it has ended, every connection whose login it answered is
    /// closed — the device reads the end of the stream within 2 s, not silence until the idle
    /// timeout (10 minutes).
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func teltonika_cancelled_everyAnsweredConnectionClosed() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            for _ in 0..<10 {
                let (listener, port) = try await Self.teltonika(ingest)
                let answered = Mutex<(sockets: [FileDescriptor], done: Bool)>(([], false))
                Thread {
                    defer { answered.withLock { $0.done = true } }
                    for _ in 0..<200 {
                        guard let socket = try? TCPClient.connect(host: "127.0.0.1", port: port) else { return }
                        var limit = timeval(tv_sec: 5, tv_usec: 0)
                        setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                        if (try? socket.writeAll(Self.bytes("000F333536333037303432343431303133"))) != nil, (try? Self.read(socket, 1)) == [1] {
                            answered.withLock { $0.sockets.append(socket) }
                        } else {
                            try? socket.close()
                        }
                    }
                }.start()
                try await Task.sleep(for: .milliseconds(20))
                listener.cancel()
                _ = await listener.result
                while !answered.withLock({ $0.done }) { try await Task.sleep(for: .milliseconds(10)) }
                let sockets = answered.withLock { $0.sockets }
                #expect(!sockets.isEmpty, "no login was answered before the listener ended")
                for socket in sockets {
                    var entry = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
                    #expect(poll(&entry, 1, 2000) == 1, "a connection answered before the listener ended is still open")
                    try? socket.close()
                }
            }
        }
    }
}
