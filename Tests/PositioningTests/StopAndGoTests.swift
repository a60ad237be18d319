import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Monitoring
import Positioning
import GeoBase

// Issue 33, items 1 and 2, on the default path: the presets as shipped (track filter on), a
// receiver's realistic fixes at 1 Hz (68 % accuracy = the jitter, Doppler speed with 0.1 m/s
// noise), positions with Gauss–Markov noise (10 s correlation, 2D RMS = the jitter).

/// One scripted walk (also HeadingUpdatesTests'): 1 Hz fixes along north, `speed(t)` m/s, noise of `jitter` m RMS.
/// `doppler: false` leaves the speed out, as a GPX replay does.
func walk(seconds: Int, jitter: Double, seed: UInt64, doppler: Bool = true, speed: (Int) -> Double) -> [Location] {
    var random = SplitMix64(seed: seed)
    let a = exp(-1 / 10.0), sigma = jitter / 2.0.squareRoot() // per axis
    var ex = 0.0, ey = 0.0, north = 0.0
    var fixes: [Location] = []
    for t in 0..<seconds {
        let v = speed(t)
        north += v
        ex = a * ex + sigma * (1 - a * a).squareRoot() * random.gaussian()
        ey = a * ey + sigma * (1 - a * a).squareRoot() * random.gaussian()
        let speedReading = abs(v + 0.1 * random.gaussian())
        fixes.append(fix(north: north + ey, east: ex, t: Double(t), accuracy: jitter, speed: doppler ? speedReading : nil))
    }
    return fixes
}

/// Walk 2 min at 1.4 m/s, stand 6 min, walk 2 min: the stop is t = 120 … 479 s.
private func stopAndGo(jitter: Double, seed: UInt64, doppler: Bool = true) -> [Location] {
    walk(seconds: 600, jitter: jitter, seed: seed, doppler: doppler) { (120..<480).contains($0) ? 0 : 1.4 }
}

/// A wall clock that reads one second later at each reading (fixes arrive at their own pace,
/// so the stale-fix rule sees a live receiver).
private final class SecondsClock: Sendable {
    private let readings = Mutex(0.0)
    @Sendable func next() -> Date {
        readings.withLock { n in
            defer { n += 1 }
            return Date(timeIntervalSince1970: 1_790_000_000 + n)
        }
    }
}

/// Runs `fixes` through a manager with `configuration` and collects its events until it stops.
private func run(_ fixes: [Location], _ configuration: LiveConfiguration,
                 visits: Bool = false) async throws -> [PositioningEvent] {
    let source = CustomPositionSource(bufferLimit: fixes.count + 16)
    let manager = PositioningManager(source: source, clock: ManualClock(), now: SecondsClock().next)
    await manager.setConfiguration(configuration)
    if visits { try await manager.startMonitoringVisits() }
    let events = manager.events(bufferingPolicy: .unbounded)
    let collector = Task {
        var out: [PositioningEvent] = []
        for await event in events {
            out.append(event)
            if case .stopped = event { break }
        }
        return out
    }
    #expect(await manager.start())
    #expect(await eventually { source.activeRuns == 1 })
    for f in fixes { source.yield(f) }
    source.finish()
    return await collector.value
}

private func seconds(_ l: Location) -> Double { l.timestamp.timeIntervalSince(fix(t: 0).timestamp) }

@Test(arguments: ["default", "fitness", "automotiveNavigation", "otherNavigation"], [3.0, 5.0])
func stop_pausesOnce_withinThreeMinutes_andResumesWithinTenSeconds(preset: String, jitter: Double) async throws {
    let configuration = try #require(LiveConfiguration.preset(named: preset))
    #expect(configuration.trackFilter != nil, "the default path: the preset's track filter runs")
    for seed: UInt64 in [1, 2, 3] {
        let events = try await run(stopAndGo(jitter: jitter, seed: seed), configuration)
        let pauses = events.compactMap { if case .paused(let l) = $0 { seconds(l) } else { nil } }
        let resumes = events.indices.filter { if case .resumed = events[$0] { true } else { false } }
        // Exactly one pause, between the stop (t = 120 s) and 3 minutes later.
        #expect(pauses.count == 1, "\(preset) \(jitter) m seed \(seed): pauses at \(pauses) s")
        if let p = pauses.first { #expect(p > 120 && p <= 300, "\(preset) \(jitter) m seed \(seed): paused at \(p) s") }
        // Nothing delivered while paused; one resume; an update within 10 s of walking on (t = 480 s).
        let updates = events.compactMap { if case .updated(let l) = $0 { seconds(l) } else { nil } }
        #expect(resumes.count == 1, "\(preset) \(jitter) m seed \(seed)")
        if let p = pauses.first {
            #expect(!updates.contains { $0 > p && $0 < 480 }, "\(preset) \(jitter) m seed \(seed): delivered while paused")
        }
        let firstAfter = updates.first { $0 >= 480 }
        #expect(firstAfter.map { $0 < 490 } == true, "\(preset) \(jitter) m seed \(seed): first update after walking on at \(String(describing: firstAfter)) s")
    }
}

@Test(arguments: ["default", "fitness", "automotiveNavigation", "otherNavigation"])
func stop_withoutSpeed_pausesOnce_resumesByPosition(preset: String) async throws {
    // A GPX replay: positions only (5 m jitter). Walking on is seen once the walker is outside
    // the stop's circle (radius + twice the accuracy: 18–35 m, 13–25 s at 1.4 m/s).
    let configuration = try #require(LiveConfiguration.preset(named: preset))
    let events = try await run(stopAndGo(jitter: 5, seed: 11, doppler: false), configuration)
    let pauses = events.compactMap { if case .paused(let l) = $0 { seconds(l) } else { nil } }
    #expect(pauses.count == 1 && pauses.allSatisfy { $0 > 120 && $0 <= 300 }, "\(preset): pauses at \(pauses) s")
    let updates = events.compactMap { if case .updated(let l) = $0 { seconds(l) } else { nil } }
    let firstAfter = updates.first { $0 >= 480 }
    #expect(firstAfter.map { $0 < 480 + 30 } == true, "\(preset): first update after walking on at \(String(describing: firstAfter)) s")
}

@Test(arguments: ["default", "fitness", "automotiveNavigation", "otherNavigation"], [true, false])
func walk_thirtyMinutesWithNoise_neverPauses(preset: String, doppler: Bool) async throws {
    let configuration = try #require(LiveConfiguration.preset(named: preset))
    // With the receiver's Doppler speed, and without any speed (positions alone, a GPX replay).
    let fixes = walk(seconds: 1800, jitter: 5, seed: 7, doppler: doppler) { _ in 1.4 }
    let events = try await run(fixes, configuration)
    let pauses = events.filter { if case .paused = $0 { true } else { false } }
    #expect(pauses.isEmpty, "\(preset), speed \(doppler): \(pauses.count) pauses on a 30-minute walk")
    #expect(events.contains { if case .updated = $0 { true } else { false } })
}

@Test func liveUpdates_wwdcLoop_breaksAtTheStop() async throws {
    // Seed 001's loop: `if update.isStationary { break }`, default configuration.
    let source = CustomPositionSource(bufferLimit: 1024)
    let consumer = Task {
        var last: LocationUpdate?
        for try await update in LocationUpdate.liveUpdates(source: source, clock: ManualClock(), now: SecondsClock().next) {
            last = update
            if update.isStationary { break }
        }
        return last
    }
    #expect(await eventually { source.activeRuns == 1 })
    for f in stopAndGo(jitter: 3, seed: 4) { source.yield(f) }
    source.finish()
    let last = try await consumer.value
    #expect(last?.isStationary == true)
    let t = try #require(last?.location.map(seconds))
    #expect(t > 120 && t <= 300, "stationary update at \(t) s")
}

@Test func visits_arriveDuringTheStay_departWithinTwoMinutes() async throws {
    // Walk 2 min, stay 10 min, walk 5 min, default preset with visit monitoring on.
    let fixes = walk(seconds: 1020, jitter: 5, seed: 9) { (120..<720).contains($0) ? 0 : 1.4 }
    let events = try await run(fixes, .default, visits: true)
    let visits = events.compactMap { if case .visit(let v) = $0 { v } else { nil } }
    let arrivals = visits.filter { if case .arrival = $0 { true } else { false } }
    let departures = visits.filter { if case .departure = $0 { true } else { false } }
    #expect(arrivals.count == 1 && departures.count == 1, "\(visits)")
    // The arrival comes while the stay goes on (before the walk on at 720 s resumes updates),
    // with no departure date; the departure after it.
    let arrival = try #require(events.firstIndex { if case .visit(.arrival) = $0 { true } else { false } })
    let resumed = try #require(events.firstIndex { if case .resumed = $0 { true } else { false } })
    let departure = try #require(events.firstIndex { if case .visit(.departure) = $0 { true } else { false } })
    #expect(arrival < resumed && resumed < departure)
    if case .arrival(let v)? = arrivals.first {
        #expect(v.isInProgress)
        #expect(abs(v.arrivalDate.timeIntervalSince(fix(t: 120).timestamp)) <= 30, "arrival dated \(v.arrivalDate)")
    }
    if case .departure(let v)? = departures.first {
        #expect(abs(v.departureDate.timeIntervalSince(fix(t: 720).timestamp)) <= 120, "departure dated \(v.departureDate)")
    }
    // When: the manager hands the visit detector every fix the source delivered; the same
    // detector on the same fixes reports the arrival at the fix of t ≤ 420 s (5 minutes
    // after the stay began) and the departure by t ≤ 840 s (2 minutes after leaving).
    var detector = try VisitDetector()
    var reported: [(Double, Bool)] = []
    for f in fixes {
        for event in detector.update(with: f) {
            reported.append((seconds(f), { if case .arrival = event { true } else { false } }()))
        }
    }
    #expect(reported.count == 2)
    #expect(reported.first.map { $0.1 && $0.0 <= 420 } == true, "\(reported)")
    #expect(reported.last.map { !$0.1 && $0.0 <= 840 } == true, "\(reported)")
}

@Test func visits_noVisitForTwoRedLights() async throws {
    // Drive at 12 m/s with two 90 s waits: no visit.
    let fixes = walk(seconds: 900, jitter: 3, seed: 5) { (200..<290).contains($0) || (500..<590).contains($0) ? 0 : 12 }
    let events = try await run(fixes, .automotiveNavigation, visits: true)
    #expect(!events.contains { if case .visit = $0 { true } else { false } })
    #expect(!events.contains { if case .paused = $0 { true } else { false } }, "a red light is no stop for the automotive preset")
}
