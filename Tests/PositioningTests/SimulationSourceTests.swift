import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Positioning
import TrackFiltering

/// Collects location events from a source until `count` fixes or the end.
private func fixes(_ source: any PositionSource, count: Int = .max) async throws -> [Location] {
    var out: [Location] = []
    for try await event in source.events() {
        if case .location(let l) = event { out.append(l) }
        if out.count == count { break }
    }
    return out
}

@Test func routeSimulation_movesAtTheGivenSpeedAlongTheGeodesic() async throws {
    let start = try Coordinate(latitude: 48, longitude: 11)
    let corner = start.coordinate(at: .meters(300), facing: .degrees(90))
    let end = corner.coordinate(at: .meters(200), facing: .degrees(0))
    let sim = try RouteSimulationSource(polyline: [start, corner, end], movementSpeed: .metersPerSecond(10),
                                        updateInterval: .seconds(1), pacing: .asFastAsPossible, startDate: Date(timeIntervalSince1970: 0))
    let out = try await fixes(sim)
    // 500 m at 10 m/s, one fix a second: t = 0 … 50 s.
    #expect(out.count == 51)
    #expect(abs(sim.length.meters - 500) < 1e-6) // metres
    #expect(out.last?.coordinate.distance(to: end).meters ?? .infinity < 1e-6) // metres
    #expect(out[10].coordinate.distance(to: start.coordinate(at: .meters(100), facing: .degrees(90))).meters < 1e-6)
    #expect(abs((out[10].course?.degrees ?? 0) - 90) < 0.01) // degrees: heading east on the first leg
    #expect(abs(Bearing.degrees(0).turn(to: out[40].course ?? .degrees(180))) < 0.01) // north on the second
    #expect(out[50].timestamp == Date(timeIntervalSince1970: 50))
    #expect(out.allSatisfy { $0.speed == .metersPerSecond(10) && $0.fixQuality == .simulated })
}

@Test func routeSimulation_noiseIsCorrelatedAndOfTheStatedSize() async throws {
    let start = try Coordinate(latitude: 10, longitude: 10)
    let end = start.coordinate(at: .kilometers(500), facing: .degrees(45))
    let noise = RouteSimulationSource.Noise(sigma: .meters(4), correlationTime: .seconds(20), seed: 42)
    let sim = try RouteSimulationSource(polyline: [start, end], movementSpeed: .metersPerSecond(20), noise: noise,
                                        pacing: .asFastAsPossible, startDate: Date(timeIntervalSince1970: 0))
    let truth = try RouteSimulationSource(polyline: [start, end], movementSpeed: .metersPerSecond(20),
                                          pacing: .asFastAsPossible, startDate: Date(timeIntervalSince1970: 0))
    let noisy = try await fixes(sim, count: 20_000), clean = try await fixes(truth, count: 20_000)
    let plane = zip(noisy, clean).map { n, c in LocalTangentPlane(origin: c.coordinate).enu(of: n.coordinate) }
    let east = plane.map(\.east)
    let sd = (east.map { $0 * $0 }.reduce(0, +) / Double(east.count)).squareRoot()
    // 20 000 fixes ≈ 1000 independent correlation times: the sample σ is within ±10 % of 4 m.
    #expect(abs(sd - 4) < 0.4, "σ = \(sd) m")
    // Lag-1 autocorrelation of a Gauss–Markov process with Δt = 1 s, τ = 20 s is e^(−1/20) = 0.951.
    let lag1 = zip(east, east.dropFirst()).map { $0 * $1 }.reduce(0, +) / Double(east.count - 1) / (sd * sd)
    #expect(abs(lag1 - exp(-1.0 / 20)) < 0.03, "lag-1 autocorrelation \(lag1)")
}

@Test func routeSimulation_stationaryHoldsWithJitter_andLostGoesSilent() async throws {
    let start = try Coordinate(latitude: 48, longitude: 11)
    let clock = ManualClock()
    let sim = try RouteSimulationSource(polyline: [start, start.coordinate(at: .kilometers(10), facing: .degrees(0))],
                                        movementSpeed: .metersPerSecond(10), startDate: Date(timeIntervalSince1970: 0),
                                        clock: SourceClock(clock))
    let seen = Mutex<[PositionSourceEvent]>([])
    let collected = Task { for try await e in sim.events() { seen.withLock { $0.append(e) } } }
    /// Advances n seconds, each time waiting until the source sleeps again, so a fault switched
    /// afterwards applies from the next fix on.
    func tick(_ n: Int) async {
        for _ in 0..<n {
            clock.advance(by: .seconds(1))
            _ = await eventually { clock.sleeperCount == 1 }
        }
    }
    _ = await eventually { clock.sleeperCount == 1 }
    await tick(5)              // fixes at t = 0 … 5, 50 m travelled
    sim.faults.isStationary = true
    await tick(10)             // 10 still fixes
    sim.faults.isStationary = false
    sim.faults.isPositionLost = true
    await tick(5)              // one .lost, then silence while it keeps moving
    sim.faults.isPositionLost = false
    await tick(10)
    collected.cancel()
    let events = seen.withLock { $0 }
    let locations = events.compactMap { if case .location(let l) = $0 { l } else { nil } }
    #expect(events.filter { $0 == .lost }.count == 1)
    let still = locations[6...15]
    let held = start.coordinate(at: .meters(60), facing: .degrees(0))
    #expect(still.allSatisfy { $0.coordinate.distance(to: held).meters < 10 && $0.speed == .zero })
    #expect(Set(still.map(\.coordinate)).count > 1, "a stationary device jitters")
    // After the lost period it has moved on: stationary 10 s, lost 5 s of movement not reported.
    let after = try #require(locations.last)
    #expect(after.timestamp.timeIntervalSince1970 > 25)
}

@Test func locationReplay_pacesByTimestampsAndSpeedFactor() async throws {
    let clock = ManualClock()
    let log = (0..<5).map { fix(north: Double($0) * 10, t: Double($0) * 10) } // a fix every 10 s
    let replay = try LocationReplaySource(locations: log, pacing: .speedFactor(5), clock: SourceClock(clock))
    let collected = Task { try await fixes(replay) }
    // At 5× a 10 s gap is 2 s of clock time.
    for _ in 0..<4 {
        #expect(await eventually { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 1, "not before 2 s")
        clock.advance(by: .seconds(1))
    }
    let out = try await collected.value
    #expect(out == log)
}

@Test func locationReplay_stationaryPausesTheTrackAndShiftsLaterTimes() async throws {
    let clock = ManualClock()
    let log = (0..<4).map { fix(north: Double($0) * 10, t: Double($0)) }
    let replay = try LocationReplaySource(locations: log, clock: SourceClock(clock))
    let collected = Task { try await fixes(replay) }
    #expect(await eventually { clock.sleeperCount == 1 })
    replay.faults.isStationary = true
    for _ in 0..<4 {
        clock.advance(by: .seconds(1))
        #expect(await eventually { clock.sleeperCount == 1 })
    }
    replay.faults.isStationary = false
    // Three more fixes, one second apart; after the last the replay ends and sleeps no more.
    for i in 0..<3 {
        clock.advance(by: .seconds(1))
        if i < 2 { #expect(await eventually { clock.sleeperCount == 1 }) }
    }
    let out = try await collected.value
    let times = out.map { $0.timestamp.timeIntervalSince(log[0].timestamp) }
    #expect(times == times.sorted(), "time never runs backwards")
    #expect(out.count >= 4 + 3, "the whole log plus the held fixes: \(times)")
    #expect(out.last?.coordinate == log.last?.coordinate)
    #expect((out.last?.timestamp.timeIntervalSince(log.last?.timestamp ?? Date())) ?? 0 >= 3, "later fixes are shifted by the pause")
}

@Test func routeSimulation_speedFactorDividesTheInterval_andAZeroFactorIsRejected() async throws {
    let start = try Coordinate(latitude: 48, longitude: 11)
    let clock = ManualClock()
    let sim = try RouteSimulationSource(polyline: [start, start.coordinate(at: .meters(30), facing: .degrees(0))],
                                        movementSpeed: .metersPerSecond(10), pacing: .speedFactor(4),
                                        startDate: Date(timeIntervalSince1970: 0), clock: SourceClock(clock))
    let collected = Task { try await fixes(sim) }
    // 30 m at 10 m/s: fixes at t = 0 … 3 s of track time, 250 ms of clock time apart at 4×.
    for _ in 0..<3 {
        #expect(await eventually { clock.sleeperCount == 1 })
        clock.advance(by: .milliseconds(249))
        #expect(clock.sleeperCount == 1, "not before 250 ms")
        clock.advance(by: .milliseconds(1))
    }
    let out = try await collected.value
    #expect(out.map { $0.timestamp.timeIntervalSince1970 } == [0, 1, 2, 3], "track time keeps the update interval")
    #expect(throws: PositioningError.self) {
        try RouteSimulationSource(polyline: [start, start.coordinate(at: .meters(30), facing: .degrees(0))],
                                  movementSpeed: .metersPerSecond(10), pacing: .speedFactor(0), startDate: Date(timeIntervalSince1970: 0))
    }
}
