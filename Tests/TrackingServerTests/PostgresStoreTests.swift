import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import NIOCore
import PostgresNIO
import Synchronization
import Testing
import TrackingProtocols
@testable import TrackingServer

/// `PostgresLocation`: the `--postgres` URL, and its bad forms as typed errors naming the URL.
@Suite struct PostgresLocationTests {
    @Test func url_parts_andBadForms() throws {
        let l = try PostgresLocation(url: "postgres://alice:s%40cret@127.0.0.1:6543/tracks")
        #expect(l.host == "127.0.0.1" && l.port == 6543 && l.user == "alice" && l.password == "s@cret" && l.database == "tracks")
        #expect(l.description == "postgres://alice@127.0.0.1:6543/tracks") // no password
        #expect(try PostgresLocation(url: "postgresql://bob@[::1]/db").host == "::1")
        #expect(try PostgresLocation(url: "postgresql://bob@[::1]/db").port == 5432)
        for bad in ["http://u@h/db", "postgres://h:5432/db", "postgres://u@h:5432/", "postgres://u@h/db?sslmode=require", "not a url"] {
            #expect {
                _ = try PostgresLocation(url: bad)
            } throws: { error in
                (error as? PostgresStoreError)?.code == .badURL && (error as? PostgresStoreError)?.location.contains(bad) == true
            }
        }
    }

    /// Partitions are named by their UTC day: 1,764,288,000,000 ms is 2025-11-28T00:00Z.
    @Test func partitionNames_areUTCDays() {
        #expect(PostgresPositionStore.partitionName(day: 1_764_288_000_000 / 86_400_000) == "positions_d20251128")
        #expect(PostgresPositionStore.partitionName(day: 0) == "positions_d19700101")
        #expect(PostgresPositionStore.partitionName(day: 11_016) == "positions_d20000229") // a leap day
        #expect(PostgresPositionStore.partitionName(day: 11_017) == "positions_d20000301")
        #expect(FixDay.of(-1) == -1)
        #expect(PostgresPositionStore.day(ofPartition: "positions_d20000229") == 11_016 && PostgresPositionStore.day(ofPartition: "positions") == nil)
        #expect(PostgresPositionStore.partitionName(day: -1) == "positions_d19691231")
    }
}

/// A value several tasks update under a lock (a `Mutex` cannot be captured by their closures).
final class Shared<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// The PostgreSQL store against a real PostgreSQL 15 the test starts itself.
@Suite struct PostgresStoreTests {
    static let nowSeconds = Int(Date().timeIntervalSince1970)

    static func fix(_ device: String, _ seconds: Int, latitude: Double = 52.5, longitude: Double = 13.4) throws -> TrackedFix {
        TrackedFix(device: device, location: Location(coordinate: try Coordinate(latitude: latitude, longitude: longitude),
                                                      timestamp: Date(timeIntervalSince1970: Double(seconds))), source: .osmAnd)
    }

    /// A batch over HTTP and directly: read back field by field, a retried request adds no row,
    /// an older fix arriving later is stored without moving `latest`; the schema is partitioned
    /// by day with the BRIN and unique indexes, and `latest` has fillfactor 50 (set again at open).
    @Test func batch_readBack_retryNotDuplicated_latestNeverMovesBack() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            let ingest = try await TrackingIngest(store: store, policy: .register)
            let t = Self.nowSeconds - 100
            let batch = try (0..<500).map { i in try Self.fix("d\(i % 50)", t - 1000 + i / 50, latitude: 10 + Double(i) / 1000) }
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let query = "/?id=car&lat=52.5&lon=13.4&timestamp=\(t)&speed=5&altitude=34.5&hdop=2"
                #expect(try await TrackingServerTests.http(port, "GET", query).status == 200)
                #expect(try await TrackingServerTests.http(port, "GET", query).status == 200) // a retry: acknowledged, not duplicated
                #expect(try await TrackingServerTests.http(port, "GET", "/?id=car&lat=52.6&lon=13.4&timestamp=\(t - 50)").status == 200)
                let geo = try await TrackingServerTests.http(port, "GET", "/api/positions?device=car")
                #expect(geo.status == 200 && geo.body.contains("[13.4,52.6]") && geo.body.contains("[13.4,52.5]"))
                // 500 fixes of 50 devices in one go, then the same again: 500 rows, not 1,000.
                try await ingest.ingest(batch, receivedAt: Date())
                try await ingest.ingest(batch, receivedAt: Date())
                // A device row removed under the running server (as by a replaced database): the
                // batch naming it fails whole and is not acknowledged; the retry registers it again.
                try await ingest.ingest([try Self.fix("lost", t - 20)], receivedAt: Date())
                _ = try await pg.psql("DELETE FROM devices WHERE name = 'lost'")
                let lost = try Self.fix("lost", t - 10)
                await #expect(throws: IngestError.self) { try await ingest.ingest([lost, try Self.fix("car", t - 10)], receivedAt: Date()) }
                #expect(try await store.count(device: "car", fixTime: Int64(t - 10) * 1000) == 0)
                try await ingest.ingest([lost], receivedAt: Date())
                #expect(try await store.count(device: "lost", fixTime: Int64(t - 10) * 1000) == 1)
            }
            #expect(try await store.count(device: "car", fixTime: Int64(t) * 1000) == 1)
            let latest = try #require(try await store.latest(device: "car"))
            #expect(latest.fixTime == Int64(t) * 1000 && latest.latitude == 52.5 && latest.speed == 5 && latest.altitude == 34.5)
            let history = try await store.positions(device: "car", from: 0, to: .max, limit: 10)
            #expect(history.map(\.fixTime) == [Int64(t - 50) * 1000, Int64(t) * 1000])
            #expect(history[0].speed == nil && history[0].altitude == nil && history[0].source == "osmand")

            for d in [0, 17, 49] {
                let rows = try await store.positions(device: "d\(d)", from: 0, to: .max, limit: 100)
                #expect(rows.count == 10)
                #expect(rows.map(\.fixTime) == (0..<10).map { Int64(t - 1000 + $0) * 1000 })
                #expect(try await store.latest(device: "d\(d)")?.fixTime == Int64(t - 991) * 1000)
            }
            // Many devices in one read, by name; a device without a fix is left out.
            let several = try await store.latest(devices: ["d49", "nobody", "car", "d0"])
            #expect(several.map(\.device) == ["car", "d0", "d49"] && several.map(\.fixTime) == [Int64(t) * 1000] + [Int64(t - 991) * 1000, Int64(t - 991) * 1000])
            #expect(try await pg.psql("SELECT count(*) FROM positions").trimmingCharacters(in: .whitespacesAndNewlines) == "504")
            #expect(ingest.metrics.text().contains("tracking_duplicate_fixes_total 501"))
            let day = Int64(t) * 1000 / FixDay.milliseconds
            let partitions = try await pg.psql("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'positions'")
            #expect(partitions.contains(PostgresPositionStore.partitionName(day: day)))
            let indexes = try await pg.psql("SELECT indexdef FROM pg_indexes WHERE tablename = 'positions'")
            #expect(indexes.contains("USING brin (fix_time)") && indexes.contains("UNIQUE INDEX") && indexes.contains("(device_id, fix_time, payload_hash)"))
            // `latest` half filled, also on a database made before that: `open` sets it.
            let fillfactor = "SELECT reloptions FROM pg_class WHERE relname = 'latest'"
            #expect(try await pg.psql(fillfactor).contains("fillfactor=50"))
            _ = try await pg.psql("ALTER TABLE latest RESET (fillfactor)")
            #expect(try await !pg.psql(fillfactor).contains("fillfactor"))
            try await PostgresPositionStore.open(url: pg.url).close()
            #expect(try await pg.psql(fillfactor).contains("fillfactor=50"))
        }
    }

    /// The store's two concurrent commits (`concurrentCommits`) never deadlock: 20 times, two
    /// threads commit the same 400 rows of known devices at once, in opposite orders — each key
    /// is stored once, every commit succeeds (PostgreSQL would abort one of two transactions
    /// waiting for each other's keys, SQLSTATE 40P01). Batches that register devices wait for
    /// each other's registration whole, so the devices are registered before the rounds.
    @Test func concurrentCommits_sameRowsInOppositeOrders_neitherDeadlocks() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            #expect(store.concurrentCommits == 2)
            let t = Int64(Self.nowSeconds - 100) * 1000
            let fix = { (device: Int, time: Int64) in
                StoredFix(device: "d\(device)", fixTime: time, payloadHash: 7, latitude: 1, longitude: 2, receivedAt: t, source: "osmand")
            }
            #expect(try store.commit((0..<400).map { fix($0, t - 1000) }) == 400)
            for round in 1...20 {
                let rows = (0..<400).map { fix($0, t + Int64(round) * 1000) }
                let inserted = Shared<[Result<Int, any Error>]>([])
                let start = DispatchSemaphore(value: 0)
                let threads = [rows, rows.reversed()].map { batch in
                    Thread {
                        start.wait()
                        let result = Result { try store.commit(batch) }
                        inserted.withLock { $0.append(result) }
                    }
                }
                for thread in threads { thread.start() }
                start.signal(); start.signal()
                try await Self.waitUntil("both commits") { inserted.withLock { $0.count } == 2 }
                let results = inserted.withLock { $0 }.map { try? $0.get() }
                #expect(results.allSatisfy { $0 != nil }, "round \(round): \(inserted.withLock { $0 })")
                #expect(results.compactMap { $0 }.reduce(0, +) == 400, "round \(round): \(results)")
            }
            #expect(try await pg.psql("SELECT count(*) FROM positions").trimmingCharacters(in: .whitespacesAndNewlines) == "8400")
            #expect(try await store.latest(device: "d399")?.fixTime == t + 20_000)
        }
    }

    /// 200 reads at once (as 200 `/live` subscribers' first reads) beside 20 commits, on a
    /// PostgreSQL that takes 12 connections (`max_connections`): the reads take turns on at most
    /// `maximumReads` connections (8), the writer keeps its own, and every read and commit
    /// succeeds. Before the bound each read opened a connection: "53300: sorry, too many clients
    /// already" for the reads past 12 and for the commits that then needed a connection.
    @Test func manyReadsAtOnce_takeTurns_withinMaxConnections() async throws {
        _ = try await PostgresTestServer.with { pg in
            _ = try await pg.psql("ALTER SYSTEM SET max_connections = 12")
            try await pg.stop(mode: "fast")
            try await pg.start()
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            let t = Int64(Self.nowSeconds - 100) * 1000
            let fix = { @Sendable (device: Int, time: Int64) in
                StoredFix(device: "d\(device)", fixTime: time, payloadHash: 7, latitude: 1, longitude: 2, receivedAt: t, source: "osmand")
            }
            #expect(try store.commit((0..<200).map { fix($0, t - 1000) }) == 200)
            let commits = Shared<[Result<Int, any Error>]>([])
            let writer = Thread {
                for round in 1...20 {
                    let result = Result { try store.commit((0..<200).map { fix($0, t + Int64(round) * 100) }) }
                    commits.withLock { $0.append(result) }
                }
            }
            writer.start()
            let reads = await withTaskGroup(of: Result<StoredFix?, any Error>.self) { group in
                for device in 0..<200 {
                    group.addTask { do { return .success(try await store.latest(device: "d\(device)")) } catch { return .failure(error) } }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            try await Self.waitUntil("the 20 commits") { commits.withLock { $0.count } == 20 }
            let failedReads = reads.filter { (try? $0.get()) == nil }
            #expect(failedReads.count == 0, "\(failedReads.count) of 200 reads failed: \(failedReads.prefix(2))")
            let failedCommits = commits.withLock { $0 }.filter { (try? $0.get()) == nil }
            #expect(failedCommits.count == 0, "\(failedCommits.count) of 20 commits failed: \(failedCommits.prefix(2))")
        }
    }

    /// Noon (UTC) of `day`, in milliseconds since 1970, and a fix of `device` then.
    static func noonFix(_ device: String, day: Int64) -> StoredFix {
        StoredFix(device: device, fixTime: day * FixDay.milliseconds + FixDay.milliseconds / 2, payloadHash: 1, latitude: 1, longitude: 2,
                  receivedAt: 0, source: "osmand")
    }

    /// `FenceTests.latestEvents_perDeviceAndFence` on PostgreSQL (`DISTINCT ON (device, fence)`).
    @Test func latestEvents_ofSeveralDevices() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            try FenceTests.latestEvents_perDeviceAndFence(store)
        }
    }

    /// `FenceTests.add_refusesWhatDoesNotFollow` on PostgreSQL (under the events' advisory lock).
    @Test func addEvents_refusesWhatDoesNotFollow() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            try FenceTests.add_refusesWhatDoesNotFollow(store)
        }
    }

    /// Two instances' stores propose each crossing at once, each decided at a fix of its own
    /// (1 ms apart), 100 rounds of an enter, then an exit: one of each pair is stored, so the
    /// events alternate enter, exit, whichever instance won each race. The advisory lock makes
    /// the reading of the latest event and the insert one step; without it both read the same
    /// latest event and both stored.
    @Test func addEvents_twoInstancesAtOnce_eachCrossingStoredOnce() async throws {
        _ = try await PostgresTestServer.with { pg in
            let one = try await PostgresPositionStore.open(url: pg.url), other = try await PostgresPositionStore.open(url: pg.url)
            defer { one.close(); other.close() }
            func proposed(_ store: PostgresPositionStore, _ kind: FenceEvent.Kind, _ time: Int64) -> Task<Int, any Error> {
                Task.detached { try store.add(events: [FenceEvent(device: "walker", fence: "park", kind: kind, time: time, latitude: 48.1, longitude: 2.1)]).count }
            }
            let kinds = (0..<100).map { $0 % 2 == 0 ? FenceEvent.Kind.enter : .exit }
            for (round, kind) in kinds.enumerated() {
                let time = Int64(round) * 10_000
                let (a, b) = (proposed(one, kind, time), proposed(other, kind, time + 1))
                let stored = try await a.value + b.value
                #expect(stored == 1, "round \(round): \(stored) stored")
            }
            #expect(try await one.events(device: "walker", from: .min, to: .max, limit: 1_000).map(\.kind) == kinds)
        }
    }

    /// Retention drops the partitions of the days before the cut, whole, and nothing after it;
    /// `latest` stays; a late fix of a dropped day is stored again (its partition made anew,
    /// not assumed to exist).
    @Test func removeDays_dropsOlderPartitions_keepsLatest_lateFixStoredAgain() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            let today = FixDay.of(Int64(Self.nowSeconds) * 1000)
            let rows = (0...3).map { Self.noonFix("a", day: today - $0) }
            #expect(try store.commit(rows) == 4)
            try await store.removeDays(before: today - 1)
            #expect(try await store.positions(device: "a", from: 0, to: .max, limit: 10).map(\.fixTime) == [rows[1].fixTime, rows[0].fixTime])
            let tables = try await pg.psql("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent WHERE p.relname = 'positions' ORDER BY 1")
            #expect(tables.split(separator: "\n").map(String.init) == [today - 1, today].map { PostgresPositionStore.partitionName(day: $0) })
            #expect(try await store.latest(device: "a")?.fixTime == rows[0].fixTime)
            #expect(try store.commit([rows[3]]) == 1)
            #expect(try await store.count(device: "a", fixTime: rows[3].fixTime) == 1)
        }
    }

    /// Waits for `condition`, looking every 20 ms; throws after `limit`, so that a run whose
    /// requests stopped coming fails instead of waiting for ever.
    static func waitUntil(_ what: String, within limit: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
        let end = ContinuousClock.now.advanced(by: limit)
        while try await !condition() {
            if ContinuousClock.now >= end { throw WaitedTooLong(what: what, limit: limit) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    struct WaitedTooLong: Error, CustomStringConvertible {
        var what: String
        var limit: Duration
        var description: String { "waited \(limit) for \(what)" }
    }

    /// `pg_ctl stop -m immediate` (a crash) under load from 20 devices: while the database is
    /// down every request gets 503, none an ack; every acknowledged fix is stored exactly once;
    /// after `pg_ctl start` acknowledgements resume on the same store.
    @Test func databaseStoppedMidIngest_503_noAckUnstored_resumesAfterRestart() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url, deadline: .seconds(2))
            defer { store.close() }
            let ingest = try await TrackingIngest(store: store, policy: .register)
            // A request is "down" when the phase was .down both when it was sent and when it was answered.
            enum Phase: Sendable { case up, down, restarting, restarted }
            struct Outcome: Sendable { var acked: [(String, Int, Phase)] = []; var refused: [(String, Int, Phase)] = []; var other: [Int] = [] }
            let phase = Shared(Phase.up)
            let outcome = Shared(Outcome())
            let t0 = Self.nowSeconds - 3600
            try await TrackingServerTests.withServer(ingest) { port async throws in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for d in 0..<20 {
                        group.addTask {
                            var i = 0
                            while i < 2000 {
                                let before = phase.withLock { $0 }
                                let status = try await TrackingServerTests.http(port, "GET", "/?id=dev\(d)&lat=1&lon=\(Double(d))&timestamp=\(t0 + i)").status
                                let after = phase.withLock { $0 }
                                let now: Phase = before == .down && after != .down ? .restarting : before
                                outcome.withLock { o in
                                    switch status {
                                    case 200: o.acked.append(("dev\(d)", t0 + i, now))
                                    case 503: o.refused.append(("dev\(d)", t0 + i, now))
                                    default: o.other.append(status)
                                    }
                                }
                                if now == .restarted, status == 200, outcome.withLock({ o in o.acked.filter { $0.2 == .restarted }.count >= 100 }) { return }
                                i += 1
                                try await Task.sleep(for: .milliseconds(5))
                            }
                        }
                    }
                    group.addTask {
                        try await Self.waitUntil("200 acknowledgements before the stop") { outcome.withLock { $0.acked.count } >= 200 }
                        try await pg.stop(mode: "immediate")
                        phase.withLock { $0 = .down }
                        let refusedBefore = outcome.withLock { $0.refused.count }
                        // Down for as long as it takes 40 requests to be refused, and 1 s at least.
                        try await Task.sleep(for: .seconds(1))
                        try await Self.waitUntil("40 refusals while stopped") { outcome.withLock { $0.refused.count } >= refusedBefore + 40 }
                        phase.withLock { $0 = .restarting }
                        try await pg.start()
                        phase.withLock { $0 = .restarted }
                    }
                    try await group.waitForAll()
                }
            }
            ingest.stop()
            let o = outcome.withLock { $0 }
            #expect(o.other.isEmpty, "statuses other than 200 and 503: \(Set(o.other))")
            #expect(!o.acked.contains { $0.2 == .down }, "acknowledged while the database was stopped")
            #expect(o.refused.contains { $0.2 == .down })
            #expect(o.acked.filter { $0.2 == .restarted }.count >= 100, "ingest did not resume after the restart")
            // What was acknowledged is stored exactly once (PostgreSQL recovered it from its WAL).
            let reader = try await PostgresPositionStore.open(url: pg.url, createSchema: false)
            defer { reader.close() }
            var missing = 0, duplicated = 0
            for (device, seconds, _) in o.acked {
                let n = try await reader.count(device: device, fixTime: Int64(seconds) * 1000)
                if n == 0 { missing += 1 } else if n > 1 { duplicated += 1 }
            }
            #expect(missing == 0 && duplicated == 0, "of \(o.acked.count) acknowledged: \(missing) missing, \(duplicated) duplicated")
        }
    }
}

/// The device history read (`positions(device:…)`, one row of arrays) against PostgreSQL.
@Suite struct PostgresHistoryTests {
    static let now = Int64(Date().timeIntervalSince1970) * 1000

    /// Every column comes back as committed, NULLs as nil (not 0 or NaN), extremes exactly; a
    /// device's fixes across two days' partitions, committed out of order, come back by fix
    /// time, windowed by `[from, to)` and cut at `limit`; an unknown device reads as none.
    @Test func columns_nulls_order_window_limit() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            let bare = StoredFix(device: "bare", fixTime: Self.now - 90_000, payloadHash: -7, latitude: -33.868_820_123_456_7,
                                 longitude: 151.209_295_987_654_3, receivedAt: Self.now - 1, source: "gpslogger")
            let full = StoredFix(device: "full", fixTime: Self.now - 80_000, payloadHash: .max, latitude: 89.999_999_9, longitude: -179.999_999_9,
                                 altitude: -412.25, accuracy: 0.5, speed: 0, course: 359.875, receivedAt: Self.now, source: "overland")
            #expect(try store.commit([bare, full]) == 2)
            #expect(try await store.positions(device: "bare", from: 0, to: .max, limit: 10) == [bare])
            #expect(try await store.positions(device: "full", from: 0, to: .max, limit: 10) == [full])
            #expect(try await store.positions(device: "nobody", from: 0, to: .max, limit: 10).isEmpty)

            // 3,000 fixes a second apart across yesterday's end, committed in a shuffled order
            // in three batches; two of them share a time with different payloads.
            let midnight = Self.now / FixDay.milliseconds * FixDay.milliseconds
            var times = (0..<3_000).map { midnight - 1_500_000 + Int64($0) * 1000 }
            var rows = times.enumerated().map { i, t in
                StoredFix(device: "walker", fixTime: t, payloadHash: Int64(i), latitude: 48 + Double(i) * 1e-5, longitude: 2,
                          speed: i % 2 == 0 ? nil : 1.5, receivedAt: Self.now, source: "osmand")
            }
            rows.append(StoredFix(device: "walker", fixTime: times[10], payloadHash: -1, latitude: 0, longitude: 0, receivedAt: Self.now, source: "osmand"))
            times.append(times[10])
            times.sort()
            var shuffled = rows
            shuffled.shuffle()
            for part in stride(from: 0, to: shuffled.count, by: 1_000) { _ = try store.commit(Array(shuffled[part..<min(part + 1_000, shuffled.count)])) }
            let all = try await store.positions(device: "walker", from: 0, to: .max, limit: 10_000)
            #expect(all.map(\.fixTime) == times)
            #expect(Set(all) == Set(rows))
            let window = try await store.positions(device: "walker", from: midnight - 5_000, to: midnight + 5_000, limit: 10_000)
            #expect(window.map(\.fixTime) == (-5..<5).map { midnight + Int64($0) * 1000 })
            #expect(try await store.positions(device: "walker", from: 0, to: .max, limit: 7).map(\.fixTime) == Array(times.prefix(7)))
            // Read in pages of 11 (the read API's `FixPages`), across the partitions' end; the
            // two fixes at the old times[10] are the first page's last and the next's first.
            var pages = FixPages(store: store, device: "walker", from: 0, to: .max, limit: 10_000, size: 11), paged: [StoredFix] = []
            while let page = try await pages.next() { paged += page }
            #expect(paged.map(\.fixTime) == times)
            #expect(Set(paged) == Set(rows))
            // Every device's fix times in one read: a time twice for two payloads, none for an unknown device.
            let fixTimes = try await store.fixTimes(of: ["walker", "bare", "nobody"], from: 0, to: .max).mapValues { $0.sorted() }
            #expect(fixTimes.keys.sorted() == ["bare", "walker"] && fixTimes["bare"] == [bare.fixTime])
            #expect(fixTimes["walker"] == times, "\(fixTimes["walker"]?.count ?? 0) times, not \(times.count)")
            let yesterday = try await store.fixTimes(of: ["walker"], from: 0, to: midnight)["walker"]?.sorted()
            #expect(yesterday == times.filter { $0 < midnight }, "\(yesterday?.count ?? 0) times before midnight")
        }
    }

    /// A page of a device's day that autovacuum has not analysed yet walks the (device, fix
    /// time) index from the page's start and stops at its end: a page of 100 reads about 100
    /// index entries. Without `enable_bitmapscan = off` in `tracking_device_page`, the default
    /// estimates chose a bitmap of every entry from the page's start to the day's end and a
    /// sort: 85,000 here. PostgreSQL's own count (`pg_stat_user_indexes`), flushed by the
    /// reading session before it answers (`pg_stat_force_next_flush`).
    @Test func pageOfAnUnanalysedDay_readsOnlyItsIndexEntries() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            let day = Self.now / FixDay.milliseconds - 2, start = day * FixDay.milliseconds
            let partition = PostgresPositionStore.partitionName(day: day)
            let rows = (0..<86_000).map { i in
                StoredFix(device: "walker", fixTime: start + Int64(i) * 1000, payloadHash: Int64(i), latitude: 48 + Double(i) * 1e-5,
                          longitude: 2, accuracy: 5, receivedAt: Self.now, source: "overland")
            }
            for batch in stride(from: 0, to: rows.count, by: 1_000) { #expect(try store.commit(Array(rows[batch..<batch + 1_000])) == 1_000) }
            _ = try await pg.psql("ALTER TABLE \(partition) SET (autovacuum_enabled = false)")
            #expect(try await pg.psql("SELECT reltuples < 0 FROM pg_class WHERE relname = '\(partition)'") == "t\n", "the day is not analysed")
            let entriesRead = "SELECT idx_tup_read FROM pg_stat_user_indexes WHERE relname = '\(partition)' AND indexrelname LIKE '%device_id%'"
            let before = try #require(Int(try await pg.psql(entriesRead).trimmingCharacters(in: .whitespacesAndNewlines)))
            let page = try await pg.psql("""
                SELECT cardinality(fix_time) FROM tracking_device_page('walker', \(start + 1_000_000), \(start + FixDay.milliseconds), 100);
                SELECT pg_stat_force_next_flush();
                """)
            #expect(page.hasPrefix("100\n"))
            let read = try #require(Int(try await pg.psql(entriesRead).trimmingCharacters(in: .whitespacesAndNewlines))) - before
            #expect(read <= 200, "\(read) index entries read for a page of 100")
        }
    }

    /// `tracking_latest_of`'s plan, cached by a session while `devices` was 800 rows and kept as
    /// the table grows to 20,000 unanalysed (autovacuum off on it, as in a run's first minute),
    /// still joins the names: a read of all 20,000 compares each name with a bounded number of
    /// devices. The control, the same read written `d.name = ANY($1)`, caches a scan that
    /// tests every device against the whole array (PostgreSQL hashes only a constant array),
    /// 44–158 ms a read at 18,800 devices under load. The plans are auto_explain's, from the
    /// server's log.
    @Test func latestOf_aPlanCachedWhileDevicesWereFew_staysAJoinOfTheNames() async throws {
        _ = try await PostgresTestServer.with { pg in
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            _ = try await pg.psql("""
                ALTER TABLE devices SET (autovacuum_enabled = false); ALTER TABLE latest SET (autovacuum_enabled = false);
                CREATE FUNCTION control_latest_of(text[]) RETURNS SETOF record LANGUAGE plpgsql STABLE AS $body$
                BEGIN RETURN QUERY \(PostgresPositionStore.selectLatest) WHERE d.name = ANY($1); END $body$
                """)
            #expect(try store.commit((0..<800).map {
                StoredFix(device: "d\($0)", fixTime: Self.now, payloadHash: 1, latitude: 48, longitude: 2, receivedAt: Self.now, source: "osmand")
            }) == 800)
            let some = "ARRAY(SELECT 'd' || g * 7 FROM generate_series(0, 99) g)"
            let control = "control_latest_of(%@) AS (name text[], t bigint[], h bigint[], la float8[], lo float8[], al float8[], ac float8[], s float8[], c float8[], r bigint[], so text[])"
            // One session: the first five calls are planned for their names, the next ones use a generic plan it caches.
            let answer = try await pg.psql("""
                \(String(repeating: "SELECT cardinality(name) FROM tracking_latest_of(\(some));", count: 8))
                \(String(repeating: "SELECT cardinality(name) FROM \(control.replacingOccurrences(of: "%@", with: some));", count: 8))
                INSERT INTO devices (name) SELECT 'd' || g FROM generate_series(800, 19999) g;
                INSERT INTO latest SELECT id, \(Self.now), 1, 48, 2, NULL, NULL, NULL, NULL, \(Self.now), 'osmand' FROM devices WHERE name NOT IN (SELECT 'd' || g FROM generate_series(0, 799) g);
                LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
                SELECT cardinality(name) FROM tracking_latest_of(ARRAY(SELECT name FROM devices));
                SELECT cardinality(name) FROM \(control.replacingOccurrences(of: "%@", with: "ARRAY(SELECT name FROM devices)"));
                """)
            #expect(answer.split(separator: "\n").suffix(2) == ["20000", "20000"], "every device's latest fix, both ways")
            let plans = try pg.loggedPlans(of: "SELECT array_agg(d.name)")
            try #require(plans.count == 2, "auto_explain logged \(plans.count) plans of the two reads")
            let testsEachDevice = "Filter: (name = ANY ($1))"
            #expect(!plans[0].contains("= ANY"), "tracking_latest_of's plan:\n\(plans[0])")
            #expect(plans[1].contains(testsEachDevice), "the control's plan:\n\(plans[1])")
        }
    }

    /// `tracking_insert_batch`'s device lookup, in a writer session that cached its plan while
    /// `devices` was one analysed page (60 devices; autovacuum analyses at 50), still takes the
    /// name index once 20,000 devices were registered at once and nothing has analysed them
    /// again. A scan there, the plan PostgreSQL prefers for one page, would read every device
    /// for every row of every batch until autovacuum's next round (psql: 780 ms a 1,000-row
    /// batch against 3.3 ms). The plans are auto_explain's, loaded into every session.
    @Test func insertBatch_aPlanCachedWhileDevicesWereOnePage_findsDevicesByTheirIndex() async throws {
        _ = try await PostgresTestServer.with { pg in
            // Loaded first, so that ALTER SYSTEM knows its settings; one statement a command (ALTER SYSTEM runs outside a transaction).
            _ = try await pg.psql("LOAD 'auto_explain'", "ALTER SYSTEM SET session_preload_libraries = 'auto_explain'",
                                  "ALTER SYSTEM SET auto_explain.log_min_duration = 0", "ALTER SYSTEM SET auto_explain.log_nested_statements = on",
                                  "SELECT pg_reload_conf()")
            // The postmaster rereads its configuration on the signal `pg_reload_conf` sends; sessions it starts after that load the library.
            try await PostgresStoreTests.waitUntil("the configuration reloaded", within: .seconds(30)) {
                try await pg.psql("SHOW session_preload_libraries") == "auto_explain\n"
            }
            let store = try await PostgresPositionStore.open(url: pg.url)
            defer { store.close() }
            func rows(_ devices: Range<Int>, second: Int64) -> [StoredFix] {
                devices.map { StoredFix(device: "d\($0)", fixTime: Self.now + second * 1_000, payloadHash: 1, latitude: 48, longitude: 2,
                                        receivedAt: Self.now, source: "osmand") }
            }
            #expect(try store.commit(rows(0..<60, second: 0)) == 60)
            _ = try await pg.psql("ANALYZE devices; ALTER TABLE devices SET (autovacuum_enabled = false)")
            // One writer session (the store's one idle connection): planned for its arguments five times, then cached.
            for second in 1...8 { #expect(try store.commit(rows(0..<60, second: Int64(second))) == 60) }
            try await store.register((60..<20_000).map { DeviceSettings(name: "d\($0)") })
            #expect(try store.commit(rows(1_000..<2_000, second: 9)) == 1_000)
            let plans = try pg.loggedPlans(of: "WITH input AS")
            try #require(plans.count == 10, "auto_explain logged \(plans.count) plans of the 10 batches")
            #expect(!plans[9].contains("Seq Scan on devices") && plans[9].contains("Index Scan using devices_name_key"), "\(plans[9])")
        }
    }

    /// Arrays in `array_send`'s form: NULL elements as nil, an empty array and a NULL cell as
    /// none; another element type, a cut-off buffer or a length past the end throw, not trap.
    @Test func arrayColumn_binaryForm_andDamage() throws {
        func array(_ type: UInt32, _ elements: [[UInt8]?], dimensions: Int32 = 1) -> ByteBuffer {
            var b = ByteBuffer()
            b.writeMultipleIntegers(dimensions, Int32(elements.contains { $0 == nil } ? 1 : 0), type, endianness: .big)
            if dimensions == 1 { b.writeMultipleIntegers(Int32(elements.count), Int32(1), endianness: .big) }
            for e in elements {
                b.writeInteger(Int32(e?.count ?? -1), endianness: .big)
                if let e { b.writeBytes(e) }
            }
            return b
        }
        func cell(_ bytes: ByteBuffer?, _ type: PostgresDataType) -> PostgresCell {
            PostgresCell(bytes: bytes, dataType: type, format: .binary, columnName: "c", columnIndex: 0)
        }
        func bigEndian<T: FixedWidthInteger>(_ v: T) -> [UInt8] { withUnsafeBytes(of: v.bigEndian) { Array($0) } }
        var doubles = try PostgresArrayColumn(cell(array(701, [bigEndian((-412.25).bitPattern), nil, bigEndian(Double.pi.bitPattern)]), .float8Array), of: .float8)
        #expect(doubles.count == 3)
        #expect(try doubles.nextDouble() == -412.25)
        #expect(try doubles.nextDouble() == nil)
        #expect(try doubles.nextDouble() == .pi)
        var texts = try PostgresArrayColumn(cell(array(25, [Array("osmand".utf8), []]), .textArray), of: .text)
        #expect(try texts.nextString() == "osmand" && texts.nextString() == "")
        var ints = try PostgresArrayColumn(cell(array(20, [bigEndian(Int64.min)]), .int8Array), of: .int8)
        #expect(try ints.nextInt64() == .min)
        #expect(try PostgresArrayColumn(cell(array(20, [], dimensions: 0), .int8Array), of: .int8).count == 0)
        #expect(try PostgresArrayColumn(cell(nil, .int8Array), of: .int8).count == 0)

        #expect(throws: PostgresDecodingError.Code.self) { try PostgresArrayColumn(cell(array(20, [bigEndian(Int64(1))]), .int8Array), of: .float8) }
        #expect(throws: PostgresDecodingError.Code.self) { try PostgresArrayColumn(cell(array(20, [], dimensions: 2), .int8Array), of: .int8) }
        var cut = array(701, [bigEndian(Double.pi.bitPattern)])
        cut.moveWriterIndex(to: cut.writerIndex - 3)
        var short = try PostgresArrayColumn(cell(cut, .float8Array), of: .float8)
        #expect(throws: PostgresDecodingError.Code.self) { try short.nextDouble() }
        var wrongSize = try PostgresArrayColumn(cell(array(20, [[1, 2, 3, 4]]), .int8Array), of: .int8)
        #expect(throws: PostgresDecodingError.Code.self) { try wrongSize.nextInt64() }
        var past = try PostgresArrayColumn(cell(array(20, []), .int8Array), of: .int8)
        #expect(throws: PostgresDecodingError.Code.self) { try past.nextInt64() }
    }
}
