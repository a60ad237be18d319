import Foundation
import Testing
import GeoCore
import GeoTestSupport
import Positioning
import RoadNetwork
import TrackFiltering

// LiveTrack, geo track's run: a source through a manager set up by preset, matching, visits and
// a log session, its events as JSON lines.

/// What a run wrote.
private final class Output: @unchecked Sendable {
    var lines: [String] = []
    var notes: [String] = []
}

/// Runs `track` over `locations` replayed as fast as possible.
private func run(_ track: LiveTrack, _ locations: [Location]) async throws -> (Output, Bool) {
    let out = Output()
    let failed = try await track.run(try LocationReplaySource(locations: locations, pacing: .asFastAsPossible),
                                     line: { out.lines.append($0) }, flush: {}, note: { out.notes.append($0) })
    return (out, failed)
}

@Test func liveTrack_raw_writesEveryFixUpToCount_withoutFilterNotes() async throws {
    // Half a metre apart, a second apart: a preset's filter would drop most of them.
    let walk = (0..<8).map { fix(north: Double($0) * 0.5, t: Double($0), accuracy: 4, speed: 0.5) }
    let (out, failed) = try await run(LiveTrack(preset: "raw", count: 5), walk)
    #expect(!failed)
    #expect(out.lines.count == 5)
    #expect(out.lines.allSatisfy { $0.hasPrefix(#"{"event":"update","#) })
    // The fifth fix, 4 s after the first (the epoch of `fix` is 2026-09-21T14:13:20Z).
    #expect(out.lines.last?.contains(#""time":"2026-09-21T14:13:24.000Z""#) == true)
    // "raw" has no filter: no drop notes, no summary.
    #expect(out.notes.isEmpty)
}

@Test func liveTrack_preset_sumsUpItsDropsAtTheEnd() async throws {
    // Half a metre a second (and months old against the clock): the default preset drops
    // fixes, and sums the drops up in one note at the end.
    let walk = (0..<30).map { fix(north: Double($0) * 0.5, t: Double($0), accuracy: 4, speed: 0.5) }
    let (out, failed) = try await run(LiveTrack(preset: "default"), walk)
    #expect(!failed)
    #expect(out.lines.count < 30)
    #expect(out.notes.last?.hasPrefix("filter: 30 fixes,") == true, "\(out.notes)")
}

@Test func liveTrack_logDirectory_logsWhatTheSourceDelivered_asGPX() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("livetrack-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let walk = (0..<4).map { fix(north: Double($0) * 10, t: Double($0), accuracy: 4, speed: 10) }
    let (out, failed) = try await run(LiveTrack(preset: "raw", logDirectory: dir.path), walk)
    #expect(!failed && out.lines.count == 4)
    let logs = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".gpx") }
    #expect(logs.count == 1)
    let gpx = try String(contentsOf: dir.appendingPathComponent(logs[0]), encoding: .utf8)
    #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == 4)
    // Left for a rerun: the session's state file stays.
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.hasSuffix(".session.json") })
}

@Test func liveTrack_matchGraphOfNoMatchingMode_isRefusedWithItsProfile() async throws {
    var map = AsciiRoadMap("""
        a     b
        """, gridSize: 20)
    map.way("ab", ["highway": "residential"])
    let bicycle = map.graph(profile: .bicycle).graph
    await #expect(throws: LiveTrack.UnmatchableGraph.self) {
        _ = try await run(LiveTrack(preset: "raw", matchGraph: { bicycle }), [fix(t: 0)])
    }
    do { _ = try await run(LiveTrack(preset: "raw", matchGraph: { bicycle }), [fix(t: 0)]) } catch let error as LiveTrack.UnmatchableGraph {
        #expect(error.profileName == "bicycle")
    }
}
