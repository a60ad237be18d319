import Foundation
package import GeoBase
package import GeoCore
import GPXCodec
import SystemIO
import TrackFiltering

/// The domain of the evaluation harness's one error type (STYLE.md §3.7).
package enum EvaluationErrorDomain {}
/// What the evaluation harness throws: a code and a message naming the file at fault.
package typealias EvaluationError = CodedError<EvaluationErrorDomain>

extension ErrorCode where Domain == EvaluationError {
    /// A truth track, a reference smoother's output or the export folder cannot be read or written.
    package static var unreadable: Self { Self("unreadable input") }
    /// A truth track or reference file that reads but holds no usable data.
    package static var invalidInput: Self { Self("invalid input") }
}

/// `geo eval filters`: real clean tracks as truth, realistic GNSS error added with fixed seeds,
/// every pipeline measured against the truth and printed as Markdown tables, then each goal of
/// issue 12 as met or missed.
package struct FilterEvaluationSuite: Sendable {
    /// Which cases run.
    package enum Cases: String, Sendable, CaseIterable {
        /// 1 Hz, every fault of `GNSSErrorModel`, a 10-minute stop inserted halfway.
        case realistic
        /// The walks sampled every 1, 5, 10 and 30 s with `GNSSErrorModel.sparseHike`.
        case sparse
        /// The wider hike set of issue 34 §2 (`HikePattern`), over `wideSeeds` seeds.
        case wide
        /// All three.
        case all
    }

    /// The shared data folder holding the truth tracks.
    package var dataRoot: String
    /// ``dataRoot`` when none is given: `LOCATIONKIT_DATA` when set and not empty, else `../shared/data`.
    package static var defaultDataRoot: String {
        ProcessInfo.processInfo.environment["LOCATIONKIT_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "../shared/data"
    }
    /// The first error seed; seeds `firstSeed ..< firstSeed + seeds` run.
    package var firstSeed: UInt64
    /// How many seeds each case is averaged over (≥ 1).
    package var seeds: Int
    /// How many seeds the wide hike set runs (≥ 1), from `firstSeed` on.
    package var wideSeeds: Int
    /// The counts of seeds (`seeds`, `wideSeeds`) a user may give: 1 through 10,000.
    package static let seedCounts = ValidRange(1...10_000, unit: "")
    package var cases: Cases
    /// A folder to write each run's RTS input to, as `<case>-<seed>.input.csv` (pykalman's input).
    package var export: String?
    /// A folder holding pykalman's `<case>-<seed>.pykalman.csv`, added as a row.
    package var reference: String?

    package init(dataRoot: String, firstSeed: UInt64, seeds: Int, wideSeeds: Int = 20, cases: Cases,
                 export: String? = nil, reference: String? = nil) {
        self.dataRoot = dataRoot
        self.firstSeed = firstSeed
        self.seeds = seeds
        self.wideSeeds = wideSeeds
        self.cases = cases
        self.export = export
        self.reference = reference
    }

    /// The truth tracks: file under the data root, a short name, walk (else drive).
    package static let tracks: [(path: String, name: String, walk: Bool)] = [
        ("gpx/gpxpy/korita-zbevnica.gpx", "walk-korita", true),
        ("gpx/gpxpy/cerknicko-jezero.gpx", "walk-cerknica", true),
        ("gpx/gpxpy/around-visnjan-with-car.gpx", "drive-visnjan", false),
        ("traces/graphhopper-mm/test1.gpx", "drive-leipzig", false),
    ]

    /// The sampling intervals of the sparse cases, seconds.
    package static let sparseIntervals = [1, 5, 10, 30]

    /// Runs the cases and hands each output line to `print`.
    /// - Throws: `EvaluationError` for a truth or reference file that cannot be read.
    package func run(print: (String) -> Void) throws {
        print("Mean over \(seeds) seeds (\(firstSeed)…\(firstSeed + UInt64(seeds) - 1)); length error also as the worst seed.")
        var goals: [String] = []
        if cases == .realistic || cases == .all { try realisticCases(goals: &goals, print: print) }
        if cases == .sparse || cases == .all { try sparseCases(goals: &goals, print: print) }
        if cases == .wide || cases == .all { try hikeCases(goals: &goals, print: print) }
        print("")
        print("Goals (realistic: RMSE ≥ 40 % below raw, length < 3 % walks, < 1 % drives, drift < 5 m/10 min, "
            + "Kalman lag < 2 m walking; sparse hikes: RMSE ≤ 0.6 × raw, length < 3 %; wide hike set: the same on every seed):")
        for g in goals { print("- " + g) }
    }

    /// The 1 Hz tracks with the default error model and a 10-minute stop.
    private func realisticCases(goals: inout [String], print: (String) -> Void) throws {
        print("")
        print("| track | pipeline | fixes | RMSE m | vs raw | length error % (worst) | drift m/10 min | walking lag m |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for spec in Self.tracks {
            let truth = try TruthTrack(resampling: try truthFixes(spec.path), stopDuration: .seconds(600))
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
                print("| \(spec.name) | \(name) | \(Int(mean(metrics.map { Double($0.count) }))) | \(f(rmse, 2)) "
                    + "| \(name == "raw" ? "–" : f(-reduction, 0) + " %") | \(f(length, 2)) (\(f(worst, 2))) "
                    + "| \(drift.isEmpty ? "–" : f(mean(drift), 1)) | \(lag.isEmpty ? "–" : f(mean(lag), 2)) |")
                guard name == "rules + Kalman" || name == "rules + RTS" else { continue }
                let lengthGoal = spec.walk ? 3.0 : 1.0
                var misses: [String] = []
                if reduction < 40 { misses.append("RMSE only \(f(reduction, 0)) % below raw") }
                if abs(length) >= lengthGoal { misses.append("mean length error \(f(length, 2)) % ≥ \(lengthGoal) %") }
                if abs(worst) >= lengthGoal { misses.append("worst seed \(f(worst, 2)) %") }
                if !drift.isEmpty, mean(drift) >= 5 { misses.append("drift \(f(mean(drift), 1)) m/10 min") }
                if name == "rules + Kalman", spec.walk, !lag.isEmpty, abs(mean(lag)) >= 2 { misses.append("lag \(f(mean(lag), 2)) m") }
                goals.append("\(spec.name) \(name): " + (misses.isEmpty ? "all goals met" : misses.joined(separator: "; ")))
            }
            print("| \(spec.name) | rejections (rules + Kalman, all seeds) | \(rejectionSummary(rejections)) | | | | |")
        }
    }

    /// The walks sampled every 1, 5, 10 and 30 s with `GNSSErrorModel.sparseHike` (correlated
    /// noise, 2 % jumps of 60–200 m claiming 8 m), no added stop (korita stands still 43 % of its
    /// time), the fitness preset: issue 12 §4.
    private func sparseCases(goals: inout [String], print: (String) -> Void) throws {
        print("")
        print("Sparse hikes: Gauss–Markov noise 6 m RMS (60 s correlation), 2 % jumps of 60–200 m claiming 8 m, no Doppler; "
            + "clean = rules + Kalman (geo gpx clean --preset fitness), smooth = rules + RTS (geo gpx smooth --preset fitness).")
        print("")
        print("| track | every s | pipeline | fixes | RMSE m | × raw | length error % (worst) |")
        print("|---|---:|---|---:|---:|---:|---:|")
        for spec in Self.tracks where spec.walk {
            let fixes = try truthFixes(spec.path)
            for interval in Self.sparseIntervals {
                let truth = try TruthTrack(resampling: fixes, interval: .seconds(interval))
                let (results, rejections) = try average(file: "\(spec.name)-\(interval)s", truth: truth, configuration: .fitness) {
                    GNSSErrorModel.sparseHike(seed: $0)
                }
                let rawRMSE = mean(results[0].metrics.map(\.rmse))
                for (name, metrics) in results where name != "rules" && !name.hasPrefix("HCKalmanFilter") {
                    let rmse = mean(metrics.map(\.rmse)), length = mean(metrics.map(\.lengthErrorPercent))
                    let worst = worstLengthError(metrics)
                    print("| \(spec.name) | \(interval) | \(name) | \(Int(mean(metrics.map { Double($0.count) }))) "
                        + "| \(f(rmse, 2)) | \(f(rmse / rawRMSE, 2)) | \(f(length, 2)) (\(f(worst, 2))) |")
                    guard name == "rules + Kalman" || name == "rules + RTS" else { continue }
                    var misses: [String] = []
                    if rmse > 0.6 * rawRMSE { misses.append("RMSE \(f(rmse / rawRMSE, 2)) × raw") }
                    if abs(length) >= 3 { misses.append("mean length error \(f(length, 2)) % ≥ 3 %") }
                    if abs(worst) >= 3 { misses.append("worst seed \(f(worst, 2)) %") }
                    goals.append("\(spec.name) every \(interval) s \(name): " + (misses.isEmpty ? "all goals met" : misses.joined(separator: "; ")))
                }
                print("| \(spec.name) | \(interval) | rejections (rules + Kalman, all seeds) | \(rejectionSummary(rejections)) | | |")
            }
        }
    }

    /// "rejected of received | reason count, …" for a table row.
    private func rejectionSummary(_ report: FilterReport) -> String {
        "\(report.rejected) of \(report.received) | "
            + RejectionReason.allReasons.filter { report.count(of: $0) > 0 }.map { "\($0) \(report.count(of: $0))" }.joined(separator: ", ")
    }

    /// The longest timed segment of a truth GPX file, as fixes.
    package func truthFixes(_ path: String) throws -> [Location] {
        let file = dataRoot + "/" + path
        let document: GPXDocument
        do {
            document = try GPXReader.read(bytes: try FileDescriptor.readContents(of: file))
        } catch let error as GPXError {
            throw EvaluationError(.invalidInput, "\(file):\(error.line):\(error.column): \(error.message)")
        } catch {
            throw EvaluationError(.unreadable, "\(file): \(error)")
        }
        let timed = { (s: GPXTrackSegment) in s.points.filter { $0.time != nil }.count }
        guard let segment = document.tracks.flatMap(\.segments).max(by: { timed($0) < timed($1) }) else {
            throw EvaluationError(.invalidInput, "\(file) has no track segment")
        }
        return segment.points.compactMap { Location(gpxPoint: $0, accuracy: .default) }
    }

    /// Every pipeline's metrics on every seed, in row order, and the online rejections summed.
    private func average(file: String, truth: TruthTrack, configuration: TrackFilterConfiguration,
                         errors: (UInt64) -> GNSSErrorModel) throws -> ([(name: String, metrics: [TrackMetrics])], FilterReport) {
        var results: [(name: String, metrics: [TrackMetrics])] = []
        var rejections = FilterReport()
        for s in 0..<UInt64(seeds) {
            let run = try evaluate(file: "\(file)-\(firstSeed + s)", truth: truth, errors: errors(firstSeed + s), configuration: configuration)
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

    /// Every pipeline on one track and error draw, with pykalman's output read from `reference`
    /// and the smoothers' input written to `export`, both as `<file>.….csv`.
    private func evaluate(file: String, truth: TruthTrack, errors: GNSSErrorModel,
                          configuration: TrackFilterConfiguration) throws -> FilterEvaluation {
        var referenceTrack: [Location]?
        if let reference {
            let path = reference + "/\(file).pykalman.csv"
            let bytes: [UInt8]
            do { bytes = try FileDescriptor.readContents(of: path) } catch {
                throw EvaluationError(.unreadable, "cannot read \(path) (\(error)); run scripts/eval/pykalman_rts.py first")
            }
            do {
                referenceTrack = try PykalmanCSV.smoothed(String(decoding: bytes, as: UTF8.self), truth: truth)
            } catch {
                throw EvaluationError(.invalidInput, "\(path): \(error.message)")
            }
        }
        let run = FilterEvaluation(truth: truth, errors: errors, configuration: configuration, reference: referenceTrack)
        if let export {
            let path = export + "/\(file).input.csv"
            let text = PykalmanCSV.input(run.accepted, truth: truth, parameters: configuration.kalman ?? KalmanParameters())
            do {
                try FileManager.default.createDirectory(atPath: export, withIntermediateDirectories: true)
                try AtomicFileReplacement.write(Array(text.utf8), to: path)
            } catch {
                throw EvaluationError(.unreadable, "cannot write \(path): \(error)")
            }
        }
        return run
    }

    func mean(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.reduce(0, +) / Double(xs.count) }

    func f(_ x: Double, _ digits: Int) -> String { FixedDecimal.string(x, decimals: digits) }
}
