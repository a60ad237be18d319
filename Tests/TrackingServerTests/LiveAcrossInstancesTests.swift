import Foundation
import GeoCore
import GeoTestSupport
import SystemIO
import Testing
import TrackingProtocols
@testable import TrackingServer

/// Two tracking servers on one PostgreSQL: a `/live` client of one gets the fixes the other
/// commits (PostgreSQL NOTIFY, one per committed batch), and batch notes read back as written.
@Suite struct LiveAcrossInstancesTests {
    @Test func batchNote_roundTrip_andManyDevicesAsStar() {
        let rows = ["b", "a", "b", "with space,comma"].map { LiveFanOutTests.stored($0, 5) }
        let note = BatchNote(instance: "i1", rows: rows)
        #expect(note.devices == ["a", "b", "with space,comma"] && note.receivedAt == 5000)
        #expect(BatchNote(note.text) == note)
        let many = (0..<1000).map { LiveFanOutTests.stored("device-\($0)", 7) }
        let star = BatchNote(instance: "i2", rows: many)
        #expect(star.devices == nil && star.text == "i2 7000 *" && BatchNote(star.text) == star)
        #expect(BatchNote("garbage") == nil)
    }

    /// Notes heard while a read is under way wait as one: the union of their devices from the
    /// earliest receive time, all devices (`*`) once either names all or the union passes the
    /// notification's 7,000 bytes; taking leaves none.
    @Test func pendingNotes_mergeIntoOneRead() {
        let pending = PendingBatchNotes()
        #expect(pending.take() == nil)
        pending.add(BatchNote(instance: "a", receivedAt: 9_000, devices: ["car", "van"]))
        pending.add(BatchNote(instance: "b", receivedAt: 8_000, devices: ["bus", "car"]))
        #expect(pending.take() == BatchNote(instance: "a", receivedAt: 8_000, devices: ["bus", "car", "van"]))
        #expect(pending.take() == nil)
        pending.add(BatchNote(instance: "a", receivedAt: 7_000, devices: ["car"]))
        pending.add(BatchNote(instance: "b", receivedAt: 7_500, devices: nil))
        pending.add(BatchNote(instance: "a", receivedAt: 6_000, devices: ["van"]))
        #expect(pending.take() == BatchNote(instance: "a", receivedAt: 6_000, devices: nil))
        let half = (0..<700).map { "device-\($0)" }, otherHalf = (700..<1400).map { "device-\($0)" }
        let wide = BatchNote(instance: "a", receivedAt: 1, devices: half).merged(with: BatchNote(instance: "b", receivedAt: 2, devices: otherHalf))
        #expect(wide.devices == nil && wide.receivedAt == 1, "1,400 names of ~12 bytes pass 7,000 bytes: all devices")
    }

    /// Instances A and B on one PostgreSQL, B serving `/live?devices=DEVICE`: once both listen,
    /// `meanwhile` runs and A commits a fix of DEVICE at (52.5, `longitude`). Returns what B's
    /// client heard, read until that position or 30 s.
    static func heardOnB(_ device: String, longitude: Double, meanwhile: (PostgresTestServer) async throws -> Void = { _ in }) async throws -> String? {
        try await PostgresTestServer.with { pg in
            let a = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { a.stop() }
            let b = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { b.stop() }
            var heard = ""
            try await TrackingServerTests.withServer(b) { port async throws in
                let client = try LiveFanOutTests.subscribed(port, "/live?devices=\(device)")
                defer { try? client.close() }
                try await Self.bothListen(pg)
                try await meanwhile(pg)
                try await a.ingest([try PostgresStoreTests.fix(device, PostgresStoreTests.nowSeconds - 100, latitude: 52.5, longitude: longitude)],
                                   receivedAt: Date())
                heard = try LiveFanOutTests.read(client, until: ["[\(longitude),52.5]"])
            }
            return heard
        } ?? nil
    }

    /// Both instances listen from their start: waits until PostgreSQL has their LISTENs.
    static func bothListen(_ pg: PostgresTestServer) async throws {
        for _ in 0..<600 {
            let listening = try await pg.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%tracking_batches%'")
            if (Int(listening.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 2 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Instance B serves `/live?devices=car`; the fix goes to instance A: B's client gets it.
    @Test(.onOwnThread) func live_onOneInstance_getsTheOtherInstancesCommits() async throws {
        guard let heard = try await Self.heardOnB("car", longitude: 13.41) else { return }
        #expect(heard.contains("[13.41,52.5]") && heard.contains(#""device":"car""#), "instance B's client heard nothing of A's commit: \(heard)")
    }

    /// The LISTEN connections end (`pg_terminate_backend`) and A commits at once, while B is
    /// not listening (it opens a new connection after 1 s): B's client still gets the fix,
    /// read again once B listens anew.
    @Test(.onOwnThread) func lostListen_theBatchesCommittedMeanwhile_reachTheClient() async throws {
        let heard = try await Self.heardOnB("van", longitude: 13.42) { pg in
            _ = try await pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%tracking_batches%'")
        }
        guard let heard else { return }
        #expect(heard.contains("[13.42,52.5]") && heard.contains(#""device":"van""#), "B's client heard nothing of A's commit: \(heard)")
    }
}
