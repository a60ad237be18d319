import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Synchronization
import SystemIO
import Testing
@testable import TrackingServer

/// Shards (`ShardedPositionStore`: devices on PostgreSQL databases by rendezvous hashing) and a
/// streaming replica serving history reads (`PostgresReplica`), against real PostgreSQL 15
/// servers the tests start themselves.
@Suite struct ShardedStoreTests {
    /// A store for the mapping alone: its connector never connects.
    static func unconnected(shard: String) throws -> PostgresPositionStore {
        PostgresPositionStore(connector: PostgresConnector(try PostgresLocation(url: "postgres://u@127.0.0.1:1/db")), shard: shard)
    }

    /// Two PostgreSQL clusters the test starts, as the shards of one store, with an ingest on
    /// it that registers unknown devices; the ingest stops after `body`.
    static func withTwoShards(_ body: (PostgresTestServer, PostgresTestServer, ShardedPositionStore, TrackingIngest) async throws -> Void) async throws {
        _ = try await PostgresTestServer.with { first in
            try await PostgresTestServer.with { second in
                let store = try await PositionStores.open(postgresURLs: [first.url, second.url], sqlitePath: "")
                let sharded = try #require(store as? ShardedPositionStore)
                defer { sharded.close() }
                let ingest = try await TrackingIngest(store: store, policy: .register)
                try await body(first, second, sharded, ingest)
                ingest.stop()
            }
        }
    }

    /// Rendezvous hashing's two promises, over 10,000 device names: the devices spread evenly
    /// (each of two shards 50 ± 3 %), and a third shard takes about a third of them (33 ± 3 %)
    /// while not one device moves between the first two. The mapping does not depend on the
    /// order the shards are given in. The weight is pinned (computed in Python from its
    /// definition): a change of it would move devices between shards, away from their history.
    @Test func rendezvous_evenSpread_aThirdShardMovesOnlyItsOwn() throws {
        #expect(ShardedPositionStore.weight(shard: "6f1c2a64-0000-4000-8000-000000000001", device: "truck-7") == 0xd3b1_5059_dd61_de09)
        let (a, b, c) = (try Self.unconnected(shard: "shard-a"), try Self.unconnected(shard: "shard-b"), try Self.unconnected(shard: "shard-c"))
        let two = try ShardedPositionStore([a, b]), three = try ShardedPositionStore([a, b, c]), reversed = try ShardedPositionStore([c, b, a])
        let names = (0..<10_000).map { "device-\($0)" }
        let before = names.map { two.shards[two.shardIndex(of: $0)].shard }
        let after = names.map { three.shards[three.shardIndex(of: $0)].shard }
        let onA = Double(before.filter { $0 == "shard-a" }.count) / 100
        #expect(abs(onA - 50) <= 3, "shard a has \(onA) % of the devices")
        let moved = zip(before, after).filter { $0 != $1 }
        #expect(moved.allSatisfy { $0.1 == "shard-c" }, "a device moved between the first two shards")
        let movedShare = Double(moved.count) / 100
        #expect(abs(movedShare - 100.0 / 3) <= 3, "\(movedShare) % of the devices moved to the new shard")
        #expect(names.map { reversed.shards[reversed.shardIndex(of: $0)].shard } == after)
        #expect { _ = try ShardedPositionStore([a]) } throws: { Self.isBadShards($0) }
        #expect { _ = try ShardedPositionStore([a, try Self.unconnected(shard: "shard-a")]) } throws: { Self.isBadShards($0) }
    }

    /// Two databases as shards, through the HTTP ingest: 40 devices' fixes acknowledged, each
    /// device's rows on its own shard only (psql on each), both shards used; reads merge them
    /// (history, latest by name and by box, counts); the same database given twice is refused.
    /// With one shard stopped a batch spanning both is refused (503) and the other shard's part
    /// kept; after the restart the client's retry is acknowledged and every fix is stored once.
    @Test func twoShards_devicesSplit_readsMerge_oneShardDown_noAckThenRetryOnce() async throws {
        try await Self.withTwoShards { first, second, store, ingest in
            let t0 = PostgresStoreTests.nowSeconds - 600
            let devices = (0..<40).map { "dev\($0)" }
            try await TrackingServerTests.withServer(ingest) { port in
                for (i, device) in devices.enumerated() {
                    for s in 0..<3 {
                        let status = try await TrackingServerTests.http(port, "GET", "/?id=\(device)&lat=\(10 + Double(i) / 10)&lon=20&timestamp=\(t0 + s)").status
                        #expect(status == 200)
                    }
                }
            }
            var perShard = [0, 0]
            for device in devices {
                let counts = [try await first.psql(Self.countSQL(device)), try await second.psql(Self.countSQL(device))].map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
                let home = store.shardIndex(of: device)
                #expect(counts[home] == 3 && counts[1 - home] == 0, "\(device): \(counts) rows, its shard \(home)")
                perShard[home] += 1
            }
            #expect(perShard.allSatisfy { $0 >= 8 }, "devices per shard: \(perShard)")
            #expect(try await store.positions(device: "dev7", from: 0, to: .max, limit: 10).map(\.fixTime) == (0..<3).map { Int64(t0 + $0) * 1000 })
            #expect(try await store.latest(devices: devices).map(\.device) == devices.sorted())
            #expect(try await store.latest(in: try BoundingBox(south: 13.45, west: 19, north: 14, east: 21)).map(\.device) == ["dev35", "dev36", "dev37", "dev38", "dev39"])
            #expect(try await store.devices().count == 40)
            #expect(try await store.fixTimes(of: ["dev1", "dev2"], from: 0, to: .max).mapValues { $0.count } == ["dev1": 3, "dev2": 3])
            await #expect { _ = try await PositionStores.open(postgresURLs: [first.url, first.url], sqlitePath: "") } throws: { Self.isBadShards($0) }

            // One shard down: a batch of both shards' devices is not acknowledged.
            let batch = devices.map { device in
                StoredFix(device: device, fixTime: Int64(t0 + 10) * 1000, payloadHash: 7, latitude: 1, longitude: 2, receivedAt: 0, source: "osmand")
            }
            try await second.stop(mode: "immediate")
            #expect(throws: PostgresStoreError.self) { _ = try store.commit(batch) }
            try await second.start()
            #expect(try store.commit(batch) == batch.filter { store.shardIndex(of: $0.device) == 1 }.count)
            for device in devices { #expect(try await store.count(device: device, fixTime: Int64(t0 + 10) * 1000) == 1) }
        }
    }

    /// One shard stopped: the other shard's devices are still acknowledged, also when their
    /// requests come at the same moment as the stopped shard's (each shard has its own group
    /// committer; with one queue they shared batches and all got 503). The stopped shard's
    /// devices get 503, and so does an Overland batch spanning both shards. After the restart,
    /// the retries store what was missing, each fix once.
    @Test func oneShardDown_theOtherShardsDevicesStillAcknowledged() async throws {
        try await Self.withTwoShards { _, second, store, ingest in
            let t0 = PostgresStoreTests.nowSeconds - 600
            let devices = (0..<40).map { "dev\($0)" }
            let home = Dictionary(uniqueKeysWithValues: devices.map { ($0, store.shardIndex(of: $0)) })
            let (up, down) = (try #require(devices.first { home[$0] == 0 }), try #require(devices.first { home[$0] == 1 }))
            let overland = [up, down].map { device in
                #"{"type":"Feature","geometry":{"type":"Point","coordinates":[20,10]},"properties":{"timestamp":"\#(TrackOutput.iso8601(Int64(t0 + 2) * 1000))","device_id":"\#(device)"}}"#
            }
            let batch = #"{"locations":[\#(overland.joined(separator: ","))]}"#
            try await TrackingServerTests.withServer(ingest) { port in
                /// Every device's fix at `t0 + second`, all requests at once: each one's status.
                func send(_ second: Int) async throws -> [String: Int] {
                    try await withThrowingTaskGroup(of: (String, Int).self) { group in
                        for device in devices {
                            group.addTask { (device, try await TrackingServerTests.http(port, "GET", "/?id=\(device)&lat=10&lon=20&timestamp=\(t0 + second)").status) }
                        }
                        return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
                    }
                }
                #expect(try await send(0).values.allSatisfy { $0 == 200 })
                try await second.stop(mode: "immediate")
                let statuses = try await send(1)
                for device in devices { #expect(statuses[device] == (home[device] == 0 ? 200 : 503), "\(device) on shard \(home[device]!)") }
                #expect(try await TrackingServerTests.http(port, "POST", "/overland", body: batch, headers: ["Content-Type: application/json"]).status == 503)
                try await second.start()
                #expect(try await send(1).values.allSatisfy { $0 == 200 })
                #expect(try await TrackingServerTests.http(port, "POST", "/overland", body: batch, headers: ["Content-Type: application/json"]).body == #"{"result":"ok"}"#)
            }
            for device in devices {
                #expect(try await store.positions(device: device, from: 0, to: .max, limit: 10).map(\.fixTime)
                        == ([0, 1] + (device == up || device == down ? [2] : [])).map { Int64(t0 + $0) * 1000 })
            }
        }
    }

    /// Instances A and B, each over the same two shards, B serving `/live` for two devices
    /// that live on different shards: A's commit of both reaches B's client (each shard's
    /// LISTEN/NOTIFY followed).
    @Test(.onOwnThread) func twoInstancesOnTwoShards_liveHearsBothShards() async throws {
        _ = try await PostgresTestServer.with { first in
            try await PostgresTestServer.with { second in
                let urls = [first.url, second.url]
                let storeA = try #require(try await PositionStores.open(postgresURLs: urls, sqlitePath: "") as? ShardedPositionStore)
                let a = try await TrackingIngest(store: storeA, policy: .register)
                defer { a.stop() }
                let b = try await TrackingIngest(store: try await PositionStores.open(postgresURLs: urls, sqlitePath: ""), policy: .register)
                defer { b.stop() }
                let names = (0..<40).map { "car\($0)" }
                let onFirst = try #require(names.first { storeA.shardIndex(of: $0) == 0 }), onSecond = try #require(names.first { storeA.shardIndex(of: $0) == 1 })
                try await TrackingServerTests.withServer(b) { port async throws in
                    let client = try LiveFanOutTests.subscribed(port, "/live?devices=\(onFirst),\(onSecond)")
                    defer { try? client.close() }
                    try await LiveAcrossInstancesTests.bothListen(first)
                    try await LiveAcrossInstancesTests.bothListen(second)
                    let t = PostgresStoreTests.nowSeconds - 100
                    try await a.ingest([try PostgresStoreTests.fix(onFirst, t, latitude: 52.5, longitude: 13.43),
                                        try PostgresStoreTests.fix(onSecond, t, latitude: 52.5, longitude: 13.44)], receivedAt: Date())
                    let heard = try LiveFanOutTests.read(client, until: ["[13.43,52.5]", "[13.44,52.5]"])
                    #expect(heard.contains("[13.43,52.5]") && heard.contains("[13.44,52.5]"), "B's client heard: \(heard)")
                }
            }
        }
    }

    static func isBadShards(_ error: any Error) -> Bool { (error as? PostgresStoreError)?.code == .badShards }

    static func row(_ device: String, _ fixTime: Int64) -> StoredFix {
        StoredFix(device: device, fixTime: fixTime, payloadHash: 1, latitude: 1, longitude: 2, receivedAt: 0, source: "osmand")
    }

    static func countSQL(_ device: String) -> String {
        "SELECT count(*) FROM positions p JOIN devices d ON d.id = p.device_id WHERE d.name = '\(device)'"
    }

    /// A replica made with `pg_basebackup -R` serves the history reads, also one copied before
    /// the server first opened its primary (its identity then comes by replay): once it has
    /// replayed the primary's latest commit, a device's positions and events still read in full
    /// with the primary stopped, while a commit then fails. A replica of another database is refused.
    @Test func replica_servesHistoryReads_withThePrimaryStopped() async throws {
        _ = try await PostgresTestServer.with { primary in
            let rows = (0..<50).map { Self.row("a", Int64($0) * 1000) }
            try await primary.withReplica { replica in
                let store = try await PositionStores.open(postgresURLs: [primary.url], replicaURLs: [replica.url], sqlitePath: "")
                let postgres = try #require(store as? PostgresPositionStore)
                defer { postgres.close() }
                #expect(postgres.replica.withLock { $0 } != nil)
                #expect(try store.commit(rows) == 50)
                #expect(try store.add(events: [FenceEvent(device: "a", fence: "f", kind: .enter, time: 3000, latitude: 1, longitude: 2)]).count == 1)
                // Replayed: the replica has the event, committed last (60 s at most).
                var looks = 0
                while try await replica.psql("SELECT count(*) FROM events").trimmingCharacters(in: .whitespacesAndNewlines) != "1", looks < 600 {
                    try await Task.sleep(for: .milliseconds(100))
                    looks += 1
                }
                try await primary.stop(mode: "immediate")
                #expect(try await store.positions(device: "a", from: 0, to: .max, limit: 100) == rows)
                #expect(try await store.events(device: "a", from: 0, to: .max, limit: 10).map(\.fence) == ["f"])
                #expect(throws: PostgresStoreError.self) { _ = try store.commit([Self.row("a", 99_000)]) }
                try await primary.start()
            }
            try await PostgresTestServer.with { other in
                _ = try await PostgresPositionStore.open(url: other.url)
                await #expect { _ = try await PositionStores.open(postgresURLs: [primary.url], replicaURLs: [other.url], sqlitePath: "") } throws: { Self.isBadShards($0) }
            }
        }
    }
}
