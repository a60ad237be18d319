import ArgumentParser
import Foundation
import GeoCore
import GPXCodec
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
                let (rows, report) = try evaluate(spec, truth: truth, seed: seed + s)
                rejections.merge(report)
                for (i, row) in rows.enumerated() {
                    if results.count <= i { results.append((row.0, [])) }
                    results[i].metrics.append(TrackMetrics(row.1, truth: truth))
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

    /// Every pipeline's output for one track and seed, and the online cleaner's report.
    private func evaluate(_ spec: (path: String, name: String, walk: Bool), truth: TruthTrack,
                          seed: UInt64) throws -> ([(String, [Location])], FilterReport) {
        let noisy = GNSSErrorModel(seed: seed).corrupt(truth)
        let configuration: TrackFilterConfiguration = spec.walk ? .fitness : .automotiveNavigation
        let kalmanParameters = configuration.kalman ?? KalmanParameters()

        var rulesOnly = configuration
        rulesOnly.kalman = nil
        var rules = TrackCleaner(configuration: rulesOnly)
        let delivered = noisy.compactMap { rules.process($0.fix, receivedAt: $0.receivedAt).location }
        // The smoothers get every fix the rules accept (no distance filter: they thin nothing).
        rulesOnly.minimumDistance = nil
        var unthinned = TrackCleaner(configuration: rulesOnly)
        let accepted = noisy.compactMap { unthinned.process($0.fix, receivedAt: $0.receivedAt).location }
        var online = TrackCleaner(configuration: configuration)
        let filtered = noisy.compactMap { online.process($0.fix, receivedAt: $0.receivedAt).location }
        let smoothed = KalmanSmoother(parameters: kalmanParameters).smoothed(accepted)
        var hc = FixedNoiseKalman()
        let hcTrack = accepted.map { hc.process($0, frame: truth.frame) }

        var rows: [(String, [Location])] = [
            ("raw", noisy.map(\.fix)), ("rules", delivered), ("rules + Kalman", filtered), ("rules + RTS", smoothed),
        ]
        let file = "\(spec.name)-\(seed)"
        if let export {
            try PykalmanBridge.write(accepted, truth: truth, parameters: kalmanParameters,
                                     to: URL(fileURLWithPath: export).appendingPathComponent("\(file).input.csv"))
        }
        if let reference {
            let url = URL(fileURLWithPath: reference).appendingPathComponent("\(file).pykalman.csv")
            rows.append(("pykalman RTS (same input)", try PykalmanBridge.read(url, truth: truth)))
        }
        rows.append(("HCKalmanFilter-style (fixed R)", hcTrack))
        return (rows, online.report)
    }

    private func mean(_ xs: [Double]) -> Double { xs.isEmpty ? .nan : xs.reduce(0, +) / Double(xs.count) }

    private func f(_ x: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", x) }
}

/// A constant-velocity Kalman filter in the style of HCKalmanFilter, for contrast: fixed
/// measurement noise (`rValue` 29, ignoring each fix's accuracy), finite-difference velocity
/// as a measurement, its process noise (σ = 0.0625, discrete white-noise acceleration), no
/// gating, no restart, speed and course not kept. Run in metres on a plane (HCKalmanFilter
/// works in degrees) and with the velocity difference's sign the right way round.
struct FixedNoiseKalman {
    /// One axis: position and velocity, with a 2×2 covariance.
    private struct Axis {
        var x = 0.0, v = 0.0
        var p00 = 0.0, p01 = 0.0, p11 = 0.0
    }

    let rValue = 29.0
    let sigma = 0.0625
    private var east = Axis(), north = Axis()
    private var previous: (t: Date, e: Double, n: Double)?

    mutating func process(_ fix: Location, frame: LocalFrame) -> Location {
        let p = frame.point(for: fix.coordinate)
        guard let prev = previous else {
            east = Axis(x: p.east)
            north = Axis(x: p.north)
            previous = (fix.timestamp, p.east, p.north)
            return fix
        }
        let dt = max(fix.timestamp.timeIntervalSince(prev.t), 1e-3)
        let ve = (p.east - prev.e) / dt, vn = (p.north - prev.n) / dt
        Self.step(&east, z: p.east, zv: ve, dt: dt, r: rValue, sigma: sigma)
        Self.step(&north, z: p.north, zv: vn, dt: dt, r: rValue, sigma: sigma)
        previous = (fix.timestamp, p.east, p.north)
        var out = Location(coordinate: frame.coordinate(east: east.x, north: north.x), timestamp: fix.timestamp)
        out.altitude = fix.altitude
        return out
    }

    /// Predict with A = [[1, dt], [0, 1]], Q = σ·[[dt⁴/4, dt³/2], [dt³/2, dt²]]; update with
    /// H = I and R = r·I.
    private static func step(_ a: inout Axis, z: Double, zv: Double, dt: Double, r: Double, sigma: Double) {
        let x = a.x + a.v * dt, v = a.v
        let dt2 = dt * dt
        let p00 = a.p00 + 2 * dt * a.p01 + dt2 * a.p11 + sigma * dt2 * dt2 / 4
        let p01 = a.p01 + dt * a.p11 + sigma * dt2 * dt / 2
        let p11 = a.p11 + sigma * dt2
        // S = P + R; K = P S⁻¹.
        let s00 = p00 + r, s01 = p01, s11 = p11 + r
        let det = s00 * s11 - s01 * s01
        let i00 = s11 / det, i01 = -s01 / det, i11 = s00 / det
        let k00 = p00 * i00 + p01 * i01, k01 = p00 * i01 + p01 * i11
        let k10 = p01 * i00 + p11 * i01, k11 = p01 * i01 + p11 * i11
        let y0 = z - x, y1 = zv - v
        a.x = x + k00 * y0 + k01 * y1
        a.v = v + k10 * y0 + k11 * y1
        // P = (I − K) P⁻.
        a.p00 = (1 - k00) * p00 - k01 * p01
        a.p01 = (1 - k00) * p01 - k01 * p11
        a.p11 = -k10 * p01 + (1 - k11) * p11
    }
}

/// The CSV hand-over to scripts/eval/pykalman_rts.py (the outside reference RTS smoother).
enum PykalmanBridge {
    /// Writes `t,east,north,accuracy,speed,speed_accuracy,course,course_accuracy` per fix (plane
    /// metres in the truth frame; empty cells for missing values), with the model in a header
    /// comment line: `# acceleration_noise=…,initial_speed_sigma=…,assumed_speed_accuracy=…,assumed_course_accuracy=…`.
    static func write(_ fixes: [Location], truth: TruthTrack, parameters: KalmanParameters, to url: URL) throws {
        var text = "# acceleration_noise=\(parameters.accelerationNoise),initial_speed_sigma=\(parameters.initialSpeedUncertainty.metersPerSecond)"
            + ",assumed_speed_accuracy=\(parameters.assumedSpeedAccuracy.metersPerSecond),assumed_course_accuracy=\(parameters.assumedCourseAccuracy)"
            + ",assumed_accuracy=\(parameters.assumedAccuracy.meters)\n"
        text += "t,east,north,accuracy,speed,speed_accuracy,course,course_accuracy\n"
        let t0 = truth.times[0]
        func cell(_ x: Double?) -> String { x.map { "\($0)" } ?? "" }
        for fix in fixes {
            let p = truth.frame.point(for: fix.coordinate)
            text += "\(fix.timestamp.timeIntervalSince(t0)),\(p.east),\(p.north),\(cell(fix.horizontalAccuracy?.meters)),"
                + "\(cell(fix.speed?.metersPerSecond)),\(cell(fix.speedAccuracy?.metersPerSecond)),"
                + "\(cell(fix.course?.degrees)),\(cell(fix.courseAccuracy?.degrees))\n"
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Reads `t,east,north` rows back as fixes.
    static func read(_ url: URL, truth: TruthTrack) throws -> [Location] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw TrackCommandError("cannot read \(url.path); run scripts/eval/pykalman_rts.py first")
        }
        var out: [Location] = []
        for (i, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated() {
            if line.hasPrefix("#") || line.hasPrefix("t,") { continue }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard cells.count >= 3, let t = Double(cells[0]), let e = Double(cells[1]), let n = Double(cells[2]) else {
                throw TrackCommandError("\(url.path):\(i + 1): expected t,east,north")
            }
            out.append(Location(coordinate: truth.frame.coordinate(east: e, north: n), timestamp: truth.times[0].addingTimeInterval(t)))
        }
        return out
    }
}
