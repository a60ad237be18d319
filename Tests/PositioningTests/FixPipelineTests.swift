import Foundation
import Synchronization
import Testing
import GeoCore
import GeoTestSupport
import MapMatching
import Monitoring
import Positioning

// Issue 30: the fix pipeline driven without a source, manager or clock, on the default preset
// (track filter on) and a receiver's realistic fixes (`walk`: Gauss–Markov jitter, 1 Hz).

/// Runs `fixes` through `pipeline` (`admit`, then `deliver` with `match` of the filtered fix),
/// one receive second per fix; returns the events in order.
private func drive(_ pipeline: inout FixPipeline, _ fixes: [Location], method: PositioningMethod = .continuous,
                   match: (Location) -> MatchedPosition? = { _ in nil }) -> [PositioningEvent] {
    var events: [PositioningEvent] = []
    for (i, raw) in fixes.enumerated() {
        let receivedAt = Date(timeIntervalSince1970: 1_790_000_000 + Double(i))
        guard let filtered = pipeline.admit(raw, receivedAt: receivedAt, into: &events) else { continue }
        pipeline.deliver(filtered, raw: raw, matched: match(filtered), method: method, into: &events)
    }
    return events
}

private func seconds(_ l: Location) -> Double { l.timestamp.timeIntervalSince(fix(t: 0).timestamp) }

/// Walk 2 min at 1.4 m/s, stand 6 min, walk 2 min, 3 m jitter: one pause during the stop, no
/// update while paused, one resume within 10 s of walking on.
@Test func pipeline_defaultPreset_stopAndGo_pausesOnceAndResumes() {
    let fixes = walk(seconds: 600, jitter: 3, seed: 4) { (120..<480).contains($0) ? 0 : 1.4 }
    var pipeline = FixPipeline()
    let events = drive(&pipeline, fixes)
    let pauses = events.compactMap { if case .paused(let l) = $0 { seconds(l) } else { nil } }
    let resumes = events.indices.filter { if case .resumed = events[$0] { true } else { false } }
    #expect(pauses.count == 1)
    #expect(resumes.count == 1)
    if let pause = pauses.first { #expect((120...300).contains(pause), "paused at \(pause) s, the stop begins at 120 s") }
    guard let resume = resumes.first, let pauseIndex = events.firstIndex(where: { if case .paused = $0 { true } else { false } }) else { return }
    let updatesWhilePaused = events[pauseIndex..<resume].filter { if case .updated = $0 { true } else { false } }
    #expect(updatesWhilePaused.isEmpty)
    // The fix after the resume is an update from the walk on (t ≥ 480 s), within 10 s.
    if case .updated(let l) = events[events.index(after: resume)] {
        #expect((480...490).contains(seconds(l)), "first update after resuming at \(seconds(l)) s")
    } else {
        Issue.record("no update follows the resume")
    }
    #expect(!pipeline.isPaused)
    #expect(pipeline.rawPosition == fixes.last)
}

/// The manager's events are the pipeline's (between its authorization and stop events): the
/// manager adds only the source, the fan-out and authorization.
@Test func manager_emitsExactlyThePipelineEvents() async throws {
    let fixes = walk(seconds: 300, jitter: 4, seed: 9) { (60..<200).contains($0) ? 0 : 1.4 }
    var pipeline = FixPipeline()
    let expected = drive(&pipeline, fixes).map(String.init(describing:))

    let source = CustomPositionSource(bufferLimit: fixes.count + 16)
    let receipts = Mutex(0.0) // one receive second per fix, as `drive` has
    let manager = PositioningManager(source: source, clock: ManualClock(), now: {
        receipts.withLock { n in
            defer { n += 1 }
            return Date(timeIntervalSince1970: 1_790_000_000 + n)
        }
    })
    let events = manager.events(bufferingPolicy: .unbounded)
    let collector = Task {
        var out: [String] = []
        for await event in events {
            if case .stopped = event { break }
            if case .authorizationChanged = event { continue }
            out.append(String(describing: event))
        }
        return out
    }
    #expect(await manager.start())
    #expect(await eventually { source.activeRuns == 1 })
    for f in fixes { source.yield(f) }
    source.finish()
    let got = await collector.value
    #expect(got.count == expected.count)
    #expect(got == expected)
}

/// A 100 m circle 300 m north of the start, walked through at 1.4 m/s: determined outside,
/// entered, exited — in that order, once each.
@Test func pipeline_regions_enterAndExitOnce() throws {
    let centre = fix(north: 300, t: 0).coordinate
    var pipeline = FixPipeline()
    let circle = MonitorCondition.circle(try CircularGeographicCondition(center: centre, radius: .meters(100)))
    try pipeline.regions.add(MonitoredRegion(identifier: "square", condition: circle), at: fix(t: 0).timestamp)
    let events = drive(&pipeline, walk(seconds: 500, jitter: 3, seed: 2) { _ in 1.4 })
    let transitions: [String] = events.compactMap {
        switch $0 {
        case .region(.entered(let r)): "entered \(r.identifier)"
        case .region(.exited(let r)): "exited \(r.identifier)"
        default: nil
        }
    }
    #expect(transitions == ["entered square", "exited square"])
    #expect(pipeline.regions.state(of: "square") == .outside)
}

/// Significant changes: after the first update, one only every ≥ 500 m. 2,300 m driven at
/// 10 m/s, the first update within the filter's warm-up (≤ 100 m): 2,100–2,300 m remain, so
/// exactly 4 more updates.
@Test func pipeline_significantChanges_updatesEvery500Metres() {
    var pipeline = FixPipeline(.default, pausesAutomatically: false)
    let events = drive(&pipeline, walk(seconds: 230, jitter: 3, seed: 5) { _ in 10 }, method: .significantChanges)
    let updates = events.compactMap { if case .updated(let l) = $0 { l } else { nil } }
    #expect(updates.count == 5)
    for (a, b) in zip(updates, updates.dropFirst()) {
        #expect(a.coordinate.distance(to: b.coordinate).meters >= 500)
    }
}

/// Matching's confidence rule: a match at or above `minimumMatchConfidence` (0.5) is the
/// update; below it the filtered fix is, and `.mapMatched` carries both.
@Test func pipeline_matchConfidence_decidesTheUpdate() {
    let fixes = walk(seconds: 60, jitter: 3, seed: 6) { _ in 1.4 }
    let shifted = { (l: Location, confidence: Double) -> MatchedPosition in
        var road = l
        road.coordinate = fix(north: 0, east: 5, t: 0).coordinate
        return MatchedPosition(location: road, confidence: confidence)
    }
    for (confidence, usesMatch) in [(0.9, true), (0.5, true), (0.3, false)] {
        var pipeline = FixPipeline()
        pipeline.mapMatchingEnabled = true
        let events = drive(&pipeline, fixes) { shifted($0, confidence) }
        let pairs: [(MapMatchedUpdate, Location)] = zip(events, events.dropFirst()).compactMap {
            if case .mapMatched(let m) = $0.0, case .updated(let l) = $0.1 { (m, l) } else { nil }
        }
        // Every update follows its `.mapMatched`.
        let updates = events.filter { if case .updated = $0 { true } else { false } }
        #expect(updates.count >= 10)
        #expect(pairs.count == updates.count)
        for (m, update) in pairs {
            #expect(update == (usesMatch ? m.mapMatchedPosition : m.filteredPosition))
            #expect(m.confidence == confidence)
        }
        pipeline.mapMatchingEnabled = false
        #expect(pipeline.matched == nil)
    }
}
