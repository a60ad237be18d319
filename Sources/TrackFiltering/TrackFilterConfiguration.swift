public import GeoCore
public import GeoBase

/// Every tunable of the standard cleaning pipeline, with presets named after the live-update
/// configurations the positioning engine offers (`LocationUpdate.liveUpdates(_:)`).
///
/// Each property is one rule; `nil` switches the rule off. Start from a preset and override:
/// `var c = TrackFilterConfiguration.fitness; c.minimumDistance = .meters(5)`.
/// Rules run in the order of the properties below; the first that objects names the reason.
public struct TrackFilterConfiguration: Hashable, Sendable {
    /// Drop fixes taken within this time after the first (receiver time; seed §4: 5–10 s).
    public var warmUp: Duration?
    /// Drop fixes with negative or NaN accuracy; with `true`, also those with none (seed §2).
    public var rejectsMissingAccuracy: Bool
    /// Drop fixes whose 68 % horizontal radius exceeds this (seed §2: 100 m).
    public var maximumHorizontalAccuracy: Distance?
    /// Drop fixes that lag the stream's pace by more than this when received (seed §3: 5–7 s;
    /// `StaleFixRule`: a replayed log flows, a cached fix does not). Needs receive times.
    public var maximumAge: Duration?
    /// Drop fixes timestamped at or before the last accepted one.
    public var rejectsOutOfOrder: Bool
    /// Drop hops faster than this after discounting both accuracy radii (teleports).
    public var maximumSpeed: Speed?
    /// Hold the track while the device is still.
    public var stationary: StationaryRule.Parameters?
    /// Drop moves shorter than this share of the previous accuracy radius unless more
    /// accurate (seed §5: one half).
    public var accuracyRadiusFraction: Double?
    /// Deliver a location only when it is at least this far from the last one delivered (Core
    /// Location's `distanceFilter`; seed §1 suggests 3–10 m). Applied to the cleaned output
    /// (after the Kalman filter, which still sees every fix), so it thins jitter, not data.
    public var minimumDistance: Distance?
    /// The Kalman filter run on accepted fixes; nil = rules only.
    public var kalman: KalmanParameters?

    public init(
        warmUp: Duration? = nil,
        rejectsMissingAccuracy: Bool = true,
        maximumHorizontalAccuracy: Distance? = nil,
        maximumAge: Duration? = nil,
        rejectsOutOfOrder: Bool = true,
        maximumSpeed: Speed? = nil,
        stationary: StationaryRule.Parameters? = nil,
        accuracyRadiusFraction: Double? = nil,
        minimumDistance: Distance? = nil,
        kalman: KalmanParameters? = nil
    ) {
        self.warmUp = warmUp
        self.rejectsMissingAccuracy = rejectsMissingAccuracy
        self.maximumHorizontalAccuracy = maximumHorizontalAccuracy
        self.maximumAge = maximumAge
        self.rejectsOutOfOrder = rejectsOutOfOrder
        self.maximumSpeed = maximumSpeed
        self.stationary = stationary
        self.accuracyRadiusFraction = accuracyRadiusFraction
        self.minimumDistance = minimumDistance
        self.kalman = kalman
    }

    /// General use: the seed's thresholds (100 m accuracy, 5 s warm-up, 10 s age, half
    /// the accuracy radius), teleports above 100 m/s, stillness below 0.3 m/s for 5 s. The mode
    /// of travel is unknown, so the smoother takes the model's agility from the fixes, up to
    /// 1 m/s² (`KalmanParameters.estimatesProcessNoise`: a hike logged every 10 s came out
    /// 4.4 % too long on average and 8.5 % on the worst seed under the fixed 1 m/s², 0.4 % and
    /// 1.6 % with it; `geo eval filters --cases wide`).
    public static let `default` = TrackFilterConfiguration(
        warmUp: .seconds(5), maximumHorizontalAccuracy: .meters(100), maximumAge: .seconds(10),
        maximumSpeed: .metersPerSecond(100),
        stationary: .init(speedThreshold: StationaryRule.Parameters.walkingStillSpeed, dwell: .seconds(5), radius: .meters(10)),
        accuracyRadiusFraction: 0.5,
        kalman: KalmanParameters(accelerationNoise: 1.0, estimatesProcessNoise: .everywhere))

    /// Cars: the seed's 10 s warm-up, fresh fixes only (5 s), 50 m accuracy, up to 90 m/s
    /// (324 km/h), stillness at traffic lights below 0.5 m/s for 3 s; delivered every 5 m (every
    /// fix above 18 km/h); agile model (2.5 m/s²); no accuracy-radius rule, which would thin
    /// slow traffic.
    public static let automotiveNavigation = TrackFilterConfiguration(
        warmUp: .seconds(10), maximumHorizontalAccuracy: .meters(50), maximumAge: .seconds(5),
        maximumSpeed: .metersPerSecond(90),
        stationary: .init(speedThreshold: .metersPerSecond(0.5), dwell: .seconds(3), radius: .meters(15)),
        minimumDistance: .meters(5),
        kalman: KalmanParameters(accelerationNoise: 2.5, maximumGap: .seconds(15)))

    /// Boats, trains, bicycles off road: 65 m accuracy, up to 100 m/s, 1.5 m/s² model.
    public static let otherNavigation = TrackFilterConfiguration(
        warmUp: .seconds(5), maximumHorizontalAccuracy: .meters(65), maximumAge: .seconds(5),
        maximumSpeed: .metersPerSecond(100),
        stationary: .init(speedThreshold: StationaryRule.Parameters.walkingStillSpeed, dwell: .seconds(5), radius: .meters(10)),
        kalman: KalmanParameters(accelerationNoise: 1.5, maximumGap: .seconds(20)))

    /// Walking, running, cycling: the seed's 10 s warm-up and 5 s age; 50 m accuracy (dzionis:
    /// drop > ~50 m); 20 m/s top speed; stillness below 0.3 m/s for 5 s; half the accuracy radius;
    /// a calm 0.3 m/s² model; delivered every 10 m (the top of seed §1's 3–10 m). GNSS error is
    /// correlated over tens of seconds, so the filter follows it as if it were motion; what it
    /// adds to the path between delivered points d apart shrinks as 1/d (its change over d grows
    /// as √d, its sideways share of each hop as 1/√d). At 5 m a hike with 4 m of 60 s-correlated
    /// noise came out 4.5–8 % long (`geo eval filters --cases sparse`), at 10 m 0.8–3.3 %.
    /// The smoother judges outliers against the motion the track itself shows
    /// (`KalmanParameters.ProcessNoiseEstimation.judgingOutliers`): between fixes 50 s apart
    /// 0.3 m/s² allows 3 σ of 130 m, so a jump of that size passed (`geo eval filters --cases
    /// wide`, every 5–60 s: `clean` 12.2 % too long on the worst seed, now 3.4 %; held-out seeds
    /// 13.3 % → 3.4 %).
    public static let fitness = TrackFilterConfiguration(
        warmUp: .seconds(10), maximumHorizontalAccuracy: .meters(50), maximumAge: .seconds(5),
        maximumSpeed: .metersPerSecond(20),
        stationary: .init(speedThreshold: StationaryRule.Parameters.walkingStillSpeed, dwell: .seconds(5), radius: .meters(8)),
        accuracyRadiusFraction: 0.5, minimumDistance: .meters(10),
        kalman: KalmanParameters(accelerationNoise: 0.3, maximumGap: .seconds(30), estimatesProcessNoise: .judgingOutliers))

    /// Aircraft: 100 m accuracy, up to 340 m/s, stillness (on the apron) below 0.5 m/s for 10 s,
    /// 5 m/s² model.
    public static let airborne = TrackFilterConfiguration(
        warmUp: .seconds(5), maximumHorizontalAccuracy: .meters(100), maximumAge: .seconds(5),
        maximumSpeed: .metersPerSecond(340),
        stationary: .init(speedThreshold: .metersPerSecond(0.5), dwell: .seconds(10), radius: .meters(20)),
        kalman: KalmanParameters(accelerationNoise: 5, maximumGap: .seconds(10)))

    /// The preset names, as the CLI spells them.
    public static let presetNames = ["default", "automotiveNavigation", "otherNavigation", "fitness", "airborne"]

    /// The preset with this name (see `presetNames`).
    /// - Throws: `TrackFilteringError` with `.unknownPreset`.
    public static func preset(named name: String) throws(TrackFilteringError) -> TrackFilterConfiguration {
        switch name {
        case "default": .default
        case "automotiveNavigation": .automotiveNavigation
        case "otherNavigation": .otherNavigation
        case "fitness": .fitness
        case "airborne": .airborne
        default:
            throw TrackFilteringError(.unknownPreset, "no preset '\(name)'; choose one of \(presetNames.joined(separator: ", "))")
        }
    }

    /// The preset `name` for fixes that may lack an accuracy (GPX has no accuracy field):
    /// those are rejected when `requiringAccuracy`, and the Kalman filter (the preset's, or
    /// the default one when the preset has none and `kalman` asks for one) assumes
    /// `assumedAccuracy` for them (`geo gpx clean` / `smooth`).
    /// - Throws: `TrackFilteringError` with `.unknownPreset`.
    public static func preset(named name: String, requiringAccuracy: Bool, assumedAccuracy: Distance,
                              kalman: Bool = false) throws(TrackFilteringError) -> TrackFilterConfiguration {
        var configuration = try preset(named: name)
        configuration.rejectsMissingAccuracy = requiringAccuracy
        if kalman, configuration.kalman == nil { configuration.kalman = KalmanParameters() }
        configuration.kalman?.assumedAccuracy = assumedAccuracy
        return configuration
    }

    /// - Throws: `TrackFilteringError` with `.invalidParameter` naming the first bad value.
    public func validate() throws(TrackFilteringError) {
        func positive(_ name: String, _ v: Double?) throws(TrackFilteringError) {
            if let v, !(v >= 0) { throw TrackFilteringError(.invalidParameter, "\(name) must be non-negative, got \(v)") }
        }
        try positive("warmUp", warmUp?.seconds)
        try positive("maximumHorizontalAccuracy", maximumHorizontalAccuracy?.meters)
        try positive("maximumAge", maximumAge?.seconds)
        try positive("maximumSpeed", maximumSpeed?.metersPerSecond)
        try positive("accuracyRadiusFraction", accuracyRadiusFraction)
        try positive("minimumDistance", minimumDistance?.meters)
        if let s = stationary {
            try positive("stationary.speedThreshold", s.speedThreshold.metersPerSecond)
            try positive("stationary.dwell", s.dwell.seconds)
            try positive("stationary.radius", s.radius.meters)
            try positive("stationary.accuracyFactor", s.accuracyFactor)
            try positive("stationary.maximumHoldDistance", s.maximumHoldDistance.meters)
        }
        try kalman?.validate()
    }

    /// The rules this configuration describes, as one composed filter.
    public func rules(start: Date? = nil) -> StandardRules { StandardRules(self, start: start) }
}

public import Platform

/// The standard chain of rules a `TrackFilterConfiguration` describes, in its order (the
/// distance filter is not among them: `TrackCleaner` applies it to its output).
public struct StandardRules: TrackFilter {
    var warmUp: WarmUpRule?
    var validAccuracy: ValidAccuracyRule
    var maximumAccuracy: MaximumAccuracyRule?
    var stale: StaleFixRule?
    var order: TimestampOrderRule?
    var speed: ImpliedSpeedRule?
    var stationary: StationaryRule?
    var radius: AccuracyRadiusRule?

    /// Builds the rules; `start` is when updates started (nil = the first fix).
    public init(_ c: TrackFilterConfiguration, start: Date? = nil) {
        warmUp = c.warmUp.map { WarmUpRule(duration: $0, start: start) }
        validAccuracy = ValidAccuracyRule(rejectsMissing: c.rejectsMissingAccuracy)
        maximumAccuracy = c.maximumHorizontalAccuracy.map { MaximumAccuracyRule(limit: $0) }
        stale = c.maximumAge.map { StaleFixRule(maximumAge: $0) }
        order = c.rejectsOutOfOrder ? TimestampOrderRule() : nil
        speed = c.maximumSpeed.map { ImpliedSpeedRule(maximum: $0) }
        stationary = c.stationary.map { StationaryRule($0) }
        radius = c.accuracyRadiusFraction.map { AccuracyRadiusRule(fraction: $0) }
    }

    public mutating func evaluate(_ input: FilterInput) -> RejectionReason? {
        if let r = warmUp.evaluate(input) ?? validAccuracy.evaluate(input) ?? maximumAccuracy.evaluate(input) {
            // The stale rule learns the stream's pace from every fix, also those dropped before it.
            stale?.observe(input)
            return r
        }
        if let r = stale.evaluate(input) { return r }
        if let r = order.evaluate(input) { return r }
        if let r = speed.evaluate(input) { return r }
        if let r = stationary.evaluate(input) { return r }
        return radius.evaluate(input)
    }

    public mutating func accepted(_ input: FilterInput) {
        speed.accepted(input)
    }
}
