import Testing
import GeoCore
import TrackFiltering

@Test func stationary_afterDelayWithinRadius_thenResumesOnMovement() {
    var detector = StationaryDetector(.fitness) // 30 s within 8 m (+ accuracy ≤ 15 m)
    var transitions: [(Double, StationaryDetector.Transition)] = []
    // Walk 1.4 m/s for 20 s, stand still with ±3 m jitter for 60 s, walk again.
    var t = 0.0, north = 0.0
    func feed(_ l: Location) { if let tr = detector.update(with: l) { transitions.append((t, tr)) } }
    while t < 20 { feed(fix(t, east: 0, north: north, accuracy: 5, speed: 1.4)); north += 1.4; t += 1 }
    while t < 80 { feed(fix(t, east: 0, north: north + (t.truncatingRemainder(dividingBy: 2) == 0 ? 3 : -3), accuracy: 5, speed: 0.1)); t += 1 }
    while t < 90 { north += 1.4; feed(fix(t, east: 0, north: north + 3, accuracy: 5, speed: 1.4)); t += 1 }
    #expect(transitions.count == 2)
    // The stop is anchored at the last moving fix (t = 19) and declared 30 s later.
    #expect(transitions.first?.0 == 49 && transitions.first?.1 == .becameStationary)
    #expect(transitions.last?.0 == 80 && transitions.last?.1 == .resumedMoving)
}

@Test func stationary_neverForAirborne() {
    var detector = StationaryDetector(.airborne)
    for t in 0..<1000 { #expect(detector.update(with: fix(Double(t), east: 0, north: 0)) == nil) }
}

@Test func stationary_hugeAccuracyDoesNotHideMovement() {
    var detector = StationaryDetector(.default) // 15 m + jitter capped at 25 m
    _ = detector.update(with: fix(0, east: 0, north: 0, accuracy: 5))
    // 45 m away with a claimed 500 m error: beyond 15 + 25 m, so it is movement.
    for t in 1...100 { _ = detector.update(with: fix(Double(t), east: 0, north: 45 * Double(t), accuracy: 500)) }
    #expect(!detector.isStationary)
}

@Test func stationary_reportedSpeedAboveMovingSpeedResumes_evenInPlace() {
    var detector = StationaryDetector(.default) // moving above 1 m/s
    for t in 0...60 { _ = detector.update(with: fix(Double(t), east: 0, north: 0, speed: 0)) }
    #expect(detector.isStationary, "60 s in place")
    // Same position, but Doppler says 1.5 m/s: moving.
    #expect(detector.update(with: fix(61, east: 0, north: 0, speed: 1.5)) == .resumedMoving)
}

@Test func stationary_resetForgetsTheStopInProgress() {
    var detector = StationaryDetector(.fitness) // 30 s
    for t in 0...29 { _ = detector.update(with: fix(Double(t), east: 0, north: 0)) }
    detector.reset()
    // The anchor is now t = 30, so t = 59 is 29 s into the stop, not 59 s.
    for t in 30...59 { #expect(detector.update(with: fix(Double(t), east: 0, north: 0)) == nil, "t = \(t) s") }
    #expect(detector.update(with: fix(60, east: 0, north: 0)) == .becameStationary)
}

@Test func stationary_oneOutlierChangesNothing_twoInARowAreMovement() {
    var detector = StationaryDetector(.default) // 15 m + twice the accuracy (≤ 25 m)
    for t in 0...60 { _ = detector.update(with: fix(Double(t), east: 0, north: t % 2 == 0 ? 2 : -2, accuracy: 5)) }
    #expect(detector.isStationary)
    // A 60 m jump (beyond 15 + 10 m), then back: an outlier, still stationary.
    #expect(detector.update(with: fix(61, east: 60, north: 0, accuracy: 5)) == nil)
    #expect(detector.update(with: fix(62, east: 0, north: 0, accuracy: 5)) == nil)
    #expect(detector.isStationary)
    // Two fixes in a row 40 m away: moving.
    #expect(detector.update(with: fix(63, east: 40, north: 0, accuracy: 5)) == nil)
    #expect(detector.update(with: fix(64, east: 42, north: 0, accuracy: 5)) == .resumedMoving)
}

@Test func stationary_ignoresFixesBackInTime() {
    var detector = StationaryDetector(.fitness) // 30 s
    for t in 0...30 { _ = detector.update(with: fix(Double(t), east: 0, north: 0)) }
    #expect(detector.isStationary)
    // Fixes from the past (a replayed buffer) change nothing, even fast and far.
    #expect(detector.update(with: fix(5, east: 500, north: 0, speed: 30)) == nil)
    #expect(detector.update(with: fix(6, east: 500, north: 0, speed: 30)) == nil)
    #expect(detector.isStationary)
}
