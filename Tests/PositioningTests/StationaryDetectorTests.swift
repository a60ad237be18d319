import Testing
import GeoCore
@testable import Positioning

@Test func stationary_afterDelayWithinRadius_thenResumesOnMovement() {
    var detector = StationaryDetector(configuration: .fitness) // 30 s within 8 m (+ accuracy ≤ 15 m)
    var transitions: [(Double, StationaryDetector.Transition)] = []
    // Walk 1.4 m/s for 20 s, stand still with ±3 m jitter for 60 s, walk again.
    var t = 0.0, north = 0.0
    func feed(_ l: Location) { if let tr = detector.update(with: l) { transitions.append((t, tr)) } }
    while t < 20 { feed(fix(north: north, t: t, accuracy: 5, speed: 1.4)); north += 1.4; t += 1 }
    while t < 80 { feed(fix(north: north + (t.truncatingRemainder(dividingBy: 2) == 0 ? 3 : -3), t: t, accuracy: 5, speed: 0.1)); t += 1 }
    while t < 90 { north += 1.4; feed(fix(north: north + 3, t: t, accuracy: 5, speed: 1.4)); t += 1 }
    #expect(transitions.count == 2)
    // The stop is anchored at the last moving fix (t = 19) and declared 30 s later.
    #expect(transitions.first?.0 == 49 && transitions.first?.1 == .becameStationary)
    #expect(transitions.last?.0 == 80 && transitions.last?.1 == .resumedMoving)
}

@Test func stationary_neverForAirborne() {
    var detector = StationaryDetector(configuration: .airborne)
    for t in 0..<1000 { #expect(detector.update(with: fix(t: Double(t))) == nil) }
}

@Test func stationary_hugeAccuracyDoesNotHideMovement() {
    var detector = StationaryDetector(configuration: .default) // 15 m + jitter capped at 25 m
    _ = detector.update(with: fix(t: 0, accuracy: 5))
    // 45 m away with a claimed 500 m error: beyond 15 + 25 m, so it is movement.
    for t in 1...100 { _ = detector.update(with: fix(north: 45 * Double(t), t: Double(t), accuracy: 500)) }
    #expect(!detector.isStationary)
}
