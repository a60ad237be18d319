import Foundation
import Testing
import Evaluation
import GeoBase
import GeoCore
@testable import TrackFiltering

/// A walk east at 1.2 m/s, one fix every 10 s claiming 8 m, seeded white noise of 4 m per axis,
/// and jumps of `jump` metres north (also claiming 8 m) at the given fix indices.
private func sparseWalk(seed: UInt64, jumps: Set<Int>, jump: Double) -> [Location] {
    var rng = SplitMix64(seed: seed)
    return (0..<60).map { k in
        let t = Double(k) * 10
        let north = 4 * rng.gaussian() + (jumps.contains(k) ? jump : 0)
        return fix(t, east: 1.2 * t + 4 * rng.gaussian(), north: north, accuracy: 8)
    }
}

@Test func rts_rejectsJumpsTheGateLetsThroughBetweenSparseFixes() {
    // The default model (1 m/s²) predicts 10 s ahead with σ ≈ 19 m per axis: its gate passes
    // a 70 m jump. Both neighbours of the jump contradict it; the Student-t smoother sees that.
    for seed: UInt64 in 0..<5 {
        let fixes = sparseWalk(seed: seed, jumps: [15, 32, 47], jump: 70)
        var report = FilterReport()
        let smoothed = KalmanSmoother().smoothed(fixes, report: &report)
        let far = smoothed.filter { abs(plane($0).north) > 20 }
        #expect(far.isEmpty, "seed \(seed): \(far.count) fixes still off the walk by over 20 m")
        #expect(report.count(of: .kalmanOutlier) >= 3, "seed \(seed): \(report)")
        #expect(report.accepted == smoothed.count && report.received == fixes.count)
        // The jumps go, and at most two honest fixes after each: the one-sided gate, pulled by
        // the jump it let in, rejects those.
        #expect(smoothed.count >= fixes.count - 9, "seed \(seed): kept \(smoothed.count) of \(fixes.count)")
    }
}

@Test func rts_withGaussianNoiseKeepsWhatTheGatePasses() {
    // ν = nil is the plain RTS smoother: the jumps still go, because the gated pass overturns
    // each one when the next fix exposes it (KalmanSmoother.overturnedPreviousFix).
    var parameters = KalmanParameters()
    parameters.measurementDegreesOfFreedom = nil
    let smoothed = KalmanSmoother(parameters: parameters).smoothed(sparseWalk(seed: 0, jumps: [15, 32, 47], jump: 70))
    #expect(smoothed.filter { abs(plane($0).north) > 20 }.isEmpty)
}

@Test func rts_bridgesGapsInsteadOfSplitting() throws {
    // A 40 s silence, longer than the 30 s maximum gap, restarts the online filter; the smoother
    // bridges it (the gap only widens the prediction), so the fix before the gap is smoothed
    // with the fixes after it instead of staying at the forward filter's estimate.
    var (fixes, _) = noisyLine(seconds: 120, speed: 1.4, course: 90, sigma: 3, seed: 8)
    fixes.removeSubrange(60..<100)
    let gaussian = KalmanParameters(accelerationNoise: 0.3, maximumGap: .seconds(30), measurementDegreesOfFreedom: nil)
    var forward = KalmanSmoother(parameters: gaussian)
    let filtered = fixes.prefix(60).compactMap { forward.update(with: $0).estimate }
    let smoothed = KalmanSmoother(parameters: gaussian).smoothed(fixes)
    // Fixes 9 and 10 of this draw are both about 10 m (3.3 σ) off, in opposite directions: the
    // filter drops one of them as a jump (the gate's 0.1 % rate). Every other fix stays: none is
    // lost to a jump the next fix then turns out to have been (KalmanSmoother.reinstatedFix),
    // neither in the smoother nor in the batch clean.
    let pair = [fixes[9].timestamp, fixes[10].timestamp]
    #expect(smoothed.count == fixes.count - 1 && smoothed.filter { pair.contains($0.timestamp) }.count == 1)
    var cleaner = TrackCleaner(rule: TimestampOrderRule(), kalman: gaussian)
    let cleaned = cleaner.cleaned(fixes)
    #expect(cleaned.count == fixes.count - 1 && cleaned.filter { pair.contains($0.timestamp) }.count == 1)
    let beforeGap = fixes[59].timestamp
    let before = plane(try #require(filtered.last)), bridged = plane(try #require(smoothed.first { $0.timestamp == beforeGap }))
    let moved = ((before.east - bridged.east) * (before.east - bridged.east)
        + (before.north - bridged.north) * (before.north - bridged.north)).squareRoot()
    #expect(moved > 0.01, "the fix before the gap moved \(moved) m") // metres: split segments would not move it
}

@Test func sparseHike_smoothMeetsTheIssueGoals() throws {
    // Issue 12 §4: sampled every 10 s, correlated noise of 6 m, 2 % jumps of 60–200 m that
    // claim 8 m. Goal, as `geo eval filters` states it (means over seeds): within 3 % of the
    // true length, RMSE at most 0.6 × raw. (A jump as the very first fix has one neighbour
    // only and can survive: seed 2 here.)
    let truth = try TruthTrack(resampling: syntheticWalk(), interval: .seconds(10))
    var length = 0.0, rmse = 0.0, rawRMSE = 0.0
    let seeds: Range<UInt64> = 0..<8
    for seed in seeds {
        let noisy = GNSSErrorModel.sparseHike(seed: seed).corrupt(truth).map(\.fix)
        var report = FilterReport()
        let m = TrackMetrics(TrackFilterConfiguration.fitness.smoothed(noisy, report: &report), truth: truth)
        length += m.lengthErrorPercent / Double(seeds.count)
        rmse += m.rmse / Double(seeds.count)
        rawRMSE += TrackMetrics(noisy, truth: truth).rmse / Double(seeds.count)
    }
    #expect(abs(length) < 3, "mean length error \(length) %")
    #expect(rmse <= 0.6 * rawRMSE, "mean RMSE \(rmse) m vs raw \(rawRMSE) m")
}

@Test func sparseHikeModel_jumpsClaimGoodAccuracyAndNothingElseIsInjected() throws {
    let truth = try TruthTrack(resampling: syntheticWalk(), interval: .seconds(5))
    let noisy = GNSSErrorModel.sparseHike(seed: 4).corrupt(truth)
    #expect(noisy.count == truth.count)
    #expect(Set(noisy.map(\.kind)).isSubset(of: [.nominal, .multipath]))
    #expect(noisy.allSatisfy { $0.fix.horizontalAccuracy == .meters(8) && $0.fix.speed == nil })
    let jumps = noisy.filter { $0.kind == .multipath }
    #expect(!jumps.isEmpty)
    for j in jumps {
        let p = truth.frame.point(for: j.fix.coordinate)
        let error = (Vec2(x: p.east, y: p.north) - truth.position(at: j.fix.timestamp)).norm
        // 60–200 m of jump plus at most ~5 σ of the 4.3 m per-axis noise.
        #expect(error > 35 && error < 230, "jump of \(error) m")
    }
}

@Test func stationaryRule_withoutDopplerDoesNotHoldAWalk() {
    // A slow walk (1.2 m/s, 1 Hz, no speed) stays within 8 m for 6 s: longer than the 5 s dwell,
    // but far faster than the 0.3 m/s that counts as still.
    let rule = StationaryRule(.init(speedThreshold: .metersPerSecond(0.3), dwell: .seconds(5), radius: .meters(8)))
    let walk = (0..<120).map { fix(Double($0), east: 1.2 * Double($0), north: 0, accuracy: 8) }
    #expect(decisions(rule, walk).allSatisfy { $0 == nil })
    // Standing still without Doppler is still held, after 8 m / 0.3 m/s ≈ 27 s.
    let still = (0..<60).map { fix(Double($0), east: 0.5 * sin(Double($0)), north: 0, accuracy: 8) }
    let held = decisions(rule, still)
    #expect(held.prefix(26).allSatisfy { $0 == nil })
    #expect(held.suffix(30).allSatisfy { $0 == .stationary })
    // A single 100 m jump (claiming 8 m) during the hold does not end it; two fixes away do.
    var jumped = still
    jumped[45] = fix(45, east: 100, north: 0, accuracy: 8)
    jumped += [fix(60, east: 40, north: 0, accuracy: 8), fix(61, east: 41, north: 0, accuracy: 8)]
    let verdicts = decisions(rule, jumped)
    #expect(verdicts[30...60].allSatisfy { $0 == .stationary })
    #expect(verdicts[61] == nil)
}

@Test func stationaryRule_withoutDopplerMeasuresLeavingFromTheStopsCentre() {
    // 60 s still at the origin (1 Hz, no speed, claiming 8 m), except the fix just before the
    // hold begins, 7 m west: the last accepted fix. Two later fixes 10 m east are 17 m from that
    // fix (beyond the 16 m exit radius, 2 × accuracy) but 10 m from the stop's centre (the mean
    // of its fixes, within 0.3 m of the origin): noise inside the stop, not leaving.
    let rule = StationaryRule(.init(speedThreshold: .metersPerSecond(0.3), dwell: .seconds(5), radius: .meters(8)))
    var still = (0..<60).map { fix(Double($0), east: 0, north: 0, accuracy: 8) }
    still[27] = fix(27, east: -7, north: 0, accuracy: 8)
    let held = decisions(rule, still)
    #expect(held[27] == nil && held[28] == .stationary)
    still[40] = fix(40, east: 10, north: 0, accuracy: 8)
    still[41] = fix(41, east: 10, north: 0, accuracy: 8)
    #expect(decisions(rule, still)[28...].allSatisfy { $0 == .stationary })
    // Leaving is still seen: two fixes 20 m from the centre end the hold.
    still[50] = fix(50, east: 20, north: 0, accuracy: 8)
    still[51] = fix(51, east: 20, north: 0, accuracy: 8)
    #expect(decisions(rule, still)[51] == nil)
}

@Test func sparseHike_cleanKeepsTheLengthOfADenseWalkWithAStop() throws {
    // Issue 12 §4 for `geo gpx clean --preset fitness` (the online pipeline): a walk with a 5 min
    // stop, sampled every 5 s, correlated noise of 6 m and 2 % jumps claiming 8 m, no
    // Doppler. Goal (mean over seeds): within 3 % of the true length, RMSE at most 0.6 × raw.
    for interval in [5] {
        let truth = try TruthTrack(resampling: syntheticWalk(), interval: .seconds(interval), stopDuration: .seconds(300))
        var length = 0.0, rmse = 0.0, rawRMSE = 0.0
        let seeds: Range<UInt64> = 0..<8
        for seed in seeds {
            let noisy = GNSSErrorModel.sparseHike(seed: seed).corrupt(truth).map(\.fix)
            var cleaner = TrackCleaner(configuration: .fitness)
            let m = TrackMetrics(cleaner.cleaned(noisy), truth: truth)
            length += m.lengthErrorPercent / Double(seeds.count)
            rmse += m.rmse / Double(seeds.count)
            rawRMSE += TrackMetrics(noisy, truth: truth).rmse / Double(seeds.count)
        }
        #expect(abs(length) < 3, "every \(interval) s: mean length error \(length) %")
        #expect(rmse <= 0.6 * rawRMSE, "every \(interval) s: mean RMSE \(rmse) m vs raw \(rawRMSE) m")
    }
}

/// A walk east at 1.2 m/s, one exact fix every 10 s claiming 8 m, with `jump` metres north at `index`.
private func walkWithJump(at index: Int, jump: Double) -> [Location] {
    (0..<30).map { k in fix(Double(k) * 10, east: 12 * Double(k), north: k == index ? jump : 0, accuracy: 8) }
}

@Test func batchClean_dropsASecondFixTheThirdExposes() {
    // The start knows no velocity (σ 5 m/s), so 10 s later a 70 m jump passes the gate; the
    // third fix, which the start alone explains and off whose line from the start the jump
    // lies, exposes it. `cleaned` drops it again; before, it was delivered.
    let fixes = walkWithJump(at: 1, jump: 70)
    var cleaner = TrackCleaner(rule: TimestampOrderRule(), kalman: KalmanParameters(accelerationNoise: 0.3))
    let cleaned = cleaner.cleaned(fixes)
    #expect(cleaned.allSatisfy { abs(plane($0).north) < 10 }, "\(cleaned.map { plane($0).north })") // metres
    #expect(cleaned.count == fixes.count - 1)
    #expect(cleaner.report.count(of: .kalmanOutlier) == 1 && cleaner.report.accepted == cleaned.count)
    var report = FilterReport()
    let smoothed = KalmanSmoother(parameters: KalmanParameters(accelerationNoise: 0.3)).smoothed(fixes, report: &report)
    #expect(smoothed.allSatisfy { abs(plane($0).north) < 10 } && smoothed.count == fixes.count - 1)
}

@Test func batchClean_keepsAnHonestSecondFixWhenTheThirdJumps() {
    // The third fix is the jump: the second lies on the start's line, so it stays.
    let fixes = walkWithJump(at: 2, jump: 70)
    var cleaner = TrackCleaner(rule: TimestampOrderRule(), kalman: KalmanParameters(accelerationNoise: 0.3))
    let cleaned = cleaner.cleaned(fixes)
    #expect(cleaned.contains { $0.timestamp == fixes[1].timestamp })
    #expect(!cleaned.contains { $0.timestamp == fixes[2].timestamp })
    #expect(cleaned.allSatisfy { abs(plane($0).north) < 10 }, "\(cleaned.map { plane($0).north })") // metres
}

@Test func batchClean_dropsAMidTrackJumpItsNeighboursExpose() {
    // One fix every 30 s: the fitness model (0.3 m/s²) predicts 30 s ahead with σ ≈ 20 m per
    // axis, so a 100 m jump in the middle of the walk passes the gate. The next fix, which the
    // estimate before the jump explains better and off whose line the jump lies by more than
    // the motion allows in 60 s, exposes it: a live cleaner retracts it, `cleaned` drops it.
    let fixes = (0..<30).map { k in
        fix(Double(k) * 30, east: 36 * Double(k), north: k == 15 ? 100 : 0, accuracy: 8)
    }
    var live = TrackCleaner(rule: TimestampOrderRule(), kalman: KalmanParameters(accelerationNoise: 0.3, maximumGap: .seconds(40)))
    var retracted: [Int] = []
    for (k, f) in fixes.enumerated() {
        #expect(live.process(f).location != nil, "fix \(k) passes the gate")
        if live.retractsPreviousDelivery { retracted.append(k - 1) }
    }
    #expect(retracted == [15])
    var cleaner = TrackCleaner(rule: TimestampOrderRule(), kalman: KalmanParameters(accelerationNoise: 0.3, maximumGap: .seconds(40)))
    let cleaned = cleaner.cleaned(fixes)
    #expect(cleaned.count == fixes.count - 1 && !cleaned.contains { $0.timestamp == fixes[15].timestamp })
    #expect(cleaned.allSatisfy { abs(plane($0).north) < 15 }, "\(cleaned.map { plane($0).north })") // metres
    #expect(cleaner.report.count(of: .kalmanOutlier) == 1 && cleaner.report.accepted == cleaned.count)
}

@Test func batchClean_dropsAJumpThatStartsTheFilterAfterAGap() {
    // One fix every 30 s (the fitness model, 0.3 m/s², restarting after 30 s of silence); fix
    // 10 is missing (a rule dropped it), so fix 11 restarts the filter, and fix 11 is a 150 m
    // jump. A restart knows no velocity (σ 5 m/s: 150 m in 30 s), so fix 12 passes the gate and
    // used to confirm the jump (cerknica every 30 s, `geo gpx clean` 21 % too long on one seed).
    // Judged from the estimate before the gap, the jump lies off the line to fix 12 by more
    // than 90 s of that motion allows: it is overturned like any mid-track jump.
    var fixes = (0..<30).map { k in fix(Double(k) * 30, east: 36 * Double(k), north: k == 11 ? 150 : 0, accuracy: 8) }
    fixes.remove(at: 10)
    let parameters = KalmanParameters(accelerationNoise: 0.3, maximumGap: .seconds(30))
    var live = TrackCleaner(rule: TimestampOrderRule(), kalman: parameters)
    var retracted: [Date] = []
    for (k, f) in fixes.enumerated() {
        #expect(live.process(f).location != nil)
        if live.retractsPreviousDelivery { retracted.append(fixes[k - 1].timestamp) }
    }
    #expect(retracted == [epoch.addingTimeInterval(330)], "retracted \(retracted)") // fix 11, 330 s in
    var cleaner = TrackCleaner(rule: TimestampOrderRule(), kalman: parameters)
    let cleaned = cleaner.cleaned(fixes)
    #expect(cleaned.count == fixes.count - 1)
    #expect(cleaned.allSatisfy { abs(plane($0).north) < 15 }, "\(cleaned.map { plane($0).north })") // metres
    var report = FilterReport()
    let smoothed = KalmanSmoother(parameters: parameters).smoothed(fixes, report: &report)
    #expect(smoothed.count == fixes.count - 1 && smoothed.allSatisfy { abs(plane($0).north) < 15 }) // metres

    // After ten minutes of silence the walker goes on northwards from a point 150 m off the
    // old line: its first fix lies 44 m off the line from the estimate before the silence to
    // the next fix, well within what 660 s of motion allows, so nothing is overturned.
    var resumed = (0..<10).map { k in fix(Double(k) * 30, east: 36 * Double(k), north: 0, accuracy: 8) }
    resumed += (0..<10).map { k in fix(900 + Double(k) * 30, east: 1080, north: 150 + 36 * Double(k), accuracy: 8) }
    var afterSilence = TrackCleaner(rule: TimestampOrderRule(), kalman: parameters)
    #expect(afterSilence.cleaned(resumed).count == resumed.count)
}

@Test func stationaryRule_withoutDopplerHoldsAStopWhoseFixesSwing() {
    // Standing still for two minutes (1 Hz, no speed, claiming 8 m) while correlated GNSS error
    // swings the fixes ±5 m with a 40 s period. Judged from the first fix, the swing carried
    // fixes 10 m from it every 20 s, each time restarting the dwell: the stop was never held,
    // and every swing added length. Judged from the centre of the fixes seen still (within
    // 5 m of all of them), it is held once radius / threshold = 27 s have passed.
    let rule = StationaryRule(.init(speedThreshold: .metersPerSecond(0.3), dwell: .seconds(5), radius: .meters(8)))
    let swinging = (0..<120).map { t in fix(Double(t), east: 5 * cos(2 * Double.pi * Double(t) / 40), north: 0, accuracy: 8) }
    let held = decisions(rule, swinging)
    #expect(held.prefix(27).allSatisfy { $0 == nil })
    #expect(held[28...].allSatisfy { $0 == .stationary }, "\(held.map { $0 == nil ? "." : "S" }.joined())")
}

@Test func sparseHike_cleanDropsAJumpOnlyTheSmootherExposes() throws {
    // Five minutes still, then the 10-minute square walk, one fix every 30 s. This draw of
    // `GNSSErrorModel.sparseHike` (the seed of `geo eval filters`' worst cerknica and korita rows
    // every 30 s) puts a 184 m jump at 90 s and a 68 m one at 150 s, both claiming 8 m: the
    // first replaces the start, the next fix replaces it, and the 68 m one, second fix of the new
    // start, lies within the spread a 0.3 m/s² model allows around the line 120 s → 180 s. The
    // online filter keeps it; the smoother, with fixes on both sides, drops it, and so does clean.
    let still = (0..<300).map { fix(Double($0), east: 0, north: 0, accuracy: 0) }
    let walk = syntheticWalk().map { fix($0.timestamp.timeIntervalSince(epoch) + 300, east: plane($0).east, north: plane($0).north, accuracy: 0) }
    let truth = try TruthTrack(resampling: still + walk, interval: .seconds(30))
    let errors = GNSSErrorModel.sparseHike(seed: 20_240_604)
    let noisy = errors.corrupt(truth)
    let jump = try #require(noisy.first { $0.fix.timestamp == truth.times[5] })
    #expect(jump.kind == .multipath)
    func offTruth(_ l: Location) -> Double {
        let p = truth.frame.point(for: l.coordinate)
        return (Vec2(x: p.east, y: p.north) - truth.position(at: l.timestamp)).norm
    }
    #expect(offTruth(jump.fix) > 60) // metres
    var online = TrackCleaner(configuration: .fitness)
    #expect(online.cleaned(noisy) { ($0.fix, $0.receivedAt) }.contains { $0.location.timestamp == jump.fix.timestamp })
    let run = FilterEvaluation(truth: truth, errors: errors, configuration: .fitness)
    let clean = try #require(run.rows.first { $0.name == "rules + Kalman" })
    #expect(!clean.track.contains { $0.timestamp == jump.fix.timestamp })
    #expect(clean.track.allSatisfy { offTruth($0) < 30 }, "\(clean.track.map(offTruth).max() ?? 0) m off")
    #expect(abs(clean.metrics.lengthErrorPercent) < 3, "\(clean.metrics.lengthErrorPercent) %")
    #expect(run.report.count(of: .kalmanOutlier) >= 2)
}

@Test func fitnessSmoothing_judgesJumpsAgainstTheTracksOwnMotion() {
    // A walk at 1.5 m/s logged every 50 s (75 m between fixes) with ±3 m of noise, east for
    // 40 fixes then north, and fix 20 a jump 130 m north claiming 8 m. Every gap exceeds the
    // 30 s restart, so only the smoother can judge it, from the fixes on both sides: under the
    // fitness preset's 0.3 m/s² a deviation of 130 m from the chord over 100 s is 3 σ per axis
    // (σ ≈ 43 m), within its gate, and the jump was kept (issue 34 §2, cerknica every 5–60 s:
    // a 134 m jump between gaps of 56 and 49 s made `geo gpx clean` 12 % too long). Judged
    // against the motion the track itself shows (`KalmanSmoother.processNoise`) it is dropped,
    // by `smooth` and `clean` alike; the positions still use 0.3 m/s².
    func truth(_ k: Int) -> (east: Double, north: Double) { k <= 40 ? (75 * Double(k), 0) : (3000, 75 * Double(k - 40)) }
    let fixes = (0..<80).map { k in
        fix(50 * Double(k), east: truth(k).east + (k % 3 == 0 ? 3 : -2), north: truth(k).north + (k == 20 ? 130 : 0) + (k % 2 == 0 ? 2 : -2),
            accuracy: 8)
    }
    let trueLength = 75.0 * 79 // metres
    func length(_ track: [Location]) -> Double {
        zip(track, track.dropFirst()).map { LocalFrame.distance($0.coordinate, $1.coordinate) }.reduce(0, +)
    }
    func offTrack(_ l: Location) -> Double { // metres from the nearer leg
        let p = plane(l)
        return min(p.east <= 3000 ? abs(p.north) : .infinity, p.north >= 0 ? abs(p.east - 3000) : .infinity,
                   ((p.east - 3000) * (p.east - 3000) + p.north * p.north).squareRoot())
    }
    var report = FilterReport()
    let smoothed = TrackFilterConfiguration.fitness.smoothed(fixes, report: &report)
    #expect(!smoothed.contains { $0.timestamp == fixes[20].timestamp })
    #expect(smoothed.allSatisfy { offTrack($0) < 15 }, "\(smoothed.map(offTrack).max() ?? 0) m off") // metres
    #expect(abs(length(smoothed) / trueLength - 1) < 0.03, "smooth: \(length(smoothed)) m of \(trueLength) m")
    var cleaning = SmoothedCleaning<StandardRules, Void>(TrackCleaner(configuration: .fitness))
    var cleaned: [Location] = []
    for f in fixes { cleaning.push(f, item: ()) { l, _ in cleaned.append(l) } }
    cleaning.finish { l, _ in cleaned.append(l) }
    #expect(!cleaned.contains { $0.timestamp == fixes[20].timestamp })
    #expect(cleaned.allSatisfy { offTrack($0) < 15 }, "\(cleaned.map(offTrack).max() ?? 0) m off") // metres
    #expect(abs(length(cleaned) / trueLength - 1) < 0.03, "clean: \(length(cleaned)) m of \(trueLength) m")
    // The same model judging with 0.3 m/s² throughout (the preset before) keeps the jump.
    var fixed = TrackFilterConfiguration.fitness.kalman!
    fixed.estimatesProcessNoise = .never
    let kept = KalmanSmoother(parameters: fixed).smoothed(fixes, rules: TrackFilterConfiguration.fitness.rules(), report: &report)
    #expect(kept.contains { $0.timestamp == fixes[20].timestamp && plane($0).north > 100 })
}

@Test func smoothing_judgesJumpsThatStartATrackFromItsEnd() {
    // A hiker stands at the origin for 170 s, then walks east at 1.2 m/s, logged every 10 s
    // with ±1 m of noise, each fix claiming 8 m. The log starts with a burst of jumps (the
    // first four fixes of issue 34 §2's cerknica walk with bursts of jumps, seed 20240601):
    // the second and third, 160 and 135 m off, agree with each other. They start the forward
    // filter (the first one falls in the warm-up), which knows no velocity yet and so passes
    // the honest fixes after them; the Student-t passes explain the jumps by the start's
    // unknown velocity, and `geo gpx smooth` kept both (870 m for the walk's 720). Judged
    // from the end, by a filter that knows the track was standing still, they are outliers.
    func truth(_ t: Double) -> (east: Double, north: Double) { t <= 170 ? (0, 0) : (1.2 * (t - 170), 0) }
    let jumps: [Int: (east: Double, north: Double)] = [0: (11, 61), 1: (-99, -125), 2: (-92, -105), 3: (142, -28)]
    let fixes = (0..<78).map { k in
        let t = 10 * Double(k), p = truth(t)
        let error = jumps[k] ?? (k % 3 == 0 ? 1 : -0.5, k % 2 == 0 ? 1 : -1)
        return fix(t, east: p.east + error.east, north: p.north + error.north, accuracy: 8)
    }
    var report = FilterReport()
    let smoothed = TrackFilterConfiguration.default.smoothed(fixes, report: &report)
    func offTruth(_ l: Location) -> Double { // metres
        let p = plane(l), q = truth(l.timestamp.timeIntervalSince(epoch))
        return ((p.east - q.east) * (p.east - q.east) + (p.north - q.north) * (p.north - q.north)).squareRoot()
    }
    #expect(smoothed.allSatisfy { offTruth($0) < 20 }, "\(smoothed.map(offTruth).max() ?? 0) m off the truth") // metres
    guard let first = smoothed.first, let last = smoothed.last else { Issue.record("nothing kept"); return }
    let length = zip(smoothed, smoothed.dropFirst()).map { LocalFrame.distance($0.coordinate, $1.coordinate) }.reduce(0, +)
    let trueLength = truth(last.timestamp.timeIntervalSince(epoch)).east - truth(first.timestamp.timeIntervalSince(epoch)).east
    #expect(abs(length / trueLength - 1) < 0.03, "\(length) m of \(trueLength) m")
    #expect(report.count(of: .kalmanOutlier) >= 2)
}

@Test func smoothing_lowersTheWeightOfAJumpJudgedFromTheEndAsTheTrackLeavesIt() {
    // 500 s of issue 34 §2's cerknica walk with bursts of jumps, held-out seed 20250114, every
    // 10 s, each fix claiming 8 m (east, north in metres from the first fix): a stand, then a
    // walk with bursts of two to four jumps 60–220 m off. The backward gate judges the burst's
    // last jump out (130 m off); held at the weight of its backward distance (σ 15 m) it pulled
    // the smoothed track off the honest fixes beside it, which were dropped instead, and the
    // burst's second jump (97 m off) was kept: `geo gpx smooth` 432 m for 307.
    let raw: [(Double, Double)] = [
        (0.0, 0.0), (4.4, -3.3), (-1.2, -5.1), (4.5, -5.8), (2.4, -3.3), (-1.8, -5.5),
        (-0.7, -11.4), (1.2, -15.1), (0.5, -18.5), (-0.4, -13.7), (0.4, -18.5), (0.4, -22.2),
        (-0.4, -27.4), (-5.2, -25.2), (-5.1, -28.0), (-4.2, -32.0), (-10.1, -29.8), (-11.5, -35.9),
        (-14.6, -44.1), (-11.2, -43.1), (-212.6, -19.2), (-11.1, 39.4), (54.5, 70.3), (-41.6, 60.9),
        (-38.6, -70.7), (-50.9, -74.5), (-53.8, -74.8), (-48.3, -81.4), (-49.3, -80.1), (-47.8, -84.9),
        (-93.4, -152.0), (-29.4, 8.5), (-39.1, -88.9), (-36.5, -94.7), (-35.0, -99.7), (-33.2, -107.0),
        (-30.4, -112.9), (-32.8, -119.7), (-40.0, -136.0), (-45.7, -144.8), (-54.8, -158.1), (-61.8, -170.6),
        (-67.1, -184.0), (-75.0, -193.2), (-81.0, -202.3), (-81.6, -216.2), (-83.8, -233.6), (-82.5, -237.9),
        (-80.9, -249.7), (-86.0, -264.0), (-91.6, -275.7),
    ]
    let truth: [(Double, Double)] = [
        (-0.3, -11.7), (-0.1, -11.9), (0.1, -12.2), (0.4, -12.4), (0.6, -12.7), (0.8, -12.9),
        (1.0, -13.1), (1.3, -13.4), (1.5, -13.6), (1.7, -13.9), (2.0, -14.1), (1.2, -17.9),
        (-0.4, -24.0), (-2.0, -25.5), (-3.6, -27.0), (-5.2, -28.4), (-6.8, -29.9), (-7.7, -34.6),
        (-8.8, -40.2), (-11.2, -43.9), (-13.6, -48.2), (-16.2, -57.3), (-18.1, -65.1), (-26.7, -68.6),
        (-34.9, -67.8), (-44.5, -69.8), (-48.0, -73.4), (-48.3, -76.2), (-48.5, -79.1), (-48.8, -81.9),
        (-47.5, -84.5), (-45.9, -87.0), (-44.4, -89.5), (-42.8, -92.0), (-41.2, -94.5), (-38.7, -99.5),
        (-36.2, -108.3), (-38.0, -118.2), (-43.3, -128.6), (-50.7, -138.4), (-57.0, -148.9), (-61.1, -160.7),
        (-66.4, -172.5), (-71.6, -184.0), (-76.1, -196.6), (-78.8, -209.9), (-80.6, -223.3), (-82.0, -236.4),
        (-84.2, -248.8), (-88.5, -260.8), (-94.2, -273.3),
    ]
    let fixes = raw.indices.map { fix(10 * Double($0), east: raw[$0].0, north: raw[$0].1, accuracy: 8) }
    var report = FilterReport()
    let smoothed = TrackFilterConfiguration.default.smoothed(fixes, report: &report)
    func offTruth(_ l: Location) -> Double { // metres
        let p = plane(l), q = truth[Int((l.timestamp.timeIntervalSince(epoch) / 10).rounded())]
        return ((p.east - q.0) * (p.east - q.0) + (p.north - q.1) * (p.north - q.1)).squareRoot()
    }
    #expect(smoothed.allSatisfy { offTruth($0) < 25 }, "\(smoothed.map(offTruth).max() ?? 0) m off the truth") // metres
    let length = zip(smoothed, smoothed.dropFirst()).map { LocalFrame.distance($0.coordinate, $1.coordinate) }.reduce(0, +)
    let trueLength = zip(truth, truth.dropFirst()).map { (($1.0 - $0.0) * ($1.0 - $0.0) + ($1.1 - $0.1) * ($1.1 - $0.1)).squareRoot() }.reduce(0, +)
    #expect(abs(length / trueLength - 1) < 0.05, "\(length) m of \(trueLength) m") // 307 m
}
