import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapMatching
import Positioning
import RoadNetwork
import TrackFiltering

// The manager's map-matching wiring on a real graph: a drive simulated by RouteSimulationSource
// along roads of an ASCII map goes through LiveMapMatcher; the expectations are about which
// position the events carry.

/// Two parallel east–west roads 60 m apart, joined at the east end; the drive goes along the
/// north road, turns south onto the link and stops halfway down it (not at a junction, where
/// either road would fit the last fix).
private func scene() -> (graph: RoadGraph, route: [Coordinate], roads: [Coordinate]) {
    var map = AsciiRoadMap("""
        a         b


        c         d
        """, gridSize: 20)
    map.way("ab", ["highway": "primary"])
    map.way("cd", ["highway": "primary"])
    map.way("bd", ["highway": "residential"])
    let b = map.coordinate("b")!, d = map.coordinate("d")!
    let halfway = Coordinate(uncheckedLatitude: (b.latitude + d.latitude) / 2, longitude: (b.longitude + d.longitude) / 2)
    return (map.graph(profile: .car).graph, [map.coordinate("a")!, b, halfway], [map.coordinate("a")!, b, d])
}

/// The distance (m) from `c` to the polyline `line`.
private func distance(_ c: Coordinate, to line: [Coordinate]) -> Double {
    zip(line, line.dropFirst()).map { c.projected(onSegmentFrom: $0, to: $1).distance.meters }.min() ?? .infinity
}

/// Runs a noisy simulated drive along `route` through a manager matching in `mode`; returns
/// every event up to `.stopped` and the manager.
private func drive(_ route: [Coordinate], matcher: LiveMapMatcher, mode: MapMatchMode,
                   enabled: Bool = true) async throws -> ([PositioningEvent], PositioningManager) {
    let source = try RouteSimulationSource(polyline: route, movementSpeed: .metersPerSecond(10), updateInterval: .seconds(1),
                                           noise: .init(sigma: .meters(5), seed: 11), pacing: .asFastAsPossible,
                                           startDate: Date(timeIntervalSince1970: 1_790_000_000))
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered, pausesAutomatically: false)
    await manager.setMapMatcher(matcher)
    await manager.setMapMatchingEnabled(enabled, mode: mode)
    let events = manager.events(bufferingPolicy: .unbounded)
    await manager.start()
    var seen: [PositioningEvent] = []
    for await e in events {
        seen.append(e)
        if case .stopped = e { break }
    }
    return (seen, manager)
}

@Test func mapMatching_eventsCarryRawAndMatched_currentIsTheConfidentMatch() async throws {
    let (graph, route, roads) = scene()
    let (events, manager) = try await drive(route, matcher: LiveMapMatcher(car: try MapMatcher(graph: graph)), mode: .car)
    var pairs: [(MapMatchedUpdate, Location)] = []
    for (e, next) in zip(events, events.dropFirst()) {
        if case .mapMatched(let m) = e {
            guard case .updated(let l) = next else { Issue.record("a .mapMatched not followed by its .updated"); continue }
            pairs.append((m, l))
        }
    }
    let updates = events.filter { if case .updated = $0 { true } else { false } }.count
    // 230 m at 10 m/s, one fix a second.
    #expect(updates >= 22)
    #expect(pairs.count == updates)
    // The .updated event carries the update's current position, and the raw fixes are noisy.
    #expect(pairs.allSatisfy { $0.0.currentPosition == $0.1 })
    #expect(pairs.contains { distance($0.0.rawPosition.coordinate, to: route) > 3 })
    // Every matched position lies on the driven roads ab and bd (within 0.5 m), never on the
    // parallel one 60 m away, and keeps the fix's time.
    let matched = pairs.compactMap { $0.0.mapMatchedPosition }
    #expect(matched.count >= updates - 1)
    for (m, _) in pairs {
        guard let p = m.mapMatchedPosition else { continue }
        #expect(distance(p.coordinate, to: roads) < 0.5, "matched \(p.coordinate) is off the route")
        #expect(p.timestamp == m.rawPosition.timestamp)
        #expect((m.confidence >= 0.5) == m.isMatched)
    }
    // The current position is the match for most fixes (confidence ≥ 0.5, the default threshold).
    let confident = pairs.filter { $0.0.isMatched }.count
    #expect(Double(confident) / Double(updates) >= 0.9, "\(confident) of \(updates) fixes matched confidently")
    #expect(await manager.mapMatchedPosition == matched.last)
    #expect(await manager.mapMatchConfidence == pairs.last?.0.confidence)
}

@Test func mapMatching_aModeWithoutGraphOrMatchingOff_keepsTheRawPosition() async throws {
    let (graph, route, _) = scene()
    // A car graph only: pedestrian mode matches nothing, so every update carries the fix.
    let (events, manager) = try await drive(route, matcher: LiveMapMatcher(car: try MapMatcher(graph: graph)), mode: .pedestrian)
    let updates = events.compactMap { if case .mapMatched(let m) = $0 { m } else { nil } }
    #expect(updates.count >= 22)
    #expect(updates.allSatisfy { $0.mapMatchedPosition == nil && $0.confidence == 0 && $0.currentPosition == $0.rawPosition })
    #expect(await manager.mapMatchedPosition == nil)
    // Matching off: no .mapMatched events at all.
    let (off, _) = try await drive(route, matcher: LiveMapMatcher(car: try MapMatcher(graph: graph)), mode: .car, enabled: false)
    #expect(!off.contains { if case .mapMatched = $0 { true } else { false } })
    #expect(off.contains { if case .updated = $0 { true } else { false } })
}
