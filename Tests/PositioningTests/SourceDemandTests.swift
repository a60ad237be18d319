import Foundation
import Testing
import GeoBase
import GeoCore
import GeoTestSupport
import NMEACodec
import TrackFiltering
@testable import Positioning

// Issue 33, items 6 and 7: the manager asks its source for the fixes it needs (`SourceDemand`)
// rather than dropping the rest after decoding — significant changes rest the source between
// checks (gpsd's watch off, replays skip), `desiredAccuracy` asks gpsd for a slower receiver
// cycle — and `LocationUpdate.liveUpdates()` reads the device source. Default presets, fixes
// with 4 m Gauss–Markov jitter (StopAndGoTests' `walk`) or a real receiver's log through gpsd.

/// Walk 10 min at 1.4 m/s, stand 20 min, walk 10 min: 2 400 fixes at 1 Hz, 4 m jitter.
private let walkStandWalk = walk(seconds: 2400, jitter: 4, seed: 70) { (600..<1800).contains($0) ? 0 : 1.4 }

@Test func replay_adjustedForSignificantChanges_skipsTheFixesBetweenChecks() async throws {
    let replay = try LocationReplaySource(locations: walkStandWalk, pacing: .asFastAsPossible)
    var times: [Date] = []
    for try await event in replay.adjusted(to: SourceDemand(checkInterval: SourceDemand.significantChangeInterval)).events() {
        if case .location(let l) = event { times.append(l.timestamp) }
    }
    #expect(times.count == 40, "one fix a minute of 40 minutes, not 2 400: \(times.count)")
    for (a, b) in zip(times, times.dropFirst()) { #expect(b.timeIntervalSince(a) == 60) } // seconds
    var all = 0
    for try await event in replay.events() { if case .location = event { all += 1 } }
    #expect(all == 2400, "unadjusted, the replay is whole")
}

/// The updates a default manager started for significant changes delivers from a fast replay.
private func significantUpdates(_ fixes: [Location]) async throws -> [Location] {
    let manager = PositioningManager(source: try LocationReplaySource(locations: fixes, pacing: .asFastAsPossible), clock: ManualClock())
    let events = manager.events(bufferingPolicy: .unbounded)
    await manager.start(.significantChanges)
    var updates: [Location] = []
    loop: for await event in events {
        switch event {
        case .updated(let l): updates.append(l)
        case .stopped: break loop
        default: continue
        }
    }
    return updates
}

/// 40 minutes of laps of a 400 m track (radius 63.7 m) at 1.4 m/s, 1 Hz, 4 m jitter: always
/// moving, never 500 m from the start.
private let laps: [Location] = {
    var random = SplitMix64(seed: 71)
    let r = 400 / (2 * Double.pi), a = exp(-1 / 10.0), sigma = 4 / 2.0.squareRoot()
    var ex = 0.0, ey = 0.0
    return (0..<2400).map { t in
        ex = a * ex + sigma * (1 - a * a).squareRoot() * random.gaussian()
        ey = a * ey + sigma * (1 - a * a).squareRoot() * random.gaussian()
        let angle = 1.4 * Double(t) / r
        return fix(north: r * sin(angle) + ey, east: r - r * cos(angle) + ex, t: Double(t), accuracy: 4, speed: 1.4)
    }
}()

@Test func significantChanges_onTheDefaultPreset_reportMovesOf500m_noHeartbeat() async throws {
    // Laps: the first fix only — no update every 15 minutes for moves under 500 m.
    let lapUpdates = try await significantUpdates(laps)
    #expect(lapUpdates.count == 1, "\(lapUpdates.map { $0.timestamp.timeIntervalSince(laps[0].timestamp) })")
    // Walk, stand, walk: updates 500 m apart or more, none while standing.
    let updates = try await significantUpdates(walkStandWalk)
    let seconds = updates.map { Int($0.timestamp.timeIntervalSince(walkStandWalk[0].timestamp)) }
    #expect(updates.count >= 3, "the first fix and the walks' 500 m moves: \(seconds)")
    for (a, b) in zip(updates, updates.dropFirst()) {
        #expect(a.coordinate.distance(to: b.coordinate).meters >= 500, "metres between updates: \(seconds)")
    }
    #expect(!seconds.contains { (700..<1800).contains($0) }, "nothing while standing: \(seconds)")
}

@Test func sourceDemand_forDesiredAccuracy_slowsTheReceiverOnlyWhenCoarse() async throws {
    #expect(SourceDemand.receiverCycle(forDesiredAccuracy: .accuracyBest) == nil)
    #expect(SourceDemand.receiverCycle(forDesiredAccuracy: .accuracyBestForNavigation) == nil)
    #expect(SourceDemand.receiverCycle(forDesiredAccuracy: .accuracyNearestTenMeters) == nil)
    #expect(SourceDemand.receiverCycle(forDesiredAccuracy: .accuracyHundredMeters) == .seconds(5))
    #expect(SourceDemand.receiverCycle(forDesiredAccuracy: .accuracyKilometer) == .seconds(10))
    let manager = PositioningManager(source: CustomPositionSource(), clock: ManualClock())
    try await manager.setDesiredAccuracy(.accuracyKilometer)
    #expect(await manager.sourceDemand == SourceDemand(receiverCycle: .seconds(10)))
    await manager.start(.significantChanges)
    #expect(await manager.sourceDemand == SourceDemand(receiverCycle: .seconds(10), checkInterval: .seconds(60)))
    await manager.stop()
    #expect(GPSDMessage.deviceCycleCommand(10) == "?DEVICE={\"cycle\":10.0}\n")
    #expect(GPSDMessage.watchCommand(.off) == "?WATCH={\"enable\":false}\n")
}

// The real gpsd (gpsfake) replaying a real receiver's log to two clients at once: one watches
// all the time, the other is adjusted for checks every 2 s. The adjusted one turns gpsd's
// reports off between checks, so gpsd sends it a fraction of the reports.
@Test(.onOwnThread, .timeLimit(.minutes(3))) func gpsd_adjustedForChecks_turnsTheWatchOffBetweenThem() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return }
    guard let counts = try await GPSFake.withReplay(log: log, repeating: true, { gpsd in
        let fast = ReconnectPolicy(initialBackoff: .milliseconds(50))
        let plain = GPSDSource(port: gpsd.port, reconnect: fast)
        let checked = GPSDSource(port: gpsd.port, reconnect: fast)
        async let plainCounts = fixes(of: plain, for: .seconds(7), reports: { plain.reportsReceived })
        async let checkedCounts = fixes(of: checked.adjusted(to: SourceDemand(checkInterval: .seconds(2))), for: .seconds(7),
                                        reports: { checked.reportsReceived })
        return try await (plainCounts, checkedCounts)
    }) else { return }
    let ((plainFixes, plainReports), (checkedFixes, checkedReports)) = counts
    #expect(plainFixes >= 10, "gpsd delivers the log's epochs: \(plainFixes)")
    #expect((1...4).contains(checkedFixes), "one fix per 2 s check in 7 s: \(checkedFixes)")
    // A check waits for a fix with the watch on: about a second of reports in every 2 s here,
    // so the resting client gets about half (113 of 206 once, in a loaded CI run). A client
    // that never turned its watch off gets as many as the plain one.
    #expect(checkedReports * 4 < plainReports * 3, "gpsd sent the resting client under 3/4 of the reports: \(checkedReports) of \(plainReports)")
}

/// The fixes `source` delivers in `duration` of wall-clock time from its first fix (which may
/// take up to 60 s to come: gpsd starting under a loaded test run), and how far `reports` grew in
/// that window. (Counted from the connection instead, the reports before a slow first fix made
/// the two clients' counts incomparable: the test failed once with gpsd taking 36 s to start.)
private func fixes(of source: any PositionSource, for duration: Duration,
                   reports: @escaping @Sendable () -> Int) async throws -> (fixes: Int, reports: Int) {
    let first = FirstFix()
    let counted = try await withThrowingTaskGroup(of: Int?.self) { group in
        group.addTask {
            var n = 0
            do {
                for try await event in source.events() {
                    guard case .location = event else { continue }
                    if n == 0 { first.mark(reports: reports()) }
                    n += 1
                }
            } catch is CancellationError {}
            return n
        }
        group.addTask {
            let giveUp = ContinuousClock.now.advanced(by: .seconds(60))
            while true {
                let start = first.time
                if let start, ContinuousClock.now >= start.advanced(by: duration) { return nil }
                if start == nil, ContinuousClock.now >= giveUp { return nil }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        _ = try await group.next() // the timer (the source does not end)
        let reportsAtEnd = reports()
        group.cancelAll()
        var n = 0
        while let result = try await group.next() { if let result { n = result } }
        return (n, reportsAtEnd)
    }
    return (counted.0, counted.1 - (first.reports ?? counted.1))
}

/// When the first fix came and the reports received by then, shared by the counting and the
/// timing task.
private final class FirstFix: @unchecked Sendable {
    private let lock = NSLock()
    private var at: (time: ContinuousClock.Instant, reports: Int)?
    func mark(reports: Int) { lock.withLock { at = (.now, reports) } }
    var time: ContinuousClock.Instant? { lock.withLock { at?.time } }
    var reports: Int? { lock.withLock { at?.reports } }
}

// Item 6: `liveUpdates()` without a source reads the device source: gpsd where
// `LOCATIONKIT_GPSD` says (localhost:2947 by default), else a clear error.
@Test(.onOwnThread, .timeLimit(.minutes(3))) func liveUpdates_withoutASource_readTheDeviceSource() async throws {
    guard let log = try Fixtures.url("nmea/nmea-rtk.log") else { return }
    guard let updates = try await GPSFake.withReplay(log: log, repeating: true, { gpsd in
        var out: [LocationUpdate] = []
        for try await update in LocationUpdate.liveUpdates(environment: ["LOCATIONKIT_GPSD": "127.0.0.1:\(gpsd.port)"]) {
            out.append(update)
            if update.location != nil { break } // the replay repeats: later passes go back in time
        }
        return out
    }) else { return }
    let located = try #require(updates.last?.location, "a fix from gpsd: \(updates)")
    #expect(located.horizontalAccuracy.map { $0.meters < 10 } == true, "the log's RTK receiver: \(located)")
    // Nothing listens on the port and no NMEA device is named: the iteration says so.
    let nobody = FreePort.take()
    await #expect {
        for try await _ in LocationUpdate.liveUpdates(environment: ["LOCATIONKIT_GPSD": "127.0.0.1:\(nobody)"]) {}
    } throws: { ($0 as? PositioningError)?.code == .sourceUnavailable }
}
