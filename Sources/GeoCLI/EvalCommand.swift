import ArgumentParser
import Foundation
import GeoCore
import GPXCodec
import SystemIO
import TrackFiltering

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
            drift while still. Rows: raw fixes, rules, rules + Kalman (online), rules + RTS, \
            pykalman's RTS on the same input (when --reference holds its output), and a fixed-noise \
            filter in the style of HCKalmanFilter. --export writes the RTS input as CSV for \
            scripts/eval/pykalman_rts.py; scripts/eval/filters.sh runs the whole loop.
            """
    )

    @Option(help: "The shared data folder (default: LOCATIONKIT_DATA or ../shared/data).")
    var data: String?

    @Option(help: "First seed of the error model.") var seed: UInt64 = 20_240_601

    @Option(help: "How many seeds (seed, seed + 1, …) to average over.") var seeds = 5

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
        guard seeds >= 1 else { throw ValidationError("--seeds must be at least 1") }
    }

    func run() throws {
        let root = data ?? ProcessInfo.processInfo.environment["LOCATIONKIT_DATA"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "../shared/data"
        print("Mean over \(seeds) seeds (\(seed)…\(seed + UInt64(seeds) - 1)); length error also as the worst seed.")
        print("")
        print("| track | pipeline | fixes | RMSE m | vs raw | length error % (worst) | drift m/10 min | walking lag m |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        var goals: [String] = []
        for spec in Self.tracks {
            let document = try GPXTrackFiles.read(root + "/" + spec.path)
            let segment = document.tracks.flatMap(\.segments)
                .max { $0.points.filter { $0.time != nil }.count < $1.points.filter { $0.time != nil }.count }
            guard let segment else { throw TrackCommandError("\(spec.path) has no track segment") }
            let truthFixes = GPXTrackFiles.locations(segment, accuracy: .default).map(\.0)
            let truth = try TruthTrack(resampling: truthFixes, stopDuration: .seconds(600))
            var results: [(name: String, metrics: [TrackMetrics])] = []
            var rejections = FilterReport()
            for s in 0..<UInt64(seeds) {
                let run = try evaluate(spec, truth: truth, seed: seed + s)
                rejections.merge(run.report)
                for (i, row) in run.rows.enumerated() {
                    if results.count <= i { results.append((row.name, [])) }
                    results[i].metrics.append(row.metrics)
                }
            }
            let rawRMSE = mean(results[0].metrics.map(\.rmse))
            for (name, metrics) in results {
                let rmse = mean(metrics.map(\.rmse)), length = mean(metrics.map(\.lengthErrorPercent))
                let worst = metrics.map(\.lengthErrorPercent).max { abs($0) < abs($1) } ?? .nan
                let drift = metrics.compactMap(\.stationaryDriftPer10Minutes)
                let lag = metrics.compactMap(\.walkingLag)
                let reduction = (1 - rmse / rawRMSE) * 100
                print("| \(spec.name) | \(name) | \(Int(mean(metrics.map { Double($0.count) }))) | \(f(rmse, 2)) "
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
            print("| \(spec.name) | rejections (rules + Kalman, all seeds) | \(rejections.rejected) of \(rejections.received) | "
                + RejectionReason.allReasons.filter { rejections.count(of: $0) > 0 }
                    .map { "\($0) \(rejections.count(of: $0))" }.joined(separator: ", ") + " | | | | |")
        }
        print("")
        print("Goals (RMSE ≥ 40 % below raw; length < 3 % walks, < 1 % drives; drift < 5 m/10 min; Kalman lag < 2 m walking):")
        for g in goals { print("- " + g) }
    }

    /// Every pipeline on one track and seed, with pykalman's output read from `--reference` and
    /// the smoothers' input written to `--export`.
    private func evaluate(_ spec: (path: String, name: String, walk: Bool), truth: TruthTrack,
                          seed: UInt64) throws -> FilterEvaluation {
        let configuration: TrackFilterConfiguration = spec.walk ? .fitness : .automotiveNavigation
        let file = "\(spec.name)-\(seed)"
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
        let run = FilterEvaluation(truth: truth, seed: seed, configuration: configuration, reference: referenceTrack)
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
