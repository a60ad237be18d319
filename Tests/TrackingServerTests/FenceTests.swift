import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Monitoring
import SystemIO
import Testing
import TrackingProtocols
@testable import TrackingServer

/// Geofences after the ack on the default SQLite store, with the default fence options (dwell
/// 300 s): a walk with GNSS jitter through a polygon and a circle, an edge that does not flap, a
/// restart that sends nothing twice, and the webhook alive and dead.
@Suite struct FenceTests {
    /// Berlin, Mitte: the walk's local frame (metres east and north of here).
    static let origin = Coordinate(uncheckedLatitude: 52.52, longitude: 13.40)
    static let frame = LocalFrame(origin: origin)

    /// A 200 m square "park" centred on the origin (the feature's `id`), and a "cafe" circle of
    /// 50 m radius 500 m east of it (its `id` property, before its `name`), as a GeoJSON fences
    /// file read the way `geo serve-tracking --fences` reads it.
    static func fences() throws -> [(identifier: String, condition: MonitorCondition)] {
        let corners = [(-100.0, -100.0), (100, -100), (100, 100), (-100, 100), (-100, -100)].map { frame.coordinate(east: $0.0, north: $0.1) }
        let ring = corners.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
        let cafe = frame.coordinate(east: 500, north: 0)
        let text = """
            {"type":"FeatureCollection","features":[
             {"type":"Feature","id":"park","geometry":{"type":"Polygon","coordinates":[[\(ring)]]},"properties":{}},
             {"type":"Feature","geometry":{"type":"Point","coordinates":[\(cafe.longitude),\(cafe.latitude)]},"properties":{"id":"cafe","name":"Café am Platz","radius":50}}]}
            """
        return try RegionsFile.conditions(from: Array(text.utf8), name: "fences.geojson")
    }

    /// A 1 Hz track through `waypoints` (metres east, north; seconds to stay or travel there
    /// from the previous one, at constant speed), with Gaussian jitter of σ = 3 m per axis and
    /// a reported accuracy of 5 m (a phone outdoors).
    static func walk(_ device: String, start: Int64, _ legs: [(east: Double, north: Double, seconds: Int)], seed: UInt64 = 35,
                     accuracy: Double = 5) throws -> [TrackedFix] {
        var random = SplitMix64(seed: seed)
        var fixes: [TrackedFix] = []
        var (e, n) = (legs[0].east, legs[0].north)
        var t = start
        for leg in legs {
            let (e0, n0) = (e, n)
            for s in 1...leg.seconds {
                let f = Double(s) / Double(leg.seconds)
                (e, n) = (e0 + (leg.east - e0) * f, n0 + (leg.north - n0) * f)
                t += 1
                let here = frame.coordinate(east: e + 3 * random.gaussian(), north: n + 3 * random.gaussian())
                fixes.append(TrackedFix(device: device, location: Location(coordinate: here, timestamp: Date(timeIntervalSince1970: Double(t)),
                                                                           horizontalAccuracy: .meters(accuracy)), source: .osmAnd))
            }
        }
        return fixes
    }

    /// Outside west of the park, in, 400 s in its middle, out east to the cafe, 60 s there, away.
    static let throughParkAndCafe: [(east: Double, north: Double, seconds: Int)] = [
        (-250, 0, 30), (0, 0, 150), (0, 0, 400), (500, 0, 250), (500, 0, 60), (800, 0, 150),
    ]

    static func ingest(_ ingest: TrackingIngest, _ fixes: [TrackedFix], perRequest: Int = 10) async throws {
        for start in stride(from: 0, to: fixes.count, by: perRequest) {
            try await ingest.ingest(Array(fixes[start..<min(start + perRequest, fixes.count)]), receivedAt: Date())
        }
    }

    /// Waits until every committed batch was decided (`tracking_fence_decision_seconds_count`
    /// equal to `tracking_commits_total`).
    static func decided(_ ingest: TrackingIngest) async throws {
        func value(_ text: String, _ name: String) -> Int? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
        }
        try await PostgresStoreTests.waitUntil("the fence decisions") {
            let text = ingest.metrics.text()
            return value(text, "tracking_fence_decision_seconds_count") == value(text, "tracking_commits_total")
        }
    }

    static func summary(_ events: [FenceEvent]) -> [String] { events.map { "\($0.fence) \($0.kind.rawValue)" } }

    /// The walk gives exactly enter, dwell (300 s after the enter), exit of the park, then enter
    /// and exit of the cafe (no dwell: 60 s there): stored, read back by `/api/events`, pushed
    /// on `/live` to a follower of the device, counted in `/metrics`.
    @Test(.onOwnThread) func walk_entersDwellsExits_polygonAndCircle_storedReadPushed() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register, fences: FenceOptions(fences: try Self.fences()))
            defer { ingest.stop() }
            let start = Int64(Date().timeIntervalSince1970) - 5000
            let fixes = try Self.walk("walker", start: start, Self.throughParkAndCafe)
            let expected = ["park enter", "park dwell", "park exit", "cafe enter", "cafe exit"]
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let live = try LiveFanOutTests.subscribed(port, "/live?devices=walker") // read the latest positions (none yet)
                defer { try? live.close() }
                try await Self.ingest(ingest, fixes)
                try await Self.decided(ingest)
                let stored = try await store.events(device: "walker", from: .min, to: .max, limit: 100)
                #expect(Self.summary(stored) == expected)
                let enter = try #require(stored.first)
                // The edge is 150 m into the 250 m, 150 s leg that starts at +30 s: crossed at +120 s;
                // confirmed 20 s of decisive fixes later.
                let entered = Double(enter.time) / 1000 - Double(start)
                #expect(entered >= 120 && entered <= 160, "enter at +\(entered) s")
                let dwell = stored[1]
                #expect(dwell.time - enter.time >= 300_000 && dwell.time - enter.time <= 302_000, "dwell \(dwell.time - enter.time) ms after enter")

                let read = try await TrackingServerTests.http(port, "GET", "/api/events?device=walker&from=\(start)&to=\(start + 2000)")
                #expect(read.status == 200)
                let json = try JSONDecoder().decode(JSONValue.self, from: Data(read.body.utf8))
                guard case .object(let top) = json, case .array(let list)? = top["events"] else { Issue.record("not an events object: \(read.body)"); return }
                let pairs = list.compactMap { item -> String? in
                    guard case .object(let o) = item, case .string(let fence)? = o["fence"], case .string(let type)? = o["type"] else { return nil }
                    return "\(fence) \(type)"
                }
                #expect(pairs == expected)
                #expect(try await TrackingServerTests.http(port, "GET", "/api/events?from=1e300").status == 400)
                #expect(try await TrackingServerTests.http(port, "GET", "/api/positions?device=walker&to=-1e300").status == 400)

                // Pushed on /live, as fence-events messages, in order.
                var pushed = ""
                func kinds() -> [String] {
                    pushed.matches(of: /"fence":"(park|cafe)","latitude":[^,]+,"longitude":[^,]+,"time":"[^"]+","type":"(enter|exit|dwell)"/)
                        .map { "\($0.1) \($0.2)" }
                }
                while kinds().count < expected.count {
                    let more = try LiveFanOutTests.read(live, until: ["fence-events"])
                    if more.isEmpty { break } // closed, or 30 s without a message
                    pushed += more
                }
                #expect(kinds() == expected)
                #expect(pushed.contains(#""type":"fence-events""#))

                let metrics = try await TrackingServerTests.http(port, "GET", "/metrics").body
                #expect(metrics.contains(#"tracking_fence_events_total{type="enter"} 2"#))
                #expect(metrics.contains(#"tracking_fence_events_total{type="dwell"} 1"#))
                #expect(metrics.contains(#"tracking_fence_events_total{type="exit"} 2"#))
            }
        }
    }

    /// Inside the park, then 10 minutes on its west edge with σ = 3 m jitter and 10 m accuracy
    /// (P inside about 0.5, between the exit and enter thresholds 0.1 and 0.9): one enter and no
    /// flapping. An older fix arriving late (from outside, 30.5 s before the last) is stored but
    /// moves nothing.
    @Test func jitterOnTheEdge_doesNotFlap_lateFixIgnored() async throws {
        try await withTemporaryDirectory { dir in
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path)
            let ingest = try await TrackingIngest(store: store, policy: .register, fences: FenceOptions(fences: try Self.fences(), dwell: nil))
            defer { ingest.stop() }
            let start = Int64(Date().timeIntervalSince1970) - 5000
            let fixes = try Self.walk("edge", start: start, [(0, 0, 60), (-100, 0, 60), (-100, 0, 600)], seed: 7, accuracy: 10)
            try await Self.ingest(ingest, fixes)
            let last = try #require(fixes.last).location.timestamp
            let late = TrackedFix(device: "edge", location: Location(coordinate: Self.frame.coordinate(east: -400, north: 0),
                                                                     timestamp: last.addingTimeInterval(-30.5), horizontalAccuracy: .meters(5)), source: .osmAnd)
            try await ingest.ingest([late, late], receivedAt: Date())
            try await Self.decided(ingest)
            #expect(Self.summary(try await store.events(device: "edge", from: .min, to: .max, limit: 100)) == ["park enter"])
            #expect(try await store.count(device: "edge", fixTime: Int64((late.location.timestamp.timeIntervalSince1970 * 1000).rounded())) == 1)
        }
    }

    /// A server that stops after the walker entered the park and is started again on the same
    /// database: the retried fixes and the rest of the stay give the dwell once and no second
    /// enter; the events table holds each event once.
    @Test func restart_noSecondEnter_noDuplicates() async throws {
        try await withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("t.sqlite").path
            let start = Int64(Date().timeIntervalSince1970) - 5000
            let fixes = try Self.walk("walker", start: start, [(-250, 0, 30), (0, 0, 150), (0, 0, 400)])
            let first = try await TrackingIngest(store: try SQLitePositionStore(path: path), policy: .register, fences: FenceOptions(fences: try Self.fences()))
            try await Self.ingest(first, Array(fixes[..<240]))
            try await Self.decided(first)
            first.stop()
            let store = try SQLitePositionStore(path: path)
            #expect(Self.summary(try await store.events(device: "walker", from: .min, to: .max, limit: 100)) == ["park enter"])
            let second = try await TrackingIngest(store: store, policy: .register, fences: FenceOptions(fences: try Self.fences()))
            defer { second.stop() }
            try await Self.ingest(second, Array(fixes[200...])) // 40 fixes sent again (retries), then the rest
            try await Self.decided(second)
            #expect(Self.summary(try await store.events(device: "walker", from: .min, to: .max, limit: 100)) == ["park enter", "park dwell"])
        }
    }

    /// Events of four devices, a fence entered and later exited, another entered twice, one
    /// entered and exited within a millisecond: the latest per (device, fence) of the devices
    /// asked for, in one call — what a restart resumes from for the devices of a batch
    /// (`FenceMonitor`); of an enter and an exit at one time the exit (before, SQLite gave both
    /// and PostgreSQL either, and a restart resumed inside). Shared with the PostgreSQL test.
    static func latestEvents_perDeviceAndFence(_ store: any PositionStore) throws {
        func e(_ device: String, _ fence: String, _ kind: FenceEvent.Kind, _ time: Int64) -> FenceEvent {
            FenceEvent(device: device, fence: fence, kind: kind, time: time, latitude: 48.1, longitude: 2.1)
        }
        _ = try store.add(events: [e("a", "park", .enter, 1_000), e("a", "park", .exit, 2_000), e("a", "zoo", .enter, 1_500),
                                   e("b", "park", .enter, 1_200), e("b", "park", .dwell, 1_800), e("c", "zoo", .enter, 900),
                                   e("d", "park", .exit, 3_000), e("d", "park", .enter, 3_000)])
        let latest = try store.latestEvents(devices: ["a", "b", "d", "nobody"])
        #expect(Set(latest.map { "\($0.device) \($0.fence) \($0.kind.rawValue) \($0.time)" })
                == ["a park exit 2000", "a zoo enter 1500", "b park dwell 1800", "d park exit 3000"])
        #expect(latest.count == 4)
        #expect(try store.latestEvents(devices: []).isEmpty)
    }

    /// What a store takes of proposed events (`FenceEvent.accepted`): only an event that follows
    /// the latest stored one of its device and fence — an enter after none or an exit, an exit
    /// after an enter or a dwell, a dwell after an enter, never earlier — so an instance whose
    /// state fell behind stores no second enter and no exit of a fence never entered.
    @Test func accepted_onlyWhatFollowsTheLatestStoredEvent() {
        func e(_ kind: FenceEvent.Kind, _ time: Int64, _ fence: String = "park") -> FenceEvent {
            FenceEvent(device: "a", fence: fence, kind: kind, time: time, latitude: 48.1, longitude: 2.1)
        }
        func kept(_ proposed: [FenceEvent], after latest: [FenceEvent]) -> [String] {
            FenceEvent.accepted(proposed, after: Dictionary(uniqueKeysWithValues: latest.map { ([$0.device, $0.fence], $0) }))
                .map { "\($0.fence) \($0.kind.rawValue) \($0.time)" }
        }
        #expect(kept([e(.exit, 5), e(.dwell, 6), e(.enter, 7)], after: []) == ["park enter 7"])
        #expect(kept([e(.enter, 1_500), e(.exit, 900), e(.dwell, 1_800), e(.exit, 2_000), e(.exit, 2_100), e(.enter, 2_200)], after: [e(.enter, 1_000)])
                == ["park dwell 1800", "park exit 2000", "park enter 2200"])
        #expect(kept([e(.exit, 3_000), e(.enter, 3_000)], after: [e(.exit, 1_000)]) == ["park enter 3000", "park exit 3000"],
                "a crossing inferred within one millisecond: the enter, then the exit")
        #expect(kept([e(.enter, 500, "zoo"), e(.dwell, 2_000)], after: [e(.exit, 1_000)]) == ["zoo enter 500"], "each fence apart")
    }

    /// The store keeps that rule: an enter while the stored state is inside, or an exit while
    /// outside, is not stored, and is not returned as new. Shared with the PostgreSQL test.
    static func add_refusesWhatDoesNotFollow(_ store: any PositionStore) throws {
        func e(_ kind: FenceEvent.Kind, _ time: Int64) -> FenceEvent {
            FenceEvent(device: "walker", fence: "park", kind: kind, time: time, latitude: 48.1, longitude: 2.1)
        }
        #expect(try store.add(events: [e(.enter, 1_000)]) == [e(.enter, 1_000)])
        #expect(try store.add(events: [e(.enter, 1_200)]).isEmpty, "a second enter")
        #expect(try store.add(events: [e(.exit, 2_000), e(.exit, 2_100)]) == [e(.exit, 2_000)])
        #expect(try store.add(events: [e(.dwell, 2_500)]).isEmpty, "a dwell outside")
        #expect(try store.latestEvents(devices: ["walker"]) == [e(.exit, 2_000)])
    }

    @Test func add_refusesWhatDoesNotFollow_sqlite() throws {
        try withTemporaryDirectory { dir in
            try Self.add_refusesWhatDoesNotFollow(try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path))
        }
    }

    @Test func latestEvents_ofSeveralDevices_sqlite() throws {
        try withTemporaryDirectory { dir in
            try Self.latestEvents_perDeviceAndFence(try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path))
        }
    }

    /// A one-thread HTTP receiver on loopback: records each request's body, answers 200.
    final class Receiver: @unchecked Sendable {
        let server: TCPServer
        let bodies = Shared<[String]>([])
        init() throws {
            server = try TCPServer(host: "127.0.0.1", port: 0)
            Thread { [self] in
                while let client = try? server.accept() {
                    var request: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
                    while true {
                        let text = String(decoding: request, as: UTF8.self)
                        if let head = text.range(of: "\r\n\r\n"),
                           let length = text[..<head.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") })
                            .flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
                           text.utf8.distance(from: text.utf8.startIndex, to: head.upperBound) + length <= request.count {
                            bodies.withLock { $0.append(String(text[head.upperBound...])) }
                            break
                        }
                        guard let n = try? chunk.withUnsafeMutableBytes({ try client.read(into: $0) }), n > 0 else { break }
                        request += chunk[..<n]
                    }
                    try? client.writeAll("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    try? client.close()
                }
            }.start()
        }
    }

    /// The webhook gets the walk's events as fence-events JSON; a webhook that accepts the
    /// connection and never answers does not hold one ack: every fix is acknowledged and every
    /// event stored while its first POST is still waiting.
    @Test(.onOwnThread) func webhook_receivesEvents_deadWebhookDoesNotBlockAcks() async throws {
        try await withTemporaryDirectory { dir in
            let receiver = try Receiver()
            defer { receiver.server.close() }
            let start = Int64(Date().timeIntervalSince1970) - 5000
            let fixes = try Self.walk("walker", start: start, Self.throughParkAndCafe)
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("a.sqlite").path), policy: .register,
                                                  fences: FenceOptions(fences: try Self.fences(), webhook: "http://127.0.0.1:\(receiver.server.port)/hook"))
            try await Self.ingest(ingest, fixes)
            // Delivery is at least once (a POST whose answer timed out is sent again): an event is
            // told apart by its fence, type and time, as a receiver would.
            func received() -> [String] {
                var seen: Set<String> = []
                return receiver.bodies.withLock { $0 }.flatMap { body in
                    body.matches(of: /"fence":"(\w+)".*?"time":"([^"]+)","type":"(\w+)"/).compactMap { m in
                        seen.insert("\(m.1) \(m.2) \(m.3)").inserted ? "\(m.1) \(m.3)" : nil
                    }
                }
            }
            try await PostgresStoreTests.waitUntil("the webhook's five events") {
                received() == ["park enter", "park dwell", "park exit", "cafe enter", "cafe exit"]
            }
            #expect(ingest.metrics.text().contains("tracking_webhook_events_delivered_total 5"))
            ingest.stop()

            // Accepted by the kernel's backlog, never answered.
            let dead = try TCPServer(host: "127.0.0.1", port: 0)
            defer { dead.close() }
            let store = try SQLitePositionStore(path: dir.appendingPathComponent("b.sqlite").path)
            let stalled = try await TrackingIngest(store: store, policy: .register,
                                                   fences: FenceOptions(fences: try Self.fences(), webhook: "http://127.0.0.1:\(dead.port)/hook"))
            defer { stalled.stop() }
            try await Self.ingest(stalled, fixes)
            try await Self.decided(stalled)
            #expect(Self.summary(try await store.events(device: "walker", from: .min, to: .max, limit: 100)).count == 5)
            #expect(stalled.metrics.text().contains("tracking_acknowledged_fixes_total \(fixes.count)"))
            #expect(stalled.metrics.text().contains("tracking_webhook_events_delivered_total 0"))
        }
    }
}
