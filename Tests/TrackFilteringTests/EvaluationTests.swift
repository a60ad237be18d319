import Foundation
import Testing
import Evaluation
import GeoCore
@testable import TrackFiltering
import GeoBase

/// A synthetic walk: 10 minutes along a square of 200 m sides at 1.4 m/s, 1 Hz.
func syntheticWalk() -> [Location] {
    (0..<600).map { t in
        let s = (Double(t) * 1.4).truncatingRemainder(dividingBy: 800)
        let (e, n): (Double, Double) = s < 200 ? (s, 0) : s < 400 ? (200, s - 200) : s < 600 ? (600 - s, 200) : (0, 800 - s)
        return fix(Double(t), east: e, north: n, accuracy: 0)
    }
}

@Test func metrics_measureLengthAgainstTheTruthAtTheLoggersTimes() throws {
    // The synthetic walk turns at (200, 0) at 200 / 1.4 s and reaches (200, 200) at 400 / 1.4 s;
    // the 1 Hz truth cuts that corner and interpolates those times (under 1 m of path).
    let truth = try TruthTrack(resampling: syntheticWalk())
    let t0 = truth.times[0]
    let corner = t0.addingTimeInterval(200 / 1.4), far = t0.addingTimeInterval(400 / 1.4)
    // A logger fixing only at the start and the far corner sees the diagonal, 200 √2 m
    // (Pythagoras); one that also fixes at the corner sees both sides, 400 m.
    #expect(abs(truth.length(sampledAt: [t0, far], from: t0, to: far) - 200 * 2.0.squareRoot()) < 1) // metres
    #expect(abs(truth.length(sampledAt: [t0, corner, far], from: t0, to: far) - 400) < 1) // metres
    // Times outside the span do not count; its ends always do.
    #expect(abs(truth.length(sampledAt: [far.addingTimeInterval(100)], from: t0, to: far) - 200 * 2.0.squareRoot()) < 1) // metres
    // Perfect fixes at the logger's times: no length error against the sampled truth, the
    // corner cut (1 − √2 / 2 = 29.3 %) against the whole truth.
    let fixes = truth.locations.filter { $0.timestamp == t0 } + [fix(400 / 1.4, east: 200, north: 200, accuracy: 0)]
    let sampled = TrackMetrics(fixes, truth: truth, sampleTimes: fixes.map(\.timestamp))
    #expect(abs(sampled.lengthErrorPercent) < 0.3) // percent
    #expect(abs(TrackMetrics(fixes, truth: truth).lengthErrorPercent + 100 * (1 - 2.0.squareRoot() / 2)) < 0.3) // percent
}

@Test func errorModel_isDeterministicPerSeed() throws {
    let truth = try TruthTrack(resampling: syntheticWalk(), stopDuration: .seconds(600))
    let a = GNSSErrorModel(seed: 1).corrupt(truth), b = GNSSErrorModel(seed: 1).corrupt(truth)
    let c = GNSSErrorModel(seed: 2).corrupt(truth)
    #expect(a == b)
    #expect(a != c)
    // Every injected fault occurs.
    for kind in NoisyFix.Kind.allCases { #expect(a.contains { $0.kind == kind }, "no \(kind) fixes") }
    // Some deliveries are out of timestamp order.
    #expect(zip(a, a.dropFirst()).contains { $0.fix.timestamp > $1.fix.timestamp })
}

@Test func metrics_ofTruthAreZeroAndStopIsStill() throws {
    let truth = try TruthTrack(resampling: syntheticWalk(), stopDuration: .seconds(300), stopFraction: 0.5)
    let m = TrackMetrics(truth.locations, truth: truth)
    #expect(m.rmse < 1e-6) // metres
    #expect(abs(m.lengthErrorPercent) < 1e-6)
    #expect(try #require(m.stationaryDriftPer10Minutes) < 1e-6)
    #expect(abs(try #require(m.walkingLag)) < 1e-6)
    // 599 s at 1.4 m/s, less the three corners the 1 Hz samples cut (under 0.5 m each).
    #expect(abs(truth.length - 599 * 1.4) < 1.5) // metres
    let stop = try #require(truth.stop)
    #expect(abs(stop.duration - 300) < 1e-9) // seconds
}

@Test func cleaning_beatsRawOnSyntheticWalk() throws {
    let truth = try TruthTrack(resampling: syntheticWalk(), stopDuration: .seconds(600))
    let noisy = GNSSErrorModel(seed: 42).corrupt(truth)
    let raw = TrackMetrics(noisy.map(\.fix), truth: truth)
    var cleaner = TrackCleaner(configuration: .fitness)
    let cleaned = noisy.compactMap { cleaner.process($0.fix, receivedAt: $0.receivedAt).location }
    let m = TrackMetrics(cleaned, truth: truth)
    #expect(m.rmse < 0.6 * raw.rmse, "raw \(raw.rmse) m, cleaned \(m.rmse) m")
    #expect(abs(m.lengthErrorPercent) < abs(raw.lengthErrorPercent) / 5)
    #expect(try #require(m.stationaryDriftPer10Minutes) < 5) // metres per 10 min
    #expect(cleaner.report.count(of: .warmUp) > 0)
    #expect(cleaner.report.count(of: .stale) > 0)
}

@Test func configurationSmoothed_reportsEveryFix() throws {
    let truth = try TruthTrack(resampling: syntheticWalk(), stopDuration: .seconds(120))
    let noisy = GNSSErrorModel(seed: 9).corrupt(truth).map(\.fix)
    var report = FilterReport()
    let smoothed = TrackFilterConfiguration.fitness.smoothed(noisy, report: &report)
    #expect(report.received == noisy.count)
    #expect(report.accepted == smoothed.count)
    #expect(report.count(of: .stationary) > 0)
    let m = TrackMetrics(smoothed, truth: truth), raw = TrackMetrics(noisy, truth: truth)
    #expect(m.rmse < 0.4 * raw.rmse, "raw \(raw.rmse) m, smoothed \(m.rmse) m")
}

@Test func filterEvaluation_rowsInOrderAndSmoothersBeatRaw() throws {
    let truth = try TruthTrack(resampling: syntheticWalk(), stopDuration: .seconds(300))
    let run = FilterEvaluation(truth: truth, seed: 7, configuration: .fitness)
    #expect(run.rows.map(\.name) == ["raw", "rules", "rules + Kalman", "rules + RTS", "HCKalmanFilter-style (fixed R)"])
    let raw = run.rows[0].metrics.rmse
    for row in run.rows[2...3] { #expect(row.metrics.rmse < 0.5 * raw, "\(row.name): \(row.metrics.rmse) m vs raw \(raw) m") }
    #expect(run.report.received == GNSSErrorModel(seed: 7).corrupt(truth).count)
    #expect(!run.accepted.isEmpty && run.accepted.count <= run.report.received)
    // A reference track becomes its own row, before the contrast row.
    let withReference = FilterEvaluation(truth: truth, seed: 7, configuration: .fitness, reference: truth.locations)
    #expect(withReference.rows[4].name == "pykalman RTS (same input)")
    #expect(withReference.rows[4].metrics.rmse < 1e-6) // metres: the truth itself
}

@Test func fixedNoiseKalman_ignoresAccuracyAndFollowsAStraightLine() {
    // 1.4 m/s east, one fix a second; a 20 m jump at t = 30 s claimed at 1 m accuracy.
    var a = FixedNoiseKalman(), b = FixedNoiseKalman()
    var lastA = (east: 0.0, north: 0.0), lastB = lastA
    for t in 0..<60 {
        let jump = t == 30 ? 20.0 : 0
        lastA = plane(a.process(fix(Double(t), east: 1.4 * Double(t), north: jump, accuracy: 1), frame: testFrame))
        lastB = plane(b.process(fix(Double(t), east: 1.4 * Double(t), north: jump, accuracy: 50), frame: testFrame))
        if t == 30 { #expect(lastA.north < 20 && lastA.north > 0, "the jump is damped: \(lastA.north) m") }
    }
    // Fixed R: the claimed accuracy changes nothing.
    #expect(abs(lastA.east - lastB.east) < 1e-9 && abs(lastA.north - lastB.north) < 1e-9) // metres
    #expect(abs(lastA.east - 1.4 * 59) < 3) // metres behind or ahead of the truth at the end
}

@Test func pykalmanCSV_roundTripsPositionsAndNamesBadLines() throws {
    let truth = try TruthTrack(resampling: syntheticWalk(), stopDuration: nil)
    let fixes = Array(truth.locations.prefix(50))
    let text = PykalmanCSV.input(fixes, truth: truth, parameters: KalmanParameters())
    #expect(text.hasPrefix("# acceleration_noise="))
    #expect(text.split(separator: "\n").count == 52)
    // The python script echoes t,east,north first: reading the input back returns the fixes.
    let back = try PykalmanCSV.smoothed(text, truth: truth)
    #expect(back.count == fixes.count)
    for (x, y) in zip(back, fixes) {
        #expect(abs(x.timestamp.timeIntervalSince(y.timestamp)) < 1e-6) // seconds
        #expect(Geodesic.wgs84.inverse(from: x.coordinate, to: y.coordinate).distance.meters < 1e-6)
    }
    let error = #expect(throws: TrackFilteringError.self) { try PykalmanCSV.smoothed("t,east,north\n0,1,2\n1,x,2\n", truth: truth) }
    #expect(error?.message.hasPrefix("line 3:") == true, "\(String(describing: error))")
}
