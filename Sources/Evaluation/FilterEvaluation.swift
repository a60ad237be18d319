package import GeoCore
package import TrackFiltering

/// The filter evaluation of `geo eval filters` on one truth track and error seed: realistic GNSS
/// error injected into the truth (`GNSSErrorModel`), then every pipeline run on the same noisy
/// fixes, each measured against the truth (`TrackMetrics`).
package struct FilterEvaluation: Sendable {
    /// One pipeline's output.
    package struct Row: Sendable {
        /// The pipeline: `raw`, `rules`, `rules + Kalman`, `rules + RTS`, the reference, the contrast.
        package var name: String
        /// Its track, in delivery order.
        package var track: [Location]
        /// Its metrics against the truth.
        package var metrics: TrackMetrics
    }

    /// The pipelines' rows: raw fixes, rules only, rules + Kalman (as `geo gpx clean`), rules + RTS, the
    /// reference when one was given, and the HCKalmanFilter-style contrast (`FixedNoiseKalman`).
    package let rows: [Row]
    /// The fixes the rules accept without thinning: pykalman's and the contrast's input (our RTS
    /// row runs the same rules itself, with the Kalman gate, as `geo gpx smooth` does).
    package let accepted: [Location]
    /// The online pipeline's rejection report.
    package let report: FilterReport

    /// Runs every pipeline on `truth` corrupted by the default error model with `seed`.
    package init(truth: TruthTrack, seed: UInt64, configuration: TrackFilterConfiguration, reference: [Location]? = nil) {
        self.init(truth: truth, errors: GNSSErrorModel(seed: seed), configuration: configuration, reference: reference)
    }

    /// Runs every pipeline on `truth` corrupted by `errors`.
    /// - Parameters:
    ///   - configuration: the rules and Kalman parameters (`.fitness` for walks,
    ///     `.automotiveNavigation` for drives).
    ///   - reference: an outside smoother's output on this run's `accepted` fixes (pykalman's
    ///     RTS, read back with `PykalmanCSV.smoothed`), added as the row `pykalman RTS (same input)`.
    /// - Complexity: O(n) per pipeline, n the truth's samples.
    package init(truth: TruthTrack, errors: GNSSErrorModel, configuration: TrackFilterConfiguration,
                reference: [Location]? = nil) {
        let noisy = errors.corrupt(truth)
        let kalmanParameters = configuration.kalman ?? KalmanParameters()

        var rulesOnly = configuration
        rulesOnly.kalman = nil
        var rules = TrackCleaner(configuration: rulesOnly)
        let delivered = noisy.compactMap { rules.process($0.fix, receivedAt: $0.receivedAt).location }
        // The smoothers get every fix the rules accept (no distance filter: they thin nothing).
        rulesOnly.minimumDistance = nil
        var unthinned = TrackCleaner(configuration: rulesOnly)
        let accepted = noisy.compactMap { unthinned.process($0.fix, receivedAt: $0.receivedAt).location }
        // As `geo gpx clean`: the online pipeline without the fixes the smoother exposes as jumps.
        var online = SmoothedCleaning<StandardRules, Void>(TrackCleaner(configuration: configuration))
        var filtered: [Location] = []
        for n in noisy { online.push(n.fix, receivedAt: n.receivedAt, item: ()) { fix, _ in filtered.append(fix) } }
        online.finish { fix, _ in filtered.append(fix) }
        var smoothingReport = FilterReport()
        let smoothed = KalmanSmoother(parameters: kalmanParameters)
            .smoothed(noisy.lazy.map { ($0.fix, $0.receivedAt) }, rules: rulesOnly.rules(), report: &smoothingReport)
        var fixedNoise = FixedNoiseKalman()
        let contrast = accepted.map { fixedNoise.process($0, frame: truth.frame) }

        var tracks: [(String, [Location])] = [
            ("raw", noisy.map(\.fix)), ("rules", delivered), ("rules + Kalman", filtered), ("rules + RTS", smoothed),
        ]
        if let reference { tracks.append(("pykalman RTS (same input)", reference)) }
        tracks.append(("HCKalmanFilter-style (fixed R)", contrast))
        rows = tracks.map { Row(name: $0.0, track: $0.1, metrics: TrackMetrics($0.1, truth: truth)) }
        self.accepted = accepted
        report = online.report
    }
}
