import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import MapMatching
import Positioning
import TrackFiltering

/// Collects what a subscriber sees, as short labels.
private func label(_ e: PositioningEvent) -> String {
    switch e {
    case .updated: "updated"
    case .mapMatched: "mapMatched"
    case .lost: "lost"
    case .failed(let error): "failed(\(error.code))"
    case .paused: "paused"
    case .resumed: "resumed"
    case .authorizationChanged(let s): "authorization(\(s))"
    case .rejected(_, let reason): "rejected(\(reason))"
    case .stopped: "stopped"
    case .visit: "visit"
    case .heading: "heading"
    case .deferredUpdatesFinished: "deferredUpdatesFinished"
    case .region: "region"
    case .beacons: "beacons"
    }
}

/// Collects `count` events, or fewer if the manager stops first (every test stops it).
private func collect(_ events: PositioningEvents, count: Int) -> Task<[String], Never> {
    Task {
        var out: [String] = []
        for await e in events {
            out.append(label(e))
            if out.count == count || out.last == "stopped" { break }
        }
        return out
    }
}

@Test func manager_fansOutToEverySubscriber_andStops() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    let a = collect(manager.events(), count: 5), b = collect(manager.events(), count: 5)
    #expect(await manager.start())
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<3 { source.yield(fix(north: Double(t) * 20, t: Double(t), speed: 20)) }
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 2).timestamp })
    await manager.stop()
    let expected = ["authorization(authorized)", "updated", "updated", "updated", "stopped"]
    #expect(await a.value == expected)
    #expect(await b.value == expected)
    #expect(await manager.currentPosition == nil)
    #expect(await eventually { source.activeRuns == 0 })
}

@Test func manager_subscriptionEndsWhenItsTaskIsCancelled() async throws {
    let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    let task = Task { for await _ in manager.events() {} }
    #expect(await eventually { manager.subscriberCount == 1 })
    task.cancel()
    await task.value
    #expect(await eventually { manager.subscriberCount == 0 })
}

@Test func manager_postsClassicNotifications() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    let counts = Mutex((updates: 0, lost: 0))
    let center = NotificationCenter.default
    let o1 = center.addObserver(forName: .positioningManagerDidUpdatePosition, object: manager, queue: nil) { note in
        if note.userInfo?["location"] is Location { counts.withLock { $0.updates += 1 } }
    }
    let o2 = center.addObserver(forName: .positioningManagerDidLosePosition, object: manager, queue: nil) { _ in
        counts.withLock { $0.lost += 1 }
    }
    defer { center.removeObserver(o1); center.removeObserver(o2) }
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    source.yield(fix(t: 0))
    source.reportLost()
    #expect(await eventually { counts.withLock { $0.updates == 1 && $0.lost == 1 } })
    await manager.stop()
}

@Test func manager_pausesWhenStationary_andResumes() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.fitness.unfiltered)
    let events = collect(manager.events(), count: 44)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<10 { source.yield(fix(north: Double(t) * 1.4, t: Double(t), speed: 1.4)) }
    for t in 10..<70 { source.yield(fix(north: 12.6, t: Double(t), speed: 0)) }
    source.yield(fix(north: 40, t: 70, speed: 1.4))
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 70).timestamp })
    await manager.stop()
    // 10 moving + 29 still-but-not-yet-stationary updates (t = 10…38), the pause at t = 39,
    // silence, then resumed + the update at t = 70, and the stop.
    let seen = await events.value
    #expect(seen == ["authorization(authorized)"] + Array(repeating: "updated", count: 39) + ["paused", "resumed", "updated", "stopped"])
}

@Test func manager_significantChangesDeliversOnlyBigMoves() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.airborne.unfiltered) // no pauses: isolate the significant-change rule
    let events = collect(manager.events(), count: 5)
    await manager.start(.significantChanges)
    #expect(await eventually { source.activeRuns == 1 })
    // Every 10 s another 110 m north: delivered at 0, 550, 1100 m.
    for i in 0...10 { source.yield(fix(north: Double(i) * 110, t: Double(i) * 10, speed: 11)) }
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 100).timestamp })
    // 20 minutes later, 10 m further: not delivered, there is no heartbeat (issue 33, item 7).
    source.yield(fix(north: 1110, t: 1300, speed: 0.01))
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 1300).timestamp })
    await manager.stop()
    let seen = await events.value
    #expect(seen == ["authorization(authorized)", "updated", "updated", "updated", "stopped"])
}

@Test func manager_retriesLocationUnknown_andWaitsOutDenied_thenResumesWhenGranted() async throws {
    let source = CustomPositionSource()
    let clock = ManualClock()
    let manager = PositioningManager(source: source, clock: clock)
    await manager.setConfiguration(.default.unfiltered)
    var events = manager.events().makeAsyncIterator()
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    source.finish(throwing: PositioningError(.locationUnknown, "receiver reset"))
    #expect(await events.next().map(label) == "failed(location unknown)")
    // The source restarts after a backoff of 1 s on the manager's clock, not before.
    var steps = 0
    while source.activeRuns == 0, steps < 4 {
        clock.advance(by: .milliseconds(500))
        steps += 1
        _ = await eventually(within: .milliseconds(200)) { source.activeRuns == 1 }
    }
    #expect(source.activeRuns == 1)
    #expect(steps >= 2, "restarted after \(steps) × 0.5 s")
    // Authorization on Linux: the device refuses (EACCES through NMEASource's open becomes
    // `.denied`): reported once, then the manager keeps trying on its backoff, silently.
    /// Refuses the running source, then waits until the manager sleeps out its backoff: a sleep
    /// begun after the refusal is then the clock's only sleeper (the run's lost-position watchdog
    /// has ended), so advancing the clock cannot fire the watchdog instead.
    func refuse() async {
        let sleepsBefore = clock.sleepsBegun
        source.finish(throwing: PositioningError(.denied, "permission denied on /dev/ttyUSB0"))
        #expect(await eventually { clock.sleepsBegun > sleepsBefore && clock.sleeperCount == 1 })
    }
    /// Advances the clock by the longest backoff, 30 s, and waits until the source runs again
    /// with its watchdog asleep (the one sleeper then).
    func awaitRetry() async {
        clock.advance(by: .seconds(30))
        #expect(await eventually { source.activeRuns == 1 && clock.sleeperCount == 1 })
    }
    #expect(await eventually { clock.sleeperCount == 1 }) // the watchdog of the restarted run
    await refuse()
    #expect(await events.next().map(label) == "failed(denied)")
    #expect(await events.next().map(label) == "authorization(denied)")
    #expect(await manager.authorizationStatus == .denied)
    #expect(await manager.isRunning)
    for _ in 0..<3 { // still refused at each retry: no further failure events
        await awaitRetry()
        await refuse()
    }
    // Access granted (the node's permission changed): the next attempt opens and delivers.
    await awaitRetry()
    source.yield(fix(t: 0))
    var rest: [String] = []
    while rest.count < 2, let e = await events.next() { rest.append(label(e)) }
    #expect(rest == ["authorization(authorized)", "updated"], "one report of the change, then updates resume")
    #expect(await manager.authorizationStatus == .authorized)
    await manager.stop()
}

@Test func manager_currentPositionPrefersAConfidentMatch() async throws {
    struct SnapEast: LivePositionMatcher {
        let confidence: Double
        func match(_ location: Location, mode: MapMatchMode) async -> MatchedPosition? {
            var snapped = location
            snapped.coordinate = Coordinate(uncheckedLatitude: location.coordinate.latitude, longitude: 11.5)
            return MatchedPosition(location: snapped, confidence: confidence)
        }
    }
    for (confidence, expectMatched) in [(0.9, true), (0.2, false)] {
        let source = CustomPositionSource()
        let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
        await manager.setMapMatcher(SnapEast(confidence: confidence))
        await manager.setMapMatchingEnabled(true, mode: .pedestrian)
        await manager.start()
        #expect(await eventually { source.activeRuns == 1 })
        source.yield(fix(t: 0))
        #expect(await eventually { await manager.rawPosition != nil })
        #expect(await manager.mapMatchedPosition?.coordinate.longitude == 11.5)
        #expect((await manager.currentPosition?.coordinate.longitude == 11.5) == expectMatched)
        await manager.setMapMatchingEnabled(false)
        #expect(await manager.mapMatchedPosition == nil)
        #expect(await manager.currentPosition?.coordinate.longitude == 11)
        await manager.stop()
    }
}

@Test func manager_averageSpeedOverTheWindow() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.airborne.unfiltered)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<100 { source.yield(fix(north: 0, t: Double(t), speed: t < 40 ? 30 : 10)) }
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 99).timestamp })
    // The 60 s window ending at t = 99 holds t = 39…99: one fix at 30 m/s, sixty at 10 m/s.
    let average = try #require(await manager.averageSpeed)
    #expect(abs(average.metersPerSecond - (30 + 60 * 10) / 61) < 1e-9) // m/s
    await manager.stop()
}

/// A delegate that stays busy in its first call until `release()`, so the fixes that arrive
/// meanwhile queue up.
private final class SlowDelegate: PositioningDelegate {
    let batches = Mutex<[[Location]]>([])
    let failures = Mutex<[String]>([])
    private let gate = Mutex<(released: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func release() {
        let waiter = gate.withLock { g in g.released = true; defer { g.waiter = nil }; return g.waiter }
        waiter?.resume()
    }

    func positioningManager(_ manager: PositioningManager, didUpdateLocations locations: [Location]) async {
        let first = batches.withLock { b in b.append(locations); return b.count == 1 }
        guard first else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = gate.withLock { g -> Bool in
                if g.released { return true }
                g.waiter = c
                return false
            }
            if now { c.resume() }
        }
    }
    func positioningManager(_ manager: PositioningManager, didFailWithError error: PositioningError) async {
        failures.withLock { $0.append("\(error.code)") }
    }
}

@Test func manager_delegateReceivesBatchesInOrder() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    let delegate = SlowDelegate()
    await manager.setDelegate(delegate)
    await manager.setConfiguration(.airborne.unfiltered)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    source.yield(fix(t: 0, speed: 10))
    #expect(await eventually { delegate.batches.withLock { $0.count == 1 } })
    for t in 1..<20 { source.yield(fix(north: Double(t) * 10, t: Double(t), speed: 10)) }
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 19).timestamp })
    delegate.release()
    #expect(await eventually { delegate.batches.withLock { $0.joined().count == 20 } })
    let batches = delegate.batches.withLock { $0 }
    #expect(batches.count == 2, "the 19 fixes that arrived while the delegate was busy come as one batch")
    #expect(batches.joined().map(\.timestamp) == (0..<20).map { fix(t: Double($0)).timestamp })
    await manager.stop()
}

@Test func manager_appliesThePresetsTrackFilter() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.default) // TrackFilterConfiguration.default: 5 s warm-up, ≤ 100 m accuracy
    let events = collect(manager.events(), count: 100)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<5 { source.yield(fix(north: Double(t) * 10, t: Double(t), speed: 10)) }          // warm-up: dropped
    source.yield(fix(north: 50, t: 5, accuracy: -1, speed: 10))                                     // invalid accuracy
    source.yield(fix(north: 60, t: 6, accuracy: 500, speed: 10))                                    // worse than 100 m
    for t in 7..<12 { source.yield(fix(north: Double(t) * 10, t: Double(t), speed: 10)) }         // delivered
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 11).timestamp })
    let report = await manager.filterReport
    #expect(report.received == 12)
    #expect(report.accepted == 5)
    #expect(await manager.filteredPosition != nil)
    await manager.stop()
    #expect(await events.value.filter { $0 == "updated" }.count == 5)
}

@Test func manager_replayedFixesFlow_cachedFixIsRejectedAsStale_andTheDropIsReported() async throws {
    // Fixes recorded long ago arrive now, two per second of wall time, one per second of fix
    // time; the 15th repeats a fix 90 s older (a cached fix). The manager stamps arrivals with
    // its injected wall clock.
    let source = CustomPositionSource()
    let wall = Mutex(Date(timeIntervalSince1970: 1_790_000_000 + 40_000_000))
    let manager = PositioningManager(source: source, clock: ManualClock(), now: { wall.withLock { $0 } })
    await manager.setConfiguration(.default, pausesAutomatically: false)
    let events = collect(manager.events(bufferingPolicy: .unbounded), count: 1_000)
    #expect(await manager.start())
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<20 {
        let timestamp = t == 14 ? Double(t) - 90 : Double(t)
        wall.withLock { $0 = Date(timeIntervalSince1970: 1_790_000_000 + 40_000_000 + 0.5 * Double(t)) }
        source.yield(fix(north: 20 * Double(t), t: timestamp, speed: 20))
        #expect(await eventually { await manager.filterReport.received == t + 1 })
    }
    await manager.stop()
    let seen = await events.value
    #expect(seen.filter { $0 == "rejected(stale)" }.count == 1, "\(seen)")
    #expect(seen.filter { $0 == "rejected(warm-up)" }.count == 5, "\(seen)")
    #expect(seen.filter { $0 == "updated" }.count == 14, "\(seen)")
    let report = await manager.filterReport
    #expect(report.count(of: .stale) == 1 && report.count(of: .warmUp) == 5 && report.accepted == 14)
}

/// A replay as fast as possible is timed by its own fix times, not by arrival: a stall of the
/// machine between its fixes is not staleness, as it is not a lost position (the watchdog),
/// while a cached fix in it still is. The injected wall clock stalls 30 s at every reading,
/// three times the default preset's 10 s maximum age; the 150th fix is one from 90 s before.
/// Every other fix flows, only the warm-up's are dropped.
@Test func manager_fastReplay_aStallOfTheMachineIsNotStaleness_aCachedFixIs() async throws {
    let fixes = (0..<200).map { fix(north: 20 * Double($0), t: Double($0 == 149 ? $0 - 90 : $0), speed: 20) }
    let replay = try LocationReplaySource(locations: fixes, pacing: .asFastAsPossible)
    let wall = Mutex(Date(timeIntervalSince1970: 1_790_000_000))
    let manager = PositioningManager(source: replay, clock: ManualClock(), now: {
        wall.withLock { $0 += 30; return $0 }
    })
    await manager.setConfiguration(.default, pausesAutomatically: false)
    let events = manager.events(bufferingPolicy: .unbounded)
    #expect(await manager.start())
    for await event in events { if case .stopped = event { break } }
    let report = await manager.filterReport
    #expect(report.received == fixes.count)
    #expect(report.count(of: .stale) == 1, "\(report)")
    #expect(report.accepted == fixes.count - 1 - report.count(of: .warmUp), "\(report)")
}
