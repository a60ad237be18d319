import Foundation
import Testing
import GeoBase
import GeoCore
@testable import TrackFiltering

/// A straight run at `speed` m/s heading `course` degrees, 1 Hz, with seeded white noise.
func noisyLine(seconds: Int, speed: Double, course: Double, sigma: Double, seed: UInt64,
               doppler: Bool = false) -> (fixes: [Location], truth: [(Double, Double)]) {
    var rng = SplitMix64(seed: seed)
    let c = course * .pi / 180
    var fixes: [Location] = [], truth: [(Double, Double)] = []
    for t in 0..<seconds {
        let e = sin(c) * speed * Double(t), n = cos(c) * speed * Double(t)
        truth.append((e, n))
        fixes.append(fix(Double(t), east: e + sigma * rng.gaussian(), north: n + sigma * rng.gaussian(),
                         accuracy: sigma / KalmanSmoother.radiusToSigma,
                         speed: doppler ? speed + 0.1 * rng.gaussian() : nil, speedAccuracy: doppler ? 0.1 : nil,
                         course: doppler ? course + rng.gaussian() : nil))
    }
    return (fixes, truth)
}

/// RMSE against the truth sampled at 1 Hz from `epoch`, matching fixes by timestamp (m).
func rmse(_ track: [Location], _ truth: [(Double, Double)]) -> Double {
    var s = 0.0
    for l in track {
        let t = truth[Int(l.timestamp.timeIntervalSince(epoch).rounded())]
        let p = plane(l)
        s += (p.east - t.0) * (p.east - t.0) + (p.north - t.1) * (p.north - t.1)
    }
    return (s / Double(track.count)).squareRoot()
}

@Test func kalman_estimatesSpeedAndCourseFromPositionsAlone() throws {
    let (fixes, _) = noisyLine(seconds: 120, speed: 10, course: 60, sigma: 3, seed: 1)
    var kalman = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 0.05, usesReportedVelocity: false))
    var estimates: [Location] = []
    for f in fixes { if let e = kalman.update(with: f).estimate { estimates.append(e) } }
    // The 99.9 % gate may drop an honest fix now and then (0.12 expected here).
    #expect(estimates.count >= 118)
    // After 30 s of convergence: speed within 0.5 m/s, course within 3°.
    for e in estimates.dropFirst(30) {
        let speed = try #require(e.speed).metersPerSecond
        let course = try #require(e.course)
        #expect(abs(speed - 10) < 0.5, "speed \(speed) m/s")
        #expect(abs(course.turn(to: .degrees(60))) < 3, "course \(course)")
        // The filter's own accuracy is honest: below the 4.5 m radius of one fix.
        #expect(try #require(e.horizontalAccuracy).meters < 4.5)
    }
}

@Test func kalman_followsTurnWithinSeconds() throws {
    // North at 5 m/s for 60 s, then east for 60 s; noise 2 m; Doppler speed and course.
    var rng = SplitMix64(seed: 7)
    var kalman = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 1.5))
    var courses: [Double] = []
    for t in 0..<120 {
        let (e, n, c) = t < 60 ? (0.0, 5.0 * Double(t), 0.0) : (5.0 * Double(t - 60), 300.0, 90.0)
        let f = fix(Double(t), east: e + 2 * rng.gaussian(), north: n + 2 * rng.gaussian(), accuracy: 3,
                    speed: 5 + 0.1 * rng.gaussian(), speedAccuracy: 0.2, course: c + 2 * rng.gaussian(),
                    courseAccuracy: 2)
        let estimate = try #require(kalman.update(with: f).estimate)
        courses.append(try #require(estimate.course).degrees)
    }
    // Within 5 s of the turn the course is east within 6° (three sigma of the Doppler course
    // noise, which an agile model mostly follows), and stays so.
    for c in courses[65...] { #expect(abs(Bearing(degrees: c).turn(to: .degrees(90))) < 6, "course \(c)°") }
    for c in courses[20..<60] { #expect(abs(Bearing(degrees: c).turn(to: .degrees(0))) < 6, "course \(c)°") }
}

@Test func kalman_reducesErrorAndKeepsReportedSpeed() throws {
    let (fixes, truth) = noisyLine(seconds: 200, speed: 1.4, course: 200, sigma: 4, seed: 3, doppler: true)
    var kalman = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 0.5))
    let out = fixes.compactMap { kalman.update(with: $0).estimate }
    let raw = rmse(fixes, truth), filtered = rmse(out, truth)
    #expect(filtered < 0.6 * raw, "raw \(raw) m, filtered \(filtered) m")
    let speeds = try out.suffix(100).map { try #require($0.speed).metersPerSecond }
    let mean = speeds.reduce(0, +) / Double(speeds.count)
    #expect(abs(mean - 1.4) < 0.1, "mean speed \(mean) m/s") // Doppler noise 0.1 m/s per fix
}

@Test func kalman_gatesOutliersAndRestartsWhenTheyPersist() {
    var kalman = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 1, maximumConsecutiveOutliers: 3))
    for t in 0..<20 { _ = kalman.update(with: fix(Double(t), east: Double(t), north: 0, accuracy: 3)) }
    // A 100 m multipath jump is gated.
    guard case .rejected(let d2) = kalman.update(with: fix(20, east: 120, north: 0, accuracy: 3)) else {
        Issue.record("a 100 m jump was not gated")
        return
    }
    #expect(d2 > 13.8)
    // Back on track: accepted.
    #expect(kalman.update(with: fix(21, east: 21, north: 0, accuracy: 3)).estimate != nil)
    // Three outliers in a row: the filter gives up and restarts at the third.
    #expect(kalman.update(with: fix(22, east: 500, north: 0, accuracy: 3)).estimate == nil)
    #expect(kalman.update(with: fix(23, east: 501, north: 0, accuracy: 3)).estimate == nil)
    guard case .started(let l) = kalman.update(with: fix(24, east: 502, north: 0, accuracy: 3)) else {
        Issue.record("no restart after persistent outliers")
        return
    }
    #expect(abs(plane(l).east - 502) < 1e-6) // metres
}

@Test func kalman_restartsAfterLongGap() {
    var kalman = KalmanSmoother(parameters: KalmanParameters(maximumGap: .seconds(30)))
    for t in 0..<10 { _ = kalman.update(with: fix(Double(t), east: Double(t) * 2, north: 0)) }
    if case .updated = kalman.update(with: fix(39, east: 80, north: 0)) {} else { Issue.record("a 30 s gap must not restart") }
    guard case .started(let l) = kalman.update(with: fix(70, east: 9000, north: 0)) else {
        Issue.record("a 31 s gap must restart")
        return
    }
    #expect(abs(plane(l).east - 9000) < 1e-6) // metres: a restart takes the fix as is
    #expect(kalman.update(with: fix(69, east: 0, north: 0)) == .outOfOrder)
}

@Test func rts_beatsForwardFilterOnSeededNoisyTrack() {
    for seed: UInt64 in 10..<15 {
        let (fixes, truth) = noisyLine(seconds: 300, speed: 1.4, course: 45, sigma: 4, seed: seed)
        var forward = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 0.3))
        let filtered = fixes.compactMap { forward.update(with: $0).estimate }
        let smoothed = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 0.3)).smoothed(fixes)
        #expect(smoothed.count >= fixes.count - 3) // the gate may drop an honest fix or two
        let f = rmse(filtered, truth), s = rmse(smoothed, truth)
        #expect(s < 0.8 * f, "seed \(seed): forward \(f) m, RTS \(s) m")
    }
}

@Test func rts_lastEstimateEqualsForwardFilter() throws {
    // With Gaussian noise (no Student-t weights) the RTS pass ends where the filter does.
    let (fixes, _) = noisyLine(seconds: 50, speed: 3, course: 10, sigma: 3, seed: 5)
    let gaussian = KalmanParameters(measurementDegreesOfFreedom: nil)
    var forward = KalmanSmoother(parameters: gaussian)
    let filtered = fixes.compactMap { forward.update(with: $0).estimate }
    let smoothed = KalmanSmoother(parameters: gaussian).smoothed(fixes)
    let a = plane(try #require(filtered.last)), b = plane(try #require(smoothed.last))
    #expect(abs(a.east - b.east) < 1e-6 && abs(a.north - b.north) < 1e-6) // metres
}

@Test func localFrame_agreesWithGeoCoreTangentPlane() {
    let plane3d = LocalTangentPlane(origin: testFrame.origin)
    for (e, n) in [(100.0, 0.0), (0.0, 1000.0), (-3000.0, 2000.0), (5000.0, -5000.0)] {
        let c = testFrame.coordinate(east: e, north: n)
        let enu = plane3d.enu(of: c)
        // Within 5 km of the origin the planes agree to 0.05 % of the distance.
        let tolerance = 5e-4 * (e * e + n * n).squareRoot()
        #expect(abs(enu.east - e) < tolerance && abs(enu.north - n) < tolerance, "\(e),\(n) → \(enu)")
        let back = testFrame.point(for: c)
        #expect(abs(back.east - e) < 1e-6 && abs(back.north - n) < 1e-6) // metres: exact round trip
    }
}

@Test func kalman_holdStillCarriesTheFilterThroughAStop() throws {
    var kalman = KalmanSmoother(parameters: KalmanParameters(maximumGap: .seconds(30)))
    for t in 0..<20 { _ = kalman.update(with: fix(Double(t), east: Double(t) * 1.5, north: 0, accuracy: 4)) }
    // A 60 s stop, longer than the gap limit, reported as stillness each second.
    for t in 20..<80 { kalman.holdStill(at: epoch.addingTimeInterval(Double(t))) }
    let estimate = try #require(kalman.estimate)
    #expect(try #require(estimate.speed).metersPerSecond < 0.2) // m/s
    #expect(abs(plane(estimate).east - 28.5) < 3) // metres: it did not coast on at 1.5 m/s
    guard case .updated = kalman.update(with: fix(80, east: 29, north: 0, accuracy: 4)) else {
        Issue.record("the stop must not restart the filter")
        return
    }
}

@Test func kalman_scatteredOutliersNeverRestartIt() {
    var kalman = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 1, maximumConsecutiveOutliers: 3))
    for t in 0..<20 { _ = kalman.update(with: fix(Double(t), east: Double(t), north: 0, accuracy: 3)) }
    // Multipath bursts in different directions disagree with each other: all gated, no restart.
    let jumps: [(Double, Double)] = [(120, 80), (-90, 40), (30, -150), (200, 10), (-60, -120)]
    for (i, j) in jumps.enumerated() {
        let result = kalman.update(with: fix(Double(20 + i), east: Double(20 + i) + j.0, north: j.1, accuracy: 3))
        #expect(result.estimate == nil, "jump \(i) was taken: \(result)")
    }
    #expect(kalman.update(with: fix(25, east: 25, north: 0, accuracy: 3)).estimate != nil)
}

@Test func kalman_contradictedStartIsReplaced() {
    var kalman = KalmanSmoother()
    // The first fix is a 200 m multipath jump; the second, on the real track, replaces it.
    #expect(kalman.update(with: fix(0, east: 200, north: 0, accuracy: 3)).estimate != nil)
    guard case .started(let l) = kalman.update(with: fix(1, east: 1, north: 0, accuracy: 3)) else {
        Issue.record("a contradicted start must be replaced")
        return
    }
    #expect(abs(plane(l).east - 1) < 1e-6) // metres
}

@Test func rts_dropsStartsAndShortSegmentsThatWereOutliers() {
    // A walk at 1 m/s; after a 60 s gap (a restart) the first two fixes are one 40 m multipath
    // burst, outvoted by the agreeing fixes that follow.
    var fixes = (0..<20).map { fix(Double($0), east: Double($0), north: 0, accuracy: 3) }
    fixes.append(fix(80, east: 80, north: 40, accuracy: 3))
    fixes.append(fix(81, east: 81, north: 40, accuracy: 3))
    fixes += (82..<100).map { fix(Double($0), east: Double($0), north: 0, accuracy: 3) }
    var report = FilterReport()
    // Three agreeing outliers restart the filter (before its widening gate lets them in).
    let parameters = KalmanParameters(maximumGap: .seconds(30), maximumConsecutiveOutliers: 3)
    let smoothed = KalmanSmoother(parameters: parameters).smoothed(fixes, report: &report)
    #expect(!smoothed.contains { abs(plane($0).north) > 10 }, "the burst survived")
    #expect(report.received == fixes.count)
    #expect(report.count(of: .kalmanOutlier) >= 2)
    #expect(report.accepted == smoothed.count)
}
