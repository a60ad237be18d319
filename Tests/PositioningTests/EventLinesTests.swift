import Foundation
import Testing
import GeoCore
import GeoTestSupport
import Positioning
import TrackFiltering

// EventLines, geo track's output: a manager's events as CONTRACT.md's JSON lines.

/// Runs `locations` as fast as possible through an unfiltered manager that does not pause and
/// writes its events with `count`; returns the lines, the notes, the result and the manager.
private func lines(of locations: [Location], count: Int?) async throws -> ([String], [String], Bool, PositioningManager) {
    let manager = PositioningManager(source: try LocationReplaySource(locations: locations, pacing: .asFastAsPossible), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered, pausesAutomatically: false)
    let events = manager.events(bufferingPolicy: .unbounded)
    #expect(await manager.start())
    let out = Output()
    let failed = await EventLines(count: count, withMatches: false, line: { out.lines.append($0) }, flush: {},
                                  note: { out.notes.append($0) }).write(events, of: manager)
    return (out.lines, out.notes, failed, manager)
}

/// What a run wrote.
private final class Output {
    var lines: [String] = []
    var notes: [String] = []
}

@Test func eventLines_countEndsAfterThatManyUpdates_andStopsTheManager() async throws {
    let walk = (0..<10).map { fix(north: Double($0) * 5, t: Double($0), accuracy: 4, speed: 5) }
    let (lines, notes, failed, manager) = try await lines(of: walk, count: 3)
    #expect(lines.count == 3)
    #expect(lines.allSatisfy { $0.hasPrefix(#"{"event":"update","#) && $0.hasSuffix(#""stationary":false}"#) })
    // The first fix as delivered: 48° N 11° E at 9 decimals, its accuracy in metres at 3.
    #expect(lines.first?.contains(#""lat":48.000000000,"lon":11.000000000,"accuracy":4.000"#) == true)
    // No "matched" member without live matching.
    #expect(!lines.contains { $0.contains("matched") })
    #expect(notes.isEmpty)
    #expect(!failed)
    #expect(await !manager.isRunning)
}

@Test func eventLines_withoutCount_writesEveryFixUntilTheSourceEnds() async throws {
    let walk = (0..<6).map { fix(north: Double($0) * 5, t: Double($0), accuracy: 4, speed: 5) }
    let (lines, _, failed, _) = try await lines(of: walk, count: nil)
    #expect(lines.count == 6)
    // The last line is the last fix: 25 m north, 5 s after the first.
    #expect(lines.last?.contains(#""time":"2026-09-21T14:13:25.000Z""#) == true)
    #expect(!failed)
}
