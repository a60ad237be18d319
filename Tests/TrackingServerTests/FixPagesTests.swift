import Foundation
import GeoTestSupport
import Synchronization
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
                await #expect(throws: TrackingServerTests.ChunkError.self) {
                    try await TrackingServerTests.http(port, "GET", "/api/positions?device=car")
                }
                #expect(ingest.metrics.text().contains("tracking_broken_replies_total 1"))
            }
        }
    }
}

/// SQLite underneath; reads of positions are recorded, and fail from the chosen one on (storage
/// down mid-reply).
final class ReadFailingStore: SQLiteBackedStore, @unchecked Sendable {
    private let state = Mutex((done: 0, failFrom: Int.max, ranges: [(from: Int64, to: Int64)]()))

    /// Reads from the `n`th after this call on (1: the next) fail.
    func failing(fromRead n: Int) { state.withLock { $0.done = 0; $0.failFrom = n } }
    /// The (from, to) of every read of positions, in order.
    var reads: [(from: Int64, to: Int64)] { state.withLock { $0.ranges } }

    override func positions(device: String, from: Int64, to: Int64, limit: Int) async throws -> [StoredFix] {
        let fails = state.withLock { state in
            state.done += 1
            state.ranges.append((from, to))
            return state.done >= state.failFrom
        }
        if fails { throw GatedStore.Down() }
        return try await super.positions(device: device, from: from, to: to, limit: limit)
    }
}
