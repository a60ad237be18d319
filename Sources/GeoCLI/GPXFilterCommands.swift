public import ArgumentParser
import GeoCore
import GPXCodec
import TrackFiltering

/// Options every track-filtering command shares (`geo gpx clean`, `geo gpx smooth`).
struct TrackFilterOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Metres of error per unit of HDOP, used as accuracy (GPX has no accuracy field; \(GPXAccuracyPolicy.ueres)).")
    var uere = 5.0

    @Option(parsing: .unconditional, help: "Accuracy assumed for points with neither accuracy nor HDOP (\(GPXAccuracyPolicy.assumedAccuracies)).")
    var assumedAccuracy = 10.0

    @Flag(help: "Drop points without accuracy (HDOP) instead of assuming one.")
    var requireAccuracy = false

    @Option(help: "Preset: default, automotiveNavigation, otherNavigation, fitness, airborne.")
    var preset = "default"

    /// Accuracy from HDOP × --uere, else --assumed-accuracy unless --require-accuracy.
    var accuracyPolicy: GPXAccuracyPolicy {
        GPXAccuracyPolicy(uere: .meters(uere), assumed: requireAccuracy ? nil : .meters(assumedAccuracy))
    }

    func validate() throws {
        try GPXAccuracyPolicy.ueres.check(uere, option: "--uere")
        try GPXAccuracyPolicy.assumedAccuracies.check(assumedAccuracy, option: "--assumed-accuracy")
    }

    /// The preset's rules and Kalman filter (the default filter where the preset has none and
    /// `kalman` asks for one), with --require-accuracy and --assumed-accuracy.
    func configuration(kalman: Bool = false) throws -> TrackFilterConfiguration {
        try TrackFilterConfiguration.preset(named: preset, requiringAccuracy: requireAccuracy, assumedAccuracy: .meters(assumedAccuracy), kalman: kalman)
    }
}

extension Simplification.Method: ExpressibleByArgument {}

/// `geo gpx clean`: filter rules and the Kalman filter of a preset over every track segment.
struct GPXClean: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Drop bad fixes (accuracy, warm-up, order, teleports, stillness…) and Kalman-filter the rest.",
        discussion: """
            Each track segment is cleaned on its own with the preset's rules (see TrackFilterConfiguration) \
            and its Kalman filter, as the positioning engine does live, except that a point the next \
            one exposes as a jump (a segment's unconfirmed first fix, or a fix off the line its neighbours draw) is dropped again, \
            and so is a point the smoother of geo gpx smooth drops as an outlier (taken out before the \
            filter sees it: between sparse fixes only the fixes on both sides expose some jumps); points without a time are \
            skipped. GPX has no accuracy field: HDOP × --uere stands in, else --assumed-accuracy. \
            With --report, the counts per rejection reason go to standard error. The file is read and \
            written as a stream (memory stays flat however long the track); waypoints or routes after \
            the first track, out of GPX's schema order, are left out and counted on standard error. \
            Presets: \(TrackFilterConfiguration.presetNames.joined(separator: ", ")).
            """
    )

    @OptionGroup var input: GPXInputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var options: TrackFilterOptions
    @Flag(help: "Keep the accepted fixes as recorded (rules only, no Kalman filter).") var rulesOnly = false
    @Flag(help: "Print how many fixes each rule rejected.") var report = false

    func run() throws {
        var configuration = try options.configuration()
        if rulesOnly { configuration.kalman = nil }
        try configuration.validate()
        try GPXTrackFiles.copy(input, to: output, accuracy: options.accuracyPolicy, printsReport: report) {
            SmoothedCleaning<StandardRules, GPXPoint>(TrackCleaner(configuration: configuration))
        } report: { $0.report }
    }
}

/// `geo gpx smooth`: the clean rules and Kalman gate of a preset, then Rauch–Tung–Striebel
/// smoothing with heavy-tailed noise, on every track segment.
struct GPXSmooth: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smooth",
        abstract: "Drop bad fixes as clean does, then RTS-smooth every track segment (forward Kalman filter, backward pass).",
        discussion: """
            Each track segment goes through the preset's rules and Kalman gate exactly as `geo gpx clean` \
            (without its distance filter), then the Rauch–Tung–Striebel smoother with Student-t position \
            noise: a fix that neither neighbour explains (a jump the gate let through between sparse fixes) \
            loses its weight and is dropped. --no-rules skips the rules (the gate and the robust weights \
            stay). The smoother is fixed-lag (KalmanSmoother.SmoothingWindow.standard: every point is \
            estimated from at least 256 kept fixes on each side, within millimetres of smoothing the \
            whole segment at once), so the file is read and written as a stream and memory stays flat \
            however long the track; points go in file order (a point timed before the one kept last is \
            dropped as out of order). --report prints how many fixes were dropped and why. Presets: \(TrackFilterConfiguration.presetNames.joined(separator: ", ")).
            """
    )

    @OptionGroup var input: GPXInputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var options: TrackFilterOptions
    @Option(parsing: .unconditional, help: "One-sigma white acceleration of the motion model (\(KalmanParameters.accelerationNoises); default: the preset's).")
    var acceleration: Double?
    @Flag(help: "Smooth every fix without the preset's rules (the Kalman gate still applies).") var noRules = false
    @Flag(help: "Print how many fixes were dropped and why.") var report = false

    func validate() throws {
        try KalmanParameters.accelerationNoises.check(acceleration, option: "--acceleration")
    }

    func run() throws {
        var configuration = try options.configuration(kalman: true)
        if let acceleration { configuration.kalman?.accelerationNoise = acceleration }
        try configuration.validate()
        let smoother = KalmanSmoother(parameters: configuration.kalman ?? KalmanParameters())
        let rules = noRules ? nil : configuration.rules()
        try GPXTrackFiles.copy(input, to: output, accuracy: options.accuracyPolicy, printsReport: report) {
            FixedLagSmoothing<StandardRules?, GPXPoint>(smoother: smoother, rules: rules)
        } report: { $0.report }
    }
}

/// `geo gpx simplify`: Douglas–Peucker or Visvalingam–Whyatt on every track segment.
struct GPXSimplify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplify",
        abstract: "Simplify every track segment with a tolerance in metres."
    )

    @OptionGroup var input: GPXInputOptions
    @OptionGroup var output: OutputOptions
    @Option(parsing: .unconditional, help: "Tolerance (\(Simplification.tolerances); Visvalingam–Whyatt: areas below its square are dropped).")
    var tolerance: Double
    @Option(help: "douglasPeucker or visvalingamWhyatt.") var method = Simplification.Method.douglasPeucker

    func validate() throws {
        try Simplification.tolerances.check(tolerance, option: "--tolerance")
    }

    func run() throws {
        let document = try input.readDocument().simplifyingTracks(tolerance: .meters(tolerance), method: method)
        try output.write { sink in sink = try GPXWriter.write(document, to: sink) }
    }
}
