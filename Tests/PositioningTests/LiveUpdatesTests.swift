import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Positioning

@Test func liveUpdates_pauseOnceWhenStationary_thenResume() async throws {
    let source = CustomPositionSource()
    let clock = ManualClock()
    var received: [LocationUpdate] = []
    let consumer = Task {
        var out: [LocationUpdate] = []
        for try await update in LocationUpdate.liveUpdates(.fitness.unfiltered, source: source, clock: clock) {
            out.append(update)
            if out.count == 41 { break }
        }
        return out
    }
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<10 { source.yield(fix(north: Double(t) * 1.4, t: Double(t), speed: 1.4)) }         // 10 moving
    for t in 10..<70 { source.yield(fix(north: 12.6, t: Double(t), speed: 0)) }                     // still 60 s
    source.yield(fix(north: 40, t: 70, speed: 1.4))                                                 // moves on
    source.finish() // ends the loop even if an update went missing, so a failure cannot hang
    received = try await consumer.value
    // The stop is anchored at the last moving fix (t = 9) and declared 30 s later (t = 39):
    // 10 moving updates, 29 still ones before the delay ran out (t = 10…38), one with
    // isStationary (t = 39), silence, then the resume at t = 70.
    let stationary = received.filter(\.isStationary)
    #expect(stationary.count == 1)
    #expect(received.last?.isStationary == false)
    #expect(received.last?.location?.timestamp == fix(t: 70).timestamp)
    #expect(received.count == 41)
    #expect(received[39].isStationary && received[39].location?.timestamp == fix(t: 39).timestamp)
}

@Test func liveUpdates_leavingTheLoopReleasesTheSource() async throws {
    let source = CustomPositionSource()
    let consumer = Task {
        for try await _ in LocationUpdate.liveUpdates(.default.unfiltered, source: source, clock: ManualClock()) { break }
    }
    #expect(await eventually { source.activeRuns == 1 })
    source.yield(fix(t: 0))
    try await consumer.value
    #expect(await eventually { source.activeRuns == 0 }, "the source run must end when the loop is left")
}

@Test func liveUpdates_cancellingTheTaskReleasesTheSource() async throws {
    let source = CustomPositionSource()
    let consumer = Task {
        for try await _ in LocationUpdate.liveUpdates(.default.unfiltered, source: source, clock: ManualClock()) {}
    }
    #expect(await eventually { source.activeRuns == 1 })
    consumer.cancel()
    _ = try? await consumer.value
    #expect(await eventually { source.activeRuns == 0 })
}

@Test func liveUpdates_silenceBecomesOneUnavailableUpdate() async throws {
    let source = CustomPositionSource()
    let clock = ManualClock()
    // Updates as they arrive, so the test moves the clock only once the fix was taken in (in a
    // loaded run the clock could otherwise pass 10 s before the fix reached the watchdog).
    let received = Mutex(0)
    let consumer = Task {
        var out: [LocationUpdate] = []
        for try await update in LocationUpdate.liveUpdates(.default.unfiltered, source: source, clock: clock) {
            out.append(update)
            received.withLock { $0 += 1 }
            if out.count == 3 { break }
        }
        return out
    }
    #expect(await eventually { source.activeRuns == 1 && clock.sleeperCount == 1 })
    source.yield(fix(t: 0))
    #expect(await eventually { received.withLock { $0 } == 1 })
    clock.advance(by: .seconds(9))
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .seconds(1)) // 10 s of silence: the default lost timeout
    #expect(await eventually { clock.sleeperCount == 1 })
    clock.advance(by: .seconds(30)) // still silent: no second "unavailable"
    #expect(await eventually { clock.sleeperCount == 1 })
    source.yield(fix(t: 45))
    source.finish()
    let updates = try await consumer.value
    #expect(updates.map(\.locationUnavailable) == [false, true, false])
}

@Test func liveUpdates_deniedEndsTheLoopWithTheError() async throws {
    let source = CustomPositionSource()
    let consumer = Task {
        for try await _ in LocationUpdate.liveUpdates(.default.unfiltered, source: source, clock: ManualClock()) {}
    }
    #expect(await eventually { source.activeRuns == 1 })
    source.reportAuthorization(.denied)
    await #expect(throws: PositioningError.self) { try await consumer.value }
}

@Test func liveUpdates_dropWhatThePresetsFilterRejects() async throws {
    let source = CustomPositionSource()
    let consumer = Task {
        var out: [LocationUpdate] = []
        for try await update in LocationUpdate.liveUpdates(.fitness, source: source, clock: ManualClock()) { out.append(update) }
        return out
    }
    #expect(await eventually { source.activeRuns == 1 })
    // TrackFilterConfiguration.fitness: 10 s warm-up, accuracy ≤ 50 m, Kalman estimates.
    for t in 0..<30 {
        source.yield(fix(north: Double(t) * 1.4, t: Double(t), accuracy: t == 20 ? 80 : 5, speed: 1.4))
    }
    source.finish()
    let updates = try await consumer.value
    let times = updates.compactMap { $0.location?.timestamp.timeIntervalSince(fix(t: 0).timestamp) }
    #expect(!times.isEmpty && times.allSatisfy { $0 >= 10 }, "nothing from the 10 s warm-up: \(times)")
    #expect(!times.contains(20), "the 80 m fix is dropped")
}

@Test func liveUpdates_replayedFixesFlow_cachedFixIsDropped() async throws {
    // Fixes taken long ago arrive two per second of wall time (the updates read the wall clock
    // once per fix, in order); the 15th repeats a fix 90 s older (a cached fix).
    let source = CustomPositionSource()
    let arrivals = ScriptedWallClock(start: Date(timeIntervalSince1970: 1_790_000_000 + 40_000_000), step: 0.5)
    let consumer = Task {
        var out: [Date] = []
        for try await update in LocationUpdate.liveUpdates(.default, source: source, clock: ManualClock(), now: arrivals.next) {
            if let location = update.location { out.append(location.timestamp) }
        }
        return out
    }
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<20 { source.yield(fix(north: 20 * Double(t), t: t == 14 ? Double(t) - 90 : Double(t), speed: 20)) }
    source.finish()
    let delivered = try await consumer.value
    // Five fixes of warm-up (t = 0…4), the cached one dropped, the other 14 delivered.
    #expect(delivered == (5..<20).filter { $0 != 14 }.map { fix(t: Double($0)).timestamp })
}

/// A wall clock that advances by `step` seconds at every reading.
private final class ScriptedWallClock: Sendable {
    private let readings = Mutex(0)
    let start: Date, step: Double
    init(start: Date, step: Double) {
        self.start = start
        self.step = step
    }
    @Sendable func next() -> Date {
        let n = readings.withLock { n in
            defer { n += 1 }
            return n
        }
        return start.addingTimeInterval(step * Double(n))
    }
}
