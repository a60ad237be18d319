import ArgumentParser
import Foundation
import GeoCore
import GPXCodec
import SystemIO
import TrackFiltering
import GeoBase

/// `geo eval`: evaluation harnesses.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluation harnesses that measure LocationKit against the truth.",
        subcommands: [EvalFilters.self]
    )
}

/// `geo eval filters`: real clean tracks as truth, realistic GNSS error added with a fixed seed,
/// and every pipeline measured against the truth.
struct EvalFilters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "Measure the track filters on real tracks with injected GNSS error.",
        discussion: """
            Truth: clean GPX tracks from the shared data (two walks, two drives), resampled to 1 Hz \
            with a 10-minute stop inserted halfway. Error (GNSSErrorModel): Gauss–Markov + white noise, \
            multipath bursts, a noisy warm-up with cached fixes, stale re-deliveries, swapped order, \
            drift while still. Rows: raw fixes, rules, rules + Kalman (as geo gpx clean), rules + RTS, \
            pykalman's RTS on the same input (when --reference holds its output), and a fixed-noise \
            filter in the style of HCKalmanFilter. Sparse cases (issue 12 §4): the walks sampled every \
            1, 5, 10 and 30 s with correlated noise and 2 % jumps of 60–200 m that claim 8 m \
            (GNSSErrorModel.sparseHike), no added stop (the walks keep their own), the fitness preset; clean is \
            geo gpx clean (batch: a delivery the next fix exposes as a jump is dropped, and so is a fix the smoother drops as an outlier). --export writes the RTS input as CSV for \
            scripts/eval/pykalman_rts.py; scripts/eval/filters.sh runs the whole loop.
            """
    )

    @Option(help: "The shared data folder (default: LOCATIONKIT_DATA or ../shared/data).")
    var data: String?

    @Option(help: "First seed of the error model (0…2⁶⁴ − 1, with seed + seeds − 1 still in it).") var seed: UInt64 = 20_240_601

    @Option(parsing: .unconditional, help: "How many seeds (seed, seed + 1, …) to average over (\(OptionRanges.seeds)).") var seeds = 5

    @Option(help: "Which cases: all, realistic (1 Hz, every fault) or sparse (hikes every 1, 5, 10, 30 s with jumps).")
    var cases = "all"

    @Option(help: "Write each track's RTS input as <name>-<seed>.input.csv into this folder.")
    var export: String?

    @Option(help: "Read pykalman's <name>-<seed>.pykalman.csv from this folder and add its row.")
    var reference: String?

    /// The truth tracks: file, kind (walk/drive) and a short name.
    static let tracks: [(path: String, name: String, walk: Bool)] = [
        ("gpx/gpxpy/korita-zbevnica.gpx", "walk-korita", true),
        ("gpx/gpxpy/cerknicko-jezero.gpx", "walk-cerknica", true),
        ("gpx/gpxpy/around-visnjan-with-car.gpx", "drive-visnjan", false),
        ("traces/graphhopper-mm/test1.gpx", "drive-leipzig", false),
    ]

    func validate() throws {
        try OptionRanges.seeds.check(seeds, option: "--seeds")
        guard seed <= UInt64.max - UInt64(seeds - 1) else { throw ValidationError("--seed plus --seeds runs past 2⁶⁴ − 1") }
        guard ["all", "realistic", "sparse"].contains(cases) else {
            throw ValidationError("--cases must be all, realistic or sparse, got '\(cases)'")
        }
    }

    func run() throws {
        let root = data ?? ProcessInfo.processInfo.environment["LOCATIONKIT_DATA"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "../shared/data"
        standardOutput.line("Mean over \(seeds) seeds (\(seed)…\(seed + UInt64(seeds) - 1)); length error also as the worst seed.")
        var goals: [String] = []
        if cases != "sparse" { try realisticCases(root: root, goals: &goals) }
        if cases != "realistic" { try sparseCases(root: root, goals: &goals) }
        standardOutput.line("")
        standardOutput.line("Goals (realistic: RMSE ≥ 40 % below raw, length < 3 % walks, < 1 % drives, drift < 5 m/10 min, "
            + "Kalman lag < 2 m walking; sparse hikes: RMSE ≤ 0.6 × raw, length < 3 %):")
        for g in goals { standardOutput.line("- " + g) }
    }

    /// The 1 Hz tracks with the default error model and a 10-minute stop.
    private func realisticCases(root: String, goals: inout [String]) throws {
        standardOutput.line("")
        standardOutput.line("| track | pipeline | fixes | RMSE m | vs raw | length error % (worst) | drift m/10 min | walking lag m |")
        standardOutput.line("|---|---|---:|---:|---:|---:|---:|---:|")
        for spec in Self.tracks {
            let truth = try TruthTrack(resampling: try truthFixes(root: root, spec.path), stopDuration: .seconds(600))
            let configuration: TrackFilterConfiguration = spec.walk ? .fitness : .automotiveNavigation
            let (results, rejections) = try average(file: spec.name, truth: truth, configuration: configuration) {
                GNSSErrorModel(seed: $0)
            }
            let rawRMSE = mean(results[0].metrics.map(\.rmse))
            for (name, metrics) in results {
                let rmse = mean(metrics.map(\.rmse)), length = mean(metrics.map(\.lengthErrorPercent))
                let worst = worstLengthError(metrics)
                let drift = metrics.compactMap(\.stationaryDriftPer10Minutes)
                let lag = metrics.compactMap(\.walkingLag)
                let reduction = (1 - rmse / rawRMSE) * 100
                standardOutput.line("| \(spec.name) | \(name) | \(Int(mean(metrics.map { Double($0.count) }))) | \(f(rmse, 2)) "
                    + "| \(name == "raw" ? "–" : f(-reduction, 0) + " %") | \(f(length, 2)) (\(f(worst, 2))) "
                    + "| \(drift.isEmpty ? "–" : f(mean(drift), 1)) | \(lag.isEmpty ? "–" : f(mean(lag), 2)) |")
                if name == "rules + Kalman" || name == "rules + RTS" {
                    let lengthGoal = spec.walk ? 3.0 : 1.0
                    var misses: [String] = []
                    if reduction < 40 { misses.append("RMSE only \(f(reduction, 0)) % below raw") }
                    if abs(length) >= lengthGoal { misses.append("mean length error \(f(length, 2)) % ≥ \(lengthGoal) %") }
                    if abs(worst) >= lengthGoal { misses.append("worst seed \(f(worst, 2)) %") }
                    if !drift.isEmpty, mean(drift) >= 5 { misses.append("drift \(f(mean(drift), 1)) m/10 min") }
                    if name == "rules + Kalman", spec.walk, !lag.isEmpty, abs(mean(lag)) >= 2 { misses.append("lag \(f(mean(lag), 2)) m") }
                    goals.append("\(spec.name) \(name): " + (misses.isEmpty ? "all goals met" : misses.joined(separator: "; ")))
                }
            }
            standardOutput.line("| \(spec.name) | rejections (rules + Kalman, all seeds) | \(rejections.rejected) of \(rejections.received) | "
                + RejectionReason.allReasons.filter { rejections.count(of: $0) > 0 }
                    .map { "\($0) \(rejections.count(of: $0))" }.joined(separator: ", ") + " | | | | |")
        }
    }

    /// The walks sampled every 1, 5, 10 and 30 s with `GNSSErrorModel.sparseHike` (correlated
    /// noise, 2 % jumps of 60–200 m claiming 8 m), no added stop (korita stands still 43 % of its
    /// time), the fitness preset: issue 12 §4.
    private func sparseCases(root: String, goals: inout [String]) throws {
        standardOutput.line("")
        standardOutput.line("Sparse hikes: Gauss–Markov noise 6 m RMS (60 s correlation), 2 % jumps of 60–200 m claiming 8 m, no Doppler; "
            + "clean = rules + Kalman (geo gpx clean --preset fitness), smooth = rules + RTS (geo gpx smooth --preset fitness).")
        standardOutput.line("")
        standardOutput.line("| track | every s | pipeline | fixes | RMSE m | × raw | length error % (worst) |")
        standardOutput.line("|---|---:|---|---:|---:|---:|---:|")
        for spec in Self.tracks where spec.walk {
            let fixes = try truthFixes(root: root, spec.path)
            for interval in Self.sparseIntervals {
                let truth = try TruthTrack(resampling: fixes, interval: .seconds(interval))
                let (results, rejections) = try average(file: "\(spec.name)-\(interval)s", truth: truth, configuration: .fitness) {
                    GNSSErrorModel.sparseHike(seed: $0)
                }
                let rawRMSE = mean(results[0].metrics.map(\.rmse))
                for (name, metrics) in results where name != "rules" && !name.hasPrefix("HCKalmanFilter") {
                    let rmse = mean(metrics.map(\.rmse)), length = mean(metrics.map(\.lengthErrorPercent))
                    let worst = worstLengthError(metrics)
                    standardOutput.line("| \(spec.name) | \(interval) | \(name) | \(Int(mean(metrics.map { Double($0.count) }))) "
                        + "| \(f(rmse, 2)) | \(f(rmse / rawRMSE, 2)) | \(f(length, 2)) (\(f(worst, 2))) |")
                    guard name == "rules + Kalman" || name == "rules + RTS" else { continue }
                    var misses: [String] = []
                    if rmse > 0.6 * rawRMSE { misses.append("RMSE \(f(rmse / rawRMSE, 2)) × raw") }
                    if abs(length) >= 3 { misses.append("mean length error \(f(length, 2)) % ≥ 3 %") }
                    if abs(worst) >= 3 { misses.append("worst seed \(f(worst, 2)) %") }
                    goals.append("\(spec.name) every \(interval) s \(name): " + (misses.isEmpty ? "all goals met" : misses.joined(separator: "; ")))
                }
                standardOutput.line("| \(spec.name) | \(interval) | rejections (rules + Kalman, all seeds) | \(rejections.rejected) of \(rejections.received) | "
                    + RejectionReason.allReasons.filter { rejections.count(of: $0) > 0 }
                        .map { "\($0) \(rejections.count(of: $0))" }.joined(separator: ", ") + " | | |")
            }
        }
    }

    /// The sampling intervals of the sparse cases, seconds.
    static let sparseIntervals = [1, 5, 10, 30]

    /// The longest timed segment of a shared-data GPX file, as fixes.
    private func truthFixes(root: String, _ path: String) throws -> [Location] {
        let document = try GPXTrackFiles.read(root + "/" + path)
        let segment = document.tracks.flatMap(\.segments)
            .max { $0.points.filter { $0.time != nil }.count < $1.points.filter { $0.time != nil }.count }
        guard let segment else { throw TrackCommandError("\(path) has no track segment") }
        return GPXTrackFiles.locations(segment, accuracy: .default).map(\.0)
    }

    /// Every pipeline's metrics on every seed, in row order, and the online rejections summed.
    private func average(file: String, truth: TruthTrack, configuration: TrackFilterConfiguration,
                         errors: (UInt64) -> GNSSErrorModel) throws -> ([(name: String, metrics: [TrackMetrics])], FilterReport) {
        var results: [(name: String, metrics: [TrackMetrics])] = []
        var rejections = FilterReport()
        for s in 0..<UInt64(seeds) {
            let run = try evaluate(file: "\(file)-\(seed + s)", truth: truth, errors: errors(seed + s), configuration: configuration)
            rejections.merge(run.report)
            for (i, row) in run.rows.enumerated() {
                if results.count <= i { results.append((row.name, [])) }
                results[i].metrics.append(row.metrics)
            }
        }
        return (results, rejections)
    }

    /// The length error of the seed farthest from zero, percent.
    private func worstLengthError(_ metrics: [TrackMetrics]) -> Double {
        metrics.map(\.lengthErrorPercent).max { abs($0) < abs($1) } ?? .nan
    }

    /// Every pipeline on one track and error draw, with pykalman's output read from `--reference`
    /// and the smoothers' input written to `--export`, both as `<file>.….csv`.
    private func evaluate(file: String, truth: TruthTrack, errors: GNSSErrorModel,
                          configuration: TrackFilterConfiguration) throws -> FilterEvaluation {
        var referenceTrack: [Location]?
        if let reference {
            let url = URL(fileURLWithPath: reference).appendingPathComponent("\(file).pykalman.csv")
            let bytes: [UInt8]
            do { bytes = try FileDescriptor.readContents(of: url.path) } catch {
                throw TrackCommandError("cannot read \(url.path) (\(error)); run scripts/eval/pykalman_rts.py first")
            }
            do {
                referenceTrack = try PykalmanCSV.smoothed(String(decoding: bytes, as: UTF8.self), truth: truth)
            } catch {
                throw TrackCommandError("\(url.path): \(error.message)")
            }
        }
        let run = FilterEvaluation(truth: truth, errors: errors, configuration: configuration, reference: referenceTrack)
        if let export {
            let url = URL(fileURLWithPath: export).appendingPathComponent("\(file).input.csv")
            let text = PykalmanCSV.input(run.accepted, truth: truth, parameters: configuration.kalman ?? KalmanParameters())
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AtomicFileReplacement.write(Array(text.utf8), to: url.path)
        }
        return run
    }

    private func mean(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.reduce(0, +) / Double(xs.count) }

    private func f(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
}
