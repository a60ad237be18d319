import Foundation
import Testing
import TrackFiltering

@Test func replayPacing_scalesTheTrackTimeBetweenFixes() {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(ReplayPacing.realTime.delay(from: t0, to: t0.addingTimeInterval(10)) == .seconds(10))
    #expect(ReplayPacing.speedFactor(5).delay(from: t0, to: t0.addingTimeInterval(10)) == .seconds(2))
    #expect(ReplayPacing.speedFactor(0.5).delay(after: .milliseconds(1500)) == .seconds(3))
    #expect(ReplayPacing.speedFactor(4).delay(after: .seconds(1)) == .milliseconds(250))
}

@Test func replayPacing_neverWaitsBackwardsOrAsFastAsPossible() {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(ReplayPacing.realTime.delay(from: t0, to: t0.addingTimeInterval(-3)) == .zero, "a step back in time")
    #expect(ReplayPacing.realTime.delay(from: t0, to: t0) == .zero)
    #expect(ReplayPacing.asFastAsPossible.delay(from: t0, to: t0.addingTimeInterval(60)) == .zero)
    #expect(ReplayPacing.asFastAsPossible.delay(after: .seconds(60)) == .zero)
}

@Test func replayPacing_validFactorsArePositiveAndFinite() {
    #expect(ReplayPacing.realTime.isValid && ReplayPacing.asFastAsPossible.isValid && ReplayPacing.speedFactor(1e-3).isValid)
    for factor in [0, -1, .infinity, .nan] as [Double] {
        #expect(!ReplayPacing.speedFactor(factor).isValid, "factor \(factor)")
        #expect(ReplayPacing.speedFactor(factor).delay(after: .seconds(1)) == .zero, "factor \(factor)")
    }
}

@Test func replayPacing_capsEveryWaitAtTheMaximumDelay() {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    let year9999 = Date(timeIntervalSince1970: 253_370_764_800) // 9999-01-01T00:00:00Z
    #expect(ReplayPacing.realTime.delay(from: t0, to: year9999) == ReplayPacing.maximumDelay, "a jump of 8,000 years")
    #expect(ReplayPacing.speedFactor(1e-3).delay(from: t0, to: year9999) == ReplayPacing.maximumDelay, "a slow replay overflows no Duration")
    #expect(ReplayPacing.realTime.delay(from: t0, to: t0.addingTimeInterval(3_600)) == ReplayPacing.maximumDelay, "an hour's pause")
    #expect(ReplayPacing.speedFactor(120).delay(from: t0, to: t0.addingTimeInterval(3_600)) == .seconds(30), "under the cap once scaled")
    #expect(ReplayPacing.maximumDelay == .seconds(60))
}
