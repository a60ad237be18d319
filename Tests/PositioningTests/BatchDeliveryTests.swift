import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import MapMatching
import NMEACodec
import Positioning
import TrackFiltering

/// A batch source that delivers scripted batches, then ends.
private struct ScriptedBatches: BatchPositionSource {
    let batches: [[PositionSourceEvent]]
    var name: String { "scripted" }

    func eventBatches() -> AsyncThrowingStream<[PositionSourceEvent], any Error> {
        let (stream, output) = AsyncThrowingStream.makeStream(of: [PositionSourceEvent].self)
        for batch in batches { output.yield(batch) }
        output.finish()
        return stream
    }
}

/// Everything one subscriber sees until `.stopped`.
private func record(_ events: PositioningEvents) -> Task<[PositioningEvent], Never> {
    Task {
        var seen: [PositioningEvent] = []
        for await event in events {
            seen.append(event)
            if case .stopped = event { break }
        }
        return seen
    }
}

/// The timestamps of the `.updated` events, in the order seen.
private func updateTimes(_ events: [PositioningEvent]) -> [Date] {
    events.compactMap { if case .updated(let l) = $0 { l.timestamp } else { nil } }
}

@Test func batchDelivery_oneEventPerFix_inOrder_acrossBatches() async throws {
    // 3 batches of 100, 1 and 37 moving fixes: subscribers see 138 updates in fix order.
    let fixes = (0..<138).map { fix(north: Double($0) * 20, t: Double($0), speed: 20) }
    let batches = [Array(fixes[0..<100]), [fixes[100]], Array(fixes[101...])].map { $0.map(PositionSourceEvent.location) }
    let manager = PositioningManager(source: ScriptedBatches(batches: batches), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    let a = record(manager.events(bufferingPolicy: .unbounded)), b = record(manager.events(bufferingPolicy: .unbounded))
    #expect(await manager.start())
    for seen in [await a.value, await b.value] {
        #expect(updateTimes(seen) == fixes.map(\.timestamp))
        #expect(seen.count == 1 + 138 + 1, "authorization, one update per fix, stopped")
    }
    #expect(await manager.isRunning == false)
}

@Test func batchDelivery_lostGapInsideABatch_isReportedBetweenItsFixes() async throws {
    let f = (0..<4).map { fix(north: Double($0) * 20, t: Double($0), speed: 20) }
    let batch: [PositionSourceEvent] = [.location(f[0]), .location(f[1]), .lost, .location(f[2]), .location(f[3])]
    let manager = PositioningManager(source: ScriptedBatches(batches: [batch]), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    let events = record(manager.events(bufferingPolicy: .unbounded))
    #expect(await manager.start())
    let labels = await events.value.map { event -> String in
        switch event {
        case .updated(let l): "updated t=\(Int(l.timestamp.timeIntervalSince(f[0].timestamp)))"
        case .lost: "lost"
        case .authorizationChanged: "authorization"
        case .stopped: "stopped"
        default: "other"
        }
    }
    #expect(labels == ["authorization", "updated t=0", "updated t=1", "lost", "updated t=2", "updated t=3", "stopped"])
}

@Test func batchDelivery_withMapMatching_keepsEachFixsEventsInOrderAroundTheMatcher() async throws {
    // Fixes wait on the matcher (which suspends) while `.lost` does not: every event still comes
    // out in source order, each `.updated` right after its `.mapMatched`, carrying the match.
    struct ShiftingMatcher: LivePositionMatcher {
        func match(_ location: Location, mode: MapMatchMode) async -> MatchedPosition? {
            await Task.yield()
            var matched = location
            matched.coordinate = Coordinate(uncheckedLatitude: location.coordinate.latitude, longitude: 12)
            return MatchedPosition(location: matched, confidence: 1)
        }
    }
    let f = (0..<4).map { fix(north: Double($0) * 20, t: Double($0), speed: 20) }
    let batch: [PositionSourceEvent] = [.location(f[0]), .location(f[1]), .lost, .location(f[2]), .location(f[3])]
    let manager = PositioningManager(source: ScriptedBatches(batches: [batch, [.lost]]), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    await manager.setMapMatcher(ShiftingMatcher())
    await manager.setMapMatchingEnabled(true)
    let events = record(manager.events(bufferingPolicy: .unbounded))
    #expect(await manager.start())
    let labels = await events.value.map { event -> String in
        func t(_ l: Location) -> Int { Int(l.timestamp.timeIntervalSince(f[0].timestamp)) }
        switch event {
        case .updated(let l): return "updated t=\(t(l)) lon=\(l.coordinate.longitude)"
        case .mapMatched(let m): return "matched t=\(t(m.rawPosition))"
        case .lost: return "lost"
        case .authorizationChanged: return "authorization"
        case .stopped: return "stopped"
        default: return "other"
        }
    }
    #expect(labels == ["authorization", "matched t=0", "updated t=0 lon=12.0", "matched t=1", "updated t=1 lon=12.0", "lost",
                       "matched t=2", "updated t=2 lon=12.0", "matched t=3", "updated t=3 lon=12.0", "lost", "stopped"])
}

@Test func batchDelivery_stopInTheMiddleOfABatch_dropsTheRestOfIt() async throws {
    // The matcher holds the second fix until released; the manager is stopped meanwhile, so
    // neither that fix nor the eight after it in the same batch reach a subscriber.
    final class Gate: LivePositionMatcher {
        let state = Mutex((calls: 0, waiter: CheckedContinuation<Void, Never>?.none, open: false))
        var calls: Int { state.withLock { $0.calls } }
        func release() {
            let waiter = state.withLock { s in defer { s.waiter = nil; s.open = true }; return s.waiter }
            waiter?.resume()
        }
        func match(_ location: Location, mode: MapMatchMode) async -> MatchedPosition? {
            let call = state.withLock { s in s.calls += 1; return s.calls }
            if call == 2 {
                await withCheckedContinuation { c in
                    let open = state.withLock { s in
                        if !s.open { s.waiter = c }
                        return s.open
                    }
                    if open { c.resume() }
                }
            }
            return MatchedPosition(location: location, confidence: 1)
        }
    }
    let gate = Gate()
    let fixes = (0..<10).map { fix(north: Double($0) * 20, t: Double($0), speed: 20) }
    let manager = PositioningManager(source: ScriptedBatches(batches: [fixes.map(PositionSourceEvent.location)]), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    await manager.setMapMatcher(gate)
    await manager.setMapMatchingEnabled(true)
    let events = record(manager.events(bufferingPolicy: .unbounded))
    #expect(await manager.start())
    #expect(await eventually { gate.calls == 2 })
    await manager.stop()
    gate.release()
    let seen = await events.value
    #expect(updateTimes(seen) == [fixes[0].timestamp])
    #expect(gate.calls == 2, "no fix after the stop reached the matcher")
    #expect(await manager.rawPosition?.timestamp == fixes[1].timestamp)
    #expect(await manager.currentPosition == nil)
}

@Test func batchDelivery_postsOneNotificationPerBatch_withEveryFixInOrder() async throws {
    // Batches of 3, 1 (then a loss) and 2 fixes: one update post per run of updates, its
    // `locations` the run's fixes and `location` the run's latest; the loss posted between.
    let f = (0..<6).map { fix(north: Double($0) * 20, t: Double($0), speed: 20) }
    let batches: [[PositionSourceEvent]] = [[.location(f[0]), .location(f[1]), .location(f[2])],
                                            [.location(f[3]), .lost], [.location(f[4]), .location(f[5])]]
    let manager = PositioningManager(source: ScriptedBatches(batches: batches), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    let posts = Mutex<[String]>([])
    let center = NotificationCenter.default
    let o1 = center.addObserver(forName: .positioningManagerDidUpdatePosition, object: manager, queue: nil) { note in
        let latest = (note.userInfo?["location"] as? Location).map { Int($0.timestamp.timeIntervalSince(f[0].timestamp)) }
        let all = (note.userInfo?["locations"] as? [Location])?.map { Int($0.timestamp.timeIntervalSince(f[0].timestamp)) }
        posts.withLock { $0.append("updated \(latest.map(String.init) ?? "nil") of \(all.map { "\($0)" } ?? "nil")") }
    }
    let o2 = center.addObserver(forName: .positioningManagerDidLosePosition, object: manager, queue: nil) { _ in
        posts.withLock { $0.append("lost") }
    }
    defer { center.removeObserver(o1); center.removeObserver(o2) }
    let events = record(manager.events(bufferingPolicy: .unbounded))
    #expect(await manager.start())
    #expect(updateTimes(await events.value) == f.map(\.timestamp), "subscribers still see one update per fix")
    #expect(posts.withLock { $0 } == ["updated 2 of [0, 1, 2]", "updated 3 of [3]", "lost", "updated 5 of [4, 5]"])
}

@Test(arguments: [("newest", ["updated t=4", "stopped"]), ("oldest", ["authorization", "updated t=0"])])
func batchDelivery_boundedSubscriber_keepsThePolicysEnd(policy: String, expected: [String]) async throws {
    // One batch of 5 fixes to a subscriber that reads only after the run ended: its buffer of 2
    // keeps the newest or the oldest events, as one event at a time would have.
    let f = (0..<5).map { fix(north: Double($0) * 20, t: Double($0), speed: 20) }
    let manager = PositioningManager(source: ScriptedBatches(batches: [f.map(PositionSourceEvent.location)]), clock: ManualClock())
    await manager.setConfiguration(.default.unfiltered)
    let events = manager.events(bufferingPolicy: policy == "newest" ? .bufferingNewest(2) : .bufferingOldest(2))
    #expect(await manager.start())
    #expect(await eventually { await manager.isRunning == false })
    var seen: [String] = []
    for await event in events {
        switch event {
        case .updated(let l): seen.append("updated t=\(Int(l.timestamp.timeIntervalSince(f[0].timestamp)))")
        case .authorizationChanged: seen.append("authorization")
        case .stopped: seen.append("stopped")
        default: seen.append("other")
        }
        if seen.count == 2 { break }
    }
    #expect(seen == expected)
}

@Test func replayBatches_coverEveryFixOnce_inOrder_andEndWhenTheConsumerLeaves() async throws {
    let fixes = (0..<1000).map { fix(north: Double($0), t: Double($0) * 0.1) }
    let replay = try LocationReplaySource(locations: fixes, pacing: .asFastAsPossible)
    var delivered: [Date] = []
    var sizes: [Int] = []
    for try await batch in replay.eventBatches() {
        sizes.append(batch.count)
        delivered += batch.compactMap { if case .location(let l) = $0 { l.timestamp } else { nil } }
    }
    #expect(delivered == fixes.map(\.timestamp))
    #expect(sizes.allSatisfy { (1...64).contains($0) }, "batches are never empty and hold at most 64 fixes: \(sizes)")
    #expect(sizes.count == 16, "1000 fixes in batches of 64: 15 full and one of 40")

    // A consumer that leaves after the first batch of a long replay ends the run.
    let long = try LocationReplaySource(locations: Array(repeating: fixes[0], count: 1_000_000), pacing: .asFastAsPossible)
    let consumer = Task {
        for try await _ in long.eventBatches() { break }
    }
    try await consumer.value
    #expect(await eventually { long.activeRuns == 0 })
}

@Test func replayBatches_lostFault_inTheMiddleOfAFastReplay() async throws {
    // Position lost from the start: the run delivers one `.lost` and no fix, in one batch.
    let fixes = (0..<200).map { fix(north: Double($0), t: Double($0)) }
    let replay = try LocationReplaySource(locations: fixes, pacing: .asFastAsPossible)
    replay.faults.isPositionLost = true
    var events: [PositionSourceEvent] = []
    for try await batch in replay.eventBatches() { events += batch }
    #expect(events == [.lost])
}

@Test func batchSource_oneEventPath_flattensTheBatches() async throws {
    let f = (0..<5).map { fix(north: Double($0), t: Double($0)) }
    let source = ScriptedBatches(batches: [[.location(f[0]), .location(f[1])], [.lost], [.location(f[2]), .location(f[3]), .location(f[4])]])
    var events: [PositionSourceEvent] = []
    for try await event in source.events() { events.append(event) }
    #expect(events == [.location(f[0]), .location(f[1]), .lost, .location(f[2]), .location(f[3]), .location(f[4])])
}

/// An NMEA file replayed as fast as possible to a consumer slower than the reader loses no
/// fix: a file waits for its consumer (only a live device drops what a lagging consumer
/// cannot take). With a drop-oldest buffer of 64 batches, one fix a batch, this lost most of
/// 600 fixes.
@Test(.onOwnThread) func nmeaFileReplay_toASlowConsumer_losesNoFix() async throws {
    let fixes = (0..<600).map { fix(north: Double($0), t: Double($0)) }
    try await withTemporaryDirectory { dir in
        let log = dir.appendingPathComponent("drive.nmea")
        let text = try fixes.map { try NMEAEncoder.sentences(for: $0).joined(separator: "\r\n") + "\r\n" }.joined()
        try Data(text.utf8).write(to: log)
        let source = NMEASource(.file(log.path), pacing: .asFastAsPossible)
        var delivered: [Date] = []
        for try await batch in source.eventBatches() {
            delivered += batch.compactMap { if case .location(let l) = $0 { l.timestamp } else { nil } }
            try await Task.sleep(for: .milliseconds(1)) // slower than the reader
        }
        #expect(delivered.count == 600, "\(delivered.count) of 600 fixes delivered")
        #expect(delivered.elementsEqual(fixes.map(\.timestamp)), "every fix once, in order")
    }
}
