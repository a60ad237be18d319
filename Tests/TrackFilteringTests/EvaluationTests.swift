import Foundation
import Testing
import GeoCore
@testable import TrackFiltering

/// A synthetic walk: 10 minutes along a square of 200 m sides at 1.4 m/s, 1 Hz.
func syntheticWalk() -> [Location] {
    (0..<600).map { t in
        let s = (Double(t) * 1.4).truncatingRemainder(dividingBy: 800)
        let (e, n): (Double, Double) = s < 200 ? (s, 0) : s < 400 ? (200, s - 200) : s < 600 ? (600 - s, 200) : (0, 800 - s)
        return fix(Double(t), east: e, north: n, accuracy: 0)
    }
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
