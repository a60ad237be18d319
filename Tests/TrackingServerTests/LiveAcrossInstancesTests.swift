import Foundation
import GeoCore
import GeoTestSupport
import SystemIO
import Testing
import TrackingProtocols
@testable import TrackingServer

/// Two tracking servers on one PostgreSQL: a `/live` client of one gets the fixes the other
/// commits (PostgreSQL NOTIFY, one per committed batch) and the fence events it stores; a device
/// sent to both has each event stored once; batch and event notes read back as written.
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

    /// A note of fence events reads back as written; events past one note's room go to more
    /// notes, and one event too long for any note to none.
    @Test func eventNote_roundTrip_splitIntoNotesThatFit() throws {
        let events = (0..<200).map { FenceEvent(device: "car \($0)", fence: "park", kind: .enter, time: Int64($0), latitude: 52.5, longitude: 13.4) }
        let notes = EventNote.notes(instance: "i1", events: events)
        #expect(notes.count > 1 && notes.allSatisfy { $0.text.utf8.count <= 8_000 - 100 })
        #expect(notes.flatMap(\.events) == events)
        #expect(notes.map { EventNote($0.text) } == notes)
        #expect(EventNote("i1 5000 [\"car\"]") == nil && BatchNote(notes[0].text) == nil, "batch notes and event notes are told apart")
        let huge = FenceEvent(device: String(repeating: "x", count: 8_000), fence: "park", kind: .enter, time: 1, latitude: 0, longitude: 0)
        #expect(EventNote.notes(instance: "i1", events: [huge, events[0]]).flatMap(\.events) == [events[0]])
    }

    /// Two walkers through the park on two instances A and B on one PostgreSQL, each deciding the
    /// park (a load balancer that does not pin devices): "turns" sends its fixes 10 a request
    /// (as Overland batches them) to A and B in turn, so each instance hears only the last of
    /// the other's ten; "handover" its first to B, then to A until it is 8 m from the park's edge on its
    /// way out (too few fixes inside for B to confirm an enter of its own), then to B. For each the
    /// events table holds one enter and one exit, within one request's span (10 s) of the times
    /// one instance alone decides — the instance that confirms first may have heard only the last
    /// of the other's ten fixes (a CI run stored "turns"' enter 4 s late), and a `/live` follower
    /// on each instance gets each once, whichever instance stored it. Without the store's rule (`FenceEvent.follows`) "turns" had
    /// two enters, each instance deciding at a fix of its own; without each instance deciding the
    /// other's fixes too, B had never seen "handover" inside and missed its exit.
    @Test(.onOwnThread) func fences_devicesSentToBothInstances_eachEventOnce_pushedOnBoth() async throws {
        let start = Int64(Date().timeIntervalSince1970) - 5000
        let legs: [(east: Double, north: Double, seconds: Int)] = [(-250, 0, 30), (0, 0, 150), (0, 0, 60), (300, 0, 150)]
        let turns = try FenceTests.walk("turns", start: start, legs), handover = try FenceTests.walk("handover", start: start, legs)
        // One instance alone: the times to expect.
        let alone = try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register, fences: FenceOptions(fences: try FenceTests.fences(), dwell: nil))
            defer { ingest.stop() }
            try await FenceTests.ingest(ingest, turns, perRequest: 1)
            try await FenceTests.decided(ingest)
            return try store.events(device: "turns", from: .min, to: .max, limit: 100)
        }
        #expect(FenceTests.summary(alone) == ["park enter", "park exit"])
        try await PostgresTestServer.with { pg in
            let options = FenceOptions(fences: try FenceTests.fences(), dwell: nil)
            let a = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register, fences: options)
            defer { a.stop() }
            let b = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register, fences: options)
            defer { b.stop() }
            try await TrackingServerTests.withServer(a) { portA async throws in
                try await TrackingServerTests.withServer(b) { portB async throws in
                    let path = "/live?devices=turns,handover"
                    let followers = [try LiveFanOutTests.subscribed(portA, path), try LiveFanOutTests.subscribed(portB, path)]
                    defer { for f in followers { try? f.close() } }
                    try await Self.bothListen(pg)
                    for i in turns.indices {
                        if i % 10 == 0 { try await (i % 20 == 0 ? a : b).ingest(Array(turns[i..<min(i + 10, turns.count)]), receivedAt: Date()) }
                        try await (i == 0 || i >= 285 ? b : a).ingest([handover[i]], receivedAt: Date())
                    }
                    try await FenceTests.decided(a)
                    try await FenceTests.decided(b)
                    let store = try await PostgresPositionStore.open(url: pg.url)
                    defer { store.close() }
                    func stored(_ device: String) async throws -> [FenceEvent] { try await store.events(device: device, from: .min, to: .max, limit: 100) }
                    try await PostgresStoreTests.waitUntil("both exits stored", within: .seconds(30)) {
                        let (one, other) = (try await stored("turns"), try await stored("handover"))
                        return FenceTests.summary(one).contains("park exit") && FenceTests.summary(other).contains("park exit")
                    }
                    try await Task.sleep(for: .seconds(1)) // the notes still on their way
                    for device in ["turns", "handover"] {
                        let events = try await stored(device)
                        #expect(FenceTests.summary(events) == ["park enter", "park exit"], "\(device)")
                        for (event, expected) in zip(events, alone) {
                            #expect(abs(event.time - expected.time) <= 10_000, "\(device): \(event.kind) at \(event.time), alone at \(expected.time)")
                        }
                    }
                    for (name, follower) in zip(["A", "B"], followers) {
                        var heard = try LiveFanOutTests.read(follower, until: [#""device":"turns","fence":"park""#, #""device":"handover","fence":"park""#, #""type":"exit""#])
                        heard += LiveFanOutTests.read(follower, for: 2)
                        let kinds = heard.matches(of: /"device":"(turns|handover)","fence":"park","latitude":[^,]+,"longitude":[^,]+,"time":"[^"]+","type":"(enter|exit)"/)
                            .map { "\($0.1) \($0.2)" }
                        #expect(kinds.filter { $0.hasPrefix("turns") } == ["turns enter", "turns exit"], "instance \(name)'s follower heard \(kinds)")
                        #expect(kinds.filter { $0.hasPrefix("handover") } == ["handover enter", "handover exit"], "instance \(name)'s follower heard \(kinds)")
                    }
                }
            }
        }
    }

    /// Each event goes out once while remembered (heard again, it is remembered from then); a
    /// note forgets what was heard over 10 s (`2 × replayMargin`) before it, the read after a
    /// loss forgets nothing.
    @Test func heardEvents_onceWhileRemembered_forgottenOnlyOnNotes() {
        let heard = HeardEvents()
        let zoo = FenceEvent(device: "a", fence: "zoo", kind: .enter, time: 1, latitude: 0, longitude: 0)
        var park = zoo
        park.fence = "park"
        #expect(heard.new([zoo, zoo], forgetting: true, now: 10_000) == [zoo])
        #expect(heard.new([zoo, park], forgetting: true, now: 14_000) == [park])
        #expect(heard.new([zoo], forgetting: false, now: 60_000).isEmpty, "the read after a loss")
        #expect(heard.new([zoo, park], forgetting: true, now: 60_000) == [park], "park heard 46 s before, zoo just now")
        #expect(heard.new([zoo], forgetting: true, now: 75_000) == [zoo])
    }

    /// A stores a "zoo" enter, which B's follower hears in a note; then B's LISTEN ends
    /// (`pg_terminate_backend`) and A stores a "park" enter while B does not listen (it listens
    /// anew after 1 s): B's follower gets each once — the park enter read from the events table
    /// once B listens again, the zoo enter not told twice though that read holds it too (stored
    /// within 5 s before the loss). Without the read, the park enter never reached it.
    @Test(.onOwnThread) func lostListen_theEventsStoredMeanwhile_reachTheClientOnce() async throws {
        try await PostgresTestServer.with { pg in
            let storeA = try await PostgresPositionStore.open(url: pg.url)
            let a = try await TrackingIngest(store: storeA, policy: .register)
            defer { a.stop() }
            let b = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { b.stop() }
            try await TrackingServerTests.withServer(b) { port async throws in
                let client = try LiveFanOutTests.subscribed(port, "/live?devices=walker")
                defer { try? client.close() }
                try await Self.bothListen(pg)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                func enter(_ fence: String, _ time: Int64) -> FenceEvent {
                    FenceEvent(device: "walker", fence: fence, kind: .enter, time: time, latitude: 52.5, longitude: 13.4)
                }
                #expect(try storeA.add(events: [enter("zoo", now - 2_000)]).count == 1)
                var heard = try LiveFanOutTests.read(client, until: [#""fence":"zoo""#])
                _ = try await pg.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%tracking_batches%'")
                #expect(try storeA.add(events: [enter("park", now - 1_000)]).count == 1)
                heard += try LiveFanOutTests.read(client, until: [#""fence":"park""#])
                heard += LiveFanOutTests.read(client, for: 2)
                #expect(heard.matches(of: /"fence":"zoo"/).count == 1 && heard.matches(of: /"fence":"park"/).count == 1, "B's follower heard \(heard)")
            }
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
