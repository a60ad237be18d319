import Foundation
import Testing
import Evaluation
import GeoBase
import GeoCore
import GeoTestSupport
@testable import TrackFiltering

@Test(.onOwnThread) func hike_defaultSmoothKeepsTheLengthOnEverySeed() throws {
    // Issue 34 §2 on the default path: `geo gpx smooth` with default options (and `geo gpx clean
    // --preset fitness`) as run on a file, on the korita walk logged every 10 s with the held-out
    // hike's errors (6 m of 60 s-correlated noise, 2 % jumps of 60–200 m, every fix claiming
    // 8 m, no Doppler), the first six seeds of `geo eval filters --cases wide`. Goal on every
    // seed: length within 3 % of the truth's, RMSE at most 0.6 × the raw fixes'. The default
    // model (1 m/s²) followed the noise: 4.8 % too long on average, 6.0 % on the worst seed.
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let suite = FilterEvaluationSuite(dataRoot: Fixtures.dataRoot.path, firstSeed: 20_240_601, seeds: 1, cases: .wide)
    let truth = try TruthTrack(resampling: try suite.truthFixes("gpx/gpxpy/korita-zbevnica.gpx"), interval: .seconds(10))
    for seed: UInt64 in 20_240_601..<20_240_607 {
        let run = HikeRun(truth: truth, errors: HikePattern.every10s.errors(seed: seed))
        let raw = run.metrics[0]
        for (name, m) in zip(HikeRun.pipelines, run.metrics) where name == "clean (fitness)" || name == "smooth (default)" {
            #expect(abs(m.lengthErrorPercent) < 3, "seed \(seed) \(name): length \(m.lengthErrorPercent) %")
            #expect(m.rmse <= 0.6 * raw.rmse, "seed \(seed) \(name): RMSE \(m.rmse) m vs raw \(raw.rmse) m")
        }
    }
}

@Test(.onOwnThread) func hike_jumpBurstsDuringStopsAreNotTakenForTheTrack() throws {
    // Issue 34 §2 on the default path: the korita walk (a hike that stands still 43 % of its
    // time) logged every 10 s with bursts of 2–4 jumps of 60–200 m in unrelated directions,
    // the first ten seeds of `geo eval filters --cases wide`. A burst during a stop used to end
    // the stop, and the Kalman filter then took a jump for the track: `geo gpx smooth` was
    // 9.7 % too long on average over these seeds, `geo gpx clean --preset fitness` 7.6 %
    // (now 3.6 % and 3.9 %). Tolerance: mean length error below 5 % for each command, RMSE at
    // most 0.6 × the raw fixes' on every seed.
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let suite = FilterEvaluationSuite(dataRoot: Fixtures.dataRoot.path, firstSeed: 20_240_601, seeds: 1, cases: .wide)
    let truth = try TruthTrack(resampling: try suite.truthFixes("gpx/gpxpy/korita-zbevnica.gpx"), interval: .seconds(10))
    var lengths: [String: [Double]] = [:] // percent
    for seed: UInt64 in 20_240_601..<20_240_611 {
        let run = HikeRun(truth: truth, errors: HikePattern.jumpBursts.errors(seed: seed))
        let raw = run.metrics[0]
        for (name, m) in zip(HikeRun.pipelines, run.metrics) where name == "clean (fitness)" || name == "smooth (default)" {
            lengths[name, default: []].append(m.lengthErrorPercent)
            #expect(m.rmse <= 0.6 * raw.rmse, "seed \(seed) \(name): RMSE \(m.rmse) m vs raw \(raw.rmse) m")
        }
    }
    for (name, errors) in lengths {
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(errors.count == 10 && abs(mean) < 5, "\(name): mean length error \(mean) %, seeds \(errors)")
    }
}

@Test(.onOwnThread) func hike_cleanKeepsNoFixTheSmoothingPipelineRejected() throws {
    // Issue 34 §2: the korita walk every 10 s with bursts of jumps, the seed of the worst
    // `geo gpx clean --preset fitness` row of `geo eval filters --cases wide` (10.6 % too long).
    // A burst of four jumps leaves a stop: the gate passes the second (74 m off), which the next
    // honest fix overturns, and rejects the other three. `clean`'s second pass re-judged them
    // without the second, and its filter took the third and fourth (146 and 179 m off the truth)
    // for the track. What the smoothing pipeline rejects stays rejected, so `clean` keeps a
    // subset of what `smooth --preset fitness` keeps. Tolerance: every cleaned fix within 25 m
    // of the truth at its time, length within 3 %.
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let suite = FilterEvaluationSuite(dataRoot: Fixtures.dataRoot.path, firstSeed: 20_240_601, seeds: 1, cases: .wide)
    let truth = try TruthTrack(resampling: try suite.truthFixes("gpx/gpxpy/korita-zbevnica.gpx"), interval: .seconds(10))
    let raw = HikePattern.jumpBursts.errors(seed: 20_240_615).corrupt(truth).map(\.fix)
    let cleaned = HikeRun.clean(raw, configuration: .fitness)
    var report = FilterReport()
    let smoothed = Set(TrackFilterConfiguration.fitness.smoothed(raw, report: &report).map(\.timestamp))
    #expect(cleaned.allSatisfy { smoothed.contains($0.timestamp) })
    func offTruth(_ l: Location) -> Double {
        let p = truth.frame.point(for: l.coordinate)
        return (Vec2(x: p.east, y: p.north) - truth.position(at: l.timestamp)).norm
    }
    #expect(cleaned.allSatisfy { offTruth($0) < 25 }, "\(cleaned.map(offTruth).max() ?? 0) m off") // metres
    let length = TrackMetrics(cleaned, truth: truth, sampleTimes: raw.map(\.timestamp)).lengthErrorPercent
    #expect(abs(length) < 3, "\(length) %")
}

@Test func hikePatterns_injectWhatTheyName() throws {
    let dense = try TruthTrack(resampling: syntheticWalk(), interval: .seconds(1))
    // Irregular: every gap between 5 and 60 s (rounded to the 1 s truth), all of the track covered.
    let irregular = HikePattern.irregular.errors(seed: 3).corrupt(dense)
    let gaps = zip(irregular, irregular.dropFirst()).map { $1.fix.timestamp.timeIntervalSince($0.fix.timestamp) }
    #expect(gaps.allSatisfy { $0 >= 5 && $0 <= 60 }, "\(gaps.filter { $0 < 5 || $0 > 60 })") // seconds
    #expect(Set(gaps).count > 10 && gaps.reduce(0, +) > 500) // seconds: the last fix is within 60 s of the end
    // Along the track: a jump's offset from the truth is within 20° of the course, ahead or behind
    // (the 4.3 m per-axis noise turns a 60 m jump by at most ~15°).
    let truth = try TruthTrack(resampling: syntheticWalk(), interval: .seconds(10))
    for seed: UInt64 in 0..<20 {
        for j in HikePattern.jumpsAlongTrack.errors(seed: seed).corrupt(truth) where j.kind == .multipath {
            let p = truth.frame.point(for: j.fix.coordinate)
            let offset = Vec2(x: p.east, y: p.north) - truth.position(at: j.fix.timestamp)
            let k = Int(j.fix.timestamp.timeIntervalSince(truth.times[0]) / 10)
            let c = truth.courses[k] * .pi / 180
            let across = abs(offset.x * cos(c) - offset.y * sin(c))
            #expect(across < offset.norm * sin(20 * .pi / 180), "seed \(seed): \(across) m across of \(offset.norm) m")
        }
    }
    // Bursts: runs of 2–4 jumps, each its own offset.
    var runs: [Int] = [], run = 0, offsets: Set<Int> = []
    for seed: UInt64 in 0..<20 {
        run = 0 // a burst the track's end cuts short is not counted
        for n in HikePattern.jumpBursts.errors(seed: seed).corrupt(truth) {
            if n.kind == .multipath {
                run += 1
                let p = truth.frame.point(for: n.fix.coordinate)
                offsets.insert(Int((Vec2(x: p.east, y: p.north) - truth.position(at: n.fix.timestamp)).norm))
            } else if run > 0 {
                runs.append(run)
                run = 0
            }
        }
    }
    #expect(!runs.isEmpty && runs.allSatisfy { $0 >= 2 }, "\(runs)")
    #expect(offsets.count > runs.count * 2, "jumps in a burst share their offset")
}

@Test(.onOwnThread) func hike_smoothingTakesAStopsHeldFixesAgainstAJumpDuringIt() throws {
    // Issue 34 §2: the korita walk logged every 10 s with bursts of 2–4 jumps, on the three
    // seeds of `geo eval filters --cases wide` where a jump during a stop stood in `geo gpx
    // smooth`'s output (9.4 %, 7.0 % and 8.2 % too long). The stationary rule holds a stop's
    // fixes and the gate's prediction widens while it rejects a burst, so a later jump of the
    // burst got in; the smoother saw it between the last fix before the stop and the first
    // after, minutes apart, where the model lets anything fit. The held fixes now go into the
    // smoother (not its output) and contradict it. Goal: within 3 % of the truth's length.
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let suite = FilterEvaluationSuite(dataRoot: Fixtures.dataRoot.path, firstSeed: 20_240_601, seeds: 1, cases: .wide)
    let truth = try TruthTrack(resampling: try suite.truthFixes("gpx/gpxpy/korita-zbevnica.gpx"), interval: .seconds(10))
    for seed: UInt64 in [20_240_602, 20_240_604, 20_240_610] {
        let run = HikeRun(truth: truth, errors: HikePattern.jumpBursts.errors(seed: seed))
        let smooth = run.metrics[HikeRun.pipelines.firstIndex(of: "smooth (default)")!]
        #expect(abs(smooth.lengthErrorPercent) < 3, "seed \(seed): length \(smooth.lengthErrorPercent) %")
    }
}

@Test(.onOwnThread) func hike_jumpBurstsAreNotTakenForMotionByTheEstimatedModel() throws {
    // Issue 34 §2: the korita walk logged every 10 s with bursts of 2–4 jumps of 60–200 m, on three
    // seeds outside those `geo eval filters --cases wide` runs by default (--seed 7000000 --wide-seeds
    // 100), where `geo gpx smooth` (default) kept a jump 110–135 m off the truth and came out 7.7 %,
    // 18.1 % and 6.9 % too long. The default model's agility is estimated from the fixes, the jumps
    // among them: with two bursts close together more than a quarter of the estimate's triples held a
    // jump, its quantile took them for motion and the smoother kept a jump of each burst. Estimated
    // again without the outliers the passes found, the model is the walk's (now 0.7 %, 0.4 %, 1.9 %,
    // no fix more than 14 m off). Tolerance: every smoothed fix within 40 m of the truth at its time,
    // length within 3 % of the truth's.
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let suite = FilterEvaluationSuite(dataRoot: Fixtures.dataRoot.path, firstSeed: 7_000_000, seeds: 1, cases: .wide)
    let truth = try TruthTrack(resampling: try suite.truthFixes("gpx/gpxpy/korita-zbevnica.gpx"), interval: .seconds(10))
    for seed: UInt64 in [7_000_000, 7_000_056, 7_000_064] {
        let (worst, length) = defaultSmoothing(HikePattern.jumpBursts.errors(seed: seed).corrupt(truth).map(\.fix), truth: truth)
        #expect(worst < 40, "seed \(seed): a smoothed fix \(worst) m off the truth") // metres
        #expect(abs(length) < 3, "seed \(seed): length \(length) %")
    }
}

@Test(.onOwnThread) func hike_aJumpAfterAGapThatTheNextFixReplacesIsDropped() throws {
    // Issue 34 §2: the korita walk logged every 5–60 s, seed 7000080 (outside the seeds `geo eval
    // filters --cases wide` runs by default). A jump 195 m off came 40 s after the fix before it,
    // past the filter's 30 s gap, so the filter restarted there; the next fix, 6 s later,
    // contradicted that start and replaced it. The smoother bridges a start after a gap, so the
    // jump did not start a segment and was not dropped as a replaced start; it stood as the last
    // fix before the segment its replacement started, with no fix after it to judge it: `geo gpx
    // smooth` (default) kept it and came out 8.6 % too long. Tolerance: every smoothed fix within
    // 40 m of the truth at its time, length within 5 % of the truth's (the seed cuts corners: -4 %).
    guard try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") != nil else { return }
    let suite = FilterEvaluationSuite(dataRoot: Fixtures.dataRoot.path, firstSeed: 7_000_080, seeds: 1, cases: .wide)
    let truth = try TruthTrack(resampling: try suite.truthFixes("gpx/gpxpy/korita-zbevnica.gpx"), interval: .seconds(1))
    let (worst, length) = defaultSmoothing(HikePattern.irregular.errors(seed: 7_000_080).corrupt(truth).map(\.fix), truth: truth)
    #expect(worst < 40, "a smoothed fix \(worst) m off the truth") // metres
    #expect(abs(length) < 5, "length \(length) %")
}

/// `geo gpx smooth` (default options) on `raw` against `truth`: the farthest smoothed fix from
/// the truth at its time (metres) and the length error against the truth as sampled at the raw
/// fixes' times (percent, as `geo eval filters --cases wide` measures it).
private func defaultSmoothing(_ raw: [Location], truth: TruthTrack) -> (worstOffset: Double, lengthErrorPercent: Double) {
    var report = FilterReport()
    let smoothed = TrackFilterConfiguration.default.smoothed(raw, report: &report)
    let worst = smoothed.map { l -> Double in
        let p = truth.frame.point(for: l.coordinate)
        return (Vec2(x: p.east, y: p.north) - truth.position(at: l.timestamp)).norm
    }.max() ?? .infinity
    return (worst, TrackMetrics(smoothed, truth: truth, sampleTimes: raw.map(\.timestamp)).lengthErrorPercent)
}

/// A walk east at 1.2 m/s for 20 minutes with a 20-minute stop inserted halfway, at 10 s, and
/// its fixes with `sparseHike` noise scaled to `noise` metres horizontal RMS (every fix claiming
/// 8 m, no jumps: the stop is what is measured).
private func walkWithAStop(seed: UInt64, noise: Double) throws -> (truth: TruthTrack, fixes: [Location]) {
    let walk = (0...1_200).map { fix(Double($0), east: 1.2 * Double($0), north: 0, accuracy: nil) }
    let truth = try TruthTrack(resampling: walk, interval: .seconds(10), stopDuration: .seconds(1_200))
    var errors = GNSSErrorModel.sparseHike(seed: seed).withNoise(horizontalRMS: noise)
    errors.multipathProbability = 0
    return (truth, errors.corrupt(truth).map(\.fix))
}

@Test func stillness_findsAStopInCorrelatedNoiseAndNotAWalk() throws {
    // Issue 34 §2: the smoother's stillness test (`KalmanSmoother.stillness`) on a walk at
    // 1.2 m/s with a 20-minute stop, fixes every 10 s with 6 m and with 10 m of 60 s-correlated
    // noise claiming 8 m, five seeds each. Tolerance: at least 70 % of the fixes inside the stop
    // (30 s clear of its ends, the test's window) are still, and no fix of the walk more than
    // 30 s from it is.
    let smoother = KalmanSmoother(parameters: KalmanParameters(estimatesProcessNoise: .everywhere))
    for noise in [6.0, 10.0] {
        for seed: UInt64 in 1...5 {
            let (truth, fixes) = try walkWithAStop(seed: seed, noise: noise)
            let stop = try #require(truth.stop)
            let still = smoother.stillness(fixes, starts: fixes.indices.map { $0 == 0 })
            var inside = 0, insideStill = 0, walkingStill = 0
            for (f, s) in zip(fixes, still) {
                if f.timestamp > stop.start.addingTimeInterval(30), f.timestamp < stop.end.addingTimeInterval(-30) {
                    inside += 1
                    if s { insideStill += 1 }
                } else if f.timestamp < stop.start.addingTimeInterval(-30) || f.timestamp > stop.end.addingTimeInterval(30), s {
                    walkingStill += 1
                }
            }
            #expect(Double(insideStill) >= 0.7 * Double(inside), "noise \(noise) m, seed \(seed): \(insideStill) of \(inside) stop fixes still")
            #expect(walkingStill == 0, "noise \(noise) m, seed \(seed): \(walkingStill) walking fixes still")
        }
    }
}

@Test func defaultSmoothing_doesNotWanderThroughAStopTheRuleLetsGo() throws {
    // Issue 34 §2: `geo gpx smooth` (default options) on the walk with a 20-minute stop, fixes
    // every 10 s with 10 m of 60 s-correlated noise claiming 8 m (beyond the stationary rule's
    // 10 m radius, so the rule lets much of the stop go), five seeds. The estimated model took
    // the stop's scatter for motion and the smoothed track wandered with the noise: 28.7 m of
    // path per 10 minutes of stop on average (3.4–64.7 m). Steps between fixes the device was
    // still at now get the least process noise: 21.6 m (2.0–48.1 m), and measure a zero
    // velocity: 17.2 m (1.0–39.5 m; what is left is the noise wandering farther than 8 m
    // claims, which the stillness test lets go). Tolerance: below 19 m per 10 minutes on
    // average over the seeds.
    var drifts: [Double] = [] // metres per 10 minutes of stop
    for seed: UInt64 in 1...5 {
        let (truth, fixes) = try walkWithAStop(seed: seed, noise: 10)
        var report = FilterReport()
        let smoothed = TrackFilterConfiguration.default.smoothed(fixes, report: &report)
        drifts.append(try #require(TrackMetrics(smoothed, truth: truth).stationaryDriftPer10Minutes))
    }
    let mean = drifts.reduce(0, +) / Double(drifts.count)
    #expect(mean < 19, "mean \(mean) m per 10 minutes of stop, seeds \(drifts)")
}
