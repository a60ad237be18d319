import Foundation
import GeoBase
package import GeoCore
import SystemIO
package import TrackFiltering

/// The wider hike evaluation of issue 34 §2: the walks of `geo eval filters` as truth, each
/// sampling pattern of a hike logger over many seeds, and the two commands a hiker runs on the
/// file, `geo gpx clean --preset fitness` and `geo gpx smooth` (default options), as they run
/// offline (no receive times, accuracy as the file claims it).
package enum HikePattern: String, Sendable, CaseIterable {
    /// Every 1 s (the dense case that must not get worse).
    case every1s = "every 1 s"
    /// Every 10 s: the held-out hike of issue 34 §2.
    case every10s = "every 10 s"
    /// Irregular intervals, 5–60 s drawn per fix.
    case irregular = "every 5–60 s"
    /// Every 10 s, jumps in bursts of 2–4 fixes, each fix of a burst jumping anew.
    case jumpBursts = "10 s, jump bursts"
    /// Every 10 s, jumps along the direction of travel (ahead or behind).
    case jumpsAlongTrack = "10 s, jumps along track"
    /// Every 10 s, correlated noise of 2 m horizontal RMS.
    case noise2m = "10 s, noise 2 m"
    /// Every 10 s, correlated noise of 10 m horizontal RMS (the fixes still claim 8 m).
    case noise10m = "10 s, noise 10 m"

    /// The pattern in a file name: letters and digits, words joined by "-".
    package var slug: String {
        rawValue.split { !$0.isLetter && !$0.isNumber }.joined(separator: "-")
    }

    /// The truth's sampling interval, seconds (irregular patterns draw from a 1 s truth).
    package var truthInterval: Int {
        switch self {
        case .every1s, .irregular: 1
        default: 10
        }
    }

    /// The error model for one seed: `GNSSErrorModel.sparseHike` (6 m of 60 s-correlated noise,
    /// 2 % jumps of 60–200 m, every fix claiming 8 m, no Doppler) varied as the pattern says.
    package func errors(seed: UInt64) -> GNSSErrorModel {
        var m = GNSSErrorModel.sparseHike(seed: seed)
        switch self {
        case .every1s, .every10s: break
        case .irregular: m.sampleIntervals = 5...60
        case .jumpBursts:
            m.multipathBurstLength = 2...4
            m.redrawsBurstJumps = true
        case .jumpsAlongTrack: m.jumpsAlongTrack = true
        case .noise2m: m = m.withNoise(horizontalRMS: 2)
        case .noise10m: m = m.withNoise(horizontalRMS: 10)
        }
        return m
    }
}

/// One seed of one pattern: the raw fixes and each command's output, measured against the truth.
package struct HikeRun: Sendable {
    /// The pipelines, in row order.
    package static let pipelines = ["raw", "clean (fitness)", "smooth (default)", "smooth (fitness)"]
    /// Metrics per pipeline, in `pipelines` order. Lengths are against the truth as sampled at
    /// the raw fixes' times (`TrackMetrics.init(_:truth:sampleTimes:)`): the same as the whole
    /// truth's for the steady patterns, and what the logger could see for irregular intervals.
    package let metrics: [TrackMetrics]
    /// Each pipeline's output, in `pipelines` order (empty unless asked for).
    package let tracks: [[Location]]

    /// Corrupts `truth` with `errors` and runs every pipeline on the fixes in timestamp order.
    /// - Parameter keepsTracks: whether to keep the outputs in `tracks` (for an export).
    /// - Complexity: O(n) per pipeline.
    package init(truth: TruthTrack, errors: GNSSErrorModel, keepsTracks: Bool = false) {
        let raw = errors.corrupt(truth).map(\.fix)
        var report = FilterReport()
        let outputs = [
            raw, Self.clean(raw, configuration: .fitness),
            TrackFilterConfiguration.default.smoothed(raw, report: &report),
            TrackFilterConfiguration.fitness.smoothed(raw, report: &report),
        ]
        let times = raw.map(\.timestamp)
        metrics = outputs.map { TrackMetrics($0, truth: truth, sampleTimes: times) }
        tracks = keepsTracks ? outputs : []
    }

    /// `geo gpx clean`'s pipeline on a saved track (`SmoothedCleaning`, no receive times).
    package static func clean(_ fixes: [Location], configuration: TrackFilterConfiguration) -> [Location] {
        var cleaning = SmoothedCleaning<StandardRules, Void>(TrackCleaner(configuration: configuration))
        var out: [Location] = []
        for fix in fixes { cleaning.push(fix, item: ()) { l, _ in out.append(l) } }
        cleaning.finish { l, _ in out.append(l) }
        return out
    }
}

extension FilterEvaluationSuite {
    /// The wider hike set (issue 34 §2): every walk × `HikePattern` over `wideSeeds` seeds, the mean
    /// and the worst seed of RMSE (as a multiple of the raw fixes' on the same seed) and of the
    /// length error; goals for `geo gpx clean --preset fitness` and `geo gpx smooth`.
    func hikeCases(goals: inout [String], print: (String) -> Void) throws {
        print("")
        print("Wide hike set (issue 34 §2): \(wideSeeds) seeds (\(firstSeed)…\(firstSeed + UInt64(wideSeeds) - 1)); "
            + "sparseHike errors varied per pattern, all fixes claim 8 m; the commands as run on a GPX file.")
        print("")
        print("| track | pattern | pipeline | fixes | RMSE × raw mean (worst) | length error % mean (worst) |")
        print("|---|---|---|---:|---:|---:|")
        for spec in Self.tracks where spec.walk {
            let fixes = try truthFixes(spec.path)
            for pattern in HikePattern.allCases {
                let truth = try TruthTrack(resampling: fixes, interval: .seconds(pattern.truthInterval))
                let runs = (0..<UInt64(wideSeeds)).map {
                    HikeRun(truth: truth, errors: pattern.errors(seed: firstSeed + $0), keepsTracks: export != nil)
                }
                if let export {
                    for (s, run) in runs.enumerated() {
                        try exportHike(run, truth: truth, to: export + "/wide-\(spec.name)-\(pattern.slug)-\(firstSeed + UInt64(s)).csv")
                    }
                }
                for (i, name) in HikeRun.pipelines.enumerated() {
                    let ratios = runs.map { $0.metrics[i].rmse / $0.metrics[0].rmse }
                    let lengths = runs.map { $0.metrics[i].lengthErrorPercent }
                    let worstRatio = ratios.max() ?? .nan
                    let worstLength = lengths.max { abs($0) < abs($1) } ?? .nan
                    let count = mean(runs.map { Double($0.metrics[i].count) })
                    print("| \(spec.name) | \(pattern.rawValue) | \(name) | \(Int(count)) "
                        + "| \(i == 0 ? "1" : f(mean(ratios), 2) + " (" + f(worstRatio, 2) + ")") "
                        + "| \(f(mean(lengths), 2)) (\(f(worstLength, 2))) |")
                    guard name == "clean (fitness)" || name == "smooth (default)" else { continue }
                    var misses: [String] = []
                    if worstRatio > 0.6 { misses.append("RMSE \(f(worstRatio, 2)) × raw on the worst seed") }
                    if !(abs(worstLength) < 3) { misses.append("length \(f(worstLength, 2)) % on the worst seed") }
                    goals.append("\(spec.name) \(pattern.rawValue) \(name): " + (misses.isEmpty ? "all goals met" : misses.joined(separator: "; ")))
                }
            }
        }
    }

    /// Writes one run as CSV for plotting: `pipeline,seconds,east,north` (metres on the truth's
    /// plane, seconds since its start), the truth's own samples first as pipeline `truth`.
    private func exportHike(_ run: HikeRun, truth: TruthTrack, to path: String) throws {
        var text = "pipeline,seconds,east,north\n"
        let t0 = truth.times[0]
        func row(_ name: String, _ date: Date, _ p: Vec2) {
            text += "\(name),\(f(date.timeIntervalSince(t0), 1)),\(f(p.x, 2)),\(f(p.y, 2))\n"
        }
        for t in truth.times { row("truth", t, truth.position(at: t)) }
        for (name, track) in zip(HikeRun.pipelines, run.tracks) {
            for fix in track {
                let p = truth.frame.point(for: fix.coordinate)
                row(name, fix.timestamp, Vec2(x: p.east, y: p.north))
            }
        }
        do {
            try FileManager.default.createDirectory(atPath: export ?? ".", withIntermediateDirectories: true)
            try AtomicFileReplacement.write(Array(text.utf8), to: path)
        } catch {
            throw EvaluationError(.unreadable, "cannot write \(path): \(error)")
        }
    }
}
