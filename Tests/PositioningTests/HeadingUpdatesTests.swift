import Foundation
import Synchronization
import Testing
import GeoBase
import GeoCore
import GeoTestSupport
import Compass
import NMEACodec
import Positioning

// Issue 33, item 5: heading updates as Core Location has them (seed 003): nothing until
// `startUpdatingHeading`, the 1° `headingFilter`, the calibration question when an alarm starts
// (not with every heading), `.headingFailure` once per run of unusable headings, NMEA THS from
// `NMEASource` like HDT. Every test runs the manager's default preset on fixes with 4 m
// Gauss–Markov jitter (StopAndGoTests' `walk`), headings with up to ±0.4° of sensor noise.

/// The true heading the sensor reports at second `t`: 90° with noise of σ 0.15° clamped to
/// ±0.4° until 80 s, then a turn of 2°/s.
private func sensorHeading(_ t: Int, _ random: inout SplitMix64) -> Double {
    let noise = max(-0.4, min(0.4, 0.15 * random.gaussian()))
    return (t < 80 ? 90 : 90 + 2 * Double(t - 80)) + noise
}

/// Collects the manager's events until it stops.
private func eventsUntilStopped(_ manager: PositioningManager, after start: () async -> Void) async -> [PositioningEvent] {
    let events = manager.events(bufferingPolicy: .unbounded)
    await start()
    var out: [PositioningEvent] = []
    for await event in events {
        if case .stopped = event { break }
        out.append(event)
    }
    return out
}

@Test func nmeaSourceTHS_reachesTheHeading_throughTheDefaultHeadingFilter_andModeVIsOneHeadingFailure() async throws {
    // 120 s of a standing receiver (4 m jitter) with a heading sensor: THS every second, mode V
    // for t = 40 … 49 (the sensor lost its heading), the turn from t = 80.
    var random = SplitMix64(seed: 33)
    let fixes = walk(seconds: 120, jitter: 4, seed: 5) { _ in 0 }
    var text = ""
    var sent: [Date: Double] = [:]
    for (t, location) in fixes.enumerated() {
        let degrees = sensorHeading(t, &random)
        let mode: NMEAHeading.Mode = (40..<50).contains(t) ? .notValid : .autonomous
        text += try NMEAEncoder.sentences(for: location).joined()
        text += try NMEAEncoder.heading(NMEAHeading(talker: .multiGNSS, degrees: degrees, mode: mode))
        if mode != .notValid { sent[location.timestamp] = degrees }
    }
    let events = try await withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("ths.nmea")
        try Data(text.utf8).write(to: file)
        let manager = PositioningManager(source: NMEASource(.file(file.path)))
        return await eventsUntilStopped(manager) {
            await manager.startUpdatingHeading()
            await manager.start()
        }
    }
    let headings = events.compactMap { if case .heading(let h) = $0 { h } else { nil } }
    let failures = events.compactMap { if case .failed(let e) = $0, e.code == .headingFailure { e } else { nil } }
    // Delivered: the first (t = 0), the first after the failure (t = 50), then every second of
    // the 2°/s turn from t = 81 (t = 80 is within 1° of t = 50's): 1 + 1 + 39.
    #expect(headings.count == 41, "\(headings.map { $0.trueHeading?.degrees ?? .nan })")
    #expect(failures.count == 1, "one heading failure for the ten mode-V sentences: \(failures)")
    for h in headings {
        let expected = try #require(sent[h.timestamp], "a delivered heading is one of the valid ones: \(h)")
        #expect(abs((h.trueHeading?.degrees ?? .nan) - expected) < 0.006, "\(h)") // degrees: 2 decimals on the wire
        #expect(h.isReliable && h.magneticHeading != nil, "resolved with the WMM at the fix: \(h)")
    }
    let times = headings.map { Int($0.timestamp.timeIntervalSince(fixes[0].timestamp).rounded()) }
    #expect(times.prefix(2) == [0, 50], "\(times)")
}

/// Records headings, failures and calibration questions.
private final class HeadingDelegate: PositioningDelegate {
    let headings = Mutex<[Heading]>([])
    let questions = Mutex(0)
    func positioningManager(_ manager: PositioningManager, didUpdateHeading heading: Heading) async {
        headings.withLock { $0.append(heading) }
    }
    func positioningManagerShouldDisplayHeadingCalibration(_ manager: PositioningManager) async -> Bool {
        questions.withLock { $0 += 1 }
        return true
    }
}

@Test func calibrationQuestion_isAskedWhenTheAlarmStarts_notWithEveryHeading_andOnlyWhileUpdating() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    let delegate = HeadingDelegate()
    await manager.setDelegate(delegate)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    let fixes = walk(seconds: 60, jitter: 4, seed: 7) { _ in 0 }
    for f in fixes.prefix(5) { source.yield(f) }
    #expect(await eventually { await manager.rawPosition?.timestamp == fixes[4].timestamp })
    var random = SplitMix64(seed: 8)
    /// A magnetometer heading at second `t` of the stand: 200° turning 3°/s, with noise.
    func compass(_ t: Int, _ status: HeadingSensorStatus) -> Heading {
        Heading(timestamp: fixes[t].timestamp, magneticHeading: .degrees(200 + 3 * Double(t) + 0.3 * random.gaussian()), sensorStatus: status)
    }
    try await manager.updateHeading(compass(5, .calibrationAlarm))
    #expect(await manager.heading == nil, "nothing before startUpdatingHeading")
    await manager.startUpdatingHeading()
    for t in 6..<11 { try await manager.updateHeading(compass(t, .calibrationAlarm)) } // one alarm
    for t in 11..<16 { try await manager.updateHeading(compass(t, .normal)) }           // calibrated
    for t in 16..<21 { try await manager.updateHeading(compass(t, .calibrationAlarm)) } // the field changed
    #expect(await eventually { delegate.headings.withLock { $0.count == 15 } })
    #expect(delegate.questions.withLock { $0 } == 2, "asked at t = 6 and t = 16, not with each of the 10 headings in alarm")
    #expect(await manager.isDisplayingHeadingCalibration)
    await manager.dismissHeadingCalibrationDisplay()
    #expect(await manager.isDisplayingHeadingCalibration == false)
    await manager.stopUpdatingHeading()
    try await manager.updateHeading(compass(21, .normal)) // not seen: updates are off
    await manager.startUpdatingHeading()
    try await manager.updateHeading(compass(22, .calibrationAlarm)) // the same alarm as at t = 20
    try await manager.updateHeading(compass(23, .normal))
    try await manager.updateHeading(compass(24, .calibrationAlarm)) // a new one
    #expect(await eventually { delegate.headings.withLock { $0.count == 18 } })
    #expect(delegate.headings.withLock { $0.map(\.timestamp) }.contains(fixes[21].timestamp) == false, "nothing while stopped")
    #expect(delegate.questions.withLock { $0 } == 3, "asked again at t = 24 only, not at t = 22 (the alarm of t = 20 went on)")
    await manager.stop()
}

@Test func headingBadInput_isATypedError_orBearingsWrap_neverACrash() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    let fixes = walk(seconds: 10, jitter: 4, seed: 9) { _ in 0 }
    for f in fixes { source.yield(f) }
    #expect(await eventually { await manager.rawPosition?.timestamp == fixes[9].timestamp })
    await manager.startUpdatingHeading()
    let time = fixes[9].timestamp
    await #expect(throws: PositioningError.self) { try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(.nan))) }
    await #expect(throws: PositioningError.self) {
        try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(10), headingAccuracy: .degrees(-1)))
    }
    await #expect(throws: PositioningError.self) { try await manager.setHeadingFilter(.degrees(.nan)) }
    #expect(await manager.heading == nil, "nothing refused was delivered")
    try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(720), headingAccuracy: .degrees(2)))
    #expect(await manager.heading?.trueHeading?.degrees == 0, "Bearing wraps 720° to 0°")
    // kCLHeadingFilterNone (−1): every heading, however small the turn.
    try await manager.setHeadingFilter(.degrees(-1))
    try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(0.1)))
    #expect(await manager.heading?.trueHeading?.degrees == 0.1)
    await manager.stop()
}

@Test func headingFilter_ofOneDegree_byDefault_holdsSmallerTurns() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    #expect(await manager.headingFilter == .degrees(1))
    await manager.startUpdatingHeading()
    let time = Date(timeIntervalSince1970: 1_790_000_000)
    try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(359.6)))
    try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(0.5))) // 0.9° across north
    #expect(await manager.heading?.trueHeading?.degrees == 359.6)
    try await manager.updateHeading(Heading(timestamp: time, trueHeading: .degrees(0.7))) // 1.1°
    #expect(await manager.heading?.trueHeading?.degrees == 0.7)
    await manager.stop()
}

/// Answers the calibration question only once the test opens `gate`; records the headings.
private final class SlowCalibrationDelegate: PositioningDelegate {
    let asked = Mutex(false)
    let headings = Mutex(0)
    let gate: AsyncStream<Void>
    let open: AsyncStream<Void>.Continuation
    init() { (gate, open) = AsyncStream.makeStream() }
    func positioningManagerShouldDisplayHeadingCalibration(_ manager: PositioningManager) async -> Bool {
        asked.withLock { $0 = true }
        for await _ in gate { break }
        return true
    }
    func positioningManager(_ manager: PositioningManager, didUpdateHeading heading: Heading) async {
        headings.withLock { $0 += 1 }
    }
}

/// The delegate's "show the calibration" answer comes back after the compass has calibrated
/// (a heading with no alarm arrived while it answered): the display it was about has ended,
/// so the answer does not put it back up.
@Test func calibrationAnswer_afterTheCompassCalibrated_leavesNoCalibrationDisplayed() async throws {
    let source = CustomPositionSource()
    let manager = PositioningManager(source: source, clock: ManualClock())
    let delegate = SlowCalibrationDelegate()
    await manager.setDelegate(delegate)
    await manager.start()
    #expect(await eventually { source.activeRuns == 1 })
    await manager.startUpdatingHeading()
    let t0 = Date(timeIntervalSince1970: 1_767_225_600)
    try await manager.updateHeading(Heading(timestamp: t0, magneticHeading: .degrees(200), sensorStatus: .calibrationAlarm))
    #expect(await eventually { delegate.asked.withLock { $0 } })
    try await manager.updateHeading(Heading(timestamp: t0.addingTimeInterval(1), magneticHeading: .degrees(210), sensorStatus: .normal))
    #expect(await manager.isDisplayingHeadingCalibration == false)
    delegate.open.yield()
    // Both headings reach the delegate after its answer, in order: the answer has been taken.
    #expect(await eventually { delegate.headings.withLock { $0 } == 2 })
    #expect(await manager.isDisplayingHeadingCalibration == false, "the answer about the ended alarm is stale")
    await manager.stop()
}
