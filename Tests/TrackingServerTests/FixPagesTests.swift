import Foundation
import GeoTestSupport
import Synchronization
import SystemIO
import Testing
@testable import TrackingServer

/// The read API's paging (`FixPages`) on the default SQLite store: the pages join to the one
/// read of the range, fixes that share a fix time across a page's end are given once, and
/// a reply whose later page fails is broken, not short.
@Suite struct FixPagesTests {
    static let t0: Int64 = 1_767_225_600_000

    /// Fixes of `device` at `t0` + each of `seconds` (s), a payload each (one time may repeat).
    static func rows(_ device: String, _ seconds: [Int]) -> [StoredFix] {
        seconds.enumerated().map { k, s in
            StoredFix(device: device, fixTime: t0 + Int64(s) * 1000, payloadHash: Int64(k), latitude: 48 + Double(k) / 1000,
                      longitude: 2.5, receivedAt: 0, source: "osmand")
        }
    }

    static func all(_ pages: FixPages) async throws -> [[StoredFix]] {
        var pages = pages, all: [[StoredFix]] = []
        while let page = try await pages.next() { all.append(page) }
        return all
    }

    @Test func pages_joinToTheWholeRead_tiesAcrossAPageEndGivenOnce() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            // Pages of 3 end inside the runs of 2 s (three payloads), 5 s (two) and 7 s (five).
            let seconds = [0, 1, 2, 2, 2, 3, 4, 5, 5, 6, 7, 7, 7, 7, 7, 8, 9]
            #expect(try store.commit(Self.rows("car", seconds) + Self.rows("van", [1, 2])) == seconds.count + 2)
            let pages = try await Self.all(FixPages(store: store, device: "car", from: 0, to: .max, limit: 1000, size: 3))
            func key(_ f: StoredFix) -> [Int64] { [f.fixTime, f.payloadHash] }
            let joined = pages.joined().map(key)
            #expect(joined.map { $0[0] } == seconds.map { Self.t0 + Int64($0) * 1000 }, "in fix-time order")
            #expect(Set(joined).count == joined.count, "none given twice")
            #expect(joined.sorted { $0.lexicographicallyPrecedes($1) }
                    == (try store.positions(device: "car", from: 0, to: .max, limit: 1000)).map(key).sorted { $0.lexicographicallyPrecedes($1) })
            // A page holds at most 3, or one time's fixes when more share it (the five at 7 s).
            #expect(pages.map(\.count) == [2, 3, 2, 2, 1, 5, 2])

            // The limit, and a range's bounds (from included, to excluded).
            let limited = try await Self.all(FixPages(store: store, device: "car", from: 0, to: .max, limit: 7, size: 3))
            #expect(limited.joined().map(\.fixTime) == seconds.prefix(7).map { Self.t0 + Int64($0) * 1000 })
            let window = try await Self.all(FixPages(store: store, device: "car", from: Self.t0 + 2000, to: Self.t0 + 7000, limit: 1000, size: 2))
            #expect(window.joined().map(\.fixTime) == seconds.filter { (2..<7).contains($0) }.map { Self.t0 + Int64($0) * 1000 })
            #expect(try await Self.all(FixPages(store: store, device: "nobody", from: 0, to: .max, limit: 10, size: 3)).isEmpty)
        }
    }

    /// Each read after a full page ends at twice the time that page covered; a window that comes
    /// back short (dense fixes, then a gap of 1,000 s) is followed by a read to the range's end.
    @Test func readsAfterAFullPage_boundedToTwiceItsSpan() async throws {
        try await withTemporaryDirectory { dir in
            let store = try ReadFailingStore(path: dir.appendingPathComponent("t.sqlite").path)
            let gap = Array(0..<10) + Array(1000..<1006)
            #expect(try store.commit(Self.rows("gap", gap)) == gap.count)
            let pages = try await Self.all(FixPages(store: store, device: "gap", from: 0, to: .max, limit: 1000, size: 3))
            #expect(pages.joined().map(\.fixTime) == gap.map { Self.t0 + Int64($0) * 1000 })
            #expect(pages.allSatisfy { !$0.isEmpty && $0.count <= 3 })
            // In seconds after t0 (nil: to the range's end): pages of 3 a second apart span 2 s.
            let reads = store.reads.map { [($0.from - Self.t0) / 1000, $0.to == .max ? nil : ($0.to - Self.t0) / 1000] }
            let expected: [[Int64?]] = [[-Self.t0 / 1000, nil], [2, 6], [4, 8], [6, 10], [8, 12], [12, nil], [1002, 1006], [1004, 1008], [1008, nil]]
            #expect(reads == expected)
        }
    }

    /// A page's unsent rest (and a page read after it) given back is read again from its first fix time, none of it lost
    /// or given twice, in a page of twice the fixes sent since the last give-back (at least
    /// 256), the pages then doubling back to the size asked for.
    @Test func giveBack_readsAgainFromTheUnsentTime_inPagesOfWhatWasTaken() async throws {
        try await withTemporaryDirectory { dir in
            let store = try ReadFailingStore(path: dir.appendingPathComponent("t.sqlite").path)
            // 3,000 fixes two to a second.
            let seconds = (0..<3000).map { $0 / 2 }
            #expect(try store.commit(Self.rows("car", seconds)) == seconds.count)
            var pages = FixPages(store: store, device: "car", from: 0, to: .max, limit: 10_000, size: 1000)
            var taken: [StoredFix] = [], round = 0
            // A page of 1,000 less the two at its last time (left to the next read).
            let first = try #require(try await pages.next())
            #expect(first.count == 998)
            // 300 taken (150 whole seconds); the rest given back with the page read after it
            // (as a reply gives back the page it read ahead).
            taken += first[..<300]
            let second = try #require(try await pages.next())
            pages.giveBack(first[300...], second[...])
            while let page = try await pages.next() {
                round += 1
                // The next page given back whole, none of it taken.
                if round == 1 { pages.giveBack(page[...]) } else { taken += page }
            }
            #expect(taken.map(\.fixTime) == seconds.map { Self.t0 + Int64($0) * 1000 })
            #expect(Set(taken.map(\.payloadHash)).count == seconds.count, "none given twice")
            // Page sizes asked: 1,000 twice; 600 (twice 300); after nothing taken 256; then doubling.
            let limits = store.reads.map(\.limit)
            #expect(Array(limits.prefix(6)) == [1000, 1000, 600, 256, 512, 1000], "\(limits)")
            #expect(store.reads[2].from == Self.t0 + 150_000 && store.reads[3].from == Self.t0 + 150_000)
        }
    }

    /// The read API over HTTP: a device's fixes, two pages of the store's size, read back whole;
    /// storage down at the first page is a 503; down at the second, after the reply's head, the
    /// reply ends without its last chunk.
    @Test func readAPI_streamsPages_aFailedLaterPageBreaksTheReply() async throws {
        try await withTemporaryDirectory { dir in
            let store = try ReadFailingStore(path: dir.appendingPathComponent("t.sqlite").path)
            let n = store.readPageSize + 1000
            #expect(try store.commit(Self.rows("car", Array(0..<n))) == n)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            defer { ingest.stop() }
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let whole = try await TrackingServerTests.http(port, "GET", "/api/positions?device=car")
                #expect(whole.status == 200)
                let features = try #require(try JSONSerialization.jsonObject(with: Data(whole.body.utf8)) as? [String: Any])["features"] as? [[String: Any]]
                #expect(features?.count == n)
                #expect(whole.body == String(decoding: TrackOutput.geoJSON(try store.inner.positions(device: "car", from: 0, to: .max, limit: n)), as: UTF8.self))

                store.failing(fromRead: 1)
                let down = try await TrackingServerTests.http(port, "GET", "/api/positions?device=car")
                #expect(down.status == 503 && down.body.hasPrefix("storage unavailable"))

                store.failing(fromRead: 2)
                await #expect(throws: LoopbackHTTP.ChunkError.self) {
                    try await TrackingServerTests.http(port, "GET", "/api/positions?device=car")
                }
                #expect(ingest.metrics.text().contains("tracking_broken_replies_total 1"))
            }
        }
    }

    /// A client that takes nothing of a long reply for a while: the reply
    /// gives its page back while it waits (counted), which shows as a read that begins before
    /// the last fix of the page read before it; read then, the reply is the whole track, nothing lost or given twice.
    @Test func readAPI_aClientThatTakesNothing_hasThePageGivenBack_thenGetsTheWholeTrack() async throws {
        try await withTemporaryDirectory { dir in
            let store = try ReadFailingStore(path: dir.appendingPathComponent("t.sqlite").path)
            // 13 MB of GeoJSON: more than the kernel's buffers take from a client that reads
            // nothing (a send buffer of at most tcp_wmem's 4 MB; a receive buffer that grows only
            // as its client reads: shrunk with SO_RCVBUF after the connect, the window stalled
            // the reading for minutes). Eight pages of 8,192.
            let n = 65_536
            #expect(try store.commit(Self.rows("car", Array(0..<n))) == n)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            defer { ingest.stop() }
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let client = try TCPClient.connect(host: "127.0.0.1", port: port)
                defer { try? client.close() }
                try client.writeAll("GET /api/positions?device=car HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                // Counted again each time the kernel's send buffer, autotuned, took a little more.
                try await Self.waitFor { Self.counter(ingest, "tracking_stalled_replies_total") > 0 }
                let whole = try store.inner.positions(device: "car", from: 0, to: .max, limit: n)
                #expect(try await Self.body(readToEnd: client) == String(decoding: TrackOutput.geoJSON(whole), as: UTF8.self))
                #expect(zip(store.reads.dropFirst(), store.lastTimes).contains { $0.from < $1 ?? .min },
                        "no read began before the last fix of the page before it: \(store.reads.map(\.from)), \(store.lastTimes)")
            }
        }
    }
    /// As many clients as whole tracks may be read at once ask for a device's cleaned track and
    /// take nothing: a read behind them is answered while they wait (their replies let go of
    /// their turns and bytes, counted), and then each of them, reading, gets the whole track,
    /// made again.
    @Test func readAPI_clientsThatTakeNothing_letGoOfTheirTurns_thenGetTheWholeTrackMadeAgain() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            // A drive north at 10 m/s, fixes of 5 m: 12 MB of GeoJSON cleaned, more than the
            // kernel's buffers take from a client that reads nothing.
            let n = 65_536
            let walk = (0..<n).map { k in
                StoredFix(device: "car", fixTime: Self.t0 + Int64(k) * 1000, payloadHash: Int64(k), latitude: 48 + Double(k) * 9e-5,
                          longitude: 2.5, accuracy: 5, receivedAt: 0, source: "osmand")
            }
            #expect(try store.commit(walk) == n)
            let cleaned = String(decoding: TrackOutput.geoJSON(TrackViews.cleaned(walk)), as: UTF8.self)
            #expect(cleaned.utf8.count > 10_000_000)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            defer { ingest.stop() }
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let target = "/api/positions?device=car&track=cleaned"
                let stalled = try (0..<ingest.readTurns.wholeTracks.maximum).map { _ in
                    let client = try TCPClient.connect(host: "127.0.0.1", port: port)
                    try client.writeAll("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                    return client
                }
                defer { for client in stalled { try? client.close() } }
                try await Self.waitFor { Self.counter(ingest, "tracking_stalled_replies_total") >= stalled.count }
                // Waits for a turn until a stalled reply lets go of one; were none let go of,
                // until the idle timeout closed a stalled client, whose read below then fails.
                let behind = try await TrackingServerTests.http(port, "GET", target)
                #expect(behind.status == 200 && behind.body == cleaned)
                #expect(Self.counter(ingest, "tracking_remade_replies_total") == 0)
                // All of them read at once: one after another, the last waited out the others'
                // tracks made again without taking a byte, and on a slow machine outlived the
                // idle timeout (30 s without progress), which closed it mid-reply (CI, 2026-12-07).
                let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                    for client in stalled { group.addTask { try await Self.body(readToEnd: client) } }
                    return try await group.reduce(into: [String]()) { $0.append($1) }
                }
                #expect(bodies.count == stalled.count && bodies.allSatisfy { $0 == cleaned })
                #expect(Self.counter(ingest, "tracking_remade_replies_total") >= 1)
                #expect(Self.counter(ingest, "tracking_broken_replies_total") == 0)
            }
        }
    }

    /// A client that asks for many cleaned tracks at once, from its own address, waits in a
    /// line of its own for whole-track turns (`Turns`): the read API keys turns by the
    /// client's address. With every turn held, one client's three reads and another's one wait
    /// as two clients; let go of, all four are answered whole.
    @Test func readAPI_turnsWaitInALinePerClientAddress() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let walk = (0..<600).map { k in
                StoredFix(device: "car", fixTime: Self.t0 + Int64(k) * 1000, payloadHash: Int64(k), latitude: 48 + Double(k) * 9e-5,
                          longitude: 2.5, accuracy: 5, receivedAt: 0, source: "osmand")
            }
            #expect(try store.commit(walk) == walk.count)
            let ingest = try await TrackingIngest(store: store, policy: .register)
            defer { ingest.stop() }
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let turns = ingest.readTurns.wholeTracks
                var held: [Turn] = []
                for _ in 0..<turns.maximum { held.append(await turns.turn()) }
                let target = "/api/positions?device=car&track=cleaned"
                let clients = try ["127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.1"].map { address in
                    let client = try TCPClient.connect(host: "127.0.0.1", port: port, from: address)
                    try client.writeAll("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
                    return client
                }
                defer { for client in clients { try? client.close() } }
                try await Self.waitFor { turns.waiting == clients.count }
                #expect(turns.waitingClients == 2)
                for turn in held { turn.end() }
                let cleaned = String(decoding: TrackOutput.geoJSON(TrackViews.cleaned(walk)), as: UTF8.self)
                for client in clients { #expect(try await Self.body(readToEnd: client) == cleaned) }
            }
        }
    }

    /// The value of a counter without labels in the server's `/metrics`.
    static func counter(_ ingest: TrackingIngest, _ name: String) -> Int {
        ingest.metrics.text().split(separator: "\n").first { $0.hasPrefix(name + " ") }
            .flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    }

    /// Returns once `condition` holds, or after 120 s (the test's expectations then fail). Not
    /// 20 s: four cleaned tracks of 65,536 fixes made at once took longer to stall on a machine
    /// building at half the speed of others (CI, 2026-12-07).
    static func waitFor(_ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(120)
        while !condition(), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(condition())
    }

    /// The content of the chunked reply `client` reads to its end (on a thread of its own).
    static func body(readToEnd client: FileDescriptor) async throws -> String {
        let reply = try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try client.readToEnd(limit: 1 << 25) }) }.start()
        }
        let text = String(decoding: reply, as: UTF8.self)
        let body = try #require(text.range(of: "\r\n\r\n")).upperBound
        return try LoopbackHTTP.dechunked(String(text[body...]))
    }
}

/// SQLite underneath; reads of positions are recorded, and fail from the chosen one on (storage
/// down mid-reply).
final class ReadFailingStore: SQLiteBackedStore, @unchecked Sendable {
    private let state = Mutex((done: 0, failFrom: Int.max, ranges: [(from: Int64, to: Int64, limit: Int)](), lastTimes: [Int64?]()))

    /// Reads from the `n`th after this call on (1: the next) fail.
    func failing(fromRead n: Int) { state.withLock { $0.done = 0; $0.failFrom = n } }
    /// The (from, to, limit) of every read of positions, in order.
    var reads: [(from: Int64, to: Int64, limit: Int)] { state.withLock { $0.ranges } }
    /// The last fix time of every read that succeeded (nil: none found), in order.
    var lastTimes: [Int64?] { state.withLock { $0.lastTimes } }

    override func positions(device: String, from: Int64, to: Int64, limit: Int) async throws -> [StoredFix] {
        let fails = state.withLock { state in
            state.done += 1
            state.ranges.append((from, to, limit))
            return state.done >= state.failFrom
        }
        if fails { throw GatedStore.Down() }
        let fixes = try await super.positions(device: device, from: from, to: to, limit: limit)
        state.withLock { $0.lastTimes.append(fixes.last?.fixTime) }
        return fixes
    }
}

/// `Turns`: at most `maximum` at once; a `Turn` let go of ends, and a waiting caller takes it;
/// a turn at once (`turnIfFree`) only when one is free.
@Test func turns_atMostTheMaximum_aTurnLetGoOfEnds() async throws {
    let turns = Turns(maximum: 2)
    var held = [await turns.turn()]
    held.append(try #require(turns.turnIfFree()))
    #expect(turns.turnIfFree() == nil && turns.running == 2)
    let third = Task { await turns.turn() }
    try await Task.sleep(for: .milliseconds(100))
    #expect(turns.running == 2, "a third turn while two were held")
    #expect(turns.waiting == 1)
    held.removeLast()
    held.append(await third.value)
    #expect(turns.running == 2)
    held[0].end()
    held[0].end()
    #expect(turns.running == 1, "a turn ended twice")
    held[1].end()
    #expect(turns.running == 0)
}

/// `Turns` serves the clients that wait in rotation, each client's callers in order: a client
/// that asked after another's four waits for one of them, not all four.
@Test func turns_waitingClientsServedInRotation() async throws {
    let turns = Turns(maximum: 1)
    let held = await turns.turn()
    final class Order: Sendable { let callers = Mutex<[String]>([]) }
    let order = Order()
    var callers: [Task<Void, Never>] = []
    for (client, caller) in [("a", "a1"), ("a", "a2"), ("a", "a3"), ("a", "a4"), ("b", "b1"), ("a", "a5")] {
        let waiting = turns.waiting
        callers.append(Task {
            await turns.take(for: client)
            order.callers.withLock { $0.append(caller) }
            turns.end()
        })
        while turns.waiting == waiting { try await Task.sleep(for: .milliseconds(5)) }
    }
    #expect(turns.waiting == 6 && turns.waitingClients == 2)
    held.end()
    for caller in callers { await caller.value }
    #expect(order.callers.withLock { $0 } == ["a1", "b1", "a2", "a3", "a4", "a5"])
    #expect(turns.running == 0 && turns.waiting == 0 && turns.waitingClients == 0)
}
