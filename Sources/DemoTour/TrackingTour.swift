import Foundation
import GeoCore
import HTTPServing
import MapMatching
import Monitoring
import OSMImport
import SystemIO
import TrackingServer

extension DemoTour {
    /// The drive's fixes sent to the tracking server (`geo serve-tracking`) on loopback as the
    /// OsmAnd app sends them, each answered only once committed to a SQLite file in a temporary
    /// folder; then its track read back over the read API, the geofence decided after the ack
    /// and the drive matched live for a device that opted in (`--live-match`), as a `/live`
    /// follower gets it.
    func trackingTour(_ city: SampleCityRoute, fixes: [Location], fence: CircularGeographicCondition) async throws {
        line("\nTracking server: the drive sent to `geo serve-tracking` on loopback as OsmAnd requests, "
            + "each answered once committed (SQLite, a temporary folder)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("locationkit-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let matcher = try MapMatcher(graph: city.graph, mode: .car)
        let ingest = try await TrackingIngest(store: try SQLitePositionStore(path: folder.appendingPathComponent("tracking.sqlite").path),
                                              policy: .register, fences: FenceOptions(fences: [("fence", .circle(fence))]), matcher: matcher,
                                              liveMatching: LiveMatchingOptions(devices: ["demo-car"], matcher: matcher))
        guard let follower = ingest.live.subscribe(.devices(["demo-car"]), whenDue: { _ in }) else { return }
        // The server's routes stop `ingest` when they end (cancelled), committing what is queued.
        let (ports, portFound) = AsyncStream.makeStream(of: Int.self)
        let server = Task {
            defer { portFound.finish() }
            try await TrackingRoutes.run(LocalServer.Options(port: 0, hosts: ["127.0.0.1"]), ingest: ingest, serving: { url in
                if let port = url.split(separator: ":").last.flatMap({ Int($0.dropLast()) }) { portFound.yield(port) }
            }, note: { _ in })
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { return try await server.value } // it could not listen: its error
        do {
            try await send(fixes, to: port, follower: follower, ingest: ingest)
        } catch {
            server.cancel()
            _ = await server.result
            throw error
        }
        server.cancel()
        _ = await server.result
    }

    /// `trackingTour`'s requests and what they show, to the server on 127.0.0.1:`port`.
    private func send(_ fixes: [Location], to port: Int, follower: LiveFanOut.Subscriber, ingest: TrackingIngest) async throws {
        var acknowledged = 0
        for fix in fixes {
            let c = fix.coordinate
            let target = "/?id=demo-car&lat=\(c.latitude)&lon=\(c.longitude)&timestamp=\(Int64(fix.timestamp.timeIntervalSince1970))"
                + "&accuracy=\(fix.horizontalAccuracy?.meters ?? 10)&speed=\(fix.speed?.metersPerSecond ?? 0)"
            if try await LoopbackHTTP.request(port: port, target: target).status == 200 { acknowledged += 1 }
        }
        line("  \(acknowledged) of \(fixes.count) fixes acknowledged (200), each after its group commit")
        let track = try await LoopbackHTTP.request(port: port, target: "/api/positions?device=demo-car&format=gpx")
        line("  GET /api/positions?device=demo-car&format=gpx: \(track.status), \(track.body.components(separatedBy: "<trkpt ").count - 1) track points")

        // The fence decisions and live matching trail the acks: every committed batch is decided
        // and matched within moments (their histograms count the batches).
        func count(_ name: String) -> Double? {
            ingest.metrics.text().split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        for _ in 0..<500 {
            guard let commits = count("tracking_commits_total"), count("tracking_fence_decision_seconds_count") ?? 0 < commits
                    || count("tracking_live_match_seconds_count") ?? 0 < commits else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let start = fixes.first?.timestamp ?? Date()
        for event in try Self.fenceEvents(try await LoopbackHTTP.request(port: port, target: "/api/events?device=demo-car").body) {
            line("  fence event after the ack: \(event.type) at \(format(event.time.timeIntervalSince(start), 0)) s (GET /api/events)")
        }
        if let matched = follower.take().matched.last, let latitude = matched.latitude, let longitude = matched.longitude,
           let fix = fixes.first(where: { Int64($0.timestamp.timeIntervalSince1970 * 1000) == matched.fixTime }) {
            let on = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
            line("  matched live for a /live follower (--live-match demo-car): the fix at \(format(fix.timestamp.timeIntervalSince(start), 0)) s "
                + "on \(matched.road.map { $0.isEmpty ? "an unnamed road" : $0 } ?? "a road"), \(format(fix.coordinate.distance(to: on).meters, 1)) m from it, "
                + "confidence \(format(matched.confidence, 2))")
        }
    }

    /// The type and time of each event of a `GET /api/events` reply (`FenceEvent.message`).
    static func fenceEvents(_ body: String) throws -> [(type: String, time: Date)] {
        struct Reply: Decodable {
            struct Event: Decodable { var type: String; var time: String }
            var events: [Event]
        }
        let reply = try JSONDecoder().decode(Reply.self, from: Data(body.utf8))
        return reply.events.compactMap { e in (try? Date(e.time, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))).map { (e.type, $0) } }
    }
}
