import Foundation
import Testing
import GeoCore
@testable import TrackFiltering
import GeoBase

@Test func validAccuracy_rejectsNegativeAndMissing() {
    let fixes = [fix(0, east: 0, north: 0, accuracy: 5), fix(1, east: 1, north: 0, accuracy: -1),
                 fix(2, east: 2, north: 0, accuracy: nil), fix(3, east: 3, north: 0, accuracy: .nan)]
    #expect(decisions(ValidAccuracyRule(), fixes) == [nil, .invalidAccuracy, .invalidAccuracy, .invalidAccuracy])
    // A NaN accuracy is no accuracy (`Location` stores NaN as absent), so it passes when missing ones may.
    #expect(decisions(ValidAccuracyRule(rejectsMissing: false), fixes) == [nil, .invalidAccuracy, nil, nil])
}

@Test func maximumAccuracy_rejectsWorseThanLimit() {
    let fixes = [fix(0, east: 0, north: 0, accuracy: 100), fix(1, east: 0, north: 0, accuracy: 100.01)]
    #expect(decisions(MaximumAccuracyRule(limit: .meters(100)), fixes) == [nil, .inaccurate])
}

@Test func staleFix_judgedAgainstInjectedReceiveTime() {
    let fixes = [fix(0, east: 0, north: 0), fix(1, east: 1, north: 0), fix(2, east: 2, north: 0)]
    // Received 0.5 s, 7.5 s (6.5 s old > 5 s) and 2.5 s after the epoch.
    let received: [Date?] = [epoch.addingTimeInterval(0.5), epoch.addingTimeInterval(7.5), epoch.addingTimeInterval(2.5)]
    #expect(decisions(StaleFixRule(maximumAge: .seconds(5)), fixes, receivedAt: received) == [nil, .stale, nil])
    // Offline (no receive time) nothing is stale.
    #expect(decisions(StaleFixRule(maximumAge: .seconds(5)), fixes) == [nil, nil, nil])
}

/// Fourteen months (426 days), in seconds: how old a replayed recording can be.
private let fourteenMonths = 426.0 * 86_400

@Test func staleFix_replayedRecordingFlows_butACachedFixIsDropped() {
    // A log recorded 14 months ago, replayed: each fix arrives 0.2 s after the previous one
    // (faster than real time, as gpsfake plays it); the seventh repeats a fix 60 s older.
    var fixes = (0..<12).map { fix(Double($0), east: Double($0), north: 0) }
    fixes[6] = fix(5 - 60, east: 5, north: 0)
    let received: [Date?] = (0..<12).map { epoch.addingTimeInterval(fourteenMonths + 0.2 * Double($0)) }
    let result = decisions(StaleFixRule(maximumAge: .seconds(10)), fixes, receivedAt: received)
    // The first fix is judged against agreeing clocks (nothing else is known yet); after it the
    // stream's own offset is the measure: only the cached fix lags it by more than 10 s.
    #expect(result == [.stale, nil, nil, nil, nil, nil, .stale, nil, nil, nil, nil, nil])
}

@Test func staleFix_receiverClockAheadFlows_butACachedFixIsDropped() {
    // A receiver whose clock runs a day ahead: every fix "arrives before it was taken".
    var fixes = (0..<8).map { fix(Double($0), east: Double($0), north: 0) }
    fixes[5] = fix(4 - 30, east: 4, north: 0)
    let received: [Date?] = (0..<8).map { epoch.addingTimeInterval(-86_400 + Double($0) + 0.3) }
    let result = decisions(StaleFixRule(maximumAge: .seconds(5)), fixes, receivedAt: received)
    #expect(result == [nil, nil, nil, nil, nil, .stale, nil, nil])
}

@Test func staleFix_learnsThePaceDuringTheWarmUp() {
    // Through the standard rules, the warm-up's drops teach the stale rule the stream's pace, so
    // a replayed recording loses no fix as stale, while a cached fix after the warm-up still is.
    var fixes = (0..<30).map { fix(Double($0), east: 3 * Double($0), north: 0) }
    fixes[20] = fix(19 - 120, east: 57, north: 0)
    var cleaner = TrackCleaner(rule: StandardRules(.default), kalman: nil)
    for (i, f) in fixes.enumerated() { _ = cleaner.process(f, receivedAt: epoch.addingTimeInterval(fourteenMonths + 0.5 * Double(i))) }
    #expect(cleaner.report.count(of: .stale) == 1)
    #expect(cleaner.report.count(of: .warmUp) == 5) // the fixes of the first 5 s of receiver time
    #expect(cleaner.report.accepted == 24)
}

@Test func warmUp_dropsFirstSecondsAfterStart() {
    let fixes = (0..<12).map { fix(Double($0), east: Double($0), north: 0) }
    let result = decisions(WarmUpRule(duration: .seconds(10)), fixes)
    #expect(result.prefix(10).allSatisfy { $0 == .warmUp })
    #expect(result.suffix(2).allSatisfy { $0 == nil })
    // An injected start 8 s before the first fix leaves only 2 s of warm-up.
    let early = decisions(WarmUpRule(duration: .seconds(10), start: epoch.addingTimeInterval(-8)), fixes)
    #expect(early.filter { $0 == .warmUp }.count == 2)
}

@Test func timestampOrder_rejectsOlderAndDuplicate() {
    let fixes = [fix(10, east: 0, north: 0), fix(9, east: 1, north: 0), fix(10, east: 2, north: 0), fix(11, east: 3, north: 0)]
    #expect(decisions(TimestampOrderRule(), fixes) == [nil, .outOfOrder, .duplicateTimestamp, nil])
}

@Test func accuracyRadius_dropsJitterUnlessMoreAccurate() {
    // Previous radius 10 m: half is 5 m.
    let fixes = [fix(0, east: 0, north: 0, accuracy: 10),
                 fix(1, east: 4.9, north: 0, accuracy: 10),   // inside, not better → drop
                 fix(2, east: 4.9, north: 0, accuracy: 8),    // inside, better → keep
                 fix(3, east: 9, north: 0, accuracy: 8)]      // 4.1 m from the last kept, radius 4 m → keep
    #expect(decisions(AccuracyRadiusRule(fraction: 0.5), fixes) == [nil, .insideAccuracyRadius, nil, nil])
}

@Test func distanceFilter_dropsShortMoves() {
    let fixes = [fix(0, east: 0, north: 0), fix(1, east: 0, north: 4.99), fix(2, east: 0, north: 5.01)]
    #expect(decisions(DistanceFilterRule(minimum: .meters(5)), fixes) == [nil, .belowMinimumDistance, nil])
}

@Test func impliedSpeed_rejectsTeleportsAndReanchors() {
    // 30 m/s limit; accuracies 5 m each, so a 1 s hop may be up to 40 m.
    var fixes = [fix(0, east: 0, north: 0), fix(1, east: 39, north: 0), fix(2, east: 500, north: 0)]
    #expect(decisions(ImpliedSpeedRule(maximum: .metersPerSecond(30)), fixes) == [nil, nil, .impliedSpeed])
    // The device really moved: after two rejections in a row the rule accepts the new place.
    fixes = [fix(0, east: 0, north: 0)] + (1...3).map { fix(Double($0), east: 1000 + Double($0), north: 0) }
    #expect(decisions(ImpliedSpeedRule(maximum: .metersPerSecond(30), maximumConsecutiveRejections: 2), fixes)
        == [nil, .impliedSpeed, .impliedSpeed, nil])
}

/// An optional rule is judged in place: its memory (here the count of rejections in a row)
/// carries from fix to fix exactly as the bare rule's does, and `nil` passes every fix.
@Test func optionalRule_keepsItsStateAndNilPassesEverything() {
    let fixes = [fix(0, east: 0, north: 0)] + (1...4).map { fix(Double($0), east: 1000 + Double($0), north: 0) }
    let rule = ImpliedSpeedRule(maximum: .metersPerSecond(30), maximumConsecutiveRejections: 2)
    let expected: [RejectionReason?] = [nil, .impliedSpeed, .impliedSpeed, nil, nil]
    #expect(decisions(rule, fixes) == expected)
    #expect(decisions(Optional(rule), fixes) == expected)
    #expect(decisions(ImpliedSpeedRule?.none, fixes) == [RejectionReason?](repeating: nil, count: fixes.count))
    // Chained behind another optional rule, as `StandardRules` holds them.
    #expect(decisions(Optional(TimestampOrderRule()).followed(by: Optional(rule)), fixes) == expected)
}

@Test func stationary_holdsWhileStillAndReleasesOnSpeed() {
    let rule = StationaryRule(.init(speedThreshold: .metersPerSecond(0.3), dwell: .seconds(3), radius: .meters(10)))
    var fixes = [fix(0, east: 0, north: 0, speed: 1.2, speedAccuracy: 0.2, course: 90)]
    // Still for 10 s with 3 m of jitter and Doppler ~0.1 m/s.
    for t in 1...10 { fixes.append(fix(Double(t), east: t.isMultiple(of: 2) ? 3 : -3, north: 1, speed: 0.1, speedAccuracy: 0.2)) }
    fixes.append(fix(11, east: 2, north: 0, speed: 1.0, speedAccuracy: 0.2, course: 90))
    let result = decisions(rule, fixes)
    // t = 1, 2, 3 pass (dwell 3 s starts at t = 1, so t = 4 is the first held), t = 4…10 held, t = 11 moves.
    #expect(Array(result[1...3]) == [nil, nil, nil])
    #expect(result[4...10].allSatisfy { $0 == .stationary })
    #expect(result[11] == nil)
}

@Test func stationary_withoutSpeedUsesRadius() {
    let rule = StationaryRule(.init(speedThreshold: .metersPerSecond(0.3), dwell: .seconds(5), radius: .meters(8)))
    var fixes: [Location] = []
    for t in 0...40 { fixes.append(fix(Double(t), east: Double(t % 3) * 2, north: 0)) }
    fixes.append(fix(41, east: 30, north: 0))
    fixes.append(fix(42, east: 31, north: 0))
    let result = decisions(rule, fixes)
    // Stillness is first seen at t = 1 (the origin); without Doppler it must last 8 m / 0.3 m/s
    // ≈ 26.7 s (longer than the 5 s dwell), so t = 28 is the first fix held. Leaving takes two
    // fixes outside in a row (one could be a jump): t = 41 is held, t = 42 leaves.
    #expect(result[..<28].allSatisfy { $0 == nil })
    #expect(result[28...41].allSatisfy { $0 == .stationary })
    #expect(result[42] == nil)
}

@Test func stationary_withoutSpeedABurstOfJumpsDoesNotEndTheStop() {
    // Issue 34 §2: multipath comes in bursts of jumps in unrelated directions. A stop logged
    // every 10 s without Doppler (8 m claimed: exit radius 16 m), then a burst of three jumps
    // (80 m east, 120 m north, 90 m west: each nearer the stop's centre than the jump before
    // it), then the walker leaves east at 1.2 m/s. The burst is held as stillness (the old rule
    // let the second jump end the stop); the departure ends it at its second fix outside.
    let rule = StationaryRule(.init(speedThreshold: .metersPerSecond(0.3), dwell: .seconds(5), radius: .meters(8)))
    var fixes: [Location] = []
    for k in 0...6 { fixes.append(fix(Double(10 * k), east: Double(k % 3) * 2, north: 0, accuracy: 8)) }
    fixes.append(fix(70, east: 80, north: 0, accuracy: 8))
    fixes.append(fix(80, east: 0, north: 120, accuracy: 8))
    fixes.append(fix(90, east: -90, north: 0, accuracy: 8))
    for k in 1...4 { fixes.append(fix(Double(90 + 10 * k), east: 12 * Double(k), north: 0, accuracy: 8)) }
    let result = decisions(rule, fixes)
    // Stillness is first seen at t = 10; held once 8 m / 0.3 m/s ≈ 26.7 s have passed (t = 40).
    #expect(result[..<4].allSatisfy { $0 == nil }, "\(result)")
    #expect(result[4...9].allSatisfy { $0 == .stationary }, "\(result)")
    // t = 100 (12 m) is inside the exit radius; t = 110 (24 m) is the first outside; t = 120
    // (36 m) lies 12 m from it and 36 m from the centre: the walker left.
    #expect(result[10...11].allSatisfy { $0 == .stationary }, "\(result)")
    #expect(result[12] == nil, "\(result)")
}

@Test func chain_reportsFirstObjectionAndCounts() {
    let chain = TimestampOrderRule().followed(by: MaximumAccuracyRule(limit: .meters(20)))
        .followed(by: DistanceFilterRule(minimum: .meters(2)))
    var pipeline = TrackFilterPipeline(chain)
    let fixes = [fix(0, east: 0, north: 0), fix(0, east: 5, north: 0, accuracy: 50), fix(1, east: 5, north: 0, accuracy: 50),
                 fix(2, east: 1, north: 0), fix(3, east: 5, north: 0)]
    let kept = pipeline.filtered(fixes)
    #expect(kept.count == 2)
    #expect(pipeline.report.received == 5)
    #expect(pipeline.report.accepted == 2)
    #expect(pipeline.report.count(of: .duplicateTimestamp) == 1)
    #expect(pipeline.report.count(of: .inaccurate) == 1)
    #expect(pipeline.report.count(of: .belowMinimumDistance) == 1)
    #expect(pipeline.report.description.contains("inaccurate 1"))
}

@Test func presets_validateAndResolveByName() throws {
    for name in TrackFilterConfiguration.presetNames {
        try TrackFilterConfiguration.preset(named: name).validate()
    }
    #expect(try TrackFilterConfiguration.preset(named: "fitness") == .fitness)
    #expect(throws: TrackFilteringError.self) { try TrackFilterConfiguration.preset(named: "rocket") }
    var c = TrackFilterConfiguration.default
    c.maximumSpeed = .metersPerSecond(-1)
    #expect(throws: TrackFilteringError.self) { try c.validate() }
}

@Test func cleaner_countsEveryReasonInOrder() {
    var cleaner = TrackCleaner(configuration: .default, start: epoch)
    let fixes = [fix(1, east: 0, north: 0),                      // warm-up (5 s)
                 fix(6, east: 0, north: 0, accuracy: -1),        // invalid accuracy
                 fix(7, east: 0, north: 0, accuracy: 150),       // inaccurate
                 fix(8, east: 0, north: 0, accuracy: 5),         // accepted
                 fix(8, east: 3, north: 0),                      // duplicate timestamp
                 fix(9, east: 2000, north: 0),                   // teleport
                 fix(10, east: 1, north: 0)]                     // inside half the radius, not better
    var reasons: [RejectionReason?] = []
    for f in fixes { reasons.append(cleaner.process(f, receivedAt: f.timestamp.addingTimeInterval(0.2)).reason) }
    #expect(reasons == [.warmUp, .invalidAccuracy, .inaccurate, nil, .duplicateTimestamp, .impliedSpeed, .insideAccuracyRadius])
    #expect(cleaner.report.rejected == 6)
}

@Test func cleaner_distanceFilterThinsDeliveredLocations() {
    let configuration = TrackFilterConfiguration(rejectsMissingAccuracy: false, minimumDistance: .meters(5))
    var cleaner = TrackCleaner(configuration: configuration)
    // 1.3 m apart: every fourth is delivered (0, 5.2, 10.4, …), the others are below the filter.
    let delivered = (0...20).compactMap { cleaner.process(fix(Double($0), east: 1.3 * Double($0), north: 0)).location }
    #expect(delivered.map { (plane($0).east * 10).rounded() / 10 } == [0, 5.2, 10.4, 15.6, 20.8, 26])
    #expect(cleaner.report.count(of: .belowMinimumDistance) == 15)
}

@Test func report_countsEveryReasonInItsOwnSlot() {
    var report = FilterReport()
    for (i, reason) in RejectionReason.allReasons.enumerated() {
        for _ in 0...i { report.record(reason) }
    }
    report.record(nil)
    for (i, reason) in RejectionReason.allReasons.enumerated() { #expect(report.count(of: reason) == i + 1, "\(reason)") }
    var twice = report
    twice.merge(report)
    #expect(twice.count(of: .kalmanOutlier) == 2 * report.count(of: .kalmanOutlier))
    #expect(twice.accepted == 2 && twice.received == 2 * report.received)
    #expect(Set(RejectionReason.allReasons.map(\.identifier)).count == RejectionReason.allReasons.count)
}
