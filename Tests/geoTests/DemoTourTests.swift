import DemoTour
import Foundation
import GeoTestSupport
import MapRenderer
import Testing

/// Runs the tour without label fonts, collecting its narration.
private func narration(snapshot: String, text: () throws -> Void = {}) async throws -> [String] {
    let lines = LineCollector()
    do {
        try await DemoTour.run(snapshot: snapshot, text: { try text(); return nil }, line: { lines.append($0) })
    } catch {
        throw TourFailure(error: error, lines: lines.lines)
    }
    return lines.lines
}

private final class LineCollector {
    var lines: [String] = []
    func append(_ line: String) { lines.append(line) }
}

private struct TourFailure: Error {
    var error: any Error
    var lines: [String]
}

private struct NoFonts: Error {}

/// The tour's geodesy matches PROJ's `geod -I +ellps=WGS84` (an outside oracle): Paris → New
/// York 5,852,935.292 m, azimuths −68.173917° and 53.724045° (final bearing = back azimuth +
/// 180°); Monaco → Paris 689,870.941 m, −32.676679° and 143.651481°. The snapshot is an
/// 800×600 PNG, the drive is matched onto its route, and the geofence on the route's middle is
/// entered once and left once, in time order.
@Test func demoTour_narratesEachStep_withGeodesicsAsPROJ_andWritesThe800x600Snapshot() async throws {
    try await withTemporaryDirectory { dir in
        let png = dir.appendingPathComponent("tour.png").path
        let lines = try await narration(snapshot: png)
        #expect(lines.first == "LocationKit demo — embedded default data, no files needed\n")
        #expect(lines.contains("  Paris → New York: 5852.935 km, initial bearing 291.83°, final 233.72°"))
        #expect(lines.contains("  Monaco → Paris: 689.871 km, initial bearing 327.32°, final 323.65°"))
        for section in ["\nRoads:", "\nPositioning:", "\nMaps:", "\nMonitoring:"] {
            #expect(lines.contains { $0.hasPrefix(section) }, "no \(section) section")
        }

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "a PNG")
        // IHDR: width and height, big-endian, at bytes 16..<24.
        let size = (0..<2).map { i in bytes[16 + 4 * i ..< 20 + 4 * i].reduce(0) { $0 << 8 | Int($1) } }
        #expect(size == [800, 600])
        #expect(lines.contains("  snapshot 800×600 at zoom 14.7 with the route (blue) and the matched drive (red): \(png)"))

        let matching = try #require(lines.first { $0.hasPrefix("  map matching: ") })
        let counts = matching.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(counts.count >= 2 && counts[1] >= 90 && Double(counts[0]) / Double(counts[1]) >= 0.95, "\(matching)")

        // "  20 s: fence outside (P(inside) 0.000)", then inside, then outside again.
        let fence = lines.filter { $0.contains(" s: fence ") }
        #expect(fence.map { $0.contains("inside (") ? "inside" : "outside" } == ["outside", "inside", "outside"], "\(fence)")
        let seconds = fence.compactMap { Int($0.split(separator: " ").first ?? "") }
        #expect(seconds.count == 3 && seconds == seconds.sorted())

        // The tracking server: every fix acknowledged and read back, the same fence decided after
        // the ack at the same times (enter, exit), and the drive matched live within 10 m.
        #expect(lines.contains { $0.hasPrefix("\nTracking server:") }, "no tracking server section")
        let acknowledged = try #require(lines.first { $0.contains(" fixes acknowledged (200)") })
        let sent = acknowledged.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(sent.count >= 2 && sent[0] == sent[1] && sent[1] == counts[1], "\(acknowledged)")
        #expect(lines.contains("  GET /api/positions?device=demo-car&format=gpx: 200, \(counts[1]) track points"))
        let events = lines.filter { $0.hasPrefix("  fence event after the ack: ") }
        #expect(events == ["enter", "exit"].enumerated().map { "  fence event after the ack: \($1) at \(seconds.count == 3 ? seconds[$0 + 1] : -1) s (GET /api/events)" })
        let live = try #require(lines.first { $0.hasPrefix("  matched live for a /live follower") })
        let metres = try #require(live.components(separatedBy: ", ").first { $0.hasSuffix(" m from it") }.flatMap { Double($0.split(separator: " ").first ?? "") })
        #expect(metres < 10, "\(live)")
    }
}

/// A label-font failure stops the tour before the snapshot: the error comes out, the steps
/// before the map were narrated, no snapshot file is left.
@Test func demoTour_fontFailure_stopsBeforeTheSnapshot_afterNarratingTheEarlierSteps() async throws {
    try await withTemporaryDirectory { dir in
        let png = dir.appendingPathComponent("tour.png").path
        do {
            _ = try await narration(snapshot: png, text: { throw NoFonts() })
            Issue.record("the tour ignored the font failure")
        } catch let failure as TourFailure {
            #expect(failure.error is NoFonts)
            #expect(failure.lines.contains { $0.hasPrefix("\nPositioning:") })
            #expect(failure.lines.contains { $0.hasPrefix("\nMaps:") })
            #expect(!failure.lines.contains { $0.hasPrefix("  snapshot ") } && !failure.lines.contains { $0.hasPrefix("\nMonitoring:") })
        }
        #expect(!FileManager.default.fileExists(atPath: png))
    }
}
