import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import Positioning
import TrackFiltering

/// The timestamp offset (s) of an update, or a label for any other event.
private func describe(_ e: PositioningEvent) -> String {
    switch e {
    case .updated(let location): "updated(\(Int(location.timestamp.timeIntervalSince1970 - 1_790_000_000)))"
    case .authorizationChanged(let s): "authorization(\(s))"
    case .stopped: "stopped"
    default: "other"
    }
}

/// Subscribes with `policy`, lets the manager handle five fixes without consuming, then reads
/// `count` events.
private func buffered(_ policy: AsyncStream<PositioningEvent>.Continuation.BufferingPolicy, count: Int) async throws -> [String] {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.airborne.unfiltered)
    let events = manager.events(bufferingPolicy: policy)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    for t in 0..<5 { source.yield(fix(north: Double(t) * 100, t: Double(t))) }
    // The manager emits inside the same actor turn that sets rawPosition.
    #expect(await eventually { await manager.rawPosition?.timestamp == fix(t: 4).timestamp })
    var seen: [String] = []
    for await e in events {
        seen.append(describe(e))
        if seen.count == count { break }
    }
    await manager.stop()
    return seen
}

@Test func events_unbounded_keepsEverything() async throws {
    let seen = try await buffered(.unbounded, count: 6)
    #expect(seen == ["authorization(authorized)", "updated(0)", "updated(1)", "updated(2)", "updated(3)", "updated(4)"])
}

@Test func events_bufferingNewest_dropsTheOldest() async throws {
    let seen = try await buffered(.bufferingNewest(2), count: 2)
    #expect(seen == ["updated(3)", "updated(4)"])
}

@Test func events_bufferingOldest_dropsTheNewest() async throws {
    let seen = try await buffered(.bufferingOldest(2), count: 2)
    #expect(seen == ["authorization(authorized)", "updated(0)"])
}

@Test func events_droppingTheSequenceAndIterator_unsubscribes() async throws {
    let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    do {
        let events = manager.events()
        let iterator = events.makeAsyncIterator()
        #expect(manager.subscriberCount == 1)
        withExtendedLifetime((events, iterator)) {}
    }
    #expect(await eventually { manager.subscriberCount == 0 })
}

@Test func manager_postsNotificationsOff_postsNothing() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    await manager.setPostsNotifications(false)
    let posts = Mutex(0)
    let center = NotificationCenter.default
    let o1 = center.addObserver(forName: .positioningManagerDidUpdatePosition, object: manager, queue: nil) { _ in posts.withLock { $0 += 1 } }
    let o2 = center.addObserver(forName: .positioningManagerDidLosePosition, object: manager, queue: nil) { _ in posts.withLock { $0 += 1 } }
    defer { center.removeObserver(o1); center.removeObserver(o2) }
    let updates = manager.events(bufferingPolicy: .unbounded)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    source.yield(fix(t: 0))
    source.reportLost()
    var seen: [String] = []
    for await e in updates {
        if case .lost = e { break }
        seen.append(describe(e))
    }
    #expect(seen == ["authorization(authorized)", "updated(0)"])
    _ = await manager.rawPosition // the actor turn that emitted `.lost` (and would have posted) is over
    #expect(posts.withLock { $0 } == 0)
    await manager.stop()
}

/// A consumer that stalls while an as-fast-as-possible replay runs far ahead still gets every
/// fix, in order: holding the producer back never drops anything (directly and through the
/// lost-position watchdog, which holds back the same way).
@Test(arguments: [false, true])
func gpxReplay_asFastAsPossible_withAStalledConsumer_deliversEveryFix(watched: Bool) async throws {
    let fixes = (0..<5_000).map { fix(north: Double($0), t: Double($0) / 10) }
    let replay = try LocationReplaySource(locations: fixes, pacing: .asFastAsPossible)
    let source: any PositionSource = watched ? LostPositionWatchdog(replay, timeout: .seconds(10), clock: ManualClock()) : replay
    var seen: [Date] = []
    for try await event in source.events() {
        if case .location(let location) = event { seen.append(location.timestamp) }
        if seen.count == 10 { try await Task.sleep(for: .milliseconds(100)) } // the producer runs ahead meanwhile
    }
    #expect(seen == fixes.map(\.timestamp))
}

/// A replay as fast as possible is not timed by the lost-position watchdog: its consumer (or the
/// whole machine) may stall longer than the timeout without a `.lost`, since the silence is the
/// CPU's, not the receiver's. Without that, a loaded CI run made the demo drive lose its position.
@Test func lostPositionWatchdog_doesNotTimeAFastReplay_aStallIsNotALostPosition() async throws {
    let fixes = (0..<2_000).map { fix(north: Double($0), t: Double($0)) }
    let replay = try LocationReplaySource(locations: fixes, pacing: .asFastAsPossible)
    let clock = ManualClock()
    let watched = LostPositionWatchdog(replay, timeout: .seconds(5), clock: clock)
    #expect(watched.isReplayedAsFastAsPossible)
    var events: [PositionSourceEvent] = []
    for try await event in watched.events() {
        events.append(event)
        if events.count == 1 {
            clock.advance(by: .seconds(60)) // 12 timeouts of silence while the consumer holds the first fix
            for _ in 0..<100 { await Task.yield() }
        }
    }
    #expect(clock.sleeperCount == 0)
    #expect(events.count { $0 == .lost } == 0)
    #expect(events.count == fixes.count && events == fixes.map { .location($0) }, "every fix in order, nothing else")
}
