import Foundation
import GeoCore
import HTTPServing
import GeoTestSupport
import Synchronization
import SystemIO
import Testing
import TrackingProtocols
@testable import TrackingServer

/// Live fan-out: the mailbox's rules, and `/live` end to end with a client that reads and one
/// that never does. Serialized: one test lowers the process's open-file limit, which another
/// reads.
@Suite(.serialized) struct LiveFanOutTests {
    static func stored(_ device: String, _ seconds: Int64, latitude: Double = 1, longitude: Double = 2) -> StoredFix {
        StoredFix(device: device, fixTime: seconds * 1000, payloadHash: seconds, latitude: latitude, longitude: longitude,
                  receivedAt: seconds * 1000, source: "osmand")
    }

    /// Only the latest undelivered fix per device is kept, never an older one after a newer, and
    /// no more devices than the mailbox's bound.
    @Test func mailbox_keepsLatestPerDevice_neverBackwards_bounded() throws {
        let fanOut = LiveFanOut(maximumDevicesPerSubscriber: 3)
        let subscriber = try #require(fanOut.subscribe(.devices(["a", "b", "c", "d"])) { _ in })
        let boxed = try #require(fanOut.subscribe(.box(try! BoundingBox(south: 0, west: 0, north: 10, east: 10))) { _ in })
        fanOut.publish([Self.stored("a", 1), Self.stored("a", 3), Self.stored("a", 2), Self.stored("b", 1), Self.stored("x", 1, latitude: 20)])
        fanOut.publish([Self.stored("a", 2)]) // out of order: stored, never pushed
        #expect(subscriber.take().fixes.map { "\($0.fix.device)@\($0.fix.fixTime / 1000)" } == ["a@3", "b@1"])
        fanOut.publish([Self.stored("c", 5), Self.stored("d", 5), Self.stored("a", 4), Self.stored("b", 6)])
        #expect(subscriber.pending == 3) // a, b and c or d: 3 devices at most
        #expect(subscriber.take().fixes.count == 3)
        // x is outside the box; the box's mailbox (also 3 devices at most) keeps a, b and one of c, d.
        let inBox = boxed.take().fixes.map(\.fix.device)
        #expect(inBox.count == 3 && inBox.starts(with: ["a", "b"]) && !inBox.contains("x"))
        fanOut.unsubscribe(subscriber)
        fanOut.unsubscribe(boxed)
        #expect(fanOut.subscriberCount == 0)
    }

    /// A subscriber following 100 devices is told once that a delivery is due, however many
    /// batches come before it takes (50 batches of its 100 devices: 5,000 fixes), and then takes
    /// one message's worth: every device once, at its last fix; the next fix makes a delivery
    /// due again. Fence events join the same due delivery.
    @Test func subscriber_oneDeliveryDue_holdsEveryDeviceAtItsLatest() throws {
        let fanOut = LiveFanOut()
        let calls = Calls()
        let names = (0..<100).map { "d\($0)" }
        let subscriber = try #require(fanOut.subscribe(.devices(Set(names))) { _ in calls.count.add(1, ordering: .relaxed) })
        for batch in 1...50 { fanOut.publish(names.map { Self.stored($0, Int64(batch)) }) }
        fanOut.publish(events: [FenceEvent(device: "d3", fence: "f", kind: .enter, time: 50_000, latitude: 1, longitude: 2)])
        func matched(_ device: String, _ time: Int64) -> LiveMatchedFix {
            LiveMatchedFix(device: device, fixTime: time, latitude: 1, longitude: 2, road: "", way: 7, confidence: 0.9, revised: false)
        }
        fanOut.publish(matched: [matched("d3", 50_000), matched("d3", 49_000), matched("not-followed", 50_000)])
        #expect(calls.count.load(ordering: .relaxed) == 1)
        let (fixes, events, matchedFixes) = subscriber.take()
        #expect(fixes.map(\.fix.device) == names.sorted())
        #expect(fixes.allSatisfy { $0.fix.fixTime == 50_000 })
        #expect(events.map(\.device) == ["d3"])
        #expect(matchedFixes == [matched("d3", 50_000)], "the latest matched position of a followed device, never an older one")
        // A box gets the matched positions it holds, of any device, and no off-road answer.
        let boxed = try #require(fanOut.subscribe(.box(try BoundingBox(south: 0, west: 0, north: 10, east: 10))) { _ in })
        var offRoad = matched("d5", 50_000), outside = matched("d6", 50_000)
        (offRoad.latitude, offRoad.longitude) = (nil, nil)
        outside.latitude = 20
        fanOut.publish(matched: [matched("not-followed", 51_000), offRoad, outside])
        #expect(boxed.take().matched == [matched("not-followed", 51_000)])
        fanOut.unsubscribe(boxed)
        #expect(subscriber.pending == 0)
        fanOut.publish([Self.stored("d0", 51)])
        #expect(calls.count.load(ordering: .relaxed) == 2)
        #expect(subscriber.take().fixes.map(\.fix.fixTime) == [51_000])
    }

    /// No more than `maximumSubscribers` at once: one more is refused, and admitted again once
    /// one leaves; the default is half the process's open-file limit.
    @Test func subscribers_boundedByTheMaximum() throws {
        let fanOut = LiveFanOut(maximumSubscribers: 2)
        let first = try #require(fanOut.subscribe(.devices(["a"])) { _ in })
        _ = try #require(fanOut.subscribe(.devices(["b"])) { _ in })
        #expect(fanOut.subscribe(.devices(["c"])) { _ in } == nil)
        #expect(fanOut.subscriberCount == 2)
        fanOut.unsubscribe(first)
        #expect(fanOut.subscribe(.devices(["c"])) { _ in } != nil)
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        #expect(LiveFanOut().maximumSubscribers == (limit.rlim_cur == rlim_t.max ? 1 << 20 : max(16, Int(limit.rlim_cur) / 2)))
    }

    /// A full server gives a client that holds fewer the place of the newest subscriber of the
    /// client that holds the most, while that one holds at least two more; the one evicted is
    /// told once and offered nothing after.
    @Test func subscribers_aFullServerSharesItsPlacesBetweenClients() throws {
        let fanOut = LiveFanOut(maximumSubscribers: 4)
        let evicted = Mutex<[String]>([])
        func subscribe(_ client: String, _ name: String) -> LiveFanOut.Subscriber? {
            fanOut.subscribe(.devices(["car"]), client: client, whenEvicted: { evicted.withLock { $0.append(name) } }) { _ in }
        }
        let a = try (1...4).map { try #require(subscribe("a", "a\($0)")) }
        #expect(subscribe("a", "a5") == nil)
        #expect(subscribe("b", "b1") != nil)
        #expect(evicted.withLock { $0 } == ["a4"])
        #expect(subscribe("b", "b2") != nil)
        #expect(evicted.withLock { $0 } == ["a4", "a3"])
        // Two each: neither gives way to the other.
        #expect(subscribe("b", "b3") == nil && subscribe("a", "a5") == nil)
        #expect(fanOut.subscriberCount == 4)
        // Unsubscribing an evicted one (its connection ends) frees nothing more.
        fanOut.unsubscribe(a[3])
        #expect(fanOut.subscriberCount == 4 && subscribe("b", "b3") == nil)
        // An evicted subscriber is offered nothing; a kept one is.
        fanOut.publish([StoredFix(device: "car", fixTime: 1_000, payloadHash: 1, latitude: 48, longitude: 11, altitude: nil,
                                  accuracy: 5, speed: nil, course: nil, receivedAt: 1_000, source: "osmand")])
        #expect(a[2].pending == 0 && a[0].pending == 1)
        // A third client takes a place from one that holds two.
        #expect(subscribe("c", "c1") != nil)
        #expect(evicted.withLock { $0.count } == 3 && fanOut.subscriberCount == 4)
    }

    /// A server raises its soft open-file limit to the hard one when it starts (as nginx's
    /// `worker_rlimit_nofile` and systemd do) and admits half of it as `/live` subscribers: the
    /// soft limit is lowered by one first so that the raise shows, and read back from the
    /// kernel's own report (/proc/self/limits) where there is one. (Other tests start servers at
    /// the same time, so one of them may have raised it again before this one.)
    @Test func start_raisesTheSoftOpenFileLimitToTheHardOne() async throws {
        var limit = rlimit()
        #expect(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        try #require(limit.rlim_max != rlim_t.max && limit.rlim_max > 64, "no finite hard open-file limit to raise to")
        limit.rlim_cur = limit.rlim_max - 1
        #expect(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let hard = Int(limit.rlim_max)
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            #expect(ingest.openFiles.after == hard && OpenFileLimit.current.soft == hard)
            #expect(ingest.live.maximumSubscribers == hard / 2)
            let before = ingest.openFiles.before
            #expect(before == hard - 1 || before == hard)
            let raised = before == hard ? "" : "; \(hard - 1) before the server raised it"
            #expect(TrackingRoutes.openFilesNote(ingest) == "open files: at most \(hard) (soft RLIMIT_NOFILE; hard \(hard)\(raised)); /live: at most \(hard / 2) subscribers")
            if let limits = try? String(contentsOfFile: "/proc/self/limits", encoding: .utf8) {
                let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
                #expect(line.split(separator: " ").dropFirst(3).prefix(2).map(String.init) == ["\(hard)", "\(hard)"], "\(line)")
            }
        }
    }

    /// A `/live` message built from features encoded once per fix is, byte for byte, the
    /// collection `TrackOutput.geoJSON` writes for those fixes (optional members absent and
    /// present, a name JSON escapes, one fix and several).
    @Test func sharedFeatures_makeTheSameCollection() {
        let fixes = [
            Self.stored("a", 1),
            StoredFix(device: "b \"q\"\\", fixTime: 1_784_000_000_123, payloadHash: 7, latitude: 48.123456789, longitude: -2.5, altitude: 35.5,
                      accuracy: 4, speed: 1.25, course: 359.9, receivedAt: 0, source: "overland"),
            Self.stored("c", 3, latitude: -33.9, longitude: 151.2),
        ]
        for count in 1...fixes.count {
            let some = Array(fixes.prefix(count))
            #expect(TrackOutput.geoJSON(features: some.map(TrackOutput.feature)) == TrackOutput.geoJSON(some))
        }
        #expect(TrackOutput.geoJSON(features: []) == TrackOutput.geoJSON([]))
    }

    static func handshake(_ port: Int, _ target: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// Reads until what came back contains every string of `expected`, or 30 s pass.
    /// A `/live` client of `path` (`/live?devices=…`) that has read its first message, the
    /// latest positions; the caller closes it.
    static func subscribed(_ port: Int, _ path: String) throws -> FileDescriptor {
        let client = try TCPClient.connect(host: "127.0.0.1", port: port)
        do {
            try client.writeAll(handshake(port, path))
            _ = try read(client, until: ["FeatureCollection"])
            return client
        } catch {
            try? client.close()
            throw error
        }
    }

    static func read(_ socket: FileDescriptor, until expected: [String]) throws -> String {
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var reply: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let text = String(decoding: reply, as: UTF8.self)
            if expected.allSatisfy(text.contains) { return text }
            let n = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
            if n == 0 { return text }
            reply += chunk[0..<n]
        }
    }

    /// What comes within `seconds` (until the client closes, or nothing more comes).
    static func read(_ socket: FileDescriptor, for seconds: Int) -> String {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var reply: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        while let n = try? chunk.withUnsafeMutableBytes({ try socket.read(into: $0) }), n > 0 { reply += chunk[0..<n] }
        return String(decoding: reply, as: UTF8.self)
    }

    struct ConnectionClosed: Error {}

    /// Reads a WebSocket handshake's reply (it must be 101) and returns the bytes after it.
    static func upgraded(_ socket: FileDescriptor) throws -> [UInt8] {
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var reply: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = reply.indices.dropLast(3).first(where: { reply[$0..<$0 + 4].elementsEqual("\r\n\r\n".utf8) }) {
                #expect(String(decoding: reply[..<end], as: UTF8.self).hasPrefix("HTTP/1.1 101"))
                return Array(reply[(end + 4)...])
            }
            let n = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
            guard n > 0 else { throw ConnectionClosed() }
            reply += chunk[0..<n]
        }
    }

    /// The payload of the next text frame the server sent (RFC 6455 §5.2: a server's frames are
    /// not masked; a length of 126 or 127 is followed by 2 or 8 bytes of it), skipping control
    /// frames; `buffered` holds what was read past it.
    static func textFrame(_ socket: FileDescriptor, _ buffered: inout [UInt8]) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        func fill(_ count: Int) throws {
            while buffered.count < count {
                let n = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
                guard n > 0 else { throw ConnectionClosed() }
                buffered += chunk[0..<n]
            }
        }
        while true {
            try fill(2)
            var length = Int(buffered[1] & 0x7F), header = 2
            if length == 126 {
                try fill(4)
                (length, header) = (Int(buffered[2]) << 8 | Int(buffered[3]), 4)
            } else if length == 127 {
                try fill(10)
                (length, header) = (buffered[2..<10].reduce(0) { $0 << 8 | Int($1) }, 10)
            }
            try fill(header + length)
            let (first, payload) = (buffered[0], Array(buffered[header..<header + length]))
            buffered.removeFirst(header + length)
            if first & 0x0F == 0x1 {
                #expect(first & 0x80 != 0, "a fragmented message")
                return payload
            }
        }
    }

    /// One committed batch of a subscriber's 100 devices reaches it as one text frame holding
    /// all 100 — byte for byte the collection the read API writes for the fixes the store then
    /// holds, by device name — after a first frame of their latest positions (none yet).
    @Test(.onOwnThread) func live_oneBatchOf100Devices_isOneFrame_byteForByte() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            let names = (0..<100).map { "d\($0)" }
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let client = try TCPClient.connect(host: "127.0.0.1", port: port)
                defer { try? client.close() }
                try client.writeAll(Self.handshake(port, "/live?devices=" + names.joined(separator: ",")))
                var buffered = try Self.upgraded(client)
                #expect(try Self.textFrame(client, &buffered) == TrackOutput.geoJSON([]))
                let t = Double(Int(Date().timeIntervalSince1970) - 100)
                let fixes = try names.enumerated().map { i, name in
                    TrackedFix(device: name, location: Location(coordinate: try Coordinate(latitude: 48 + Double(i) / 1000, longitude: 11.25),
                                                                timestamp: Date(timeIntervalSince1970: t + Double(i) / 1000)), source: .osmAnd)
                }
                try await ingest.ingest(fixes, receivedAt: Date())
                var stored: [StoredFix] = []
                for name in names.sorted() { stored.append(try #require(try await store.latest(device: name))) }
                let frame = try Self.textFrame(client, &buffered)
                #expect(frame == TrackOutput.geoJSON(stored), "\(String(decoding: frame.prefix(300), as: UTF8.self))")
            }
            ingest.stop()
        }
    }

    /// A reading client gets the followed devices' latest positions, then each committed move;
    /// beside it a client that never reads: ingest of 60,000 fixes finishes with every fix
    /// stored, and that client's mailbox holds at most one fix per device (400), not the backlog.
    @Test(.onOwnThread) func live_latestFirst_thenUpdates_aClientThatNeverReadsDoesNotHoldIngest() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            let t = Int64(Date().timeIntervalSince1970) - 1000
            func fix(_ device: String, _ seconds: Int64, _ latitude: Double, _ longitude: Double) throws -> TrackedFix {
                TrackedFix(device: device, location: Location(coordinate: try Coordinate(latitude: latitude, longitude: longitude),
                                                              timestamp: Date(timeIntervalSince1970: Double(seconds))), source: .osmAnd)
            }
            try await ingest.ingest([try fix("d0", t, 48.25, 11.5)], receivedAt: Date())
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let stalled = try TCPClient.connect(host: "127.0.0.1", port: port)
                defer { try? stalled.close() }
                // A small receive buffer, as a stalled phone's: in the kernel's autotuned loopback
                // buffers (tcp_rmem: up to 32 MB on the CI machine) the whole stream of 60,000
                // updates fits, the socket never fills and the mailbox is never tested.
                var small: Int32 = 4096
                setsockopt(stalled.rawValue, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
                try stalled.writeAll(Self.handshake(port, "/live?bbox=-180,-90,180,90"))
                let reader = try TCPClient.connect(host: "127.0.0.1", port: port)
                defer { try? reader.close() }
                try reader.writeAll(Self.handshake(port, "/live?devices=d0,d7"))
                let first = try Self.read(reader, until: ["[11.5,48.25]"])
                #expect(first.hasPrefix("HTTP/1.1 101"), "\(first.prefix(80))")
                // 150 rounds of 400 devices; the last round puts d7 at (49.5, 12.25).
                let started = Date()
                for round in 0..<150 {
                    let fixes = try (0..<400).map { d in
                        round == 149 && d == 7 ? try fix("d7", t + 1 + Int64(round), 49.5, 12.25)
                            : try fix("d\(d)", t + 1 + Int64(round), 40 + Double(d) / 100, 10 + Double(round) / 1000)
                    }
                    try await ingest.ingest(fixes, receivedAt: Date())
                }
                let seconds = Date().timeIntervalSince(started)
                let updates = try Self.read(reader, until: ["[12.25,49.5]"])
                #expect(updates.contains("[12.25,49.5]"), "the reading client never got d7's last move")
                // The client that never reads was sent updates it holds unread. Whether the server's
                // write to it then blocks depends on the kernel's loopback buffers (its send buffer
                // autotunes up to tcp_wmem's 4 MB), so its mailbox is bounded, not necessarily full.
                var unread: Int32 = 0
                _ = ioctl(stalled.rawValue, UInt(FIONREAD), &unread)
                #expect(unread > 0, "the stalled client was sent nothing")
                let boxed = try #require(ingest.live.registry.withLock { Array($0.byBox.values) }.first)
                #expect(boxed.pending <= 400)
                #expect(seconds < 60, "60,000 fixes took \(seconds) s")
            }
            #expect(try await store.positions(device: "d123", from: 0, to: .max, limit: 1000).count == 150)
            ingest.stop()
        }
    }

    /// One address that took every `/live` place cannot keep another out: with 3 places,
    /// 127.0.0.2's fourth subscription is closed with 1013 (try again later), 127.0.0.1's first
    /// is admitted and 127.0.0.2's newest connection is closed so; 127.0.0.1's second, which
    /// would leave it holding more than 127.0.0.2's two, is refused so.
    @Test(.onOwnThread) func live_aFullServer_givesAnotherAddressAPlace_closingTheNewestOfTheAddressThatHoldsTheMost() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register, maximumLiveSubscribers: 3)
            try await TrackingServerTests.withServer(ingest) { port async throws in
                var held: [FileDescriptor] = []
                defer { for socket in held { try? socket.close() } }
                /// A subscription from `address`, upgraded; what follows the upgrade's head.
                func subscribe(from address: String) throws -> [UInt8] {
                    let socket = try TCPClient.connect(host: "127.0.0.1", port: port, from: address)
                    held.append(socket)
                    try socket.writeAll(Self.handshake(port, "/live?devices=car"))
                    return try Self.upgraded(socket)
                }
                /// Whether `socket` is sent a close frame (opcode 8) with code 1013 and then closed.
                func closedWith1013(_ socket: FileDescriptor, after buffered: [UInt8]) throws -> Bool {
                    var bytes = buffered, chunk = [UInt8](repeating: 0, count: 4096)
                    while true {
                        let n = try chunk.withUnsafeMutableBytes { try socket.read(into: $0) }
                        if n == 0 { break }
                        bytes += chunk[0..<n]
                    }
                    guard let close = bytes.firstIndex(of: 0x88), bytes.count >= close + 4 else { return false }
                    return Int(bytes[close + 2]) << 8 | Int(bytes[close + 3]) == 1013
                }
                for _ in 0..<3 {
                    var buffered = try subscribe(from: "127.0.0.2")
                    #expect(try Self.textFrame(held.last!, &buffered) == TrackOutput.geoJSON([]))
                }
                let fourth = try subscribe(from: "127.0.0.2")
                #expect(try closedWith1013(held[3], after: fourth))
                var buffered = try subscribe(from: "127.0.0.1")
                #expect(try Self.textFrame(held[4], &buffered) == TrackOutput.geoJSON([]))
                #expect(try closedWith1013(held[2], after: []), "127.0.0.2's newest gave its place")
                let second = try subscribe(from: "127.0.0.1")
                #expect(try closedWith1013(held[5], after: second))
                let metrics = try await TrackingServerTests.http(port, "GET", "/metrics").body
                #expect(metrics.contains("tracking_live_evicted_total 1\n") && metrics.contains("tracking_live_refused_total 2\n"), "\(metrics)")
                #expect(ingest.live.subscriberCount == 3)
            }
            ingest.stop()
        }
    }

    /// A bad subscription is refused before the upgrade (400; hummingbird-websocket sends it
    /// without a body).
    @Test func live_badQuery_400() async throws {
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let bad = try TCPClient.connect(host: "127.0.0.1", port: port)
                defer { try? bad.close() }
                try bad.writeAll(Self.handshake(port, "/live?bbox=1,2,3"))
                let reply = try Self.read(bad, until: ["\r\n\r\n"])
                #expect(reply.hasPrefix("HTTP/1.1 400"), "\(reply.prefix(120))")
            }
            ingest.stop()
        }
    }
}

/// How many times a subscriber's `whenDue` was called.
private final class Calls: Sendable {
    let count = Atomic<Int>(0)
}
