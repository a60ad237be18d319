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

    /// Instance B serves `/live?devices=car`; the fix goes to instance A: B's client gets it.
    @Test(.onOwnThread) func live_onOneInstance_getsTheOtherInstancesCommits() async throws {
        _ = try await PostgresTestServer.with { pg in
            let a = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { a.stop() }
            let b = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { b.stop() }
            try await TrackingServerTests.withServer(b) { port async throws in
                let client = try TCPClient.connect(host: "127.0.0.1", port: port)
                defer { try? client.close() }
                try client.writeAll(LiveFanOutTests.handshake(port, "/live?devices=car"))
                _ = try LiveFanOutTests.read(client, until: ["FeatureCollection"])
                try await Self.bothListen(pg)
                try await a.ingest([try PostgresStoreTests.fix("car", PostgresStoreTests.nowSeconds - 100, latitude: 52.5, longitude: 13.41)],
                                   receivedAt: Date())
                let heard = try LiveFanOutTests.read(client, until: ["[13.41,52.5]"])
                #expect(heard.contains("[13.41,52.5]") && heard.contains(#""device":"car""#), "instance B's client heard nothing of A's commit: \(heard)")
            }
        }
    }

    /// Both instances listen from their start: waits until PostgreSQL has their LISTENs.
    static func bothListen(_ pg: PostgresTestServer) async throws {
        for _ in 0..<600 {
            let listening = try await pg.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%tracking_batches%'")
            if (Int(listening.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 2 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The LISTEN connections end (`pg_terminate_backend`) and A commits at once, while B is
    /// not listening (it opens a new connection after 1 s): B's client still gets the fix,
    /// read again once B listens anew.
    @Test(.onOwnThread) func lostListen_theBatchesCommittedMeanwhile_reachTheClient() async throws {
        _ = try await PostgresTestServer.with { pg in
            let a = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { a.stop() }
            let b = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { b.stop() }
            try await TrackingServerTests.withServer(b) { port async throws in
                let client = try TCPClient.connect(host: "127.0.0.1", port: port)
                defer { try? client.close() }
                try client.writeAll(LiveFanOutTests.handshake(port, "/live?devices=van"))
                _ = try LiveFanOutTests.read(client, until: ["FeatureCollection"])
                try await Self.bothListen(pg)
                _ = try await pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%tracking_batches%'")
                try await a.ingest([try PostgresStoreTests.fix("van", PostgresStoreTests.nowSeconds - 100, latitude: 52.51, longitude: 13.42)],
                                   receivedAt: Date())
                let heard = try LiveFanOutTests.read(client, until: ["[13.42,52.51]"])
                #expect(heard.contains("[13.42,52.51]") && heard.contains(#""device":"van""#), "B's client heard nothing of A's commit: \(heard)")
            }
        }
    }
}
