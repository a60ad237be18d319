import Foundation
import GeoCore
import GeoTestSupport
import GPXCodec
import MapMatching
import OSMImport
import RoadNetwork
import SystemIO
import Testing
import TrackFiltering
import TrackingProtocols
@testable import TrackingServer

/// `GET /api/positions?track=cleaned|matched` on real tracks from ../shared/data.
@Suite struct TrackViewsTests {
    /// The timed points of a GPX file as one device's fixes.
    static func fixes(_ relativePath: String, device: String, accuracy: Double?) throws -> [TrackedFix]? {
        guard let url = try Fixtures.url(relativePath) else { return nil }
        let document = try GPXReader.read(bytes: try Data(contentsOf: url))
        return document.tracks.flatMap { $0.segments.flatMap(\.points) }.compactMap { p in
            p.time.map {
                TrackedFix(device: device, location: Location(coordinate: p.coordinate, timestamp: $0, horizontalAccuracy: accuracy.map(Distance.meters)),
                           source: .gpsLogger)
            }
        }
    }

    /// The points of a GeoJSON answer: position and time (ISO 8601 text).
    static func points(_ body: String) throws -> [(coordinate: Coordinate, time: String)] {
        guard case .featureCollection(let features) = try GeoJSON(data: Data(body.utf8)) else { return [] }
        return features.compactMap { f in
            guard case .point(let p)? = f.geometry, case .string(let time)? = f.properties?["time"] else { return nil }
            return (p.coordinate, time)
        }
    }

    static func length(_ points: [(coordinate: Coordinate, time: String)]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + LocalFrame.distance($1.0.coordinate, $1.1.coordinate) }
    }

    /// A Garmin eTrex car drive around Višnjan (10 s fixes) with one fix 2 km off in its middle:
    /// the raw read has it, the cleaned read (default rules + smoother) drops it, keeps at least
    /// 80 % of the real fixes, moves none more than 30 m from its raw position at the same time,
    /// and is shorter than the raw track by the spike's detour (about 4 km) less 20 m. Without
    /// roads, `track=matched` is a 400 that says so; an unknown track is a 400.
    @Test(.onOwnThread) func cleaned_dropsTheSpike_keepsTheDrive() async throws {
        guard var fixes = try Self.fixes("gpx/gpxpy/around-visnjan-with-car.gpx", device: "car", accuracy: nil) else { return }
        let n = fixes.count
        #expect(n > 100)
        let middle = fixes[n / 2]
        let spike = LocalFrame(origin: middle.location.coordinate).coordinate(east: 0, north: 2000)
        fixes.insert(TrackedFix(device: "car", location: Location(coordinate: spike, timestamp: middle.location.timestamp.addingTimeInterval(1)),
                                source: .gpsLogger), at: n / 2 + 1)
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register)
            defer { ingest.stop() }
            try await FenceTests.ingest(ingest, fixes, perRequest: 100)
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let raw = try Self.points(try await TrackingServerTests.http(port, "GET", "/api/positions?device=car").body)
                let cleanedReply = try await TrackingServerTests.http(port, "GET", "/api/positions?device=car&track=cleaned")
                #expect(cleanedReply.status == 200)
                let cleaned = try Self.points(cleanedReply.body)
                #expect(raw.count == n + 1)
                #expect(raw.contains { LocalFrame.distance($0.coordinate, spike) < 1 })
                #expect(!cleaned.contains { LocalFrame.distance($0.coordinate, spike) < 1_000 }, "the spike is in the cleaned track")
                #expect(cleaned.count >= n * 8 / 10 && cleaned.count <= n, "\(cleaned.count) of \(n) fixes kept")
                let rawByTime = Dictionary(raw.map { ($0.time, $0.coordinate) }, uniquingKeysWith: { a, _ in a })
                for p in cleaned {
                    let original = try #require(rawByTime[p.time])
                    #expect(LocalFrame.distance(original, p.coordinate) < 30, "\(p.time) moved \(LocalFrame.distance(original, p.coordinate)) m")
                }
                // The spike's detour: to it and back instead of the 1 s step it interrupts.
                let (before, after) = (fixes[n / 2].location.coordinate, fixes[n / 2 + 2].location.coordinate)
                let detour = LocalFrame.distance(before, spike) + LocalFrame.distance(spike, after) - LocalFrame.distance(before, after)
                #expect(Self.length(raw) - Self.length(cleaned) > detour - 20, "raw \(Self.length(raw)) m, cleaned \(Self.length(cleaned)) m, detour \(detour) m")

                let matched = try await TrackingServerTests.http(port, "GET", "/api/positions?device=car&track=matched")
                #expect(matched.status == 400 && matched.body.contains("--roads"))
                #expect(try await TrackingServerTests.http(port, "GET", "/api/positions?device=car&track=smooth").status == 400)
            }
        }
    }

    /// GraphHopper's issue-70 trace in Novi Sad (17 fixes, 60 s apart) over its map, with
    /// `--roads`: at least 15 fixes matched, each on a car road of that map (within 0.5 m of an
    /// edge of the graph built from the same file) and within 60 m of its raw position.
    @Test(.onOwnThread) func matched_putsTheFixesOnTheRoads() async throws {
        guard let map = try Fixtures.url("traces/graphhopper-mm/issue-70.osm.gz"),
              let fixes = try Self.fixes("traces/graphhopper-mm/issue-70.gpx", device: "taxi", accuracy: nil) else { return }
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register,
                                                  matcher: try TrackRoads.matcher(osmFile: map.path))
            defer { ingest.stop() }
            try await FenceTests.ingest(ingest, fixes)
            let roads = SpatialIndex(graph: try RoadGraphExtractor.extract(from: map, profile: .car).graph)
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let raw = try Self.points(try await TrackingServerTests.http(port, "GET", "/api/positions?device=taxi").body)
                let reply = try await TrackingServerTests.http(port, "GET", "/api/positions?device=taxi&track=matched")
                #expect(reply.status == 200)
                let matched = try Self.points(reply.body)
                #expect(raw.count == fixes.count)
                #expect(matched.count >= 15, "\(matched.count) of \(fixes.count) matched")
                let rawByTime = Dictionary(raw.map { ($0.time, $0.coordinate) }, uniquingKeysWith: { a, _ in a })
                for p in matched {
                    #expect(!roads.nearestEdges(to: p.coordinate, maxDistance: .meters(0.5)).isEmpty, "\(p.time) is off the roads")
                    let original = try #require(rawByTime[p.time])
                    #expect(LocalFrame.distance(original, p.coordinate) < 60)
                }
            }
        }
    }

    /// The same trace sent by a device that opted in to live matching ("taxi") and by one that
    /// did not ("other"): after the ack the opted-in device's fixes go through the clean-track
    /// rules and the online matcher, at least 15 of the 17 are answered on a car road of the map
    /// (within 0.5 m of an edge of the graph built from the same file) and within 60 m of the
    /// fix, and a `/live` follower of both (in process, and over a WebSocket) gets the taxi's
    /// latest answer and nothing for the other device.
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func liveMatching_optedInDevicesMatchedAfterTheAck() async throws {
        guard let map = try Fixtures.url("traces/graphhopper-mm/issue-70.osm.gz"),
              let fixes = try Self.fixes("traces/graphhopper-mm/issue-70.gpx", device: "taxi", accuracy: nil) else { return }
        let others = fixes.map { TrackedFix(device: "other", location: $0.location, source: $0.source) }
        let matcher = try TrackRoads.matcher(osmFile: map.path)
        try await withTemporaryDirectory { dir in
            let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: dir.appendingPathComponent("t.sqlite").path), policy: .register,
                                                  matcher: matcher, liveMatching: LiveMatchingOptions(devices: ["taxi"], matcher: matcher))
            defer { ingest.stop() }
            let subscriber = try #require(ingest.live.subscribe(.devices(["taxi", "other"])) { _ in })
            try await TrackingServerTests.withServer(ingest) { port async throws in
                let client = try LiveFanOutTests.subscribed(port, "/live?devices=taxi,other")
                defer { try? client.close() }
                try await FenceTests.ingest(ingest, fixes + others, perRequest: 1)
                // What the online matcher answers for the fixes the rules pass, as the server's thread runs them.
                var cleaner = TrackCleaner(configuration: TrackViews.cleaningConfiguration), online = OnlineMatcher(matcher: matcher)
                let stored = try await ingest.store.positions(device: "taxi", from: 0, to: .max, limit: 100)
                let answers = stored.compactMap { LiveMatching.match($0, cleaner: &cleaner, matcher: &online) }
                let placed = answers.filter { $0.latitude != nil }
                #expect(placed.count >= 15, "\(placed.count) of \(fixes.count) matched")
                let roads = SpatialIndex(graph: try RoadGraphExtractor.extract(from: map, profile: .car).graph)
                for answer in placed {
                    let on = Coordinate(uncheckedLatitude: answer.latitude!, longitude: answer.longitude!)
                    #expect(!roads.nearestEdges(to: on, maxDistance: .meters(0.5)).isEmpty, "\(answer.fixTime) is off the roads")
                    let fix = try #require(stored.first { $0.fixTime == answer.fixTime })
                    #expect(LocalFrame.distance(Coordinate(uncheckedLatitude: fix.latitude, longitude: fix.longitude), on) < 60)
                }
                // The server's thread has answered them all once its count says so.
                for _ in 0..<200 where !ingest.metrics.text().contains("tracking_live_matched_fixes_total \(answers.count)\n") {
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(ingest.metrics.text().contains("tracking_live_matched_fixes_total \(answers.count)\n"))
                #expect(subscriber.take().matched == [answers.last!], "the follower holds the taxi's latest answer, and none of the other device")
                // Over the WebSocket: `matched` messages up to the latest answer, none of the other device.
                let latest = #""time":"\#(TrackOutput.iso8601(answers.last!.fixTime))""#
                let heard = try LiveFanOutTests.read(client, until: [#""type":"matched""#, latest])
                let messages = heard.components(separatedBy: #"{"positions":["#).dropFirst()
                #expect(heard.contains(latest) && !messages.isEmpty)
                #expect(messages.allSatisfy { !$0.prefix(while: { $0 != "]" }).contains(#""device":"other""#) })
                #expect(String(decoding: LiveMatchedFix.message([answers.last!]), as: UTF8.self).hasPrefix(#"{"positions":[{"confidence":"#))
            }
        }
    }

    /// Two instances on one PostgreSQL, B matching the taxi live: the taxi sends every fix to A,
    /// and B's `/live` follower still gets matched positions, on the roads — B matches the
    /// latest positions A's batches name, as it decides their fences.
    @Test(.onOwnThread, .timeLimit(.minutes(2))) func liveMatching_fixesSentToAnotherInstance() async throws {
        guard let map = try Fixtures.url("traces/graphhopper-mm/issue-70.osm.gz"),
              let fixes = try Self.fixes("traces/graphhopper-mm/issue-70.gpx", device: "taxi", accuracy: nil) else { return }
        let matcher = try TrackRoads.matcher(osmFile: map.path)
        _ = try await PostgresTestServer.with { pg in
            let a = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register)
            defer { a.stop() }
            let b = try await TrackingIngest(store: try await PostgresPositionStore.open(url: pg.url), policy: .register,
                                             matcher: matcher, liveMatching: LiveMatchingOptions(devices: ["taxi"], matcher: matcher))
            defer { b.stop() }
            try await TrackingServerTests.withServer(b) { port async throws in
                let client = try LiveFanOutTests.subscribed(port, "/live?devices=taxi")
                defer { try? client.close() }
                try await LiveAcrossInstancesTests.bothListen(pg)
                try await FenceTests.ingest(a, fixes, perRequest: 1)
                var heard = try LiveFanOutTests.read(client, until: [#""type":"matched""#])
                heard += LiveFanOutTests.read(client, for: 2)
                let placed = heard.matches(of: /"latitude":([-0-9.]+),"longitude":([-0-9.]+),"revised":(true|false),"road"/)
                    .map { Coordinate(uncheckedLatitude: Double($0.1)!, longitude: Double($0.2)!) }
                #expect(!placed.isEmpty, "B's follower heard no matched position: \(heard.suffix(500))")
                let roads = SpatialIndex(graph: try RoadGraphExtractor.extract(from: map, profile: .car).graph)
                for on in placed { #expect(!roads.nearestEdges(to: on, maxDistance: .meters(0.5)).isEmpty, "\(on) is off the roads") }
            }
        }
    }
}
